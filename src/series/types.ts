/** Typed arrays rotsig accepts for floating-point data. Computation is Float64 inside. */
export type FloatArray = Float64Array | Float32Array;

/**
 * A time series of rotations for several joints, frame-major: the quaternion of joint `j` at frame `f`
 * starts at `data[(f * joints + j) * 4]` and is stored `x, y, z, w` (scalar last).
 */
export interface QuatSeries<T extends FloatArray = FloatArray> {
  data: T;
  frames: number;
  joints: number;
}

/**
 * A time series of 3-vectors (positions, rotation vectors, angular velocities, Euler triples) for
 * several joints, frame-major: joint `j` at frame `f` starts at `data[(f * joints + j) * 3]`.
 */
export interface Vec3Series<T extends FloatArray = FloatArray> {
  data: T;
  frames: number;
  joints: number;
}
