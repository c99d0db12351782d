import { frozenDefaults, numberIn, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import {
  createDamper,
  DAMPER_DEFAULTS,
  type DamperResponse,
  MAX_HALF_LIFE,
  MIN_HALF_LIFE,
} from './damper.js';
import { CLIP_DIRECTIONS, type ClipDirection, runClip } from './run-clip.js';

/** Options of {@link dampClip}. */
export interface DampClipOptions {
  /** Seconds for the distance to a held target to halve (see `createDamper`). Default 0.1. */
  halfLife?: number;
  /** `'critical'` (default, spring-damper) or `'exponential'`. */
  response?: DamperResponse;
  /** `'all'` (default) damps rotations and translations; `'rotations'` leaves translations as they are. */
  channels?: 'all' | 'rotations';
  /** `'forward'` (default) or `'forward-backward'` (zero phase for `'exponential'`, less lag for both). */
  direction?: ClipDirection;
}

/** Defaults of {@link DampClipOptions} (frozen). */
export const DAMP_CLIP_DEFAULTS: Readonly<Required<DampClipOptions>> = frozenDefaults({
  halfLife: DAMPER_DEFAULTS.halfLife,
  response: DAMPER_DEFAULTS.response,
  channels: 'all',
  direction: 'forward',
});

const DAMP_CLIP_SPEC: OptionSpec = {
  halfLife: numberIn(MIN_HALF_LIFE, MAX_HALF_LIFE),
  response: oneOf(['critical', 'exponential']),
  channels: oneOf(['all', 'rotations']),
  direction: oneOf(CLIP_DIRECTIONS),
};

/**
 * Runs a recorded clip through a damper ({@link createDamper}) frame by frame at `f · frameTime` seconds: every
 * joint's local rotation follows its recorded rotation with the half-life, and (with `channels: 'all'`) every
 * translation with the same damper in 3D. `direction: 'forward-backward'` runs the result backwards through a
 * second damper. Joints that never move come back unchanged. Returns a new `Clip`; the input is not modified.
 *
 * Method: D. Holden, "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021); see {@link createDamper}.
 *
 * @param options - Defaults in {@link DAMP_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} on a malformed clip; {@link OptionError} on invalid options;
 *   {@link InvalidValueError} on a non-finite or zero rotation (naming the joint).
 * @example
 * const calm = dampClip(clip, { halfLife: 0.05 });
 */
export function dampClip(clip: Clip, options: DampClipOptions = {}): Clip {
  const where = 'dampClip';
  const o = resolveOptions(where, options, DAMP_CLIP_DEFAULTS, DAMP_CLIP_SPEC);
  return runClip(
    clip,
    (joints) => createDamper({ joints, halfLife: o.halfLife, response: o.response }),
    o.channels === 'all'
      ? (joints) =>
          createDamper({ joints, kind: 'vector', width: 3, halfLife: o.halfLife, response: o.response })
      : null,
    o.direction,
    where,
  );
}
