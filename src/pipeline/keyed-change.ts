// How far pipeline steps moved a keyed clip's poses, measured on the keys: what `smooth` reports for a
// glTF animation, and what the written file plays at the input's key times.
import { TrackSampler } from '../ops/keys/evaluate-track.js';
import type { KeyedClip } from '../series/clip.js';

/** The largest change of a keyed clip's poses at its key times (see {@link keyedChange}). */
export interface KeyedChange {
  /** The animation's name, when it has one. */
  name?: string;
  /** Keys of the moving tracks compared (rotation, translation, scale), summed over the tracks. */
  keys: number;
  /** Largest rotation angle between input and output, radians. */
  rotation: number;
  /** Largest distance between input and output translations, in the file's units. */
  translation: number;
  /** Largest difference of a scale component. */
  scale: number;
}

/**
 * The largest change from `before` to `after` at `before`'s own key times: every moving track
 * (rotation, translation, scale; morph weights are left out) against the track of `after` on the same
 * joint and path, both evaluated as glTF plays them (`TrackSampler`: slerp, lerp, step, the cubic
 * Hermite spline). A track `after` does not have is skipped.
 *
 * @example
 * const change = keyedChange(keyed, runKeyedSteps(keyed, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } }]));
 * // change.rotation: radians, the most any joint turned at a key
 */
export function keyedChange(before: KeyedClip, after: KeyedClip): KeyedChange {
  let keys = 0;
  let rotation = 0;
  let translation = 0;
  let scale = 0;
  for (const t of before.tracks) {
    if (t.path === 'weights') continue;
    const o = after.tracks.find((x) => x.joint === t.joint && x.path === t.path);
    if (o === undefined) continue;
    const a = new TrackSampler(t);
    const b = new TrackSampler(o);
    const x = new Float64Array(t.width);
    const y = new Float64Array(o.width);
    for (let k = 0; k < t.times.length; k++) {
      a.sample(x, 0, t.times[k]);
      b.sample(y, 0, t.times[k]);
      if (t.path === 'rotation') {
        const dot = Math.abs(x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]);
        const n = Math.hypot(x[0], x[1], x[2], x[3]) * Math.hypot(y[0], y[1], y[2], y[3]);
        rotation = Math.max(rotation, 2 * Math.acos(Math.min(1, dot / n)));
      } else if (t.path === 'translation')
        translation = Math.max(translation, Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
      else for (let c = 0; c < 3; c++) scale = Math.max(scale, Math.abs(x[c] - y[c]));
    }
    keys += t.times.length;
  }
  return { ...(before.name !== undefined ? { name: before.name } : {}), keys, rotation, translation, scale };
}
