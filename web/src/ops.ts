// The rotsig operations the studio calls, in one place (everything it shows is computed by the library).
export {
  angularVelocity,
  averageCost,
  averageQuaternions,
  clipSpectrum,
  interpolate,
  resampleClip,
  resampleRotations,
  resampleVectors,
  spectrum,
} from 'rotsig';
