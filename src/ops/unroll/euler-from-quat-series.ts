import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  frozenDefaults,
  NUMBER_LIST,
  type OptionSpec,
  OUT_BUFFER,
  oneOf,
  resolveOptions,
} from '../../options.js';
import { decomposeEuler, type EulerOrder, type EulerSpec, eulerSpec } from '../../quat/euler.js';
import { assertQuatSeries } from '../../series/create.js';
import type { QuatSeries, Vec3Series } from '../../series/types.js';
import { checkInitial, eulerJointInfo, unrollEulerData } from './unroll-kernels.js';

/** Options of {@link eulerFromQuatSeries}. */
export interface EulerFromQuatSeriesOptions {
  /**
   * `'equivalent'` (default): continuous curves through the equivalent-triple filter of {@link unrollEuler};
   * `'wrap'`: per-channel 2π unwrap only; `'none'`: every frame in `quat.toEuler`'s principal range
   * (angles in (−π, π], middle angle in [−π/2, π/2] or [0, π]).
   */
  unroll?: 'equivalent' | 'wrap' | 'none';
  /**
   * Reference triple per joint (`joints x 3`, radians) choosing the 2π shell and branch of the first frame,
   * for example the first frame of the source curves, so a round trip returns multi-turn values as they were.
   * Without it the first frame is in the principal range. Ignored when `unroll` is `'none'`.
   */
  initial?: ArrayLike<number>;
  /** Where to write, `frames * joints * 3` values. Default: a new Float64Array. */
  out?: Float64Array;
}

/** Defaults of the optional fields of {@link EulerFromQuatSeriesOptions}. */
export const EULER_FROM_QUAT_SERIES_DEFAULTS = frozenDefaults({
  unroll: 'equivalent' as 'equivalent' | 'wrap' | 'none',
} as const);

const EULER_FROM_QUAT_SERIES_SPEC: OptionSpec = {
  unroll: oneOf(['equivalent', 'wrap', 'none']),
  initial: NUMBER_LIST,
  out: OUT_BUFFER,
};

/**
 * Converts a quaternion series to continuous Euler angle curves, joint by joint.
 *
 * Each quaternion goes through `quat.toEulerFlat` (SciPy-compatible principal values), then the curves are
 * unrolled as {@link unrollEuler} does: every frame takes the triple of its rotation closest to the previous
 * frame. Because the result follows the motion, quaternion → Euler → quaternion round trips keep multi-turn
 * intent: with `initial` set to the source's first frame, Euler curves that were continuous in the source
 * come back with their values beyond ±180° (pirouettes, wheels) as long as no frame steps more than 180° in
 * a channel. The sign of the quaternions does not matter.
 *
 * Output: a Vec3Series `frames x joints` of triples in radians, channels in the order the sequence names
 * them (`'ZYX'`: Z angle, Y angle, X angle), matching `quat.fromEuler`. `order` is one sequence for all
 * joints or one per joint (a BVH clip's `orders`).
 *
 * Edge cases: 0 frames or 0 joints give an empty series; 1 frame is only moved to `initial`'s shell and
 * branch. Exactly at gimbal lock `toEuler` puts the whole turn into one outer angle; the filter re-splits it
 * to follow the previous frame (see {@link unrollEuler}). Near the lock the outer angles lose precision
 * (about 1e-16 / cos b for Tait-Bryan), and so do the curves.
 *
 * Method: D. Holden, "Unrolling Rotations" (2024); the Euler filter of Blender and Maya.
 *
 * @throws {ShapeError} on a malformed series, `out` or `initial` of the wrong length.
 * @throws {OptionError} on an unknown sequence or unroll mode.
 * @throws {InvalidValueError} on a non-finite or zero quaternion, with `location.frame` and `location.joint`.
 * @example
 * const q = quatSeries(new Float64Array([0, 0, 1, 0, 0, 0, -0.99, 0.14]), 2, 1);
 * eulerFromQuatSeries(q, 'ZYX').data; // Z angle 180°, then about 196° instead of -164°
 */
export function eulerFromQuatSeries(
  series: QuatSeries,
  order: EulerOrder | readonly EulerOrder[],
  options: EulerFromQuatSeriesOptions = {},
): Vec3Series<Float64Array> {
  assertQuatSeries(series, 'eulerFromQuatSeries: series');
  options = resolveOptions(
    'eulerFromQuatSeries',
    options,
    EULER_FROM_QUAT_SERIES_DEFAULTS,
    EULER_FROM_QUAT_SERIES_SPEC,
  );
  const { frames, joints, data } = series;
  const unroll = options.unroll ?? EULER_FROM_QUAT_SERIES_DEFAULTS.unroll;
  if (unroll !== 'equivalent' && unroll !== 'wrap' && unroll !== 'none') {
    throw new OptionError(
      `eulerFromQuatSeries: unroll must be 'equivalent', 'wrap' or 'none', got ${String(unroll)}`,
    );
  }
  const info = eulerJointInfo(order, joints, 'eulerFromQuatSeries');
  const n = frames * joints * 3;
  const out = options.out ?? new Float64Array(n);
  if (out.length !== n)
    throw new ShapeError(`eulerFromQuatSeries: out has ${out.length} values, expected ${n}`);
  const initial = options.initial;
  checkInitial(initial, joints, 'eulerFromQuatSeries');
  if (initial !== undefined && initial !== null && initial.length !== joints * 3) {
    throw new ShapeError(`eulerFromQuatSeries: initial has ${initial.length} values, expected ${joints * 3}`);
  }
  // each joint's sequence resolved once (eulerJointInfo has checked the orders), not per rotation; filled
  // by push, which gives the array one map on every call (as in the BVH writer)
  const specs: EulerSpec[] = [];
  for (let j = 0; j < joints; j++) {
    specs.push(eulerSpec(typeof order === 'string' ? order : (order as readonly EulerOrder[])[j]));
  }
  for (let k = 0, f = 0; f < frames; f++) {
    for (let j = 0; j < joints; j++, k++) {
      const q = k * 4;
      const x = data[q];
      const y = data[q + 1];
      const z = data[q + 2];
      const w = data[q + 3];
      const norm2 = x * x + y * y + z * z + w * w;
      if (!(norm2 > 0 && norm2 < Infinity)) {
        throw new InvalidValueError(
          `eulerFromQuatSeries: ${norm2 === 0 ? 'zero' : 'non-finite'} quaternion (${x}, ${y}, ${z}, ${w}) at frame ${f}, joint ${j}`,
          { frame: f, joint: j },
        );
      }
      decomposeEuler(out, k * 3, data, q, specs[j]);
    }
  }
  if (unroll !== 'none') {
    unrollEulerData(out, out, joints, info, unroll === 'equivalent', initial ?? null, 'eulerFromQuatSeries');
  }
  return { data: out, frames, joints };
}
