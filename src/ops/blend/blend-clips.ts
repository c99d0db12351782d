import { OptionError, ShapeError } from '../../errors.js';
import type { Eigen4Options } from '../../numeric/eigen4.js';
import {
  anyOf,
  frozenDefaults,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { assertFiniteSeries, createQuatSeries, createVec3Series } from '../../series/create.js';
import type { QuatSeries } from '../../series/types.js';
import { checkWeights, POSE_OPTION } from '../average/average-checks.js';
import { checkClip } from '../skeleton/clip-check.js';
import { BLEND_METHODS, type BlendMethod, blendPoses } from './blend-poses.js';

/** Options of {@link blendClips}. */
export interface BlendClipsOptions {
  /** Per-joint rotation blend, as in `blendPoses`. Default `'eigen'`. */
  method?: BlendMethod;
  /**
   * Reference pose of `'raw'` and `'log'`: `'identity'` (default), `'first-frame'` (the first clip's first
   * frame), or an explicit J x 4 pose / one-frame QuatSeries (e.g. the rest pose).
   */
  reference?: 'identity' | 'first-frame' | ArrayLike<number> | QuatSeries;
  /**
   * When the clips have different frame counts: `'shortest'` (default) blends the common frames only;
   * `'strict'` throws a ShapeError.
   */
  length?: 'shortest' | 'strict';
  /** Tuning of the eigen solve. */
  eigen?: Eigen4Options;
}

/** Defaults of {@link BlendClipsOptions}. */
export const BLEND_CLIPS_DEFAULTS = frozenDefaults({
  method: 'eigen' as BlendMethod,
  reference: 'identity' as const,
  length: 'shortest' as const,
  eigen: {} as Eigen4Options,
} satisfies Required<BlendClipsOptions>);

const BLEND_CLIPS_SPEC: OptionSpec = {
  method: oneOf(BLEND_METHODS),
  reference: anyOf(oneOf(['identity', 'first-frame']), POSE_OPTION),
  length: oneOf(['shortest', 'strict']),
  eigen: OBJECT_OPTION,
};

/**
 * Frame-aligned blend of whole clips on the same skeleton: frame f of the result blends frame f of every
 * clip, rotations joint by joint with `blendPoses` (`method`, `reference`), translations linearly with the
 * same weights (divided by their sum). The result takes skeleton, frame time, Euler orders and position
 * mode from the first clip.
 *
 * The clips must have the same joint count and parents and the same frame time (resample first
 * otherwise); frame counts may differ under `length: 'shortest'`. Weights: one per clip, finite, non-zero
 * sum; negative weights extrapolate.
 *
 * Source: Daniel Holden, "Quaternion Weighted Average" (2023) for the per-joint blends.
 *
 * @throws {ShapeError} for no clips, mismatching skeletons or frame times, or (strict) frame counts.
 * @throws {InvalidValueError} for bad weights or rotations (as `blendPoses`).
 * @throws {OptionError} for an unknown option value.
 * @example
 * // walk and wave: clips of the same skeleton and frame time (e.g. from parseBvh in rotsig/io)
 * const walkWave = blendClips([walk, wave], [0.7, 0.3], { method: 'log', reference: 'first-frame' });
 */
export function blendClips(
  clips: readonly Clip[],
  weights: ArrayLike<number>,
  options?: BlendClipsOptions,
): Clip {
  const where = 'blendClips';
  if (!Array.isArray(clips) || clips.length === 0) throw new ShapeError(`${where}: need at least one clip`);
  const K = clips.length;
  options = resolveOptions(where, options, BLEND_CLIPS_DEFAULTS, BLEND_CLIPS_SPEC);
  for (let k = 0; k < K; k++) checkClip(clips[k], `${where}: clips[${k}]`);
  const wsum = checkWeights(weights, K, where);
  const first = clips[0];
  const J = first.rotations.joints;
  const lengthPolicy = options?.length ?? BLEND_CLIPS_DEFAULTS.length;
  if (lengthPolicy !== 'shortest' && lengthPolicy !== 'strict') {
    throw new OptionError(`${where}: length must be 'shortest' or 'strict', got '${String(lengthPolicy)}'`);
  }
  let frames = first.frames;
  for (let k = 0; k < K; k++) {
    const c = clips[k];
    if (c.rotations.joints !== J || c.translations.joints !== J || c.skeleton.parents.length !== J) {
      throw new ShapeError(`${where}: clip ${k} has ${c.rotations.joints} joints, clip 0 has ${J}`);
    }
    for (let j = 0; j < J; j++) {
      if (c.skeleton.parents[j] !== first.skeleton.parents[j]) {
        throw new ShapeError(`${where}: clip ${k} has a different hierarchy (parent of joint ${j})`);
      }
    }
    if (Math.abs(c.frameTime - first.frameTime) > 1e-9 * first.frameTime) {
      throw new ShapeError(
        `${where}: clip ${k} has frame time ${c.frameTime} s, clip 0 has ${first.frameTime} s; resample first`,
      );
    }
    if (c.frames !== first.frames && lengthPolicy === 'strict') {
      throw new ShapeError(
        `${where}: clip ${k} has ${c.frames} frames, clip 0 has ${first.frames} (length 'strict')`,
      );
    }
    if (
      c.rotations.frames !== c.frames ||
      c.translations.frames !== c.frames ||
      (c.scales !== undefined && (c.scales.frames !== c.frames || c.scales.joints !== J))
    ) {
      throw new ShapeError(`${where}: clip ${k} series do not have its ${c.frames} frames`);
    }
    frames = Math.min(frames, c.frames);
  }
  for (let k = 0; k < K; k++)
    assertFiniteSeries(clips[k].translations.data, J, 3, `${where}: clip ${k} translations`);

  const refOption = options?.reference ?? BLEND_CLIPS_DEFAULTS.reference;
  let reference: ArrayLike<number> | QuatSeries | null;
  if (refOption === 'identity') reference = null;
  else if (refOption === 'first-frame') reference = first.rotations.data.subarray(0, J * 4);
  else if (typeof refOption === 'string') {
    throw new OptionError(`${where}: unknown reference '${refOption}'`);
  } else reference = refOption;

  const rotations = createQuatSeries(frames, J);
  const translations = createVec3Series(frames, J);
  // scales blend linearly like translations; a clip without animated scales contributes its rest scales
  const anyScales = clips.some((c) => c.scales !== undefined);
  const scales = anyScales ? createVec3Series(frames, J) : undefined;
  const stack = createQuatSeries(K, J);
  const pose = new Float64Array(J * 4);
  const blendOptions = {
    method: options?.method ?? BLEND_CLIPS_DEFAULTS.method,
    reference,
    eigen: options?.eigen,
  };
  for (let f = 0; f < frames; f++) {
    for (let k = 0; k < K; k++) {
      stack.data.set(clips[k].rotations.data.subarray(f * J * 4, (f + 1) * J * 4), k * J * 4);
    }
    blendPoses(pose, stack, weights, blendOptions);
    rotations.data.set(pose, f * J * 4);
    const t = translations.data;
    for (let k = 0; k < K; k++) {
      const c = weights[k] / wsum;
      const src = clips[k].translations.data;
      for (let i = f * J * 3, e = (f + 1) * J * 3; i < e; i++) t[i] += c * src[i];
      if (scales !== undefined) {
        const sc = clips[k].scales;
        const s = scales.data;
        if (sc !== undefined) for (let i = f * J * 3, e = (f + 1) * J * 3; i < e; i++) s[i] += c * sc.data[i];
        else {
          const rest = clips[k].skeleton.restScales;
          for (let i = 0; i < J * 3; i++) s[f * J * 3 + i] += c * rest[i];
        }
      }
    }
  }
  return {
    ...(first.name !== undefined ? { name: first.name } : {}),
    skeleton: first.skeleton,
    frameTime: first.frameTime,
    rate: first.rate,
    frames,
    ...(first.startTime !== undefined ? { startTime: first.startTime } : {}),
    rotations,
    translations,
    ...(scales !== undefined ? { scales } : {}),
    animated: first.animated.slice(),
    orders: first.orders.slice(),
    ...(first.source !== undefined ? { source: first.source } : {}),
  };
}
