import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  checkOut,
  FINITE_NUMBER,
  frozenDefaults,
  type OptionSpec,
  OUT_ARRAY,
  oneOf,
  orNull,
  resolveOptions,
} from '../../options.js';
import { checkWeights } from './average-checks.js';

/** Per-channel circular mean (`'circular'`, C-lerp) or its smoothed variant (`'smoothed'`, SC-lerp). */
export type EulerAverageMethod = 'circular' | 'smoothed';

/** Options of {@link averageEuler}. */
export interface AverageEulerOptions {
  /** `'circular'` (default): atan2(Σ w̃ sin, Σ w̃ cos). `'smoothed'`: atan2(Σ w̃ sin, Σ w̃ cos + epsilon). */
  method?: EulerAverageMethod;
  /**
   * The constant added to the cosine sum by `'smoothed'` (weights are divided by their sum first, so it is
   * relative to a total weight of 1). Larger is smoother near the 0/0 point but biases the mean toward 0.
   * Default 0.05.
   */
  epsilon?: number;
  /** Where to write the 3 angles. Default: a new Float64Array(3). */
  out?: Float64Array | Float32Array | number[] | null;
}

/** Defaults of {@link AverageEulerOptions}. */
export const AVERAGE_EULER_DEFAULTS = frozenDefaults({
  method: 'circular' as EulerAverageMethod,
  epsilon: 0.05,
  out: null,
} satisfies Required<AverageEulerOptions>);

const AVERAGE_EULER_SPEC: OptionSpec = {
  method: oneOf(['circular', 'smoothed']),
  epsilon: FINITE_NUMBER,
  out: orNull(OUT_ARRAY),
};

/**
 * Weighted average of Euler-angle triples channel by channel, `angles` being n x 3 radians (any
 * order; each of the three channels is averaged on its own circle). Returns angles in [−π, π] (atan2).
 *
 * - `'circular'` (C-lerp): the circular mean `atan2(Σ w̃ᵢ sin αᵢ, Σ w̃ᵢ cos αᵢ)`; wrap-safe (170° and
 *   −170° average to 180°, not 0°), but it jumps by up to π where the cosine sum crosses zero with a
 *   vanishing sine sum (for two equal weights, when the angles become opposite).
 * - `'smoothed'` (SC-lerp): `atan2(Σ w̃ᵢ sin αᵢ, Σ w̃ᵢ cos αᵢ + ε)`; continuous at those points for ε > 0,
 *   at the price of a bias toward 0 that grows with ε (ε < 0 biases toward π).
 *
 * Weights default to equal, are divided by their sum (scaling never changes the result) and must be
 * finite with a non-zero sum; negative weights extrapolate on the circle. An average of Euler channels is
 * not a rotation average (the channels are not independent); use `averageQuaternions` for rotations and
 * this for quantities that really are separate angles (camera yaw/pitch/roll, joint angles).
 *
 * Source: Zhu Jiang, "Averaging Rotations" (2022; C-lerp and SC-lerp); the circular mean of directional
 * statistics.
 *
 * @throws {ShapeError} when `angles.length` is not a positive multiple of 3 or the weights do not match.
 * @throws {InvalidValueError} naming the index of a non-finite angle or weight; for a vanishing weight sum;
 *   for `'circular'` when a channel's mean direction vanishes exactly (e.g. 0 and π, equal weights).
 * @throws {OptionError} for an unknown method or a non-finite epsilon.
 * @example
 * const deg = Math.PI / 180;
 * averageEuler([170 * deg, 0, 0, -170 * deg, 0, 0]); // [π, 0, 0]
 */
export function averageEuler(
  angles: ArrayLike<number>,
  weights?: ArrayLike<number> | null,
  options?: AverageEulerOptions,
): Float64Array | Float32Array | number[] {
  const where = 'averageEuler';
  if (angles === null || typeof angles !== 'object' || typeof angles.length !== 'number')
    throw new ShapeError(`${where}: angles must be a flat array of n x 3 numbers`);
  if (angles.length === 0 || angles.length % 3 !== 0) {
    throw new ShapeError(
      `${where}: angles has ${angles.length} numbers, expected a positive multiple of 3 (n x 3)`,
    );
  }
  const n = angles.length / 3;
  options = resolveOptions(where, options, AVERAGE_EULER_DEFAULTS, AVERAGE_EULER_SPEC);
  const method = options?.method ?? AVERAGE_EULER_DEFAULTS.method;
  if (method !== 'circular' && method !== 'smoothed') {
    throw new OptionError(`${where}: unknown method '${String(method)}'; expected 'circular' or 'smoothed'`);
  }
  const epsilon = method === 'smoothed' ? (options?.epsilon ?? AVERAGE_EULER_DEFAULTS.epsilon) : 0;
  if (!Number.isFinite(epsilon)) throw new OptionError(`${where}: epsilon must be finite, got ${epsilon}`);
  const wsum = weights !== undefined && weights !== null ? checkWeights(weights, n, where) : n;
  for (let i = 0; i < angles.length; i++) {
    if (!Number.isFinite(angles[i])) {
      const index = Math.floor(i / 3);
      throw new InvalidValueError(`${where}: angle ${i % 3} of item ${index} is ${angles[i]}`, { index });
    }
  }
  const out = options?.out ?? new Float64Array(3);
  if (options?.out != null) checkOut(out, 3, where);
  for (let c = 0; c < 3; c++) {
    let s = 0;
    let co = 0;
    let wabs = 0;
    for (let i = 0; i < n; i++) {
      const k = (weights ? weights[i] : 1) / wsum;
      const a = angles[i * 3 + c];
      s += k * Math.sin(a);
      co += k * Math.cos(a);
      wabs += Math.abs(k);
    }
    co += epsilon;
    if (method === 'circular' && Math.hypot(s, co) <= 1e-15 * wabs) {
      throw new InvalidValueError(
        `${where}: channel ${c} has no mean direction (the weighted unit vectors cancel); use method 'smoothed'`,
      );
    }
    // atan2 returns (−π, π]; at exactly (0, 0) (only possible for 'smoothed') it gives 0
    out[c] = Math.atan2(s, co);
  }
  return out;
}
