/**
 * Foot contacts from joint speed in units per second and height above the ground, with hysteresis, so the
 * same motion gives the same contacts at any frame rate.
 *
 * @module
 */

import { OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  customRule,
  frozenDefaults,
  NON_NEGATIVE_NUMBER,
  numberIn,
  type OptionSpec,
  oneOf,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';
import { assertFiniteClip, centralDifference, resolveJoint } from './feature-inputs.js';
import type { UpAxis } from './root-motion.js';

/** Options of {@link footContacts}. Distances are in the clip's units; the defaults assume metres. */
export interface FootContactOptions {
  /** Joints to test, by name or index. Default: every joint whose name contains `foot` or `toe` (any case). */
  joints?: (number | string)[];
  /** The world's up axis. Default `'y'`. */
  up?: UpAxis;
  /** A contact starts when the joint's speed is at most this, units per second. Default 0.3. */
  speed?: number;
  /** A contact ends when the speed exceeds this (≥ `speed`), units per second. Default 0.6. */
  releaseSpeed?: number;
  /** A contact starts only when the joint is at most this high above the ground, units. Default 0.05. */
  height?: number;
  /** A contact ends when the joint rises above this (≥ `height`), units. Default 0.1. */
  releaseHeight?: number;
  /**
   * Ground height: a number (units along up), or `'lowest'`: each joint's own lowest point over the clip
   * (an ankle never touches the floor; its lowest point is where it stands). Default `'lowest'`.
   */
  ground?: number | 'lowest';
}

/** Defaults of {@link FootContactOptions} (metres). */
export const FOOT_CONTACT_DEFAULTS: Required<FootContactOptions> = frozenDefaults({
  joints: [],
  up: 'y',
  speed: 0.3,
  releaseSpeed: 0.6,
  height: 0.05,
  releaseHeight: 0.1,
  ground: 'lowest',
});

const FOOT_CONTACT_SPEC: OptionSpec = {
  joints: customRule(
    'an array of joint names or indices',
    (v) => Array.isArray(v) && v.every((j) => typeof j === 'string' || Number.isInteger(j)),
  ),
  up: oneOf(['y', 'z']),
  speed: NON_NEGATIVE_NUMBER,
  releaseSpeed: NON_NEGATIVE_NUMBER,
  height: numberIn(),
  releaseHeight: numberIn(),
  ground: anyOf(oneOf(['lowest']), numberIn()),
};

/** A run of contact frames of one joint: `start` to `end` inclusive, and the same in seconds. */
export interface ContactInterval {
  /** Index into {@link FootContacts.joints}. */
  joint: number;
  start: number;
  end: number;
  startTime: number;
  endTime: number;
}

/** What {@link footContacts} returns. */
export interface FootContacts {
  frames: number;
  rate: number;
  /** Skeleton indices of the tested joints, and their names. */
  joints: number[];
  names: string[];
  /** 1 where joint k is in contact at frame f, at `f * joints.length + k`. */
  contacts: Uint8Array;
  /** Speed of each tested joint, units per second, `frames x joints.length` (central differences). */
  speed: Float64Array;
  /** Height above the ground of each tested joint, `frames x joints.length`. */
  height: Float64Array;
  /** Every contact as an interval, by joint then time. */
  intervals: ContactInterval[];
}

/**
 * Foot contacts of a clip: a joint is in contact while it is slow and low, decided with hysteresis: a
 * contact starts when speed ≤ `speed` and height ≤ `height`, and ends only when speed > `releaseSpeed` or
 * height > `releaseHeight`, so noise near a threshold does not make it flicker.
 *
 * Speeds are in units per second (central differences of the global positions over `1 / rate`), not per
 * frame, so the same motion at 30, 60 and 120 Hz gives the same contact intervals to within a frame; a
 * per-frame displacement threshold (HumanML3D's) halves its speed threshold whenever the rate doubles.
 * Positions come from {@link forwardKinematics}.
 *
 * Edge cases: 0 frames give no contacts; 1 frame has speed 0.
 *
 * @throws {OptionError} on unknown options, thresholds that are negative or not finite, release thresholds
 *   below their start thresholds, an unknown joint, or no `joints` given when no name contains foot/toe.
 * @throws {ShapeError} when the clip is malformed. @throws {InvalidValueError} on a non-finite rotation or
 *   translation, naming its frame and joint.
 * @example
 * const c = footContacts(clip, { joints: ['left_foot', 'right_foot'], up: 'z' });
 * c.intervals; // [{ joint: 0, start: 0, end: 41, startTime: 0, endTime: 0.341 }, ...]
 */
export function footContacts(clip: Clip, options: FootContactOptions = {}): FootContacts {
  const where = 'footContacts';
  const o = resolveOptions(where, options, FOOT_CONTACT_DEFAULTS, FOOT_CONTACT_SPEC);
  if (o.up !== 'y' && o.up !== 'z')
    throw new OptionError(`${where}: up must be 'y' or 'z', got '${String(o.up)}'`);
  for (const key of ['speed', 'releaseSpeed', 'height', 'releaseHeight'] as const) {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || (key.endsWith('peed') && v < 0))
      throw new OptionError(
        `${where}: ${key} must be a finite${key.endsWith('peed') ? ' non-negative' : ''} number, got ${String(v)}`,
      );
  }
  if (o.releaseSpeed < o.speed)
    throw new OptionError(`${where}: releaseSpeed (${o.releaseSpeed}) must be at least speed (${o.speed})`);
  if (o.releaseHeight < o.height)
    throw new OptionError(
      `${where}: releaseHeight (${o.releaseHeight}) must be at least height (${o.height})`,
    );
  if (o.ground !== 'lowest' && !(typeof o.ground === 'number' && Number.isFinite(o.ground)))
    throw new OptionError(`${where}: ground must be a finite number or 'lowest', got ${String(o.ground)}`);
  if (clip === null || typeof clip !== 'object' || clip.skeleton === undefined)
    throw new ShapeError(`${where}: clip must be a Clip with a skeleton`);
  const rate = clip.rate;
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new OptionError(`${where}: the clip has no valid rate (${rate})`);
  const names = clip.skeleton.names;
  if (!Array.isArray(o.joints))
    throw new OptionError(`${where}: joints must be an array of joint names or indices`);
  let joints = o.joints.map((j) => resolveJoint(clip, j, where, 'joints'));
  if (joints.length === 0) {
    joints = names.flatMap((n, j) => (/foot|toe/i.test(n) ? [j] : []));
    if (joints.length === 0)
      throw new OptionError(
        `${where}: no joint name contains 'foot' or 'toe'; pass the foot joints as options.joints`,
      );
  }
  const fk = forwardKinematics(clip);
  assertFiniteClip(clip, where);
  const J = names.length;
  const F = fk.positions.frames;
  const K = joints.length;
  const a = o.up === 'y' ? 1 : 2;
  const P = fk.positions.data;
  const track = new Float64Array(F * 3);
  const v = new Float64Array(F * 3);
  const speed = new Float64Array(F * K);
  const height = new Float64Array(F * K);
  const contacts = new Uint8Array(F * K);
  const intervals: ContactInterval[] = [];
  for (let k = 0; k < K; k++) {
    const j = joints[k];
    let lowest = Number.POSITIVE_INFINITY;
    for (let f = 0; f < F; f++) {
      for (let c = 0; c < 3; c++) track[f * 3 + c] = P[(f * J + j) * 3 + c];
      lowest = Math.min(lowest, track[f * 3 + a]);
    }
    const ground = o.ground === 'lowest' ? lowest : o.ground;
    centralDifference(track, F, 3, 1 / rate, v);
    let on = false;
    let start = 0;
    for (let f = 0; f < F; f++) {
      const s = Math.hypot(v[f * 3], v[f * 3 + 1], v[f * 3 + 2]);
      const h = track[f * 3 + a] - ground;
      speed[f * K + k] = s;
      height[f * K + k] = h;
      if (on) {
        if (s > o.releaseSpeed || h > o.releaseHeight) {
          on = false;
          intervals.push({ joint: k, start, end: f - 1, startTime: start / rate, endTime: (f - 1) / rate });
        }
      } else if (s <= o.speed && h <= o.height) {
        on = true;
        start = f;
      }
      contacts[f * K + k] = on ? 1 : 0;
    }
    if (on) intervals.push({ joint: k, start, end: F - 1, startTime: start / rate, endTime: (F - 1) / rate });
  }
  return { frames: F, rate, joints, names: joints.map((j) => names[j]), contacts, speed, height, intervals };
}
