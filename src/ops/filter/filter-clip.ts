import { OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { assertQuatSeries, assertVec3Series } from '../../series/create.js';
import {
  constantJoints,
  cutGroups,
  jointsSlice,
  jointsStore,
  jumpCuts,
  movingAmong,
  SEGMENT_POLICIES,
  type SegmentPolicy,
} from '../analysis/segments.js';
import { isKernel, type Kernel } from '../kernel/kernels.js';
import { ROTATION_SPACES, type RotationSpace } from '../kernel/rotation-blend.js';
import { BOUNDARIES, type Boundary } from '../kernel/tap-window.js';
import { checkClip } from '../skeleton/clip-check.js';
import { filterRotations } from './filter-rotations.js';
import { filterVectors } from './filter-vectors.js';
import { SMOOTH_DEFAULTS } from './smooth-defaults.js';

/** Options of {@link filterClip}. */
export interface FilterClipOptions {
  /** Space of the rotation weighted sums (see {@link filterRotations}). */
  space?: RotationSpace;
  /** Boundary rule for rotations and translations; `'wrap'` for looping clips. */
  boundary?: Boundary;
  /** `'all'` (default) filters rotations and translations; `'rotations'` leaves translations as they are. */
  channels?: 'all' | 'rotations';
  /**
   * `'keep'` (default): the input clip is left as it is; `'reuse'`: the input's Float64 arrays may be
   * overwritten with the result and returned (a pipeline that has no further use for the input saves a
   * full copy of each).
   */
  input?: 'keep' | 'reuse';
  /**
   * `'none'` (default): one kernel pass over all frames. `'jumps'`: each joint is split at the real jumps
   * `findDiscontinuities` reports for it at the clip's rate (kind `'jump'`: a T-pose first frame, a cut;
   * never a sign flip), and each segment is filtered on its own with its ends as boundaries under
   * `boundary`, so the kernel never mixes samples across a jump. The joint's translation and scale are
   * split at the same frames. With `boundary: 'wrap'` the clip's ends are joined (the loop's seam is no
   * boundary) and the jumps are the only ends, with `'linear'` there.
   */
  segments?: SegmentPolicy;
}

/** Defaults of {@link FilterClipOptions}. */
export const FILTER_CLIP_DEFAULTS: Required<FilterClipOptions> = frozenDefaults({
  space: 'raw',
  boundary: SMOOTH_DEFAULTS.boundary,
  channels: 'all',
  input: 'keep',
  segments: 'none',
});

const FILTER_CLIP_SPEC: OptionSpec = {
  space: oneOf(ROTATION_SPACES),
  boundary: oneOf(BOUNDARIES),
  channels: oneOf(['all', 'rotations']),
  input: oneOf(['keep', 'reuse']),
  segments: oneOf(SEGMENT_POLICIES),
};

/**
 * Filters a whole clip along time with one kernel: every joint's local rotation (in `space`, see
 * {@link filterRotations}) and every joint's local translation (see {@link filterVectors}). Joints whose
 * rotation or translation never changes (joints without channels, fixed OFFSETs) are copied bit for bit, so a
 * written-back file keeps its static values. Returns a new `Clip` sharing the skeleton and metadata; the input
 * is not modified.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025).
 *
 * @throws {ShapeError} when the clip's series disagree with each other; the errors of {@link filterRotations}
 *   and {@link filterVectors} otherwise.
 * @example
 * const smooth = filterClip(parseBvh(text), kernels.gaussian(2), { space: 'log' });
 */
export function filterClip(clip: Clip, kernel: Kernel, options: FilterClipOptions = {}): Clip {
  if (clip === null || typeof clip !== 'object') throw new ShapeError('filterClip: clip must be a Clip');
  checkClip(clip, 'filterClip');
  options = resolveOptions('filterClip', options, FILTER_CLIP_DEFAULTS, FILTER_CLIP_SPEC);
  assertQuatSeries(clip.rotations, 'filterClip: clip.rotations');
  assertVec3Series(clip.translations, 'filterClip: clip.translations');
  const { frames, joints } = clip.rotations;
  if (clip.translations.frames !== frames || clip.translations.joints !== joints) {
    throw new ShapeError(
      `filterClip: rotations are ${frames} x ${joints} but translations ${clip.translations.frames} x ${clip.translations.joints}`,
    );
  }
  if (!isKernel(kernel)) throw new OptionError('filterClip: kernel must be a Kernel (see kernels)');
  const channels = options.channels ?? FILTER_CLIP_DEFAULTS.channels;
  if (channels !== 'all' && channels !== 'rotations') {
    throw new OptionError(`filterClip: channels must be 'all' or 'rotations', got ${String(channels)}`);
  }
  const space = options.space ?? FILTER_CLIP_DEFAULTS.space;
  const boundary = options.boundary ?? FILTER_CLIP_DEFAULTS.boundary;
  const input = options.input ?? FILTER_CLIP_DEFAULTS.input;
  if (input !== 'keep' && input !== 'reuse') {
    throw new OptionError(`filterClip: input must be 'keep' or 'reuse', got ${String(input)}`);
  }
  const reuse = input === 'reuse';
  const segments = options.segments ?? FILTER_CLIP_DEFAULTS.segments;
  if (!SEGMENT_POLICIES.includes(segments)) {
    throw new OptionError(`filterClip: segments must be 'jumps' or 'none', got ${String(segments)}`);
  }
  // the pieces to filter on their own, cut from the input before a reusing pass overwrites it: the frames
  // of a joint with jumps whose kernel reaches past an end of their segment (the others read the same
  // taps with the same weights in the pass over the whole clip, each joint being filtered on its own)
  const pieces =
    segments === 'jumps' && frames > 1 ? cutPieces(clip, channels === 'all', kernel, boundary) : [];
  const rotations = filterMovingJoints(
    clip.rotations.data,
    frames,
    joints,
    4,
    reuse,
    kernel,
    space,
    boundary,
  );

  let translations = clip.translations;
  if (channels === 'all') {
    translations = filterMovingJoints(
      clip.translations.data,
      frames,
      joints,
      3,
      reuse,
      kernel,
      space,
      boundary,
    );
  } else if (!reuse) {
    translations = { data: Float64Array.from(clip.translations.data), frames, joints };
  }
  let scales = clip.scales;
  if (scales !== undefined) {
    assertVec3Series(scales, 'filterClip: clip.scales');
    if (scales.frames !== frames || scales.joints !== joints) {
      throw new ShapeError(
        `filterClip: rotations are ${frames} x ${joints} but scales ${scales.frames} x ${scales.joints}`,
      );
    }
    if (channels === 'all')
      scales = filterMovingJoints(scales.data, frames, joints, 3, reuse, kernel, space, boundary);
    else if (!reuse) scales = { data: Float64Array.from(scales.data), frames, joints };
  }
  for (const p of pieces) {
    const n = p.end - p.start;
    // of the piece's filtered frames, those from `keep` for `count` frames are stored
    const keep = p.keepFrom - p.start;
    const count = p.keepTo - p.keepFrom;
    const m = p.joints.length;
    const r = filterRotations({ data: p.rotations, frames: n, joints: m }, kernel, {
      space,
      boundary: p.boundary,
    }).data;
    storeWrapped(
      rotations.data,
      frames,
      joints,
      4,
      p.joints,
      p.keepFrom,
      r.subarray(keep * m * 4, (keep + count) * m * 4),
    );
    for (const [values, out] of [
      [p.translations, translations.data],
      [p.scales, scales?.data],
    ] as const) {
      if (values === null || out === undefined) continue;
      const { picked, data } = values;
      const v = filterVectors({ data, frames: n, joints: picked.length }, kernel, {
        boundary: p.boundary,
      }).data;
      const k = picked.length * 3;
      storeWrapped(out, frames, joints, 3, picked, p.keepFrom, v.subarray(keep * k, (keep + count) * k));
    }
  }
  return { ...clip, rotations, translations, ...(scales !== undefined ? { scales } : {}) };
}

/** `jointsStore` of frames from `start` on, those past the clip's last frame continuing at frame 0. */
function storeWrapped(
  dst: Float64Array | Float32Array,
  frames: number,
  joints: number,
  width: 3 | 4,
  picked: readonly number[],
  start: number,
  src: Float64Array | Float32Array,
): void {
  const row = picked.length * width;
  const head = Math.max(0, Math.min(src.length / row, frames - start));
  jointsStore(dst, joints, width, picked, start, src.subarray(0, head * row));
  if (head * row < src.length) jointsStore(dst, joints, width, picked, 0, src.subarray(head * row));
}

/**
 * Frames `[start, end)` of a segment between jumps of the joints that share their jumps, with its input
 * values (frame-major, those joints only), and translations and scales of the joints among them whose
 * values change; the filtered frames `[keepFrom, keepTo)` replace those of the pass over the whole clip.
 */
interface Piece {
  joints: number[];
  /** Frames from `start` to `end`; past the clip's last frame they continue at frame 0 (a wrapped piece). */
  start: number;
  end: number;
  keepFrom: number;
  keepTo: number;
  /** The boundary at the piece's ends: the clip's own, or `'linear'` at a jump of a wrapped clip. */
  boundary: Boundary;
  rotations: Float64Array;
  translations: { picked: number[]; data: Float64Array } | null;
  scales: { picked: number[]; data: Float64Array } | null;
}

/**
 * The pieces of every joint with jumps (see `FilterClipOptions.segments`) to filter on their own, with
 * copies of their input. A segment's frames whose kernel stays inside it (`reach`, the kernel's radius and
 * a frame to spare, from either end) keep the values of the pass over the whole clip, so a long segment
 * gives two pieces: its first `reach` frames with the `2·reach` that their kernels read, and its last ones
 * likewise (the piece's other end is never reached, so its boundary rule does not matter). For short
 * segments the piece is the whole segment. Under `'wrap'` the clip's ends are joined and only the jumps
 * bound the segments: each runs whole from one jump to the next (the last through frame 0 to the first
 * jump), with `'linear'` at its ends, so the kernel reads across the seam and never across a jump. Joints with the same jumps share their pieces (each joint is filtered on its own, so filtering
 * them as one series gives the same numbers as one by one, with one kernel placement per frame instead of
 * one per joint and frame).
 */
function cutPieces(clip: Clip, all: boolean, kernel: Kernel, boundary: Boundary): Piece[] {
  const { frames, joints } = clip.rotations;
  const pieces: Piece[] = [];
  const reach = Math.ceil(kernel.radius) + 1;
  for (const group of cutGroups(jumpCuts(clip))) {
    const moving = all ? movingAmong(clip.translations.data, frames, joints, group.joints) : [];
    const scaled =
      all && clip.scales !== undefined ? movingAmong(clip.scales.data, frames, joints, group.joints) : [];
    const parts: [number, number, number, number][] = [];
    // under 'wrap' the clip's ends are no boundary but the jumps are: the segments run from jump to jump,
    // the last one on through frame 0 to the first jump, each whole with its ends (jumps) fit by a line
    const wrap = boundary === 'wrap';
    const bounds = wrap ? [...group.cuts, group.cuts[0] + frames] : [0, ...group.cuts, frames];
    for (let k = 0; k + 1 < bounds.length; k++) {
      const s = bounds[k];
      const e = bounds[k + 1];
      if (wrap || e - s <= 4 * reach) parts.push([s, e, s, e]);
      else parts.push([s, s + 2 * reach, s, s + reach], [e - 2 * reach, e, e - reach, e]);
    }
    const slice = (data: Float64Array | Float32Array, w: 3 | 4, picked: number[], s: number, e: number) => {
      if (e <= frames) return jointsSlice(data, joints, w, picked, s, e);
      const head = jointsSlice(data, joints, w, picked, s, frames);
      const out = new Float64Array((e - s) * picked.length * w);
      out.set(head);
      out.set(jointsSlice(data, joints, w, picked, 0, e - frames), head.length);
      return out;
    };
    for (const [start, end, keepFrom, keepTo] of parts) {
      pieces.push({
        joints: group.joints,
        start,
        end,
        keepFrom,
        keepTo,
        boundary: wrap ? 'linear' : boundary,
        rotations: slice(clip.rotations.data, 4, group.joints, start, end),
        translations:
          moving.length > 0
            ? { picked: moving, data: slice(clip.translations.data, 3, moving, start, end) }
            : null,
        scales:
          scaled.length > 0 && clip.scales
            ? { picked: scaled, data: slice(clip.scales.data, 3, scaled, start, end) }
            : null,
      });
    }
  }
  return pieces;
}

/**
 * Rotations (`width` 4) or translations (`width` 3) filtered for the joints whose values change over the
 * clip; the others (in BVH files most joints' translations, which are their constant OFFSETs) are copied
 * bit for bit, so a constant curve stays exactly constant and costs no filtering. The moving joints are
 * filtered as a series of their own ({@link filterSeries}); each joint is filtered on its own, so this gives
 * the same numbers as filtering all of them. With `reuse`, a Float64 `src` receives the result.
 */
function filterMovingJoints(
  src: Float64Array | Float32Array,
  frames: number,
  joints: number,
  width: 3 | 4,
  reuse: boolean,
  kernel: Kernel,
  space: RotationSpace,
  boundary: Boundary,
): { data: Float64Array; frames: number; joints: number } {
  const moving: number[] = [];
  // a constant joint is copied unfiltered, but a zero or non-finite one must still meet the filter's checks
  let invalid = false;
  const constant = constantJoints(src, frames, joints, width);
  for (let j = 0; j < joints; j++) {
    const b = j * width;
    if (!constant[j]) moving.push(j);
    else if (!usableConstant(src, b, width)) invalid = true;
  }
  // few still joints (at most a sixth): filtering them too and putting their values back costs less than
  // gathering the moving ones into a series of their own and scattering the result (a copy each way; the
  // filter costs about four such copies per joint)
  const fewStill = (joints - moving.length) * 6 <= joints;
  if (moving.length === joints || frames < 2 || invalid || fewStill) {
    // every joint (or nothing to tell apart, or a constant the filter must reject, or few still joints):
    // the filter's own checks and errors, on the series as given
    const into = reuse && src instanceof Float64Array ? scratch(0, src.length) : undefined;
    const all = filterSeries(src, frames, joints, width, kernel, space, boundary, into);
    if (into !== undefined && src instanceof Float64Array) {
      // the reused input takes the result, with the few still joints' own values (put into the result
      // first, so the copy back is one block copy rather than a run-by-run copy of the moving joints)
      if (moving.length < joints)
        moveJoints(into, src, frames, joints, width, staticJoints(moving, joints), 'same');
      src.set(into);
      return { data: src, frames, joints };
    }
    const out = all instanceof Float64Array ? all : Float64Array.from(all);
    // the constant joints (all of them for a single frame) keep their values bit for bit
    if (moving.length < joints)
      moveJoints(out, src, frames, joints, width, staticJoints(moving, joints), 'same');
    return { data: out, frames, joints };
  }
  // with `reuse`, a Float64 input takes the result itself (its static joints are already right)
  const data = reuse && src instanceof Float64Array ? src : Float64Array.from(src);
  if (moving.length === 0) return { data, frames, joints };
  const m = moving.length;
  const part = scratch(0, frames * m * width) ?? new Float64Array(frames * m * width);
  moveJoints(part, src, frames, joints, width, moving, 'gather');
  let filtered: Float64Array | Float32Array;
  try {
    filtered = filterSeries(part, frames, m, width, kernel, space, boundary, scratch(1, part.length));
  } catch (error) {
    // the error names a joint of `part`; filtering the whole series names it in the caller's numbering
    filterSeries(src, frames, joints, width, kernel, space, boundary);
    throw error;
  }
  moveJoints(data, filtered, frames, joints, width, moving, 'scatter');
  return { data, frames, joints };
}

/** Whether the constant value at `src[o..o+width)` is finite and, for a quaternion, not zero. */
function usableConstant(src: Float64Array | Float32Array, o: number, width: number): boolean {
  let n2 = 0;
  for (let c = 0; c < width; c++) n2 += src[o + c] * src[o + c];
  return Number.isFinite(n2) && (width === 3 || n2 > 0);
}

/**
 * Rotations (width 4) or translations (width 3) of `count` joints filtered along time, into `out` when it
 * is given. A width flag rather than a callback, so that optimised code does not depend on a closure
 * created per call.
 */
function filterSeries(
  data: Float64Array | Float32Array,
  frames: number,
  count: number,
  width: 3 | 4,
  kernel: Kernel,
  space: RotationSpace,
  boundary: Boundary,
  out?: Float64Array,
): Float64Array | Float32Array {
  const into = out === undefined ? undefined : { data: out, frames, joints: count };
  return width === 4
    ? filterRotations(
        { data, frames, joints: count },
        kernel,
        into ? { space, boundary, out: into } : { space, boundary },
      ).data
    : filterVectors({ data, frames, joints: count }, kernel, into ? { boundary, out: into } : { boundary })
        .data;
}

/** The most values a scratch array of {@link scratch} keeps between calls (8 MB). */
const SCRATCH_MAX_VALUES = 1 << 20;
const scratchArrays: (Float64Array | undefined)[] = [undefined, undefined];

/**
 * Scratch array `slot` (0 or 1) of `length` values, kept from one call to the next, or undefined when
 * `length` is over {@link SCRATCH_MAX_VALUES}: the intermediate series of a reusing filter (the gathered
 * moving joints, and what the filter writes before the result is copied back) then cost no allocation,
 * zeroing and collection per clip, which a batch of files otherwise pays every time. Values are whatever
 * the last user left.
 */
function scratch(slot: 0 | 1, length: number): Float64Array | undefined {
  if (length > SCRATCH_MAX_VALUES) return undefined;
  let a = scratchArrays[slot];
  if (a === undefined || a.length < length) {
    a = new Float64Array(Math.max(length, 1 << 12));
    scratchArrays[slot] = a;
  }
  return a.subarray(0, length);
}

/** The joints not listed in `moving` (which is ascending). */
function staticJoints(moving: readonly number[], joints: number): number[] {
  const out: number[] = [];
  for (let j = 0, k = 0; j < joints; j++) {
    if (moving[k] === j) k++;
    else out.push(j);
  }
  return out;
}

/**
 * Copies the frame-major values of the joints `picked` (ascending, of a clip of `joints`): `'gather'` from
 * the clip into a series of just those joints, `'scatter'` back from such a series into the clip, `'same'`
 * between two clips of the same layout. Consecutive picked joints are copied as one run per frame.
 */
function moveJoints(
  dst: Float64Array | Float32Array,
  src: Float64Array | Float32Array,
  frames: number,
  joints: number,
  width: number,
  picked: readonly number[],
  mode: 'gather' | 'scatter' | 'same',
): void {
  const m = picked.length;
  // runs of consecutive joints: offsets in the source row, in the destination row, and value counts
  const runs = new Int32Array(3 * m);
  let nRuns = 0;
  for (let k = 0; k < m; ) {
    let e = k + 1;
    while (e < m && picked[e] === picked[e - 1] + 1) e++;
    const inClip = picked[k] * width;
    const inPart = mode === 'same' ? inClip : k * width;
    runs[3 * nRuns] = mode === 'scatter' ? inPart : inClip;
    runs[3 * nRuns + 1] = mode === 'gather' ? inPart : inClip;
    runs[3 * nRuns++ + 2] = (e - k) * width;
    k = e;
  }
  const clipStride = joints * width;
  const partStride = mode === 'same' ? clipStride : m * width;
  const srcStride = mode === 'scatter' ? partStride : clipStride;
  const dstStride = mode === 'gather' ? partStride : clipStride;
  for (let f = 0; f < frames; f++) {
    const s0 = f * srcStride;
    const d0 = f * dstStride;
    for (let r = 0; r < nRuns; r++) {
      const s = s0 + runs[3 * r];
      const d = d0 + runs[3 * r + 1];
      const n = runs[3 * r + 2];
      for (let i = 0; i < n; i++) dst[d + i] = src[s + i];
    }
  }
}
