/**
 * AMASS / SMPL-family motion files (`.npz` with `poses`, `trans`, `betas`, `gender` and a frame rate) to
 * clips and back.
 *
 * @module
 */
import { OptionError, ShapeError } from '../../errors.js';
import { resampleVectors } from '../../ops/resample/resample-vectors.js';
import {
  anyOf,
  BOOLEAN_OPTION,
  customRule,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  orNull,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { fromRotationVectorFlat, toRotationVectorFlat } from '../../quat/exp-log.js';
import { ANIMATED_ROTATION, ANIMATED_TRANSLATION, type Clip, type ClipSource } from '../../series/clip.js';
import { makeClip, makeSkeleton } from '../../series/clip-create.js';
import type { NdArray, NpyArray } from '../npy.js';
import type { NpzArrays } from '../npz.js';
import { SMPL_BODY_POSE_KEYS, SMPL_GLOBAL_ORIENT_KEYS, SMPL_POSE_KEYS } from '../smpl-params.js';
import { SMPL_JOINT_COUNTS, type SmplModel, smplTree } from './skeletons.js';

/** The frame-rate keys of AMASS releases: SMPL+H files use the first, SMPL-X files the second. */
export const AMASS_RATE_KEYS = ['mocap_framerate', 'mocap_frame_rate'] as const;

/** Options of {@link amassToClip}. */
export interface AmassToClipOptions {
  /** Body model; `'auto'` (default) picks it from the `poses` width: 72 SMPL, 156 SMPL+H, 165 SMPL-X. */
  model?: SmplModel | 'auto';
  /**
   * Rest joint positions of the body model, `joints x 3` (the `J` of the user's own model file for their
   * betas, as an `.npz` member or a JSON array, flat or nested). With it, every joint's rest translation is
   * its offset from its parent and forward kinematics gives joint positions; without it (default `null`)
   * the rest translations are zero and only rotations and the root translation are meaningful.
   */
  template?: NdArray | ArrayLike<number> | readonly (readonly number[])[] | null;
  /** Frame rate to use instead of the file's (a disagreement with the file's is a warning). Default: the file's. */
  rate?: number | 'file';
  /** Rate used when the file has none (a warning says so). Default 120, the most common AMASS rate. */
  fallbackRate?: number;
  /**
   * Repair NaN/Inf values in `poses` and `trans` by linear interpolation along their column (holding the
   * nearest finite value at the ends), with a `'repaired'` warning, instead of throwing. Default `false`.
   */
  repair?: boolean;
}

/** Defaults of {@link AmassToClipOptions} (frozen). */
export const AMASS_TO_CLIP_DEFAULTS: Readonly<Required<AmassToClipOptions>> = frozenDefaults({
  model: 'auto',
  template: null,
  rate: 'file',
  fallbackRate: 120,
  repair: false,
});

/** A template of rest joint positions: an `NdArray` or a flat or nested array, or `null`. */
const TEMPLATE_RULE = orNull(
  customRule('an NdArray or an array of joint positions', (v) => v !== null && typeof v === 'object'),
);

const AMASS_TO_CLIP_SPEC: OptionSpec = {
  model: oneOf(['auto', ...Object.keys(SMPL_JOINT_COUNTS)]),
  template: TEMPLATE_RULE,
  rate: anyOf(oneOf(['file']), POSITIVE_NUMBER),
  fallbackRate: POSITIVE_NUMBER,
  repair: BOOLEAN_OPTION,
};

/** Something odd but readable in an AMASS file. */
export interface AmassWarning {
  code: 'rate-missing' | 'rate-disagree' | 'rate-length' | 'repaired' | 'unknown-per-frame' | 'dropped';
  /** A sentence that names the value used. */
  message: string;
}

/** What `amassToClip` keeps in `clip.source` so {@link clipToAmass} can write the file back. */
export interface AmassSource extends ClipSource {
  format: 'amass';
  model: SmplModel;
  /** Every member of the file, kept so the writer can return them (the clip replaces poses, trans and the rate). */
  arrays: NpzArrays;
  /** Frames and rate of the file as read: members with this many rows are per-frame. */
  frames: number;
  rate: number;
  /** Root rest position (`template[0]`, or zeros): `trans` = root translation − this. */
  rootOffset: [number, number, number];
  /** How the archive stored its members, when the reader knows (writers keep it). */
  compression?: 'stored' | 'deflate';
}

function scalar(a: NdArray | undefined): number | undefined {
  if (a === undefined || Array.isArray(a.data) || a.data.length !== 1) return undefined;
  const v = Number(a.data[0]);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

function floatRows(
  a: NdArray | undefined,
  name: string,
  width: number | undefined,
  where: string,
  repair: AmassWarning[] | null = null,
): Float64Array {
  if (a === undefined) throw new ShapeError(`${where}: the file has no '${name}' array`);
  if (!(a.data instanceof Float64Array || a.data instanceof Float32Array) || a.shape.length !== 2)
    throw new ShapeError(
      `${where}: '${name}' must be a 2-D float array, got ${a.dtype} of shape (${a.shape.join(', ')})`,
    );
  if (width !== undefined && a.shape[1] !== width)
    throw new ShapeError(`${where}: '${name}' has ${a.shape[1]} columns, expected ${width}`);
  let firstBad = -1;
  for (let i = 0; i < a.data.length; i++)
    if (!Number.isFinite(a.data[i])) {
      if (repair === null)
        throw new ShapeError(
          `${where}: '${name}' has a non-finite value at row ${Math.floor(i / a.shape[1])}`,
        );
      firstBad = i;
      break;
    }
  if (firstBad < 0) return a.data instanceof Float64Array ? a.data : Float64Array.from(a.data);
  // a copy: the caller's arrays stay as they were
  const out = Float64Array.from(a.data);
  const [rows, columns] = a.shape;
  let bad = 0;
  for (let col = 0; col < columns; col++) {
    let previous = -1;
    for (let r = 0; r <= rows; r++) {
      if (r < rows && !Number.isFinite(out[r * columns + col])) {
        bad++;
        continue;
      }
      if (r - previous > 1) {
        if (previous < 0 && r >= rows)
          throw new ShapeError(`${where}: '${name}' column ${col} has no finite value to repair from`);
        const from = previous < 0 ? out[r * columns + col] : out[previous * columns + col];
        const to = r >= rows ? out[previous * columns + col] : out[r * columns + col];
        for (let g = previous + 1; g < r; g++) {
          const t = previous < 0 || r >= rows ? 0 : (g - previous) / (r - previous);
          out[g * columns + col] = from + (to - from) * t;
        }
      }
      previous = r;
    }
  }
  (repair as AmassWarning[]).push({
    code: 'repaired',
    message: `repaired ${bad} non-finite value(s) of '${name}' by interpolation along their column; the first at row ${Math.floor(firstBad / columns)}`,
  });
  return out;
}

function templateRows(t: AmassToClipOptions['template'], joints: number, where: string): Float64Array {
  let flat: ArrayLike<number>;
  if (t !== null && typeof t === 'object' && 'dtype' in t && 'shape' in t) {
    if (Array.isArray(t.data)) throw new OptionError(`${where}: template must be numeric`);
    flat = Array.from(t.data as ArrayLike<number | bigint>, Number);
  } else if (Array.isArray(t) && t.length > 0 && Array.isArray(t[0])) flat = (t as number[][]).flat();
  else flat = t as ArrayLike<number>;
  if (flat === null || typeof flat !== 'object' || typeof flat.length !== 'number')
    throw new OptionError(`${where}: template must be joints x 3 numbers`);
  // a model's J may list more rows than the pose drives (SMPL+H's J for an SMPL pose); the first rows are the tree
  if (flat.length < joints * 3)
    throw new ShapeError(`${where}: template has ${flat.length / 3} joints, the pose has ${joints}`);
  const out = new Float64Array(joints * 3);
  for (let i = 0; i < out.length; i++) {
    const v = Number(flat[i]);
    if (!Number.isFinite(v)) throw new OptionError(`${where}: template value ${i} is not a finite number`);
    out[i] = v;
  }
  return out;
}

/**
 * The frame rate of an AMASS file and any warnings about it: `mocap_framerate` (SMPL+H releases) or
 * `mocap_frame_rate` (SMPL-X releases); when both are present and differ, or `mocap_time_length` implies
 * another rate, or there is none, a warning names the value used.
 */
function resolveRate(
  arrays: NpzArrays,
  frames: number,
  o: Required<AmassToClipOptions>,
  warnings: AmassWarning[],
): number {
  const found = AMASS_RATE_KEYS.map((k) => [k, scalar(arrays[k])] as const).filter(
    ([, v]) => v !== undefined,
  );
  let rate: number;
  if (found.length === 0) {
    rate = o.rate === 'file' ? o.fallbackRate : o.rate;
    if (o.rate === 'file')
      warnings.push({
        code: 'rate-missing',
        message: `no frame rate (${AMASS_RATE_KEYS.join(' or ')}); using ${rate} Hz`,
      });
  } else {
    rate = o.rate === 'file' ? (found[0][1] as number) : o.rate;
    const differ = found.filter(([, v]) => Math.abs((v as number) - rate) > 1e-9 * rate);
    if (differ.length > 0)
      warnings.push({
        code: 'rate-disagree',
        message: `frame rates disagree (${found.map(([k, v]) => `${k} = ${v}`).join(', ')}${o.rate === 'file' ? '' : `, option ${o.rate}`}); using ${rate} Hz`,
      });
  }
  const length = scalar(arrays.mocap_time_length);
  if (length !== undefined && frames > 1) {
    // SMPL-X files store frames / rate; 0.5% is well above rounding and far below any real rate mix-up
    const implied = frames / length;
    if (Math.abs(implied - rate) > 0.005 * rate)
      warnings.push({
        code: 'rate-length',
        message: `mocap_time_length ${length} s for ${frames} frames implies ${implied.toFixed(4)} Hz; using ${rate} Hz`,
      });
  }
  return rate;
}

/**
 * The message for arrays without a `poses` member: the members the file has, and, when they look like the
 * SMPL parameters of a pose estimator (separate root and body rotations, or a combined `pose`), the reader
 * to use instead.
 */
function missingPoses(arrays: NpzArrays, where: string): string {
  const names = Object.keys(arrays);
  const has = names.length === 0 ? 'no members' : `members ${names.map((n) => `'${n}'`).join(', ')}`;
  const smplKeys: readonly string[] = [
    ...SMPL_GLOBAL_ORIENT_KEYS,
    ...SMPL_BODY_POSE_KEYS,
    ...SMPL_POSE_KEYS.filter((k) => k !== 'poses'),
  ];
  const smpl = names.filter((n) => smplKeys.includes(n));
  const hint =
    smpl.length > 0
      ? `; ${smpl.map((n) => `'${n}'`).join(', ')} look like SMPL parameters from a pose estimator: read them with smplParamsToClip (the SMPL-parameter reader) or clean them with \`rotsig clean\``
      : '';
  return `${where}: the file has no 'poses' member (an AMASS motion has 'poses' and 'trans'); it has ${has}${hint}`;
}

/**
 * An AMASS / SMPL-family motion (the arrays of its `.npz`, from `parseNpz`) as a clip, with warnings.
 * See {@link amassToClip}.
 *
 * @param options - Defaults in {@link AMASS_TO_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @example
 * const { clip, warnings } = amassToClipWithReport(parseNpz(bytes));
 * for (const w of warnings) console.warn(w.message);
 */
export function amassToClipWithReport(
  arrays: NpzArrays,
  options: AmassToClipOptions = {},
): { clip: Clip; warnings: AmassWarning[] } {
  const where = 'amassToClip';
  const o = resolveOptions(where, options, AMASS_TO_CLIP_DEFAULTS, AMASS_TO_CLIP_SPEC);
  if (arrays === null || typeof arrays !== 'object')
    throw new OptionError(`${where}: arrays must be the arrays of an .npz`);
  if (!('poses' in arrays) || arrays.poses === undefined) throw new ShapeError(missingPoses(arrays, where));
  const posesArray = arrays.poses;
  const width = posesArray?.shape?.[1];
  let model: SmplModel;
  if (o.model === 'auto') {
    const m = (Object.keys(SMPL_JOINT_COUNTS) as SmplModel[]).find((k) => SMPL_JOINT_COUNTS[k] * 3 === width);
    if (m === undefined)
      throw new ShapeError(
        `${where}: 'poses' has ${width ?? 'no'} columns; expected 72 (SMPL), 156 (SMPL+H) or 165 (SMPL-X), or pass options.model`,
      );
    model = m;
  } else model = o.model;
  const J = SMPL_JOINT_COUNTS[model];
  const warnings: AmassWarning[] = [];
  const repairs = o.repair ? warnings : null;
  const poses = floatRows(posesArray, 'poses', J * 3, where, repairs);
  const frames = posesArray.shape[0];
  const trans = arrays.trans === undefined ? null : floatRows(arrays.trans, 'trans', 3, where, repairs);
  if (trans !== null && arrays.trans.shape[0] !== frames)
    throw new ShapeError(`${where}: 'trans' has ${arrays.trans.shape[0]} rows, 'poses' ${frames}`);
  const rate = resolveRate(arrays, frames, o, warnings);
  const tree = smplTree(model);
  const rest = new Float64Array(J * 3);
  const rootOffset: [number, number, number] = [0, 0, 0];
  if (o.template !== null) {
    const t = templateRows(o.template, J, where);
    for (let j = 0; j < J; j++) {
      const p = tree.parents[j];
      for (let k = 0; k < 3; k++) rest[j * 3 + k] = p < 0 ? t[j * 3 + k] : t[j * 3 + k] - t[p * 3 + k];
    }
    rootOffset[0] = t[0];
    rootOffset[1] = t[1];
    rootOffset[2] = t[2];
  }
  const rotations = new Float64Array(frames * J * 4);
  for (let i = 0; i < frames * J; i++) fromRotationVectorFlat(rotations, i * 4, poses, i * 3);
  const translations = new Float64Array(frames * J * 3);
  for (let f = 0; f < frames; f++) {
    translations.set(rest, f * J * 3);
    if (trans !== null) for (let k = 0; k < 3; k++) translations[f * J * 3 + k] = rest[k] + trans[f * 3 + k];
  }
  const unknown = unknownPerFrame(arrays, frames, model);
  if (unknown.length > 0)
    warnings.push({
      code: 'unknown-per-frame',
      message: `${unknown.map((n) => `'${n}'`).join(', ')} ${unknown.length === 1 ? 'has' : 'have'} one row per frame but ${unknown.length === 1 ? 'is not a' : 'are not'} known AMASS per-frame member${unknown.length === 1 ? '' : 's'} (${PER_FRAME_MEMBERS.join(', ')}): written back unchanged while the frames stay as they are, dropped (with a warning) when a resample or subclip changes them`,
    });
  const animated = new Uint8Array(J).fill(ANIMATED_ROTATION);
  animated[0] |= ANIMATED_TRANSLATION;
  const source: AmassSource = { format: 'amass', model, arrays, frames, rate, rootOffset };
  const clip = makeClip({
    skeleton: makeSkeleton({ names: tree.names, parents: tree.parents, restTranslations: rest }),
    frameTime: 1 / rate,
    rotations: { data: rotations, frames, joints: J },
    translations: { data: translations, frames, joints: J },
    animated,
    source,
  });
  // the rate exactly as the file states it (1 / (1 / 59.9999885) is one ulp off)
  clip.rate = rate;
  return { clip, warnings };
}

/**
 * An AMASS / SMPL-family motion as a clip: the arrays of its `.npz` (from `parseNpz`) in, a clip on the
 * model's kinematic tree out (24, 52 or 55 joints, names and parents of `smplTree`).
 *
 * Conventions: `poses` holds one axis-angle vector (radians) per joint and frame, local to the parent,
 * joint order of the model; they become unit quaternions (x, y, z, w). `trans` is the root translation in
 * metres in AMASS's z-up world (the body model itself is y-up; see `rootMotion`'s `bodyUp`). The rate comes
 * from `mocap_framerate` or `mocap_frame_rate`; a missing rate, two that disagree, or a
 * `mocap_time_length` that implies another rate is a warning naming the value used (see
 * {@link amassToClipWithReport}; this function drops the warnings). Without a `template` the skeleton's
 * rest translations are zero (the body model, with its bone offsets, is licensed and not shipped): every
 * rotation operation works, positions do not. With the user's joint template `J`, joint j rests at
 * `J[j] − J[parent]` and the root's translation is `J[0] + trans`, which is SMPL's forward kinematics.
 * `clip.source` keeps every member of the file, so {@link clipToAmass} writes it back.
 *
 * Source: Loper et al. 2015 (SMPL), Romero et al. 2017 (SMPL+H), Pavlakos et al. 2019 (SMPL-X), Mahmood
 * et al. 2019 (AMASS): the `poses`/`trans` layout and the kinematic trees.
 *
 * @param options - Defaults in {@link AMASS_TO_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when `poses` is missing, not `frames x 3·joints` floats, non-finite, or `trans`
 *   does not match; @throws {OptionError} on unknown or out-of-range options.
 * @example
 * const clip = amassToClip(parseNpz(fs.readFileSync('walk_poses.npz')));
 * const clip30 = resampleClip(clip, { targetRate: 30 });
 * fs.writeFileSync('walk30_poses.npz', writeNpz(clipToAmass(clip30)));
 */
export function amassToClip(arrays: NpzArrays, options: AmassToClipOptions = {}): Clip {
  return amassToClipWithReport(arrays, options).clip;
}

/** Members of split-pose layouts, as column ranges of `poses` per model (regenerated from the clip's poses). */
const POSE_PARTS: Record<SmplModel, Record<string, [number, number]>> = {
  smpl: { root_orient: [0, 3], pose_body: [3, 66] },
  smplh: { root_orient: [0, 3], pose_body: [3, 66], pose_hand: [66, 156] },
  smplx: {
    root_orient: [0, 3],
    pose_body: [3, 66],
    pose_jaw: [66, 69],
    pose_eye: [69, 75],
    pose_hand: [75, 165],
  },
};

/**
 * Members of AMASS releases with one row per frame besides `poses`, `trans` and the split pose members:
 * DMPL soft-tissue coefficients (SMPL+H releases) and MoSh's marker arrays and per-frame labels (SMPL-X
 * stage-ii files). {@link clipToAmass} resamples and cuts them with the poses.
 */
export const PER_FRAME_MEMBERS: readonly string[] = [
  'dmpls',
  'marker_data',
  'markers_obs',
  'markers_sim',
  'markers_orig',
  'labels_obs',
  'labels_orig',
];

/** Members with one row per frame that clipToAmass would not know how to carry along. */
function unknownPerFrame(arrays: NpzArrays, frames: number, model: SmplModel): string[] {
  return Object.keys(arrays).filter((name) => {
    const a = arrays[name];
    return (
      name !== 'poses' &&
      name !== 'trans' &&
      !(name in POSE_PARTS[model]) &&
      !PER_FRAME_MEMBERS.includes(name) &&
      !STATIC_MEMBERS.has(name) &&
      a?.shape?.length >= 1 &&
      a.shape[0] === frames &&
      frames > 1
    );
  });
}

/** Per-frame members that are not time series (shape coefficients, marker layouts, labels). */
const STATIC_MEMBERS = new Set([
  'betas',
  'num_betas',
  'markers_latent',
  'latent_labels',
  'marker_labels',
  'v_template',
]);

/**
 * A clip back to the arrays of an AMASS `.npz` (for `writeNpz`): `poses` (axis-angle, the model's joint
 * order) and `trans` from the clip, the frame rate written to whichever of `mocap_framerate` /
 * `mocap_frame_rate` the file had (`mocap_framerate` when neither), `mocap_time_length` updated, the split
 * pose members of SMPL-X files (`root_orient`, `pose_body`, `pose_hand`, `pose_jaw`, `pose_eye`) cut from
 * the new poses, and every other member kept as it was. Other per-frame float members (2-D arrays with
 * one row per source frame, such as `dmpls`) are resampled onto the clip's time grid (`i / rate`) with
 * the default kernel of `resampleVectors`, so a resampled file stays consistent.
 *
 * `arrays` defaults to the members the clip was read from (`clip.source` of {@link amassToClip}); the
 * clip must have the model's joints in order. Dtypes of `poses` and `trans` are kept (float32 stays float32).
 *
 * @throws {ShapeError} when the clip's joint count does not match any model or the source's.
 * @example
 * const out = clipToAmass(resampleClip(amassToClip(npz), { targetRate: 30 }));
 * fs.writeFileSync('walk30.npz', writeNpz(out));
 */
export function clipToAmass(clip: Clip, arrays?: NpzArrays): NpzArrays {
  return clipToAmassWithReport(clip, arrays).arrays;
}

/**
 * {@link clipToAmass} with warnings: the members it dropped (per-frame members of no known layout, when
 * the clip's frames differ from the file's), by name.
 *
 * @throws {ShapeError} as {@link clipToAmass}.
 * @example
 * const { arrays, warnings } = clipToAmassWithReport(subclip(clip, { start: 1, end: 2 }));
 */
export function clipToAmassWithReport(
  clip: Clip,
  arrays?: NpzArrays,
): { arrays: NpzArrays; warnings: AmassWarning[] } {
  const where = 'clipToAmass';
  if (clip === null || typeof clip !== 'object' || clip.skeleton === undefined)
    throw new ShapeError(`${where}: clip must be a Clip`);
  const source = clip.source?.format === 'amass' ? (clip.source as AmassSource) : undefined;
  const base = arrays ?? source?.arrays ?? {};
  const J = clip.skeleton.names.length;
  const model =
    source?.model ?? (Object.keys(SMPL_JOINT_COUNTS) as SmplModel[]).find((k) => SMPL_JOINT_COUNTS[k] === J);
  if (model === undefined || SMPL_JOINT_COUNTS[model] !== J)
    throw new ShapeError(`${where}: the clip has ${J} joints; SMPL has 24, SMPL+H 52, SMPL-X 55`);
  const F = clip.rotations.frames;
  const q = clip.rotations.data;
  const t = clip.translations.data;
  const posesOut = new Float64Array(F * J * 3);
  for (let i = 0; i < F * J; i++) toRotationVectorFlat(posesOut, i * 3, q, i * 4);
  const offset = source?.rootOffset ?? [0, 0, 0];
  const transOut = new Float64Array(F * 3);
  for (let f = 0; f < F; f++) for (let k = 0; k < 3; k++) transOut[f * 3 + k] = t[f * J * 3 + k] - offset[k];
  const like = (data: Float64Array, shape: number[], old: NdArray | undefined): NdArray =>
    old?.dtype === 'float32'
      ? { data: Float32Array.from(data), shape, dtype: 'float32' }
      : { data, shape, dtype: 'float64' };
  const out: NpzArrays = Object.create(null);
  const sourceFrames = source?.frames ?? base.poses?.shape?.[0];
  const sourceRate = source?.rate;
  const rate = clip.rate;
  // output frame i is at start + i / rate seconds of the file (a subclip starts later; the reader's clip at 0)
  const start = clip.startTime ?? 0;
  const retimed =
    sourceRate !== undefined &&
    (F !== sourceFrames || Math.abs(rate - sourceRate) > 1e-12 * rate || Math.abs(start) > 1e-12);
  const unknown = new Set(
    retimed && sourceFrames !== undefined ? unknownPerFrame(base, sourceFrames, model) : [],
  );
  const warnings: AmassWarning[] = [];
  let rateWritten = false;
  for (const name of Object.keys(base)) {
    const old = base[name];
    if (name === 'poses') out.poses = like(posesOut, [F, J * 3], old);
    else if (name === 'trans') out.trans = like(transOut, [F, 3], old);
    else if ((AMASS_RATE_KEYS as readonly string[]).includes(name)) {
      out[name] = rateArray(rate, old);
      rateWritten = true;
    } else if (name === 'mocap_time_length')
      out[name] = { data: Float64Array.of(F / rate), shape: [], dtype: 'float64' };
    else if (name in POSE_PARTS[model] && old.shape.length === 2) {
      const [a, b] = POSE_PARTS[model][name];
      const part = new Float64Array(F * (b - a));
      for (let f = 0; f < F; f++) part.set(posesOut.subarray(f * J * 3 + a, f * J * 3 + b), f * (b - a));
      out[name] = like(part, [F, b - a], old);
    } else if (unknown.has(name)) {
    } else if (
      retimed &&
      !STATIC_MEMBERS.has(name) &&
      old.shape.length >= 1 &&
      old.shape[0] === sourceFrames &&
      sourceRate !== undefined
    ) {
      out[name] = retimeRows(old, sourceRate, rate, F, start);
    } else out[name] = old;
  }
  if (unknown.size > 0)
    warnings.push({
      code: 'dropped',
      message: `dropped ${[...unknown].map((n) => `'${n}'`).join(', ')}: one row per frame of the file, but no known AMASS layout to resample or cut with the poses (${PER_FRAME_MEMBERS.join(', ')} are)`,
    });
  if (!('poses' in out)) out.poses = like(posesOut, [F, J * 3], undefined);
  if (!('trans' in out)) out.trans = like(transOut, [F, 3], undefined);
  if (!rateWritten)
    out[model === 'smplx' ? 'mocap_frame_rate' : 'mocap_framerate'] = rateArray(rate, undefined);
  return { arrays: out, warnings };
}

function rateArray(rate: number, old: NdArray | undefined): NdArray {
  if (old !== undefined && !Array.isArray(old.data) && Number.isInteger(rate) && /int/.test(old.dtype)) {
    if (old.dtype === 'int64')
      return { data: BigInt64Array.of(BigInt(rate)), shape: old.shape.slice(), dtype: 'int64' };
    if (old.dtype === 'int32') return { data: Int32Array.of(rate), shape: old.shape.slice(), dtype: 'int32' };
  }
  return { data: Float64Array.of(rate), shape: old?.shape.slice() ?? [], dtype: 'float64' };
}

/**
 * Rows of a per-frame member (any shape `frames x ...`) at the output frames' times `start + i / rate`:
 * copied when every time is a source frame (a subclip at the same rate), else resampled with the default
 * kernel of `resampleVectors` for float members, and the nearest row for others (labels).
 */
function retimeRows(a: NdArray, sourceRate: number, rate: number, frames: number, start: number): NdArray {
  const n = a.shape[0];
  let width = 1;
  for (let d = 1; d < a.shape.length; d++) width *= a.shape[d];
  const shape = [frames, ...a.shape.slice(1)];
  const offset = start * sourceRate;
  const sameGrid =
    Math.abs(rate - sourceRate) <= 1e-12 * rate && Math.abs(offset - Math.round(offset)) < 1e-6;
  const float = a.data instanceof Float64Array || a.data instanceof Float32Array;
  if (sameGrid || !float) {
    const rows = Array.from({ length: frames }, (_, i) =>
      Math.min(n - 1, Math.max(0, Math.round(((start + i / rate) * sourceRate) as number))),
    );
    if (Array.isArray(a.data)) {
      const src = a.data;
      return { ...a, data: rows.flatMap((r) => src.slice(r * width, (r + 1) * width)), shape };
    }
    const src = a.data as unknown as Record<number, number | bigint>;
    const data = new (a.data.constructor as new (length: number) => NpyArray)(frames * width);
    const dst = data as unknown as Record<number, number | bigint>;
    for (let i = 0; i < frames; i++)
      for (let c = 0; c < width; c++) dst[i * width + c] = src[rows[i] * width + c];
    return { ...a, data, shape };
  }
  const groups = Math.ceil(width / 3);
  const padded = new Float64Array(n * groups * 3);
  const src = a.data as Float64Array | Float32Array;
  for (let f = 0; f < n; f++) for (let c = 0; c < width; c++) padded[f * groups * 3 + c] = src[f * width + c];
  const times = Float64Array.from({ length: frames }, (_, i) => start + i / rate);
  const r = resampleVectors({ data: padded, frames: n, joints: groups }, { sourceRate, times });
  const data = new Float64Array(frames * width);
  for (let f = 0; f < frames; f++)
    for (let c = 0; c < width; c++) data[f * width + c] = r.data[f * groups * 3 + c];
  return a.dtype === 'float32'
    ? { data: Float32Array.from(data), shape, dtype: 'float32' }
    : { data, shape, dtype: 'float64' };
}
