/**
 * Additive clips: motion relative to a reference frame or pose, and applying it back onto a base.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  FINITE_NUMBER,
  frozenDefaults,
  integerIn,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  resolveOptions,
} from '../../options.js';
import { invertFlat, multiplyFlat, slerpFlat } from '../../quat/core.js';
import type { Clip } from '../../series/clip.js';
import { assertClip } from '../../series/clip-create.js';
import { assertFiniteSeries } from '../../series/create.js';

/** A reference pose: every joint's local rotation (`joints x 4`), translation and optionally scale (`joints x 3`). */
export interface AdditivePose {
  rotations: ArrayLike<number>;
  translations: ArrayLike<number>;
  /** Default: the skeleton's rest scales. */
  scales?: ArrayLike<number>;
}

/** How scales become additive: `'difference'` (`s − ref`, three.js's additive blending) or `'ratio'` (`s / ref`). */
export type AdditiveScale = 'difference' | 'ratio';

/** Options of {@link makeClipAdditive}. */
export interface MakeClipAdditiveOptions {
  /** What the motion is made relative to: a frame index, `'first-frame'`, or a pose. Default `'first-frame'`. */
  reference?: number | 'first-frame' | AdditivePose;
  /** How scales become additive. Default `'difference'` (what three.js does for every non-quaternion track). */
  scale?: AdditiveScale;
}

/** Defaults of {@link MakeClipAdditiveOptions} (frozen). */
export const MAKE_CLIP_ADDITIVE_DEFAULTS: Readonly<Required<MakeClipAdditiveOptions>> = frozenDefaults({
  reference: 'first-frame',
  scale: 'difference',
});

const SCALE_RULE = oneOf(['difference', 'ratio']);

const MAKE_CLIP_ADDITIVE_SPEC: OptionSpec = {
  reference: anyOf(oneOf(['first-frame']), integerIn(0), OBJECT_OPTION),
  scale: SCALE_RULE,
};

/** Options of {@link applyAdditive}. */
export interface ApplyAdditiveOptions {
  /** How much of the additive motion to add: 0 gives the base, 1 all of it. Default 1. */
  weight?: number;
  /** How the additive clip's scales were made (see {@link MakeClipAdditiveOptions.scale}). Default `'difference'`. */
  scale?: AdditiveScale;
}

/** Defaults of {@link ApplyAdditiveOptions} (frozen). */
export const APPLY_ADDITIVE_DEFAULTS: Readonly<Required<ApplyAdditiveOptions>> = frozenDefaults({
  weight: 1,
  scale: 'difference',
});

const APPLY_ADDITIVE_SPEC: OptionSpec = { weight: FINITE_NUMBER, scale: SCALE_RULE };

function poseArray(v: ArrayLike<number> | undefined, n: number, what: string, where: string): Float64Array {
  if (v === null || typeof v !== 'object' || v.length !== n) {
    throw new ShapeError(`${where}: reference.${what} must hold ${n} numbers`);
  }
  const out = Float64Array.from(v);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(out[i])) {
      throw new InvalidValueError(`${where}: reference.${what}[${i}] is ${out[i]}, not finite`, { index: i });
    }
  }
  return out;
}

/**
 * Makes a clip additive, as three.js's `AnimationUtils.makeClipAdditive` does: every joint's motion
 * becomes relative to a reference frame or pose, so it can be layered on any base (a breathing or
 * aiming layer, a recoil).
 *
 * - rotation: `inverse(ref) ⊗ q` (the local rotation that takes the reference to the frame; applied
 *   as `base ⊗ add`);
 * - translation: `t − ref`;
 * - scale: `s − ref` (`'difference'`, default: three.js blends scales additively like any vector) or
 *   `s / ref` (`'ratio'`); only when the clip has scales (without them, scales are not part of the
 *   additive motion).
 *
 * `reference`: a frame index of the clip, `'first-frame'` (frame 0; default), or a pose
 * ({@link AdditivePose}, local values per joint; e.g. the rest pose). Everything else (rate, start time,
 * flags, `source`) is carried through. The additive clip's reference frame is the identity (zero
 * translation, zero or unit scale). Quaternion signs are not changed beyond what the product gives.
 *
 * Source: three.js `AnimationUtils.makeClipAdditive` (r187) and its mixer's additive blend.
 *
 * @param options - Defaults in {@link MAKE_CLIP_ADDITIVE_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on an unknown option, a frame index outside the clip, or a bad scale mode.
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed clip or pose, a zero reference
 *   rotation, or (for `'ratio'`) a zero reference scale.
 * @example
 * const layer = makeClipAdditive(breathing, { reference: 'first-frame' });
 * const result = applyAdditive(walk, layer, { weight: 0.5 });
 */
export function makeClipAdditive(clip: Clip, options: MakeClipAdditiveOptions = {}): Clip {
  const where = 'makeClipAdditive';
  const o = resolveOptions(where, options, MAKE_CLIP_ADDITIVE_DEFAULTS, MAKE_CLIP_ADDITIVE_SPEC);
  assertClip(clip, `${where}: clip`);
  const J = clip.skeleton.names.length;
  const { frames } = clip;
  assertFiniteSeries(clip.rotations.data, J, 4, `${where}: clip.rotations`);
  assertFiniteSeries(clip.translations.data, J, 3, `${where}: clip.translations`);
  if (clip.scales) assertFiniteSeries(clip.scales.data, J, 3, `${where}: clip.scales`);

  let refRot: Float64Array;
  let refTrans: Float64Array;
  let refScale: Float64Array;
  const ref = o.reference;
  if (ref === 'first-frame' || typeof ref === 'number') {
    const f = ref === 'first-frame' ? 0 : ref;
    if (!Number.isInteger(f) || f < 0 || f >= frames) {
      throw new OptionError(
        `${where}: reference frame ${String(ref)} is not a frame of the clip (0 … ${frames - 1})`,
      );
    }
    refRot = Float64Array.from(clip.rotations.data.subarray(f * J * 4, (f + 1) * J * 4));
    refTrans = Float64Array.from(clip.translations.data.subarray(f * J * 3, (f + 1) * J * 3));
    refScale = clip.scales
      ? Float64Array.from(clip.scales.data.subarray(f * J * 3, (f + 1) * J * 3))
      : clip.skeleton.restScales;
  } else if (ref !== null && typeof ref === 'object') {
    refRot = poseArray(ref.rotations, J * 4, 'rotations', where);
    refTrans = poseArray(ref.translations, J * 3, 'translations', where);
    refScale =
      ref.scales === undefined ? clip.skeleton.restScales : poseArray(ref.scales, J * 3, 'scales', where);
  } else {
    throw new OptionError(
      `${where}: reference must be a frame index, 'first-frame' or a pose, got ${String(ref)}`,
    );
  }
  const inv = new Float64Array(J * 4);
  for (let j = 0; j < J; j++) {
    const o4 = j * 4;
    const n2 = refRot[o4] ** 2 + refRot[o4 + 1] ** 2 + refRot[o4 + 2] ** 2 + refRot[o4 + 3] ** 2;
    if (!(n2 > 0))
      throw new InvalidValueError(`${where}: the reference rotation of joint ${j} is zero`, { joint: j });
    invertFlat(inv, o4, refRot, o4);
  }
  const rot = new Float64Array(frames * J * 4);
  const src = clip.rotations.data;
  const trans = new Float64Array(frames * J * 3);
  const tsrc = clip.translations.data;
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const o4 = (f * J + j) * 4;
      multiplyFlat(rot, o4, inv, j * 4, src, o4);
      const o3 = (f * J + j) * 3;
      for (let c = 0; c < 3; c++) trans[o3 + c] = tsrc[o3 + c] - refTrans[j * 3 + c];
    }
  }
  let scales: Float64Array | undefined;
  if (clip.scales) {
    const ssrc = clip.scales.data;
    scales = new Float64Array(frames * J * 3);
    if (o.scale === 'ratio') {
      for (let i = 0; i < J * 3; i++) {
        if (refScale[i] === 0) {
          throw new InvalidValueError(
            `${where}: the reference scale of joint ${Math.floor(i / 3)} is 0; use scale: 'difference'`,
            {
              joint: Math.floor(i / 3),
            },
          );
        }
      }
    }
    for (let f = 0; f < frames; f++) {
      for (let i = 0; i < J * 3; i++) {
        const v = ssrc[f * J * 3 + i];
        scales[f * J * 3 + i] = o.scale === 'ratio' ? v / refScale[i] : v - refScale[i];
      }
    }
  }
  return {
    ...clip,
    rotations: { data: rot, frames, joints: J },
    translations: { data: trans, frames, joints: J },
    ...(scales ? { scales: { data: scales, frames, joints: J } } : {}),
  };
}

const IDENTITY = Float64Array.of(0, 0, 0, 1);

/**
 * Applies an additive clip ({@link makeClipAdditive}) onto a base clip, as three.js's mixer does for
 * additive actions: rotation `base ⊗ slerp(identity, add, weight)` (shortest arc; exactly `base ⊗ add`
 * at weight 1), translation `base + weight·add`, scale `base + weight·add` (`'difference'`) or
 * `base · add^weight` (`'ratio'`). `applyAdditive(reference, makeClipAdditive(clip, { reference }))`
 * gives the clip back (to rounding).
 *
 * Frames: equal counts pair frame by frame; a one-frame base (a pose) takes the additive clip's
 * frames and timing, a one-frame additive clip (a pose offset) applies to every base frame. The result
 * has the timing, skeleton, orders and `source` of the clip with more frames (the base when equal),
 * flags `base | additive`, and scales when either has them (the base's rest scales stand in for
 * missing base scales; missing additive scales mean no scale change).
 *
 * @param options - Defaults in {@link APPLY_ADDITIVE_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when joint counts differ or both clips have several frames but not the same count.
 * @throws {OptionError} on an unknown option, a non-finite weight or a bad scale mode.
 * @throws {InvalidValueError} on non-finite values, or a non-positive `'ratio'` scale under a weight
 *   other than 0 or 1.
 * @example
 * const layered = applyAdditive(walk, makeClipAdditive(wave), { weight: 0.7 });
 */
export function applyAdditive(base: Clip, additive: Clip, options: ApplyAdditiveOptions = {}): Clip {
  const where = 'applyAdditive';
  const o = resolveOptions(where, options, APPLY_ADDITIVE_DEFAULTS, APPLY_ADDITIVE_SPEC);
  assertClip(base, `${where}: base`);
  assertClip(additive, `${where}: additive`);
  const w = o.weight;
  const J = base.skeleton.names.length;
  if (additive.skeleton.names.length !== J) {
    throw new ShapeError(`${where}: base has ${J} joints, additive ${additive.skeleton.names.length}`);
  }
  const fb = base.frames;
  const fa = additive.frames;
  if (fb !== fa && fb !== 1 && fa !== 1) {
    throw new ShapeError(
      `${where}: base has ${fb} frames, additive ${fa}; they must match, or one must be a single frame`,
    );
  }
  const timing = fb === 1 && fa > 1 ? additive : base;
  const frames = Math.max(fb, fa);
  for (const [c, name] of [
    [base, 'base'],
    [additive, 'additive'],
  ] as const) {
    assertFiniteSeries(c.rotations.data, J, 4, `${where}: ${name}.rotations`);
    assertFiniteSeries(c.translations.data, J, 3, `${where}: ${name}.translations`);
    if (c.scales) assertFiniteSeries(c.scales.data, J, 3, `${where}: ${name}.scales`);
  }
  const rot = new Float64Array(frames * J * 4);
  const trans = new Float64Array(frames * J * 3);
  const scaled = base.scales !== undefined || additive.scales !== undefined;
  const scales = scaled ? new Float64Array(frames * J * 3) : undefined;
  const blend = new Float64Array(4);
  const br = base.rotations.data;
  const ar = additive.rotations.data;
  const bt = base.translations.data;
  const at = additive.translations.data;
  const rest = base.skeleton.restScales;
  for (let f = 0; f < frames; f++) {
    const bf = fb === 1 ? 0 : f;
    const af = fa === 1 ? 0 : f;
    for (let j = 0; j < J; j++) {
      const ob = (bf * J + j) * 4;
      const oa = (af * J + j) * 4;
      const out4 = (f * J + j) * 4;
      if (w === 1) multiplyFlat(rot, out4, br, ob, ar, oa);
      else {
        slerpFlat(blend, 0, IDENTITY, 0, ar, oa, w);
        multiplyFlat(rot, out4, br, ob, blend, 0);
      }
      const b3 = (bf * J + j) * 3;
      const a3 = (af * J + j) * 3;
      const out3 = (f * J + j) * 3;
      for (let c = 0; c < 3; c++) trans[out3 + c] = bt[b3 + c] + w * at[a3 + c];
      if (scales) {
        for (let c = 0; c < 3; c++) {
          const s = base.scales ? base.scales.data[b3 + c] : rest[j * 3 + c];
          let v = s;
          if (additive.scales) {
            const a = additive.scales.data[a3 + c];
            if (o.scale === 'difference') v = s + w * a;
            else if (w === 1) v = s * a;
            else if (w !== 0) {
              if (!(a > 0)) {
                throw new InvalidValueError(
                  `${where}: additive scale ${a} at frame ${af}, joint ${j} has no power ${w} ('ratio' needs positive scales)`,
                  { frame: af, joint: j },
                );
              }
              v = s * a ** w;
            }
          }
          scales[out3 + c] = v;
        }
      }
    }
  }
  const animated = new Uint8Array(J);
  for (let j = 0; j < J; j++) animated[j] = base.animated[j] | additive.animated[j];
  const { scales: _omit, ...rest0 } = timing;
  return {
    ...rest0,
    frames,
    rotations: { data: rot, frames, joints: J },
    translations: { data: trans, frames, joints: J },
    ...(scales ? { scales: { data: scales, frames, joints: J } } : {}),
    animated,
  };
}
