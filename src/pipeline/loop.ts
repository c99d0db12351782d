// Looping clips in the pipeline: when a smooth or resample step wraps round the clip's ends, and the
// open clip (without its repeated first pose) it then runs on.
import { OptionError } from '../errors.js';
import { detectLoop, LOOP_MODES, type LoopMode } from '../ops/analysis/loop.js';
import type { SegmentPolicy } from '../ops/analysis/segments.js';
import type { Boundary } from '../ops/kernel/tap-window.js';
import type { Clip } from '../series/clip.js';
import type { ClipStep, StepReport } from './steps.js';

/** How a step meets a clip's ends: its boundary, its jump split, and whether it runs on the open loop. */
export interface LoopPlan {
  boundary: Boundary;
  segments: SegmentPolicy;
  /**
   * True when the step wraps round a clip whose last pose repeats its first (`detectLoop`): it runs on the
   * clip without its last frame (one period) and the result is closed with a copy of its first frame, so
   * the seam is 0 and the duration is kept.
   */
  closed: boolean;
}

/**
 * The boundary, jump split and loop handling of a smooth or resample step. `loop` (default `'auto'`)
 * decides the default boundary: `'wrap'` for a clip `detectLoop` calls a loop (`'auto'`) or always
 * (`'on'`), `fallback` otherwise (`'off'`). An explicit `boundary` always holds. `segments` defaults to
 * `'jumps'` except where the step wraps: a jump split does not override the wrap (given both, both
 * hold: the library splits at jumps and wraps the clip's ends). A wrapping step on a clip whose ends agree
 * runs on the open loop (`closed`).
 *
 * @throws {OptionError} on an unknown loop mode.
 */
export function planLoop(
  clip: Clip,
  step: { loop?: LoopMode; boundary?: Boundary; segments?: SegmentPolicy },
  fallback: Boundary,
): LoopPlan {
  const mode = step.loop ?? 'auto';
  if (!LOOP_MODES.includes(mode))
    throw new OptionError(`loop must be one of ${LOOP_MODES.join(', ')}, got ${String(mode)}`);
  // ends that agree: only asked of the clip when a wrap can follow (loop not 'off', or an explicit wrap)
  const asks = mode !== 'off' || step.boundary === 'wrap';
  const ends = asks && clip.frames >= 3 && detectLoop(clip).loop;
  const boundary = step.boundary ?? (mode === 'on' || (mode === 'auto' && ends) ? 'wrap' : fallback);
  const wrap = boundary === 'wrap';
  return {
    boundary,
    segments: step.segments ?? (wrap ? 'none' : 'jumps'),
    closed: wrap && ends,
  };
}

/**
 * The clip without its last frame: one period of a loop whose last frame repeats its first. Its arrays
 * are views of the clip's (no copy): a step that writes into its input (`input: 'reuse'`) writes into
 * the clip's frames, which only the pipeline's own clips allow.
 */
export function openLoop(clip: Clip): Clip {
  return firstFrames(clip, clip.frames - 1);
}

/** A periodic clip with its first frame repeated at the end: the loop closed, its seam 0. */
export function closeLoop(clip: Clip): Clip {
  const n = clip.frames;
  const J = clip.skeleton.names.length;
  const grow = (data: Float64Array | Float32Array, w: number) => {
    const out = new Float64Array((n + 1) * J * w);
    out.set(data.subarray(0, n * J * w));
    out.set(data.subarray(0, J * w), n * J * w);
    return out;
  };
  return {
    ...clip,
    frames: n + 1,
    rotations: { data: grow(clip.rotations.data, 4), frames: n + 1, joints: J },
    translations: { data: grow(clip.translations.data, 3), frames: n + 1, joints: J },
    ...(clip.scales ? { scales: { data: grow(clip.scales.data, 3), frames: n + 1, joints: J } } : {}),
  };
}

/**
 * An `onStep` callback that adds a warning (code `'rate-adjusted'`) to `warnings` for each resample step
 * whose output rate is not the one asked for: a loop resampled round its seam (or `duration: 'keep-end'`)
 * fits a whole number of frames into its period, so the rate moves (30 Hz on the Fox's 0.7083 s Walk:
 * 29.647 Hz). `label` names the animation in the message.
 */
export function rateAdjustedNotes(
  steps: readonly ClipStep[],
  warnings: { message: string; code?: string }[],
  label = '',
): (report: StepReport) => void {
  let index = 0;
  return (report) => {
    const step = steps[index++];
    if (step?.op !== 'resample' || report.op !== 'resample') return;
    if (Math.abs(report.rate - step.rate) <= 1e-9 * step.rate) return;
    const why =
      step.duration === 'keep-end'
        ? 'so that the last frame lands on the clip end (--duration keep-end)'
        : 'so that the loop period holds a whole number of frames (--loop; --loop off keeps the rate)';
    warnings.push({
      code: 'rate-adjusted',
      message: `${label}resampled at ${Number(report.rate.toPrecision(8))} Hz, not the requested ${step.rate} Hz, ${why}`,
    });
  };
}

/** Frames of `a` then frames of `b` (same skeleton), for a loop resampled over two periods. */
export function concatFrames(a: Clip, b: Clip): Clip {
  const n = a.frames + b.frames;
  const J = a.skeleton.names.length;
  const join = (x: Float64Array | Float32Array, y: Float64Array | Float32Array) => {
    const out = new Float64Array(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    ...a,
    frames: n,
    rotations: { data: join(a.rotations.data, b.rotations.data), frames: n, joints: J },
    translations: { data: join(a.translations.data, b.translations.data), frames: n, joints: J },
    ...(a.scales && b.scales
      ? { scales: { data: join(a.scales.data, b.scales.data), frames: n, joints: J } }
      : {}),
  };
}

/** The first `n` frames of a clip, as views of its arrays (no copy). */
export function firstFrames(clip: Clip, n: number): Clip {
  const J = clip.skeleton.names.length;
  return {
    ...clip,
    frames: n,
    rotations: { data: clip.rotations.data.subarray(0, n * J * 4), frames: n, joints: J },
    translations: { data: clip.translations.data.subarray(0, n * J * 3), frames: n, joints: J },
    ...(clip.scales
      ? { scales: { data: clip.scales.data.subarray(0, n * J * 3), frames: n, joints: J } }
      : {}),
  };
}
