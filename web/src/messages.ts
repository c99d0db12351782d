import type { Clip, PositionMode, Track } from 'rotsig';
import { SMOOTH_DEFAULTS } from 'rotsig/pipeline';
import type { CurveKind, DotGrid, PostedCurves } from './curves.js';
import type { OpenMark } from './marks.js';

/** Processing settings the panel sends to the worker. */
export interface ProcessSettings {
  unroll: boolean;
  smooth: boolean;
  smoothKernel: 'gaussian' | 'tent' | 'catmull-rom' | 'cubic6' | 'lanczos2' | 'unsharp';
  /** gaussian and unsharp: sigma in milliseconds (a time, so the same smoothing at any frame rate). */
  sigmaMs: number;
  /** The other kernels (defined on frames): the factor they are widened by. */
  sigma: number;
  space: 'raw' | 'log' | 'eigen';
  resample: boolean;
  rate: number;
  resampleKernel: 'nearest' | 'linear' | 'catmull-rom' | 'cubic6' | 'lanczos2' | 'lanczos3';
  optimal: boolean;
  /** Add the forward-kinematics position term to the optimal keys' objective. */
  fk: boolean;
  /** Keyframe reduction (`reduceKeys`) as the last step. */
  reduce: boolean;
  /** `'object'`: virtual vertices 3 cm from every joint, in object space; `'local'`: each channel on its own. */
  reduceMetric: 'object' | 'local';
  /** Largest vertex displacement (`'object'`) or translation error (`'local'`), millimetres. */
  toleranceMm: number;
  /** `'local'` metric: largest rotation error, degrees. */
  toleranceDeg: number;
}

export const DEFAULT_SETTINGS: ProcessSettings = {
  unroll: false,
  smooth: false,
  smoothKernel: 'gaussian',
  sigmaMs: Number((SMOOTH_DEFAULTS.sigma * 1000).toFixed(1)),
  sigma: 1,
  space: 'raw',
  resample: false,
  rate: 30,
  resampleKernel: 'lanczos3',
  optimal: false,
  fk: false,
  reduce: false,
  reduceMetric: 'object',
  toleranceMm: 0.1,
  toleranceDeg: 0.05,
};

/** One animation of an open glTF file, for the animation list. */
export interface AnimationInfo {
  index: number;
  name: string;
  tracks: number;
  keys: number;
  duration: number;
}

/** What the reduce-keys step achieved (from `reduceKeys`' report), and the kept keys for the curves. */
export interface ReductionInfo {
  metric: 'object' | 'local';
  keysBefore: number;
  keysAfter: number;
  tracks: number;
  /** Animation data as glTF stores it (float32 key times and values, one time accessor per track). */
  bytesBefore: number;
  bytesAfter: number;
  /** Achieved maximum and 99th percentile: clip units for lengths; `maxAngle` radians (`'local'`). */
  maxError: number;
  p99Error: number;
  maxAngle: number;
  tolerance: number;
  /** Clip units per millimetre (BVH files: centimetres, 0.1; glTF: metres, 0.001). */
  unitsPerMm: number;
  /** The kept keys, one track per animated channel. */
  keptTracks: Track[];
}

export interface Difference {
  /** Largest angle between processed and original rotations, per joint, degrees. */
  perJointMaxDeg: Float64Array;
  maxDeg: number;
  meanDeg: number;
  maxJoint: number;
  maxFrame: number;
  /** How the comparison was made (same grid, or the processed clip resampled back to the source grid). */
  note: string;
}

export interface SpectrumData {
  frequencies: Float64Array;
  /** Clip maximum over joints and channels, dB. */
  maxDb: Float64Array;
  /** Frequency below which the requested energy share lies, Hz. */
  energyFrequency: number;
  energyShare: number;
  recommendedRate: number;
  rate: number;
  /**
   * One joint's rotation channels (Euler angles in its order, continuous), dB on `frequencies`: the
   * channels `clipSpectrum` transformed for the maximum, kept (`channelSpectra`), not transformed again.
   */
  joint: JointSpectrum | null;
}

/** One joint's channel spectra (dB re 1 rad, one array per Euler angle in the joint's order). */
export interface JointSpectrum {
  joint: number;
  db: Float64Array[];
}

export type ToWorker =
  /** A restarted worker gets the open clip again, with what its curves are drawn from. */
  | { type: 'load'; clip: Clip; fileEuler: Float64Array | null; tracks: Track[] | null }
  | { type: 'parse'; id: number; text: string; positionMode: PositionMode }
  | {
      type: 'parse-gltf';
      id: number;
      bytes: ArrayBuffer;
      name: string;
      /** A `.gltf`'s external files (`.bin`, images) by file name. */
      resources: Record<string, ArrayBuffer>;
    }
  | { type: 'animation'; id: number; index: number }
  | { type: 'download-gltf'; id: number }
  /** Processing; the result carries the shown joint's spectra and curves (`curves`: their kind). */
  | {
      type: 'process';
      id: number;
      settings: ProcessSettings;
      joint: number;
      curves: CurveKind;
      /** The curve plot's plotting area, canvas pixels: what the key dots are thinned for. */
      grid?: DotGrid;
    }
  /** One joint's curves of the original and the last processed clip. */
  | { type: 'curves'; id: number; joint: number; kind: CurveKind; grid?: DotGrid }
  /** The kept channel spectra of another joint, for the original and the processed clip. */
  | { type: 'joint-spectrum'; id: number; joint: number };

export type FromWorker =
  | { type: 'progress'; id: number; fraction: number; label: string }
  | {
      type: 'result';
      id: number;
      clip: Clip | null;
      difference: Difference | null;
      spectrum: SpectrumData | null;
      spectrumOriginal: SpectrumData | null;
      /** Clip spectra the worker computed since the clip was opened (each clip's once). */
      spectraComputed: number;
      reduction: ReductionInfo | null;
      /**
       * The shown joint's curves of the original and this result, ready to draw; null when they are the
       * curves the worker posted first for this request (no processed clip).
       */
      curves: PostedCurves | null;
      ms: number;
      /** Where the worker's time went since the file was opened (see `marks.ts`). */
      marks: OpenMark[];
    }
  | { type: 'curves'; id: number; curves: PostedCurves | null }
  | { type: 'downloaded'; id: number; glb: Uint8Array; warnings: string[] }
  | {
      type: 'joint-spectrum';
      id: number;
      original: JointSpectrum | null;
      processed: JointSpectrum | null;
    }
  | { type: 'error'; id: number; message: string }
  | {
      type: 'parsed';
      id: number;
      clip: Clip;
      warnings: string[];
      ms: number;
      /** The file's rotation channel values, degrees, frames x joints x 3 in each joint's Euler order. */
      fileEuler: Float64Array | null;
      /** glTF: the file's animations, the one shown, its tracks as keyed, and each joint's node index. */
      gltf?: { animations: AnimationInfo[]; animation: number; tracks: Track[]; nodes: Int32Array };
    }
  | { type: 'parse-error'; id: number; message: string };
