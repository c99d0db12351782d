/**
 * Cutting a time range out of a clip or a keyed clip, keeping exact times.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import {
  BOOLEAN_OPTION,
  FINITE_NUMBER,
  frozenDefaults,
  type OptionSpec,
  resolveOptions,
} from '../../options.js';
import type { Clip, KeyedClip, Track } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import type { QuatSeries, Vec3Series } from '../../series/types.js';
import { TrackSampler } from './evaluate-track.js';
import { assertKeyedClip, trackLabel } from './track-checks.js';

/** The range of {@link subclip}, in seconds on the clip's own time line (a clip's frame f is at `startTime + f · frameTime`). */
export interface SubclipOptions {
  /** First time kept, seconds. */
  start: number;
  /** Last time kept, seconds (`end ≥ start`; equal gives one frame or one key per track). */
  end: number;
  /**
   * Start the result at 0 s: every time shifted back by the cut's start (a clip's `startTime` becomes 0;
   * a keyed clip's key times move by the start, or by the first kept key where that is the start in
   * float32), so a player that plays a clip from 0 (three.js's `AnimationMixer`) plays the cut for its
   * true length. Default false: the kept times stay as they were.
   */
  rebase?: boolean;
}

/** Defaults of {@link SubclipOptions} (frozen; `start` and `end` have none). */
export const SUBCLIP_DEFAULTS: Readonly<Required<Pick<SubclipOptions, 'rebase'>>> = frozenDefaults({
  rebase: false,
});

const SUBCLIP_SPEC: OptionSpec = { start: FINITE_NUMBER, end: FINITE_NUMBER, rebase: BOOLEAN_OPTION };

/** Fraction of a frame by which a frame time may miss the range and still count as inside (rounding of `f · frameTime`). */
const FRAME_SLACK = 1e-9;

function checkRange(given: SubclipOptions, where: string): Required<SubclipOptions> {
  if (given === undefined) throw new OptionError(`${where}: { start, end } is required`);
  const range = resolveOptions(where, given, SUBCLIP_DEFAULTS, SUBCLIP_SPEC);
  const { start, end } = range;
  if (
    typeof start !== 'number' ||
    !Number.isFinite(start) ||
    typeof end !== 'number' ||
    !Number.isFinite(end)
  ) {
    throw new OptionError(
      `${where}: start and end must be finite numbers of seconds, got ${start} and ${end}`,
    );
  }
  if (end < start) throw new OptionError(`${where}: end (${end} s) is before start (${start} s)`);
  return range;
}

/**
 * Cuts the time range `[start, end]` (seconds) out of a clip or a keyed clip, keeping times exact: like
 * three.js's `AnimationUtils.subclip`, but in seconds, and nothing is shifted to 0 unless `rebase` is set
 * (then the result starts at 0 s, see {@link SubclipOptions.rebase}).
 *
 * - `Clip`: the frames whose times lie in `[start, end]` (a frame within 1e-9 of a frame of the range
 *   counts as inside, which absorbs the rounding of `f · frameTime`). The result's `startTime` is the
 *   first kept frame's time; rate, flags, orders and `source` are unchanged; series are copied. A range
 *   holding no frame (including a zero-length range between two frames) is an {@link OptionError}; a
 *   zero-length range on a frame gives that one frame.
 * - `KeyedClip`: per track, the keys inside `[start, end]`, plus a key evaluated at `start` and at
 *   `end` where those fall strictly between two keys, so the cut track plays exactly as the original
 *   over the range (for `'step'` and `'linear'`, and for non-rotation `'cubicspline'` whose boundary
 *   keys carry the spline's derivative as tangents: a cubic restricted to a sub-interval is the same
 *   cubic). For CUBICSPLINE rotations glTF requires unit keys, so the boundary key is that key (value
 *   and tangents) divided by the value's length: the cut plays the original rotation and angular
 *   velocity at the boundary and at every kept key, and inside the boundary segment differs from it
 *   by a second-order amount (on splines with random unit keys and tangents up to 1, at most 0.19 rad;
 *   nothing where the spline's value has unit length at the cut). The first in-tangent
 *   and last out-tangent are set to zero, as glTF recommends. A track with no key in the range and no
 *   interval across `start` becomes one key at `start` holding its (clamped) value there; a zero-length
 *   range gives every track one key. Cut tracks are Float64 (kept keys are copied exactly). A boundary
 *   that equals a kept key in float32 (within about 6e-8 of it, relatively) adds no key: that key stands
 *   for it, so the cut stays writable with glTF's float32 key times (strictly increasing there too).
 *
 * @param range - Defaults in {@link SUBCLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on a missing, non-finite or reversed range, or one that holds no frame of a clip.
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed clip.
 * @example
 * const walk = subclip(clip, { start: 1.5, end: 3 }); // walk.startTime === 1.5 at 30 Hz
 */
export function subclip(clip: Clip, range: SubclipOptions): Clip;
export function subclip(clip: KeyedClip, range: SubclipOptions): KeyedClip;
export function subclip(clip: Clip | KeyedClip, range: SubclipOptions): Clip | KeyedClip {
  const where = 'subclip';
  const r = checkRange(range, where);
  if (clip !== null && typeof clip === 'object' && 'tracks' in clip) {
    const cut = subclipKeyed(clip, r, where);
    return r.rebase ? rebaseKeyed(cut, r.start) : cut;
  }
  const cut = subclipFrames(clip as Clip, r, where);
  return r.rebase ? { ...cut, startTime: 0 } : cut;
}

/** `cut` with every key time moved back by its start: `start`, or the first kept key when float32 cannot tell them apart. */
function rebaseKeyed(cut: KeyedClip, start: number): KeyedClip {
  let first = Number.POSITIVE_INFINITY;
  for (const t of cut.tracks) if (t.times.length > 0) first = Math.min(first, t.times[0]);
  const shift = Math.abs(first - start) <= 2 ** -22 * Math.max(1, Math.abs(start)) ? first : start;
  const tracks = cut.tracks.map((t) => {
    const times = new Float64Array(t.times.length);
    for (let k = 0; k < times.length; k++) times[k] = t.times[k] - shift;
    return { ...t, times };
  });
  return { ...cut, tracks };
}

function sliceSeries<S extends QuatSeries | Vec3Series>(s: S, f0: number, f1: number, width: number): S {
  const J = s.joints;
  return { data: s.data.slice(f0 * J * width, (f1 + 1) * J * width), frames: f1 - f0 + 1, joints: J } as S;
}

function subclipFrames(clip: Clip, range: SubclipOptions, where: string): Clip {
  assertClip(clip, `${where}: clip`);
  const st = clip.startTime ?? 0;
  const ft = clip.frameTime;
  const f0 = Math.max(0, Math.ceil((range.start - st) / ft - FRAME_SLACK));
  const f1 = Math.min(clip.frames - 1, Math.floor((range.end - st) / ft + FRAME_SLACK));
  if (f0 > f1) {
    throw new OptionError(
      `${where}: [${range.start}, ${range.end}] s holds no frame of the clip (${clip.frames} frames from ${st} s every ${ft} s)`,
    );
  }
  const startTime = st + f0 * ft;
  const { startTime: _omit, ...rest } = clip;
  return {
    ...rest,
    frames: f1 - f0 + 1,
    ...(startTime !== 0 ? { startTime } : {}),
    rotations: sliceSeries(clip.rotations, f0, f1, 4),
    translations: sliceSeries(clip.translations, f0, f1, 3),
    ...(clip.scales ? { scales: sliceSeries(clip.scales, f0, f1, 3) } : {}),
  };
}

function subclipKeyed(keyed: KeyedClip, range: SubclipOptions, where: string): KeyedClip {
  assertKeyedClip(keyed, `${where}: keyed`);
  const tracks = keyed.tracks.map((t, i) => cutTrack(t, range.start, range.end, trackLabel(keyed, i, where)));
  return { ...keyed, tracks };
}

function cutTrack(track: Track, start: number, end: number, name: string): Track {
  const { times, width } = track;
  const n = times.length;
  const cubic = track.interpolation === 'cubicspline';
  const per = cubic ? 3 * width : width;
  const sampler = new TrackSampler(track, name);
  // keys inside [start, end]
  let k0 = 0;
  while (k0 < n && times[k0] < start) k0++;
  let k1 = n - 1;
  while (k1 >= 0 && times[k1] > end) k1--;
  // no boundary key where float32 (glTF's key times) could not tell it from a kept key: the key stands for it
  const f32 = Math.fround;
  const head = start > times[0] && start < times[n - 1] && (k0 >= n || f32(times[k0]) !== f32(start));
  const tail =
    end > times[0] &&
    end < times[n - 1] &&
    (k1 < 0 || f32(times[k1]) !== f32(end)) &&
    f32(end) !== f32(start);
  const inside = Math.max(0, k1 - k0 + 1);
  let count = inside + (head ? 1 : 0) + (tail ? 1 : 0);
  const single = count === 0;
  if (single) count = 1;
  // Float64 out: a boundary time or value rounded to Float32 would no longer be exact
  const outTimes = new Float64Array(count);
  const outValues = new Float64Array(count * per);
  let k = 0;
  const boundary = (time: number) => {
    outTimes[k] = time;
    if (cubic) cubicBoundary(track, sampler, time, outValues, k * per);
    else sampler.sample(outValues, k * per, time);
    k++;
  };
  if (single) boundary(start);
  else {
    if (head) boundary(start);
    for (let i = k0; i <= k1; i++) {
      outTimes[k] = times[i];
      outValues.set(track.values.subarray(i * per, (i + 1) * per), k * per);
      k++;
    }
    if (tail) boundary(end);
  }
  if (cubic) {
    for (let c = 0; c < width; c++) {
      outValues[c] = 0; // first in-tangent
      outValues[(count - 1) * per + 2 * width + c] = 0; // last out-tangent
    }
  }
  return { ...track, times: outTimes, values: outValues };
}

/**
 * A CUBICSPLINE key at `time` strictly inside the track: the spline's value and its derivative (per
 * second) as both tangents, so the cut segment is the same cubic. For rotations the key is divided by
 * the value's length, so it is a unit quaternion as glTF requires.
 */
function cubicBoundary(
  track: Track,
  sampler: TrackSampler,
  time: number,
  out: Float64Array,
  o: number,
): void {
  const { times, values, width: w } = track;
  const n = times.length;
  // interval k with times[k] < time < times[k + 1] (boundary keys are only made strictly inside)
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= time) lo = mid;
    else hi = mid;
  }
  if (!(times[lo] < time && time < times[lo + 1])) {
    // on or outside the keys (a one-key cut): the evaluated value, flat tangents
    sampler.sample(out, o + w, time);
    for (let c = 0; c < w; c++) out[o + c] = out[o + 2 * w + c] = 0;
    return;
  }
  const td = times[lo + 1] - times[lo];
  const t = (time - times[lo]) / td;
  const t2 = t * t;
  // d/dt_c of the Hermite form: basis derivatives over t, divided by td
  const d00 = (6 * t2 - 6 * t) / td;
  const d10 = 3 * t2 - 4 * t + 1;
  const d01 = (-6 * t2 + 6 * t) / td;
  const d11 = 3 * t2 - 2 * t;
  const o0 = lo * 3 * w;
  const o1 = o0 + 3 * w;
  const deriv = new Float64Array(w);
  const raw = new Float64Array(w);
  const h00 = 2 * t2 * t - 3 * t2 + 1;
  const h10 = td * (t2 * t - 2 * t2 + t);
  const h01 = -2 * t2 * t + 3 * t2;
  const h11 = td * (t2 * t - t2);
  for (let c = 0; c < w; c++) {
    deriv[c] =
      d00 * values[o0 + w + c] +
      d10 * values[o0 + 2 * w + c] +
      d01 * values[o1 + w + c] +
      d11 * values[o1 + c];
    raw[c] =
      h00 * values[o0 + w + c] +
      h10 * values[o0 + 2 * w + c] +
      h01 * values[o1 + w + c] +
      h11 * values[o1 + c];
  }
  if (track.path === 'rotation') {
    // glTF requires unit rotation keys: the key (value and tangents) divided by the value's length |p|,
    // the cubic scaled by 1/|p| at the cut, so the played (normalised) rotation and its angular
    // velocity there are the original's
    const len = Math.hypot(raw[0], raw[1], raw[2], raw[3]);
    if (len > 0)
      for (let c = 0; c < 4; c++) {
        raw[c] /= len;
        deriv[c] /= len;
      }
  }
  for (let c = 0; c < w; c++) {
    out[o + c] = deriv[c];
    out[o + w + c] = raw[c];
    out[o + 2 * w + c] = deriv[c];
  }
}
