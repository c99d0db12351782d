/**
 * Weighted chordal means of quaternions by the dominant eigenvector of `M = Σ wᵢ qᵢ qᵢᵀ / Σ wᵢ`: the
 * averaging kernels {@link eigenAverageFlat} and {@link eigenAverageStrided}, which accumulate `M` and solve
 * it in locals (the fast path), falling back to the checked general path of `eigen4.ts` (see its module
 * doc for the method and its certificate).
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../errors.js';
import {
  defaultScratch,
  EIGEN4_DEFAULTS,
  type Eigen4Diagnostics,
  type Eigen4Options,
  P00,
  P01,
  P02,
  P03,
  P11,
  P12,
  P13,
  P22,
  P23,
  P33,
  samuelsonGap,
  solvePacked,
} from './eigen4.js';

/**
 * What {@link fastAverage} accumulated last, for the general path: the packed, unnormalised M (`P00..P33`),
 * then Σ wᵢ and Σ |wᵢ| at these indices.
 */
const WSUM = 10;
const WABS = 11;
const ACCUMULATED = new Float64Array(12);

/**
 * Quaternions gathered from a set given by offsets, for {@link fastAverage}'s one loop: reused up to
 * {@link GATHER_KEEP} quaternions (a longer set gets an array of its own, not kept).
 */
let gathered = new Float64Array(4 * 16);
const GATHER_KEEP = 1024;

/** The quaternions at `offsets[i]` for `i < count`, packed (stride 4). */
function gather(src: ArrayLike<number>, offsets: ArrayLike<number>, count: number): Float64Array {
  let g = gathered;
  if (g.length < 4 * count) {
    g = new Float64Array(4 * count);
    if (count <= GATHER_KEEP) gathered = g;
  }
  for (let i = 0; i < count; i++) {
    const p = offsets[i];
    g[4 * i] = src[p];
    g[4 * i + 1] = src[p + 1];
    g[4 * i + 2] = src[p + 2];
    g[4 * i + 3] = src[p + 3];
  }
  return g;
}

/**
 * The fast path of the averaging kernels: accumulates `M = Σ wᵢ qᵢ qᵢᵀ / |qᵢ|²`, Σ wᵢ and Σ |wᵢ| from the
 * quaternions at `offsets[i]` (gathered first, {@link gather}) or, when `offsets` is null, at
 * `srcOffset + i * stride`, in one loop in locals,
 * and either leaves them in {@link ACCUMULATED} for the general path (not `solve`) or solves `M` in locals by
 * repeated squaring, then one certified power step (the same certificate and tolerance as
 * {@link dominantEigenvector4}). Returns λ₁ and writes the canonical answer when certified; `NaN` when not
 * `solve` or when the input needs the checks of the general path (non-finite values, weights summing to
 * zero, `M = 0`); `Infinity` when the certificate fails (near ties, strongly indefinite `M`), so the caller
 * goes straight to the Jacobi solve.
 */
function fastAverage(
  dst: Float64Array | Float32Array | number[],
  o: number,
  src: ArrayLike<number>,
  offsets: ArrayLike<number> | null,
  srcOffset: number,
  stride: number,
  weights: ArrayLike<number>,
  count: number,
  options: Eigen4Options | undefined,
  diag: Eigen4Diagnostics | undefined,
  solve: boolean,
): number {
  let m00 = 0;
  let m01 = 0;
  let m02 = 0;
  let m03 = 0;
  let m11 = 0;
  let m12 = 0;
  let m13 = 0;
  let m22 = 0;
  let m23 = 0;
  let m33 = 0;
  let wsum = 0;
  let wabs = 0;
  // one loop, strided: a set given by offsets is gathered first (a per-element choice between the two
  // addressing modes measured 5-12% slower on sets of 8; offsets for a strided set 7-13%)
  const set = offsets === null ? src : gather(src, offsets, count);
  const first = offsets === null ? srcOffset : 0;
  const step = offsets === null ? stride : 4;
  for (let i = 0, p = first; i < count; i++, p += step) {
    const x = set[p];
    const y = set[p + 1];
    const z = set[p + 2];
    const w = set[p + 3];
    const wi = weights[i];
    const k = wi / (x * x + y * y + z * z + w * w);
    wsum += wi;
    wabs += Math.abs(wi);
    const kx = k * x;
    const ky = k * y;
    const kz = k * z;
    const kw = k * w;
    m00 += kx * x;
    m01 += kx * y;
    m02 += kx * z;
    m03 += kx * w;
    m11 += ky * y;
    m12 += ky * z;
    m13 += ky * w;
    m22 += kz * z;
    m23 += kz * w;
    m33 += kw * w;
  }
  if (!solve) {
    const acc = ACCUMULATED;
    acc[P00] = m00;
    acc[P01] = m01;
    acc[P02] = m02;
    acc[P03] = m03;
    acc[P11] = m11;
    acc[P12] = m12;
    acc[P13] = m13;
    acc[P22] = m22;
    acc[P23] = m23;
    acc[P33] = m33;
    acc[WSUM] = wsum;
    acc[WABS] = wabs;
    return Number.NaN;
  }
  // NaN and overflow propagate into the sum; the general path then names the culprit
  const check = m00 + m01 + m02 + m03 + m11 + m12 + m13 + m22 + m23 + m33 + wsum + wabs;
  if (!Number.isFinite(check) || wabs === 0 || Math.abs(wsum) <= 1e-12 * wabs) return Number.NaN;
  let tol = EIGEN4_DEFAULTS.tolerance;
  let maxIter = EIGEN4_DEFAULTS.maxIterations;
  let tieTol = EIGEN4_DEFAULTS.tieTolerance;
  if (options !== undefined) {
    if (options.tolerance !== undefined) tol = options.tolerance;
    if (options.maxIterations !== undefined) maxIter = options.maxIterations;
    if (options.tieTolerance !== undefined) tieTol = options.tieTolerance;
  }
  const inv0 = 1 / wsum;
  const a00 = m00 * inv0;
  const a01 = m01 * inv0;
  const a02 = m02 * inv0;
  const a03 = m03 * inv0;
  const a11 = m11 * inv0;
  const a12 = m12 * inv0;
  const a13 = m13 * inv0;
  const a22 = m22 * inv0;
  const a23 = m23 * inv0;
  const a33 = m33 * inv0;
  const trace = a00 + a11 + a22 + a33;
  const frob2 =
    a00 * a00 +
    a11 * a11 +
    a22 * a22 +
    a33 * a33 +
    2 * (a01 * a01 + a02 * a02 + a03 * a03 + a12 * a12 + a13 * a13 + a23 * a23);
  if (!(frob2 > 0) || !Number.isFinite(frob2)) return Number.NaN;
  // B ∝ M^(2^k). ‖B‖²_F / tr(B)² = Σμᵢ² / (Σμᵢ)² reaches 1 as B becomes rank one. Each square is divided by
  // tr(B)², which is known before the square is formed, so the division stays off the critical path and the
  // trace of the next B stays in [1/4, 1]. Squares are PSD even for an indefinite M (negative weights).
  let b00 = a00;
  let b01 = a01;
  let b02 = a02;
  let b03 = a03;
  let b11 = a11;
  let b12 = a12;
  let b13 = a13;
  let b22 = a22;
  let b23 = a23;
  let b33 = a33;
  let tb = trace;
  let iterations = 0;
  let have = false;
  while (iterations < maxIter) {
    iterations++;
    const t = 1 / (tb * tb);
    const c00 = b00 * b00 + b01 * b01 + b02 * b02 + b03 * b03;
    const c01 = b00 * b01 + b01 * b11 + b02 * b12 + b03 * b13;
    const c02 = b00 * b02 + b01 * b12 + b02 * b22 + b03 * b23;
    const c03 = b00 * b03 + b01 * b13 + b02 * b23 + b03 * b33;
    const c11 = b01 * b01 + b11 * b11 + b12 * b12 + b13 * b13;
    const c12 = b01 * b02 + b11 * b12 + b12 * b22 + b13 * b23;
    const c13 = b01 * b03 + b11 * b13 + b12 * b23 + b13 * b33;
    const c22 = b02 * b02 + b12 * b12 + b22 * b22 + b23 * b23;
    const c23 = b02 * b03 + b12 * b13 + b22 * b23 + b23 * b33;
    const c33 = b03 * b03 + b13 * b13 + b23 * b23 + b33 * b33;
    // tr(C)/tr(B)² = ‖B‖²_F/tr(B)²: within 1e-8 of 1 means B is rank one to ~5e-9, so C is rank one to ~1e-17
    tb = (c00 + c11 + c22 + c33) * t;
    b00 = c00 * t;
    b01 = c01 * t;
    b02 = c02 * t;
    b03 = c03 * t;
    b11 = c11 * t;
    b12 = c12 * t;
    b13 = c13 * t;
    b22 = c22 * t;
    b23 = c23 * t;
    b33 = c33 * t;
    if (tb >= 1 - 1e-8) {
      have = true;
      break;
    }
  }
  if (!have) return Number.POSITIVE_INFINITY;
  // The rank-one B maps any vector onto its column space: v = B q₀ (q₀ the first input) avoids a
  // data-dependent choice of column; only when q₀ is nearly orthogonal to the answer does the
  // largest-diagonal column serve instead.
  const qx = set[first];
  const qy = set[first + 1];
  const qz = set[first + 2];
  const qw = set[first + 3];
  let vx = b00 * qx + b01 * qy + b02 * qz + b03 * qw;
  let vy = b01 * qx + b11 * qy + b12 * qz + b13 * qw;
  let vz = b02 * qx + b12 * qy + b22 * qz + b23 * qw;
  let vw = b03 * qx + b13 * qy + b23 * qz + b33 * qw;
  let n2 = vx * vx + vy * vy + vz * vz + vw * vw;
  if (!(n2 >= 0.01 * (qx * qx + qy * qy + qz * qz + qw * qw) * tb * tb)) {
    if (b00 >= b11 && b00 >= b22 && b00 >= b33) {
      vx = b00;
      vy = b01;
      vz = b02;
      vw = b03;
    } else if (b11 >= b22 && b11 >= b33) {
      vx = b01;
      vy = b11;
      vz = b12;
      vw = b13;
    } else if (b22 >= b33) {
      vx = b02;
      vy = b12;
      vz = b22;
      vw = b23;
    } else {
      vx = b03;
      vy = b13;
      vz = b23;
      vw = b33;
    }
    n2 = vx * vx + vy * vy + vz * vz + vw * vw;
    if (!(n2 > 0)) return Number.POSITIVE_INFINITY;
  }
  // certificate (see the module doc) on the unnormalised v, then one power step with the original M
  const yx = a00 * vx + a01 * vy + a02 * vz + a03 * vw;
  const yy = a01 * vx + a11 * vy + a12 * vz + a13 * vw;
  const yz = a02 * vx + a12 * vy + a22 * vz + a23 * vw;
  const yw = a03 * vx + a13 * vy + a23 * vz + a33 * vw;
  const rho = (vx * yx + vy * yy + vz * yz + vw * yw) / n2;
  const rx = yx - rho * vx;
  const ry = yy - rho * vy;
  const rz = yz - rho * vz;
  const rw = yw - rho * vw;
  const r2 = (rx * rx + ry * ry + rz * rz + rw * rw) / n2; // ‖r‖² for the unit vector v/‖v‖
  // Cheapest bound first, free of square roots: every other eigenvalue has |λᵢ| ≤ √Q, Q = ‖M‖²_F − λ₁²
  // ≤ ‖M‖²_F − ρ², so the gap is at least ρ − √Q ≥ (ρ² − Q)/(2ρ) = h/(2ρ) when h > 0.
  const h = 2 * rho * rho - frob2;
  let delta: number;
  if (rho > 0 && h > 0 && 4 * rho * rho * r2 <= tol * tol * h * h) {
    delta = h / (2 * rho);
  } else {
    const rn = Math.sqrt(r2);
    delta = samuelsonGap(rho, trace, frob2);
    if (!(rho > 0 && delta > 0 && rn <= tol * delta)) {
      // The squaring bounds the rest of the spectrum too: the B before the last square was M^(2^j)
      // (PSD for j ≥ 1) with ‖B‖²_F ≥ (1 − 1e-8) tr(B)², so its top normalised eigenvalue is ≥ 1 − 1e-8
      // and |λᵢ/λ₁|^(2^j) ≤ 1e-8/(1 − 1e-8) for i ≥ 2; with λ₁ ≤ ρ + ‖r‖ this bounds the gap. It rescues
      // spread sets whose eigenvalues below λ₁ are uneven, where Samuelson's bound is loose.
      const j = iterations - 1;
      if (j < 1 || !(rho > 0)) return Number.POSITIVE_INFINITY;
      const ratio = Math.exp(Math.log(1.0000001e-8) / 2 ** j);
      delta = (rho + rn) * (1 - ratio) - rn;
      if (!(delta > 0 && rn <= tol * delta)) return Number.POSITIVE_INFINITY;
    }
  }
  const yn2 = yx * yx + yy * yy + yz * yz + yw * yw;
  if (!(yn2 > 0)) return Number.POSITIVE_INFINITY;
  let f = 1 / Math.sqrt(yn2);
  if (yw < 0 || (yw === 0 && (yx < 0 || (yx === 0 && (yy < 0 || (yy === 0 && yz < 0)))))) f = -f;
  dst[o] = yx * f;
  dst[o + 1] = yy * f;
  dst[o + 2] = yz * f;
  dst[o + 3] = yw * f;
  if (diag !== undefined) {
    // report the tightest of the bounds (the cheap one that certified may be loose by up to a factor 2)
    delta = Math.max(delta, samuelsonGap(rho, trace, frob2));
    diag.method = 'power';
    diag.iterations = iterations + 1;
    diag.lambda1 = rho;
    diag.gap = delta;
    diag.ambiguous = delta <= tieTol * Math.abs(rho);
  }
  return rho;
}

function throwBadInput(
  where: string,
  src: ArrayLike<number>,
  offsetOf: (i: number) => number,
  weights: ArrayLike<number>,
  count: number,
): never {
  for (let i = 0; i < count; i++) {
    const w = weights[i];
    if (!Number.isFinite(w)) throw new InvalidValueError(`${where}: weight ${i} is ${w}`, { index: i });
    const o = offsetOf(i);
    for (let c = 0; c < 4; c++) {
      const v = src[o + c];
      if (!Number.isFinite(v)) {
        throw new InvalidValueError(`${where}: quaternion ${i} has a non-finite component (${v})`, {
          index: i,
        });
      }
    }
    const n2 = src[o] * src[o] + src[o + 1] * src[o + 1] + src[o + 2] * src[o + 2] + src[o + 3] * src[o + 3];
    if (!(n2 > 0) || !Number.isFinite(n2)) {
      throw new InvalidValueError(`${where}: quaternion ${i} has zero or overflowing length`, { index: i });
    }
  }
  throw new InvalidValueError(`${where}: non-finite accumulation`);
}

/**
 * Finishes an accumulated M: checks the weight sum and finiteness, divides by the weight sum.
 * Returns false when something is wrong (the caller then locates the culprit).
 */
function normaliseAccumulated(s: Float64Array, wsum: number, wabs: number, where: string): boolean {
  for (let i = 0; i < 10; i++) if (!Number.isFinite(s[i])) return false;
  if (!Number.isFinite(wsum) || !Number.isFinite(wabs)) return false;
  if (wabs === 0 || Math.abs(wsum) <= 1e-12 * wabs) {
    throw new InvalidValueError(
      wabs === 0
        ? `${where}: all weights are zero`
        : `${where}: the weights sum to zero (${wsum}); their sum normalises the average`,
    );
  }
  const inv = 1 / wsum;
  for (let i = 0; i < 10; i++) s[i] *= inv;
  return true;
}

/**
 * The weighted chordal mean of `count` quaternions read from `src` at element offsets `offsets[i]`,
 * written to `dst[dstOffset .. dstOffset+3]`: the dominant eigenvector of `M = Σ wᵢ qᵢ qᵢᵀ / (|qᵢ|² Σ wᵢ)`,
 * canonical sign (w ≥ 0). This is the kernel behind `averageQuaternions(..., { method: 'eigen' })`, exposed
 * for windowed averages (sliding-window filters pass the window's offsets and kernel weights).
 *
 * Semantics: inputs need not be unit (each counts by its direction only, weight unchanged); the sign of an
 * input never matters (q and −q give the same M); weights are divided by their sum, so scaling all weights
 * by any non-zero constant leaves the result unchanged; negative weights extrapolate through M.
 * Allocation-free with `scratch`. Returns λ₁ of the normalised M (1 − λ₁ is the mean cost Σ wᵢ sin²(θᵢ/2) / Σ wᵢ).
 *
 * @param dst - output array.
 * @param dstOffset - where the 4 components go.
 * @param src - flat quaternion data (x, y, z, w each), Float64Array, Float32Array or number[].
 * @param offsets - element offset of each quaternion in `src` (at least `count` entries).
 * @param weights - one weight per quaternion (at least `count` entries).
 * @param count - number of quaternions, ≥ 1.
 * @param scratch - optional `Float64Array(EIGEN4_SCRATCH_LENGTH)`.
 * @param diagnostics - optional object receiving method, iterations, λ₁, gap and the tie flag.
 * @param start - optional start vector read at `startOffset`; pays only when within ~1e-7 of the answer
 *   (e.g. the previous answer of a nearly constant window), otherwise it costs one wasted power step.
 * @param startOffset - offset of the start vector in `start`. Default 0.
 * @param options - {@link Eigen4Options}.
 * @throws {InvalidValueError} on count < 1, a non-finite weight or component, a zero quaternion (each naming
 *   its `index`), all weights zero, or weights summing to zero.
 * @example
 * const src = new Float64Array([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]);
 * const out = new Float64Array(4);
 * eigenAverageFlat(out, 0, src, new Int32Array([0, 4]), new Float64Array([1, 1]), 2);
 * // out ≈ [0, 0, sin(π/8), cos(π/8)]: 45° about z
 */
export function eigenAverageFlat(
  dst: Float64Array | Float32Array | number[],
  dstOffset: number,
  src: ArrayLike<number>,
  offsets: ArrayLike<number>,
  weights: ArrayLike<number>,
  count: number,
  scratch?: Float64Array,
  diagnostics?: Eigen4Diagnostics,
  start?: ArrayLike<number> | null,
  startOffset = 0,
  options?: Eigen4Options,
): number {
  return averageAt(
    'eigenAverageFlat',
    dst,
    dstOffset,
    src,
    offsets,
    0,
    0,
    weights,
    count,
    scratch,
    diagnostics,
    start,
    startOffset,
    options,
  );
}

/**
 * Like {@link eigenAverageFlat} for quaternions at a constant stride: quaternion `i` starts at
 * `src[srcOffset + i * stride]` (stride 4 for a plain n x 4 list; `joints * 4` for one joint of a
 * frame-major series). Same semantics, errors and return value.
 *
 * @example
 * // mean rotation of joint 2 over frames 10..19 of a series with 5 joints
 * const series = createQuatSeries(30, 5);
 * const out = new Float64Array(4);
 * eigenAverageStrided(out, 0, series.data, (10 * 5 + 2) * 4, 5 * 4, new Float64Array(10).fill(1), 10);
 * // out = [0, 0, 0, 1]
 */
export function eigenAverageStrided(
  dst: Float64Array | Float32Array | number[],
  dstOffset: number,
  src: ArrayLike<number>,
  srcOffset: number,
  stride: number,
  weights: ArrayLike<number>,
  count: number,
  scratch?: Float64Array,
  diagnostics?: Eigen4Diagnostics,
  start?: ArrayLike<number> | null,
  startOffset = 0,
  options?: Eigen4Options,
): number {
  return averageAt(
    'eigenAverageStrided',
    dst,
    dstOffset,
    src,
    null,
    srcOffset,
    stride,
    weights,
    count,
    scratch,
    diagnostics,
    start,
    startOffset,
    options,
  );
}

/** Why `count` cannot be averaged: none, not an integer, or more than the weights or the offsets hold. */
function throwBadCount(
  where: string,
  count: number,
  weights: ArrayLike<number>,
  offsets: ArrayLike<number> | null,
): never {
  if (!(count >= 1)) throw new InvalidValueError(`${where}: need at least one quaternion, got ${count}`);
  if (count !== Math.floor(count)) throw new ShapeError(`${where}: count must be an integer, got ${count}`);
  if (!(count <= weights?.length))
    throw new ShapeError(`${where}: count ${count} needs as many weights, got ${weights?.length}`);
  throw new ShapeError(`${where}: count ${count} needs as many offsets, got ${offsets?.length}`);
}

/**
 * The body of {@link eigenAverageFlat} and {@link eigenAverageStrided}, with the caller's name in error
 * messages (for public operations built on it): quaternion `i` is at `offsets[i]`, or at
 * `srcOffset + i * stride` when `offsets` is null. Solves in {@link fastAverage} when it can, else has it
 * accumulate `M` into {@link ACCUMULATED} and takes the general path: checks, scratch, warm start,
 * certified squaring or Jacobi. The fast path keeps its own copy of `squareToRankOne` in locals
 * (sharing it measured 19-27% slower on sets of 8).
 *
 * @internal
 */
export function averageAt(
  where: string,
  dst: Float64Array | Float32Array | number[],
  dstOffset: number,
  src: ArrayLike<number>,
  offsets: ArrayLike<number> | null,
  srcOffset: number,
  stride: number,
  weights: ArrayLike<number>,
  count: number,
  scratch: Float64Array | undefined,
  diagnostics: Eigen4Diagnostics | undefined,
  start: ArrayLike<number> | null | undefined,
  startOffset: number,
  options: Eigen4Options | undefined,
): number {
  // one test on the way in; a count beyond the weights or the offsets would read past them (and size the
  // kernel's gather)
  if (
    !(
      count >= 1 &&
      count <= weights?.length &&
      (offsets === null || count <= offsets?.length) &&
      count === Math.floor(count)
    )
  )
    throwBadCount(where, count, weights, offsets);
  let jacobiAfter = -1;
  if (start == null && (options === undefined || options.solver !== 'jacobi')) {
    const r = fastAverage(
      dst,
      dstOffset,
      src,
      offsets,
      srcOffset,
      stride,
      weights,
      count,
      options,
      diagnostics,
      true,
    );
    if (r < Number.POSITIVE_INFINITY) return r;
    // not certified (near tie, indefinite M): straight to the Jacobi solve; NaN: let the checks below report
    if (r === Number.POSITIVE_INFINITY) jacobiAfter = options?.maxIterations ?? EIGEN4_DEFAULTS.maxIterations;
  }
  // the general path: accumulate again (rare), check, solve
  fastAverage(dst, dstOffset, src, offsets, srcOffset, stride, weights, count, options, diagnostics, false);
  const s = scratch ?? defaultScratch();
  const acc = ACCUMULATED;
  for (let i = 0; i < 10; i++) s[i] = acc[i];
  if (!normaliseAccumulated(s, acc[WSUM], acc[WABS], where)) {
    throwBadInput(
      where,
      src,
      (i) => (offsets === null ? srcOffset + i * stride : offsets[i]),
      weights,
      count,
    );
  }
  return solvePacked(dst, dstOffset, s, start ?? null, startOffset, options, diagnostics, jacobiAfter);
}
