/**
 * Baking keyed tracks onto an exact uniform time grid.
 *
 * @module
 */

import { OptionError } from '../../errors.js';
import {
  anyOf,
  frozenDefaults,
  integerIn,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { Clip, KeyedClip, TrackPath } from '../../series/clip.js';
import { animatedBit } from '../../series/clip-create.js';
import { clipRate } from '../analysis/rate.js';
import { timeGrid } from '../resample/time-grid.js';
import { TrackSampler } from './evaluate-track.js';
import { rotationSplineTrack } from './rotation-spline.js';
import { assertKeyedClip, trackLabel } from './track-checks.js';
import { vectorSplineTrack } from './vector-spline.js';

/**
 * How many frames {@link bakeClip} makes when the keyed span `T` (earliest to latest key time) is not a
 * whole number of frames at the rate:
 * - `'ceil'` (default): `⌈T·rate⌉ + 1` frames at exactly `rate`; the last frame is on or after the last
 *   key, so the last key's value is always in the clip (glTF holds it after the last key).
 * - `'floor'`: `⌊T·rate⌋ + 1` frames at exactly `rate`; the last frame is on or before the last key.
 * - `'keep-end'`: `round(T·rate) + 1` frames spread over exactly `[start, end]`; the rate becomes
 *   `(frames − 1) / T`, the nearest to the requested one that fits.
 * When `T·rate` is a whole number (to a couple of Float32 roundings of the key times, since glTF stores
 * times as Float32), all three give `T·rate + 1` frames at exactly `rate` and the last frame lands on
 * the last key.
 */
export type BakeDuration = 'ceil' | 'floor' | 'keep-end';

/** Options of {@link bakeClip}. */
export interface BakeClipOptions {
  /** Frame rate of the grid in Hz, or `'auto'` (see {@link inferKeyRate}). Default `'auto'`. */
  rate?: number | 'auto';
  /** Frame-count policy when the keyed span is not a whole number of frames. Default `'ceil'`. */
  duration?: BakeDuration;
  /**
   * When a grid time and a key time are the same instant: `'float32'` (default) takes a key for a grid
   * time within two Float32 roundings of it (`|t − tₖ| ≤ 2⁻²²·|tₖ|`), since glTF stores key times as
   * Float32 and a key written at `f / rate` comes back a rounding off the grid; `'exact'` only on
   * bitwise equality (pure glTF evaluation: the value is then interpolated a rounding away from the key).
   */
  keyTimes?: 'float32' | 'exact';
  /**
   * The curve between keys: `'keys'` (default) each track as glTF plays it (its own STEP, LINEAR or
   * CUBICSPLINE interpolation); `'spline'` the C² spline through each track's key values, for
   * up-sampling sparse keys smoothly: rotations on SciPy's `RotationSpline` ({@link rotationSplineTrack}),
   * translations and scales on the cubic with the same end conditions ({@link vectorSplineTrack}). Key
   * values are kept at the key times either way; only the motion between keys differs.
   */
  curve?: 'keys' | 'spline';
  /** Largest frame count accepted, so a long span at a high rate fails early instead of exhausting memory. Default 10 000 000. */
  maxFrames?: number;
  /**
   * Largest number of values baked: frames x joints x channels, the channels being 4 (rotation) + 3
   * (translation) + 3 when a track animates a scale. Checked before anything is allocated, so a small
   * keyed file cannot ask for gigabytes. Default 2^27 (134 217 728 values, 1 GiB of float64).
   */
  maxValues?: number;
  /**
   * Buffers to bake into instead of new ones, so repeated bakes allocate nothing: each is used when it
   * holds at least `frames x joints x width` values (the series is its first part).
   */
  out?: BakeClipBuffers;
}

/** Output buffers of {@link bakeClip} (see {@link BakeClipOptions.out}). */
export interface BakeClipBuffers {
  rotations?: Float64Array;
  translations?: Float64Array;
  scales?: Float64Array;
}

/** Defaults of {@link BakeClipOptions} (frozen; `out` has none). */
export const BAKE_CLIP_DEFAULTS: Readonly<Required<Omit<BakeClipOptions, 'out'>>> = frozenDefaults({
  rate: 'auto',
  duration: 'ceil',
  keyTimes: 'float32',
  curve: 'keys',
  maxFrames: 10_000_000,
  maxValues: 2 ** 27,
});

const BAKE_CLIP_SPEC: OptionSpec = {
  rate: anyOf(oneOf(['auto']), POSITIVE_NUMBER),
  duration: oneOf(['ceil', 'floor', 'keep-end']),
  keyTimes: oneOf(['float32', 'exact']),
  curve: oneOf(['keys', 'spline']),
  maxFrames: integerIn(1),
  maxValues: integerIn(1),
  out: OBJECT_OPTION,
};

/** What {@link inferKeyRate} found. */
export interface KeyRate {
  /** The rate in Hz ({@link clipRate}): the keys' own rate; for keys that are not uniform, their median interval's. */
  rate: number;
  /** Whether every key lies on one grid at `rate` (within a twentieth of a frame; no track: true). */
  uniform: boolean;
  /** Number of tracks with two or more keys (the ones that say anything about a rate). */
  tracks: number;
}

/** The rate of a keyed clip with no track of two or more keys: the most common animation rate ({@link clipRate}'s). */
export const FALLBACK_KEY_RATE = 30;

const F32_ULP = 2 ** -23;

/** Relative distance within which `keyTimes: 'float32'` takes a grid time for a key time: two Float32 roundings. */
const KEY_SNAP_FLOAT32 = 2 * F32_ULP;

/** Tolerance, in seconds, within which key times count as equal: Float32 roundings of times near `tMax`. */
function timeTolerance(tMax: number, span: number): number {
  return Math.max(1e-9 * span, 4 * F32_ULP * tMax);
}

/**
 * The natural frame rate of a keyed clip's key times, as {@link clipRate} answers it (the one answer
 * the readers, the pipeline's bake and `info` use): the finest track's rate, read as a standard rate
 * where the key times mean one (a float32-jittered 37.5 Hz grid is 37.5 Hz); for keys that are not
 * uniform, the rate of the finest track's median interval, with `uniform: false`. A track's rate
 * counts only when its grid over the whole clip makes no more frames than the clip has keys, or when
 * it spans the clip, so a short dense track beside long sparse ones (two keys 1 ms apart beside a
 * 2000 s track) cannot make a grid of millions of frames.
 *
 * @example
 * inferKeyRate(keyed); // { rate: 30, uniform: true, tracks: 52 }
 */
export function inferKeyRate(keyed: KeyedClip): KeyRate {
  assertKeyedClip(keyed, 'inferKeyRate: keyed');
  return keyRate(keyed);
}

function keyRate(keyed: KeyedClip): KeyRate {
  // one answer to "what rate is this": the clip's key-time rate (clipRate)
  const r = clipRate(keyed);
  const tracks = keyed.tracks.filter((t) => t.times.length >= 2).length;
  return { rate: r.rate, uniform: r.uniform, tracks };
}

/**
 * Bakes a keyed clip onto an exact uniform grid: every joint's translation, rotation and scale at
 * every frame, so every series operation (unroll, filters, resampling, velocities, spectra, optimal
 * keys) runs on keyed (glTF) data.
 *
 * - Grid: frame `f` at `startTime + f / rate` seconds, `startTime` the earliest key time of any track,
 *   each time computed from `f` in one step ({@link timeGrid}), so there is no drift. Frame count by
 *   `options.duration` ({@link BakeDuration}; default `'ceil'`: the frames cover the last key).
 *   `options.rate` defaults to the keys' own rate ({@link inferKeyRate}, which is {@link clipRate}'s answer).
 * - Values: each track evaluated exactly as glTF defines it ({@link evaluateTrack}: clamped outside its
 *   own key range). A grid time on a key time takes the key as stored; with `keyTimes: 'float32'`
 *   (default) "on" means within two Float32 roundings (glTF stores times as Float32, so a key at
 *   `f / rate` is read back a rounding off the grid), so baking at the keys' rate reproduces the keys bit
 *   for bit; with `'exact'`, only equal times do and the others interpolate a rounding away from the key
 *   (a difference of about 1e-7 of the motion per frame). Quaternion signs are as the tracks give them
 *   (see `unrollQuaternions` for continuity).
 * - Joints or components without a track hold the skeleton's rest value. `animated` flags come from the
 *   tracks; `scales` exists only when some track animates a scale.
 * - Weights tracks are not part of a `Clip`: they are not baked, and stay in the keyed clip's `source`
 *   (carried through as the clip's `source`) for a writer that writes into the same document. Their
 *   key times do count in the clip's time span, which is the whole animation's.
 * - No tracks at all: one frame of the rest pose at time 0.
 *
 * Speed: one pass per track over the frames with a cached interval seek (amortised O(1) per frame) and
 * the slerp angle computed once per key interval; no allocation per frame.
 *
 * @param options - Defaults in {@link BAKE_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed keyed clip, naming the track and key.
 * @throws {OptionError} on a bad or unknown option, or when the grid would exceed `maxFrames`.
 * @example
 * const clip = bakeClip(keyed, { rate: 60 });
 * unrollClip(clip);
 */
export function bakeClip(keyed: KeyedClip, options: BakeClipOptions = {}): Clip {
  const where = 'bakeClip';
  const o = resolveOptions(where, options, BAKE_CLIP_DEFAULTS, BAKE_CLIP_SPEC);
  assertKeyedClip(keyed, `${where}: keyed`);
  const requested = o.rate === 'auto' ? keyRate(keyed).rate : o.rate;
  const { skeleton, tracks } = keyed;
  const J = skeleton.names.length;

  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const track of tracks) {
    start = Math.min(start, track.times[0]);
    end = Math.max(end, track.times[track.times.length - 1]);
  }
  if (tracks.length === 0) {
    start = 0;
    end = 0;
  }
  const span = end - start;
  const { frames, rate } = frameCount(span, Math.max(Math.abs(start), Math.abs(end)), requested, o.duration);
  if (frames > o.maxFrames || frames * J * 4 > 2 ** 31 - 1) {
    throw new OptionError(
      `${where}: ${span} s at ${rate} Hz would give ${frames} frames of ${J} joints (maxFrames ${o.maxFrames}); choose a lower rate`,
    );
  }
  const channels = 7 + (tracks.some((t) => t.path === 'scale') ? 3 : 0);
  if (frames * J * channels > o.maxValues) {
    throw new OptionError(
      `${where}: ${span} s at ${rate} Hz would give ${frames} frames x ${J} joints x ${channels} channels = ${frames * J * channels} values, more than maxValues (${o.maxValues}); choose a lower rate or raise maxValues`,
    );
  }
  const grid = timeGrid(frames, rate, rate);
  const times = new Float64Array(frames);
  for (let f = 0; f < frames; f++) times[f] = start + grid.times[f];

  const out = o.out ?? {};
  const rotations = buffer(out.rotations, frames * J * 4, 'rotations', where);
  const translations = buffer(out.translations, frames * J * 3, 'translations', where);
  const animated = new Uint8Array(J);
  let hasScale = false;
  for (const t of tracks) {
    animated[t.joint] |= animatedBit(t.path);
    if (t.path === 'scale') hasScale = true;
  }
  const scales = hasScale ? buffer(out.scales, frames * J * 3, 'scales', where) : undefined;
  fillRest(rotations, skeleton.restRotations, animated, 'rotation', frames, J, 4);
  fillRest(translations, skeleton.restTranslations, animated, 'translation', frames, J, 3);
  if (scales) fillRest(scales, skeleton.restScales, animated, 'scale', frames, J, 3);

  if (o.curve === 'spline') {
    bakeSplines(keyed, times, { rotations, translations, scales });
    return bakedClip(keyed, frames, rate, start, rotations, translations, scales, animated);
  }
  const samplers: TrackSampler[] = [];
  const targets: Float64Array[] = [];
  const offsets: number[] = [];
  const strides: number[] = [];
  for (let i = 0; i < tracks.length; i++) {
    const t = tracks[i];
    if (t.path === 'weights') continue;
    const sampler = new TrackSampler(t, trackLabel(keyed, i, where), true);
    if (o.keyTimes === 'float32') sampler.keySnap = KEY_SNAP_FLOAT32;
    samplers.push(sampler);
    targets.push(t.path === 'rotation' ? rotations : t.path === 'translation' ? translations : scales!);
    offsets.push(t.joint * t.width);
    strides.push(J * t.width);
  }
  // frame-major: the writes of one frame are contiguous, each sampler walks its own keys forward
  const S = samplers.length;
  for (let f = 0; f < frames; f++) {
    const time = times[f];
    for (let s = 0; s < S; s++) samplers[s].sample(targets[s], offsets[s] + f * strides[s], time);
  }

  return bakedClip(keyed, frames, rate, start, rotations, translations, scales, animated);
}

/** The baked clip around its series. */
function bakedClip(
  keyed: KeyedClip,
  frames: number,
  rate: number,
  start: number,
  rotations: Float64Array,
  translations: Float64Array,
  scales: Float64Array | undefined,
  animated: Uint8Array,
): Clip {
  const { skeleton } = keyed;
  const J = skeleton.names.length;
  return {
    ...(keyed.name !== undefined ? { name: keyed.name } : {}),
    skeleton,
    frameTime: 1 / rate,
    rate,
    frames,
    ...(start !== 0 ? { startTime: start } : {}),
    rotations: { data: rotations, frames, joints: J },
    translations: { data: translations, frames, joints: J },
    ...(scales ? { scales: { data: scales, frames, joints: J } } : {}),
    animated,
    orders: keyed.orders.slice(),
    ...(keyed.source !== undefined ? { source: keyed.source } : {}),
  };
}

/** `curve: 'spline'`: each track's C² spline evaluated at every frame time and written into its joint's column. */
function bakeSplines(
  keyed: KeyedClip,
  times: Float64Array,
  series: { rotations: Float64Array; translations: Float64Array; scales: Float64Array | undefined },
): void {
  const J = keyed.skeleton.names.length;
  const frames = times.length;
  let column = new Float64Array(0);
  for (let i = 0; i < keyed.tracks.length; i++) {
    const t = keyed.tracks[i];
    if (t.path === 'weights') continue;
    const width = t.path === 'rotation' ? 4 : 3;
    if (column.length !== frames * width) column = new Float64Array(frames * width);
    // the tracks were checked with the clip (assertKeyedClip), so the splines take them as they are
    if (t.path === 'rotation') rotationSplineTrack(t, times, column);
    else vectorSplineTrack(t, times, column);
    const target =
      t.path === 'rotation'
        ? series.rotations
        : t.path === 'translation'
          ? series.translations
          : series.scales!;
    for (let f = 0; f < frames; f++)
      for (let c = 0; c < width; c++) target[(f * J + t.joint) * width + c] = column[f * width + c];
  }
}

function buffer(given: Float64Array | undefined, length: number, what: string, where: string): Float64Array {
  if (given === undefined) return new Float64Array(length);
  if (!(given instanceof Float64Array)) throw new OptionError(`${where}: out.${what} must be a Float64Array`);
  if (given.length < length) {
    throw new OptionError(`${where}: out.${what} holds ${given.length} values, the clip needs ${length}`);
  }
  return given.length === length ? given : given.subarray(0, length);
}

/** Every frame gets the rest values of the joints whose `path` is not animated (one row, then doubling copies). */
function fillRest(
  data: Float64Array,
  rest: Float64Array,
  animated: Uint8Array,
  path: TrackPath,
  frames: number,
  joints: number,
  width: number,
): void {
  const flag = animatedBit(path);
  let any = false;
  for (let j = 0; j < joints; j++) if (!(animated[j] & flag)) any = true;
  if (!any || frames === 0) return;
  // the whole rest row into frame 0 (animated joints are overwritten by their tracks anyway)
  data.set(rest, 0);
  const row = joints * width;
  let filled = 1;
  while (filled < frames) {
    const n = Math.min(filled, frames - filled);
    data.copyWithin(filled * row, 0, n * row);
    filled += n;
  }
}

/** Frame count and rate for a keyed span (seconds) under a duration policy; see {@link BakeDuration}. */
function frameCount(
  span: number,
  tMax: number,
  rate: number,
  duration: BakeDuration,
): { frames: number; rate: number } {
  if (!(span > 0)) return { frames: 1, rate };
  const x = span * rate;
  if (!(x < 2 ** 53)) return { frames: Number.POSITIVE_INFINITY, rate };
  const whole = Math.round(x);
  if (Math.abs(x - whole) <= timeTolerance(tMax, span) * rate) return { frames: whole + 1, rate };
  if (duration === 'ceil') return { frames: Math.ceil(x) + 1, rate };
  if (duration === 'floor') return { frames: Math.floor(x) + 1, rate };
  const m = Math.max(1, Math.round(x));
  return { frames: m + 1, rate: m / span };
}
