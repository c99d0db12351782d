import { InvalidValueError, ShapeError } from '../errors.js';
import type { FloatArray, QuatSeries, Vec3Series } from './types.js';

/**
 * Most values a series operation allocates, 2^28 (2 GiB of Float64): a larger request is a {@link ShapeError}
 * naming the sizes, not an engine RangeError or an exhausted machine.
 */
export const MAX_SERIES_VALUES = 2 ** 28;

/** @internal Throws unless `frames x joints x width` values fit under {@link MAX_SERIES_VALUES}. */
export function checkSeriesSize(frames: number, joints: number, width: number, where: string): void {
  const n = frames * joints * width;
  if (!(n <= MAX_SERIES_VALUES)) {
    throw new ShapeError(
      `${where}: frames ${frames} x joints ${joints} x ${width} = ${n} values exceeds the limit of ${MAX_SERIES_VALUES}`,
    );
  }
}

function checkCount(value: number, what: string, where: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new ShapeError(`${where}: ${what} must be a non-negative integer, got ${value}`);
  }
}

function checkShape(data: FloatArray, frames: number, joints: number, width: number, where: string): void {
  if (!(data instanceof Float64Array || data instanceof Float32Array)) {
    throw new ShapeError(`${where}: data must be a Float64Array or Float32Array`);
  }
  checkCount(frames, 'frames', where);
  checkCount(joints, 'joints', where);
  const expected = frames * joints * width;
  if (data.length !== expected) {
    throw new ShapeError(
      `${where}: data has ${data.length} values, expected frames ${frames} x joints ${joints} x ${width} = ${expected}`,
    );
  }
}

/**
 * Wraps existing data as a {@link QuatSeries} after checking that `data.length === frames * joints * 4`.
 * The data is not copied and not normalised.
 *
 * @throws {ShapeError} when the length or the counts do not fit.
 * @example
 * const s = quatSeries(new Float64Array([0, 0, 0, 1, 0, 0, 0, 1]), 2, 1);
 */
export function quatSeries<T extends FloatArray>(data: T, frames: number, joints: number): QuatSeries<T> {
  checkShape(data, frames, joints, 4, 'quatSeries');
  return { data, frames, joints };
}

/**
 * Allocates a Float64 {@link QuatSeries} of `frames x joints` identity rotations `(0, 0, 0, 1)`.
 *
 * @throws {ShapeError} when a count is negative or not an integer.
 */
export function createQuatSeries(frames: number, joints: number): QuatSeries<Float64Array> {
  checkCount(frames, 'frames', 'createQuatSeries');
  checkCount(joints, 'joints', 'createQuatSeries');
  checkSeriesSize(frames, joints, 4, 'createQuatSeries');
  const data = new Float64Array(frames * joints * 4);
  fillIdentity(data);
  return { data, frames, joints };
}

// The loop is its own function: a first call on a long clip then compiles the loop on the fly (on-stack
// replacement) without ending in a return path that code has never run, which would deoptimise.
function fillIdentity(data: Float64Array): void {
  for (let i = 3; i < data.length; i += 4) data[i] = 1;
}

/**
 * Wraps existing data as a {@link Vec3Series} after checking that `data.length === frames * joints * 3`.
 *
 * @throws {ShapeError} when the length or the counts do not fit.
 */
export function vec3Series<T extends FloatArray>(data: T, frames: number, joints: number): Vec3Series<T> {
  checkShape(data, frames, joints, 3, 'vec3Series');
  return { data, frames, joints };
}

/** Allocates a zero-filled Float64 {@link Vec3Series} of `frames x joints`. */
export function createVec3Series(frames: number, joints: number): Vec3Series<Float64Array> {
  checkCount(frames, 'frames', 'createVec3Series');
  checkCount(joints, 'joints', 'createVec3Series');
  checkSeriesSize(frames, joints, 3, 'createVec3Series');
  return { data: new Float64Array(frames * joints * 3), frames, joints };
}

/**
 * Checks that a value is a well-formed {@link QuatSeries}; `name` goes into the message.
 *
 * @throws {ShapeError} naming the argument and the mismatch.
 */
export function assertQuatSeries(series: QuatSeries, name = 'series'): void {
  if (series === null || typeof series !== 'object') throw new ShapeError(`${name} must be a QuatSeries`);
  checkShape(series.data, series.frames, series.joints, 4, name);
}

/**
 * Checks that a value is a well-formed {@link Vec3Series}; `name` goes into the message.
 *
 * @throws {ShapeError} naming the argument and the mismatch.
 */
export function assertVec3Series(series: Vec3Series, name = 'series'): void {
  if (series === null || typeof series !== 'object') throw new ShapeError(`${name} must be a Vec3Series`);
  checkShape(series.data, series.frames, series.joints, 3, name);
}

/**
 * Throws on the first non-finite value of a frame-major series of `width` floats per joint, naming
 * its frame and joint. One pass, no allocation: a typed array is summed as `x · 0` (±0 for every finite
 * `x`, NaN otherwise) without a branch per value, about twice as fast as testing each value, and only a
 * series that fails is searched for its first bad value.
 *
 * @throws {InvalidValueError} with `location.frame` and `location.joint`.
 */
export function assertFiniteSeries(data: FloatArray, joints: number, width: number, name = 'series'): void {
  if (data === null || typeof data !== 'object' || typeof data.length !== 'number')
    throw new ShapeError(`${name} must be an array of numbers`);
  if ((data instanceof Float64Array || data instanceof Float32Array) && finiteSum(data) === 0) return;
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      const item = Math.floor(i / width);
      const frame = joints > 0 ? Math.floor(item / joints) : 0;
      const joint = joints > 0 ? item % joints : 0;
      throw new InvalidValueError(`${name}: non-finite value ${data[i]} at frame ${frame}, joint ${joint}`, {
        frame,
        joint,
      });
    }
  }
}

/** `Σ x · 0` over `data` in two sums: 0 exactly when every value is finite, NaN otherwise. */
function finiteSum(data: Float64Array | Float32Array): number {
  const n = data.length;
  const even = n - (n & 1);
  let s0 = 0;
  let s1 = 0;
  for (let i = 0; i < even; i += 2) {
    s0 += data[i] * 0;
    s1 += data[i + 1] * 0;
  }
  if (even < n) s0 += data[even] * 0;
  return s0 + s1;
}
