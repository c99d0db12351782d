/**
 * Tangent-space steps on flat arrays shared by the streaming rotation filters: the rotation vector from one
 * rotation to another and a geodesic step along a rotation vector. Both work in the world (spatial) frame:
 * `v = 2·log(a ⊗ b⁻¹)` is the rotation that takes `b` to `a` (`a = exp(v/2) ⊗ b`), so velocities measured at
 * successive samples live in one frame and can be averaged without transporting them.
 *
 * The logarithm is taken of the `w ≥ 0` representative (`log(q) = log(−q)`), so every quantity here is the
 * same for `q` and `−q` bit for bit: the filters built on them are sign-safe by construction. Small angles use
 * the fdlibm polynomials of `numeric/fast-trig.ts` (about an ulp), larger ones `Math.atan2`, `Math.sin`,
 * `Math.cos`.
 *
 * Sources: Grassia, "Practical parameterization of rotations using the exponential map" (1998); D. Holden,
 * "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021) for steps in the log space of the goal.
 *
 * @module
 */
import { atan2OverSFromSquares, cosOfTheta, sinOverTheta } from '../../numeric/fast-trig.js';
import type { FloatArray } from '../../series/types.js';

/**
 * Writes at `dst[d..d+3)` the rotation vector (radians, world frame) of `a ⊗ b⁻¹` for unit `a` and `b`: the
 * shortest rotation that takes `b` to `a`, angle in `[0, π]`. Reads every input before writing.
 *
 * @internal
 */
export function rotationVectorBetween(
  dst: FloatArray,
  d: number,
  a: ArrayLike<number>,
  ao: number,
  b: ArrayLike<number>,
  bo: number,
): void {
  const ax = a[ao];
  const ay = a[ao + 1];
  const az = a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  // r = a ⊗ conj(b)
  let rx = -aw * bx + ax * bw - ay * bz + az * by;
  let ry = -aw * by + ax * bz + ay * bw - az * bx;
  let rz = -aw * bz - ax * by + ay * bx + az * bw;
  let rw = aw * bw + ax * bx + ay * by + az * bz;
  if (rw < 0) {
    rx = -rx;
    ry = -ry;
    rz = -rz;
    rw = -rw;
  }
  // 2·atan2(|v|, w)/|v|; at w = 0 exactly, 1/w is +∞ and the fallback gives (π/2)/|v|
  const k = 2 * atan2OverSFromSquares(rx * rx + ry * ry + rz * rz, 1 / rw);
  dst[d] = k * rx;
  dst[d + 1] = k * ry;
  dst[d + 2] = k * rz;
}

/**
 * Writes at `dst[d..d+4)` the unit quaternion `exp(s·v/2) ⊗ q`: `q` turned by `s` times the rotation vector
 * `v = (vx, vy, vz)` (world frame), renormalised so that long streams do not drift from unit length.
 * `dst` may be `q`.
 *
 * @internal
 */
export function turn(
  dst: FloatArray,
  d: number,
  q: ArrayLike<number>,
  qo: number,
  vx: number,
  vy: number,
  vz: number,
  s: number,
): void {
  const h = 0.5 * s;
  const hx = h * vx;
  const hy = h * vy;
  const hz = h * vz;
  const t2 = hx * hx + hy * hy + hz * hz;
  const sc = sinOverTheta(t2);
  const ew = cosOfTheta(t2);
  const ex = sc * hx;
  const ey = sc * hy;
  const ez = sc * hz;
  const qx = q[qo];
  const qy = q[qo + 1];
  const qz = q[qo + 2];
  const qw = q[qo + 3];
  // e ⊗ q
  const ox = ew * qx + ex * qw + ey * qz - ez * qy;
  const oy = ew * qy - ex * qz + ey * qw + ez * qx;
  const oz = ew * qz + ex * qy - ey * qx + ez * qw;
  const ow = ew * qw - ex * qx - ey * qy - ez * qz;
  const n = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
  dst[d] = ox * n;
  dst[d + 1] = oy * n;
  dst[d + 2] = oz * n;
  dst[d + 3] = ow * n;
}

/**
 * Copies the quaternion at `src[so..]` to `dst[d..]` scaled to unit length and, with `hemisphere`, moved to the
 * `w ≥ 0` representative. The caller has checked that it is finite and not zero.
 *
 * @internal
 */
export function unitInto(
  dst: FloatArray,
  d: number,
  src: ArrayLike<number>,
  so: number,
  hemisphere: boolean,
): void {
  const x = src[so];
  const y = src[so + 1];
  const z = src[so + 2];
  const w = src[so + 3];
  let n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  if (hemisphere && w < 0) n = -n;
  dst[d] = x * n;
  dst[d + 1] = y * n;
  dst[d + 2] = z * n;
  dst[d + 3] = w * n;
}
