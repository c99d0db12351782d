/**
 * Polynomial kernels for the small angles of relative rotations in a filter window, accurate to about an
 * ulp and several times faster than `Math.atan2`, `Math.sin` and `Math.cos` in V8. Each falls back to
 * the `Math` function outside its reduced range, so results are correct for every input.
 *
 * Coefficients: fdlibm (Sun Microsystems, 1993) `s_atan.c` (|x| < 7/16), `k_sin.c` and `k_cos.c`
 * (|x| ≤ π/4).
 *
 * @module
 */

const AT0 = 0.3333333333333293;
const AT1 = -0.19999999999876483;
const AT2 = 0.14285714272503466;
const AT3 = -0.11111110405462356;
const AT4 = 0.09090887133436507;
const AT5 = -0.0769187620504483;
const AT6 = 0.06661073137387531;
const AT7 = -0.058335701337905735;
const AT8 = 0.049768779946159324;
const AT9 = -0.036531572744216916;
const AT10 = 0.016285820115365782;

const S1 = -0.16666666666666632;
const S2 = 0.00833333333332249;
const S3 = -0.0001984126982985795;
const S4 = 0.0000027557313707070068;
const S5 = -2.5050760253406863e-8;
const S6 = 1.58969099521155e-10;

const C1 = 0.0416666666666666;
const C2 = -0.001388888888887411;
const C3 = 0.00002480158728947673;
const C4 = -2.7557314351390663e-7;
const C5 = 2.087572321298175e-9;
const C6 = -1.1359647557788195e-11;

/** Largest `s / c` handled by the atan polynomial (fdlibm's first reduction interval). */
const ATAN_LIMIT = 7 / 16;
/** Largest squared angle handled by the sin/cos polynomials, (π/4)². */
const TRIG_LIMIT2 = (Math.PI / 4) ** 2;

/**
 * `atan2(s, c) / s` for `s ≥ 0` and `c > 0`: the factor that turns the vector part of a unit quaternion
 * `(v, c)` with `|v| = s` into its logarithm (`log q = v · atan2(s, c) / s`, half-angle vector). Tends to
 * `1 / c` as `s → 0`. Uses the fdlibm atan polynomial when `s / c < 7/16` (half-angles below 23.6°),
 * `Math.atan2` otherwise.
 *
 * @example
 * atan2OverS(Math.sin(0.1), Math.cos(0.1)); // 0.1 / sin(0.1)
 */
export function atan2OverS(s: number, c: number): number {
  if (s < ATAN_LIMIT * c) {
    const x = s / c;
    const z = x * x;
    const w = z * z;
    const s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
    const s2 = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
    return (1 - (s1 + s2)) / c;
  }
  return Math.atan2(s, c) / s;
}

/**
 * `atan2(s, c) / s` from `s²` and `1 / c` (`c > 0`), without a square root when `s² < (7/16)²·c²`:
 * the hot-loop form of {@link atan2OverS}.
 *
 * @example
 * atan2OverSFromSquares(Math.sin(0.1) ** 2, 1 / Math.cos(0.1)); // 0.1 / sin(0.1)
 */
export function atan2OverSFromSquares(s2: number, invC: number): number {
  const z = s2 * invC * invC;
  if (z < ATAN_LIMIT * ATAN_LIMIT) {
    const w = z * z;
    const s1 = z * (AT0 + w * (AT2 + w * (AT4 + w * (AT6 + w * (AT8 + w * AT10)))));
    const s2w = w * (AT1 + w * (AT3 + w * (AT5 + w * (AT7 + w * AT9))));
    return (1 - (s1 + s2w)) * invC;
  }
  const s = Math.sqrt(s2);
  return Math.atan2(s, 1 / invC) / s;
}

/**
 * `sin(θ) / θ` given `θ²` (θ ≥ 0): the vector scale of `exp` of a half-angle vector. Polynomial for
 * θ ≤ π/4, `Math.sin` beyond.
 *
 * @example
 * sinOverTheta(0.25); // sin(0.5) / 0.5
 */
export function sinOverTheta(theta2: number): number {
  if (theta2 <= TRIG_LIMIT2) {
    const z = theta2;
    return 1 + z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
  }
  const t = Math.sqrt(theta2);
  return Math.sin(t) / t;
}

/**
 * `cos(θ)` given `θ²` (θ ≥ 0). Polynomial for θ ≤ π/4, `Math.cos` beyond.
 *
 * @example
 * cosOfTheta(0.25); // cos(0.5)
 */
export function cosOfTheta(theta2: number): number {
  if (theta2 <= TRIG_LIMIT2) {
    const z = theta2;
    const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    return 1 - (0.5 * z - z * r);
  }
  return Math.cos(Math.sqrt(theta2));
}

/**
 * `sin(r)` for `|r| ≤ π/4` given `r` and `z = r²` (fdlibm's `__kernel_sin`), within about an ulp. No range
 * check: the caller guarantees the range. Used with {@link cosKernel} and the double-angle formulas to get
 * the sine and cosine of a half Euler angle without two libm calls.
 *
 * @example
 * sinKernel(0.5, 0.25); // Math.sin(0.5)
 */
export function sinKernel(r: number, z: number): number {
  return r + z * r * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
}

/**
 * `cos(r)` for `|r| ≤ π/4` given `z = r²` (fdlibm's `__kernel_cos` without its last-bit correction),
 * within about two ulps. No range check.
 *
 * @example
 * cosKernel(0.25); // Math.cos(0.5)
 */
export function cosKernel(z: number): number {
  return 1 - (0.5 * z - z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6))))));
}
