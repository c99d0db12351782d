import { InvalidValueError, OptionError } from '../../errors.js';
import {
  frozenDefaults,
  KERNEL_OPTION,
  NUMBER_LIST,
  type OptionSpec,
  OUT_SERIES,
  oneOf,
  resolveOptions,
} from '../../options.js';
import { assertFiniteSeries, assertVec3Series } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import { isKernel, type Kernel, tent } from '../kernel/kernels.js';
import { assertFiniteRows, foldCentre, mapFrame, usableRadius } from '../kernel/tap-reach.js';
import { BOUNDARIES, type Boundary, sampleChannels } from '../kernel/tap-window.js';
import { velocityOutput } from './velocity-output.js';

/** Options of {@link linearVelocity}; the same meaning as for {@link angularVelocity}. */
export interface LinearVelocityOptions<T extends FloatArray = FloatArray> {
  /** Kernel (frames) filtering the mid-point differences, or interpolating for `'analytic'`. Default tent. */
  kernel?: Kernel;
  /** `'frames'` (default) or `'midpoints'` (`(f + ½)·dt`), when `times` is absent. */
  at?: 'frames' | 'midpoints';
  /** Evaluation times in seconds from frame 0; overrides `at`. */
  times?: ArrayLike<number>;
  /** `'finite-difference'` (default) or `'analytic'` (derivative of the kernel interpolation). */
  method?: 'finite-difference' | 'analytic';
  /** Boundary rule of the filtering. */
  boundary?: Boundary;
  /** Receives the result. */
  out?: Vec3Series<T>;
}

/** Defaults of {@link LinearVelocityOptions}. */
export const LINEAR_VELOCITY_DEFAULTS: Required<Omit<LinearVelocityOptions, 'times' | 'out'>> =
  frozenDefaults({
    kernel: tent,
    at: 'frames',
    method: 'finite-difference',
    boundary: 'renormalize',
  });

const LINEAR_VELOCITY_SPEC: OptionSpec = {
  kernel: KERNEL_OPTION,
  at: oneOf(['frames', 'midpoints']),
  times: NUMBER_LIST,
  method: oneOf(['finite-difference', 'analytic']),
  boundary: oneOf(BOUNDARIES),
  out: OUT_SERIES,
};

/**
 * Linear velocity of vector channels (positions), in units per second, as a `Vec3Series`: differences of
 * consecutive frames over `dt`, placed at the mid-points `(f + ½)·dt`, then filtered with `kernel` and evaluated
 * at the frames, the mid-points or any `times` (the velocity counterpart of {@link filterVectors}). Constant
 * velocity comes back exactly for any kernel. `method: 'analytic'` instead differentiates the kernel
 * interpolation `x(t) = Σ wₖ(t)·xₖ / Σ wₖ(t)` (quotient rule, needs `kernel.derivative`).
 *
 * Edge cases: 0 frames give 0 rows, 1 frame zero velocity, 2 frames the single difference. With
 * `boundary: 'wrap'` the clip is a loop and the difference from the last frame to the first is added.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025), section Velocities.
 *
 * @throws {ShapeError}, {@link OptionError}, {@link InvalidValueError} (dt ≤ 0, non-finite input or times,
 *   zero weight sums), as {@link angularVelocity}.
 * @example
 * const v = linearVelocity(clip.translations, clip.frameTime, { kernel: kernels.gaussian(2) });
 */
export function linearVelocity<T extends FloatArray = Float64Array>(
  series: Vec3Series,
  dt: number,
  options: LinearVelocityOptions<T> = {},
): Vec3Series<T> {
  assertVec3Series(series, 'linearVelocity: series');
  options = resolveOptions('linearVelocity', options, LINEAR_VELOCITY_DEFAULTS, LINEAR_VELOCITY_SPEC);
  if (typeof dt !== 'number' || !(dt > 0) || !Number.isFinite(dt) || !Number.isFinite(1 / dt)) {
    throw new InvalidValueError(
      `linearVelocity: dt must be a positive finite number of seconds with a finite inverse, got ${dt}`,
    );
  }
  const kernel = options.kernel ?? LINEAR_VELOCITY_DEFAULTS.kernel;
  if (!isKernel(kernel)) throw new OptionError('linearVelocity: kernel must be a Kernel (see kernels)');
  const at = options.at ?? LINEAR_VELOCITY_DEFAULTS.at;
  if (at !== 'frames' && at !== 'midpoints') {
    throw new OptionError(`linearVelocity: at must be 'frames' or 'midpoints', got ${String(at)}`);
  }
  const method = options.method ?? LINEAR_VELOCITY_DEFAULTS.method;
  if (method !== 'finite-difference' && method !== 'analytic') {
    throw new OptionError(
      `linearVelocity: method must be 'finite-difference' or 'analytic', got ${String(method)}`,
    );
  }
  if (method === 'analytic' && typeof kernel.derivative !== 'function') {
    throw new OptionError(
      `linearVelocity: method 'analytic' needs a kernel with a derivative (${kernel.name})`,
    );
  }
  const boundary = options.boundary ?? LINEAR_VELOCITY_DEFAULTS.boundary;
  if (!BOUNDARIES.includes(boundary)) {
    throw new OptionError(
      `linearVelocity: boundary must be one of ${BOUNDARIES.join(', ')}, got ${String(boundary)}`,
    );
  }
  const { frames, joints } = series;
  const times = options.times;
  const out = velocityOutput('linearVelocity', frames, joints, times, at, boundary, options.out);
  const count = out.frames;
  if (options.out !== undefined) {
    if (out.data.buffer === series.data.buffer && count * joints > 0) {
      throw new OptionError('linearVelocity: out must not share the input buffer');
    }
  }
  if (count === 0 || joints === 0) return out;
  assertFiniteSeries(series.data, joints, 3, 'linearVelocity: series');
  if (frames < 2) {
    out.data.fill(0);
    return out;
  }
  const channels = joints * 3;
  const src = series.data;
  if (method === 'analytic') {
    const centreAt =
      times !== undefined
        ? (i: number) => times[i] / dt
        : at === 'frames'
          ? (i: number) => i
          : (i: number) => i + 0.5;
    analyticLinear(out.data, src, frames, channels, kernel, boundary, count, centreAt, dt);
    assertFiniteRows(out.data, count, channels, 'linearVelocity: the velocities');
    return out;
  }
  // a looping clip ('wrap') has one more difference: from the last frame back to the first
  const nMid = boundary === 'wrap' ? frames : frames - 1;
  const mid = new Float64Array(nMid * channels);
  const inv = 1 / dt;
  for (let m = 0; m < nMid; m++) {
    const a = m * channels;
    const b = m + 1 === frames ? 0 : a + channels;
    for (let c = 0; c < channels; c++) mid[a + c] = (src[b + c] - src[a + c]) * inv;
  }
  const centreAt =
    times !== undefined
      ? (i: number) => times[i] / dt - 0.5
      : at === 'frames'
        ? (i: number) => i - 0.5
        : (i: number) => i;
  sampleChannels(out.data, mid, nMid, channels, kernel, boundary, count, centreAt);
  return out;
}

function analyticLinear(
  dst: FloatArray,
  src: FloatArray,
  frames: number,
  channels: number,
  kernel: Kernel,
  boundary: Boundary,
  count: number,
  centreAt: (i: number) => number,
  dt: number,
): void {
  const derivative = kernel.derivative!;
  const radius = usableRadius(kernel.radius, frames);
  const acc = new Float64Array(2 * channels);
  for (let i = 0; i < count; i++) {
    const c = foldCentre(centreAt(i), frames, radius, boundary);
    acc.fill(0);
    let W = 0;
    let Wd = 0;
    let absW = 0;
    for (let k = Math.ceil(c - radius); k <= Math.floor(c + radius); k++) {
      const f = mapFrame(k, frames, boundary);
      if (f < 0) continue;
      const w = kernel.evaluate(c - k);
      const wd = derivative.call(kernel, c - k);
      W += w;
      Wd += wd;
      absW += Math.abs(w);
      const o = f * channels;
      for (let ch = 0; ch < channels; ch++) {
        acc[ch] += w * src[o + ch];
        acc[channels + ch] += wd * src[o + ch];
      }
    }
    if (!(Math.abs(W) > 1e-12 * absW)) {
      throw new InvalidValueError(`linearVelocity: the kernel weights at time ${c * dt} s sum to zero`, {
        frame: Math.max(0, Math.min(frames - 1, Math.round(c))),
      });
    }
    const g = 1 / (W * W * dt);
    for (let ch = 0; ch < channels; ch++)
      dst[i * channels + ch] = (acc[channels + ch] * W - acc[ch] * Wd) * g;
  }
}
