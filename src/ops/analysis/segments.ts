/**
 * Segments of a clip between real jumps: the frames where `findDiscontinuities` reports a `'jump'` (a step
 * faster than a plausible angular speed) that also stands out of the joint's own motion around it (a
 * T-pose first frame, a cut, a glitch; not a fast kick), per joint. Filtering and
 * resampling with `segments: 'jumps'` treat each segment's ends as boundaries, so no kernel mixes samples
 * across a jump.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import type { Clip } from '../../series/clip.js';
import { checkClip } from '../skeleton/clip-check.js';
import { FIND_DISCONTINUITIES_DEFAULTS, findDiscontinuities } from './find-discontinuities.js';

/** How `filterClip` and `resampleClip` treat real jumps: `'jumps'` splits at them, `'none'` does not. */
export type SegmentPolicy = 'jumps' | 'none';

/** Every {@link SegmentPolicy}. */
export const SEGMENT_POLICIES: readonly SegmentPolicy[] = ['jumps', 'none'];

/**
 * How many times faster than its neighbours a step must be to count as a cut: a step is compared with the
 * median of the four steps around it (two before, two after). Real fast motion (a kick, a punch, a climb)
 * speeds up and slows down over several frames, so its fastest step is at most about 5.5 times that median
 * on the real captures measured (Boxing_Toes at 100 Hz, CMU 01_01 at 120 Hz, a Bandai Namco dance at 30
 * Hz; most under 3); a cut, a T-pose first frame or a one-frame glitch stands alone, 14 to 1800 times it.
 */
export const JUMP_SPIKE_RATIO = 8;

/** One place where {@link jumpSplits} splits a joint. */
export interface JumpSplit {
  /** Joint index. */
  joint: number;
  /** The later frame of the step: the first frame of the new segment. */
  frame: number;
  /** Geodesic angle of the step, radians. */
  angle: number;
  /** Median of the four neighbouring steps of the joint (two before, two after), radians. */
  neighbours: number;
}

/** Geodesic angle between frames f − 1 and f of joint j (quaternions need not be unit). */
function stepAngle(data: ArrayLike<number>, joints: number, j: number, f: number): number {
  const a = ((f - 1) * joints + j) * 4;
  const b = (f * joints + j) * 4;
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let k = 0; k < 4; k++) {
    d += data[a + k] * data[b + k];
    na += data[a + k] * data[a + k];
    nb += data[b + k] * data[b + k];
  }
  const c = Math.abs(d) / Math.sqrt(na * nb);
  return 2 * Math.acos(c < 1 ? c : 1);
}

/**
 * The real cuts of a clip, per joint and in frame order: the steps `findDiscontinuities` reports as
 * `'jump'` (faster than `maxAngularSpeed` at `rate`, default 25 rad/s) that also stand out of the joint's
 * own motion around them, more than `spikeRatio` times (default {@link JUMP_SPIKE_RATIO}) the median of
 * the four neighbouring steps (fewer at the clip's ends). The threshold so comes from the clip: a kick at
 * 40 rad/s that ramps up over a few frames is motion, not a cut, while a cut, a T-pose first frame or a
 * one-frame glitch (whose return step is one of the four, outvoted by the median) still is. A
 * `spikeRatio` of 0 keeps every fixed-speed jump (the rule before this one).
 *
 * Source: a local median outlier test (a Hampel-style filter on the per-frame angular speed).
 *
 * @throws {ShapeError} or {@link OptionError} on a malformed clip, a rate that is not a positive number
 * or a negative `spikeRatio`.
 * @example
 * jumpSplits(parseBvh(cmu0101Text)); // [{ joint: 3, frame: 1, angle: 0.35, neighbours: 0.001 }, ...]
 */
export function jumpSplits(
  clip: Clip,
  rate?: number,
  maxAngularSpeed: number = FIND_DISCONTINUITIES_DEFAULTS.maxAngularSpeed,
  spikeRatio: number = JUMP_SPIKE_RATIO,
): JumpSplit[] {
  if (clip === null || typeof clip !== 'object') throw new OptionError('jumpSplits: clip must be a Clip');
  checkClip(clip, 'jumpSplits');
  rate ??= clip.rate;
  if (typeof rate !== 'number' || !(rate > 0) || !Number.isFinite(rate))
    throw new OptionError(`jumpSplits: rate must be a positive number of Hz, got ${String(rate)}`);
  if (typeof spikeRatio !== 'number' || !(spikeRatio >= 0) || !Number.isFinite(spikeRatio))
    throw new OptionError(`jumpSplits: spikeRatio must be a finite number >= 0, got ${String(spikeRatio)}`);
  const { data, frames, joints } = clip.rotations;
  const splits: JumpSplit[] = [];
  const around = new Float64Array(4);
  for (const d of findDiscontinuities(clip.rotations, { rate, maxAngularSpeed })) {
    if (d.kind !== 'jump') continue;
    let n = 0;
    for (const f of [d.frame - 2, d.frame - 1, d.frame + 1, d.frame + 2])
      if (f >= 1 && f < frames) around[n++] = stepAngle(data, joints, d.joint, f);
    const sorted = around.subarray(0, n).sort();
    const neighbours = n === 0 ? 0 : (sorted[(n - 1) >> 1] + sorted[n >> 1]) / 2;
    if (d.angle > spikeRatio * neighbours)
      splits.push({ joint: d.joint, frame: d.frame, angle: d.angle, neighbours });
  }
  return splits;
}

/**
 * Per joint, the frames that start a new segment (the later frame of each cut {@link jumpSplits} finds,
 * ascending; empty for a joint without cuts), for a clip at `rate` Hz, a plausible maximum angular speed
 * (rad/s, default `findDiscontinuities`' 25) and a spike ratio (default {@link JUMP_SPIKE_RATIO}). Sign
 * flips are not jumps and never split.
 *
 * @throws {ShapeError} or {@link OptionError} on a malformed clip or a rate that is not a positive number.
 * @example
 * const cuts = jumpCuts(parseBvh(cmu0101Text)); // cuts[0] = [1]: the T-pose at frame 0, then the capture
 */
export function jumpCuts(
  clip: Clip,
  rate?: number,
  maxAngularSpeed: number = FIND_DISCONTINUITIES_DEFAULTS.maxAngularSpeed,
  spikeRatio: number = JUMP_SPIKE_RATIO,
): number[][] {
  if (clip === null || typeof clip !== 'object') throw new OptionError('jumpCuts: clip must be a Clip');
  checkClip(clip, 'jumpCuts');
  const cuts: number[][] = Array.from({ length: clip.rotations.joints }, () => []);
  for (const d of jumpSplits(clip, rate, maxAngularSpeed, spikeRatio)) cuts[d.joint].push(d.frame);
  return cuts;
}

/**
 * The joints whose cut lists are the same, in order of their first joint: `[[1], [0, 2]]` for cuts
 * `[[], [5], []]`... with the joints without cuts left out. Joints of one group share their segments, so
 * their pieces are filtered or resampled together (each joint on its own, as one series of several joints).
 *
 * @internal
 */
export function cutGroups(
  cuts: readonly (readonly number[])[],
): { joints: number[]; cuts: readonly number[] }[] {
  const groups = new Map<string, { joints: number[]; cuts: readonly number[] }>();
  for (let j = 0; j < cuts.length; j++) {
    if (cuts[j].length === 0) continue;
    const key = cuts[j].join(',');
    const group = groups.get(key);
    if (group) group.joints.push(j);
    else groups.set(key, { joints: [j], cuts: cuts[j] });
  }
  return [...groups.values()];
}

/**
 * Copies frames `[start, end)` of the joints `picked` (values of `width`) out of a frame-major series into
 * a frame-major series of just those joints.
 *
 * @internal
 */
export function jointsSlice(
  data: Float64Array | Float32Array,
  joints: number,
  width: 3 | 4,
  picked: readonly number[],
  start: number,
  end: number,
): Float64Array {
  const m = picked.length;
  const out = new Float64Array((end - start) * m * width);
  let d = 0;
  // the width as a branch outside the loops: a fixed copy per joint instead of an inner loop
  if (width === 4) {
    for (let f = start; f < end; f++) {
      const row = f * joints;
      for (let k = 0; k < m; k++, d += 4) {
        const o = (row + picked[k]) * 4;
        out[d] = data[o];
        out[d + 1] = data[o + 1];
        out[d + 2] = data[o + 2];
        out[d + 3] = data[o + 3];
      }
    }
  } else {
    for (let f = start; f < end; f++) {
      const row = f * joints;
      for (let k = 0; k < m; k++, d += 3) {
        const o = (row + picked[k]) * 3;
        out[d] = data[o];
        out[d + 1] = data[o + 1];
        out[d + 2] = data[o + 2];
      }
    }
  }
  return out;
}

/**
 * Writes a series of the joints `picked` back into frames `[start, start + frames)` of those joints.
 *
 * @internal
 */
export function jointsStore(
  dst: Float64Array | Float32Array,
  joints: number,
  width: 3 | 4,
  picked: readonly number[],
  start: number,
  src: Float64Array | Float32Array,
): void {
  const m = picked.length;
  const frames = src.length / (width * m);
  let s = 0;
  if (width === 4) {
    for (let f = 0; f < frames; f++) {
      const row = (start + f) * joints;
      for (let k = 0; k < m; k++, s += 4) {
        const o = (row + picked[k]) * 4;
        dst[o] = src[s];
        dst[o + 1] = src[s + 1];
        dst[o + 2] = src[s + 2];
        dst[o + 3] = src[s + 3];
      }
    }
  } else {
    for (let f = 0; f < frames; f++) {
      const row = (start + f) * joints;
      for (let k = 0; k < m; k++, s += 3) {
        const o = (row + picked[k]) * 3;
        dst[o] = src[s];
        dst[o + 1] = src[s + 1];
        dst[o + 2] = src[s + 2];
      }
    }
  }
}

/**
 * The joints of `picked` (ascending or not; kept in their order) whose 3-vectors change at some frame, bit
 * for bit. One pass over the frames in memory order, which stops once every picked joint has changed.
 *
 * @internal
 */
export function movingAmong(
  data: Float64Array | Float32Array,
  frames: number,
  joints: number,
  picked: readonly number[],
): number[] {
  const m = picked.length;
  const moved = new Uint8Array(m);
  let left = m;
  for (let f = 1; f < frames && left > 0; f++) {
    const row = f * joints;
    for (let k = 0; k < m; k++) {
      if (moved[k] === 1) continue;
      const j = picked[k] * 3;
      const o = (row + picked[k]) * 3;
      if (data[o] !== data[j] || data[o + 1] !== data[j + 1] || data[o + 2] !== data[j + 2]) {
        moved[k] = 1;
        left--;
      }
    }
  }
  return picked.filter((_, k) => moved[k] === 1);
}

/**
 * For each joint, 1 when it holds the same `width` values in every frame. One pass over the frames in
 * memory order (a strided pass per joint would touch every cache line once per joint) that compares only
 * the joints still constant, kept in a compact list, and stops when none is: a clip whose joints all move
 * after a few frames costs a few rows. Its own function, so that the long scan (compiled on the stack of a
 * first large clip) ends in a plain return rather than in the caller's code, which the engine may not have
 * seen run yet.
 *
 * @internal
 */
export function constantJoints(
  src: Float64Array | Float32Array,
  frames: number,
  joints: number,
  width: 3 | 4,
): Uint8Array {
  const constant = new Uint8Array(joints).fill(1);
  const stride = joints * width;
  // offsets (joint · width) of the joints still constant; one that changes is replaced by the last
  const left = new Int32Array(joints);
  for (let j = 0; j < joints; j++) left[j] = j * width;
  let n = joints;
  for (let f = 1; f < frames && n > 0; f++) {
    const o = f * stride;
    for (let k = 0; k < n; ) {
      const b = left[k];
      const a = o + b;
      if (
        src[a] === src[b] &&
        src[a + 1] === src[b + 1] &&
        src[a + 2] === src[b + 2] &&
        (width === 3 || src[a + 3] === src[b + 3])
      ) {
        k++;
      } else {
        constant[b / width] = 0;
        left[k] = left[--n];
      }
    }
  }
  return constant;
}
