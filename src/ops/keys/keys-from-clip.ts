/**
 * Turning a uniform clip back into keyed tracks.
 *
 * @module
 */
import { OptionError, ShapeError } from '../../errors.js';
import { choleskyBanded, solveCholeskyBanded } from '../../numeric/banded.js';
import {
  frozenDefaults,
  integerIn,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_SCALE,
  ANIMATED_TRANSLATION,
  type Clip,
  type KeyedClip,
  type Track,
} from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';
import type { FloatArray } from '../../series/types.js';
import { downsampleOptimal } from '../resample/downsample-optimal.js';
import { playbackNormalEquations, playbackTaps } from '../resample/downsample-playback.js';
import { timeGrid } from '../resample/time-grid.js';
import { unrollQuaternions } from '../unroll/unroll-quaternions.js';

/** Which keys {@link keysFromClip} makes: every frame, or the optimal keys at a lower rate. */
export type KeySelection = 'all' | 'optimal';

/** Options of {@link keysFromClip}. */
export interface KeysFromClipOptions {
  /** `'all'` (every frame a key) or `'optimal'` (keys at `targetRate` that reconstruct the clip best). Default `'all'`. */
  keys?: KeySelection;
  /** Key rate in Hz for `keys: 'optimal'`, below the clip's rate. Required there, ignored for `'all'`. */
  targetRate?: number;
  /** Gauss-Newton steps of the rotation keys for `'optimal'` (see `downsampleOptimal`). Default 3. */
  iterations?: number;
}

/** Defaults of {@link KeysFromClipOptions} (frozen; `targetRate` has none: `'optimal'` needs it). */
export const KEYS_FROM_CLIP_DEFAULTS: Readonly<Required<Omit<KeysFromClipOptions, 'targetRate'>>> =
  frozenDefaults({
    keys: 'all',
    iterations: 3,
  });

const KEYS_FROM_CLIP_SPEC: OptionSpec = {
  keys: oneOf(['all', 'optimal']),
  targetRate: POSITIVE_NUMBER,
  iterations: integerIn(0),
};

/**
 * Turns a uniform clip into keyed tracks with LINEAR interpolation (slerp for rotations, as glTF
 * plays them): one track per animated component (the clip's `animated` flags; joints and components
 * that are not animated get no track, so they hold the rest value).
 *
 * - `keys: 'all'`: every frame is a key, at `startTime + f / rate` seconds (the times {@link bakeClip}
 *   uses, so baking the result at the clip's rate gives back the clip's values exactly, quaternion signs
 *   aside).
 * - `keys: 'optimal'`: keys at `startTime + j / targetRate`, the last key on or after the clip's last
 *   frame. Rotation keys are those `downsampleOptimal` chooses (least squares plus Gauss-Newton for
 *   nlerp playback between keys; slerp playback, as glTF does, differs from nlerp by a second-order
 *   amount in the key spacing); translation and scale keys solve the same banded least-squares problem
 *   for linear playback, which for vectors is exact (lerp is linear in the keys).
 *
 * Rotations are made sign-continuous along every track (`unrollQuaternions`: first key in `w ≥ 0`, each
 * next key on the previous key's hemisphere), so every interval is the short way and no writer or player
 * meets a flip. Times are Float64; `source`, `orders`, `name` and the skeleton are carried through.
 *
 * Edge cases: a clip of one frame gives one-key tracks; `'optimal'` on a clip of fewer than 2 frames
 * gives the frame itself as the key.
 *
 * @param options - Defaults in {@link KEYS_FROM_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed clip or non-finite values.
 * @throws {OptionError} on a bad or unknown option (`'optimal'` without a `targetRate` below the clip's rate).
 * @example
 * const keyed = keysFromClip(clip, { keys: 'optimal', targetRate: 30 });
 */
export function keysFromClip(clip: Clip, options: KeysFromClipOptions = {}): KeyedClip {
  const where = 'keysFromClip';
  const o = resolveOptions(where, options, KEYS_FROM_CLIP_DEFAULTS, KEYS_FROM_CLIP_SPEC);
  assertClip(clip, `${where}: clip`);
  const J = clip.skeleton.names.length;
  const { frames, animated } = clip;
  const start = clip.startTime ?? 0;
  for (let j = 0; j < J; j++) {
    if (animated[j] & ANIMATED_SCALE && clip.scales === undefined) {
      throw new ShapeError(`${where}: joint ${j} has an animated scale but the clip has no scales`);
    }
  }
  assertFiniteSeries(clip.rotations.data, J, 4, `${where}: clip.rotations`);
  assertFiniteSeries(clip.translations.data, J, 3, `${where}: clip.translations`);
  if (clip.scales) assertFiniteSeries(clip.scales.data, J, 3, `${where}: clip.scales`);

  let rate = clip.rate;
  let keyCount = frames;
  if (o.keys === 'optimal') {
    const target = o.targetRate;
    if (!(typeof target === 'number' && target > 0 && Number.isFinite(target))) {
      throw new OptionError(
        `${where}: keys 'optimal' needs a positive finite targetRate in Hz, got ${String(target)}`,
      );
    }
    if (target >= clip.rate) {
      throw new OptionError(
        `${where}: targetRate (${target} Hz) must be below the clip's rate (${clip.rate} Hz)`,
      );
    }
    rate = target;
    keyCount = frames < 2 ? frames : playbackTaps(frames, clip.rate, target, 'linear').keys;
  }
  const grid = timeGrid(keyCount, rate, rate);
  const times = new Float64Array(keyCount);
  for (let k = 0; k < keyCount; k++) times[k] = start + grid.times[k];

  const rotJoints: number[] = [];
  for (let j = 0; j < J; j++) if (animated[j] & ANIMATED_ROTATION) rotJoints.push(j);
  const rotKeys = rotationKeys(clip, rotJoints, o.keys === 'optimal' && frames >= 2 ? rate : 0, o.iterations);

  const tracks: Track[] = [];
  for (let j = 0; j < J; j++) {
    const flags = animated[j];
    if (flags & ANIMATED_TRANSLATION) {
      tracks.push(
        vectorTrack(
          clip.translations.data,
          j,
          J,
          frames,
          clip.rate,
          rate,
          keyCount,
          times,
          'translation',
          o.keys,
        ),
      );
    }
    if (flags & ANIMATED_ROTATION) {
      const a = rotJoints.indexOf(j);
      const values = new Float64Array(keyCount * 4);
      const R = rotJoints.length;
      for (let k = 0; k < keyCount; k++) {
        for (let c = 0; c < 4; c++) values[k * 4 + c] = rotKeys[(k * R + a) * 4 + c];
      }
      tracks.push({ joint: j, path: 'rotation', interpolation: 'linear', times, values, width: 4 });
    }
    if (flags & ANIMATED_SCALE) {
      tracks.push(
        vectorTrack(clip.scales!.data, j, J, frames, clip.rate, rate, keyCount, times, 'scale', o.keys),
      );
    }
  }
  return {
    ...(clip.name !== undefined ? { name: clip.name } : {}),
    skeleton: clip.skeleton,
    tracks,
    orders: clip.orders.slice(),
    ...(clip.source !== undefined ? { source: clip.source } : {}),
  };
}

/** Rotation keys of the listed joints, `keys x joints x 4`, sign-continuous; optimal when `targetRate > 0`. */
function rotationKeys(clip: Clip, joints: number[], targetRate: number, iterations: number): Float64Array {
  const J = clip.skeleton.names.length;
  const R = joints.length;
  const { frames } = clip;
  const data = new Float64Array(frames * R * 4);
  const src = clip.rotations.data;
  for (let f = 0; f < frames; f++) {
    for (let a = 0; a < R; a++) {
      const s = (f * J + joints[a]) * 4;
      const d = (f * R + a) * 4;
      for (let c = 0; c < 4; c++) data[d + c] = src[s + c];
    }
  }
  if (targetRate > 0 && R > 0) {
    const { keys } = downsampleOptimal(
      { data, frames, joints: R },
      { sourceRate: clip.rate, targetRate, playback: 'linear', iterations },
    );
    return keys.data; // already sign-continuous
  }
  unrollQuaternions({ data, frames, joints: R });
  return data;
}

function vectorTrack(
  data: FloatArray,
  j: number,
  J: number,
  frames: number,
  sourceRate: number,
  rate: number,
  keyCount: number,
  times: Float64Array,
  path: 'translation' | 'scale',
  keys: KeySelection,
): Track {
  const series = new Float64Array(frames * 3);
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < 3; c++) series[f * 3 + c] = data[(f * J + j) * 3 + c];
  }
  const values =
    keys === 'all' || frames < 2 ? series : optimalVectorKeys(series, frames, sourceRate, rate, keyCount);
  return { joint: j, path, interpolation: 'linear', times, values, width: 3 };
}

/**
 * Least-squares keys of a 3-vector signal for linear playback: `(BᵀB)·K = Bᵀ·X` with B the tent taps
 * from key positions to source frames (tridiagonal, one Cholesky factorisation for the three components).
 */
function optimalVectorKeys(
  series: Float64Array,
  frames: number,
  sourceRate: number,
  targetRate: number,
  K: number,
): Float64Array {
  const taps = playbackTaps(frames, sourceRate, targetRate, 'linear');
  const { ab, rhs, b } = playbackNormalEquations(taps, frames, K, series, 3);
  // a tiny ridge towards the nearest frame keeps keys that no frame reaches defined
  let maxDiag = 0;
  for (let k = 0; k < K; k++) maxDiag = Math.max(maxDiag, ab[k * (b + 1) + b]);
  const ridge = 1e-9 * maxDiag;
  for (let k = 0; k < K; k++) {
    ab[k * (b + 1) + b] += ridge;
    const f = Math.min(frames - 1, Math.round((k * sourceRate) / targetRate));
    for (let c = 0; c < 3; c++) rhs[k * 3 + c] += ridge * series[f * 3 + c];
  }
  choleskyBanded(ab, K, b);
  solveCholeskyBanded(ab, K, b, rhs, 3);
  return rhs;
}
