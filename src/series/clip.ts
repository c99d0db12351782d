import type { EulerOrder } from '../quat/euler.js';
import type { QuatSeries, Vec3Series } from './types.js';

/** One of the six BVH channel kinds, spelled as BVH files spell them. */
export type ChannelName = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** An `End Site` of a BVH hierarchy: not a joint of the series, kept so a writer can reproduce it. */
export interface EndSite {
  /** Index of the joint the end site hangs from. */
  parent: number;
  /** Offset from that joint, in the file's units. */
  offset: [number, number, number];
  /** Any text that followed `End Site` on its line (some exporters name end sites). */
  label?: string;
}

/**
 * A joint hierarchy. Parents come before children (`parents[j] < j`); several roots (`-1`) are allowed.
 */
export interface Skeleton {
  /** Joint names, exactly as in the file. */
  names: string[];
  /** Parent index per joint, `-1` for a root. */
  parents: Int32Array;
  /** Rest offset of each joint from its parent, `joints x 3`, in the file's units. */
  offsets: Float64Array;
  /** Per joint, its channels in file order (0 to 6 of them). */
  channels: ChannelName[][];
  /** End sites, for writing the hierarchy back. */
  endSites: EndSite[];
}

/**
 * How position channels combine with a joint's OFFSET: `'replace'` (channel value is the local
 * translation; Blender, BVHView, and files with 6 channels on every joint) or `'add'` (local translation =
 * OFFSET + channel value).
 */
export type PositionMode = 'replace' | 'add';

/**
 * An animation clip on a skeleton: local rotations and translations per joint and frame on a uniform
 * time grid.
 */
export interface Clip {
  skeleton: Skeleton;
  /** Seconds between frames. */
  frameTime: number;
  /** The frame time exactly as written in the source file, reused by writers while `frameTime` is unchanged. */
  frameTimeText?: string;
  /** Frames per second, `1 / frameTime`. */
  rate: number;
  /** Number of frames. */
  frames: number;
  /** Local rotation of every joint (identity for joints without rotation channels). */
  rotations: QuatSeries;
  /**
   * Local translation of every joint, in the file's units: its OFFSET, with position channels replacing
   * (`positionMode: 'replace'`) or added to (`'add'`) the matching components. Forward kinematics uses
   * these, never `skeleton.offsets` directly.
   */
  translations: Vec3Series;
  /**
   * Per joint, the intrinsic Euler order of its rotation channels (`'ZYX'` for `Zrotation Yrotation
   * Xrotation`). A joint with one or two rotation channels has the missing axes appended (their angle is
   * 0: `Xrotation Zrotation` gives `'XZY'`); a joint without rotation channels has `'ZYX'`.
   */
  orders: EulerOrder[];
  /** How the position channels were combined with the OFFSETs when the clip was read. */
  positionMode: PositionMode;
}
