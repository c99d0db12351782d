/**
 * One frames x columns matrix of training features (root motion, root-relative joints, rotations,
 * velocities, foot contacts) with a description of every column.
 *
 * @module
 */

import { InvalidValueError, OptionError } from '../../errors.js';
import {
  anyOf,
  customRule,
  frozenDefaults,
  integerIn,
  NON_NEGATIVE_NUMBER,
  numberIn,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
  STRING_OPTION,
} from '../../options.js';
import { to6DFlat } from '../../quat/matrix.js';
import { rotateVectorFlat } from '../../quat/vector.js';
import type { Clip } from '../../series/clip.js';
import { SIXD_COMPONENTS, type SixDLayout } from '../skeleton/arrays.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';
import { clipMotionRoot, clipUnitsPerMeter, clipUpAxis, hasNoBoneOffsets } from './clip-defaults.js';
import { centralDifference } from './feature-inputs.js';
import { footContacts } from './foot-contacts.js';
import { rootMotion, type UpAxis } from './root-motion.js';

/** Options of {@link motionFeatures}. */
export interface MotionFeaturesOptions {
  /** The world's up axis (see `rootMotion`), or `'auto'` (default): `'z'` for AMASS clips, else `'y'`. */
  up?: UpAxis | 'auto';
  /** The body's up axis (see `rootMotion`). Default `'y'`. */
  bodyUp?: UpAxis;
  /**
   * The joint carrying the body's motion (see `rootMotion`), or `'auto'` (default): the joint whose
   * translation travels furthest (`clipMotionRoot`), so a static placeholder root is passed over.
   */
  root?: number | string | 'auto';
  /**
   * Foot joints for contact columns: names or indices, `'auto'` (names containing foot or toe; none found
   * means no contact columns) or `'none'`. Default `'auto'`.
   */
  feet?: (number | string)[] | 'auto' | 'none';
  /**
   * The clip's length units per metre, or `'auto'` (default): from the skeleton's size
   * (`clipUnitsPerMeter`: 100 for a skeleton in centimetres, 1 in metres and for AMASS).
   */
  unitsPerMeter?: number | 'auto';
  /** Contact start speed in metres per second (scaled by `unitsPerMeter`; see `footContacts`). Default 0.3. */
  contactSpeed?: number;
  /** Contact start height above each foot's lowest point, metres (scaled by `unitsPerMeter`). Default 0.05. */
  contactHeight?: number;
  /**
   * The 6D layout of the rotation columns: `'columns'` (default, the first two matrix columns) or `'rows'`
   * (PyTorch3D's `matrix_to_rotation_6d`); see `toArrays`.
   */
  sixd?: SixDLayout;
  /**
   * Joint position, velocity and contact columns: `'auto'` (default) leaves them out, with a warning, when
   * the skeleton has no bone offsets (an AMASS clip read without its joint template, whose joints all sit at
   * the root: those columns would copy the root's); `'include'` always writes them; `'omit'` never.
   */
  positions?: 'auto' | 'include' | 'omit';
}

/** Defaults of {@link MotionFeaturesOptions}. */
export const MOTION_FEATURES_DEFAULTS: Required<MotionFeaturesOptions> = frozenDefaults({
  up: 'auto',
  bodyUp: 'y',
  root: 'auto',
  feet: 'auto',
  unitsPerMeter: 'auto',
  contactSpeed: 0.3,
  contactHeight: 0.05,
  sixd: 'columns',
  positions: 'auto',
});

const MOTION_FEATURES_SPEC: OptionSpec = {
  up: oneOf(['auto', 'y', 'z']),
  bodyUp: oneOf(['y', 'z']),
  root: anyOf(integerIn(0), STRING_OPTION),
  feet: anyOf(
    oneOf(['auto', 'none']),
    customRule(
      'an array of joint names or indices',
      (v) => Array.isArray(v) && v.every((j) => typeof j === 'string' || Number.isInteger(j)),
    ),
  ),
  unitsPerMeter: anyOf(oneOf(['auto']), POSITIVE_NUMBER),
  contactSpeed: NON_NEGATIVE_NUMBER,
  contactHeight: numberIn(),
  sixd: oneOf(['columns', 'rows']),
  positions: oneOf(['auto', 'include', 'omit']),
};

/** A default {@link motionFeatures} could not honour as asked, or a choice it made that changes the columns. */
export interface MotionFeaturesWarning {
  code: 'positions-omitted';
  message: string;
}

/** One column of {@link MotionFeatures.data}. */
export interface FeatureColumn {
  /** Column index. */
  index: number;
  /** What the column holds, e.g. `root.velocity.z`, `position.x`, `rotation6d.m10`, `contact`. */
  name: string;
  /** The joint it belongs to, or null for whole-body columns. */
  joint: string | null;
  /** `'rad/s'`, `'units/s'`, `'units'` (the clip's length unit), `'1'` (dimensionless) or `'bool'` (0 or 1). */
  unit: 'rad/s' | 'units/s' | 'units' | '1' | 'bool';
}

/** What {@link motionFeatures} returns. */
export interface MotionFeatures {
  /** `frames x columns`, row-major. */
  data: Float64Array;
  frames: number;
  /** Frames per second: every velocity is per second at this rate. */
  rate: number;
  columns: FeatureColumn[];
  up: UpAxis;
  /** Index of the joint used as the root (the one chosen when `root` is `'auto'`). */
  root: number;
  /** Length units per metre used for the contact thresholds (the one found when `'auto'`). */
  unitsPerMeter: number;
  /** True when the joint position, velocity and contact columns are in the matrix. */
  positions: boolean;
  /** What was left out and why. */
  warnings: MotionFeaturesWarning[];
  /** The unrolled heading in radians per frame (not a feature column: it is absolute; its rate is the first column). */
  heading: Float64Array;
  /** Ground-plane root trajectory, `frames x 2` (not a feature column, kept to put generated motion back in the world). */
  trajectory: Float64Array;
}

/**
 * Training features of a clip in one matrix, in the HumanML3D layout made frame-rate correct: per frame,
 *
 * 1. `root.angular_velocity`: heading rate about up (rad/s);
 * 2. `root.velocity.{x,y,z}`: root velocity in the heading frame (units/s);
 * 3. `root.height` (units);
 * 4. per joint, `position.{x,y,z}`: position relative to the root's ground point and heading (units);
 *    left out, with 6 and 7, when the skeleton has no bone offsets (see `positions`);
 * 5. per joint, `rotation6d.*`: local rotation as 6D (the first two matrix columns, or rows with
 *    `sixd: 'rows'`; the root's with the heading removed);
 * 6. per joint, `velocity.{x,y,z}`: global velocity in the heading frame (units/s);
 * 7. per foot, `contact` (0 or 1, see `footContacts`).
 *
 * Defaults come from the clip: the up axis from its source (AMASS is z-up), the root from the joint whose
 * translation travels furthest (reported as `root`), the contact thresholds (given in metres) scaled by
 * the length unit found from the skeleton's size (`unitsPerMeter`: a walk in centimetres gets 30 cm/s
 * and 5 cm). Every velocity is a central difference over `1 / rate` seconds, so the same motion gives the same
 * features at 30 and 120 Hz (HumanML3D's per-frame differences scale with the rate). The columns array
 * names every column, its joint and its unit: the JSON sidecar of `rotsig export --as features`.
 *
 * Source: Guo et al. 2022 (HumanML3D feature vector); Zhou et al. 2019 (6D rotations).
 *
 * @throws {OptionError} on unknown options or joints. @throws {ShapeError} when the clip is malformed.
 * @example
 * const f = motionFeatures(clip, { up: 'z' }); // an AMASS clip
 * f.columns[f.columns.length - 1]; // { index: …, name: 'contact', joint: 'right_foot', unit: 'bool' }
 */
export function motionFeatures(clip: Clip, options: MotionFeaturesOptions = {}): MotionFeatures {
  const where = 'motionFeatures';
  const o = resolveOptions(where, options, MOTION_FEATURES_DEFAULTS, MOTION_FEATURES_SPEC);
  if (o.sixd !== 'columns' && o.sixd !== 'rows')
    throw new OptionError(`${where}: sixd must be 'columns' or 'rows', got '${String(o.sixd)}'`);
  if (o.positions !== 'auto' && o.positions !== 'include' && o.positions !== 'omit')
    throw new OptionError(
      `${where}: positions must be 'auto', 'include' or 'omit', got '${String(o.positions)}'`,
    );
  if (o.up !== 'auto' && o.up !== 'y' && o.up !== 'z')
    throw new OptionError(`${where}: up must be 'auto', 'y' or 'z', got '${String(o.up)}'`);
  const upm = o.unitsPerMeter === 'auto' ? clipUnitsPerMeter(clip) : o.unitsPerMeter;
  if (typeof upm !== 'number' || !(upm > 0) || !Number.isFinite(upm))
    throw new OptionError(`${where}: unitsPerMeter must be 'auto' or a positive number, got ${String(upm)}`);
  const up: UpAxis = o.up === 'auto' ? clipUpAxis(clip) : o.up;
  const m = rootMotion(clip, {
    up,
    bodyUp: o.bodyUp,
    root: o.root === 'auto' ? clipMotionRoot(clip) : o.root,
  });
  const names = clip.skeleton.names;
  const J = names.length;
  const F = m.frames;
  const warnings: MotionFeaturesWarning[] = [];
  const collapsed = hasNoBoneOffsets(clip);
  const withPositions = o.positions === 'include' || (o.positions === 'auto' && !collapsed);
  if (!withPositions && o.positions === 'auto')
    warnings.push({
      code: 'positions-omitted',
      message: `${where}: the skeleton has no bone offsets (an AMASS file read without its body model's joint template), so every joint sits at the root; the joint position, velocity and contact columns are left out. Pass the model's joint template (amassToClip(npz, { template: J }), rotsig --template J.npz) for them`,
    });
  let contacts: ReturnType<typeof footContacts> | null = null;
  if (o.feet !== 'none' && withPositions) {
    if (o.feet !== 'auto' && !Array.isArray(o.feet))
      throw new OptionError(`${where}: feet must be 'auto', 'none' or a list of joints`);
    const joints = o.feet === 'auto' ? names.flatMap((n, j) => (/foot|toe/i.test(n) ? [j] : [])) : o.feet;
    if (joints.length > 0)
      contacts = footContacts(clip, {
        joints,
        up,
        speed: o.contactSpeed * upm,
        releaseSpeed: 2 * o.contactSpeed * upm,
        height: o.contactHeight * upm,
        releaseHeight: 2 * o.contactHeight * upm,
      });
  }
  const columns: FeatureColumn[] = [];
  const add = (name: string, joint: string | null, unit: FeatureColumn['unit']) =>
    columns.push({ index: columns.length, name, joint, unit });
  const rootName = names[m.root];
  add('root.angular_velocity', rootName, 'rad/s');
  for (const c of ['x', 'y', 'z']) add(`root.velocity.${c}`, rootName, 'units/s');
  add('root.height', rootName, 'units');
  if (withPositions) for (const n of names) for (const c of ['x', 'y', 'z']) add(`position.${c}`, n, 'units');
  for (const n of names) for (const c of SIXD_COMPONENTS[o.sixd]) add(`rotation6d.${c}`, n, '1');
  if (withPositions)
    for (const n of names) for (const c of ['x', 'y', 'z']) add(`velocity.${c}`, n, 'units/s');
  const K = contacts?.joints.length ?? 0;
  for (let k = 0; k < K; k++) add('contact', contacts!.names[k], 'bool');
  const C = columns.length;
  const data = new Float64Array(F * C);
  const velocity = new Float64Array(withPositions ? F * J * 3 : 0);
  if (withPositions)
    centralDifference(forwardKinematics(clip).positions.data, F, J * 3, 1 / m.rate, velocity);
  const hInv = new Float64Array(4);
  const q = new Float64Array(4);
  const rows = o.sixd === 'rows';
  const a = up === 'y' ? 1 : 2;
  const local = clip.rotations.data;
  for (let f = 0; f < F; f++) {
    const row = f * C;
    data[row] = m.angularVelocity[f];
    data[row + 1] = m.velocity[f * 3];
    data[row + 2] = m.velocity[f * 3 + 1];
    data[row + 3] = m.velocity[f * 3 + 2];
    data[row + 4] = m.height[f];
    let at = row + 5;
    if (withPositions) {
      for (let i = 0; i < J * 3; i++) data[at + i] = m.positions[f * J * 3 + i];
      at += J * 3;
    }
    for (let j = 0; j < J; j++) {
      const src = j === m.root ? m.rootRotation : local;
      const s = j === m.root ? f * 4 : (f * J + j) * 4;
      if (rows) {
        // the rows of R are the columns of Rᵀ, the matrix of the conjugate
        q[0] = -src[s];
        q[1] = -src[s + 1];
        q[2] = -src[s + 2];
        q[3] = src[s + 3];
        to6DFlat(data, at + j * 6, q, 0);
      } else to6DFlat(data, at + j * 6, src, s);
    }
    at += J * 6;
    if (withPositions) {
      hInv.fill(0);
      hInv[a] = -Math.sin(m.heading[f] / 2);
      hInv[3] = Math.cos(m.heading[f] / 2);
      for (let j = 0; j < J; j++) rotateVectorFlat(data, at + j * 3, hInv, 0, velocity, (f * J + j) * 3);
      at += J * 3;
    }
    for (let k = 0; k < K; k++) data[at + k] = contacts!.contacts[f * K + k];
  }
  // finite inputs can still overflow (positions near 1e308 differenced into velocities)
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) {
      const width = data.length / F;
      throw new InvalidValueError(
        `motionFeatures: feature ${i % width} of frame ${Math.floor(i / width)} overflows (the clip's values are too large to difference)`,
        { index: i },
      );
    }
  }
  return {
    data,
    frames: F,
    rate: m.rate,
    columns,
    up,
    root: m.root,
    unitsPerMeter: upm,
    positions: withPositions,
    warnings,
    heading: m.heading,
    trajectory: m.trajectory,
  };
}
