import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { createEigen4Diagnostics, type Eigen4Diagnostics, type Eigen4Options } from '../../numeric/eigen4.js';
import { averageAt } from '../../numeric/eigen4-average.js';
import {
  checkOptions,
  checkOut,
  frozenDefaults,
  integerIn,
  NON_NEGATIVE_NUMBER,
  NUMBER_LIST,
  OBJECT_OPTION,
  type OptionSpec,
  OUT_ARRAY,
  oneOf,
  orNull,
} from '../../options.js';
import { expFlat, logFlat } from '../../quat/index.js';
import { multiplyRaw } from '../../quat/raw.js';
import type { QuatLike, QuatOut } from '../../quat/types.js';
import { checkQuats, checkWeights, writeCanonical } from './average-checks.js';

/** The averaging methods of {@link averageQuaternions}. */
export type AverageMethod = 'eigen' | 'flip' | 'nlerp' | 'raw' | 'log' | 'geodesic';

/** The methods in the order the studio lists them. */
export const AVERAGE_METHODS: readonly AverageMethod[] = ['eigen', 'flip', 'nlerp', 'raw', 'log', 'geodesic'];

/**
 * What {@link averageQuaternions} reports when given a diagnostics object. The eigen fields (`method`,
 * `iterations`, `lambda1`, `gap`, `ambiguous`) are written by `'eigen'` and `'geodesic'` only (λ₁ and the
 * gap of the weight-normalised M, so `1 − λ₁` is the mean cost); other methods reset the geodesic fields.
 */
export interface AverageDiagnostics extends Eigen4Diagnostics {
  /** Iterations of the `'geodesic'` refinement (0 for other methods). */
  geodesicIterations: number;
  /** False when `'geodesic'` stopped at `maxIterations` before its step fell below `tolerance`. */
  converged: boolean;
}

/** Creates a reusable diagnostics object for {@link averageQuaternions}. */
export function createAverageDiagnostics(): AverageDiagnostics {
  return { ...createEigen4Diagnostics(), geodesicIterations: 0, converged: true };
}

/** Options of {@link averageQuaternions}. */
export interface AverageQuaternionsOptions {
  /**
   * - `'eigen'` (default): the rotation minimising Σ wᵢ sin²(θᵢ/2), the dominant eigenvector of
   *   M = Σ wᵢ qᵢ qᵢᵀ (chordal L2 mean). Order-independent, sign-independent, continuous except at ties.
   * - `'flip'`: running sum, each input flipped to the running sum's hemisphere (order-dependent; what many
   *   engines do).
   * - `'nlerp'`: every input flipped to the hemisphere of `reference` (default: the first input), summed,
   *   normalised. Equals Holden's reference-relative raw average.
   * - `'raw'`: Σ wᵢ qᵢ of the components as stored, normalised; no hemisphere handling (q and −q differ!).
   * - `'log'`: ref ⊗ exp(Σ wᵢ log(ref⁻¹ qᵢ)) about `reference` (default: the first input).
   * - `'geodesic'`: the Karcher mean (minimises Σ wᵢ θᵢ²), Gauss–Newton iteration from the eigen average.
   */
  method?: AverageMethod;
  /** Reference rotation of `'nlerp'` and `'log'` (4 numbers, normalised first). Default: the first input. */
  reference?: QuatLike | null;
  /** Where to write the result (4 numbers). Default: a new Float64Array(4). */
  out?: QuatOut | null;
  /** Receives the eigen solve's report (ties, gap) and the geodesic iteration count. */
  diagnostics?: AverageDiagnostics | null;
  /** Iteration cap of `'geodesic'`. Default 100. */
  maxIterations?: number;
  /** `'geodesic'` stops when its update rotation is below this angle in radians. Default 1e-14. */
  tolerance?: number;
  /** Tuning of the eigen solve. */
  eigen?: Eigen4Options;
}

/** Defaults of {@link AverageQuaternionsOptions}. */
export const AVERAGE_QUATERNIONS_DEFAULTS = frozenDefaults({
  method: 'eigen' as AverageMethod,
  reference: null,
  out: null,
  diagnostics: null,
  maxIterations: 100,
  tolerance: 1e-14,
  eigen: {} as Eigen4Options,
} satisfies Required<AverageQuaternionsOptions>);

const AVERAGE_QUATERNIONS_SPEC: OptionSpec = {
  method: oneOf(AVERAGE_METHODS),
  reference: orNull(NUMBER_LIST),
  out: orNull(OUT_ARRAY),
  diagnostics: orNull(OBJECT_OPTION),
  maxIterations: integerIn(0),
  tolerance: NON_NEGATIVE_NUMBER,
  eigen: OBJECT_OPTION,
};

const tmp4 = new Float64Array(4);
const tmp4b = new Float64Array(4);
const ref4 = new Float64Array(4);
const log3 = new Float64Array(3);

/**
 * Weighted average of rotations, `quats` being n x 4 (x, y, z, w) in one flat array.
 *
 * Which method when: `'eigen'` (default) when the rotations are absolute or spread out and you want a
 * result that does not depend on their order, signs or a reference; `'nlerp'`/`'log'` about a meaningful
 * reference (a rest pose) when speed matters and the inputs stay within about 90° of it; `'geodesic'`
 * for the Riemannian (angle-squared) mean; `'flip'` and `'raw'` only to compare with engines that use
 * them (both jump when an input crosses the hemisphere boundary).
 *
 * Weights: default all equal; any finite reals, divided by their sum first, so scaling all weights by any
 * non-zero constant never changes the result, and a zero sum is an error. Negative weights extrapolate:
 * `'eigen'` through M (the result moves past the positively weighted inputs, away from the negative ones,
 * along the great circle for two inputs); `'nlerp'`, `'raw'`, `'flip'` linearly in quaternion space;
 * `'log'` linearly in the tangent space of the reference; `'geodesic'` iterates the same affine tangent
 * combination (no optimality claim). Inputs need not be unit: each is normalised first (its length never
 * acts as a weight). The result is unit, in the w ≥ 0 hemisphere.
 *
 * Cost: O(n) for all methods; `'eigen'` adds a 4x4 eigen solve (about 0.2 µs), `'geodesic'` a few
 * passes of log/exp.
 *
 * Sources: Markley et al., "Averaging Quaternions" (JGCD 2007); Daniel Holden, "Quaternion Weighted
 * Average" (2023, the flip, raw, log and reference-relative variants); Hartley et al., "Rotation
 * Averaging" (IJCV 2013, the geodesic L2 mean).
 *
 * @param quats - n x 4 flat array, n ≥ 1 (Float64Array, Float32Array or number[]).
 * @param weights - n weights; default equal.
 * @param options - {@link AverageQuaternionsOptions}.
 * @returns the average, in `options.out` when given.
 * @throws {ShapeError} when `quats.length` is not a positive multiple of 4 or the weights do not match.
 * @throws {InvalidValueError} naming the index of a non-finite or zero quaternion or a non-finite weight;
 *   for all-zero weights, weights summing to zero, or a vanishing sum in `'flip'`/`'nlerp'`/`'raw'`.
 * @throws {OptionError} for an unknown method.
 * @example
 * const q = averageQuaternions([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]);
 * // 45° about z: [0, 0, 0.3827, 0.9239]
 */
export function averageQuaternions(
  quats: QuatLike,
  weights?: ArrayLike<number> | null,
  options?: AverageQuaternionsOptions,
): QuatOut {
  const where = 'averageQuaternions';
  if (quats === null || typeof quats !== 'object' || typeof quats.length !== 'number') {
    throw new ShapeError(`${where}: quats must be a flat array of n x 4 numbers`);
  }
  if (quats.length === 0 || quats.length % 4 !== 0) {
    throw new ShapeError(
      `${where}: quats has ${quats.length} numbers, expected a positive multiple of 4 (n x 4, x y z w)`,
    );
  }
  const n = quats.length >> 2;
  // every read below is `options?.x ?? DEFAULTS.x`: checked, not copied (this runs per small set)
  options = checkOptions(where, options, AVERAGE_QUATERNIONS_SPEC);
  const method = options?.method ?? AVERAGE_QUATERNIONS_DEFAULTS.method;
  const out = options?.out ?? new Float64Array(4);
  if (options?.out != null) checkOut(out, 4, where);
  const diag = options?.diagnostics ?? undefined;
  const w = weights ?? null;
  if (diag !== undefined) {
    if (typeof diag !== 'object') throw new OptionError(`${where}: diagnostics must be an object`);
    diag.geodesicIterations = 0;
    diag.converged = true;
  }
  if (method === 'eigen') {
    // the kernel checks values and weights itself (naming the index), so the fast path reads the data once
    if (w !== null && w.length !== n)
      throw new ShapeError(`${where}: ${w.length} weights for ${n} quaternions`);
    averageAt(where, out, 0, quats, null, 0, 4, w ?? ones(n), n, undefined, diag, null, 0, options?.eigen);
    return out;
  }
  // the other methods live in their own function so that this entry stays small enough to inline the kernel
  return averageOther(quats, n, w, method, out, diag, options);
}

function averageOther(
  quats: QuatLike,
  n: number,
  w: ArrayLike<number> | null,
  method: AverageMethod,
  out: QuatOut,
  diag: AverageDiagnostics | undefined,
  options: AverageQuaternionsOptions | undefined,
): QuatOut {
  const where = 'averageQuaternions';
  checkQuats(quats, n, where);
  const wsum = w !== null ? checkWeights(w, n, where) : n;

  switch (method) {
    case 'geodesic': {
      averageAt(where, out, 0, quats, null, 0, 4, w ?? ones(n), n, undefined, diag, null, 0, options?.eigen);
      geodesicRefine(out, quats, w, wsum, n, options, diag);
      return out;
    }
    case 'flip':
    case 'raw':
    case 'nlerp': {
      let rx = 0;
      let ry = 0;
      let rz = 0;
      let rw = 0;
      if (method === 'nlerp') {
        loadReference(options?.reference, quats);
        rx = ref4[0];
        ry = ref4[1];
        rz = ref4[2];
        rw = ref4[3];
      }
      let ax = 0;
      let ay = 0;
      let az = 0;
      let aw = 0;
      let wabs = 0;
      for (let i = 0; i < n; i++) {
        const o = i * 4;
        const x = quats[o];
        const y = quats[o + 1];
        const z = quats[o + 2];
        const qw = quats[o + 3];
        let k = (w === null ? 1 : w[i]) / (wsum * Math.sqrt(x * x + y * y + z * z + qw * qw));
        wabs += Math.abs(k);
        if (method === 'flip') {
          if (ax * x + ay * y + az * z + aw * qw < 0) k = -k;
        } else if (method === 'nlerp') {
          if (rx * x + ry * y + rz * z + rw * qw < 0) k = -k;
        }
        ax += k * x;
        ay += k * y;
        az += k * z;
        aw += k * qw;
      }
      const len = Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);
      if (!(len > 1e-12 * wabs)) {
        throw new InvalidValueError(
          `${where}: the weighted sum of the '${method}' method vanishes (inputs cancel, e.g. q and -q with equal weights); use method 'eigen'`,
        );
      }
      writeCanonical(out, 0, ax, ay, az, aw);
      return out;
    }
    case 'log': {
      loadReference(options?.reference, quats);
      let vx = 0;
      let vy = 0;
      let vz = 0;
      // conjugate of the reference, reused for every input
      tmp4b[0] = -ref4[0];
      tmp4b[1] = -ref4[1];
      tmp4b[2] = -ref4[2];
      tmp4b[3] = ref4[3];
      for (let i = 0; i < n; i++) {
        multiplyRaw(tmp4, 0, tmp4b, 0, quats, i * 4);
        logFlat(log3, 0, tmp4, 0); // the norm of tmp4 is ignored by log
        const k = (w === null ? 1 : w[i]) / wsum;
        vx += k * log3[0];
        vy += k * log3[1];
        vz += k * log3[2];
      }
      log3[0] = vx;
      log3[1] = vy;
      log3[2] = vz;
      expFlat(tmp4, 0, log3, 0);
      multiplyRaw(tmp4, 0, ref4, 0, tmp4, 0);
      writeCanonical(out, 0, tmp4[0], tmp4[1], tmp4[2], tmp4[3]);
      return out;
    }
    default:
      throw new OptionError(
        `${where}: unknown method '${String(method)}'; expected one of ${AVERAGE_METHODS.join(', ')}`,
      );
  }
}

let onesCache = new Float64Array(0);
function ones(n: number): Float64Array {
  if (onesCache.length < n) onesCache = new Float64Array(Math.max(n, 2 * onesCache.length)).fill(1);
  return onesCache;
}

/** Loads the normalised reference (or the first input) into `ref4`. */
function loadReference(reference: QuatLike | null | undefined, quats: QuatLike): void {
  const r = reference ?? quats;
  if (r.length < 4) throw new ShapeError('averageQuaternions: reference must have 4 numbers (x, y, z, w)');
  const x = r[0];
  const y = r[1];
  const z = r[2];
  const w = r[3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 0) || !Number.isFinite(n2)) {
    throw new InvalidValueError(
      `averageQuaternions: reference (${x}, ${y}, ${z}, ${w}) is zero or not finite`,
    );
  }
  const s = 1 / Math.sqrt(n2);
  ref4[0] = x * s;
  ref4[1] = y * s;
  ref4[2] = z * s;
  ref4[3] = w * s;
}

/**
 * Karcher-mean iteration m ← m ⊗ exp(Σ w̃ᵢ log(m⁻¹ qᵢ)) from the eigen average already in `out`.
 * Each log takes the shortest representative, so the step is the Riemannian gradient of Σ wᵢ θᵢ² / 2.
 */
function geodesicRefine(
  out: QuatOut,
  quats: QuatLike,
  w: ArrayLike<number> | null,
  wsum: number,
  n: number,
  options: AverageQuaternionsOptions | undefined,
  diag: AverageDiagnostics | undefined,
): void {
  const maxIter = options?.maxIterations ?? AVERAGE_QUATERNIONS_DEFAULTS.maxIterations;
  const tol = options?.tolerance ?? AVERAGE_QUATERNIONS_DEFAULTS.tolerance;
  if (!(maxIter >= 0))
    throw new OptionError(`averageQuaternions: maxIterations must be >= 0, got ${maxIter}`);
  ref4[0] = out[0];
  ref4[1] = out[1];
  ref4[2] = out[2];
  ref4[3] = out[3];
  let iterations = 0;
  let converged = false;
  while (iterations < maxIter) {
    iterations++;
    tmp4b[0] = -ref4[0];
    tmp4b[1] = -ref4[1];
    tmp4b[2] = -ref4[2];
    tmp4b[3] = ref4[3];
    let vx = 0;
    let vy = 0;
    let vz = 0;
    for (let i = 0; i < n; i++) {
      multiplyRaw(tmp4, 0, tmp4b, 0, quats, i * 4);
      logFlat(log3, 0, tmp4, 0);
      const k = (w === null ? 1 : w[i]) / wsum;
      vx += k * log3[0];
      vy += k * log3[1];
      vz += k * log3[2];
    }
    log3[0] = vx;
    log3[1] = vy;
    log3[2] = vz;
    expFlat(tmp4, 0, log3, 0);
    multiplyRaw(ref4, 0, ref4, 0, tmp4, 0);
    // the log is a half-angle vector: the update rotates by 2|v|
    if (2 * Math.sqrt(vx * vx + vy * vy + vz * vz) <= tol) {
      converged = true;
      break;
    }
  }
  writeCanonical(out, 0, ref4[0], ref4[1], ref4[2], ref4[3]);
  if (diag !== undefined) {
    diag.geodesicIterations = iterations;
    diag.converged = converged;
  }
}
