import { OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import type { Vec3Series } from '../../series/types.js';
import { checkClip } from '../skeleton/clip-check.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';
import { angularVelocity } from './angular-velocity.js';
import { linearVelocity } from './linear-velocity.js';
import { VELOCITY_DEFAULTS, VELOCITY_SPEC, type VelocityOptions } from './velocity-options.js';

/**
 * Options of {@link clipVelocities}: the shared velocity options (kernel, at, times, method, boundary), passed
 * to each velocity, and the spaces.
 */
export interface ClipVelocitiesOptions extends VelocityOptions {
  /** Which velocities: `'local'`, `'global'` or `'both'` (default). Global ones run forward kinematics. */
  spaces?: 'local' | 'global' | 'both';
}

/** Defaults of {@link ClipVelocitiesOptions}. */
export const CLIP_VELOCITIES_DEFAULTS: Required<Omit<ClipVelocitiesOptions, 'times'>> = frozenDefaults({
  ...VELOCITY_DEFAULTS,
  spaces: 'both',
});

const CLIP_VELOCITIES_SPEC: OptionSpec = { ...VELOCITY_SPEC, spaces: oneOf(['local', 'global', 'both']) };

/** Velocities of every joint of a clip; units per second (radians, clip length units). */
export interface ClipVelocities {
  /** Angular velocity of each local rotation, expressed in the parent joint's frame. */
  localAngular?: Vec3Series<Float64Array>;
  /** Velocity of each local translation, in the parent joint's frame. */
  localLinear?: Vec3Series<Float64Array>;
  /** Angular velocity of each global rotation, in the world frame. */
  globalAngular?: Vec3Series<Float64Array>;
  /** Velocity of each global joint position, in the world frame. */
  globalLinear?: Vec3Series<Float64Array>;
}

/**
 * Angular and linear velocities of every joint of a clip, local (the clip's own channels) and/or global
 * (after {@link forwardKinematics}), computed as mid-point finite differences filtered with one kernel (see
 * {@link angularVelocity}, {@link linearVelocity}); `dt` is the clip's `frameTime`.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025), section Velocities.
 *
 * @throws {ShapeError} on an inconsistent clip; the errors of the velocity and FK operations otherwise.
 * @example
 * const { globalLinear } = clipVelocities(clip, { kernel: kernels.gaussian(2), spaces: 'global' });
 */
export function clipVelocities(clip: Clip, options: ClipVelocitiesOptions = {}): ClipVelocities {
  if (clip === null || typeof clip !== 'object') throw new ShapeError('clipVelocities: clip must be a Clip');
  checkClip(clip, 'clipVelocities');
  options = resolveOptions('clipVelocities', options, CLIP_VELOCITIES_DEFAULTS, CLIP_VELOCITIES_SPEC);
  const spaces = options.spaces ?? CLIP_VELOCITIES_DEFAULTS.spaces;
  if (spaces !== 'local' && spaces !== 'global' && spaces !== 'both') {
    throw new OptionError(
      `clipVelocities: spaces must be 'local', 'global' or 'both', got ${String(spaces)}`,
    );
  }
  const dt = clip.frameTime;
  const common = {
    kernel: options.kernel,
    at: options.at,
    times: options.times,
    method: options.method,
    boundary: options.boundary,
  };
  const result: ClipVelocities = {};
  if (spaces !== 'global') {
    result.localAngular = angularVelocity<Float64Array>(clip.rotations, dt, { ...common, frame: 'parent' });
    result.localLinear = linearVelocity<Float64Array>(clip.translations, dt, common);
  }
  if (spaces !== 'local') {
    const fk = forwardKinematics(clip);
    result.globalAngular = angularVelocity<Float64Array>(fk.rotations, dt, { ...common, frame: 'parent' });
    result.globalLinear = linearVelocity<Float64Array>(fk.positions, dt, common);
  }
  return result;
}
