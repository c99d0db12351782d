import { InvalidValueError, ShapeError } from '../../errors.js';
import { symmetricEigen4 } from '../../numeric/eigen4.js';
import {
  frozenDefaults,
  NUMBER_LIST,
  type OptionSpec,
  OUT_ARRAY,
  orNull,
  resolveOptions,
} from '../../options.js';
import { fromUnitVectors } from '../../quat/vector.js';

/** Options of {@link alignVectors}. */
export interface AlignVectorsOptions {
  /** One non-negative finite weight per vector pair; null weighs every pair 1. */
  weights?: ArrayLike<number> | null;
  /** Receives the rotation (4 numbers, x, y, z, w); a new Float64Array when null. */
  out?: Float64Array | Float32Array | number[] | null;
}

/** Defaults of {@link alignVectors}. */
export const ALIGN_VECTORS_DEFAULTS: Required<AlignVectorsOptions> = frozenDefaults({
  weights: null,
  out: null,
});

const ALIGN_VECTORS_SPEC: OptionSpec = { weights: orNull(NUMBER_LIST), out: orNull(OUT_ARRAY) };

/** What {@link alignVectors} found. */
export interface AlignedRotation<T = Float64Array | Float32Array | number[]> {
  /** The rotation `C` (unit quaternion, `w >= 0`) minimising `Σ wᵢ‖aᵢ − C·bᵢ‖²`. */
  rotation: T;
  /**
   * Root of the weighted sum of squared distances left after the fit, `√(Σ wᵢ‖aᵢ − C·bᵢ‖²)`, in the
   * vectors' units (SciPy's `rssd`). Computed from the residuals themselves, so a perfect fit gives a
   * value at rounding level, not the square root of a cancelled difference.
   */
  rssd: number;
  /**
   * True when the best rotation is not unique (the two largest eigenvalues of Davenport's matrix tie):
   * all vectors parallel, or too few independent directions. One of the best rotations is returned;
   * SciPy warns in this case.
   */
  degenerate: boolean;
}

const K = new Float64Array(16);
const VALUES = new Float64Array(4);
const VECTORS = new Float64Array(16);
const STEP = new Float64Array(3);
/** Newton steps after the eigenvector: two reach rounding level from the q-method's answer. */
const MAX_REFINEMENTS = 3;

/**
 * One Newton step on the rotation: with b′ᵢ = C·bᵢ, the loss's gain f(θ) = Σ wᵢ aᵢ·(exp(θ)·b′ᵢ) has gradient
 * g = Σ wᵢ b′ᵢ × aᵢ and Hessian M = Σ wᵢ (sym(aᵢ b′ᵢᵀ) − (aᵢ·b′ᵢ) I) at θ = 0; the step θ = −M⁻¹g goes to
 * STEP. Each pair's cross product is made exactly perpendicular to its aᵢ (as it is in exact arithmetic)
 * before it is weighted, so a heavy pair's rounding does not push the rotation about its own axis, which
 * only the light pairs decide: this is what the eigenvector alone gets wrong at large weight ratios
 * (its error grows as ε times the ratio of the largest weight to the eigenvalue gap).
 * Returns false when −M is not positive definite (no unique optimum nearby) or the step is not finite.
 */
function refine(
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  weights: ArrayLike<number> | null,
  n: number,
): boolean {
  let gx = 0;
  let gy = 0;
  let gz = 0;
  let m00 = 0;
  let m01 = 0;
  let m02 = 0;
  let m11 = 0;
  let m12 = 0;
  let m22 = 0;
  for (let i = 0; i < n; i++) {
    const w = weights === null ? 1 : weights[i];
    if (w === 0) continue;
    const ax = a[3 * i];
    const ay = a[3 * i + 1];
    const az = a[3 * i + 2];
    const vx = b[3 * i];
    const vy = b[3 * i + 1];
    const vz = b[3 * i + 2];
    // b′ = C·b (t = 2 q⃗ × v; b′ = v + w t + q⃗ × t).
    const tx = 2 * (qy * vz - qz * vy);
    const ty = 2 * (qz * vx - qx * vz);
    const tz = 2 * (qx * vy - qy * vx);
    const px = vx + qw * tx + (qy * tz - qz * ty);
    const py = vy + qw * ty + (qz * tx - qx * tz);
    const pz = vz + qw * tz + (qx * ty - qy * tx);
    let cx = py * az - pz * ay;
    let cy = pz * ax - px * az;
    let cz = px * ay - py * ax;
    const aa = ax * ax + ay * ay + az * az;
    if (aa > 0) {
      const along = (cx * ax + cy * ay + cz * az) / aa;
      cx -= along * ax;
      cy -= along * ay;
      cz -= along * az;
    }
    gx += w * cx;
    gy += w * cy;
    gz += w * cz;
    const dot = ax * px + ay * py + az * pz;
    m00 += w * (ax * px - dot);
    m11 += w * (ay * py - dot);
    m22 += w * (az * pz - dot);
    m01 += (w * (ax * py + ay * px)) / 2;
    m02 += (w * (ax * pz + az * px)) / 2;
    m12 += (w * (ay * pz + az * py)) / 2;
  }
  // Solve (−M) θ = g by the adjugate of the positive definite H = −M.
  const h00 = -m00;
  const h01 = -m01;
  const h02 = -m02;
  const h11 = -m11;
  const h12 = -m12;
  const h22 = -m22;
  const c00 = h11 * h22 - h12 * h12;
  const c01 = h02 * h12 - h01 * h22;
  const c02 = h01 * h12 - h02 * h11;
  const c11 = h00 * h22 - h02 * h02;
  const c12 = h01 * h02 - h00 * h12;
  const c22 = h00 * h11 - h01 * h01;
  const det = h00 * c00 + h01 * c01 + h02 * c02;
  if (!(h00 > 0 && c22 > 0 && det > 0) || !Number.isFinite(det)) return false;
  STEP[0] = (c00 * gx + c01 * gy + c02 * gz) / det;
  STEP[1] = (c01 * gx + c11 * gy + c12 * gz) / det;
  STEP[2] = (c02 * gx + c12 * gy + c22 * gz) / det;
  return Number.isFinite(STEP[0] + STEP[1] + STEP[2]);
}

/**
 * The rotation that best aligns vectors `b` onto vectors `a` (weighted Wahba problem, Kabsch fit):
 * `C = argmin Σ wᵢ‖aᵢ − C·bᵢ‖²` over rotations, as SciPy's `Rotation.align_vectors(a, b, weights)`. Use it
 * for a rigid body from markers (the markers' positions relative to their centroid in a rest frame as `b`,
 * in the current frame as `a`), or a sensor's attitude from two or more measured directions.
 *
 * `a` and `b` are flat `n x 3` arrays (Float64, Float32 or plain). One pair gives the shortest-arc rotation
 * from `b₀` to `a₀` (the direction of `a₀`, SciPy's convention for a single pair); two or more give the
 * global optimum, found as the dominant eigenvector of Davenport's symmetric 4x4 matrix built from the
 * attitude profile `B = Σ wᵢ aᵢ bᵢᵀ` (the q-method: no SVD, no reflection case, exact for any n).
 * Vectors need not be unit: longer vectors weigh more, as in the least-squares loss. The eigenvector is
 * then polished by Newton steps on the rotation (each pair's cross product kept exactly perpendicular to
 * its `aᵢ`), so the answer stays at rounding level (about 3e-16 rad against a 60-digit reference) at
 * weight ratios up to 1e10 and near half turns, where the eigenvector alone is off by up to 9e-7 rad and
 * SciPy by up to 2e-6 rad. `degenerate` is set when the eigenvalue gap is within 1e-13 of the largest
 * eigenvalue; the result is then the eigenvector, unpolished.
 * Source: Davenport's q-method, as in Markley & Mortari, "Quaternion attitude estimation using vector
 * observations" (J. Astronaut. Sci. 2000); Wahba, "A least squares estimate of satellite attitude" (SIAM
 * Review 1965).
 *
 * @example
 * const a = [0, 1, 0, -1, 0, 0]; // x and y rotated 90° about z
 * const b = [1, 0, 0, 0, 1, 0];
 * const { rotation, rssd } = alignVectors(a, b); // ≈ 90° about z, rssd ≈ 0
 * @throws {ShapeError} when `a` and `b` differ in length, are not a multiple of 3 long, are empty, or the
 * weights do not match the number of pairs.
 * @throws {InvalidValueError} when a vector or weight is not finite, a weight is negative or not a number
 * (`'1'`, `true`, `[1]` are refused, not coerced), every weight is zero, or a single pair has a zero vector.
 * @throws {OptionError} for an unknown option.
 */
export function alignVectors(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: AlignVectorsOptions = {},
): AlignedRotation {
  const { weights, out } = resolveOptions(
    'alignVectors',
    options,
    ALIGN_VECTORS_DEFAULTS,
    ALIGN_VECTORS_SPEC,
  );
  for (const arg of [a, b]) {
    if (arg === null || typeof arg !== 'object' || typeof arg.length !== 'number') {
      throw new ShapeError('alignVectors: a and b must be arrays of n x 3 numbers');
    }
  }
  if (a.length !== b.length || a.length % 3 !== 0 || a.length === 0) {
    throw new ShapeError(
      `alignVectors: a has ${a.length} numbers and b ${b.length}; both must hold the same n >= 1 vectors (n x 3)`,
    );
  }
  const n = a.length / 3;
  if (weights !== null && (typeof weights !== 'object' || weights.length !== n)) {
    throw new ShapeError(`alignVectors: ${weights.length} weights for ${n} vector pairs`);
  }
  const q = out ?? new Float64Array(4);
  if (typeof q !== 'object' || q === null || q.length !== 4)
    throw new ShapeError(`alignVectors: out has ${q.length} numbers, expected 4`);
  // B = Σ wᵢ aᵢ bᵢᵀ, row-major.
  let b00 = 0;
  let b01 = 0;
  let b02 = 0;
  let b10 = 0;
  let b11 = 0;
  let b12 = 0;
  let b20 = 0;
  let b21 = 0;
  let b22 = 0;
  let total = 0;
  let used = 0;
  let only = 0;
  for (let i = 0; i < n; i++) {
    const w = weights === null ? 1 : weights[i];
    const ax = a[3 * i];
    const ay = a[3 * i + 1];
    const az = a[3 * i + 2];
    const bx = b[3 * i];
    const by = b[3 * i + 1];
    const bz = b[3 * i + 2];
    if (typeof w !== 'number' || !(w >= 0 && w < Number.POSITIVE_INFINITY)) {
      throw new InvalidValueError(`alignVectors: weight ${w} of pair ${i} is not a finite number >= 0`, {
        index: i,
      });
    }
    if (!Number.isFinite(ax + ay + az + bx + by + bz)) {
      throw new InvalidValueError(
        `alignVectors: pair ${i} has a non-finite component: a (${ax}, ${ay}, ${az}), b (${bx}, ${by}, ${bz})`,
        { index: i },
      );
    }
    if (w === 0) continue;
    used++;
    only = i;
    total += w;
    b00 += w * ax * bx;
    b01 += w * ax * by;
    b02 += w * ax * bz;
    b10 += w * ay * bx;
    b11 += w * ay * by;
    b12 += w * ay * bz;
    b20 += w * az * bx;
    b21 += w * az * by;
    b22 += w * az * bz;
  }
  if (!(total > 0)) throw new InvalidValueError('alignVectors: every weight is zero');
  let degenerate = false;
  if (used === 1) {
    const i = only;
    fromUnitVectors(q, [b[3 * i], b[3 * i + 1], b[3 * i + 2]], [a[3 * i], a[3 * i + 1], a[3 * i + 2]]);
  } else {
    // Davenport's K for the active rotation C (a ≈ C·b), components x, y, z, w:
    // K = [[S − σI, z], [zᵀ, σ]], S = B + Bᵀ, σ = tr B, z = (B₂₁ − B₁₂, B₀₂ − B₂₀, B₁₀ − B₀₁).
    const sigma = b00 + b11 + b22;
    const zx = b21 - b12;
    const zy = b02 - b20;
    const zz = b10 - b01;
    K[0] = 2 * b00 - sigma;
    K[1] = b01 + b10;
    K[2] = b02 + b20;
    K[3] = zx;
    K[5] = 2 * b11 - sigma;
    K[6] = b12 + b21;
    K[7] = zy;
    K[10] = 2 * b22 - sigma;
    K[11] = zz;
    K[15] = sigma;
    symmetricEigen4(VALUES, VECTORS, K);
    const scale = Math.abs(VALUES[0]) + Math.abs(VALUES[3]);
    // The gap is the light pairs' share of the eigenvalue: about 1e-11 of the scale at a weight ratio of
    // 1e10, and rounding (a few ε of the scale) where the optimum really is not unique.
    degenerate = VALUES[0] - VALUES[1] <= 1e-13 * scale;
    const s = VECTORS[3] < 0 ? -1 : 1;
    let qx = s * VECTORS[0];
    let qy = s * VECTORS[1];
    let qz = s * VECTORS[2];
    let qw = s * VECTORS[3];
    if (!degenerate) {
      for (let iteration = 0; iteration < MAX_REFINEMENTS; iteration++) {
        if (!refine(qx, qy, qz, qw, a, b, weights, n)) break;
        // q ← exp(θ) ⊗ q, θ in STEP.
        const tx = STEP[0];
        const ty = STEP[1];
        const tz = STEP[2];
        const angle = Math.hypot(tx, ty, tz);
        const half = angle / 2;
        const k = angle > 0 ? Math.sin(half) / angle : 0.5;
        const ex = k * tx;
        const ey = k * ty;
        const ez = k * tz;
        const ew = Math.cos(half);
        const nx = ew * qx + ex * qw + ey * qz - ez * qy;
        const ny = ew * qy - ex * qz + ey * qw + ez * qx;
        const nz = ew * qz + ex * qy - ey * qx + ez * qw;
        const nw = ew * qw - ex * qx - ey * qy - ez * qz;
        const norm = Math.hypot(nx, ny, nz, nw);
        qx = nx / norm;
        qy = ny / norm;
        qz = nz / norm;
        qw = nw / norm;
        if (angle < 1e-17) break;
      }
    }
    const sign = qw < 0 ? -1 : 1;
    q[0] = sign * qx;
    q[1] = sign * qy;
    q[2] = sign * qz;
    q[3] = sign * qw;
  }
  // The residual from the residuals: R(q)·bᵢ with R from the (unit) eigenvector.
  const x = q[0];
  const y = q[1];
  const z = q[2];
  const w = q[3];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const wt = weights === null ? 1 : weights[i];
    if (wt === 0) continue;
    const vx = b[3 * i];
    const vy = b[3 * i + 1];
    const vz = b[3 * i + 2];
    const tx = 2 * (y * vz - z * vy);
    const ty = 2 * (z * vx - x * vz);
    const tz = 2 * (x * vy - y * vx);
    const dx = a[3 * i] - (vx + w * tx + (y * tz - z * ty));
    const dy = a[3 * i + 1] - (vy + w * ty + (z * tx - x * tz));
    const dz = a[3 * i + 2] - (vz + w * tz + (x * ty - y * tx));
    sum += wt * (dx * dx + dy * dy + dz * dz);
  }
  return { rotation: q, rssd: Math.sqrt(sum), degenerate };
}
