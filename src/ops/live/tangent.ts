/**
 * Tangent-space factors shared by the streaming rotation filters: the logarithm and exponential of unit
 * quaternions as scalar factors of a vector part. The filters write the quaternion algebra out in their own
 * loops and call these for the transcendental part; they are small scalar functions, so the engine inlines them
 * and no double crosses a call boundary. The coefficients are written as literals (an imported constant is a
 * load and a check per use in optimised code).
 *
 * Conventions: a rotation vector `v` (radians, world frame) and a unit quaternion `q = exp(v/2)`; the logarithm
 * is taken of the `w ≥ 0` representative (`log(q) = log(−q)`), so every quantity here is the same for `q` and
 * `−q` bit for bit and the filters built on them are sign-safe by construction. Small angles use fdlibm's
 * polynomials (Sun Microsystems, 1993: `s_atan.c`, `k_sin.c`, `k_cos.c`, as in `numeric/fast-trig.ts`),
 * evaluated in Estrin's scheme (about an ulp), larger ones `Math.atan2`, `Math.sin`, `Math.cos`.
 *
 * Sources: Grassia, "Practical parameterization of rotations using the exponential map" (1998); D. Holden,
 * "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021) for steps in the log space of the goal.
 *
 * @module
 */
import type { FloatArray } from '../../series/types.js';

/**
 * The factor `k` that turns the vector part `v` of a quaternion `(v, w)` of any non-zero length into the
 * rotation vector `k·v = 2·log` of its `w ≥ 0` representative, given `s2 = |v|²`: `k = 2·atan2(|v|, |w|)/|v|`
 * with the sign of `w`. It does not depend on the quaternion's length, so the caller need not normalise it, and
 * it carries the sign of `w` through `1/w`, so `(v, w)` and `(−v, −w)` give the same `k·v` bit for bit without
 * a branch on the sign (inputs with random signs would make such a branch unpredictable).
 *
 * fdlibm's `atan(x)/x` polynomial for `x = |v|/|w| < 7/16` (no division by a vanishing `|v|`), `Math.atan2`
 * beyond; at `w = 0` it gives `(π/2)/|v|`.
 *
 * @internal
 */
export function logScale(s2: number, w: number): number {
  if (s2 < 0.19140625 * w * w) {
    const inv = 1 / w;
    const z = s2 * inv * inv;
    const z2 = z * z;
    const z4 = z2 * z2;
    const f0 =
      0.3333333333333293 - 0.19999999999876483 * z + (0.14285714272503466 - 0.11111110405462356 * z) * z2;
    const f1 =
      0.09090887133436507 - 0.0769187620504483 * z + (0.06661073137387531 - 0.058335701337905735 * z) * z2;
    const f2 = 0.049768779946159324 - 0.036531572744216916 * z + 0.016285820115365782 * z2;
    return 2 * (1 - z * (f0 + f1 * z4 + f2 * (z4 * z4))) * inv;
  }
  const sn = Math.sqrt(s2);
  const k = (2 * Math.atan2(sn, Math.abs(w))) / sn;
  return w < 0 ? -k : k;
}

/** `sin(θ)/θ` given `t2 = θ²`: fdlibm's polynomial for `θ ≤ π/4`, `Math.sin` beyond. @internal */
export function sinc(t2: number): number {
  if (t2 <= 0.6168502750680849) {
    const u2 = t2 * t2;
    const u4 = u2 * u2;
    return (
      1 +
      t2 *
        (-0.16666666666666632 +
          0.00833333333332249 * t2 +
          (-0.0001984126982985795 + 0.0000027557313707070068 * t2) * u2 +
          (-2.5050760253406863e-8 + 1.58969099521155e-10 * t2) * u4)
    );
  }
  const t = Math.sqrt(t2);
  return Math.sin(t) / t;
}

/** `cos(θ)` given `t2 = θ²`: fdlibm's polynomial for `θ ≤ π/4`, `Math.cos` beyond. @internal */
export function cosOfSquare(t2: number): number {
  if (t2 <= 0.6168502750680849) {
    const u2 = t2 * t2;
    const u4 = u2 * u2;
    const c =
      t2 *
      (0.0416666666666666 -
        0.001388888888887411 * t2 +
        (0.00002480158728947673 - 2.7557314351390663e-7 * t2) * u2 +
        (2.087572321298175e-9 - 1.1359647557788195e-11 * t2) * u4);
    return 1 - (0.5 * t2 - t2 * c);
  }
  return Math.cos(Math.sqrt(t2));
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
