/**
 * Resampling of a whole animation clip: rotations and translations on one kernel and one time grid.
 *
 * @module
 */
import { OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { checkSeriesSize } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { frameTimeTextOf } from '../analysis/analyze-clip.js';
import { clipRate } from '../analysis/rate.js';
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
import { checkClip } from '../skeleton/clip-check.js';
import {
  planResample,
  RESAMPLE_DEFAULTS,
  RESAMPLE_SPEC,
  type ResampledGrid,
  type ResampleOptions,
} from './resample-plan.js';
import { blendRotationsAt, resampleRotations } from './resample-rotations.js';
import { blendVectorsAt, resampleVectors } from './resample-vectors.js';

/** Options of {@link resampleClip}: those of `resampleRotations` without `sourceRate`/`sourceTimes`/`times`. */
export interface ResampleClipOptions extends Omit<ResampleOptions, 'sourceRate' | 'sourceTimes' | 'times'> {
  /** Output rate in Hz (required). */
  targetRate: number;
  /**
   * Boundary rule for the translations. Default: `boundary`. A looping clip whose root advances (a walk
   * cycle with root motion) is periodic in its rotations but not in its root translation: use
   * `boundary: 'wrap'` with `translationBoundary: 'clamp'` there.
   */
  translationBoundary?: ResampleOptions['boundary'];
  /**
   * Where the source rate comes from. `'guess'` (default): when the clip's frame time was read from a BVH
   * file's text (`source.frameTimeText`, while `frameTime` is unchanged), the simple rational rate those rounded digits stand for (`0.008333` is 120 Hz,
   * not 120.0048 Hz; see `guessRate`), so a resample to the clip's own rate keeps every frame and a
   * 30 Hz file at `targetRate: 30` keeps its last one (the BVH reader already reads such a frame time as
   * its standard rate). `'frame-time'`: the frame time as written (`.0083333`: 120.0048 Hz), else `clip.rate`.
   */
  rateFrom?: 'guess' | 'frame-time';
  /**
   * `'none'` (default): every output frame is a kernel sum over the source around its time. `'jumps'`:
   * each joint is split at the real jumps `findDiscontinuities` reports for it (kind `'jump'`, never a sign
   * flip), and an output frame takes its value from the segment its source position falls in (the nearer
   * side of a jump), with that segment's ends as boundaries under `boundary`: no kernel mixes samples across
   * a jump. The joint's translation and scale follow the same segments. Not with `boundary: 'wrap'` on a
   * clip that has jumps (an {@link OptionError}: a loop's seam is no segment end, which this split does
   * not model; `filterClip` does).
   */
  segments?: SegmentPolicy;
}

/**
 * The source rate {@link resampleClip} uses for `clip` (see `ResampleClipOptions.rateFrom`): `clipRate`'s
 * answer (the standard rate a frame time read from text stands for, else `clip.rate`).
 *
 * @example
 * clipSourceRate(parseBvh(cmu0101Text)); // 120, where clip.rate is 120.0048
 * @throws {OptionError} when the clip has no valid rate.
 */
export function clipSourceRate(clip: Clip, rateFrom: 'guess' | 'frame-time' = 'guess'): number {
  if (clip === null || typeof clip !== 'object') throw new OptionError('clipSourceRate: clip must be a Clip');
  const rate = clip.rate > 0 && Number.isFinite(clip.rate) ? clip.rate : 1 / clip.frameTime;
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new OptionError(`resampleClip: the clip has no valid rate (${clip.rate})`);
  if (rateFrom !== 'guess' && rateFrom !== 'frame-time')
    throw new OptionError(
      `resampleClip: rateFrom must be 'guess' or 'frame-time', got '${String(rateFrom)}'`,
    );
  if (rateFrom === 'frame-time') {
    const text = frameTimeTextOf(clip);
    return text === undefined ? rate : 1 / Number(text);
  }
  return clipRate(clip).rate;
}

/** Defaults of {@link ResampleClipOptions} (frozen): `RESAMPLE_DEFAULTS` and the clip's own options. */
export const RESAMPLE_CLIP_DEFAULTS = frozenDefaults({
  ...RESAMPLE_DEFAULTS,
  rateFrom: 'guess' as 'guess' | 'frame-time',
  segments: 'none' as SegmentPolicy,
});

const RESAMPLE_CLIP_SPEC: OptionSpec = {
  targetRate: RESAMPLE_SPEC.targetRate,
  kernel: RESAMPLE_SPEC.kernel,
  downsampleKernel: RESAMPLE_SPEC.downsampleKernel,
  space: RESAMPLE_SPEC.space,
  boundary: RESAMPLE_SPEC.boundary,
  antialias: RESAMPLE_SPEC.antialias,
  duration: RESAMPLE_SPEC.duration,
  translationBoundary: RESAMPLE_SPEC.boundary,
  rateFrom: oneOf(['guess', 'frame-time']),
  segments: oneOf(SEGMENT_POLICIES),
};

/**
 * Resamples a clip to `targetRate`: rotations with `resampleRotations` and translations with
 * `resampleVectors`, same kernel, boundary and time grid (`sourceRate` from {@link clipSourceRate}: the rate
 * the file's rounded frame time stands for, so resampling to a clip's own rate returns every frame). Without
 * a `kernel`, up-sampling uses catmull-rom and down-sampling `downsampleKernel` (lanczos3, widened by the
 * rate ratio): an AMASS clip taken from 120 to 30 Hz loses a 25 Hz component by 46 dB, where stride
 * decimation would fold it to 5 Hz at full amplitude. The result is a
 * new clip on the same skeleton with `frames`, `rate` and `frameTime` updated (`frameTime = 1 / rate`;
 * a writer prints the source's frame-time text only while it still reads back to `frameTime`), scales
 * (when animated) resampled like translations, and orders, animated flags and `source` kept, so it writes
 * back in its source format. With `duration: 'keep-end'` (or `'loop'`) the rate may be adjusted to fit the
 * clip exactly; `rate` reports the value used. A joint that holds still (one quaternion, or one translation,
 * in every frame) keeps it in every output frame, the quaternion at unit length.
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025).
 *
 * @param options - Defaults in {@link RESAMPLE_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when the clip's series do not match its frame count. @throws {OptionError} on bad
 * options, a clip without a valid rate, or `segments: 'jumps'` with `boundary: 'wrap'` on a clip with jumps.
 * @example
 * const clip30 = resampleClip(parseBvh(text), { targetRate: 30 }); // lanczos3, anti-aliased
 * writeBvh(clip30);
 */
export function resampleClip(clip: Clip, options: ResampleClipOptions): Clip {
  if (clip === null || typeof clip !== 'object') throw new OptionError('resampleClip: clip must be a Clip');
  if (options === null || typeof options !== 'object')
    throw new OptionError('resampleClip: options with targetRate are required');
  checkClip(clip, 'resampleClip');
  // checked here; read below from `options` itself, where an absent kernel or duration has its own meaning
  resolveOptions('resampleClip', options, RESAMPLE_CLIP_DEFAULTS, RESAMPLE_CLIP_SPEC);
  const rate = clipSourceRate(clip, options.rateFrom);
  if (clip.rotations.frames !== clip.frames || clip.translations.frames !== clip.frames) {
    throw new ShapeError(
      `resampleClip: clip has ${clip.frames} frames but rotations ${clip.rotations.frames} and translations ${clip.translations.frames}`,
    );
  }
  const segments = options.segments ?? 'none';
  if (!SEGMENT_POLICIES.includes(segments)) {
    throw new OptionError(`resampleClip: segments must be 'jumps' or 'none', got ${String(segments)}`);
  }
  const { translationBoundary, rateFrom: _rateFrom, segments: _segments, ...rest } = options;
  const common = { ...rest, sourceRate: rate };
  // every joint over the whole clip first, so input the resamplers refuse is reported in their words (the
  // joints with jumps then have the frames near their cuts evaluated again, segment by segment)
  const rotations = resampleMovingRotations(clip.rotations, common);
  const duration = options.duration ?? (options.boundary === 'wrap' ? 'loop' : undefined);
  const translations = resampleVectors(clip.translations, {
    ...common,
    duration,
    boundary: translationBoundary ?? options.boundary,
  });
  if (translations.frames !== rotations.frames) {
    throw new ShapeError(
      `resampleClip: translation grid (${translations.frames}) differs from rotation grid (${rotations.frames})`,
    );
  }
  let scales: Clip['scales'];
  if (clip.scales !== undefined) {
    scales = resampleVectors(clip.scales, {
      ...common,
      duration,
      boundary: options.translationBoundary ?? options.boundary,
    });
  }
  if (segments === 'jumps' && clip.frames > 1) {
    const cuts = jumpCuts(clip, rate);
    const j = cuts.findIndex((c) => c.length > 0);
    // a segment ends at its jumps, a loop's seam is none: not split here, said rather than done wrong
    if (j >= 0 && (options.boundary === 'wrap' || options.translationBoundary === 'wrap'))
      throw new OptionError(
        `resampleClip: segments 'jumps' with boundary 'wrap' is not supported on a clip with jumps (${clip.skeleton.names[j]} at frame ${cuts[j][0]}); give segments 'none' to wrap across them, or another boundary`,
      );
    resampleSegments(
      clip,
      cuts,
      rate,
      rotations.rate,
      common,
      rotations.data,
      translations.data,
      scales?.data,
    );
  }
  // Every field written out in the order `makeClip` uses, rather than a spread and a `delete`: deleting a
  // property leaves a slow (dictionary) object, which makes every later read of the clip slower.
  return {
    ...(clip.name !== undefined ? { name: clip.name } : {}),
    skeleton: clip.skeleton,
    frameTime: 1 / rotations.rate,
    rate: rotations.rate,
    frames: rotations.frames,
    ...(clip.startTime !== undefined ? { startTime: clip.startTime } : {}),
    rotations: { data: rotations.data, frames: rotations.frames, joints: rotations.joints },
    translations: { data: translations.data, frames: translations.frames, joints: translations.joints },
    ...(scales !== undefined
      ? { scales: { data: scales.data, frames: scales.frames, joints: scales.joints } }
      : {}),
    animated: clip.animated,
    orders: clip.orders,
    ...(clip.source !== undefined ? { source: clip.source } : {}),
  };
}

/**
 * `resampleRotations(series, options)`, with the joints that hold still copied instead of blended when
 * they are more than a sixth of the joints (gathering the others into a series of their own and
 * scattering the result then costs less than blending the still ones). A still joint has the same finite,
 * non-zero quaternion, bit for bit, in every frame; it comes out as that quaternion brought to unit length
 * in every output frame, which is what the blend of a constant gives, to rounding (a constant translation
 * comes out of `resampleVectors` the same way). Each joint is resampled on its own, so the moving joints
 * get the same numbers either way.
 * A capture's finger joints often hold still: 41 of the 59 joints of the shared Axis Neuron file.
 */
function resampleMovingRotations(
  series: QuatSeries,
  options: ResampleOptions,
): QuatSeries<Float64Array> & ResampledGrid {
  const { frames, joints, data } = series;
  const still = frames > 1 ? stillQuaternions(data, frames, joints) : null;
  let count = 0;
  if (still !== null) for (let j = 0; j < joints; j++) count += still[j];
  if (still === null || count * 6 <= joints) return resampleRotations(series, options);
  // the output's size is refused (or not) for the whole series, as the plain call would
  planResample(frames, options, 'resampleRotations', joints * 4);
  const moving: number[] = [];
  for (let j = 0; j < joints; j++) if (still[j] === 0) moving.push(j);
  const r = resampleRotations(
    { data: jointsSlice(data, joints, 4, moving, 0, frames), frames, joints: moving.length },
    options,
  );
  checkSeriesSize(r.frames, joints, 4, 'resampleRotations');
  const out = new Float64Array(r.frames * joints * 4);
  jointsStore(out, joints, 4, moving, 0, r.data);
  for (let j = 0; j < joints; j++) {
    if (still[j] === 0) continue;
    // unit length, as the blend makes every output
    const b = j * 4;
    const s =
      1 /
      Math.sqrt(
        data[b] * data[b] + data[b + 1] * data[b + 1] + data[b + 2] * data[b + 2] + data[b + 3] * data[b + 3],
      );
    const x = data[b] * s;
    const y = data[b + 1] * s;
    const z = data[b + 2] * s;
    const w = data[b + 3] * s;
    for (let o = j * 4; o < out.length; o += joints * 4) {
      out[o] = x;
      out[o + 1] = y;
      out[o + 2] = z;
      out[o + 3] = w;
    }
  }
  return { data: out, frames: r.frames, joints, rate: r.rate, times: r.times };
}

/**
 * For each joint, 1 when its quaternion is the same in every frame (bit for bit, {@link constantJoints})
 * and finite and not zero (one that is not is left to the resampler, which reports it).
 */
function stillQuaternions(data: FloatArray, frames: number, joints: number): Uint8Array {
  const still = constantJoints(data, frames, joints, 4);
  for (let j = 0; j < joints; j++) {
    const b = j * 4;
    const n2 =
      data[b] * data[b] + data[b + 1] * data[b + 1] + data[b + 2] * data[b + 2] + data[b + 3] * data[b + 3];
    if (!(n2 > 0 && n2 < Number.POSITIVE_INFINITY)) still[j] = 0;
  }
  return still;
}

/**
 * Re-evaluates, segment by segment, the output frames of every joint with jumps whose kernel reaches past
 * an end of their segment (see `ResampleClipOptions.segments`): output frame `i` at source position
 * `p = i·sourceRate/outRate` belongs to the segment `[s, e)` with `s − ½ ≤ p < e − ½`, and is resampled
 * from that segment alone at time `i·sourceRate/outRate − s` frames. A frame whose kernel stays inside its
 * segment reads the same taps with the same weights in the pass over the whole clip, so it keeps that
 * value (equal to rounding: the eight shared captures differ by at most 3.3e-16 from evaluating every
 * frame per segment). That pass runs pairs of joints on the SIMD kernel, where a segment of one joint
 * runs alone on the scalar code: 120 to 30 Hz after smoothing, the resample step of the shared captures
 * takes about 17 % less time than with every frame of a jumping joint evaluated per segment.
 */
function resampleSegments(
  clip: Clip,
  cuts: readonly (readonly number[])[],
  sourceRate: number,
  outRate: number,
  common: Omit<ResampleClipOptions, 'targetRate' | 'rateFrom' | 'segments'> & { sourceRate: number },
  rotations: Float64Array | Float32Array,
  translations: Float64Array | Float32Array,
  scales: Float64Array | Float32Array | undefined,
): void {
  const { frames, joints } = clip.rotations;
  const outFrames = rotations.length / (joints * 4);
  const {
    targetRate: _t,
    duration: _d,
    translationBoundary,
    ...shared
  } = common as typeof common & {
    targetRate?: number;
    duration?: unknown;
  };
  const perFrame = { ...shared, sourceRate: 1 };
  const vectorOptions = { ...perFrame, boundary: translationBoundary ?? shared.boundary };
  // joints with the same jumps are resampled together, as one series (each joint on its own, so the
  // numbers are those of one joint at a time, with one kernel placement per output frame for all of them)
  for (const group of cutGroups(cuts)) {
    const picked = group.joints;
    const moving = movingAmong(clip.translations.data, frames, joints, picked);
    const scaled = clip.scales !== undefined ? movingAmong(clip.scales.data, frames, joints, picked) : [];
    const bounds = [0, ...group.cuts, frames];
    let i = 0;
    for (let k = 0; k + 1 < bounds.length; k++) {
      const start = bounds[k];
      const end = bounds[k + 1];
      const last = k + 2 === bounds.length;
      const first = i;
      while (i < outFrames && (last || (i * sourceRate) / outRate < end - 0.5)) i++;
      if (i === first) continue;
      // in frames (a source rate of 1): positions are exact and the anti-aliasing factor is the rate ratio
      const times = new Float64Array(i - first);
      for (let m = first; m < i; m++) times[m - first] = (m * sourceRate) / outRate - start;
      reevaluateNearEnds(
        rotations,
        clip.rotations.data,
        joints,
        4,
        picked,
        start,
        end,
        first,
        times,
        perFrame,
      );
      for (const [channels, values, out] of [
        [moving, clip.translations.data, translations],
        [scaled, clip.scales?.data, scales],
      ] as const) {
        if (channels.length === 0 || values === undefined || out === undefined) continue;
        reevaluateNearEnds(out, values, joints, 3, channels, start, end, first, times, vectorOptions);
      }
    }
  }
}

/**
 * Evaluates again, from frames `[start, end)` of the joints `picked` alone (rotations for `width` 4,
 * vectors for 3), the output frames `first + i` at `times[i]` (frames from `start`) whose kernel reaches
 * past an end of that segment ({@link insideFrames}), into `out`; the others are left as they are.
 */
function reevaluateNearEnds(
  out: FloatArray,
  values: FloatArray,
  joints: number,
  width: 3 | 4,
  picked: readonly number[],
  start: number,
  end: number,
  first: number,
  times: Float64Array,
  options: ResampleOptions,
): void {
  const n = end - start;
  const where = width === 4 ? 'resampleRotations' : 'resampleVectors';
  const plan = planResample(n, { ...options, times }, where, picked.length * width);
  const [a, b] = insideFrames(times, plan.kernel.radius, n);
  const ranges = a < b ? [0, a, b, times.length] : [0, times.length];
  const series = {
    data: jointsSlice(values, joints, width, picked, start, end),
    frames: n,
    joints: picked.length,
  };
  for (let r = 0; r < ranges.length; r += 2) {
    if (ranges[r] === ranges[r + 1]) continue;
    const positions = plan.grid.positions.subarray(ranges[r], ranges[r + 1]);
    const part = new Float64Array(positions.length * picked.length * width);
    if (width === 4) blendRotationsAt(part, series, plan, positions);
    else blendVectorsAt(part, series, plan, positions, 'resampleVectors: series');
    jointsStore(out, joints, width, picked, first + ranges[r], part);
  }
}

/**
 * The output frames `[a, b)` of a segment of `n` frames whose kernel (of `radius` frames) at `times`
 * (increasing, in frames from the segment's start) reads only frames inside the segment, with a frame to
 * spare for rounding: the positions at least `radius + 1` from either end.
 */
function insideFrames(times: Float64Array, radius: number, n: number): [number, number] {
  let a = 0;
  while (a < times.length && times[a] < radius + 1) a++;
  let b = a;
  while (b < times.length && times[b] <= n - 2 - radius) b++;
  return [a, b];
}
