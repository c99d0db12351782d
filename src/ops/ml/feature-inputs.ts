// What the ML feature operations take from a clip: a named joint, finite values, central differences; not public operations themselves.
import { OptionError } from '../../errors.js';
import type { Clip } from '../../series/clip.js';
import { assertFiniteSeries } from '../../series/create.js';
import type { FloatArray } from '../../series/types.js';

/** Index of the joint named or numbered by `root`, checked. */
export function resolveJoint(clip: Clip, joint: number | string, where: string, what = 'root'): number {
  const names = clip.skeleton.names;
  if (typeof joint === 'string') {
    const j = names.indexOf(joint);
    if (j < 0)
      throw new OptionError(
        `${where}: no joint named '${joint}' (joints: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', ...' : ''})`,
      );
    return j;
  }
  if (!Number.isInteger(joint) || joint < 0 || joint >= names.length)
    throw new OptionError(
      `${where}: ${what} must be a joint name or an index in 0..${names.length - 1}, got ${joint}`,
    );
  return joint;
}

/** Central differences of `width`-wide rows over `dt` (one-sided at the ends), into `out`. */
export function centralDifference(
  x: FloatArray,
  frames: number,
  width: number,
  dt: number,
  out: Float64Array,
): void {
  if (frames < 2) {
    out.fill(0);
    return;
  }
  for (let f = 0; f < frames; f++) {
    const a = f === 0 ? 0 : f - 1;
    const b = f === frames - 1 ? frames - 1 : f + 1;
    const scale = 1 / ((b - a) * dt);
    for (let k = 0; k < width; k++) out[f * width + k] = (x[b * width + k] - x[a * width + k]) * scale;
  }
}

/** Checks that a clip's rotations and translations are finite, naming the first bad frame and joint. */
export function assertFiniteClip(clip: Clip, where: string): void {
  const J = clip.skeleton.names.length;
  if (clip.rotations?.data === undefined || clip.translations?.data === undefined) return;
  assertFiniteSeries(clip.rotations.data, J, 4, `${where}: clip.rotations`);
  assertFiniteSeries(clip.translations.data, J, 3, `${where}: clip.translations`);
}
