import type { EulerOrder } from '../quat/euler.js';
import type { FloatArray, QuatSeries, Vec3Series } from './types.js';

/**
 * The format-neutral animation model.
 *
 * - A {@link Skeleton} is a joint hierarchy with each joint's rest (default-pose) local transform:
 *   translation, rotation and scale, composed as `T · R · S` like glTF nodes. BVH joints have an identity
 *   rest rotation and unit scale; their OFFSET is the rest translation.
 * - A {@link Clip} samples every joint's local transform on an exact uniform time grid: the form every
 *   signal operation (unroll, filter, resample, velocity, spectrum) works on.
 * - A {@link KeyedClip} holds keyed tracks at their own strictly increasing key times with an
 *   interpolation per track: the form of glTF animations and of key reduction. `bakeClip` turns it into a
 *   `Clip`, `keysFromClip` back.
 *
 * What a format needs to write its source back (BVH channel layout and end sites; glTF node indices and
 * the document) travels in `source`, which operations carry through untouched and never read.
 *
 * @module
 */

/** Bit of {@link Clip.animated} / {@link KeyedClip} joints: the joint's translation is animated. */
export const ANIMATED_TRANSLATION = 1;
/** Bit of {@link Clip.animated}: the joint's rotation is animated. */
export const ANIMATED_ROTATION = 2;
/** Bit of {@link Clip.animated}: the joint's scale is animated. */
export const ANIMATED_SCALE = 4;

/**
 * A joint hierarchy with rest transforms. Parents come before children (`parents[j] < j`); several roots
 * (`-1`) are allowed. A joint's local transform is `T · R · S` (translation, rotation, scale), the same
 * order as glTF nodes and three.js `Object3D`.
 */
export interface Skeleton {
  /** Joint names, exactly as in the source file. */
  names: string[];
  /** Parent index per joint, `-1` for a root. */
  parents: Int32Array;
  /** Rest local translation of each joint, `joints x 3`, in the source's units (BVH OFFSET, glTF node translation). */
  restTranslations: Float64Array;
  /** Rest local rotation of each joint, `joints x 4`, x, y, z, w (identity for BVH, glTF node rotation). */
  restRotations: Float64Array;
  /** Rest local scale of each joint, `joints x 3` (ones for BVH, glTF node scale). */
  restScales: Float64Array;
}

/** One of the six BVH channel kinds, spelled as BVH files spell them. */
export type ChannelName = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** An `End Site` of a BVH hierarchy: not a joint of the clip, kept so the BVH writer can reproduce it. */
export interface EndSite {
  /** Index of the joint the end site hangs from. */
  parent: number;
  /** Offset from that joint, in the file's units. */
  offset: [number, number, number];
  /** Any text that followed `End Site` on its line (some exporters name end sites). */
  label?: string;
}

/**
 * How BVH position channels combine with a joint's OFFSET: `'replace'` (channel value is the local
 * translation; Blender, BVHView, and files with 6 channels on every joint) or `'add'` (local translation =
 * OFFSET + channel value).
 */
export type PositionMode = 'replace' | 'add';

/** What the BVH reader keeps so the BVH writer reproduces the file's layout. */
export interface BvhSource extends ClipSource {
  format: 'bvh';
  /** Per joint, its channels in file order (0 to 6 of them). */
  channels: ChannelName[][];
  /** End sites, for writing the hierarchy back. */
  endSites: EndSite[];
  /** How the position channels were combined with the OFFSETs when the file was read. */
  positionMode: PositionMode;
  /** The `Frame Time:` exactly as written, reused by the writer while the clip's `frameTime` is unchanged. */
  frameTimeText?: string;
  /** The clip's frame time when it was read: `frameTimeText` is valid only while it is unchanged. */
  frameTime?: number;
}

/**
 * What a format reader kept for its writer. `format` names the format; the rest is the format's own
 * (see `BvhSource` here and `GltfSource` in `rotsig/io`). Operations carry it through and never read it.
 */
export interface ClipSource {
  format: string;
}

/**
 * An animation clip on a skeleton: every joint's local transform on an exact uniform time grid, frame `f`
 * at `startTime + f * frameTime` seconds.
 */
export interface Clip {
  /** The animation's name, when the source has one. */
  name?: string;
  skeleton: Skeleton;
  /** Seconds between frames. */
  frameTime: number;
  /** Frames per second, `1 / frameTime`. */
  rate: number;
  /** Number of frames. */
  frames: number;
  /** Time of frame 0 in seconds (0 for BVH; a glTF animation's first key time). Default 0. */
  startTime?: number;
  /** Local rotation of every joint, x, y, z, w (the rest rotation for joints whose rotation is not animated). */
  rotations: QuatSeries;
  /**
   * Local translation of every joint, in the source's units (the rest translation where it is not
   * animated). Forward kinematics uses these, never `skeleton.restTranslations` directly.
   */
  translations: Vec3Series;
  /** Local scale of every joint; absent when no joint's scale is animated (the rest scales then hold). */
  scales?: Vec3Series;
  /**
   * Per joint, which components the source animates: a sum of {@link ANIMATED_TRANSLATION},
   * {@link ANIMATED_ROTATION} and {@link ANIMATED_SCALE}. Writers key only these.
   */
  animated: Uint8Array;
  /**
   * Per joint, the Euler sequence in which Euler views of its rotation are given (intrinsic, `'ZYX'` =
   * `Zrotation Yrotation Xrotation`): a BVH joint's channel order, `'XYZ'` (three.js's default) for glTF.
   */
  orders: EulerOrder[];
  /** What the reader kept for its writer (BVH channel layout, glTF node indices). Operations carry it through. */
  source?: ClipSource;
}

/**
 * How a keyed track is evaluated between keys, as glTF 2.0 defines it: `'step'` holds the previous key,
 * `'linear'` is slerp for rotations and lerp otherwise, `'cubicspline'` is the cubic Hermite spline of
 * the key's in-tangent, value and out-tangent (tangents are scaled by the key interval; rotations are
 * normalised after the Hermite step).
 */
export type Interpolation = 'step' | 'linear' | 'cubicspline';

/** What a keyed track animates: a joint's translation, rotation or scale, or a node's morph weights. */
export type TrackPath = 'translation' | 'rotation' | 'scale' | 'weights';

/**
 * Values at strictly increasing key times. `width` numbers per value (4 for rotations x, y, z, w; 3 for
 * translations and scales; the morph-target count for weights). For `'cubicspline'` every key stores
 * `[in-tangent, value, out-tangent]`, so `values.length = keys * 3 * width`; otherwise `keys * width`.
 */
export interface Track {
  /** Joint of the clip's skeleton the track drives (for `'weights'`: the joint whose node holds the mesh, or -1). */
  joint: number;
  path: TrackPath;
  interpolation: Interpolation;
  /** Key times in seconds, strictly increasing. */
  times: FloatArray;
  /** Key values (and tangents for `'cubicspline'`), key-major. */
  values: FloatArray;
  /** Numbers per value. */
  width: number;
}

/**
 * A keyed animation: tracks on a skeleton, each with its own key times and interpolation. Joints (and
 * components) without a track hold their rest transform. Key times need not be uniform.
 */
export interface KeyedClip {
  /** The animation's name, when the source has one. */
  name?: string;
  skeleton: Skeleton;
  tracks: Track[];
  /** Per joint, Euler sequence for Euler views (see {@link Clip.orders}). */
  orders: EulerOrder[];
  /** What the reader kept for its writer. Operations carry it through. */
  source?: ClipSource;
}
