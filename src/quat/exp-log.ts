import { InvalidValueError } from '../errors.js';
import { checkLength, checkNorm, checkSpan } from './check.js';
import type { QuatLike, QuatOut } from './types.js';

/**
 * Rotation logarithm on flat arrays: the half-angle vector `axis·θ/2` of the rotation, taken from the
 * `w >= 0` representative so `q` and `-q` give the same result (norm in `[0, π/2]`).
 *
 * Computed with `atan2(|v|, w)`, so it is stable at θ = π (w = 0: the axis is `v/|v|`, no 0/0) and for
 * tiny angles (the factor `atan2(|v|, w)/|v|` is accurate for any `|v| > 0`). Non-unit inputs are
 * treated as the rotation they represent (the norm is ignored). Exactly zero vector part gives zero.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite (a zero quaternion is no rotation, not the
 * identity).
 * @throws {ShapeError} when an offset leaves fewer than 3 (`dst`) or 4 (`q`) numbers.
 */
export function logFlat(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  checkSpan('logFlat', 'dst', dst, dstOffset, 3);
  checkSpan('logFlat', 'q', q, qOffset, 4);
  let x = q[qOffset];
  let y = q[qOffset + 1];
  let z = q[qOffset + 2];
  let w = q[qOffset + 3];
  checkNorm('log', 'q', x * x + y * y + z * z + w * w, q, qOffset);
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const s = Math.sqrt(x * x + y * y + z * z);
  const k = s > 0 ? Math.atan2(s, w) / s : w > 0 ? 1 / w : 0;
  dst[dstOffset] = x * k;
  dst[dstOffset + 1] = y * k;
  dst[dstOffset + 2] = z * k;
}

/**
 * Rotation logarithm: the half-angle vector `axis·θ/2` (norm in `[0, π/2]`) of the `w >= 0`
 * representative, so `log(q) = log(-q)`. `exp(log(q))` returns `q` up to sign.
 * Source: Grassia, "Practical parameterization of rotations using the exponential map" (JGT 1998).
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 3.
 */
export function log<T extends QuatOut>(out: T, q: QuatLike): T {
  checkLength('log', 'out', out, 3);
  checkLength('log', 'q', q, 4);
  logFlat(out, 0, q, 0);
  return out;
}

/**
 * Quaternion exponential of a pure vector on flat arrays: `(sin|v|·v/|v|, cos|v|)`, a unit quaternion
 * rotating by `2|v|` about `v`. Uses the series `1 − |v|²/6` for `|v| < 1e-8`, so 0 and 1e-12 are exact.
 *
 * @throws {InvalidValueError} when `v` has a non-finite component.
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 3 (`v`) numbers.
 */
export function expFlat(dst: QuatOut, dstOffset: number, v: QuatLike, vOffset: number): void {
  expOfScaled(dst, dstOffset, v, vOffset, 1, 'exp');
}

/** `exp(scale·v)`: shared by {@link expFlat} (scale 1) and {@link fromRotationVectorFlat} (scale ½). */
function expOfScaled(
  dst: QuatOut,
  dstOffset: number,
  v: QuatLike,
  vOffset: number,
  scale: number,
  name: string,
): void {
  checkSpan(name, 'dst', dst, dstOffset, 4);
  checkSpan(name, 'v', v, vOffset, 3);
  const x = scale * v[vOffset];
  const y = scale * v[vOffset + 1];
  const z = scale * v[vOffset + 2];
  const t2 = x * x + y * y + z * z;
  if (!Number.isFinite(t2)) {
    throw new InvalidValueError(
      `${name}: vector (${v[vOffset]}, ${v[vOffset + 1]}, ${v[vOffset + 2]}) is not finite`,
    );
  }
  const t = Math.sqrt(t2);
  const k = t < 1e-8 ? 1 - t2 / 6 : Math.sin(t) / t;
  dst[dstOffset] = x * k;
  dst[dstOffset + 1] = y * k;
  dst[dstOffset + 2] = z * k;
  dst[dstOffset + 3] = Math.cos(t);
}

/**
 * Quaternion exponential of a half-angle vector: the inverse of {@link log}. `exp([0,0,0])` is the
 * identity; vectors longer than π/2 are valid and give the other hemisphere.
 *
 * @throws {InvalidValueError} when `v` is not finite.
 * @throws {ShapeError} when `v` does not hold 3 numbers or `out` 4.
 */
export function exp<T extends QuatOut>(out: T, v: QuatLike): T {
  checkLength('exp', 'out', out, 4);
  checkLength('exp', 'v', v, 3);
  expFlat(out, 0, v, 0);
  return out;
}

/**
 * Rotation vector `axis·θ` (norm in `[0, π]`, SciPy's `as_rotvec`) on flat arrays: twice {@link logFlat}.
 * At exactly θ = π both `±π·axis` are correct; the one from the given sign of the vector part is returned.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 3 (`dst`) or 4 (`q`) numbers.
 */
export function toRotationVectorFlat(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  logFlat(dst, dstOffset, q, qOffset);
  dst[dstOffset] *= 2;
  dst[dstOffset + 1] *= 2;
  dst[dstOffset + 2] *= 2;
}

/**
 * Rotation vector `axis·θ` with θ in `[0, π]`; `q` and `-q` give the same vector (SciPy's `as_rotvec`).
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 3.
 */
export function toRotationVector<T extends QuatOut>(out: T, q: QuatLike): T {
  checkLength('toRotationVector', 'out', out, 3);
  checkLength('toRotationVector', 'q', q, 4);
  toRotationVectorFlat(out, 0, q, 0);
  return out;
}

/**
 * Quaternion from a rotation vector `axis·θ` on flat arrays (SciPy's `from_rotvec`); any length is
 * accepted, `|v| > π` wraps around.
 *
 * @throws {InvalidValueError} when `v` is not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 3 (`v`) numbers.
 */
export function fromRotationVectorFlat(dst: QuatOut, dstOffset: number, v: QuatLike, vOffset: number): void {
  expOfScaled(dst, dstOffset, v, vOffset, 0.5, 'fromRotationVector');
}

/**
 * Quaternion from a rotation vector `axis·θ` (radians); exact at 0 and for tiny vectors.
 *
 * @throws {InvalidValueError} when `v` is not finite.
 * @throws {ShapeError} when `v` does not hold 3 numbers or `out` 4.
 */
export function fromRotationVector<T extends QuatOut>(out: T, v: QuatLike): T {
  checkLength('fromRotationVector', 'out', out, 4);
  checkLength('fromRotationVector', 'v', v, 3);
  fromRotationVectorFlat(out, 0, v, 0);
  return out;
}

/**
 * Quaternion rotating by `angle` radians about `axis` (right-hand rule). The axis need not be unit.
 *
 * @throws {InvalidValueError} when the axis is zero (and the angle is not) or anything is non-finite.
 * @throws {ShapeError} when `axis` does not hold 3 numbers or `out` 4.
 */
export function fromAxisAngle<T extends QuatOut>(out: T, axis: QuatLike, angle: number): T {
  checkLength('fromAxisAngle', 'out', out, 4);
  checkLength('fromAxisAngle', 'axis', axis, 3);
  const ax = axis[0];
  const ay = axis[1];
  const az = axis[2];
  const n = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!Number.isFinite(n) || !Number.isFinite(angle)) {
    throw new InvalidValueError(`fromAxisAngle: axis (${ax}, ${ay}, ${az}) or angle ${angle} is not finite`);
  }
  if (n === 0) {
    if (angle !== 0) throw new InvalidValueError(`fromAxisAngle: zero axis with non-zero angle ${angle}`);
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    out[3] = 1;
    return out;
  }
  const s = Math.sin(0.5 * angle) / n;
  out[0] = ax * s;
  out[1] = ay * s;
  out[2] = az * s;
  out[3] = Math.cos(0.5 * angle);
  return out;
}
