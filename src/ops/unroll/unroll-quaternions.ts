import { OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_SERIES, oneOf, resolveOptions } from '../../options.js';
import { assertQuatSeries } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { unrollQuaternionData } from './unroll-kernels.js';

/** Options of {@link unrollQuaternions}. */
export interface UnrollQuaternionsOptions<T extends FloatArray = FloatArray> {
  /**
   * Sign policy of the first frame of every joint: `'hemisphere'` puts it in the `w >= 0` hemisphere
   * (the short way round from identity); `'keep'` leaves its sign as given, for example when the series
   * continues a chunk that was already unrolled.
   */
  first?: 'hemisphere' | 'keep';
  /**
   * Where to write (same shape as `series`, Float64 or Float32); `series` is then left alone. Default: in
   * place, `series` itself.
   */
  out?: QuatSeries<T>;
}

/** Defaults of {@link UnrollQuaternionsOptions}. */
export const UNROLL_QUATERNIONS_DEFAULTS: Required<Omit<UnrollQuaternionsOptions, 'out'>> = frozenDefaults({
  first: 'hemisphere',
});

const UNROLL_QUATERNIONS_SPEC: OptionSpec = { first: oneOf(['hemisphere', 'keep']), out: OUT_SERIES };

/**
 * Removes quaternion sign flips: for every joint, chooses the sign of each frame's quaternion that is
 * closest to the previous frame (`dot(q[f], q[f-1]) >= 0`), starting from the `w >= 0` hemisphere.
 *
 * `q` and `-q` are the same rotation, so the result represents exactly the same rotations, but
 * consecutive quaternions are now on the same hemisphere: interpolation takes the short way and finite
 * differences (velocities) no longer spike. Quaternions are not normalised; only signs change (a dot of
 * exactly 0 keeps the sign). A rotation that keeps turning (a wheel) gives a quaternion curve that goes
 * up and comes back down every 720 degrees: quaternions double-cover rotations, so they record turns
 * modulo 720 degrees, not without bound (compare {@link unrollEuler}).
 *
 * In place when `options.out` is omitted or is `series`; otherwise `out` (same shape, Float64 or Float32) receives
 * the result and `series` is left alone. One linear pass over the frame-major data, no allocation.
 *
 * Edge cases: 0 frames or 0 joints return at once; 1 frame only applies the first-frame policy.
 *
 * Method: D. Holden, "Unrolling Rotations" (2024), `quat_unroll_inplace`.
 *
 * @throws {ShapeError} when `series` or `out` is malformed or their shapes differ.
 * @throws {InvalidValueError} on a non-finite component, with `location.frame` and `location.joint`
 *   (checked for free from the same dot products; `out` may be partly written by then).
 * @example
 * const s = quatSeries(new Float64Array([0, 0, 0, 1, 0, 0, -0.1, -0.995]), 2, 1);
 * unrollQuaternions(s); // second quaternion becomes (0, 0, 0.1, 0.995)
 */
export function unrollQuaternions<T extends FloatArray = FloatArray>(
  series: QuatSeries,
  options: UnrollQuaternionsOptions<T> = {},
): QuatSeries<T> {
  assertQuatSeries(series, 'unrollQuaternions: series');
  options = resolveOptions(
    'unrollQuaternions',
    options,
    UNROLL_QUATERNIONS_DEFAULTS,
    UNROLL_QUATERNIONS_SPEC,
  );
  const out = options.out;
  const target = (out ?? series) as QuatSeries<T>;
  if (out !== undefined && out !== series) {
    assertQuatSeries(out, 'unrollQuaternions: out');
    if (out.frames !== series.frames || out.joints !== series.joints) {
      throw new ShapeError(
        `unrollQuaternions: out is ${out.frames} x ${out.joints}, series is ${series.frames} x ${series.joints}`,
      );
    }
  }
  const first = options.first ?? UNROLL_QUATERNIONS_DEFAULTS.first;
  if (first !== 'hemisphere' && first !== 'keep') {
    throw new OptionError(`unrollQuaternions: first must be 'hemisphere' or 'keep', got ${String(first)}`);
  }
  unrollQuaternionData(series.data, target.data, series.joints, first === 'hemisphere');
  return target;
}
