import { InvalidValueError, OptionError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_SERIES, resolveOptions } from '../../options.js';
import { assertFiniteSeries, assertVec3Series } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import type { Kernel } from '../kernel/kernels.js';
import { foldCentre, mapFrame, usableRadius } from '../kernel/tap-reach.js';
import type { Boundary } from '../kernel/tap-window.js';
import {
  checkVelocityOptions,
  fillVelocity,
  VELOCITY_DEFAULTS,
  VELOCITY_SPEC,
  type VelocityOptions,
  velocityOutput,
} from './velocity-options.js';

/**
 * Options of {@link linearVelocity}: the shared velocity options (kernel, at, times, method, boundary), as for
 * {@link angularVelocity}.
 */
export interface LinearVelocityOptions<T extends FloatArray = FloatArray> extends VelocityOptions {
  /** Receives the result. */
  out?: Vec3Series<T>;
}

/** Defaults of {@link LinearVelocityOptions}. */
export const LINEAR_VELOCITY_DEFAULTS: Required<Omit<LinearVelocityOptions, 'times' | 'out'>> =
  frozenDefaults({ ...VELOCITY_DEFAULTS });

const LINEAR_VELOCITY_SPEC: OptionSpec = { ...VELOCITY_SPEC, out: OUT_SERIES };

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
  const resolved = checkVelocityOptions('linearVelocity', dt, options);
  const { kernel, at, boundary } = resolved;
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
  fillVelocity(
    'linearVelocity',
    out.data,
    count,
    frames,
    channels,
    resolved,
    times,
    dt,
    (centreAt) => analyticLinear(out.data, src, frames, channels, kernel, boundary, count, centreAt, dt),
    (mid, samples) => {
      const inv = 1 / dt;
      for (let m = 0; m < samples; m++) {
        const a = m * channels;
        const b = m + 1 === frames ? 0 : a + channels;
        for (let c = 0; c < channels; c++) mid[a + c] = (src[b + c] - src[a + c]) * inv;
      }
    },
  );
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
