/**
 * Loop detection: whether a clip's last pose repeats its first, as a looping game clip stores it (glTF
 * exporters key the first pose again at the end so that a player wrapping from the last key to the first
 * shows no jump).
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, NON_NEGATIVE_NUMBER, type OptionSpec, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { forwardKinematicsFrame } from '../skeleton/forward-kinematics.js';

/** How a step treats a clip that may loop: decide from the clip (`'auto'`), or say so (`'on'`, `'off'`). */
export type LoopMode = 'auto' | 'on' | 'off';

/** Every {@link LoopMode}. */
export const LOOP_MODES: readonly LoopMode[] = ['auto', 'on', 'off'];

/** Options of {@link detectLoop}. */
export interface DetectLoopOptions {
  /**
   * Largest distance between a joint's object-space position in the first and in the last frame, as a
   * fraction of the pose's size (the diagonal of the box around every joint of the first frame). Default
   * `1e-3`: 1.8 mm on a 1.8 m figure.
   */
  tolerance?: number;
  /** Largest angle between a joint's object-space rotation in the first and the last frame, radians. Default `1e-3` (0.057°). */
  angleTolerance?: number;
}

/** Defaults of {@link DetectLoopOptions}. */
export const DETECT_LOOP_DEFAULTS: Readonly<Required<DetectLoopOptions>> = frozenDefaults({
  tolerance: 1e-3,
  angleTolerance: 1e-3,
});

const DETECT_LOOP_SPEC: OptionSpec = { tolerance: NON_NEGATIVE_NUMBER, angleTolerance: NON_NEGATIVE_NUMBER };

/** What {@link detectLoop} found. */
export interface LoopDetection {
  /** True when the first and last poses agree within both tolerances (and the clip has 3 frames or more). */
  loop: boolean;
  /** Largest distance between a joint's first and last object-space position, in the clip's units. */
  seam: number;
  /** Largest angle between a joint's first and last object-space rotation, radians. */
  seamAngle: number;
  /** The pose's size the position tolerance scales with (diagonal of the first frame's joint box), clip units. */
  size: number;
  /** The largest `seam` that counts as a loop: `tolerance · size`. */
  limit: number;
}

/**
 * Decides whether a clip loops: its last pose repeats its first. Both poses are taken through forward
 * kinematics into object space (the clip's own frame: the root's translation and rotation included, so
 * a walk whose root advances is not a loop), and the clip loops when every joint's position agrees within
 * `tolerance` times the pose's size and every joint's rotation within `angleTolerance`. Such a clip's
 * period is its duration `(frames − 1) / rate`: the last frame is the first one again. A clip of fewer
 * than 3 frames never loops (there is no motion to wrap).
 *
 * Conventions: positions in the clip's units, angles in radians; rotation sign is ignored (`q` and `−q`
 * agree). The size is the diagonal of the box around the first frame's joints; a clip whose joints all
 * sit at one point (size 0) loops only when the positions agree exactly and the rotations within
 * `angleTolerance`.
 *
 * Method: a plain comparison of the end poses; glTF loops repeat the first key bit for bit, so their seam
 * is 0 (Fox Walk and Run, RobotExpressive Walking and Running), while clips that end elsewhere (Death,
 * Sitting) are 15 % of the size or more apart.
 *
 * @throws {ShapeError} on a malformed clip; {@link OptionError} on a tolerance that is not a
 *   non-negative finite number; {@link InvalidValueError} when the first or last pose is not finite.
 * @example
 * const { loop, seam } = detectLoop(clip); // a baked glTF walk: loop true, seam 0
 */
export function detectLoop(clip: Clip, options: DetectLoopOptions = {}): LoopDetection {
  if (clip === null || typeof clip !== 'object') throw new ShapeError('detectLoop: clip must be a Clip');
  const o = resolveOptions('detectLoop', options, DETECT_LOOP_DEFAULTS, DETECT_LOOP_SPEC);
  const frames = clip.frames;
  const J = clip.skeleton?.parents?.length ?? 0;
  if (!Number.isInteger(frames) || frames < 1)
    throw new ShapeError(`detectLoop: the clip has ${String(frames)} frames`);
  const r0 = new Float64Array(J * 4);
  const p0 = new Float64Array(J * 3);
  const r1 = new Float64Array(J * 4);
  const p1 = new Float64Array(J * 3);
  forwardKinematicsFrame(clip, 0, r0, p0);
  forwardKinematicsFrame(clip, frames - 1, r1, p1);
  let seam = 0;
  let seamAngle = 0;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let j = 0; j < J; j++) {
    let d2 = 0;
    for (let c = 0; c < 3; c++) {
      const a = p0[j * 3 + c];
      const d = p1[j * 3 + c] - a;
      d2 += d * d;
      if (a < lo[c]) lo[c] = a;
      if (a > hi[c]) hi[c] = a;
    }
    seam = Math.max(seam, Math.sqrt(d2));
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let c = 0; c < 4; c++) {
      dot += r0[j * 4 + c] * r1[j * 4 + c];
      na += r0[j * 4 + c] * r0[j * 4 + c];
      nb += r1[j * 4 + c] * r1[j * 4 + c];
    }
    const cos = Math.min(1, Math.abs(dot) / Math.sqrt(na * nb));
    seamAngle = Math.max(seamAngle, 2 * Math.acos(cos));
  }
  if (!Number.isFinite(seam) || !Number.isFinite(seamAngle))
    throw new InvalidValueError(
      `detectLoop: the first or last pose is not finite (frames 0 and ${frames - 1}: a rotation or translation is NaN, infinite or a zero quaternion)`,
    );
  const size = J > 0 ? Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) : 0;
  const limit = o.tolerance * size;
  const loop = frames >= 3 && seam <= limit && seamAngle <= o.angleTolerance;
  return { loop, seam, seamAngle, size, limit };
}
