/**
 * Runs streaming filters over a recorded clip: the shared engine of `oneEuroClip` and `dampClip`.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import type { Clip } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';
import type { LiveFilter } from './live-contract.js';

/** Which way a recorded clip is run through a streaming filter. */
export type ClipDirection = 'forward' | 'forward-backward';

/** The valid {@link ClipDirection} names. */
export const CLIP_DIRECTIONS: readonly ClipDirection[] = Object.freeze(['forward', 'forward-backward']);

/**
 * The clip with its rotations (and, when `makeVectors` is given, its translations) run through fresh filters
 * frame by frame at `f · frameTime` seconds: forward, or forward then backward over the forward result (the
 * second pass in reversed time), which cancels the phase lag of a linear filter and halves it roughly for the
 * others. The input clip is not modified.
 *
 * @internal
 */
export function runClip(
  clip: Clip,
  makeRotations: (joints: number) => LiveFilter<unknown>,
  makeVectors: ((joints: number) => LiveFilter<unknown>) | null,
  direction: ClipDirection,
  where: string,
): Clip {
  // checks the series' shapes, frame time and rate
  assertClip(clip, `${where}: clip`);
  const { frames, joints } = clip.rotations;
  if (!CLIP_DIRECTIONS.includes(direction)) {
    throw new OptionError(
      `${where}: direction must be one of ${CLIP_DIRECTIONS.join(', ')}, got ${String(direction)}`,
    );
  }
  const frameTime = clip.frameTime;
  // the options are checked even when there is nothing to filter
  makeRotations(Math.max(1, joints));
  makeVectors?.(Math.max(1, joints));
  const rotations = new Float64Array(frames * joints * 4);
  const translations = Float64Array.from(clip.translations.data);
  if (frames > 0 && joints > 0) {
    runSeries(
      clip.rotations.data,
      rotations,
      frames,
      joints * 4,
      frameTime,
      () => makeRotations(joints),
      direction,
    );
    if (makeVectors) {
      runSeries(
        clip.translations.data,
        translations,
        frames,
        joints * 3,
        frameTime,
        () => makeVectors(joints),
        direction,
      );
    }
  }
  // finite input can still overflow (translations near 1e308 extrapolated by a velocity)
  assertFiniteSeries(translations, joints, 3, `${where}: filtered translations (overflow)`);
  return {
    ...clip,
    rotations: { data: rotations, frames, joints },
    translations: { data: translations, frames, joints },
  };
}

function runSeries(
  src: ArrayLike<number>,
  dst: Float64Array,
  frames: number,
  stride: number,
  frameTime: number,
  make: () => LiveFilter<unknown>,
  direction: ClipDirection,
): void {
  const forward = make();
  for (let f = 0; f < frames; f++) forward.pushAt(dst, f * stride, src, f * stride, f * frameTime);
  if (direction === 'forward') return;
  const backward = make();
  // in place: each frame is read before it is overwritten
  for (let k = 0; k < frames; k++) {
    const f = frames - 1 - k;
    backward.pushAt(dst, f * stride, dst, f * stride, k * frameTime);
  }
}
