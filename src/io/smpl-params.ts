/**
 * SMPL parameters as pose estimators write them (4D-Humans / HMR 2.0, VIBE, ROMP, SMPLer-X, PARE, ...):
 * `.npz` or JSON with `global_orient`, `body_pose`, `transl`, `betas` (or one combined `pose`), per frame,
 * as axis-angle vectors or rotation matrices, to clips and back in the same layout.
 *
 * @module
 */
import { OptionError, ShapeError } from '../errors.js';
import {
  anyOf,
  customRule,
  frozenDefaults,
  type OptionSpec,
  oneOf,
  orNull,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../options.js';
import { fromRotationVectorFlat, toRotationVectorFlat } from '../quat/exp-log.js';
import { fromMatrixFlat, toMatrixFlat } from '../quat/matrix.js';
import { ANIMATED_ROTATION, ANIMATED_TRANSLATION, type Clip, type ClipSource } from '../series/clip.js';
import { makeClip, makeSkeleton } from '../series/clip-create.js';
import { SMPL_JOINT_NAMES, SMPL_PARENTS } from './amass/skeletons.js';
import type { NdArray } from './npy.js';
import type { NpzArrays } from './npz.js';

/** Key names of the root orientation, in the order they are looked for. */
export const SMPL_GLOBAL_ORIENT_KEYS = ['global_orient', 'root_orient', 'global_orientation'] as const;
/** Key names of the body joints' rotations (23 SMPL joints, or the 21 of SMPL-H / SMPL-X bodies). */
export const SMPL_BODY_POSE_KEYS = ['body_pose', 'pose_body'] as const;
/** Key names of a combined pose (root first, then the body: 24 or 22 joints), as VIBE and ROMP write it. */
export const SMPL_POSE_KEYS = ['pose', 'poses', 'smpl_pose', 'smpl_thetas', 'thetas'] as const;
/** Key names of the root translation (metres). */
export const SMPL_TRANSL_KEYS = ['transl', 'trans', 'smpl_transl'] as const;

/** How one rotation member is laid out per frame. */
export type SmplRotationLayout = 'axis-angle' | 'matrix';

/** One rotation member of the file: which joints it holds and how. */
export interface SmplRotationMember {
  name: string;
  /** First joint of the clip it holds, and how many. */
  first: number;
  count: number;
  layout: SmplRotationLayout;
  /** The member's shape and dtype as read (the writer keeps them). */
  shape: number[];
  dtype: 'float32' | 'float64';
}

/** What {@link smplParamsToClip} keeps in `clip.source` so {@link clipToSmplParams} writes the same layout. */
export interface SmplParamsSource extends ClipSource {
  format: 'smpl-params';
  /** Every member of the file as read. */
  arrays: NpzArrays;
  rotations: SmplRotationMember[];
  /** The translation member, when there is one. */
  transl?: { name: string; shape: number[]; dtype: 'float32' | 'float64' };
  /** Root rest position (`template[0]`, or zeros): `transl` = root translation − this. */
  rootOffset: [number, number, number];
}

/** Options of {@link smplParamsToClip}. */
export interface SmplParamsToClipOptions {
  /** Frame rate in Hz. Default: the file's (`fps`, `frame_rate`, `mocap_framerate`), else 30 with a warning. */
  rate?: number | 'file';
  /**
   * Rest joint positions of the body model (`joints x 3`, flat or nested), as for `amassToClip`: with it
   * joints rest at their offsets from their parents and forward kinematics gives positions; without it
   * (default `null`) the rest translations are zero.
   */
  template?: ArrayLike<number> | readonly (readonly number[])[] | null;
}

/** Defaults of {@link SmplParamsToClipOptions} (frozen). */
export const SMPL_PARAMS_TO_CLIP_DEFAULTS: Readonly<Required<SmplParamsToClipOptions>> = frozenDefaults({
  rate: 'file',
  template: null,
});

const SMPL_PARAMS_TO_CLIP_SPEC: OptionSpec = {
  rate: anyOf(oneOf(['file']), POSITIVE_NUMBER),
  template: orNull(customRule('an array of joint positions', (v) => v !== null && typeof v === 'object')),
};

/** Something odd but readable in an SMPL parameter file. */
export interface SmplParamsWarning {
  code: 'rate-missing';
  message: string;
}

const RATE_KEYS = ['fps', 'frame_rate', 'mocap_framerate', 'mocap_frame_rate'];
/** Rate of video-based estimates when the file has none: most videos are 30 frames per second. */
const FALLBACK_RATE = 30;

function find(arrays: NpzArrays, keys: readonly string[]): string | undefined {
  return keys.find((k) => arrays[k] !== undefined);
}

function floatData(a: NdArray, name: string, where: string): Float32Array | Float64Array {
  if (!(a.data instanceof Float64Array || a.data instanceof Float32Array))
    throw new ShapeError(`${where}: '${name}' must be a float array, got ${a.dtype}`);
  for (let i = 0; i < a.data.length; i++)
    if (!Number.isFinite(a.data[i]))
      throw new ShapeError(`${where}: '${name}' has a non-finite value at index ${i}`);
  return a.data;
}

/** The layout of a rotation member holding one of `counts` joints per frame, from its shape. */
function layoutOf(
  a: NdArray,
  name: string,
  counts: readonly number[],
  where: string,
): { frames: number; count: number; layout: SmplRotationLayout } {
  const shape = a.shape;
  if (shape.length < 2)
    throw new ShapeError(`${where}: '${name}' has shape (${shape.join(', ')}); expected frames first`);
  const frames = shape[0];
  const per = shape.slice(1).reduce((x, y) => x * y, 1);
  const tail = shape.slice(-2).join(',');
  // (N, K, 3, 3) or (N, 3, 3) for one joint: matrices; (N, 3K) or (N, K, 3): axis-angle; (N, 9K): matrices
  if (shape.length >= 3 && tail === '3,3' && counts.includes(per / 9))
    return { frames, count: per / 9, layout: 'matrix' };
  if (counts.includes(per / 3) && shape[shape.length - 1] % 3 === 0)
    return { frames, count: per / 3, layout: 'axis-angle' };
  if (counts.includes(per / 9)) return { frames, count: per / 9, layout: 'matrix' };
  throw new ShapeError(
    `${where}: '${name}' has shape (${shape.join(', ')}); expected ${counts.join(' or ')} joints per frame as axis-angle (3 each) or matrices (3 x 3)`,
  );
}

/**
 * SMPL parameters from a pose estimator (the arrays of its `.npz`, from `parseNpz`, or of its JSON, from
 * {@link parseSmplJson}) as a clip on the SMPL kinematic tree, with warnings.
 *
 * Layouts read: `global_orient` (also `root_orient`, `global_orientation`) and `body_pose` (also
 * `pose_body`), or one combined `pose` (also `poses`, `smpl_pose`, `smpl_thetas`, `thetas`), each per
 * frame as axis-angle vectors (`(N, 3K)` or `(N, K, 3)`) or rotation matrices (`(N, K, 3, 3)`, `(N, 3, 3)`
 * for the root, or `(N, 9K)`), row-major, local to the parent; 23 body joints (SMPL: 24 clip joints) or 21
 * (the SMPL-H / SMPL-X body: 22). `transl` (also `trans`) is the root translation in metres; `betas` and
 * every other member are kept for the writer. Matrices that are not exactly orthonormal (network output)
 * are projected to the nearest rotation. Nothing is unpickled: `.npz` members are plain `.npy` arrays.
 *
 * The frame rate is the file's (`fps`, `frame_rate`, `mocap_framerate`) or `options.rate`; without either
 * it is 30 Hz, with a `'rate-missing'` warning.
 *
 * Source: Loper et al. 2015 (SMPL) for the tree; the layouts of 4D-Humans (Goel et al. 2023), VIBE
 * (Kocabas et al. 2020) and ROMP (Sun et al. 2021) outputs.
 *
 * @param options - Defaults in {@link SMPL_PARAMS_TO_CLIP_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when no rotation member is found, or shapes or frame counts disagree;
 *   {@link OptionError} on bad options.
 * @example
 * const { clip } = smplParamsToClipWithReport(parseNpz(bytes), { rate: 30 });
 * const out = writeNpz(clipToSmplParams(cleanClip(clip, { unitsPerMeter: 1 })));
 */
export function smplParamsToClipWithReport(
  arrays: NpzArrays,
  options: SmplParamsToClipOptions = {},
): { clip: Clip; warnings: SmplParamsWarning[] } {
  const where = 'smplParamsToClip';
  const o = resolveOptions(where, options, SMPL_PARAMS_TO_CLIP_DEFAULTS, SMPL_PARAMS_TO_CLIP_SPEC);
  if (arrays === null || typeof arrays !== 'object')
    throw new OptionError(`${where}: arrays must be an object of arrays`);
  const warnings: SmplParamsWarning[] = [];
  const members: SmplRotationMember[] = [];
  let frames = -1;
  const add = (name: string, first: number, counts: readonly number[]): number => {
    const a = arrays[name];
    const { frames: n, count, layout } = layoutOf(a, name, counts, where);
    floatData(a, name, where);
    if (frames >= 0 && n !== frames)
      throw new ShapeError(`${where}: '${name}' has ${n} frames, '${members[0].name}' ${frames}`);
    frames = n;
    members.push({
      name,
      first,
      count,
      layout,
      shape: a.shape.slice(),
      dtype: a.dtype as 'float32' | 'float64',
    });
    return count;
  };
  const globalKey = find(arrays, SMPL_GLOBAL_ORIENT_KEYS);
  const bodyKey = find(arrays, SMPL_BODY_POSE_KEYS);
  const poseKey = find(arrays, SMPL_POSE_KEYS);
  let joints: number;
  if (globalKey !== undefined && bodyKey !== undefined) {
    add(globalKey, 0, [1]);
    joints = 1 + add(bodyKey, 1, [23, 21]);
  } else if (poseKey !== undefined) joints = add(poseKey, 0, [24, 22]);
  else
    throw new ShapeError(
      `${where}: no SMPL rotations; expected '${SMPL_GLOBAL_ORIENT_KEYS[0]}' and '${SMPL_BODY_POSE_KEYS[0]}', or '${SMPL_POSE_KEYS[0]}' (found ${Object.keys(arrays).join(', ') || 'no arrays'})`,
    );
  const translKey = find(arrays, SMPL_TRANSL_KEYS);
  let transl: Float32Array | Float64Array | null = null;
  let translInfo: SmplParamsSource['transl'];
  if (translKey !== undefined) {
    const a = arrays[translKey];
    transl = floatData(a, translKey, where);
    const per = a.shape.slice(1).reduce((x, y) => x * y, 1);
    if (a.shape[0] !== frames || per !== 3)
      throw new ShapeError(
        `${where}: '${translKey}' has shape (${a.shape.join(', ')}); expected (${frames}, 3)`,
      );
    translInfo = { name: translKey, shape: a.shape.slice(), dtype: a.dtype as 'float32' | 'float64' };
  }
  let rate: number;
  const fileRate = RATE_KEYS.map((k) => arrays[k]).find(
    (a) => a !== undefined && !Array.isArray(a.data) && a.data.length === 1 && Number(a.data[0]) > 0,
  );
  if (o.rate !== 'file') rate = o.rate;
  else if (fileRate !== undefined) rate = Number(fileRate.data[0]);
  else {
    rate = FALLBACK_RATE;
    warnings.push({
      code: 'rate-missing',
      message: `no frame rate in the file; using ${rate} Hz (pass a rate)`,
    });
  }
  const names = SMPL_JOINT_NAMES.slice(0, joints);
  const parents = SMPL_PARENTS.slice(0, joints);
  const rest = new Float64Array(joints * 3);
  const rootOffset: [number, number, number] = [0, 0, 0];
  if (o.template !== null) {
    const t = (
      Array.isArray(o.template) && Array.isArray(o.template[0])
        ? (o.template as number[][]).flat()
        : o.template
    ) as ArrayLike<number>;
    if (t === null || typeof t !== 'object' || !(t.length >= joints * 3))
      throw new OptionError(`${where}: template must hold ${joints} x 3 numbers`);
    for (let j = 0; j < joints; j++)
      for (let k = 0; k < 3; k++) {
        const v = Number(t[j * 3 + k]);
        const p = parents[j] < 0 ? 0 : Number(t[parents[j] * 3 + k]);
        if (!Number.isFinite(v) || !Number.isFinite(p))
          throw new OptionError(`${where}: template value ${j * 3 + k} is not finite`);
        rest[j * 3 + k] = parents[j] < 0 ? v : v - p;
      }
    rootOffset[0] = rest[0];
    rootOffset[1] = rest[1];
    rootOffset[2] = rest[2];
  }
  const rotations = new Float64Array(frames * joints * 4);
  for (const m of members) {
    const data = arrays[m.name].data as Float32Array | Float64Array;
    const width = m.layout === 'matrix' ? 9 : 3;
    for (let f = 0; f < frames; f++)
      for (let k = 0; k < m.count; k++) {
        const src = (f * m.count + k) * width;
        const dst = (f * joints + m.first + k) * 4;
        if (m.layout === 'matrix') fromMatrixFlat(rotations, dst, data, src);
        else fromRotationVectorFlat(rotations, dst, data, src);
      }
  }
  const translations = new Float64Array(frames * joints * 3);
  for (let f = 0; f < frames; f++) {
    translations.set(rest, f * joints * 3);
    if (transl !== null)
      for (let k = 0; k < 3; k++) translations[f * joints * 3 + k] = rest[k] + transl[f * 3 + k];
  }
  const animated = new Uint8Array(joints).fill(ANIMATED_ROTATION);
  animated[0] |= ANIMATED_TRANSLATION;
  const source: SmplParamsSource = {
    format: 'smpl-params',
    arrays,
    rotations: members,
    ...(translInfo ? { transl: translInfo } : {}),
    rootOffset,
  };
  const clip = makeClip({
    skeleton: makeSkeleton({ names, parents, restTranslations: rest }),
    frameTime: 1 / rate,
    rotations: { data: rotations, frames, joints },
    translations: { data: translations, frames, joints },
    animated,
    source,
  });
  clip.rate = rate;
  return { clip, warnings };
}

/** {@link smplParamsToClipWithReport} without the warnings. */
export function smplParamsToClip(arrays: NpzArrays, options: SmplParamsToClipOptions = {}): Clip {
  return smplParamsToClipWithReport(arrays, options).clip;
}

/**
 * A clip read by {@link smplParamsToClip} back to the arrays of its file, in the same layout: every
 * rotation member with its key name, shape and dtype (axis-angle or matrices, as read), the translation
 * member likewise, and every other member (`betas`, camera parameters, ...) as it was. Axis-angle vectors
 * are written with angles in `[0, π]`, so a file that had 2π shells or sign flips is written without them.
 *
 * @throws {ShapeError} when the clip was not read by {@link smplParamsToClip} or its joints or frames no
 *   longer match the source.
 * @example
 * fs.writeFileSync('clean.npz', writeNpz(clipToSmplParams(cleanClip(clip))));
 */
export function clipToSmplParams(clip: Clip): NpzArrays {
  const where = 'clipToSmplParams';
  if (clip === null || typeof clip !== 'object' || clip.source?.format !== 'smpl-params')
    throw new ShapeError(
      `${where}: the clip was not read by smplParamsToClip (its source is not 'smpl-params')`,
    );
  const source = clip.source as SmplParamsSource;
  const { frames, joints } = clip.rotations;
  const q = clip.rotations.data;
  const out: NpzArrays = Object.create(null);
  for (const name of Object.keys(source.arrays)) out[name] = source.arrays[name];
  for (const m of source.rotations) {
    if (m.first + m.count > joints)
      throw new ShapeError(`${where}: the clip has ${joints} joints, '${m.name}' needs ${m.first + m.count}`);
    if (m.shape[0] !== frames)
      throw new ShapeError(`${where}: the clip has ${frames} frames, '${m.name}' had ${m.shape[0]}`);
    const width = m.layout === 'matrix' ? 9 : 3;
    const data = new Float64Array(frames * m.count * width);
    for (let f = 0; f < frames; f++)
      for (let k = 0; k < m.count; k++) {
        const src = (f * joints + m.first + k) * 4;
        const dst = (f * m.count + k) * width;
        if (m.layout === 'matrix') toMatrixFlat(data, dst, q, src);
        else toRotationVectorFlat(data, dst, q, src);
      }
    out[m.name] =
      m.dtype === 'float32'
        ? { data: Float32Array.from(data), shape: m.shape.slice(), dtype: 'float32' }
        : { data, shape: m.shape.slice(), dtype: 'float64' };
  }
  if (source.transl !== undefined) {
    const t = clip.translations.data;
    const data = new Float64Array(frames * 3);
    for (let f = 0; f < frames; f++)
      for (let k = 0; k < 3; k++) data[f * 3 + k] = t[f * joints * 3 + k] - source.rootOffset[k];
    const info = source.transl;
    out[info.name] =
      info.dtype === 'float32'
        ? { data: Float32Array.from(data), shape: info.shape.slice(), dtype: 'float32' }
        : { data, shape: info.shape.slice(), dtype: 'float64' };
  }
  return out;
}

/**
 * The arrays of an SMPL parameter JSON file: an object whose number arrays (nested lists, as
 * `json.dump(x.tolist())` writes them) become float64 {@link NdArray}s of their nested shape, and whose
 * numbers become scalars; other values are skipped. For {@link smplParamsToClip}.
 *
 * @throws {ShapeError} when the text is not a JSON object, or a nested list is ragged or holds a non-number.
 * @example
 * const clip = smplParamsToClip(parseSmplJson(text), { rate: 30 });
 */
export function parseSmplJson(text: string): NpzArrays {
  const where = 'parseSmplJson';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ShapeError(`${where}: not JSON (${(error as Error).message})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ShapeError(`${where}: expected a JSON object of arrays`);
  const out: NpzArrays = Object.create(null);
  for (const [name, value] of Object.entries(json as Record<string, unknown>)) {
    if (typeof value === 'number') {
      out[name] = { data: Float64Array.of(value), shape: [], dtype: 'float64' };
      continue;
    }
    if (!Array.isArray(value)) continue;
    const shape: number[] = [];
    let level: unknown = value;
    while (Array.isArray(level)) {
      shape.push(level.length);
      level = level[0];
    }
    if (typeof level !== 'number' && shape.every((n) => n > 0)) continue;
    const data = new Float64Array(shape.reduce((x, y) => x * y, 1));
    let i = 0;
    const walk = (v: unknown, depth: number): void => {
      if (depth === shape.length) {
        if (typeof v !== 'number') throw new ShapeError(`${where}: '${name}' holds a non-number`);
        data[i++] = v;
        return;
      }
      if (!Array.isArray(v) || v.length !== shape[depth])
        throw new ShapeError(`${where}: '${name}' is ragged`);
      for (const x of v) walk(x, depth + 1);
    };
    walk(value, 0);
    out[name] = { data, shape, dtype: 'float64' };
  }
  return out;
}

/**
 * Arrays (as {@link clipToSmplParams} returns them) as JSON text in the layout {@link parseSmplJson}
 * reads: numeric arrays as nested lists of their shape, scalars as numbers, strings as strings.
 *
 * @throws {OptionError} when `arrays` is not an object; {@link ShapeError} when a member's shape does not
 *   hold its values.
 * @example
 * fs.writeFileSync('clean.json', writeSmplJson(clipToSmplParams(clip)));
 */
export function writeSmplJson(arrays: NpzArrays): string {
  const where = 'writeSmplJson';
  if (arrays === null || typeof arrays !== 'object' || Array.isArray(arrays))
    throw new OptionError(`${where}: arrays must be an object of arrays`);
  const out: Record<string, unknown> = {};
  for (const [name, a] of Object.entries(arrays)) {
    if (
      a === null ||
      typeof a !== 'object' ||
      !Array.isArray(a.shape) ||
      !a.shape.every((n) => Number.isSafeInteger(n) && n >= 0) ||
      a.data === null ||
      typeof a.data !== 'object' ||
      typeof a.data.length !== 'number' ||
      a.data.length !== a.shape.reduce((x, y) => x * y, 1)
    )
      throw new ShapeError(
        `${where}: '${name}' must be an array { data, shape } whose shape holds its values`,
      );
    const values = Array.isArray(a.data) ? a.data : Array.from(a.data as ArrayLike<number | bigint>, Number);
    if (a.shape.length === 0) {
      out[name] = values[0];
      continue;
    }
    let i = 0;
    const nest = (depth: number): unknown =>
      depth === a.shape.length ? values[i++] : Array.from({ length: a.shape[depth] }, () => nest(depth + 1));
    out[name] = nest(0);
  }
  return JSON.stringify(out);
}
