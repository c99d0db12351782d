import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { symmetricEigen4 } from '../../numeric/eigen4.js';
import { fromUnitVectors } from '../../quat/vector.js';

/** Options of {@link alignVectors}. */
export interface AlignVectorsOptions {
  /** One non-negative finite weight per vector pair; null weighs every pair 1. */
  weights?: ArrayLike<number> | null;
  /** Receives the rotation (4 numbers, x, y, z, w); a new Float64Array when null. */
  out?: Float64Array | Float32Array | number[] | null;
}

/** Defaults of {@link alignVectors}. */
export const ALIGN_VECTORS_DEFAULTS: Required<AlignVectorsOptions> = {
  weights: null,
  out: null,
};

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
 * Vectors need not be unit: longer vectors weigh more, as in the least-squares loss.
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
 * @throws {InvalidValueError} when a vector or weight is not finite, a weight is negative, every weight is
 * zero, or a single pair has a zero vector.
 * @throws {OptionError} for an unknown option.
 */
export function alignVectors(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: AlignVectorsOptions = {},
): AlignedRotation {
  if (options === null || typeof options !== 'object')
    throw new OptionError('alignVectors: options must be an object');
  for (const arg of [a, b]) {
    if (arg === null || typeof arg !== 'object' || typeof arg.length !== 'number') {
      throw new ShapeError('alignVectors: a and b must be arrays of n x 3 numbers');
    }
  }
  for (const key of Object.keys(options)) {
    if (!(key in ALIGN_VECTORS_DEFAULTS)) {
      throw new OptionError(`alignVectors: unknown option '${key}' (options: weights, out)`);
    }
  }
  const { weights, out } = { ...ALIGN_VECTORS_DEFAULTS, ...options };
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
    if (!(w >= 0 && w < Number.POSITIVE_INFINITY)) {
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
    degenerate = VALUES[0] - VALUES[1] <= 1e-10 * scale;
    const s = VECTORS[3] < 0 ? -1 : 1;
    q[0] = s * VECTORS[0];
    q[1] = s * VECTORS[1];
    q[2] = s * VECTORS[2];
    q[3] = s * VECTORS[3];
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
