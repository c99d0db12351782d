/**
 * Tangent-space steps on flat arrays shared by the streaming rotation filters: the rotation vector from one
 * rotation to another and a geodesic step along a rotation vector. Both work in the world (spatial) frame:
 * `v = 2·log(a ⊗ b⁻¹)` is the rotation that takes `b` to `a` (`a = exp(v/2) ⊗ b`), so velocities measured at
 * successive samples live in one frame and can be averaged without transporting them.
 *
 * The logarithm is taken of the `w ≥ 0` representative (`log(q) = log(−q)`), so every quantity here is the
 * same for `q` and `−q` bit for bit: the filters built on them are sign-safe by construction. Small angles use
 * the fdlibm polynomials of `numeric/fast-trig.ts`, written out in place (about an ulp), larger ones `Math.atan2`, `Math.sin`,
 * `Math.cos`.
 *
 * Sources: Grassia, "Practical parameterization of rotations using the exponential map" (1998); D. Holden,
 * "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021) for steps in the log space of the goal.
 *
 * @module
 */
import type { FloatArray } from '../../series/types.js';

// fdlibm (Sun Microsystems, 1993) coefficients, as in numeric/fast-trig.ts: s_atan.c, k_sin.c, k_cos.c
/** @internal */
export const AT0 = 0.3333333333333293;
/** @internal */
export const AT1 = -0.19999999999876483;
/** @internal */
export const AT2 = 0.14285714272503466;
/** @internal */
export const AT3 = -0.11111110405462356;
/** @internal */
export const AT4 = 0.09090887133436507;
/** @internal */
export const AT5 = -0.0769187620504483;
/** @internal */
export const AT6 = 0.06661073137387531;
/** @internal */
export const AT7 = -0.058335701337905735;
/** @internal */
export const AT8 = 0.049768779946159324;
/** @internal */
export const AT9 = -0.036531572744216916;
/** @internal */
export const AT10 = 0.016285820115365782;
/** @internal */
export const S1 = -0.16666666666666632;
/** @internal */
export const S2 = 0.00833333333332249;
/** @internal */
export const S3 = -0.0001984126982985795;
/** @internal */
export const S4 = 0.0000027557313707070068;
/** @internal */
export const S5 = -2.5050760253406863e-8;
/** @internal */
export const S6 = 1.58969099521155e-10;
/** @internal */
export const C1 = 0.0416666666666666;
/** @internal */
export const C2 = -0.001388888888887411;
/** @internal */
export const C3 = 0.00002480158728947673;
/** @internal */
export const C4 = -2.7557314351390663e-7;
/** @internal */
export const C5 = 2.087572321298175e-9;
/** @internal */
export const C6 = -1.1359647557788195e-11;
/** @internal */
export const ATAN_LIMIT2 = (7 / 16) ** 2;
/** @internal */
export const TRIG_LIMIT2 = (Math.PI / 4) ** 2;

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
  // 2·atan2(|v|, w)/|v|: fdlibm's atan polynomial for |v|/w < 7/16 (written out here, so that no double crosses
  // a call boundary in the hot loops), Math.atan2 beyond (at w = 0 exactly it gives (π/2)/|v|)
  const k = logScale(rx * rx + ry * ry + rz * rz, rw);
  dst[d] = k * rx;
  dst[d + 1] = k * ry;
  dst[d + 2] = k * rz;
}

/**
 * Writes at `dst[d..d+4)` the unit quaternion `exp(s·v/2) ⊗ q`: `q` turned by `s = v[vo + 3]` times the
 * rotation vector `v[vo..vo+3)` (world frame), renormalised so that long streams do not drift from unit length.
 * `dst` may be `q`. The scale travels in the array so that no double crosses the call.
 *
 * @internal
 */
export function turn(
  dst: FloatArray,
  d: number,
  q: ArrayLike<number>,
  qo: number,
  v: Float64Array,
  vo: number,
): void {
  const h = 0.5 * v[vo + 3];
  const hx = h * v[vo];
  const hy = h * v[vo + 1];
  const hz = h * v[vo + 2];
  const t2 = hx * hx + hy * hy + hz * hz;
  let sc: number;
  let ew: number;
  if (t2 <= TRIG_LIMIT2) {
    // fdlibm's sin(θ)/θ and cos(θ) polynomials for θ ≤ π/4
    const z = t2;
    sc = 1 + z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    ew = 1 - (0.5 * z - z * r);
  } else {
    const t = Math.sqrt(t2);
    sc = Math.sin(t) / t;
    ew = Math.cos(t);
  }
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

/**
 * `2·atan2(|v|, w)/|v|` for a relative rotation `(v, w)` with `w ≥ 0` given `s2 = |v|²`: the factor that turns
 * its vector part into the rotation vector `2·log`. fdlibm's atan polynomial for `|v|/w < 7/16` (exact to
 * rounding, no division by a vanishing `|v|`), `Math.atan2` beyond (at `w = 0` it gives `(π/2)/|v|`).
 * A scalar function: the engine inlines it, so no double crosses a call boundary in the hot loops.
 */
export function logScale(s2: number, rw: number): number {
  if (s2 < ATAN_LIMIT2 * rw * rw) {
    const inv = 1 / rw;
    const z = s2 * inv * inv;
    const w = z * z;
    const p1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
    const p2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
    return 2 * (1 - (p1 + p2)) * inv;
  }
  const sn = Math.sqrt(s2);
  return (2 * Math.atan2(sn, rw)) / sn;
}
