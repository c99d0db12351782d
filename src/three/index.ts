/**
 * rotsig/three: rotsig clips to and from three.js `AnimationClip`s and `Skeleton`s. `three` is an optional
 * peer dependency of this subpath only; the rest of rotsig never imports it.
 *
 * Conventions, the same in both libraries: quaternions x, y, z, w; a three.js `Euler` in order `'XYZ'` is
 * rotsig's intrinsic `'XYZ'`; bones compose `T · R · S` like glTF nodes and rotsig skeletons. Where they
 * differ: three.js's `Quaternion.slerpFlat` (used by its linear quaternion interpolant) switches to a
 * normalised lerp when two keys are within about 3.6° (dot above 0.9995); rotsig always slerps. Tracks made
 * by {@link toAnimationClip} use rotsig's exact slerp by default (`interpolant: 'rotsig'`), so a mixer plays
 * what rotsig computes; `interpolant: 'three'` keeps three.js's own.
 *
 * Binding rule ({@link bindingNames}): each joint name goes through `PropertyBinding.sanitizeNodeName`
 * (whitespace to `_`; `[ ] . : /` removed, the characters three.js's track names reserve), then a name
 * already taken (or empty) gets `_1`, `_2`, ... in joint order. {@link createSkeleton} names its bones
 * this way and {@link toAnimationClip} names its tracks this way, so they always bind; Mixamo's
 * `mixamorig:Hips` becomes `mixamorigHips`, as `GLTFLoader` names the same node. Names alone cannot bind
 * exactly where a file repeats a node name (or a mesh and a node share one): `GLTFLoader` numbers repeats by
 * its own load order, which counts meshes too. For a scene loaded by `GLTFLoader`, {@link gltfTargets} finds
 * each joint's object through the loader's node associations and {@link toAnimationClip}'s `targets`
 * option names the tracks by those objects' `uuid`, which `PropertyBinding` resolves exactly.
 *
 * @packageDocumentation
 */
import * as THREE from 'three';
import { InvalidValueError, OptionError, ShapeError } from '../errors.js';
import {
  customRule,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  orNull,
  resolveOptions,
  STRING_OPTION,
} from '../options.js';
import { slerpFlat } from '../quat/core.js';
import type { Clip, KeyedClip, Skeleton, Track, TrackPath } from '../series/clip.js';
import { assertClip, assertSkeleton } from '../series/clip-create.js';
import { assertFiniteSeries } from '../series/create.js';

/**
 * Track names for a skeleton's joints, unique, and safe for three.js's `PropertyBinding` (see the module
 * documentation for the rule). Elements that are not strings are named by their `String` value.
 *
 * @throws {ShapeError} when `names` is not an array.
 * @example
 * bindingNames(['mixamorig:Hips', 'Left Arm', 'Left.Arm']); // ['mixamorigHips', 'Left_Arm', 'LeftArm']
 */
export function bindingNames(names: readonly string[]): string[] {
  if (!Array.isArray(names)) throw new ShapeError('bindingNames: names must be an array of joint names');
  const used = new Set<string>();
  const out: string[] = [];
  for (const name of names) {
    const base = THREE.PropertyBinding.sanitizeNodeName(String(name));
    let candidate = base;
    for (let k = 1; candidate === '' || used.has(candidate); k++) candidate = `${base}_${k}`;
    used.add(candidate);
    out.push(candidate);
  }
  return out;
}

/**
 * A three.js `Skeleton` for a clip's hierarchy: `bones[j]` is joint `j`, parented as the clip's parents,
 * at the rest pose (rest translation, rotation and scale), named by {@link bindingNames}. Add every root
 * bone (`bone.parent === null`) to the scene; then `new THREE.SkeletonHelper(bones[0])` draws it and an
 * `AnimationMixer` on a root plays {@link toAnimationClip}'s output.
 *
 * @throws {ShapeError} when the skeleton is malformed; {@link InvalidValueError} when a rest value is not
 * finite.
 * @example
 * const scene = new THREE.Scene();
 * const skeleton = createSkeleton(clip);
 * for (const bone of skeleton.bones) if (!bone.parent) scene.add(bone);
 */
export function createSkeleton(clip: { skeleton: Skeleton }): THREE.Skeleton {
  const skeleton = clip?.skeleton;
  assertSkeleton(skeleton, 'createSkeleton: clip.skeleton');
  const J = skeleton.names.length;
  // three.js would carry a non-finite rest value into every matrix below it
  assertFiniteSeries(skeleton.restTranslations, J, 3, 'createSkeleton: clip.skeleton.restTranslations');
  assertFiniteSeries(skeleton.restRotations, J, 4, 'createSkeleton: clip.skeleton.restRotations');
  assertFiniteSeries(skeleton.restScales, J, 3, 'createSkeleton: clip.skeleton.restScales');
  const names = bindingNames(skeleton.names);
  const bones: THREE.Bone[] = [];
  const { parents, restTranslations: t, restRotations: r, restScales: s } = skeleton;
  for (let j = 0; j < names.length; j++) {
    const bone = new THREE.Bone();
    bone.name = names[j];
    bone.position.set(t[j * 3], t[j * 3 + 1], t[j * 3 + 2]);
    bone.quaternion.set(r[j * 4], r[j * 4 + 1], r[j * 4 + 2], r[j * 4 + 3]);
    bone.scale.set(s[j * 3], s[j * 3 + 1], s[j * 3 + 2]);
    if (parents[j] >= 0) bones[parents[j]].add(bone);
    bones.push(bone);
  }
  for (const bone of bones) if (bone.parent === null) bone.updateMatrixWorld(true);
  return new THREE.Skeleton(bones);
}

/** Options of {@link toAnimationClip}. */
export interface ToAnimationClipOptions {
  /** The clip's name. Default: the rotsig clip's `name`, else `'rotsig'`. */
  name?: string;
  /** Element type of track times and values. Default `'float32'` (three.js's own); `'float64'` for exact playback. */
  precision?: 'float32' | 'float64';
  /**
   * Quaternion interpolation between keys: `'rotsig'` (exact slerp, default) or `'three'` (three.js's
   * `QuaternionLinearInterpolant`, which lerps and normalises keys closer than dot 0.9995).
   */
  interpolant?: 'rotsig' | 'three';
  /**
   * Which components of a uniform `Clip` become tracks: `'animated'` (the joint's `animated` flags;
   * default) or `'all'` (rotation and translation of every joint).
   */
  tracks?: 'animated' | 'all';
  /**
   * The objects the tracks drive, one per joint (`targets[j]` for joint `j`, e.g. from {@link gltfTargets}):
   * tracks are then named by the object's `uuid` (`<uuid>.quaternion`), which `PropertyBinding` resolves
   * exactly whatever the names, and joints whose target is `null` get no tracks. Such a clip binds to those
   * objects only (a clone has new uuids). Default `null`: tracks named by {@link bindingNames}.
   */
  targets?: readonly (THREE.Object3D | null | undefined)[] | null;
}

/** Defaults of {@link ToAnimationClipOptions}. */
export const TO_ANIMATION_CLIP_DEFAULTS: Readonly<Required<Omit<ToAnimationClipOptions, 'name'>>> =
  frozenDefaults({
    precision: 'float32',
    interpolant: 'rotsig',
    tracks: 'animated',
    targets: null,
  });

const TO_ANIMATION_CLIP_SPEC: OptionSpec = {
  name: STRING_OPTION,
  precision: oneOf(['float32', 'float64']),
  interpolant: oneOf(['rotsig', 'three']),
  tracks: oneOf(['animated', 'all']),
  targets: orNull(customRule('an array of Object3D (or null) per joint', Array.isArray)),
};

const PROPERTY: Record<TrackPath, string> = {
  translation: 'position',
  rotation: 'quaternion',
  scale: 'scale',
  weights: 'morphTargetInfluences',
};

/**
 * A three.js `AnimationClip` of a rotsig clip: one `QuaternionKeyframeTrack` per animated rotation, one
 * `VectorKeyframeTrack` per animated translation (`.position`) and scale, `NumberKeyframeTrack`s for morph
 * weights, named by {@link bindingNames} so they bind to {@link createSkeleton}'s bones (and to a
 * `GLTFLoader` scene of the same file where its node names are unique; with `targets`, by the targets'
 * uuids, exact on any scene). A uniform `Clip` gives keys at `startTime + f · frameTime`; a
 * `KeyedClip` keeps each track's own key times and interpolation (`'step'` → discrete, `'linear'`,
 * `'cubicspline'` → glTF's Hermite spline with a normalised result for rotations, as `GLTFLoader` does).
 * The clip's duration is its last key time; before a track's first key three.js holds the first key's
 * value, as glTF does.
 *
 * @throws {ShapeError} on a malformed clip; {@link OptionError} on bad options.
 * @example
 * const skeleton = createSkeleton(clip);
 * const action = new THREE.AnimationMixer(skeleton.bones[0]).clipAction(toAnimationClip(clip));
 * action.play();
 */
export function toAnimationClip(
  clip: Clip | KeyedClip,
  options: ToAnimationClipOptions = {},
): THREE.AnimationClip {
  const o = resolveToClipOptions(options);
  const names: (string | null)[] = bindingNames(clip?.skeleton?.names ?? []);
  if (o.targets !== null) targetNames(o.targets, names);
  const Arr = o.precision === 'float64' ? Float64Array : Float32Array;
  const tracks: THREE.KeyframeTrack[] = [];
  if (isKeyed(clip)) {
    assertSkeleton(clip.skeleton, 'toAnimationClip: clip.skeleton');
    clip.tracks.forEach((track, i) => {
      for (const name of trackTargets(track, names, o.targets))
        tracks.push(keyedTrack(track, i, name, Arr, o));
    });
  } else {
    assertClip(clip, 'toAnimationClip: clip');
    const { frames } = clip;
    const J = names.length;
    assertFiniteSeries(clip.rotations.data, J, 4, 'toAnimationClip: clip.rotations');
    assertFiniteSeries(clip.translations.data, J, 3, 'toAnimationClip: clip.translations');
    if (clip.scales) assertFiniteSeries(clip.scales.data, J, 3, 'toAnimationClip: clip.scales');
    const times = new Arr(frames);
    const t0 = clip.startTime ?? 0;
    for (let f = 0; f < frames; f++) times[f] = t0 + f * clip.frameTime;
    for (let j = 0; j < J; j++) {
      if (names[j] === null) continue;
      const flags = o.tracks === 'all' ? 3 : clip.animated[j];
      if (flags & 2) {
        const values = gather(clip.rotations.data, frames, J, j, 4, Arr);
        tracks.push(rotationTrack(`${names[j]}.quaternion`, times, values, o));
      }
      if (flags & 1) {
        const values = gather(clip.translations.data, frames, J, j, 3, Arr);
        tracks.push(
          keepPrecision(new THREE.VectorKeyframeTrack(`${names[j]}.position`, times, values), times, values),
        );
      }
      if (flags & 4 && clip.scales !== undefined) {
        const values = gather(clip.scales.data, frames, J, j, 3, Arr);
        tracks.push(
          keepPrecision(new THREE.VectorKeyframeTrack(`${names[j]}.scale`, times, values), times, values),
        );
      }
    }
  }
  const name = options.name ?? clip.name ?? 'rotsig';
  return new THREE.AnimationClip(name, -1, tracks);
}

/**
 * three.js converts track times and values to Float32Array in the constructor (`TimeBufferType`,
 * `ValueBufferType`); a Float64 track gets its arrays set back after construction.
 */
function keepPrecision<T extends THREE.KeyframeTrack>(
  track: T,
  times: Float32Array | Float64Array,
  values: Float32Array | Float64Array,
): T {
  if (times instanceof Float64Array) {
    (track as unknown as { times: Float64Array }).times = times;
    (track as unknown as { values: Float64Array }).values = values as Float64Array;
  }
  return track;
}

function resolveToClipOptions(
  options: ToAnimationClipOptions,
): Required<Omit<ToAnimationClipOptions, 'name'>> {
  return resolveOptions('toAnimationClip', options, TO_ANIMATION_CLIP_DEFAULTS, TO_ANIMATION_CLIP_SPEC);
}

function isObject3D(v: unknown): v is THREE.Object3D {
  return (
    v !== null &&
    typeof v === 'object' &&
    (v as THREE.Object3D).isObject3D === true &&
    typeof (v as THREE.Object3D).uuid === 'string' &&
    typeof (v as THREE.Object3D).traverse === 'function'
  );
}

/** Replaces `names` (one per joint) by the targets' uuids, `null` where a joint has no target. */
function targetNames(
  targets: readonly (THREE.Object3D | null | undefined)[],
  names: (string | null)[],
): void {
  if (targets.length !== names.length) {
    throw new OptionError(
      `toAnimationClip: targets has ${targets.length} entries for a skeleton of ${names.length} joints`,
    );
  }
  for (let j = 0; j < names.length; j++) {
    const t = targets[j];
    if (t === null || t === undefined) names[j] = null;
    else if (isObject3D(t)) {
      if (!THREE.PropertyBinding.parseTrackName(`${t.uuid}.quaternion`).nodeName) {
        throw new OptionError(`toAnimationClip: targets[${j}] has a uuid a track name cannot carry`);
      }
      names[j] = t.uuid;
    } else throw new OptionError(`toAnimationClip: targets[${j}] is not a three.js Object3D`);
  }
}

/** What {@link gltfTargets} needs of a `GLTFLoader` result: its scene and the parser's node associations. */
export interface GltfLoaderResult {
  scene: THREE.Object3D;
  parser: { associations: Map<unknown, { nodes?: number } | undefined> };
}

/**
 * The object of a `GLTFLoader` scene that each joint of a clip read by rotsig's `readGltf` drives: joint
 * `j` came from glTF node `clip.source.nodes[j]`, and `GLTFLoader` records which object it made of each
 * node in `parser.associations`; the first such object in the scene's traversal is taken (a node used twice
 * is cloned by the loader). `null` for a joint whose node is not in the scene. Pass the result as
 * {@link toAnimationClip}'s `targets` to bind by node, exactly, where names repeat.
 *
 * @param gltf - what `GLTFLoader` produced for the same file (`{ scene, parser }`).
 * @param clip - a clip read from that file by `readGltf` (or processed from one: operations carry the
 * source through).
 * @throws {OptionError} when the clip has no glTF source (it was not read by `readGltf`) or `gltf` is not a
 * `GLTFLoader` result.
 * @example
 * import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
 * const buffer = await (await fetch('Fox.glb')).arrayBuffer();
 * const gltf = await new GLTFLoader().parseAsync(buffer, '');
 * const { clips } = await readGltf(new Uint8Array(buffer));
 * const clip = toAnimationClip(clips[0], { targets: gltfTargets(gltf, clips[0]) });
 * new THREE.AnimationMixer(gltf.scene).clipAction(clip).play();
 */
export function gltfTargets(
  gltf: GltfLoaderResult,
  clip: { skeleton: Skeleton; source?: unknown },
): (THREE.Object3D | null)[] {
  const associations = gltf?.parser?.associations;
  if (!isObject3D(gltf?.scene) || !(associations instanceof Map)) {
    throw new OptionError('gltfTargets: gltf must be a GLTFLoader result ({ scene, parser.associations })');
  }
  const J = clip?.skeleton?.names?.length;
  const source = clip?.source as { format?: unknown; nodes?: unknown } | undefined;
  const nodes = source?.format === 'gltf' ? source.nodes : undefined;
  if (!(nodes instanceof Int32Array) || nodes.length !== J) {
    throw new OptionError(
      'gltfTargets: the clip has no glTF node indices (read it with readGltf, or bind by name with bindingNames)',
    );
  }
  const byNode = new Map<number, THREE.Object3D>();
  gltf.scene.traverse((object) => {
    const index = associations.get(object)?.nodes;
    if (index !== undefined && !byNode.has(index)) byNode.set(index, object);
  });
  return Array.from(nodes, (n) => byNode.get(n) ?? null);
}

function isKeyed(clip: Clip | KeyedClip): clip is KeyedClip {
  return clip !== null && typeof clip === 'object' && Array.isArray((clip as KeyedClip).tracks);
}

type ArrayCtor = Float32ArrayConstructor | Float64ArrayConstructor;

function gather(
  src: ArrayLike<number>,
  frames: number,
  J: number,
  j: number,
  width: number,
  Arr: ArrayCtor,
): Float32Array | Float64Array {
  const out = new Arr(frames * width);
  for (let f = 0; f < frames; f++) {
    const s = (f * J + j) * width;
    for (let c = 0; c < width; c++) out[f * width + c] = src[s + c];
  }
  return out;
}

/**
 * The node names (or uuids) a keyed track drives: its joint's, none for a joint without a target, and with
 * `targets`, a morph weights track drives every mesh with morph targets under its node, as `GLTFLoader`
 * does (a node whose mesh has several primitives is a group of meshes).
 */
function trackTargets(
  track: Track,
  names: (string | null)[],
  targets: readonly (THREE.Object3D | null | undefined)[] | null,
): string[] {
  const joint = track?.joint;
  if (!Number.isInteger(joint) || joint < 0 || joint >= names.length) return ['']; // keyedTrack throws
  const name = names[joint];
  if (name === null) return [];
  if (targets === null || track.path !== 'weights') return [name];
  const meshes: string[] = [];
  targets[joint]!.traverse((object) => {
    if ((object as THREE.Mesh).morphTargetInfluences !== undefined) meshes.push(object.uuid);
  });
  return meshes;
}

function keyedTrack(
  track: Track,
  index: number,
  node: string,
  Arr: ArrayCtor,
  o: Required<Omit<ToAnimationClipOptions, 'name'>>,
): THREE.KeyframeTrack {
  const where = `toAnimationClip: track ${index}`;
  if (track === null || typeof track !== 'object') throw new ShapeError(`${where} is not a Track`);
  if (node === '') {
    throw new ShapeError(`${where}: joint ${track.joint} is not a joint of the skeleton`);
  }
  const property = PROPERTY[track.path];
  if (property === undefined) throw new ShapeError(`${where}: unknown path '${String(track.path)}'`);
  const keys = track.times?.length ?? 0;
  const per = track.interpolation === 'cubicspline' ? 3 : 1;
  if (keys === 0 || track.values?.length !== keys * track.width * per) {
    throw new ShapeError(
      `${where}: ${track.values?.length} values for ${keys} keys of width ${track.width}${per === 3 ? ' x 3 (cubicspline)' : ''}`,
    );
  }
  for (let k = 1; k < keys; k++) {
    if (!(track.times[k] > track.times[k - 1])) {
      throw new ShapeError(`${where}: key times must increase strictly (key ${k}: ${track.times[k]})`);
    }
  }
  if (!Number.isFinite(track.times[0]) || !Number.isFinite(track.times[keys - 1]))
    throw new InvalidValueError(`${where}: key times must be finite`);
  for (let i = 0; i < track.values.length; i++)
    if (!Number.isFinite(track.values[i]))
      throw new InvalidValueError(`${where}: value ${i} is ${track.values[i]}`, { index: i });
  const name = `${node}.${property}`;
  const times = new Arr(track.times);
  const values = new Arr(track.values);
  let out: THREE.KeyframeTrack;
  if (track.path === 'rotation') out = new THREE.QuaternionKeyframeTrack(name, times, values);
  else if (track.path === 'weights') out = new THREE.NumberKeyframeTrack(name, times, values);
  else out = new THREE.VectorKeyframeTrack(name, times, values);
  keepPrecision(out, times, values);
  if (track.interpolation === 'step') out.setInterpolation(THREE.InterpolateDiscrete);
  else if (track.interpolation === 'cubicspline') setCubicSpline(out, track.path === 'rotation');
  else if (track.interpolation === 'linear') {
    if (track.path === 'rotation' && o.interpolant === 'rotsig') setExactSlerp(out);
  } else throw new ShapeError(`${where}: unknown interpolation '${String(track.interpolation)}'`);
  return out;
}

function rotationTrack(
  name: string,
  times: Float32Array | Float64Array,
  values: Float32Array | Float64Array,
  o: Required<Omit<ToAnimationClipOptions, 'name'>>,
): THREE.KeyframeTrack {
  const track = keepPrecision(new THREE.QuaternionKeyframeTrack(name, times, values), times, values);
  if (o.interpolant === 'rotsig') setExactSlerp(track);
  return track;
}

/** Slerp on the shorter arc at every angle (rotsig's `slerpFlat`), for quaternion tracks. */
class ExactSlerpInterpolant extends THREE.Interpolant {
  override interpolate_(i1: number, t0: number, t: number, t1: number): THREE.TypedArray {
    const result = this.resultBuffer as Float64Array;
    const values = this.sampleValues as Float64Array;
    const stride = this.valueSize;
    const alpha = (t - t0) / (t1 - t0);
    let offset = i1 * stride;
    for (let end = offset + stride; offset !== end; offset += 4) {
      slerpFlat(result, offset - i1 * stride, values, offset - stride, values, offset, alpha);
    }
    return result;
  }
}

function setExactSlerp(track: THREE.KeyframeTrack): void {
  const factory = function InterpolantFactoryMethodRotsigSlerp(
    this: THREE.KeyframeTrack,
    result?: THREE.TypedArray,
  ): THREE.Interpolant {
    return new ExactSlerpInterpolant(this.times, this.values, this.getValueSize(), result);
  };
  (track as unknown as { createInterpolant: unknown }).createInterpolant = factory;
}

/** glTF's cubic Hermite spline over [in-tangent, value, out-tangent] keys; rotations normalised after. */
class CubicSplineInterpolant extends THREE.Interpolant {
  normalise = false;
  override copySampleValue_(index: number): THREE.TypedArray {
    const result = this.resultBuffer;
    const values = this.sampleValues;
    const size = this.valueSize;
    const offset = index * size * 3 + size;
    for (let i = 0; i !== size; i++) result[i] = values[offset + i];
    return result;
  }
  override interpolate_(i1: number, t0: number, t: number, t1: number): THREE.TypedArray {
    const result = this.resultBuffer;
    const values = this.sampleValues;
    const stride = this.valueSize;
    const td = t1 - t0;
    const p = (t - t0) / td;
    const pp = p * p;
    const ppp = pp * p;
    const offset1 = i1 * stride * 3;
    const offset0 = offset1 - stride * 3;
    const s2 = -2 * ppp + 3 * pp;
    const s3 = ppp - pp;
    const s0 = 1 - s2;
    const s1 = s3 - pp + p;
    for (let i = 0; i !== stride; i++) {
      const p0 = values[offset0 + i + stride];
      const m0 = values[offset0 + i + 2 * stride] * td;
      const p1 = values[offset1 + i + stride];
      const m1 = values[offset1 + i] * td;
      result[i] = s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1;
    }
    if (this.normalise) {
      for (let i = 0; i < stride; i += 4) {
        const n = Math.hypot(result[i], result[i + 1], result[i + 2], result[i + 3]);
        if (n > 0) for (let c = 0; c < 4; c++) result[i + c] /= n;
      }
    }
    return result;
  }
}

function setCubicSpline(track: THREE.KeyframeTrack, normalise: boolean): void {
  const factory = function InterpolantFactoryMethodGLTFCubicSpline(
    this: THREE.KeyframeTrack,
    result?: THREE.TypedArray,
  ): THREE.Interpolant {
    const interpolant = new CubicSplineInterpolant(this.times, this.values, this.getValueSize() / 3, result);
    interpolant.normalise = normalise;
    return interpolant;
  };
  // the same mark GLTFLoader sets, so three.js and rotsig both recognise the layout
  (
    factory as unknown as { isInterpolantFactoryMethodGLTFCubicSpline: boolean }
  ).isInterpolantFactoryMethodGLTFCubicSpline = true;
  (track as unknown as { createInterpolant: unknown }).createInterpolant = factory;
}

/** Options of {@link fromAnimationClip}. */
export interface FromAnimationClipOptions {
  /**
   * A track whose node is not found, or whose property is not position, quaternion, scale or
   * morphTargetInfluences: `'error'` (default) throws, `'skip'` leaves it out.
   */
  unbound?: 'error' | 'skip';
}

/** Defaults of {@link FromAnimationClipOptions}. */
export const FROM_ANIMATION_CLIP_DEFAULTS: Readonly<Required<FromAnimationClipOptions>> = frozenDefaults({
  unbound: 'error',
});

const FROM_ANIMATION_CLIP_SPEC: OptionSpec = { unbound: oneOf(['error', 'skip']) };

const PATH_OF: Record<string, TrackPath> = {
  position: 'translation',
  quaternion: 'rotation',
  scale: 'scale',
  morphTargetInfluences: 'weights',
};

/**
 * A rotsig {@link KeyedClip} of a three.js `AnimationClip` on a `Skeleton` or a root `Object3D`, so
 * rotsig's operations run on clips from `GLTFLoader`, `FBXLoader`, `BVHLoader` or {@link toAnimationClip}
 * (bake it with `bakeClip` for the uniform-grid operations).
 *
 * Joints: with a `Skeleton`, its bones in order (joint `j` is `bones[j]`); with an `Object3D`, every node
 * of its subtree that a track animates, with their ancestors inside the subtree, parents before children
 * in traversal order. Rest transforms are the nodes' current local position, quaternion and scale (call
 * it with the model at rest, e.g. after `skeleton.pose()`). Tracks keep their times and values (copied),
 * bound by `PropertyBinding`'s own lookup: discrete → `'step'`, linear → `'linear'`, `GLTFLoader`'s cubic
 * spline → `'cubicspline'`; three.js's `InterpolateSmooth` has no glTF equivalent and is read as
 * `'linear'` between the same keys (documented loss).
 *
 * @throws {OptionError} on a track that does not bind (unless `unbound: 'skip'`) or bad options;
 * {@link ShapeError} on a track whose values do not fit its times.
 */
export function fromAnimationClip(
  animationClip: THREE.AnimationClip,
  target: THREE.Skeleton | THREE.Object3D,
  options: FromAnimationClipOptions = {},
): KeyedClip {
  const where = 'fromAnimationClip';
  const { unbound } = resolveOptions(where, options, FROM_ANIMATION_CLIP_DEFAULTS, FROM_ANIMATION_CLIP_SPEC);
  if (!(animationClip instanceof THREE.AnimationClip))
    throw new OptionError(`${where}: expected a THREE.AnimationClip`);
  const isSkeleton = target instanceof THREE.Skeleton;
  if (!isSkeleton && !(target instanceof THREE.Object3D)) {
    throw new OptionError(`${where}: target must be a THREE.Skeleton or a THREE.Object3D`);
  }
  // bind every track to its node the way PropertyBinding does
  const bound: { node: THREE.Object3D; path: TrackPath; track: THREE.KeyframeTrack }[] = [];
  const root = isSkeleton ? skeletonRoot(target) : target;
  for (const track of animationClip.tracks) {
    const parsed = THREE.PropertyBinding.parseTrackName(track.name);
    const node = isSkeleton
      ? target.getBoneByName(parsed.nodeName)
      : (THREE.PropertyBinding.findNode(root, parsed.nodeName) as THREE.Object3D | null);
    const path = PATH_OF[parsed.propertyName];
    if (!node || path === undefined || parsed.propertyIndex !== undefined) {
      if (unbound === 'skip') continue;
      throw new OptionError(
        `${where}: track '${track.name}' does not bind (${node ? `property '${parsed.propertyName}' is not supported` : `no node '${parsed.nodeName}'`})`,
      );
    }
    bound.push({ node, path, track });
  }
  let nodes: THREE.Object3D[];
  if (isSkeleton) nodes = target.bones.slice();
  else {
    const wanted = new Set<THREE.Object3D>();
    for (const { node } of bound) {
      for (let n: THREE.Object3D | null = node; n !== null && n !== root; n = n.parent) wanted.add(n);
      if (node === root) wanted.add(root);
    }
    nodes = [];
    root.traverse((n) => {
      if (wanted.has(n)) nodes.push(n);
    });
  }
  const index = new Map<THREE.Object3D, number>();
  nodes.forEach((n, j) => {
    index.set(n, j);
  });
  const J = nodes.length;
  const parents = new Int32Array(J);
  const restTranslations = new Float64Array(J * 3);
  const restRotations = new Float64Array(J * 4);
  const restScales = new Float64Array(J * 3);
  nodes.forEach((n, j) => {
    let p: THREE.Object3D | null = n.parent;
    while (p !== null && !index.has(p)) p = p.parent;
    parents[j] = p === null ? -1 : (index.get(p) as number);
    if (parents[j] >= j) throw new ShapeError(`${where}: bone ${j} ('${n.name}') comes before its parent`);
    n.position.toArray(restTranslations, j * 3);
    n.quaternion.toArray(restRotations, j * 4);
    n.scale.toArray(restScales, j * 3);
  });
  const tracks: Track[] = [];
  for (const { node, path, track } of bound) {
    const joint = index.get(node);
    if (joint === undefined) continue;
    const keys = track.times.length;
    const factory = (
      track as unknown as { createInterpolant?: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } }
    ).createInterpolant;
    const cubic = factory?.isInterpolantFactoryMethodGLTFCubicSpline === true;
    const per = cubic ? 3 : 1;
    const width = keys > 0 ? track.values.length / keys / per : 0;
    if (keys === 0 || !Number.isInteger(width) || width < 1) {
      throw new ShapeError(
        `${where}: track '${track.name}' has ${track.values.length} values for ${keys} keys`,
      );
    }
    if (
      (path === 'rotation' && width !== 4) ||
      ((path === 'translation' || path === 'scale') && width !== 3)
    ) {
      throw new ShapeError(`${where}: track '${track.name}' has ${width} numbers per key`);
    }
    const interpolation = cubic
      ? 'cubicspline'
      : track.getInterpolation() === THREE.InterpolateDiscrete
        ? 'step'
        : 'linear';
    tracks.push({
      joint,
      path,
      interpolation,
      times: Float64Array.from(track.times),
      values: Float64Array.from(track.values),
      width,
    });
  }
  return {
    name: animationClip.name,
    skeleton: {
      names: nodes.map((n) => n.name),
      parents,
      restTranslations,
      restRotations,
      restScales,
    },
    tracks,
    orders: new Array(J).fill('XYZ'),
  };
}

function skeletonRoot(skeleton: THREE.Skeleton): THREE.Object3D {
  const first = skeleton.bones[0];
  if (first === undefined) throw new ShapeError('fromAnimationClip: the skeleton has no bones');
  let root: THREE.Object3D = first;
  while (root.parent !== null) root = root.parent;
  return root;
}
