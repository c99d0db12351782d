/**
 * The checks the averaging and blending operations share (not re-exported): input checks with
 * errors that name the index, and the weight semantics every averaging method shares.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import { customRule, NUMBER_LIST, OBJECT_OPTION } from '../../options.js';

/**
 * Checks `weights` against `n` items and returns their sum. Weights are any finite reals; every method
 * divides by their sum, so a zero sum (relative to Σ|wᵢ|, below 1e-12) and all-zero weights are errors.
 *
 * @throws {ShapeError} when the length differs from `n`.
 * @throws {InvalidValueError} naming the index of a non-finite weight, or for a vanishing sum.
 */
export function checkWeights(weights: ArrayLike<number>, n: number, where: string): number {
  if (weights === null || typeof weights !== 'object' || typeof weights.length !== 'number')
    throw new ShapeError(`${where}: weights must be an array of ${n} numbers`);
  if (weights.length !== n) {
    throw new ShapeError(`${where}: ${weights.length} weights for ${n} items`);
  }
  let sum = 0;
  let abs = 0;
  for (let i = 0; i < n; i++) {
    const w = weights[i];
    if (!Number.isFinite(w)) throw new InvalidValueError(`${where}: weight ${i} is ${w}`, { index: i });
    sum += w;
    abs += Math.abs(w);
  }
  if (abs === 0) throw new InvalidValueError(`${where}: all weights are zero`);
  if (Math.abs(sum) <= 1e-12 * abs) {
    throw new InvalidValueError(
      `${where}: the weights sum to zero (${sum}); the average divides by their sum`,
    );
  }
  return sum;
}

/**
 * Checks that every quaternion of a flat n x 4 list is finite and non-zero.
 *
 * @throws {InvalidValueError} naming the index of the first bad quaternion.
 */
export function checkQuats(quats: ArrayLike<number>, n: number, where: string): void {
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const x = quats[o];
    const y = quats[o + 1];
    const z = quats[o + 2];
    const w = quats[o + 3];
    const n2 = x * x + y * y + z * z + w * w;
    if (!Number.isFinite(n2)) {
      throw new InvalidValueError(`${where}: quaternion ${i} (${x}, ${y}, ${z}, ${w}) is not finite`, {
        index: i,
      });
    }
    if (!(n2 > 0)) {
      throw new InvalidValueError(`${where}: quaternion ${i} is zero and is no rotation`, { index: i });
    }
  }
}

/** Writes `(x, y, z, w) / |·|` in the w ≥ 0 representative (for w = 0: first non-zero of x, y, z positive). */
export function writeCanonical(
  out: Float64Array | Float32Array | number[],
  o: number,
  x: number,
  y: number,
  z: number,
  w: number,
): void {
  let s = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  if (w < 0 || (w === 0 && (x < 0 || (x === 0 && (y < 0 || (y === 0 && z < 0)))))) s = -s;
  out[o] = x * s;
  out[o + 1] = y * s;
  out[o + 2] = z * s;
  out[o + 3] = w * s;
}

/** A pose given as numbers or as a one-frame QuatSeries (its length is checked by the function). */
export const POSE_OPTION = customRule(
  'a number[], Float64Array, Float32Array or QuatSeries',
  (v) => NUMBER_LIST.test(v) || (OBJECT_OPTION.test(v) && NUMBER_LIST.test((v as { data?: unknown }).data)),
);
