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
const P00 = 0;
const P01 = 1;
const P02 = 2;
const P03 = 3;
const P11 = 4;
const P12 = 5;
const P13 = 6;
const P22 = 7;
const P23 = 8;
const P33 = 9;

let sharedScratch: Float64Array | null = null;
function defaultScratch(): Float64Array {
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
function solvePacked(
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
      // repeated squaring; b.. hold Aₖ
      let b00 = a00 * a00 + a01 * a01 + a02 * a02 + a03 * a03;
      let b01 = a00 * a01 + a01 * a11 + a02 * a12 + a03 * a13;
      let b02 = a00 * a02 + a01 * a12 + a02 * a22 + a03 * a23;
      let b03 = a00 * a03 + a01 * a13 + a02 * a23 + a03 * a33;
      let b11 = a01 * a01 + a11 * a11 + a12 * a12 + a13 * a13;
      let b12 = a01 * a02 + a11 * a12 + a12 * a22 + a13 * a23;
      let b13 = a01 * a03 + a11 * a13 + a12 * a23 + a13 * a33;
      let b22 = a02 * a02 + a12 * a12 + a22 * a22 + a23 * a23;
      let b23 = a02 * a03 + a12 * a13 + a22 * a23 + a23 * a33;
      let b33 = a03 * a03 + a13 * a13 + a23 * a23 + a33 * a33;
      let t = 1 / (b00 + b11 + b22 + b33);
      b00 *= t;
      b01 *= t;
      b02 *= t;
      b03 *= t;
      b11 *= t;
      b12 *= t;
      b13 *= t;
      b22 *= t;
      b23 *= t;
      b33 *= t;
      iterations++;
      while (iterations < maxIter) {
        iterations++;
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
        // tr(B²) = ‖B‖²_F = Σ μᵢ²: near 1 means B is rank one to ~5e-9, so C = B² is rank one to ~1e-17
        const f2 = c00 + c11 + c22 + c33;
        t = 1 / f2;
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
        if (f2 >= 1 - 1e-8) {
          have = true;
          break;
        }
      }
      if (have) {
        // the largest-diagonal column of the rank-one Aₖ
        let j = 0;
        let best = b00;
        if (b11 > best) {
          best = b11;
          j = 1;
        }
        if (b22 > best) {
          best = b22;
          j = 2;
        }
        if (b33 > best) j = 3;
        if (j === 0) {
          vx = b00;
          vy = b01;
          vz = b02;
          vw = b03;
        } else if (j === 1) {
          vx = b01;
          vy = b11;
          vz = b12;
          vw = b13;
        } else if (j === 2) {
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
  return solvePacked(out, 0, s, start ?? null, 0, options, diagnostics);
}

/**
 * The fast path of the averaging kernels: accumulates `M` from the quaternions at `offsets[i]` (or, when
 * `offsets` is null, at `srcOffset + i * stride`) and solves it entirely in locals by repeated squaring, then
 * one certified power step (the same certificate and tolerance as {@link dominantEigenvector4}).
 * Returns λ₁ and writes the canonical answer when certified; `NaN` when the input needs the checks of the
 * general path (non-finite values, weights summing to zero, `M = 0`); `Infinity` when the certificate fails
 * (near ties, strongly indefinite `M`), so the caller goes straight to the Jacobi solve.
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
  if (offsets === null) {
    for (let i = 0, p = srcOffset; i < count; i++, p += stride) {
      const x = src[p];
      const y = src[p + 1];
      const z = src[p + 2];
      const w = src[p + 3];
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
  } else {
    for (let i = 0; i < count; i++) {
      const p = offsets[i];
      const x = src[p];
      const y = src[p + 1];
      const z = src[p + 2];
      const w = src[p + 3];
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
  const p0 = offsets === null ? srcOffset : offsets[0];
  const qx = src[p0];
  const qy = src[p0 + 1];
  const qz = src[p0 + 2];
  const qw = src[p0 + 3];
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

/**
 * Lower bound of the gap between ρ (≈ λ₁) and the other three eigenvalues of a symmetric 4x4 with the
 * given trace and squared Frobenius norm: they have sum S = tr − λ₁ and sum of squares Q = ‖M‖²_F − λ₁²,
 * so λ₂ ≤ (S + √(6Q − 2S²)) / 3 (Samuelson's inequality), evaluated at λ₁ = ρ.
 */
function samuelsonGap(rho: number, trace: number, frob2: number): number {
  const sumRest = trace - rho;
  const disc = 6 * (frob2 - rho * rho) - 2 * sumRest * sumRest;
  return rho - (sumRest + (disc > 0 ? Math.sqrt(disc) : 0)) / 3;
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
  if (!(count >= 1))
    throw new InvalidValueError(`eigenAverageFlat: need at least one quaternion, got ${count}`);
  let jacobiAfter = -1;
  if (start == null && (options === undefined || options.solver !== 'jacobi')) {
    const r = fastAverage(dst, dstOffset, src, offsets, 0, 0, weights, count, options, diagnostics);
    if (r < Number.POSITIVE_INFINITY) return r;
    // not certified (near tie, indefinite M): straight to the Jacobi solve; NaN: let the checks below report
    if (r === Number.POSITIVE_INFINITY) jacobiAfter = options?.maxIterations ?? EIGEN4_DEFAULTS.maxIterations;
  }
  return generalAverage(
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
    jacobiAfter,
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
  return stridedAverage(
    'eigenAverageStrided',
    dst,
    dstOffset,
    src,
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

/**
 * {@link eigenAverageStrided} with the caller's name in error messages (for public operations built on it).
 *
 * @internal
 */
export function stridedAverage(
  where: string,
  dst: Float64Array | Float32Array | number[],
  dstOffset: number,
  src: ArrayLike<number>,
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
  if (!(count >= 1)) throw new InvalidValueError(`${where}: need at least one quaternion, got ${count}`);
  let jacobiAfter = -1;
  if (start == null && (options === undefined || options.solver !== 'jacobi')) {
    const r = fastAverage(dst, dstOffset, src, null, srcOffset, stride, weights, count, options, diagnostics);
    if (r < Number.POSITIVE_INFINITY) return r;
    // not certified (near tie, indefinite M): straight to the Jacobi solve; NaN: let the checks report
    if (r === Number.POSITIVE_INFINITY) jacobiAfter = options?.maxIterations ?? EIGEN4_DEFAULTS.maxIterations;
  }
  return generalAverage(
    where,
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
    jacobiAfter,
  );
}

/**
 * The general path of {@link eigenAverageFlat} and {@link stridedAverage}: checks, scratch, warm start,
 * certified squaring or Jacobi. Quaternion `i` is at `offsets[i]`, or at `srcOffset + i * stride` when
 * `offsets` is null (the fast path, {@link fastAverage}, keeps one loop per addressing mode; this one
 * runs rarely enough to share).
 */
function generalAverage(
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
  jacobiAfter: number,
): number {
  const s = scratch ?? defaultScratch();
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
  for (let i = 0; i < count; i++) {
    const o = offsets === null ? srcOffset + i * stride : offsets[i];
    const x = src[o];
    const y = src[o + 1];
    const z = src[o + 2];
    const w = src[o + 3];
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
  s[P00] = m00;
  s[P01] = m01;
  s[P02] = m02;
  s[P03] = m03;
  s[P11] = m11;
  s[P12] = m12;
  s[P13] = m13;
  s[P22] = m22;
  s[P23] = m23;
  s[P33] = m33;
  if (!normaliseAccumulated(s, wsum, wabs, where)) {
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
