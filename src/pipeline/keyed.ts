// Pipeline steps on keyed clips (glTF animations): the bake-rate rule and the bake-run-rekey path, one
// place for the CLI's file tasks and the studio's worker.
import { clipRate } from '../ops/analysis/rate.js';
import { bakeClip } from '../ops/keys/bake-clip.js';
import { keysFromClip } from '../ops/keys/keys-from-clip.js';
import { subclip } from '../ops/keys/subclip.js';
import type { Clip, KeyedClip, Track } from '../series/clip.js';
import { planLoop } from './loop.js';
import { type ClipStep, type RunStepsOptions, runSteps, subclipSeconds } from './steps.js';

/** CUBICSPLINE tracks are baked at 60 Hz at least, so their LINEAR keys follow the curve. */
export const CUBIC_BAKE_RATE = 60;

/**
 * The grid a keyed clip is baked on for the pipeline: its keys' own rate (`clipRate`: the grid the key
 * times are meant to lie on, a standard rate where they mean one; for keys that are not uniform, the
 * rate of their median interval, never a default), raised to {@link CUBIC_BAKE_RATE} when a track is
 * CUBICSPLINE (a sparse cubic track keyed only at its own keys would lose its curve).
 */
export function keyedBakeRate(keyed: KeyedClip): number {
  const rate = clipRate(keyed).rate;
  return keyed.tracks.some((t) => t.interpolation === 'cubicspline') ? Math.max(rate, CUBIC_BAKE_RATE) : rate;
}

/**
 * Applies pipeline steps to a keyed clip. No steps, or only `unroll`: the clip as it is (the writer
 * makes every rotation track sign-continuous, which is what unrolling keys means, and keeps the keys,
 * their times and interpolation exactly). Otherwise: baked on {@link keyedBakeRate} and the steps run on the
 * uniform clip. Steps that keep the timing (unroll, smooth, live filters) on keys that lie on one grid
 * (`clipRate` uniform, jitter included): every track keeps its key times bit for bit and its
 * interpolation, with the processed values at them. Otherwise every frame becomes a LINEAR key
 * (`keysFromClip` `'all'`). A `resample` that ends the steps without a `duration` keeps the clip's
 * rate and end: keys on the exact grid `i / rate`, and where it stops short of the input's last key time,
 * one more key there holding the end pose (a loop, resampled round its seam at the same rate: its
 * first pose, so the seam is 0). Morph-weight tracks are kept as they were.
 */
export function runKeyedSteps(
  keyed: KeyedClip,
  steps: readonly ClipStep[],
  options: Pick<RunStepsOptions, 'onStep'> = {},
): KeyedClip {
  if (steps.every((s) => s.op === 'unroll')) return keyed;
  if (steps.every((s) => s.op === 'unroll' || s.op === 'subclip')) {
    // cut on the keys themselves: kept keys stay exact, frames count steps of the bake rate from the first key
    const rate = keyedBakeRate(keyed);
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const t of keyed.tracks) {
      first = Math.min(first, t.times[0]);
      last = Math.max(last, t.times[t.times.length - 1]);
    }
    const frames = Math.round((last - first) * rate) + 1;
    // a frame's time lands on a key stored as float32 only within rounding: take the key's own time, so
    // the cut adds no boundary key a hair away from it (which float32 could not tell apart)
    const snap = (x: number) => {
      for (const t of keyed.tracks)
        for (let k = 0; k < t.times.length; k++)
          if (Math.abs(t.times[k] - x) <= 1e-4 / rate) return t.times[k];
      return x;
    };
    let out = keyed;
    for (const s of steps)
      if (s.op === 'subclip') {
        const range = subclipSeconds(first, rate, frames, s);
        out = subclip(out, {
          start: snap(range.start),
          end: snap(range.end),
          ...(s.rebase === true ? { rebase: true } : {}),
        });
      }
    return out;
  }
  // a resample that ends the steps keeps the clip's end: the last key at the input's last time
  const lastStep = steps[steps.length - 1];
  const keepsEnd = lastStep.op === 'resample' && !lastStep.optimal && lastStep.duration === undefined;
  let processed = bakeKeyed(keyed);
  let beforeResample: Clip | null = null;
  let closed = false;
  if (keepsEnd) {
    beforeResample = runSteps(processed, steps.slice(0, -1), { ...options, input: 'reuse' });
    // a loop keeps the requested rate too: its grid wraps the seam and the closing key is its first pose
    closed = planLoop(beforeResample, lastStep, 'clamp').closed;
    processed = runSteps(beforeResample, [lastStep], { ...options, loopGrid: 'exact' });
  } else processed = runSteps(processed, steps, { ...options, input: 'reuse' });
  const weights: Track[] = keyed.tracks.filter((t) => t.path === 'weights');
  const own = steps.every((s) => s.op === 'unroll' || s.op === 'smooth' || s.op === 'live')
    ? onOwnKeys(keyed, processed)
    : null;
  if (own !== null) return { ...keyed, tracks: [...own, ...weights] };
  const keys = keysFromClip(processed, { keys: 'all' });
  const tracks = beforeResample
    ? withEndKey(
        keys.tracks,
        closed ? processed : beforeResample,
        closed ? 0 : beforeResample.frames - 1,
        keyedEnd(keyed),
      )
    : keys.tracks;
  return { ...keys, tracks: [...tracks, ...weights], ...(keyed.source ? { source: keyed.source } : {}) };
}

/** The last key time of a keyed clip's tracks. */
function keyedEnd(keyed: KeyedClip): number {
  let end = Number.NEGATIVE_INFINITY;
  for (const t of keyed.tracks) end = Math.max(end, t.times[t.times.length - 1]);
  return end;
}

/**
 * Resampled tracks with one more key at `end` (the input's last key time) where their grid stops short
 * of it (`i / rate` past the last whole step: 1.2333 s of a 1.25 s clip at 30 Hz), its value frame `f`
 * of `before`: the clip's last frame before the resample (the end pose kept), or for a loop the
 * resampled first frame (the seam closed); rotations on the previous key's hemisphere. A grid
 * that reaches `end` (within 1e-4 of a step: float32 key times) is left as it is.
 */
function withEndKey(tracks: readonly Track[], before: Clip, f: number, end: number): Track[] {
  const J = before.skeleton.names.length;
  return tracks.map((t) => {
    const n = t.times.length;
    if (n < 2 || !(end - t.times[n - 1] > 1e-4 * (t.times[n - 1] - t.times[n - 2]))) return t;
    const w = t.width;
    const series =
      t.path === 'rotation'
        ? before.rotations.data
        : t.path === 'translation'
          ? before.translations.data
          : before.scales?.data;
    if (series === undefined) return t;
    const value = Array.from(series.subarray((f * J + t.joint) * w, (f * J + t.joint + 1) * w));
    if (t.path === 'rotation') {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += value[c] * t.values[(n - 1) * 4 + c];
      if (dot < 0) for (let c = 0; c < 4; c++) value[c] = -value[c];
    }
    const times = new Float64Array(n + 1);
    times.set(t.times);
    times[n] = end;
    const values = new Float64Array((n + 1) * w);
    values.set(t.values);
    values.set(value, n * w);
    return { ...t, times, values };
  });
}

/**
 * The processed clip's values at the input's own key times, when the steps kept the timing and every key
 * of a STEP or LINEAR track is a frame of the bake grid (`clipRate` uniform: a jittered but evenly meant
 * grid counts): each track keeps its key times bit for bit and its interpolation, and takes its values
 * from the frame its key stands for. Null when some track is CUBICSPLINE or the keys are not on one grid
 * (then every frame becomes a key).
 */
function onOwnKeys(keyed: KeyedClip, processed: Clip): Track[] | null {
  if (!clipRate(keyed).uniform) return null;
  const moving = keyed.tracks.filter((t) => t.path !== 'weights');
  if (moving.some((t) => t.interpolation === 'cubicspline')) return null;
  const t0 = processed.startTime ?? 0;
  const rate = processed.rate;
  const J = processed.skeleton.names.length;
  const out: Track[] = [];
  for (const t of moving) {
    const series =
      t.path === 'rotation'
        ? processed.rotations.data
        : t.path === 'translation'
          ? processed.translations.data
          : processed.scales?.data;
    const w = t.path === 'rotation' ? 4 : 3;
    if (series === undefined || t.width !== w) return null;
    const n = t.times.length;
    const values = new Float64Array(n * w);
    for (let k = 0; k < n; k++) {
      const f = Math.round((t.times[k] - t0) * rate);
      if (f < 0 || f >= processed.frames) return null;
      const at = (f * J + t.joint) * w;
      for (let c = 0; c < w; c++) values[k * w + c] = series[at + c];
    }
    out.push({ ...t, values });
  }
  return out;
}

/**
 * A keyed clip baked on {@link keyedBakeRate}: the uniform clip every step of a pipeline runs on, and
 * what the CLI and the studio show and process for a glTF animation.
 *
 * @throws what `bakeClip` throws on a malformed keyed clip or a grid past its frame limit.
 * @example
 * const read = await readGltf(bytes);
 * const clip = bakeKeyed(read.clips[0]); // at the keys' own rate
 */
export function bakeKeyed(keyed: KeyedClip): Clip {
  return bakeClip(keyed, { rate: keyedBakeRate(keyed) });
}
