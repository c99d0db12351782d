/**
 * The checks every keyed-track operation makes: track shapes, interpolations and key values.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import type { Interpolation, KeyedClip, Track, TrackPath } from '../../series/clip.js';
import { assertSkeleton } from '../../series/clip-create.js';

/** Every {@link Interpolation}. */
export const INTERPOLATIONS: readonly Interpolation[] = ['step', 'linear', 'cubicspline'];

/** Every {@link TrackPath}. */
export const TRACK_PATHS: readonly TrackPath[] = ['translation', 'rotation', 'scale', 'weights'];

/**
 * Values per key of a path: 4 for rotations, 3 for translations and scales, `undefined` (any ≥ 1) for weights.
 *
 * @example
 * pathWidth('rotation'); // 4
 */
export function pathWidth(path: TrackPath): number | undefined {
  return path === 'rotation' ? 4 : path === 'weights' ? undefined : 3;
}

function isFloatArray(a: unknown): a is Float64Array | Float32Array {
  return a instanceof Float64Array || a instanceof Float32Array;
}

/**
 * Checks one keyed track: path, interpolation, a width that fits the path (4 for rotations, 3 for
 * translations and scales, any integer ≥ 1 for weights), at least one key time, strictly increasing
 * finite times, `keys × width` values (`keys × 3 × width` for `'cubicspline'`: in-tangent, value,
 * out-tangent per key), all finite. With `joints`, also that the track's joint is in the skeleton
 * (`-1` is allowed for weights only).
 *
 * `name` starts every message (`bakeClip: tracks[3] (joint 5 'hips', rotation)`), so a failure names the
 * track and then the key.
 *
 * @throws {ShapeError} on a wrong path, interpolation, width, joint or length.
 * @throws {InvalidValueError} on a time or value that is not finite or a time not after the previous
 *   one, with `location.index` the key and `location.joint` the track's joint.
 * @example
 * assertTrack({ joint: 0, path: 'scale', interpolation: 'step', times: Float64Array.of(0, 1),
 *   values: Float64Array.of(1, 1, 1, 2, 2, 2), width: 3 });
 */
export function assertTrack(track: Track, name = 'track', joints?: number): void {
  if (track === null || typeof track !== 'object') throw new ShapeError(`${name} must be a Track`);
  const { path, interpolation, width, joint, times, values } = track;
  if (!TRACK_PATHS.includes(path)) {
    throw new ShapeError(`${name}: path must be one of ${TRACK_PATHS.join(', ')}, got '${String(path)}'`);
  }
  if (!INTERPOLATIONS.includes(interpolation)) {
    throw new ShapeError(
      `${name}: interpolation must be one of ${INTERPOLATIONS.join(', ')}, got '${String(interpolation)}'`,
    );
  }
  const expected = pathWidth(path);
  if (!Number.isInteger(width) || width < 1 || (expected !== undefined && width !== expected)) {
    throw new ShapeError(
      `${name}: width is ${String(width)}; a ${path} track has ${expected ?? 'at least 1'} values per key`,
    );
  }
  const minJoint = path === 'weights' ? -1 : 0;
  if (!Number.isInteger(joint) || joint < minJoint || (joints !== undefined && joint >= joints)) {
    throw new ShapeError(
      `${name}: joint is ${String(joint)}, expected an integer in [${minJoint}, ${joints === undefined ? '∞' : joints - 1}]`,
    );
  }
  if (!isFloatArray(times)) throw new ShapeError(`${name}: times must be a Float64Array or Float32Array`);
  if (!isFloatArray(values)) throw new ShapeError(`${name}: values must be a Float64Array or Float32Array`);
  const n = times.length;
  if (n < 1) throw new ShapeError(`${name}: a track needs at least one key`);
  const per = interpolation === 'cubicspline' ? 3 * width : width;
  if (values.length !== n * per) {
    throw new ShapeError(
      `${name}: ${values.length} values for ${n} keys, expected keys x ${interpolation === 'cubicspline' ? '3 x ' : ''}${width} = ${n * per}`,
    );
  }
  // (each pass over the keys is a function of its own: optimised once for every track)
  const k = firstUnorderedTime(times);
  if (k >= 0) {
    const t = times[k];
    if (!Number.isFinite(t)) {
      throw new InvalidValueError(`${name}: key ${k} has time ${t}, not a finite number of seconds`, {
        index: k,
        joint,
      });
    }
    throw new InvalidValueError(
      `${name}: key ${k} has time ${t}, not after key ${k - 1} at ${times[k - 1]}; key times must be strictly increasing`,
      { index: k, joint },
    );
  }
  if (allFinite(values)) return;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      const k = Math.floor(i / per);
      const within = i - k * per;
      const part =
        interpolation === 'cubicspline'
          ? ` (${['in-tangent', 'value', 'out-tangent'][Math.floor(within / width)]} component ${within % width})`
          : ` (component ${within})`;
      throw new InvalidValueError(`${name}: key ${k} has a non-finite value ${values[i]}${part}`, {
        index: k,
        joint,
      });
    }
  }
}

/**
 * The first key whose time is not finite or not after the one before, or -1: the key-time rule of a
 * track, for readers that name the key themselves.
 *
 * @internal
 */
export function firstUnorderedTime(times: ArrayLike<number>): number {
  let prev = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < times.length; k++) {
    const t = times[k];
    if (!(Number.isFinite(t) && t > prev)) return k;
    prev = t;
  }
  return -1;
}

/** Whether every value is finite: one multiply-add per value (`v·0` is NaN exactly for NaN and ±∞). */
function allFinite(values: ArrayLike<number>): boolean {
  let probe = 0;
  for (let i = 0; i < values.length; i++) probe += values[i] * 0;
  return probe === 0;
}

/** How a track is named in messages: `tracks[3] (joint 5 'hips', rotation)`. @internal */
export function trackLabel(keyed: KeyedClip, index: number, where: string): string {
  const t = keyed.tracks[index];
  const joint = t && typeof t === 'object' ? t.joint : undefined;
  const jointName = typeof joint === 'number' && joint >= 0 ? keyed.skeleton?.names?.[joint] : undefined;
  const path = t && typeof t === 'object' ? t.path : undefined;
  return `${where}: tracks[${index}] (joint ${String(joint)}${jointName !== undefined ? ` '${jointName}'` : ''}, ${String(path)})`;
}

/**
 * Checks a {@link KeyedClip}: its skeleton, one Euler order per joint, and every track with
 * {@link assertTrack} against the skeleton's joint count; no two tracks may drive the same joint and
 * path (glTF forbids it too: the result would depend on their order).
 *
 * @throws {ShapeError} or {@link InvalidValueError} naming the track (index, joint, path) and the key.
 * @example
 * assertKeyedClip(keyed, 'bakeClip: keyed');
 */
export function assertKeyedClip(keyed: KeyedClip, name = 'keyed'): void {
  if (keyed === null || typeof keyed !== 'object') throw new ShapeError(`${name} must be a KeyedClip`);
  assertSkeleton(keyed.skeleton, `${name}.skeleton`);
  const J = keyed.skeleton.names.length;
  if (!Array.isArray(keyed.orders) || keyed.orders.length !== J) {
    throw new ShapeError(`${name}.orders must list one Euler order per joint (${J})`);
  }
  if (!Array.isArray(keyed.tracks)) throw new ShapeError(`${name}.tracks must be an array of tracks`);
  const seen = new Map<string, number>();
  for (let i = 0; i < keyed.tracks.length; i++) {
    const label = trackLabel(keyed, i, name);
    assertTrack(keyed.tracks[i], label, J);
    const t = keyed.tracks[i];
    if (t.joint < 0) continue; // weights of a node outside the skeleton: several may exist
    const key = `${t.joint}/${t.path}`;
    const other = seen.get(key);
    if (other !== undefined) {
      throw new ShapeError(`${label}: drives the same joint and path as tracks[${other}]`);
    }
    seen.set(key, i);
  }
}
