// Pipeline steps on keyed clips (glTF animations): the bake-rate rule and the bake-run-rekey path, one
// place for the CLI's file tasks and the studio's worker.
import { clipRate } from '../ops/analysis/rate.js';
import { bakeClip } from '../ops/keys/bake-clip.js';
import { keysFromClip } from '../ops/keys/keys-from-clip.js';
import { subclip } from '../ops/keys/subclip.js';
import { FUNCTION_OPTION, frozenDefaults, resolveOptions } from '../options.js';
import type { Clip, KeyedClip, Track } from '../series/clip.js';
import { planLoop } from './loop.js';
import { onOwnKeys } from './on-keys.js';
import { splineResampleKeyed } from './spline-resample.js';
import { type ClipStep, type RunStepsOptions, runSteps, subclipSeconds } from './steps.js';

/** Defaults of {@link runKeyedSteps}'s options (frozen): none, `onStep` is optional. */
export const RUN_KEYED_STEPS_DEFAULTS: Readonly<Pick<RunStepsOptions, 'onStep'>> = frozenDefaults({});

/**
 * CUBICSPLINE tracks are baked at 60 Hz at least, so the grid the steps run on follows the curve
 * between sparse keys (and keys written at every frame, after a resample, follow it too).
 */
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
 * their times and interpolation exactly). Only `unroll` and `subclip`: cut on the keys themselves.
 * Otherwise the clip is baked on {@link keyedBakeRate} and the steps run on the uniform clip.
 *
 * Steps that keep the timing (unroll, smooth, live filters): every track keeps its key times bit for
 * bit and its interpolation, whatever their spacing (gaps, hand-keyed times, STEP, LINEAR, CUBICSPLINE,
 * mixed), with the processed values at them: a key on a grid frame takes that frame, a key between
 * frames its own value moved by what the steps changed around it, CUBICSPLINE tangents moved by that
 * change's derivative (see `onOwnKeys`). A loop smoothed round its seam keeps its seam 0.
 *
 * A plain `resample` without a `duration` (the last one, when only steps that keep the timing follow)
 * keeps the clip's rate and end: keys on the exact grid `k / rate` from the first key, grid keys past
 * the input's last key time dropped and the last key at that time exactly, holding the end pose (moved
 * by the steps after the resample), or for a loop, resampled round its seam at the same rate, its
 * first pose (the seam 0). An explicit `duration` holds as given. Other step lists write every frame as
 * a LINEAR key (`keysFromClip` `'all'`). Morph-weight tracks are kept as they were.
 * @param options - Defaults in {@link RUN_KEYED_STEPS_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 */
export function runKeyedSteps(
  keyed: KeyedClip,
  steps: readonly ClipStep[],
  options: Pick<RunStepsOptions, 'onStep'> = {},
): KeyedClip {
  options = resolveOptions('runKeyedSteps', options, RUN_KEYED_STEPS_DEFAULTS, { onStep: FUNCTION_OPTION });
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
  const weights: Track[] = keyed.tracks.filter((t) => t.path === 'weights');
  const withSource = (keys: KeyedClip): KeyedClip => ({
    ...keys,
    tracks: [...keys.tracks, ...weights],
    ...(keyed.source ? { source: keyed.source } : {}),
  });
  if (steps.every(keepsTiming)) {
    // 'keep': the baked clip stays as it was, the reference of what the steps changed
    const baked = bakeKeyed(keyed);
    const processed = runSteps(baked, steps, options);
    const own = onOwnKeys(keyed, baked, processed);
    if (own !== null) return { ...keyed, tracks: [...own, ...weights] };
    return withSource(keysFromClip(processed, { keys: 'all' }));
  }
  // the last plain resample without a duration keeps the clip's end, when what follows it keeps the timing
  let r = -1;
  steps.forEach((s, i) => {
    if (s.op === 'resample' && !s.optimal && s.duration === undefined) r = i;
  });
  if (r < 0 || !steps.slice(r + 1).every(keepsTiming))
    return withSource(
      keysFromClip(runSteps(bakeKeyed(keyed), steps, { ...options, input: 'reuse' }), { keys: 'all' }),
    );
  const given = steps[r] as Extract<ClipStep, { op: 'resample' }>;
  // splines keep the requested rate on a loop too: they do not wrap, and the closing key (the end pose, a
  // loop's first) closes the seam
  const resample = given.spline === true ? { ...given, loop: 'off' as const } : given;
  const before = runSteps(bakeKeyed(keyed), steps.slice(0, r), { ...options, input: 'reuse' });
  // a loop keeps the requested rate too: its grid wraps the seam and the closing key is its first pose
  const closed = planLoop(before, resample, 'clamp').closed;
  // splines first in the steps go through each track's own keys, not through baked frames
  const resampled =
    resample.spline === true && steps.slice(0, r).every((s) => s.op === 'unroll')
      ? splineFromKeys(keyed, resample, options)
      : runSteps(before, [resample], { ...options, loopGrid: 'exact' });
  const after = runSteps(resampled, steps.slice(r + 1), options);
  // the input's end, or where the steps before the resample (a subclip) ended the clip
  const end = steps.slice(0, r).every(keepsTiming)
    ? keyedEnd(keyed)
    : (before.startTime ?? 0) + (before.frames - 1) / before.rate;
  const pose = (t: Track): Float64Array | null =>
    closed ? frameValue(after, 0, t) : endPose(before, resampled, after, t);
  const keys = keysFromClip(after, { keys: 'all' });
  return withSource({ ...keys, tracks: withEndKey(keys.tracks, pose, end, after.rate) });
}

/** Steps that keep the timing: the keys are written back at their own times. */
function keepsTiming(step: ClipStep): boolean {
  return step.op === 'unroll' || step.op === 'smooth' || step.op === 'live';
}

/** A spline resample through the keyed clip's own keys, reported to `onStep` as `runSteps` reports a step. */
function splineFromKeys(
  keyed: KeyedClip,
  step: Extract<ClipStep, { op: 'resample' }>,
  options: Pick<RunStepsOptions, 'onStep'>,
): Clip {
  const out = splineResampleKeyed(keyed, clipRate(keyed).rate, step, () => false);
  options.onStep?.({ op: 'resample', frames: out.frames, rate: out.rate });
  return out;
}

/** The last key time of a keyed clip's tracks. */
function keyedEnd(keyed: KeyedClip): number {
  let end = Number.NEGATIVE_INFINITY;
  for (const t of keyed.tracks) end = Math.max(end, t.times[t.times.length - 1]);
  return end;
}

/** The series a track animates, of a uniform clip. */
function seriesOf(clip: Clip, t: Track): Float64Array | Float32Array | undefined {
  return t.path === 'rotation'
    ? clip.rotations.data
    : t.path === 'translation'
      ? clip.translations.data
      : t.path === 'scale'
        ? clip.scales?.data
        : undefined;
}

/** Frame `f` of the component track `t` animates. */
function frameValue(clip: Clip, f: number, t: Track): Float64Array | null {
  const series = seriesOf(clip, t);
  if (series === undefined) return null;
  const at = (f * clip.skeleton.names.length + t.joint) * t.width;
  return Float64Array.from(series.subarray(at, at + t.width));
}

/**
 * The end pose of the clip before the resample (its last frame), moved by what the steps after the
 * resample changed at the resampled clip's last frame (`after ⊗ resampled⁻¹` for rotations, the
 * difference for vectors): nothing when none follow.
 */
function endPose(before: Clip, resampled: Clip, after: Clip, t: Track): Float64Array | null {
  const value = frameValue(before, before.frames - 1, t);
  if (value === null || after === resampled) return value;
  const a = frameValue(after, after.frames - 1, t);
  const b = frameValue(resampled, resampled.frames - 1, t);
  if (a === null || b === null) return value;
  if (t.path !== 'rotation') return value.map((x, c) => x + a[c] - b[c]);
  // a ⊗ b⁻¹ ⊗ value, b unit
  const d = quatMul(a, [-b[0], -b[1], -b[2], b[3]]);
  return Float64Array.from(quatMul(d, value));
}

function quatMul(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/**
 * Resampled tracks ending at `end` (the input's last key time): a grid key within 1e-4 of a step of it
 * takes its time exactly (float32 key times: `k / rate` rounded is an ulp off the stored end); grid
 * keys past it are dropped and, where the grid stops short of it (1.2333 s of a 1.25 s clip at 30 Hz),
 * one more key there holds `pose(track)`: the end pose, or for a loop the first pose (the seam closed);
 * rotations on the previous key's hemisphere.
 */
function withEndKey(
  tracks: readonly Track[],
  pose: (t: Track) => Float64Array | null,
  end: number,
  rate: number,
): Track[] {
  const tol = 1e-4 / rate;
  return tracks.map((t) => {
    const n = t.times.length;
    if (n < 1 || t.interpolation === 'cubicspline') return t;
    let m = n;
    while (m > 0 && t.times[m - 1] > end + tol) m--;
    if (m === 0) return t;
    const w = t.width;
    if (Math.abs(t.times[m - 1] - end) <= tol) {
      const times = Float64Array.from(t.times.subarray(0, m) as ArrayLike<number>);
      times[m - 1] = end;
      return { ...t, times, values: Float64Array.from(t.values.subarray(0, m * w) as ArrayLike<number>) };
    }
    const value = pose(t);
    if (value === null) return t;
    if (t.path === 'rotation') {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += value[c] * t.values[(m - 1) * 4 + c];
      if (dot < 0) for (let c = 0; c < 4; c++) value[c] = -value[c];
    }
    const times = new Float64Array(m + 1);
    times.set(t.times.subarray(0, m));
    times[m] = end;
    const values = new Float64Array((m + 1) * w);
    values.set(t.values.subarray(0, m * w));
    values.set(value, m * w);
    return { ...t, times, values };
  });
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
