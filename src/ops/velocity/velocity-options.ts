// What the velocity operations share: their common options (defaults, rules, checks), the output series
// and the count it must have, and the sampling of the velocity at the requested times.
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { KERNEL_OPTION, NUMBER_LIST, type OptionSpec, oneOf } from '../../options.js';
import { assertVec3Series, createVec3Series } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import { isKernel, type Kernel, tent } from '../kernel/kernels.js';
import { assertFiniteRows } from '../kernel/tap-reach.js';
import { BOUNDARIES, type Boundary, sampleChannels } from '../kernel/tap-window.js';

/** The options every velocity operation takes. */
export interface VelocityOptions {
  /**
   * Kernel (in frames) that filters the mid-point finite differences, or that interpolates the signal for
   * `method: 'analytic'`. Default `kernels.tent` (at the frames: the mean of the two neighbouring differences).
   */
  kernel?: Kernel;
  /**
   * Where to evaluate when `times` is absent: `'frames'` (one output per input frame) or `'midpoints'` (one per
   * pair of frames, at `(f + ½)·dt`: with the default tent these are the plain finite differences).
   */
  at?: 'frames' | 'midpoints';
  /** Evaluation times in seconds from frame 0 (any order, fractional); overrides `at`. */
  times?: ArrayLike<number>;
  /**
   * `'finite-difference'`: differences at the mid-points, then filtered by `kernel` (smooth, robust; the
   * recommended velocity). `'analytic'`: the exact time derivative of the kernel interpolation of the signal
   * (needs `kernel.derivative`; shows the ripples of kernels whose weights do not sum to one).
   */
  method?: 'finite-difference' | 'analytic';
  /** Boundary rule of the filtering (see {@link Boundary}). */
  boundary?: Boundary;
}

/** The defaults of {@link VelocityOptions} (not frozen: each operation spreads them into its own). */
export const VELOCITY_DEFAULTS: Required<Omit<VelocityOptions, 'times'>> = {
  kernel: tent,
  at: 'frames',
  method: 'finite-difference',
  boundary: 'renormalize',
};

/** The option rules of {@link VelocityOptions}, in the order the operations list them. */
export const VELOCITY_SPEC: OptionSpec = {
  kernel: KERNEL_OPTION,
  at: oneOf(['frames', 'midpoints']),
  times: NUMBER_LIST,
  method: oneOf(['finite-difference', 'analytic']),
  boundary: oneOf(BOUNDARIES),
};

/**
 * Checks `dt` and the resolved {@link VelocityOptions} of the operation `where` and returns them with the
 * defaults filled in.
 *
 * @throws {InvalidValueError} when `dt` is not a positive finite number with a finite inverse.
 * @throws {OptionError} on a value out of range, or `'analytic'` with a kernel without derivative.
 * @example
 * const { kernel, at, method, boundary } = checkVelocityOptions('linearVelocity', 1 / 30, {});
 */
export function checkVelocityOptions(
  where: string,
  dt: number,
  options: VelocityOptions,
): Required<Omit<VelocityOptions, 'times'>> {
  if (typeof dt !== 'number' || !(dt > 0) || !Number.isFinite(dt) || !Number.isFinite(1 / dt)) {
    throw new InvalidValueError(
      `${where}: dt must be a positive finite number of seconds with a finite inverse, got ${dt}`,
    );
  }
  const kernel = options.kernel ?? VELOCITY_DEFAULTS.kernel;
  if (!isKernel(kernel)) throw new OptionError(`${where}: kernel must be a Kernel (see kernels)`);
  const at = options.at ?? VELOCITY_DEFAULTS.at;
  if (at !== 'frames' && at !== 'midpoints') {
    throw new OptionError(`${where}: at must be 'frames' or 'midpoints', got ${String(at)}`);
  }
  const method = options.method ?? VELOCITY_DEFAULTS.method;
  if (method !== 'finite-difference' && method !== 'analytic') {
    throw new OptionError(
      `${where}: method must be 'finite-difference' or 'analytic', got ${String(method)}`,
    );
  }
  const boundary = options.boundary ?? VELOCITY_DEFAULTS.boundary;
  if (!BOUNDARIES.includes(boundary)) {
    throw new OptionError(
      `${where}: boundary must be one of ${BOUNDARIES.join(', ')}, got ${String(boundary)}`,
    );
  }
  if (method === 'analytic' && typeof kernel.derivative !== 'function') {
    throw new OptionError(`${where}: method 'analytic' needs a kernel with a derivative (${kernel.name})`);
  }
  return { kernel, at, method, boundary };
}

/**
 * The output of a velocity operation on `frames x joints` samples: `out` checked to have the count the query
 * asks for, or a new series of it. The count is `times.length` when times are given (each checked finite),
 * else one per frame (`at: 'frames'`, or mid-points of a wrapping signal) or one per pair of frames.
 *
 * @throws {InvalidValueError} on a non-finite time. @throws {ShapeError} when `out` is not a Vec3Series of
 *   that count and `joints`.
 * @example
 * const out = velocityOutput('linearVelocity', 10, 2, undefined, 'midpoints', 'clamp'); // 9 x 2
 */
export function velocityOutput<T extends FloatArray = Float64Array>(
  where: string,
  frames: number,
  joints: number,
  times: ArrayLike<number> | undefined,
  at: string,
  boundary: Boundary,
  out?: Vec3Series<T>,
): Vec3Series<T> {
  if (times !== undefined) {
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]))
        throw new InvalidValueError(`${where}: times[${i}] is ${times[i]}`, { index: i });
    }
  }
  const count =
    times !== undefined
      ? times.length
      : at === 'frames'
        ? frames
        : boundary === 'wrap'
          ? frames
          : Math.max(0, frames - 1);
  if (out === undefined) return createVec3Series(count, joints) as Vec3Series<T>;
  assertVec3Series(out, `${where}: out`);
  if (out.frames !== count || out.joints !== joints) {
    throw new ShapeError(`${where}: out is ${out.frames} x ${out.joints}, expected ${count} x ${joints}`);
  }
  return out;
}

/**
 * Where output row `i` sits, in frames (`inMidpoints` false) or in mid-point indices (true: mid-point sample
 * `m` is at time `(m + ½)·dt`): at `times[i]` seconds when times are given, else at frame `i` or at the
 * mid-point after it.
 */
function centres(
  times: ArrayLike<number> | undefined,
  at: 'frames' | 'midpoints',
  dt: number,
  inMidpoints: boolean,
): (i: number) => number {
  if (times !== undefined) return inMidpoints ? (i) => times[i] / dt - 0.5 : (i) => times[i] / dt;
  if (at === 'frames') return inMidpoints ? (i) => i - 0.5 : (i) => i;
  return inMidpoints ? (i) => i : (i) => i + 0.5;
}

/**
 * Fills the `count x channels` velocities `dst` of a signal of `frames` (≥ 2) frames. `'analytic'`: calls
 * `analytic` with where each row sits in frames, then checks the rows are finite. Otherwise: has
 * `differences` write the mid-point finite differences (`samples x channels`; with `wrap`, one more, from
 * the last frame back to the first) and samples them with `kernel` at the rows.
 *
 * @throws {InvalidValueError} when an analytic velocity is not finite, or the errors of the sampling.
 * @example
 * // the velocity of one channel (0, 1, 4, 9 at 1 s per frame) at the frames, by filtered differences
 * const x = [0, 1, 4, 9];
 * const dst = new Float64Array(4);
 * const options = checkVelocityOptions('speed', 1, {});
 * fillVelocity('speed', dst, 4, 4, 1, options, undefined, 1, () => {}, (mid, samples) => {
 *   for (let m = 0; m < samples; m++) mid[m] = x[m + 1] - x[m];
 * });
 */
export function fillVelocity(
  where: string,
  dst: FloatArray,
  count: number,
  frames: number,
  channels: number,
  options: Required<Omit<VelocityOptions, 'times'>>,
  times: ArrayLike<number> | undefined,
  dt: number,
  analytic: (centreAt: (i: number) => number) => void,
  differences: (mid: Float64Array, samples: number) => void,
): void {
  const { kernel, at, boundary } = options;
  if (options.method === 'analytic') {
    analytic(centres(times, at, dt, false));
    assertFiniteRows(dst, count, channels, `${where}: the velocities`);
    return;
  }
  const samples = boundary === 'wrap' ? frames : frames - 1;
  const mid = new Float64Array(samples * channels);
  differences(mid, samples);
  sampleChannels(dst, mid, samples, channels, kernel, boundary, count, centres(times, at, dt, true));
}
