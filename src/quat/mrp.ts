import { InvalidValueError } from '../errors.js';
import { checkLength, checkNorm, checkSpan } from './check.js';
import type { QuatLike, QuatOut } from './types.js';

/**
 * Modified Rodrigues parameters of a quaternion on flat arrays; see {@link toMrp}.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 3 (`dst`) or 4 (`q`) numbers.
 */
export function toMrpFlat(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  checkSpan('toMrpFlat', 'dst', dst, dstOffset, 3);
  checkSpan('toMrpFlat', 'q', q, qOffset, 4);
  const x = q[qOffset];
  const y = q[qOffset + 1];
  const z = q[qOffset + 2];
  const w = q[qOffset + 3];
  const n2 = x * x + y * y + z * z + w * w;
  checkNorm('toMrp', 'q', n2, q, qOffset);
  // v / (|q| + |w|) with the sign of w: scale-free, and the w >= 0 representative keeps |p| <= 1.
  const k = (w < 0 ? -1 : 1) / (Math.sqrt(n2) + Math.abs(w));
  dst[dstOffset] = x * k;
  dst[dstOffset + 1] = y * k;
  dst[dstOffset + 2] = z * k;
}

/**
 * Modified Rodrigues parameters `p = axis·tan(θ/4)` of a rotation (SciPy's `as_mrp`): `v / (1 + w)` for
 * a unit quaternion `(v, w)`, taken from the `w >= 0` representative so the rotation angle is at most π
 * and `|p| <= 1`; `q` and `-q` give the same `p`. At exactly π both `±axis` are correct; the one from the
 * given sign of the vector part is returned. Non-unit inputs are treated as the rotation they represent.
 * Source: Shuster, "A survey of attitude representations" (J. Astronaut. Sci. 1993), section 8.
 *
 * @example
 * const p = quat.toMrp(new Float64Array(3), quat.fromAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2));
 * // [0, 0, tan(π/8)] ≈ [0, 0, 0.4142]
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 3.
 */
export function toMrp<T extends QuatOut>(out: T, q: QuatLike): T {
  checkLength('toMrp', 'out', out, 3);
  checkLength('toMrp', 'q', q, 4);
  toMrpFlat(out, 0, q, 0);
  return out;
}

/**
 * Quaternion of modified Rodrigues parameters on flat arrays; see {@link fromMrp}.
 *
 * @throws {InvalidValueError} when `p` is not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 3 (`p`) numbers.
 */
export function fromMrpFlat(dst: QuatOut, dstOffset: number, p: QuatLike, pOffset: number): void {
  checkSpan('fromMrpFlat', 'dst', dst, dstOffset, 4);
  checkSpan('fromMrpFlat', 'p', p, pOffset, 3);
  let x = p[pOffset];
  let y = p[pOffset + 1];
  let z = p[pOffset + 2];
  let n2 = x * x + y * y + z * z;
  if (!(n2 <= 1)) {
    // |p| > 1 (or huge): the same formula divided through by |p|², which cannot overflow.
    const m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
    if (!(m < Number.POSITIVE_INFINITY)) {
      throw new InvalidValueError(`fromMrp: parameters (${x}, ${y}, ${z}) are not finite`, {
        index: Math.floor(pOffset / 3),
      });
    }
    x /= m;
    y /= m;
    z /= m;
    n2 = x * x + y * y + z * z; // in [1, 3]
    const im = 1 / m;
    const k = 1 / (im * im + n2);
    dst[dstOffset] = 2 * x * im * k;
    dst[dstOffset + 1] = 2 * y * im * k;
    dst[dstOffset + 2] = 2 * z * im * k;
    dst[dstOffset + 3] = (im * im - n2) * k;
    return;
  }
  const k = 1 / (1 + n2);
  dst[dstOffset] = 2 * x * k;
  dst[dstOffset + 1] = 2 * y * k;
  dst[dstOffset + 2] = 2 * z * k;
  dst[dstOffset + 3] = (1 - n2) * k;
}

/**
 * Unit quaternion of modified Rodrigues parameters `p` (SciPy's `from_mrp`):
 * `q = (2p, 1 − |p|²) / (1 + |p|²)`. Every finite `p` is a rotation: `|p| < 1` gives angles below π, and
 * `p` and its shadow `−p/|p|²` give the same rotation (with opposite quaternion signs).
 * Source: Shuster, "A survey of attitude representations" (J. Astronaut. Sci. 1993), section 8.
 *
 * @example
 * const q = quat.fromMrp(quat.create(), [0, 0, Math.tan(Math.PI / 8)]); // 90° about z
 * @throws {InvalidValueError} when `p` is not finite.
 * @throws {ShapeError} when `p` does not hold 3 numbers or `out` 4.
 */
export function fromMrp<T extends QuatOut>(out: T, p: QuatLike): T {
  checkLength('fromMrp', 'out', out, 4);
  checkLength('fromMrp', 'p', p, 3);
  fromMrpFlat(out, 0, p, 0);
  return out;
}
