/**
 * Symmetric 4x4 eigen problems, as they arise when averaging quaternions.
 *
 * The weighted chordal mean of unit quaternions qᵢ (stored x, y, z, w) is the dominant eigenvector of
 * `M = Σ wᵢ qᵢ qᵢᵀ / Σ wᵢ` (Markley, Cheng, Crassidis and Oshman, "Averaging Quaternions", JGCD 2007;
 * Daniel Holden, "Quaternion Weighted Average", 2023). This module offers
 *
 * - {@link symmetricEigen4}: the full, robust solve (cyclic Jacobi, sorted eigenvalues);
 * - {@link dominantEigenvector4}: the eigenvector of the largest eigenvalue by a power iteration whose answer
 *   is certified by an a-posteriori bound, falling back to the Jacobi solve when the two largest eigenvalues
 *   are too close for the bound to be met quickly;
 * - {@link eigenAverageFlat} and {@link eigenAverageStrided}: build `M` from quaternions inside a flat array
 *   (any float array, given element offsets or a stride) and solve it, allocation-free with caller scratch.
 *
 * Matrices are row-major `Float64Array(16)` (or any array-like of 16 numbers) indexed in the quaternion's
 * component order x, y, z, w; only the upper triangle is read.
 *
 * How the fast path works and why it can be trusted: the power method accelerated by repeated squaring
 * (`M², M⁴, M⁸, …`, each normalised to trace 1, so every step squares the ratio λ₂/λ₁) reaches a rank-one
 * matrix in 2-4 steps for clustered sets and about 8 for uniformly random ones; its largest-diagonal column
 * (a hemisphere-aligned weighted sum of the inputs, in effect) is the candidate `v`. For a unit `v`
 * with Rayleigh quotient `ρ = vᵀMv` and residual `r = Mv − ρv`, the other three eigenvalues have sum
 * `S = tr M − λ₁` and sum of squares `Q = ‖M‖²_F − λ₁²`, hence `λ₂ ≤ (S + √(6Q − 2S²)) / 3`; evaluated at
 * `λ₁ ≈ ρ` (exact to second order in ‖r‖) this gives a gap `δ` from ρ to the rest of the spectrum, and the
 * Davis–Kahan sin θ theorem bounds the angle to the dominant eigenvector by `‖r‖ / δ`. The answer is
 * accepted when that bound is below `tolerance` (and returned after one more power step `Mv / ‖Mv‖`);
 * otherwise (near ties, strongly indefinite M) the Jacobi solve answers.
 *
 * The averaging kernels ({@link eigenAverageFlat}, {@link eigenAverageStrided}) run this squaring path fused
 * with the accumulation of `M`, all in locals (no scratch round trip). They test the residual against a
 * square-root-free gap bound first (`λᵢ ≤ √Q`), then Samuelson's, then a bound the squaring itself proves
 * (B = M^(2^j) passed the rank-one test, so |λᵢ/λ₁| ≤ (1e-8)^(2^-j)); only when all three fail do they go
 * to the Jacobi solve (about 0.03 % of uniformly random sets of 8, none of clustered ones).
 *
 * @module
 */
import { InvalidValueError } from '../errors.js';

/** Length of the scratch array that {@link eigenAverageFlat}, {@link dominantEigenvector4} and friends use. */
export const EIGEN4_SCRATCH_LENGTH = 48;

/** Tuning of the dominant-eigenvector solve; the defaults suit Float64 quaternion averaging. */
export interface Eigen4Options {
  /**
   * Certified bound on sin(angle) between the returned vector and the true dominant eigenvector before the
   * final power step. Default `1e-13`.
   */
  tolerance?: number;
  /** Power steps before falling back to the Jacobi solve. Default `12`. */
  maxIterations?: number;
  /**
   * `'auto'` (default): power iteration with certificate, Jacobi when it does not certify;
   * `'jacobi'`: always the full Jacobi solve (slower, same answer to rounding).
   */
  solver?: 'auto' | 'jacobi';
  /**
   * The two largest eigenvalues count as tied (the average is ambiguous) when `λ₁ − λ₂ ≤ tieTolerance · |λ₁|`.
   * Default `1e-9`.
   */
  tieTolerance?: number;
}

/** Defaults of {@link Eigen4Options}. */
export const EIGEN4_DEFAULTS: Required<Eigen4Options> = {
  tolerance: 1e-13,
  maxIterations: 12,
  solver: 'auto',
  tieTolerance: 1e-9,
};

/**
 * What a dominant-eigenvector solve found. Pass a reusable object to collect it; every field is overwritten
 * on each call.
 */
export interface Eigen4Diagnostics {
  /** Which solver produced the answer: the certified power iteration or the Jacobi solve. */
  method: 'power' | 'jacobi';
  /** Power steps taken (including those before a fallback). */
  iterations: number;
  /** The largest eigenvalue λ₁ (for a weight-normalised `M` of unit quaternions: 1 − the mean cost). */
  lambda1: number;
  /**
   * λ₁ − λ₂ when the Jacobi solve ran; a certified lower bound of it when the power iteration answered.
   */
  gap: number;
  /** True when `gap ≤ tieTolerance · |λ₁|`: the dominant eigenvector is not unique and the answer is one
   * deterministic choice among many (for example the mean of two rotations 180 degrees apart). */
  ambiguous: boolean;
}

/** Creates a diagnostics object to pass to the solvers. */
export function createEigen4Diagnostics(): Eigen4Diagnostics {
  return { method: 'power', iterations: 0, lambda1: 0, gap: 0, ambiguous: false };
}

// Scratch layout (Float64Array(EIGEN4_SCRATCH_LENGTH)):
//   [0..9]   packed upper triangle a00 a01 a02 a03 a11 a12 a13 a22 a23 a33
//   [10..25] Jacobi working matrix (full 4x4)
//   [26..41] Jacobi eigenvectors (columns)
//   [42..45] eigenvalues
//   [46..47] spare
export const P00 = 0;
export const P01 = 1;
export const P02 = 2;
export const P03 = 3;
export const P11 = 4;
export const P12 = 5;
export const P13 = 6;
export const P22 = 7;
export const P23 = 8;
export const P33 = 9;

/** Index of tr(B) in {@link SQUARES}, after the packed B. */
export const SQUARES_TRACE = 10;
/** The buffer {@link squareToRankOne} works on: a packed symmetric B, then its trace. */
export const SQUARES = new Float64Array(11);

/** Packs the upper triangle of a row-major symmetric 4x4 `m` into `s[P00..P33]`. */
function packSymmetric(s: Float64Array, m: ArrayLike<number>): void {
  s[P00] = m[0];
  s[P01] = m[1];
  s[P02] = m[2];
  s[P03] = m[3];
  s[P11] = m[5];
  s[P12] = m[6];
  s[P13] = m[7];
  s[P22] = m[10];
  s[P23] = m[11];
  s[P33] = m[15];
}

/**
 * Squares the packed symmetric `b` (`b[P00..P33]`, its trace at `b[SQUARES_TRACE]`) in place until it is
 * rank one, at most `maxSquares` times. Each square is divided by tr(B)², which is known before the square
 * is formed (so the division stays off the critical path), and the trace of the next B stays in [1/4, 1]:
 * B ∝ M^(2^k), and ‖B‖²_F / tr(B)² = Σμᵢ² / (Σμᵢ)² reaches 1 as B becomes rank one. Squares are PSD even
 * for an indefinite M. Returns the number of squares when B is rank one (tr(C)/tr(B)² = ‖B‖²_F/tr(B)²
 * within 1e-8 of 1: B rank one to ~5e-9, so the stored C to ~1e-17), minus that number when the limit
 * came first. The loop runs in locals; `b` is read once and written once.
 */
export function squareToRankOne(b: Float64Array, maxSquares: number): number {
  let b00 = b[P00];
  let b01 = b[P01];
  let b02 = b[P02];
  let b03 = b[P03];
  let b11 = b[P11];
  let b12 = b[P12];
  let b13 = b[P13];
  let b22 = b[P22];
  let b23 = b[P23];
  let b33 = b[P33];
  let tb = b[SQUARES_TRACE];
  let squares = 0;
  let rankOne = false;
  while (squares < maxSquares) {
    squares++;
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
      rankOne = true;
      break;
    }
  }
  b[P00] = b00;
  b[P01] = b01;
  b[P02] = b02;
  b[P03] = b03;
  b[P11] = b11;
  b[P12] = b12;
  b[P13] = b13;
  b[P22] = b22;
  b[P23] = b23;
  b[P33] = b33;
  b[SQUARES_TRACE] = tb;
  return rankOne ? squares : -squares;
}

let sharedScratch: Float64Array | null = null;
export function defaultScratch(): Float64Array {
  if (sharedScratch === null) sharedScratch = new Float64Array(EIGEN4_SCRATCH_LENGTH);
  return sharedScratch;
}

/**
 * Eigen-decomposition of a symmetric 4x4 matrix by cyclic Jacobi rotations: eigenvalues sorted in
 * descending order into `values`, the matching unit eigenvectors into `vectors` (vector `k` at
 * `vectors[4k .. 4k+3]`). Robust for repeated eigenvalues; accuracy a few ulps of ‖M‖.
 * Ties keep the lower original diagonal index first, so the output is a deterministic function of `m`.
 *
 * Cost: typically 3-5 sweeps of 6 rotations (about a microsecond).
 *
 * @param values - receives 4 eigenvalues, largest first.
 * @param vectors - receives 16 numbers, eigenvector k at offset 4k, each of unit length.
 * @param m - row-major symmetric matrix (16 numbers); only the upper triangle is read.
 * @param scratch - optional `Float64Array(EIGEN4_SCRATCH_LENGTH)`; a module-level buffer is used otherwise.
 * @throws {InvalidValueError} when `m` has a non-finite entry.
 * @example
 * const values = new Float64Array(4);
 * const vectors = new Float64Array(16);
 * symmetricEigen4(values, vectors, [2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
 * // values = [3, 2, 1, 0]; vectors[0..3] = [0, 1, 0, 0]
 */
export function symmetricEigen4(
  values: Float64Array | number[],
  vectors: Float64Array | number[],
  m: ArrayLike<number>,
  scratch?: Float64Array,
): void {
  const s = scratch ?? defaultScratch();
  packSymmetric(s, m);
  for (let i = 0; i < 10; i++) {
    if (!Number.isFinite(s[i])) throw new InvalidValueError(`symmetricEigen4: matrix entry is ${s[i]}`);
  }
  jacobiPacked(s);
  for (let k = 0; k < 4; k++) {
    values[k] = s[42 + k];
    for (let i = 0; i < 4; i++) vectors[4 * k + i] = s[26 + i * 4 + k];
  }
}

/**
 * Jacobi solve of the packed matrix in `s[0..9]`; leaves eigenvalues sorted descending in s[42..45] and the
 * eigenvectors as the matching columns of s[26..41] (row-major 4x4).
 */
function jacobiPacked(s: Float64Array): void {
  const A = 10;
  const V = 26;
  // full symmetric working copy
  s[A + 0] = s[P00];
  s[A + 1] = s[A + 4] = s[P01];
  s[A + 2] = s[A + 8] = s[P02];
  s[A + 3] = s[A + 12] = s[P03];
  s[A + 5] = s[P11];
  s[A + 6] = s[A + 9] = s[P12];
  s[A + 7] = s[A + 13] = s[P13];
  s[A + 10] = s[P22];
  s[A + 11] = s[A + 14] = s[P23];
  s[A + 15] = s[P33];
  for (let i = 0; i < 16; i++) s[V + i] = i % 5 === 0 ? 1 : 0;

  let norm2 = 0;
  for (let i = 0; i < 16; i++) norm2 += s[A + i] * s[A + i];
  const floor = norm2 * 1e-34; // (1e-17 ‖M‖)²: below rounding, so the sweep has converged
  for (let sweep = 0; sweep < 32; sweep++) {
    let off = 0;
    for (let p = 0; p < 3; p++) for (let q = p + 1; q < 4; q++) off += s[A + p * 4 + q] * s[A + p * 4 + q];
    if (off <= floor) break;
    for (let p = 0; p < 3; p++) {
      for (let q = p + 1; q < 4; q++) {
        const apq = s[A + p * 4 + q];
        if (apq === 0) continue;
        const app = s[A + p * 5];
        const aqq = s[A + q * 5];
        // Rutishauser's stable rotation: t = tan(phi), the smaller root, so |phi| <= pi/4.
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const sn = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = s[A + k * 4 + p];
          const akq = s[A + k * 4 + q];
          s[A + k * 4 + p] = c * akp - sn * akq;
          s[A + k * 4 + q] = sn * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = s[A + p * 4 + k];
          const aqk = s[A + q * 4 + k];
          s[A + p * 4 + k] = c * apk - sn * aqk;
          s[A + q * 4 + k] = sn * apk + c * aqk;
        }
        s[A + p * 4 + q] = 0;
        s[A + q * 4 + p] = 0;
        for (let k = 0; k < 4; k++) {
          const vkp = s[V + k * 4 + p];
          const vkq = s[V + k * 4 + q];
          s[V + k * 4 + p] = c * vkp - sn * vkq;
          s[V + k * 4 + q] = sn * vkp + c * vkq;
        }
      }
    }
  }
  // selection sort of (value, column), descending; stable so ties keep the lower index first
  const E = 42;
  for (let k = 0; k < 4; k++) s[E + k] = s[A + k * 5];
  for (let k = 0; k < 3; k++) {
    let best = k;
    for (let j = k + 1; j < 4; j++) if (s[E + j] > s[E + best]) best = j;
    if (best !== k) {
      const tv = s[E + k];
      s[E + k] = s[E + best];
      s[E + best] = tv;
      for (let i = 0; i < 4; i++) {
        const tc = s[V + i * 4 + k];
        s[V + i * 4 + k] = s[V + i * 4 + best];
        s[V + i * 4 + best] = tc;
      }
    }
  }
}

/**
 * Solves the dominant eigenvector of the packed matrix in `s[0..9]` into `out[o..o+3]`, canonical sign
 * (w ≥ 0; for w = 0 the first non-zero of x, y, z positive). Returns λ₁.
 *
 * Fast path: the power method accelerated by repeated squaring. `A₁ = M²/tr(M²)`, `Aₖ₊₁ = Aₖ²/tr(Aₖ²)`
 * are positive semi-definite with trace 1 and eigenvalues `μᵢ = λᵢ^(2ᵏ)/Σ λⱼ^(2ᵏ)`, so each squaring
 * squares the ratio |λ₂/λ₁|; `tr(Aₖ²) = ‖Aₖ‖²_F ≥ 1 − 1e-8` says `Aₖ` is rank one to ~5e-9, so
 * `Aₖ₊₁` is rank one to ~1e-17 and its largest-diagonal column is the eigenvector, which the Davis–Kahan
 * bound then certifies against the original M. A spread set (|λ₂/λ₁| = 0.8) needs about 8 squarings, a
 * tight cluster 2-4; each costs 40 multiplications, far less than a Jacobi sweep. An optional `start` gets
 * up to two plain power steps first and is abandoned after one unless it is already within ~1e-7 of the
 * answer (a start only pays when it is the answer of a nearly identical problem).
 */
export function solvePacked(
  out: Float64Array | Float32Array | number[],
  o: number,
  s: Float64Array,
  start: ArrayLike<number> | null,
  startOffset: number,
  options: Eigen4Options | undefined,
  diag: Eigen4Diagnostics | undefined,
  jacobiAfter = -1,
): number {
  const a00 = s[P00];
  const a01 = s[P01];
  const a02 = s[P02];
  const a03 = s[P03];
  const a11 = s[P11];
  const a12 = s[P12];
  const a13 = s[P13];
  const a22 = s[P22];
  const a23 = s[P23];
  const a33 = s[P33];
  let tol = EIGEN4_DEFAULTS.tolerance;
  let maxIter = EIGEN4_DEFAULTS.maxIterations;
  let tieTol = EIGEN4_DEFAULTS.tieTolerance;
  let useJacobi = false;
  if (options !== undefined) {
    if (options.tolerance !== undefined) tol = options.tolerance;
    if (options.maxIterations !== undefined) maxIter = options.maxIterations;
    if (options.tieTolerance !== undefined) tieTol = options.tieTolerance;
    useJacobi = options.solver === 'jacobi';
  }
  if (jacobiAfter >= 0) useJacobi = true;
  const frob2 =
    a00 * a00 +
    a11 * a11 +
    a22 * a22 +
    a33 * a33 +
    2 * (a01 * a01 + a02 * a02 + a03 * a03 + a12 * a12 + a13 * a13 + a23 * a23);
  const trace = a00 + a11 + a22 + a33;
  if (!(frob2 > 0) || !Number.isFinite(frob2)) {
    throw new InvalidValueError(
      frob2 === 0
        ? 'eigen average: the matrix M vanishes'
        : `eigen average: the matrix M is not finite (${frob2})`,
    );
  }

  let vx = 0;
  let vy = 0;
  let vz = 0;
  let vw = 0;
  let iterations = jacobiAfter >= 0 ? jacobiAfter : 0;
  let lambda = 0;
  let gap = 0;
  let done = false;
  for (let phase = start === null ? 1 : 0; phase < 2 && !done && !useJacobi; phase++) {
    let have = false;
    let plain = 0;
    if (phase === 0 && start !== null) {
      vx = start[startOffset];
      vy = start[startOffset + 1];
      vz = start[startOffset + 2];
      vw = start[startOffset + 3];
      const n2 = vx * vx + vy * vy + vz * vz + vw * vw;
      if (n2 > 0 && Number.isFinite(n2)) {
        const inv = 1 / Math.sqrt(n2);
        vx *= inv;
        vy *= inv;
        vz *= inv;
        vw *= inv;
        have = true;
        plain = 2;
      }
    } else {
      // repeated squaring from A² / tr(A²) (tr(A²) = ‖A‖²_F); b.. hold Aₖ
      const q = SQUARES;
      const t = 1 / frob2;
      q[P00] = (a00 * a00 + a01 * a01 + a02 * a02 + a03 * a03) * t;
      q[P01] = (a00 * a01 + a01 * a11 + a02 * a12 + a03 * a13) * t;
      q[P02] = (a00 * a02 + a01 * a12 + a02 * a22 + a03 * a23) * t;
      q[P03] = (a00 * a03 + a01 * a13 + a02 * a23 + a03 * a33) * t;
      q[P11] = (a01 * a01 + a11 * a11 + a12 * a12 + a13 * a13) * t;
      q[P12] = (a01 * a02 + a11 * a12 + a12 * a22 + a13 * a23) * t;
      q[P13] = (a01 * a03 + a11 * a13 + a12 * a23 + a13 * a33) * t;
      q[P22] = (a02 * a02 + a12 * a12 + a22 * a22 + a23 * a23) * t;
      q[P23] = (a02 * a03 + a12 * a13 + a22 * a23 + a23 * a33) * t;
      q[P33] = (a03 * a03 + a13 * a13 + a23 * a23 + a33 * a33) * t;
      q[SQUARES_TRACE] = q[P00] + q[P11] + q[P22] + q[P33];
      iterations++;
      const squares = squareToRankOne(q, maxIter - iterations);
      iterations += Math.abs(squares);
      have = squares > 0;
      if (have) {
        // the largest-diagonal column of the rank-one Aₖ
        let j = 0;
        let best = q[P00];
        if (q[P11] > best) {
          best = q[P11];
          j = 1;
        }
        if (q[P22] > best) {
          best = q[P22];
          j = 2;
        }
        if (q[P33] > best) j = 3;
        if (j === 0) {
          vx = q[P00];
          vy = q[P01];
          vz = q[P02];
          vw = q[P03];
        } else if (j === 1) {
          vx = q[P01];
          vy = q[P11];
          vz = q[P12];
          vw = q[P13];
        } else if (j === 2) {
          vx = q[P02];
          vy = q[P12];
          vz = q[P22];
          vw = q[P23];
        } else {
          vx = q[P03];
          vy = q[P13];
          vz = q[P23];
          vw = q[P33];
        }
        const n2 = vx * vx + vy * vy + vz * vz + vw * vw;
        if (n2 > 0) {
          const inv = 1 / Math.sqrt(n2);
          vx *= inv;
          vy *= inv;
          vz *= inv;
          vw *= inv;
          plain = 1;
        } else {
          have = false;
        }
      }
    }
    // certified power steps with the original M
    for (let step = 0; have && step < plain; step++) {
      const yx = a00 * vx + a01 * vy + a02 * vz + a03 * vw;
      const yy = a01 * vx + a11 * vy + a12 * vz + a13 * vw;
      const yz = a02 * vx + a12 * vy + a22 * vz + a23 * vw;
      const yw = a03 * vx + a13 * vy + a23 * vz + a33 * vw;
      const rho = vx * yx + vy * yy + vz * yz + vw * yw;
      const rx = yx - rho * vx;
      const ry = yy - rho * vy;
      const rz = yz - rho * vz;
      const rw = yw - rho * vw;
      const rn = Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
      const delta = samuelsonGap(rho, trace, frob2);
      const yn2 = yx * yx + yy * yy + yz * yz + yw * yw;
      if (!(yn2 > 0)) break;
      const inv = 1 / Math.sqrt(yn2);
      vx = yx * inv;
      vy = yy * inv;
      vz = yz * inv;
      vw = yw * inv;
      iterations++;
      if (rho > 0 && delta > 0 && rn <= tol * delta) {
        lambda = rho;
        gap = delta;
        done = true;
        break;
      }
      // a start that is not already within ~1e-7 of the answer will not certify in time: square instead
      if (!(rn <= 1e-7 * delta)) break;
    }
  }
  if (done) {
    if (diag !== undefined) {
      diag.method = 'power';
      diag.iterations = iterations;
      diag.lambda1 = lambda;
      diag.gap = gap;
      diag.ambiguous = gap <= tieTol * Math.abs(lambda);
    }
  } else {
    jacobiPacked(s);
    vx = s[26];
    vy = s[30];
    vz = s[34];
    vw = s[38];
    lambda = s[42];
    gap = s[42] - s[43];
    if (diag !== undefined) {
      diag.method = 'jacobi';
      diag.iterations = iterations;
      diag.lambda1 = lambda;
      diag.gap = gap;
      diag.ambiguous = gap <= tieTol * Math.abs(lambda);
    }
  }
  if (vw < 0 || (vw === 0 && (vx < 0 || (vx === 0 && (vy < 0 || (vy === 0 && vz < 0)))))) {
    vx = -vx;
    vy = -vy;
    vz = -vz;
    vw = -vw;
  }
  out[o] = vx;
  out[o + 1] = vy;
  out[o + 2] = vz;
  out[o + 3] = vw;
  return lambda;
}

/**
 * Unit eigenvector of the largest (algebraic) eigenvalue of a symmetric 4x4 matrix, written into `out` in the
 * canonical sign (`out[3] ≥ 0`; when `out[3] = 0`, the first non-zero of `out[0..2]` positive). Returns λ₁.
 *
 * A power iteration from `start` (or, without it, from the column of the largest diagonal entry) stops
 * when the Davis–Kahan bound certifies the angle (see the module doc); when the two largest eigenvalues are
 * close or `M` is indefinite enough to stall it, the robust {@link symmetricEigen4} answers instead.
 * When λ₁ is (nearly) repeated, the answer is a deterministic member of its eigenspace and
 * `diagnostics.ambiguous` is set.
 *
 * @param out - receives the 4 components.
 * @param m - row-major symmetric 4x4 (16 numbers); only the upper triangle is read.
 * @param start - optional start vector (4 numbers); it saves work only when within ~1e-7 of the answer (the
 *   answer of a nearly identical matrix), otherwise it costs one wasted power step.
 * @param diagnostics - optional object receiving method, iterations, λ₁, gap and the tie flag.
 * @param options - {@link Eigen4Options}.
 * @param scratch - optional `Float64Array(EIGEN4_SCRATCH_LENGTH)`.
 * @throws {InvalidValueError} when `m` is zero or has a non-finite entry.
 * @example
 * const q = new Float64Array(4);
 * // M of the single rotation 90° about x, q₀ = (√½, 0, 0, √½): M = q₀q₀ᵀ
 * dominantEigenvector4(q, [0.5, 0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0.5]);
 * // q ≈ [√½, 0, 0, √½]
 */
export function dominantEigenvector4(
  out: Float64Array | Float32Array | number[],
  m: ArrayLike<number>,
  start?: ArrayLike<number> | null,
  diagnostics?: Eigen4Diagnostics,
  options?: Eigen4Options,
  scratch?: Float64Array,
): number {
  const s = scratch ?? defaultScratch();
  packSymmetric(s, m);
  return solvePacked(out, 0, s, start ?? null, 0, options, diagnostics);
}

/**
 * Lower bound of the gap between ρ (≈ λ₁) and the other three eigenvalues of a symmetric 4x4 with the
 * given trace and squared Frobenius norm: they have sum S = tr − λ₁ and sum of squares Q = ‖M‖²_F − λ₁²,
 * so λ₂ ≤ (S + √(6Q − 2S²)) / 3 (Samuelson's inequality), evaluated at λ₁ = ρ.
 */
export function samuelsonGap(rho: number, trace: number, frob2: number): number {
  const sumRest = trace - rho;
  const disc = 6 * (frob2 - rho * rho) - 2 * sumRest * sumRest;
  return rho - (sumRest + (disc > 0 ? Math.sqrt(disc) : 0)) / 3;
}
