import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  customRule,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { EULER_ORDERS, type EulerOrder } from '../../quat/euler.js';
import { angle, fromEulerFlat } from '../../quat/index.js';
import type { FloatArray, QuatSeries, Vec3Series } from '../../series/types.js';
import { eulerJointInfo, followTriple, nearestTurn } from '../unroll/unroll-kernels.js';

/**
 * What kind of discontinuity a frame shows:
 * - `'sign-flip'`: consecutive quaternions on opposite hemispheres (dot < 0) although the rotation moved
 *   less than the threshold. Harmless for the rotation, harmful for interpolation and finite differences;
 *   {@link unrollQuaternions} removes it.
 * - `'jump'`: the rotation itself turned by more than the threshold between two frames (a glitch, a cut,
 *   a missing marker, or motion faster than `maxAngularSpeed`). No unrolling can remove it.
 * - `'euler-wrap'`: an Euler channel stepped by a whole turn (±180° to ∓180°) while the rotation moved
 *   less than the threshold; `unrollEuler` with `mode: 'wrap'` removes it.
 * - `'euler-branch'`: the Euler triple switched to the other triple of the same rotation (typically near
 *   gimbal lock, several channels jump by about 180°); `unrollEuler` with `mode: 'equivalent'` removes it.
 */
export type DiscontinuityKind = 'sign-flip' | 'jump' | 'euler-wrap' | 'euler-branch';

/** One reported discontinuity: between frame `frame - 1` and frame `frame` of joint `joint`. */
export interface Discontinuity {
  /** The later frame of the pair, in `[1, frames)`. */
  frame: number;
  /** Joint index. */
  joint: number;
  /**
   * Radians: for `'jump'` and `'sign-flip'` the geodesic angle between the two rotations; for the Euler
   * kinds the largest step of a single channel (the size of the visible jump in the curve).
   */
  angle: number;
  kind: DiscontinuityKind;
}

/** Options of {@link findDiscontinuities}. */
export interface FindDiscontinuitiesOptions {
  /** Frames per second of the series, used for the default threshold. Default 30 (the lowest common mocap rate, so the most permissive threshold). */
  rate?: number;
  /**
   * Plausible maximum angular speed of a joint, radians per second. Default 25 rad/s (about 1430°/s):
   * above the fastest whole-body turns in motion capture (pirouettes and jump turns reach 700-900°/s) and
   * the joint speeds of ordinary human motion; throwing arms can exceed it and should raise it.
   */
  maxAngularSpeed?: number;
  /**
   * Geodesic angle per frame (radians) above which a step is a `'jump'`. Default:
   * `min(π, maxAngularSpeed / rate)`, for example 0.83 rad (48°) at 30 Hz and 0.21 rad (12°) at 120 Hz.
   */
  threshold?: number;
  /**
   * When given, `series` is read as Euler curves (a {@link Vec3Series} of triples in radians, channels in
   * the order the sequence names them) and wraps and branch switches are reported. One sequence or one per
   * joint.
   */
  order?: EulerOrder | readonly EulerOrder[];
}

/** Defaults of the optional fields of {@link FindDiscontinuitiesOptions}. */
export const FIND_DISCONTINUITIES_DEFAULTS = frozenDefaults({
  rate: 30,
  maxAngularSpeed: 25,
} as const);

const FIND_DISCONTINUITIES_SPEC: OptionSpec = {
  rate: POSITIVE_NUMBER,
  maxAngularSpeed: POSITIVE_NUMBER,
  threshold: POSITIVE_NUMBER,
  order: anyOf(oneOf(EULER_ORDERS), customRule('an array of Euler orders', Array.isArray)),
};

/**
 * Lists the frames where a rotation series is discontinuous, and why: quaternion sign flips, real jumps of
 * the rotation, and (for Euler curves) wraps and branch switches.
 *
 * Input: a {@link QuatSeries}, or, when `options.order` is set, a {@link Vec3Series} of Euler triples. Each
 * consecutive pair `(f − 1, f)` of each joint gives at most one entry, the first of `'jump'`, then
 * `'sign-flip'` (quaternions) or `'euler-wrap'`/`'euler-branch'` (Euler) that applies; continuous pairs give
 * none. Entries come in frame order, then joint order, so the list stays as small as the problems are. An
 * Euler pair is a wrap or branch switch exactly when `unrollEuler` (seeded with the earlier frame as it
 * stands) would change the later one.
 *
 * Threshold: a step is a `'jump'` when the geodesic angle exceeds `threshold`, by default
 * `min(π, maxAngularSpeed / rate)` (25 rad/s at 30 Hz unless given).
 *
 * Edge cases: 0 or 1 frames give `[]`. Quaternions need not be unit (their norm is divided out).
 *
 * Method: D. Holden, "Unrolling Rotations" (2024) for the kinds of discontinuity per representation.
 *
 * @throws {ShapeError} on a malformed series.
 * @throws {OptionError} on a non-positive rate, speed or threshold, or an unknown order.
 * @throws {InvalidValueError} on a non-finite or zero quaternion / non-finite angle, with `location.frame`
 *   and `location.joint`.
 * @example
 * const found = findDiscontinuities(clip.rotations, { rate: clip.rate });
 * // [{ frame: 812, joint: 3, angle: 0.004, kind: 'sign-flip' }, ...]
 */
export function findDiscontinuities(
  series: QuatSeries | Vec3Series,
  options: FindDiscontinuitiesOptions = {},
): Discontinuity[] {
  options = resolveOptions(
    'findDiscontinuities',
    options,
    FIND_DISCONTINUITIES_DEFAULTS,
    FIND_DISCONTINUITIES_SPEC,
  );
  const rate = options.rate ?? FIND_DISCONTINUITIES_DEFAULTS.rate;
  const speed = options.maxAngularSpeed ?? FIND_DISCONTINUITIES_DEFAULTS.maxAngularSpeed;
  if (!(rate > 0 && rate < Infinity))
    throw new OptionError(`findDiscontinuities: rate must be > 0, got ${rate}`);
  if (!(speed > 0 && speed < Infinity)) {
    throw new OptionError(`findDiscontinuities: maxAngularSpeed must be > 0, got ${speed}`);
  }
  const threshold = options.threshold ?? Math.min(Math.PI, speed / rate);
  if (!(threshold > 0 && threshold < Infinity)) {
    throw new OptionError(`findDiscontinuities: threshold must be > 0, got ${threshold}`);
  }
  const width = options.order === undefined ? 4 : 3;
  if (series === null || typeof series !== 'object') {
    throw new ShapeError('findDiscontinuities: series must be a QuatSeries or Vec3Series');
  }
  const { data, frames, joints } = series;
  if (!(data instanceof Float64Array || data instanceof Float32Array)) {
    throw new ShapeError('findDiscontinuities: data must be a Float64Array or Float32Array');
  }
  if (!Number.isInteger(frames) || frames < 0 || !Number.isInteger(joints) || joints < 0) {
    throw new ShapeError(`findDiscontinuities: frames and joints must be non-negative integers`);
  }
  if (data.length !== frames * joints * width) {
    throw new ShapeError(
      `findDiscontinuities: data has ${data.length} values, expected frames ${frames} x joints ${joints} x ${width}` +
        (width === 3
          ? ' (Euler triples, since order is given)'
          : ' (quaternions; pass order for Euler curves)'),
    );
  }
  if (width === 3) {
    checkFinite(data, joints, width);
    return eulerDiscontinuities(data, frames, joints, threshold, options.order!);
  }
  // quaternions are checked in the same pass as the scan
  return quaternionDiscontinuities(data, frames, joints, threshold);
}

function checkFinite(data: FloatArray, joints: number, width: number): void {
  for (let i = 0; i < data.length; i += width) {
    let sum = 0;
    let norm = 0;
    for (let c = 0; c < width; c++) {
      sum += data[i + c];
      norm += data[i + c] * data[i + c];
    }
    if (!Number.isFinite(sum) || (width === 4 && !(norm > 0 && norm < Infinity))) {
      const item = i / width;
      const frame = Math.floor(item / joints);
      const joint = item % joints;
      const values = Array.from(data.subarray(i, i + width)).join(', ');
      throw new InvalidValueError(
        `findDiscontinuities: ${width === 4 ? 'zero or non-finite quaternion' : 'non-finite Euler angles'} (${values}) at frame ${frame}, joint ${joint}`,
        { frame, joint },
      );
    }
  }
}

/**
 * The quaternion scan, with the check of `checkFinite` folded in: every quaternion's squared norm must be
 * in (0, ∞) (each is checked as the later one of its pair, the first frame's up front), which holds
 * exactly when its components are finite and not all zero; on the first that is not, `checkFinite` names
 * the first such quaternion as it always has. The jump test compares squares, `d² < cos²(θ/2)·|a|²·|b|²`,
 * instead of `|d| / √(|a|²·|b|²) < cos(θ/2)`, and only pairs within 1e-9 of the threshold (where the two
 * forms could round differently) take the square-root form, so every pair is classified as before.
 */
function quaternionDiscontinuities(
  data: FloatArray,
  frames: number,
  joints: number,
  threshold: number,
): Discontinuity[] {
  const found: Discontinuity[] = [];
  const stride = joints * 4;
  // |cos(θ/2)| below this means θ above the threshold; the exact angle is computed only for reports.
  const cosHalf = Math.cos(threshold / 2);
  const cos2 = cosHalf * cosHalf;
  const above = cos2 * (1 + 1e-9);
  const below = cos2 * (1 - 1e-9);
  // the first frame's quaternions; each later one is checked as the second of its pair
  let bad = false;
  for (let o = 0; o < stride && frames > 0; o += 4) {
    const n =
      data[o] * data[o] + data[o + 1] * data[o + 1] + data[o + 2] * data[o + 2] + data[o + 3] * data[o + 3];
    if (!(n > 0 && n < Infinity)) bad = true;
  }
  if (bad) checkFinite(data, joints, 4);
  const qa = new Float64Array(4);
  const qb = new Float64Array(4);
  // one pass in memory order over the pairs (frame f, joint j) at i and (f - 1, j) at i - stride; the
  // earlier quaternion's squared norm is computed again rather than kept (the same products in the same
  // order, so the same number), which is cheaper than a store and a load per pair
  const end = frames * stride;
  for (let i = stride; i < end; i += 4) {
    const p = i - stride;
    const ax = data[p];
    const ay = data[p + 1];
    const az = data[p + 2];
    const aw = data[p + 3];
    const bx = data[i];
    const by = data[i + 1];
    const bz = data[i + 2];
    const bw = data[i + 3];
    const d = bx * ax + by * ay + bz * az + bw * aw;
    const nb = bx * bx + by * by + bz * bz + bw * bw;
    if (!(nb > 0 && nb < Infinity)) checkFinite(data, joints, 4);
    const na = ax * ax + ay * ay + az * az + aw * aw;
    const nn = na * nb;
    const d2 = d * d;
    let isJump: boolean;
    if (d2 > above * nn) isJump = false;
    else if (d2 < below * nn) isJump = true;
    else isJump = Math.abs(d / Math.sqrt(nn)) < cosHalf;
    if (!isJump && d >= 0) continue;
    for (let k = 0; k < 4; k++) {
      qa[k] = data[p + k];
      qb[k] = data[i + k];
    }
    const a = angle(qa, qb);
    // The cosine test is a cheap filter; the exact angle decides pairs right at the threshold.
    const kind: DiscontinuityKind | null = a > threshold ? 'jump' : d < 0 ? 'sign-flip' : null;
    if (kind === null) continue;
    const item = i / 4;
    found.push({ frame: Math.floor(item / joints), joint: item % joints, angle: a, kind });
  }
  return found;
}

function eulerDiscontinuities(
  data: FloatArray,
  frames: number,
  joints: number,
  threshold: number,
  order: EulerOrder | readonly EulerOrder[],
): Discontinuity[] {
  const info = eulerJointInfo(order, joints, 'findDiscontinuities');
  const single = typeof order === 'string';
  const found: Discontinuity[] = [];
  const stride = joints * 3;
  const qa = new Float64Array(4);
  const qb = new Float64Array(4);
  const scratch = new Float64Array(3);
  for (let i = stride; i < frames * stride; i += 3) {
    const p = i - stride;
    const item = i / 3;
    const joint = item % joints;
    const ord = single ? (order as EulerOrder) : (order as readonly EulerOrder[])[joint];
    fromEulerFlat(qa, 0, data, p, ord);
    fromEulerFlat(qb, 0, data, i, ord);
    const turned = angle(qa, qb);
    const pa = data[p];
    const pb = data[p + 1];
    const pc = data[p + 2];
    const a = data[i];
    const b = data[i + 1];
    const c = data[i + 2];
    const step = Math.max(Math.abs(a - pa), Math.abs(b - pb), Math.abs(c - pc));
    const frame = Math.floor(item / joints);
    if (turned > threshold) {
      found.push({ frame, joint, angle: turned, kind: 'jump' });
      continue;
    }
    // The choice unrollEuler's equivalent filter would make, relative to the previous frame as it stands.
    const choice = followTriple(scratch, 0, a, b, c, data, p, info, joint * 3, true);
    if (choice === 2) found.push({ frame, joint, angle: step, kind: 'euler-branch' });
    else if (choice === 1) found.push({ frame, joint, angle: step, kind: 'euler-wrap' });
    else if (choice === 3 && (nearestTurn(a, pa) !== a || nearestTurn(c, pc) !== c)) {
      // At gimbal lock any split of the outer angles is the same rotation; only whole turns count as a wrap.
      found.push({ frame, joint, angle: step, kind: 'euler-wrap' });
    }
  }
  return found;
}
