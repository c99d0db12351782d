// The keyed-subset path of the reduction: a keyed clip (glTF) sampled at every distinct key time of its
// tracks, each track's own keys the only frames it may keep, and the kept keys written back from the
// track itself (times and values as stored, CUBICSPLINE tangents included).
import { OptionError, ShapeError } from '../../errors.js';
import type { Clip, KeyedClip, Track } from '../../series/clip.js';
import { animatedBit } from '../../series/clip-create.js';
import { TrackSampler } from '../keys/evaluate-track.js';
import { assertKeyedClip, trackLabel } from '../keys/track-checks.js';
import type { Resolved } from './reduce-options.js';

/** Per-track interpolation codes of the reduction (index `joint·3 + component`). */
export const LINEAR = 0;
export const STEP = 1;
export const CUBIC = 2;

/** Component of a track path: 0 translation, 1 rotation, 2 scale (the reduction's order of arrays). */
const COMPONENT: Record<string, number> = { translation: 0, rotation: 1, scale: 2 };

/** What the reduction needs to know of a keyed clip beyond its samples. */
export interface KeyedFrames {
  /** Every distinct key time of the moving tracks, increasing (seconds, as stored): the frames. */
  times: Float64Array;
  /** Per `joint·3 + component`: the frames that are the track's own keys (its key `k` is frame `keys[k]`); null without a track. */
  keys: (Int32Array | null)[];
  /** Per `joint·3 + component`: the track, or null. */
  tracks: (Track | null)[];
  /** Per `joint·3 + component`: {@link LINEAR}, {@link STEP} or {@link CUBIC}. */
  interpolation: Uint8Array;
  /** Morph-weight tracks, kept as they are. */
  weights: Track[];
  /** Keys of the moving tracks, summed. */
  keyCount: number;
}

/** Whether `clip` is a keyed clip (tracks) rather than a uniformly sampled one. */
export function isKeyed(clip: Clip | KeyedClip): clip is KeyedClip {
  // anything else (a malformed clip, null) goes to the clip check, which names what is wrong
  return (
    typeof clip === 'object' &&
    clip !== null &&
    (clip as KeyedClip).tracks !== undefined &&
    (clip as Clip).frames === undefined
  );
}

/**
 * `keyed` sampled at every distinct key time of its moving tracks (each track evaluated as glTF says:
 * a key time gives the key as stored), as a clip the reduction runs on, and the frames each track may
 * keep. Joints and components without a track hold the skeleton's rest values.
 *
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed keyed clip; {@link OptionError} when
 * `interpolation: 'cubicspline'` is asked (a keyed clip keeps each track's own) or 16-bit rotations meet a
 * CUBICSPLINE rotation track, or two tracks drive one joint's component.
 */
export function keyedFrames(
  keyed: KeyedClip,
  o: Resolved,
  explicitCubic: boolean,
): { clip: Clip; frames: KeyedFrames } {
  assertKeyedClip(keyed, 'reduceKeys: keyed');
  if (explicitCubic)
    throw new OptionError(
      "reduceKeys: a keyed clip keeps each track's own interpolation; interpolation 'cubicspline' applies to uniformly sampled clips",
    );
  const { skeleton } = keyed;
  const J = skeleton.names.length;
  const moving: Track[] = [];
  const weights: Track[] = [];
  const tracks: (Track | null)[] = new Array(J * 3).fill(null);
  const labels: string[] = [];
  for (let i = 0; i < keyed.tracks.length; i++) {
    const t = keyed.tracks[i];
    if (t.path === 'weights') {
      weights.push(t);
      continue;
    }
    const at = t.joint * 3 + COMPONENT[t.path];
    if (tracks[at] !== null)
      throw new OptionError(
        `reduceKeys: ${trackLabel(keyed, i, 'keyed')} drives a joint's ${t.path} that another track drives already`,
      );
    if (o.quantization !== 'none' && t.path === 'rotation' && t.interpolation === 'cubicspline')
      throw new OptionError(
        `reduceKeys: quantization '${o.quantization}' needs LINEAR or STEP rotations; ${trackLabel(keyed, i, 'keyed')} is CUBICSPLINE`,
      );
    tracks[at] = t;
    moving.push(t);
    labels.push(trackLabel(keyed, i, 'reduceKeys'));
  }
  const times = unionTimes(moving);
  const F = times.length;
  // (each pass over every frame is a function of its own, optimised once: see prepare)
  const keys: (Int32Array | null)[] = new Array(J * 3).fill(null);
  const interpolation = new Uint8Array(J * 3);
  for (let at = 0; at < J * 3; at++) {
    const t = tracks[at];
    if (t === null) continue;
    keys[at] = framesOf(t.times, times);
    interpolation[at] =
      t.interpolation === 'step' ? STEP : t.interpolation === 'cubicspline' ? CUBIC : LINEAR;
  }
  // the samples: rest values, then every track at every frame
  const rotations = new Float64Array(F * J * 4);
  const translations = new Float64Array(F * J * 3);
  const hasScale = moving.some((t) => t.path === 'scale');
  const scales = hasScale ? new Float64Array(F * J * 3) : undefined;
  repeat(rotations, skeleton.restRotations, F);
  repeat(translations, skeleton.restTranslations, F);
  if (scales) repeat(scales, skeleton.restScales, F);
  const animated = new Uint8Array(J);
  for (let i = 0; i < moving.length; i++) {
    const t = moving[i];
    const target = t.path === 'rotation' ? rotations : t.path === 'translation' ? translations : scales!;
    animated[t.joint] |= animatedBit(t.path);
    const own = keys[t.joint * 3 + COMPONENT[t.path]]!;
    sampleTrack(target, J, t, own, times, new TrackSampler(t, labels[i], true));
  }
  const span = times[F - 1] - times[0];
  const frameTime = F > 1 ? span / (F - 1) : 1;
  const clip: Clip = {
    ...(keyed.name !== undefined ? { name: keyed.name } : {}),
    skeleton,
    frameTime,
    rate: 1 / frameTime,
    frames: F,
    ...(times[0] !== 0 ? { startTime: times[0] } : {}),
    rotations: { data: rotations, frames: F, joints: J },
    translations: { data: translations, frames: F, joints: J },
    ...(scales ? { scales: { data: scales, frames: F, joints: J } } : {}),
    animated,
    orders: keyed.orders.slice(),
    ...(keyed.source !== undefined ? { source: keyed.source } : {}),
  };
  let keyCount = 0;
  for (const t of moving) keyCount += t.times.length;
  return { clip, frames: { times, keys, tracks, interpolation, weights, keyCount } };
}

/** Each of a track's key times as its frame: its index in `times` (every distinct key time, increasing). */
function framesOf(own: ArrayLike<number>, times: Float64Array): Int32Array {
  const out = new Int32Array(own.length);
  let f = 0;
  for (let k = 0; k < own.length; k++) {
    while (times[f] !== own[k]) f++;
    out[k] = f;
  }
  return out;
}

/** `value` repeated `F` times into `out` (frame-major). */
function repeat(out: Float64Array, value: ArrayLike<number>, F: number): void {
  const n = value.length;
  for (let f = 0; f < F; f++) out.set(value, f * n);
}

/**
 * Track `t` at every frame into `target` (frame-major, `J` joints of `t.width`): at its own key frames
 * (`own`) its keys as stored (what the sampler returns there), between them the sampler's values; a
 * CUBICSPLINE track sampled everywhere, its rotation keys then as stored (the sampler normalises them:
 * the Hermite step takes them so, and the pose normalises after).
 */
function sampleTrack(
  target: Float64Array,
  J: number,
  t: Track,
  own: Int32Array,
  times: Float64Array,
  sampler: TrackSampler,
): void {
  const w = t.width;
  const F = times.length;
  const values = t.values;
  if (t.interpolation === 'cubicspline') {
    for (let f = 0; f < F; f++) sampler.sample(target, (f * J + t.joint) * w, times[f]);
    if (t.path === 'rotation')
      for (let k = 0; k < own.length; k++)
        for (let c = 0; c < 4; c++) target[(own[k] * J + t.joint) * 4 + c] = values[(3 * k + 1) * 4 + c];
    return;
  }
  let k = 0;
  for (let f = 0; f < F; f++) {
    const o = (f * J + t.joint) * w;
    if (k < own.length && own[k] === f) {
      for (let c = 0; c < w; c++) target[o + c] = values[k * w + c];
      k++;
    } else sampler.sample(target, o, times[f]);
  }
}

/**
 * The kept keys of one track as the track stores them: times and values (LINEAR, STEP) or in-tangent,
 * value, out-tangent (CUBICSPLINE) copied from the track, key by key; rotation values rounded to 16 bits
 * when asked (`quantized`: the frame-major rotation the reduction checked, sign-continuous, per kept key).
 */
export function keptTrack(
  frames: KeyedFrames,
  at: number,
  kept: Int32Array,
  quantized: ((k: number, c: number) => number) | null,
): Track {
  const t = frames.tracks[at]!;
  const own = frames.keys[at]!;
  const w = t.width;
  const per = t.interpolation === 'cubicspline' ? 3 : 1;
  const times = new Float64Array(kept.length);
  const values = new Float64Array(kept.length * w * per);
  let k = 0;
  for (let i = 0; i < kept.length; i++) {
    // kept frames are increasing, and each is one of the track's own
    while (k < own.length && own[k] !== kept[i]) k++;
    if (k === own.length) {
      throw new ShapeError(
        `reduceKeys: internal: frame ${kept[i]} kept for track ${at} is not one of its keys (joint ${t.joint}, ${t.path})`,
      );
    }
    times[i] = t.times[k];
    for (let c = 0; c < w * per; c++) values[i * w * per + c] = t.values[k * w * per + c];
    if (quantized) for (let c = 0; c < w; c++) values[i * w + c] = quantized(i, c);
  }
  return { joint: t.joint, path: t.path, interpolation: t.interpolation, times, values, width: w };
}

/** Every distinct key time of `tracks`, increasing (one 0 when there is none); tracks sharing one input are read once. */
function unionTimes(tracks: readonly Track[]): Float64Array {
  const first = tracks[0]?.times;
  if (first !== undefined && tracks.every((t) => sameTimes(t.times, first))) {
    // one input for every track (a baked clip): its times, already increasing
    return first.length > 0 ? Float64Array.from(first) : Float64Array.of(0);
  }
  let n = 0;
  for (const t of tracks) n += t.times.length;
  const all = new Float64Array(n);
  n = 0;
  for (const t of tracks) for (let k = 0; k < t.times.length; k++) all[n++] = t.times[k];
  all.sort();
  let F = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[F - 1]) all[F++] = all[i];
  if (F === 0) all[F++] = 0;
  return all.slice(0, F);
}

function sameTimes(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
