import { OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { assertQuatSeries } from '../../series/create.js';
import type { Vec3Series } from '../../series/types.js';
import { checkClip } from '../skeleton/clip-check.js';
import { eulerFromQuatSeries } from './euler-from-quat-series.js';
import { unrollQuaternions } from './unroll-quaternions.js';

/** Options of {@link unrollClip}. */
export interface UnrollClipOptions {
  /**
   * `'copy'` (default): return a new clip with new Float64 rotations, the input is untouched; `'in-place'`:
   * unroll `clip.rotations` where it is and return the same clip.
   */
  target?: 'copy' | 'in-place';
}

/** Defaults of {@link UnrollClipOptions}. */
export const UNROLL_CLIP_DEFAULTS: Required<UnrollClipOptions> = frozenDefaults({
  target: 'copy',
});

const UNROLL_CLIP_SPEC: OptionSpec = { target: oneOf(['copy', 'in-place']) };

/**
 * Removes quaternion sign flips from every joint of a clip ({@link unrollQuaternions} on
 * `clip.rotations`): consecutive frames share a hemisphere, the first frame is at `w >= 0`.
 *
 * The rotations are unchanged as rotations, so poses, BVH output and Euler curves are unchanged too; what
 * changes is that interpolation, filtering and finite differences on the quaternions no longer see spurious
 * 360° steps. Euler curves for writing are made continuous separately ({@link clipEulerCurves}, which the
 * BVH writer uses): Euler angles cannot live in the clip, whose rotations are quaternions.
 *
 * Edge cases: a clip with 0 frames or 0 joints is returned as is (copied for `'copy'`).
 *
 * Method: D. Holden, "Unrolling Rotations" (2024).
 *
 * @throws {ShapeError} when `clip.rotations` is malformed.
 * @throws {OptionError} on an unknown `target`.
 * @throws {InvalidValueError} on a non-finite quaternion, with `location.frame` and `location.joint`.
 * @example
 * const clean = unrollClip(parseBvh(text));
 */
export function unrollClip(clip: Clip, options: UnrollClipOptions = {}): Clip {
  checkClip(clip, 'unrollClip', { finite: true });
  options = resolveOptions('unrollClip', options, UNROLL_CLIP_DEFAULTS, UNROLL_CLIP_SPEC);
  const target = options.target ?? UNROLL_CLIP_DEFAULTS.target;
  if (target !== 'copy' && target !== 'in-place') {
    throw new OptionError(`unrollClip: target must be 'copy' or 'in-place', got ${String(target)}`);
  }
  if (clip === null || typeof clip !== 'object') throw new ShapeError('unrollClip: clip must be a Clip');
  assertQuatSeries(clip.rotations, 'unrollClip: clip.rotations');
  if (target === 'in-place') {
    unrollQuaternions(clip.rotations);
    return clip;
  }
  const { frames, joints } = clip.rotations;
  const rotations = { data: new Float64Array(clip.rotations.data.length), frames, joints };
  unrollQuaternions(clip.rotations, { out: rotations });
  return { ...clip, rotations };
}

/**
 * Continuous Euler curves of every joint of a clip, in each joint's own order (`clip.orders`), radians: the
 * curves a BVH writer should write. Built by {@link eulerFromQuatSeries} with the equivalent-triple filter,
 * so ±180° wraps and gimbal branch switches are gone and multi-turn motion keeps growing.
 *
 * `initial` (`joints x 3`, radians) seeds the first frame's shell and branch, for example with the first
 * frame of the curves the clip was read from; without it the first frame is in the principal range.
 *
 * @throws {ShapeError} when the clip's rotations or orders do not fit.
 * @throws {InvalidValueError} on a zero or non-finite quaternion, with `location.frame` and `location.joint`.
 * @example
 * const curves = clipEulerCurves(clip); // frames x joints x 3, e.g. BVH Zrotation Yrotation Xrotation
 */
export function clipEulerCurves(clip: Clip, initial?: ArrayLike<number>): Vec3Series<Float64Array> {
  checkClip(clip, 'clipEulerCurves');
  if (clip === null || typeof clip !== 'object') throw new ShapeError('clipEulerCurves: clip must be a Clip');
  assertQuatSeries(clip.rotations, 'clipEulerCurves: clip.rotations');
  if (!Array.isArray(clip.orders) || clip.orders.length !== clip.rotations.joints) {
    throw new ShapeError(
      `clipEulerCurves: clip.orders must list one order per joint (${clip.rotations.joints}), got ${clip.orders?.length}`,
    );
  }
  return eulerFromQuatSeries(clip.rotations, clip.orders, { unroll: 'equivalent', initial });
}
