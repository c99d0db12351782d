import { InvalidValueError, ShapeError } from '../errors.js';
import { type EulerOrder, isEulerOrder } from '../quat/euler.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_SCALE,
  ANIMATED_TRANSLATION,
  type BvhSource,
  type Clip,
  type ClipSource,
  type Skeleton,
  type TrackPath,
} from './clip.js';
import { assertQuatSeries, assertVec3Series } from './create.js';
import type { QuatSeries, Vec3Series } from './types.js';

/** What {@link makeSkeleton} takes: names, parents and rest translations; rest rotations and scales are optional. */
export interface SkeletonInit {
  names: readonly string[];
  parents: ArrayLike<number>;
  /** Rest local translation, `joints x 3`. */
  restTranslations: ArrayLike<number>;
  /** Rest local rotation, `joints x 4` (x, y, z, w). Default: identity. */
  restRotations?: ArrayLike<number>;
  /** Rest local scale, `joints x 3`. Default: ones. */
  restScales?: ArrayLike<number>;
}

function copyChecked(values: ArrayLike<number>, expected: number, what: string, where: string): Float64Array {
  if (values === null || typeof values !== 'object' || typeof values.length !== 'number') {
    throw new ShapeError(`${where}: ${what} must be an array of numbers`);
  }
  if (values.length !== expected) {
    throw new ShapeError(`${where}: ${what} has ${values.length} values, expected ${expected}`);
  }
  const out = new Float64Array(expected);
  for (let i = 0; i < expected; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new InvalidValueError(`${where}: ${what}[${i}] is ${String(v)}, not a finite number`, {
        index: i,
      });
    }
    out[i] = v;
  }
  return out;
}

/**
 * Checks the hierarchy of a skeleton: one name per joint, `parents[j]` an integer with `-1 <= parents[j] < j`.
 *
 * @throws {ShapeError} naming the joint whose parent is out of order.
 */
export function assertHierarchy(names: readonly string[], parents: ArrayLike<number>, where: string): void {
  if (!Array.isArray(names)) throw new ShapeError(`${where}: names must be an array of strings`);
  if (parents === null || typeof parents !== 'object' || parents.length !== names.length) {
    throw new ShapeError(`${where}: parents must have one entry per joint (${names.length})`);
  }
  for (let j = 0; j < names.length; j++) {
    if (typeof names[j] !== 'string') throw new ShapeError(`${where}: names[${j}] is not a string`);
    const p = parents[j];
    if (!Number.isInteger(p) || p < -1 || p >= j) {
      throw new ShapeError(
        `${where}: parents[${j}] is ${p}; a parent must come before its child (-1 <= parent < ${j}, -1 for a root)`,
      );
    }
  }
}

/**
 * Builds a {@link Skeleton} from names, parents and rest transforms, copying every array into Float64
 * and filling identity rest rotations and unit rest scales where none are given.
 *
 * @throws {ShapeError} when a length does not fit the joint count or a parent does not precede its child.
 * @throws {InvalidValueError} on a non-finite rest value.
 * @example
 * const s = makeSkeleton({ names: ['hips', 'spine'], parents: [-1, 0], restTranslations: [0, 1, 0, 0, 0.2, 0] });
 */
export function makeSkeleton(init: SkeletonInit): Skeleton {
  const where = 'makeSkeleton';
  if (init === null || typeof init !== 'object') throw new ShapeError(`${where}: expected an object`);
  const J = Array.isArray(init.names) ? init.names.length : -1;
  assertHierarchy(init.names, init.parents, where);
  const restRotations =
    init.restRotations === undefined
      ? identityRotations(J)
      : copyChecked(init.restRotations, J * 4, 'restRotations', where);
  const restScales =
    init.restScales === undefined
      ? new Float64Array(J * 3).fill(1)
      : copyChecked(init.restScales, J * 3, 'restScales', where);
  return {
    names: init.names.slice(),
    parents: Int32Array.from(init.parents),
    restTranslations: copyChecked(init.restTranslations, J * 3, 'restTranslations', where),
    restRotations,
    restScales,
  };
}

function identityRotations(joints: number): Float64Array {
  const out = new Float64Array(joints * 4);
  for (let i = 3; i < out.length; i += 4) out[i] = 1;
  return out;
}

/** What {@link makeClip} takes. Everything but the skeleton, the frame time and the rotations is optional. */
export interface ClipInit {
  name?: string;
  skeleton: Skeleton;
  /** Seconds between frames, finite and positive. */
  frameTime: number;
  startTime?: number;
  rotations: QuatSeries;
  /** Default: the rest translations at every frame. */
  translations?: Vec3Series;
  scales?: Vec3Series;
  /** Default: rotation animated on every joint, translation on roots only. */
  animated?: Uint8Array;
  /** Default: `'XYZ'` for every joint. */
  orders?: EulerOrder[];
  source?: ClipSource;
}

/**
 * Builds a {@link Clip} after checking that every series has the skeleton's joint count and the same
 * frame count, filling the defaults named in {@link ClipInit}. Series are not copied.
 *
 * @throws {ShapeError} when counts disagree; {@link InvalidValueError} when the frame time is not a
 * finite positive number whose rate is finite.
 */
export function makeClip(init: ClipInit): Clip {
  const where = 'makeClip';
  if (init === null || typeof init !== 'object') throw new ShapeError(`${where}: expected an object`);
  const { skeleton, rotations } = init;
  assertSkeleton(skeleton, `${where}: skeleton`);
  const J = skeleton.names.length;
  assertQuatSeries(rotations, `${where}: rotations`);
  if (rotations.joints !== J) {
    throw new ShapeError(`${where}: rotations have ${rotations.joints} joints, the skeleton ${J}`);
  }
  const frames = rotations.frames;
  checkFrameTime(init.frameTime, where);
  let translations = init.translations;
  if (translations === undefined) {
    const data = new Float64Array(frames * J * 3);
    for (let f = 0; f < frames; f++) data.set(skeleton.restTranslations, f * J * 3);
    translations = { data, frames, joints: J };
  }
  checkVec3(translations, frames, J, `${where}: translations`);
  if (init.scales !== undefined) checkVec3(init.scales, frames, J, `${where}: scales`);
  let animated = init.animated;
  if (animated === undefined) {
    animated = new Uint8Array(J);
    for (let j = 0; j < J; j++)
      animated[j] = ANIMATED_ROTATION | (skeleton.parents[j] < 0 ? ANIMATED_TRANSLATION : 0);
  }
  if (!(animated instanceof Uint8Array) || animated.length !== J) {
    throw new ShapeError(`${where}: animated must be a Uint8Array of one flag set per joint (${J})`);
  }
  const orders = init.orders ?? new Array<EulerOrder>(J).fill('XYZ');
  if (!Array.isArray(orders) || orders.length !== J || !orders.every(isEulerOrder)) {
    throw new ShapeError(`${where}: orders must list one Euler order per joint (${J})`);
  }
  const startTime = init.startTime ?? 0;
  if (!Number.isFinite(startTime))
    throw new InvalidValueError(`${where}: startTime must be finite, got ${startTime}`);
  return {
    ...(init.name !== undefined ? { name: init.name } : {}),
    skeleton,
    frameTime: init.frameTime,
    rate: 1 / init.frameTime,
    frames,
    ...(startTime !== 0 ? { startTime } : {}),
    rotations,
    translations,
    ...(init.scales !== undefined ? { scales: init.scales } : {}),
    animated,
    orders,
    ...(init.source !== undefined ? { source: init.source } : {}),
  };
}

function checkFrameTime(frameTime: number, where: string): void {
  if (
    typeof frameTime !== 'number' ||
    !(frameTime > 0) ||
    !Number.isFinite(frameTime) ||
    !Number.isFinite(1 / frameTime)
  ) {
    throw new InvalidValueError(
      `${where}: frameTime must be a finite positive number of seconds with a finite rate, got ${frameTime}`,
    );
  }
}

function checkVec3(series: Vec3Series, frames: number, joints: number, name: string): void {
  assertVec3Series(series, name);
  if (series.frames !== frames || series.joints !== joints) {
    throw new ShapeError(
      `${name}: ${series.frames} frames x ${series.joints} joints, expected ${frames} x ${joints}`,
    );
  }
}

/**
 * Checks that a value is a well-formed {@link Skeleton}: hierarchy in order and rest arrays of the right length.
 *
 * @throws {ShapeError} naming the field that does not fit.
 */
export function assertSkeleton(skeleton: Skeleton, name = 'skeleton'): void {
  if (skeleton === null || typeof skeleton !== 'object') throw new ShapeError(`${name} must be a Skeleton`);
  assertHierarchy(skeleton.names, skeleton.parents, name);
  const J = skeleton.names.length;
  const fields = [
    ['restTranslations', 3],
    ['restRotations', 4],
    ['restScales', 3],
  ] as const;
  for (const [field, width] of fields) {
    const v = skeleton[field];
    if (!(v instanceof Float64Array) || v.length !== J * width) {
      throw new ShapeError(
        `${name}.${field} must be a Float64Array of joints x ${width} = ${J * width} values`,
      );
    }
  }
}

/**
 * Checks that a value is a well-formed {@link Clip}: skeleton, frame time and rate, and every series with
 * the skeleton's joints and the clip's frames. Values are not scanned (operations that need finite data
 * check it where they read it).
 *
 * @throws {ShapeError} or {@link InvalidValueError} naming the field that does not fit.
 */
export function assertClip(clip: Clip, name = 'clip'): void {
  if (clip === null || typeof clip !== 'object') throw new ShapeError(`${name} must be a Clip`);
  assertSkeleton(clip.skeleton, `${name}.skeleton`);
  const J = clip.skeleton.names.length;
  checkFrameTime(clip.frameTime, name);
  // the rate is 1 / frameTime (kept as a field for callers); one that disagrees is a malformed clip
  if (
    typeof clip.rate !== 'number' ||
    !Number.isFinite(clip.rate) ||
    !(Math.abs(clip.rate * clip.frameTime - 1) <= 1e-6)
  ) {
    throw new InvalidValueError(
      `${name}: rate must be 1 / frameTime (${1 / clip.frameTime} frames per second), got ${clip.rate}`,
    );
  }
  // the time line: frame f is at startTime + f · frameTime, and the last one must be a number too
  const start = clip.startTime ?? 0;
  if (typeof start !== 'number' || !Number.isFinite(start + (clip.frames - 1) * clip.frameTime)) {
    throw new InvalidValueError(
      `${name}: the last frame's time is not finite (startTime ${start}, frameTime ${clip.frameTime}, ${clip.frames} frames)`,
    );
  }
  assertQuatSeries(clip.rotations, `${name}.rotations`);
  if (clip.rotations.joints !== J || clip.rotations.frames !== clip.frames) {
    throw new ShapeError(
      `${name}.rotations: ${clip.rotations.frames} frames x ${clip.rotations.joints} joints, expected ${clip.frames} x ${J}`,
    );
  }
  checkVec3(clip.translations, clip.frames, J, `${name}.translations`);
  if (clip.scales !== undefined) checkVec3(clip.scales, clip.frames, J, `${name}.scales`);
  if (!(clip.animated instanceof Uint8Array) || clip.animated.length !== J) {
    throw new ShapeError(`${name}.animated must be a Uint8Array with one flag set per joint (${J})`);
  }
  if (!Array.isArray(clip.orders) || clip.orders.length !== J || !clip.orders.every(isEulerOrder)) {
    throw new ShapeError(`${name}.orders must list one Euler order per joint (${J})`);
  }
}

/** The flags of {@link Clip.animated} as names, for messages and reports. */
export function animatedPaths(flags: number): ('translation' | 'rotation' | 'scale')[] {
  const out: ('translation' | 'rotation' | 'scale')[] = [];
  if (flags & ANIMATED_TRANSLATION) out.push('translation');
  if (flags & ANIMATED_ROTATION) out.push('rotation');
  if (flags & ANIMATED_SCALE) out.push('scale');
  return out;
}

/**
 * The {@link Clip.animated} bit a keyed track of `path` sets on its joint: {@link ANIMATED_TRANSLATION},
 * {@link ANIMATED_ROTATION} or {@link ANIMATED_SCALE}; 0 for `'weights'` (morph weights are not part of a
 * joint's transform). The inverse of {@link animatedPaths}.
 *
 * @throws {InvalidValueError} when `path` is not a {@link TrackPath}.
 * @example
 * ```ts
 * import { ANIMATED_ROTATION, animatedBit } from 'rotsig';
 *
 * const animated = new Uint8Array(2);
 * animated[1] |= animatedBit('rotation');
 * console.log(animated[1] === ANIMATED_ROTATION); // true
 * ```
 */
export function animatedBit(path: TrackPath): number {
  if (path === 'translation') return ANIMATED_TRANSLATION;
  if (path === 'rotation') return ANIMATED_ROTATION;
  if (path === 'scale') return ANIMATED_SCALE;
  if (path === 'weights') return 0;
  throw new InvalidValueError(
    `animatedBit: path must be 'translation', 'rotation', 'scale' or 'weights', got ${JSON.stringify(String(path))}`,
  );
}

/**
 * The clip's BVH source when it has one (`clip.source.format === 'bvh'`) that fits its skeleton, else
 * `undefined`: what BVH-only reports (channel counts, position-mode guesses) and the BVH writer read.
 *
 * @throws {ShapeError} when `clip.source` says BVH but its channel lists do not fit the skeleton.
 */
export function bvhSourceOf(clip: Clip): BvhSource | undefined {
  if (
    clip === null ||
    typeof clip !== 'object' ||
    clip.skeleton === null ||
    typeof clip.skeleton !== 'object'
  )
    throw new ShapeError('bvhSourceOf: clip must be a Clip with a skeleton');
  const source = clip.source;
  if (source === undefined || source === null || source.format !== 'bvh') return undefined;
  const s = source as BvhSource;
  const J = clip.skeleton.names.length;
  if (!Array.isArray(s.channels) || s.channels.length !== J || !Array.isArray(s.endSites)) {
    throw new ShapeError(
      `clip.source: a BVH source must list one channel list per joint (${J}) and an array of End Sites`,
    );
  }
  return s;
}
