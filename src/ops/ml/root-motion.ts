/**
 * Root motion for learning: the root split into a ground-plane trajectory, a heading (unrolled twist about
 * the up axis) and the rest, with every joint expressed relative to it, in per-second units.
 *
 * @module
 */

import { OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  frozenDefaults,
  integerIn,
  type OptionSpec,
  oneOf,
  resolveOptions,
  STRING_OPTION,
} from '../../options.js';
import { multiplyFlat } from '../../quat/core.js';
import { rotateVectorFlat } from '../../quat/vector.js';
import type { Clip } from '../../series/clip.js';
import type { FloatArray } from '../../series/types.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';
import { assertFiniteClip, centralDifference, resolveJoint } from './feature-inputs.js';

/** The vertical axis of a clip's world: `'y'` (BVH, glTF, SMPL bodies) or `'z'` (AMASS world, Blender). */
export type UpAxis = 'y' | 'z';

/** Options of {@link rootMotion}. */
export interface RootMotionOptions {
  /** The world's up axis. Default `'y'`. */
  up?: UpAxis;
  /**
   * The joint that carries the body's motion, by index or name. Default 0 (the first root). Pass the hips
   * when the root is a static placeholder (`'Hips'` in the Bandai Namco files, whose `joint_Root` never moves).
   */
  root?: number | string;
  /**
   * The up axis of the body's own frame: the root's global rotation of a body standing upright and facing
   * heading 0 is the rotation taking `bodyUp` to `up` (identity when they agree; +90° about x from y to
   * z). Default `'y'`: BVH skeletons and the SMPL family are modelled y-up, and AMASS puts the y-up body
   * in a z-up world, so AMASS data is `{ up: 'z' }` with this default. The heading is the twist of the
   * root rotation with that rest turn removed, so a sideways lean does not leak into it.
   */
  bodyUp?: UpAxis;
}

/** Defaults of {@link RootMotionOptions}. */
export const ROOT_MOTION_DEFAULTS: Required<RootMotionOptions> = frozenDefaults({
  up: 'y',
  root: 0,
  bodyUp: 'y',
});

const ROOT_MOTION_SPEC: OptionSpec = {
  up: oneOf(['y', 'z']),
  root: anyOf(integerIn(0), STRING_OPTION),
  bodyUp: oneOf(['y', 'z']),
};

/** What {@link rootMotion} returns; every array is frame-major Float64. */
export interface RootMotion {
  frames: number;
  /** Frames per second of the clip (velocities are per second, not per frame). */
  rate: number;
  up: UpAxis;
  /** Index of the joint used as the root. */
  root: number;
  /**
   * Heading per frame in radians: the twist of the root's global rotation about the up axis (positive
   * counter-clockwise seen from above), unrolled so it counts full turns. Frame 0 is in (−π, π].
   */
  heading: Float64Array;
  /** Ground-plane root position per frame, `frames x 2`: (x, z) for y-up, (x, y) for z-up. */
  trajectory: Float64Array;
  /** Root height (its coordinate along up) per frame. */
  height: Float64Array;
  /**
   * Root velocity in the heading frame, `frames x 3`, units per second: the world velocity turned by
   * −heading about up, so for y-up (x, y, z) are (sideways, up, forward) for a character facing +z at
   * heading 0. Central differences (one-sided at the ends).
   */
  velocity: Float64Array;
  /** Rate of change of the heading, radians per second (about up; central differences). */
  angularVelocity: Float64Array;
  /** The root's global rotation with the heading removed, `frames x 4` (x, y, z, w): `H⁻¹ ⊗ R_root`. */
  rootRotation: Float64Array;
  /**
   * Every joint's global position relative to the root's ground-plane point and heading, `frames x joints
   * x 3`: `H⁻¹ · (x_j − g)` with g the root position with its up component set to 0 (heights are kept).
   */
  positions: Float64Array;
  /** Every joint's global rotation in the heading frame, `frames x joints x 4`: `H⁻¹ ⊗ R_j`. */
  rotations: Float64Array;
}

/**
 * The wrapped twist angle of quaternion `q` (at `o`) about world axis `a` (1 = y, 2 = z), in (−π, π]:
 * `2·atan2(q_a, q_w)`, the same for `q` and `−q` once wrapped, and the same for `q = twist ⊗ swing` and
 * `q = swing ⊗ twist` (the projection of the vector part onto the axis is the twist in both).
 */
function twistAngle(q: FloatArray, o: number, a: number): number {
  let t = 2 * Math.atan2(q[o + a], q[o + 3]);
  if (t > Math.PI) t -= 2 * Math.PI;
  else if (t <= -Math.PI) t += 2 * Math.PI;
  return t;
}

/**
 * Splits a clip's root motion into heading, ground-plane trajectory and the rest, and expresses every joint
 * relative to it: the representation motion-generation models train on (HumanML3D's root features and
 * root-relative joints), computed with per-second units so it does not change with the frame rate.
 *
 * Conventions: world positions and rotations from {@link forwardKinematics}; the heading is the twist of
 * the root's global rotation `R` (times the inverse rest turn `B⁻¹` of `bodyUp`, the identity when the body
 * and the world agree) about the up axis (swing-twist decomposition: `2·atan2(q_up, q_w)`), unrolled
 * across frames so a capture that walks a full circle reports +2π; `H` is the rotation by the heading
 * about up. Velocities are central differences over `1 / rate` seconds (one-sided at the ends), so the
 * same motion sampled at 30 and 120 Hz gives the same numbers up to the differencing error. The heading
 * is undefined when the root's swing is a half turn (the twist projection vanishes); it is then taken as
 * 0 for that frame and unrolled from there.
 *
 * Source: swing-twist decomposition (Dobrowolski 2015, "Swing-twist decomposition in Clifford algebra");
 * the feature layout follows Guo et al. 2022, "Generating Diverse and Natural 3D Human Motions from Text"
 * (HumanML3D), with rates in per-second units.
 *
 * @throws {ShapeError} when the clip is malformed. @throws {InvalidValueError} on a non-finite rotation or
 *   translation, naming its frame and joint. @throws {OptionError} on an unknown option, an up axis
 *   other than `'y'`/`'z'` or an unknown root joint.
 * @example
 * const m = rootMotion(clip, { up: 'y' });
 * const turns = (m.heading[m.frames - 1] - m.heading[0]) / (2 * Math.PI);
 * const f = 10;
 * const forwardSpeed = m.velocity[f * 3 + 2]; // units per second, along the facing direction
 */
export function rootMotion(clip: Clip, options: RootMotionOptions = {}): RootMotion {
  const where = 'rootMotion';
  const o = resolveOptions(where, options, ROOT_MOTION_DEFAULTS, ROOT_MOTION_SPEC);
  if (o.up !== 'y' && o.up !== 'z')
    throw new OptionError(`${where}: up must be 'y' or 'z', got '${String(o.up)}'`);
  if (clip === null || typeof clip !== 'object' || clip.skeleton === undefined)
    throw new ShapeError(`${where}: clip must be a Clip with a skeleton`);
  const root = resolveJoint(clip, o.root, where);
  const rate = clip.rate;
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new OptionError(`${where}: the clip has no valid rate (${rate})`);
  const fk = forwardKinematics(clip);
  assertFiniteClip(clip, where);
  const J = clip.skeleton.parents.length;
  const F = fk.rotations.frames;
  const G = fk.rotations.data;
  const P = fk.positions.data;
  const a = o.up === 'y' ? 1 : 2;
  // ground-plane components: (x, z) for y-up, (x, y) for z-up
  const g1 = o.up === 'y' ? 2 : 1;

  const heading = new Float64Array(F);
  const trajectory = new Float64Array(F * 2);
  const height = new Float64Array(F);
  const rootRotation = new Float64Array(F * 4);
  const positions = new Float64Array(F * J * 3);
  const rotations = new Float64Array(F * J * 4);
  const hInv = new Float64Array(4);
  const d = new Float64Array(3);
  // B⁻¹, the inverse of the rest turn from the body's up to the world's: ±90° about x, or the identity
  const restInverse = new Float64Array([0, 0, 0, 1]);
  if (o.bodyUp !== o.up) {
    restInverse[0] = (o.bodyUp === 'y' ? -1 : 1) * Math.SQRT1_2;
    restInverse[3] = Math.SQRT1_2;
  }
  const corrected = new Float64Array(4);
  let previous = 0;
  for (let f = 0; f < F; f++) {
    const rq = (f * J + root) * 4;
    multiplyFlat(corrected, 0, G, rq, restInverse, 0);
    let t = twistAngle(corrected, 0, a);
    if (!Number.isFinite(t)) t = 0;
    if (f > 0) t += 2 * Math.PI * Math.round((previous - t) / (2 * Math.PI));
    heading[f] = t;
    previous = t;
    const rp = (f * J + root) * 3;
    trajectory[f * 2] = P[rp];
    trajectory[f * 2 + 1] = P[rp + g1];
    height[f] = P[rp + a];
    hInv.fill(0);
    hInv[a] = -Math.sin(t / 2);
    hInv[3] = Math.cos(t / 2);
    multiplyFlat(rootRotation, f * 4, hInv, 0, G, rq);
    for (let j = 0; j < J; j++) {
      const p = (f * J + j) * 3;
      d[0] = P[p] - P[rp];
      d[1] = P[p + 1] - P[rp + 1];
      d[2] = P[p + 2] - P[rp + 2];
      // keep heights: only the ground-plane part of the root position is removed
      d[a] += P[rp + a];
      rotateVectorFlat(positions, p, hInv, 0, d, 0);
      multiplyFlat(rotations, (f * J + j) * 4, hInv, 0, G, (f * J + j) * 4);
    }
  }

  const dt = 1 / rate;
  const angularVelocity = new Float64Array(F);
  centralDifference(heading, F, 1, dt, angularVelocity);
  const world = new Float64Array(F * 3);
  const rootPositions = new Float64Array(F * 3);
  for (let f = 0; f < F; f++)
    for (let k = 0; k < 3; k++) rootPositions[f * 3 + k] = P[(f * J + root) * 3 + k];
  centralDifference(rootPositions, F, 3, dt, world);
  const velocity = new Float64Array(F * 3);
  for (let f = 0; f < F; f++) {
    hInv.fill(0);
    hInv[a] = -Math.sin(heading[f] / 2);
    hInv[3] = Math.cos(heading[f] / 2);
    rotateVectorFlat(velocity, f * 3, hInv, 0, world, f * 3);
  }
  return {
    frames: F,
    rate,
    up: o.up,
    root,
    heading,
    trajectory,
    height,
    velocity,
    angularVelocity,
    rootRotation,
    positions,
    rotations,
  };
}
