// The pipeline's spline resampling: a resample step with `spline: true` draws C² splines through the
// keys (SciPy's RotationSpline for rotations, the cubic with the same end conditions for translations and
// scales) and samples them on the output grid, for smooth up-sampling of sparse keys.
import { OptionError } from '../errors.js';
import { detectLoop } from '../ops/analysis/loop.js';
import { type BakeDuration, bakeClip } from '../ops/keys/bake-clip.js';
import { keysFromClip } from '../ops/keys/keys-from-clip.js';
import { clipSourceRate } from '../ops/resample/resample-clip.js';
import type { DurationPolicy } from '../ops/resample/time-grid.js';
import type { Clip, KeyedClip } from '../series/clip.js';

/** What a spline resample step takes from the step: its rate, duration and loop mode. */
export interface SplineResampleStep {
  rate: number;
  duration?: DurationPolicy;
  loop?: 'auto' | 'on' | 'off';
}

/**
 * The bake duration of a spline resample: the step's own, `'loop'` read as `'keep-end'` (a loop's last
 * key is its first pose, so landing on it keeps the seam at 0; the rate moves to fit, as a loop
 * resample's does); without one, `'keep-end'` on a loop (`loop` not `'off'` and `isLoop`) and `'floor'`
 * otherwise (resampleClip's default).
 */
export function splineDuration(step: SplineResampleStep, isLoop: () => boolean): BakeDuration {
  if (step.duration === 'loop') return 'keep-end';
  if (step.duration !== undefined) return step.duration;
  return step.loop !== 'off' && (step.loop === 'on' || isLoop()) ? 'keep-end' : 'floor';
}

/**
 * Resamples a uniform clip on C² splines through its frames (each frame a key). Splines interpolate and
 * do not remove what a coarser grid cannot hold, so this is for up-sampling: a rate below the clip's own
 * is refused.
 *
 * @throws {OptionError} when `step.rate` is below the clip's rate.
 */
export function splineResampleClip(clip: Clip, step: SplineResampleStep): Clip {
  const source = clipSourceRate(clip);
  refuseDownsampling(step.rate, source);
  const duration = splineDuration(step, () => clip.frames >= 3 && detectLoop(clip).loop);
  return bakeClip(keysFromClip(clip), { rate: step.rate, curve: 'spline', duration });
}

/**
 * Resamples a keyed clip on C² splines through each track's own keys, at `step.rate` from its first key.
 *
 * @throws {OptionError} when `step.rate` is below the keys' own rate (`keyRate`).
 */
export function splineResampleKeyed(
  keyed: KeyedClip,
  keyRate: number,
  step: SplineResampleStep,
  isLoop: () => boolean,
): Clip {
  refuseDownsampling(step.rate, keyRate);
  return bakeClip(keyed, { rate: step.rate, curve: 'spline', duration: splineDuration(step, isLoop) });
}

function refuseDownsampling(rate: number, source: number): void {
  if (rate < source * (1 - 1e-9))
    throw new OptionError(
      `resample: spline interpolates through the keys and does not anti-alias, so it only up-samples: ${rate} Hz is below the keys' ${Number(source.toPrecision(8))} Hz (resample down without spline)`,
    );
}
