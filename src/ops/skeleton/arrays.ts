import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { anyOf, frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import { normalizeFlat } from '../../quat/core.js';
import { EULER_ORDERS, type EulerOrder, fromEulerFlat, isEulerOrder, toEulerFlat } from '../../quat/euler.js';
import { fromRotationVectorFlat, toRotationVectorFlat } from '../../quat/exp-log.js';
import { from6DFlat, to6DFlat } from '../../quat/matrix.js';
import { conjugateRaw, multiplyRaw, rotateVectorRaw } from '../../quat/raw.js';
import type { Clip } from '../../series/clip.js';
import { assertQuatSeries, assertVec3Series } from '../../series/create.js';
import type { FloatArray } from '../../series/types.js';
import { checkClip } from './clip-check.js';
import { forwardKinematics } from './forward-kinematics.js';

/** How rotations are laid out per joint in {@link toArrays}: 4, 6, 3 or 3 numbers, or none. */
export type RotationRepresentation = 'quaternion' | '6d' | 'rotation-vector' | 'euler' | 'none';

/** Width (numbers per joint) of each {@link RotationRepresentation}. */
export const ROTATION_WIDTH: Readonly<Record<RotationRepresentation, number>> = {
  quaternion: 4,
  '6d': 6,
  'rotation-vector': 3,
  euler: 3,
  none: 0,
};

/** Sign policy of quaternion output: as stored, `w >= 0`, or continuous along each joint's frames. */
export type QuaternionSign = 'keep' | 'w-positive' | 'continuous';

/** Options of {@link toArrays} (and, for the same fields, {@link fromArrays}). */
export interface ToArraysOptions {
  /** Rotation layout. Default `'quaternion'` (x, y, z, w). `'6d'` = first two matrix columns. */
  rotation?: RotationRepresentation;
  /** `'local'` (relative to the parent, as stored; default) or `'global'` (forward kinematics). */
  rotationSpace?: 'local' | 'global';
  /** Positions: `'global'` (forward kinematics; default), `'local'` (the clip's translations) or `'none'`. */
  positions?: 'global' | 'local' | 'none';
  /** Euler sequence for `rotation: 'euler'`: `'joint'` (each joint's own `clip.orders[j]`; default) or one order. */
  eulerOrder?: EulerOrder | 'joint';
  /** Quaternion sign for `rotation: 'quaternion'`. Default `'keep'`. */
  quaternionSign?: QuaternionSign;
  /** Element type of the arrays. Default `'float64'`; `'float32'` for most ML frameworks. */
  dtype?: 'float64' | 'float32';
  /**
   * Which two vectors of the rotation matrix make the 6D layout: `'columns'` (default; Zhou et al.,
   * `[m00, m10, m20, m01, m11, m21]`) or `'rows'` (PyTorch3D's `matrix_to_rotation_6d`,
   * `[m00, m01, m02, m10, m11, m12]`). Decoding one as the other gives the inverse rotation.
   */
  sixd?: SixDLayout;
}

/** The 6D layouts of {@link ToArraysOptions.sixd}: the first two matrix columns, or rows (PyTorch3D). */
export type SixDLayout = 'columns' | 'rows';

/** Component names of each {@link SixDLayout}, `m<row><column>`, in storage order. */
export const SIXD_COMPONENTS: Readonly<Record<SixDLayout, readonly string[]>> = {
  columns: ['m00', 'm10', 'm20', 'm01', 'm11', 'm21'],
  rows: ['m00', 'm01', 'm02', 'm10', 'm11', 'm12'],
};

/** Defaults of {@link ToArraysOptions}. */
export const TO_ARRAYS_DEFAULTS: Required<ToArraysOptions> = frozenDefaults({
  rotation: 'quaternion',
  rotationSpace: 'local',
  positions: 'global',
  eulerOrder: 'joint',
  quaternionSign: 'keep',
  dtype: 'float64',
  sixd: 'columns',
});

const TO_ARRAYS_SPEC: OptionSpec = {
  rotation: oneOf(['quaternion', '6d', 'rotation-vector', 'euler', 'none']),
  rotationSpace: oneOf(['local', 'global']),
  positions: oneOf(['global', 'local', 'none']),
  eulerOrder: anyOf(oneOf(['joint']), oneOf(EULER_ORDERS)),
  quaternionSign: oneOf(['keep', 'w-positive', 'continuous']),
  dtype: oneOf(['float64', 'float32']),
  sixd: oneOf(['columns', 'rows']),
};

/**
 * Dense feature arrays of a clip, row-major (C order) like a NumPy array of the given shape:
 * value `c` of joint `j` at frame `f` is at `(f * joints + j) * width + c`.
 */
export interface ClipArrays {
  frames: number;
  joints: number;
  /** Rotations, `frames x joints x width`; `null` for `rotation: 'none'`. */
  rotations: FloatArray | null;
  /** Shape of `rotations`: `[frames, joints, width]`. */
  rotationShape: [number, number, number];
  /** Positions, `frames x joints x 3`; `null` for `positions: 'none'`. */
  positions: FloatArray | null;
  /** Shape of `positions`: `[frames, joints, 3]`. */
  positionShape: [number, number, number];
  /** The options the arrays were made with, all filled in. */
  options: Required<ToArraysOptions>;
}

function resolve(options: ToArraysOptions, where: string): Required<ToArraysOptions> {
  const o = resolveOptions(where, options, TO_ARRAYS_DEFAULTS, TO_ARRAYS_SPEC);
  if (typeof o.rotation !== 'string' || !Object.hasOwn(ROTATION_WIDTH, o.rotation)) {
    throw new OptionError(
      `${where}: rotation must be one of ${Object.keys(ROTATION_WIDTH).join(', ')}, got '${o.rotation}'`,
    );
  }
  if (o.rotationSpace !== 'local' && o.rotationSpace !== 'global') {
    throw new OptionError(`${where}: rotationSpace must be 'local' or 'global', got '${o.rotationSpace}'`);
  }
  if (o.positions !== 'global' && o.positions !== 'local' && o.positions !== 'none') {
    throw new OptionError(`${where}: positions must be 'global', 'local' or 'none', got '${o.positions}'`);
  }
  if (o.eulerOrder !== 'joint' && !isEulerOrder(o.eulerOrder)) {
    throw new OptionError(
      `${where}: eulerOrder must be 'joint' or an Euler order such as 'ZYX', got '${o.eulerOrder}'`,
    );
  }
  if (o.quaternionSign !== 'keep' && o.quaternionSign !== 'w-positive' && o.quaternionSign !== 'continuous') {
    throw new OptionError(
      `${where}: quaternionSign must be 'keep', 'w-positive' or 'continuous', got '${o.quaternionSign}'`,
    );
  }
  if (o.sixd !== 'columns' && o.sixd !== 'rows') {
    throw new OptionError(`${where}: sixd must be 'columns' or 'rows', got '${o.sixd}'`);
  }
  if (o.dtype !== 'float64' && o.dtype !== 'float32') {
    throw new OptionError(`${where}: dtype must be 'float64' or 'float32', got '${o.dtype}'`);
  }
  return o;
}

function ordersOf(clip: Clip, o: Required<ToArraysOptions>, where: string): EulerOrder[] {
  const J = clip.skeleton.names.length;
  const orders: EulerOrder[] = [];
  for (let j = 0; j < J; j++) {
    const order = o.eulerOrder === 'joint' ? clip.orders?.[j] : o.eulerOrder;
    if (!isEulerOrder(order)) throw new ShapeError(`${where}: joint ${j} has no Euler order in clip.orders`);
    orders.push(order);
  }
  return orders;
}

/**
 * Dense arrays of a clip for machine learning: `frames x joints x {quaternion | 6D | rotation vector |
 * Euler}` rotations and `frames x joints x 3` positions, ready for `writeNpy` (from `rotsig/io`) or a tensor.
 *
 * Conventions: quaternions x, y, z, w; 6D = the first two columns of the rotation matrix
 * `[m00, m10, m20, m01, m11, m21]` (Zhou et al., CVPR 2019), or with `sixd: 'rows'` the first two rows
 * `[m00, m01, m02, m10, m11, m12]` as PyTorch3D's `matrix_to_rotation_6d` writes them; rotation vector = axis·angle in radians with
 * angle in [0, π]; Euler = radians in the sequence's axis order (each joint's own BVH order by default),
 * each triple in SciPy's principal range (no unrolling across frames: apply `unrollEuler` for that).
 * Local rotations are relative to the parent; global ones and global positions come from
 * {@link forwardKinematics}. Positions in the clip's units.
 *
 * @throws {ShapeError} when the clip is malformed.
 * @throws {OptionError} on an unknown option value.
 * @example
 * const a = toArrays(clip, { rotation: '6d', dtype: 'float32' });
 * const bytes = writeNpy(a.rotations!, a.rotationShape); // numpy.load -> (frames, joints, 6) float32
 */
export function toArrays(clip: Clip, options: ToArraysOptions = {}): ClipArrays {
  const o = resolve(options, 'toArrays');
  checkClip(clip, 'toArrays', { finite: true });
  const J = clip?.skeleton?.names?.length;
  if (J === undefined) throw new ShapeError('toArrays: clip must be a Clip with a skeleton');
  assertQuatSeries(clip.rotations, 'clip.rotations');
  assertVec3Series(clip.translations, 'clip.translations');
  if (
    clip.rotations.joints !== J ||
    clip.translations.joints !== J ||
    clip.translations.frames !== clip.rotations.frames
  ) {
    throw new ShapeError(
      `toArrays: skeleton has ${J} joints; rotations are ${clip.rotations.frames} x ${clip.rotations.joints}, translations ${clip.translations.frames} x ${clip.translations.joints}`,
    );
  }
  const frames = clip.rotations.frames;
  const width = ROTATION_WIDTH[o.rotation];
  const make = (n: number): FloatArray => (o.dtype === 'float32' ? new Float32Array(n) : new Float64Array(n));
  const needFk = o.positions === 'global' || (o.rotationSpace === 'global' && o.rotation !== 'none');
  const fk = needFk ? forwardKinematics(clip) : null;
  const source = o.rotationSpace === 'global' && fk !== null ? fk.rotations.data : clip.rotations.data;

  let rotations: FloatArray | null = null;
  if (width > 0) {
    rotations = make(frames * J * width);
    const orders = o.rotation === 'euler' ? ordersOf(clip, o, 'toArrays') : [];
    const q = new Float64Array(4);
    const rows = o.sixd === 'rows';
    for (let f = 0; f < frames; f++) {
      for (let j = 0; j < J; j++) {
        const i = f * J + j;
        const d = i * width;
        if (o.rotation === 'quaternion') {
          q[0] = source[i * 4];
          q[1] = source[i * 4 + 1];
          q[2] = source[i * 4 + 2];
          q[3] = source[i * 4 + 3];
          let flip = false;
          if (o.quaternionSign === 'w-positive') flip = q[3] < 0;
          else if (o.quaternionSign === 'continuous' && f > 0) {
            const p = d - J * 4;
            flip =
              q[0] * rotations[p] +
                q[1] * rotations[p + 1] +
                q[2] * rotations[p + 2] +
                q[3] * rotations[p + 3] <
              0;
          }
          const s = flip ? -1 : 1;
          for (let k = 0; k < 4; k++) rotations[d + k] = s * q[k];
        } else if (o.rotation === '6d') {
          if (rows) {
            // the rows of R are the columns of Rᵀ, the matrix of the conjugate
            q[0] = -source[i * 4];
            q[1] = -source[i * 4 + 1];
            q[2] = -source[i * 4 + 2];
            q[3] = source[i * 4 + 3];
            to6DFlat(rotations, d, q, 0);
          } else to6DFlat(rotations, d, source, i * 4);
        } else if (o.rotation === 'rotation-vector') {
          toRotationVectorFlat(rotations, d, source, i * 4);
        } else {
          toEulerFlat(rotations, d, source, i * 4, orders[j]);
        }
      }
    }
  }
  let positions: FloatArray | null = null;
  if (o.positions !== 'none') {
    const src = o.positions === 'global' && fk !== null ? fk.positions.data : clip.translations.data;
    positions = make(frames * J * 3);
    positions.set(src.subarray(0, frames * J * 3));
  }
  return {
    frames,
    joints: J,
    rotations,
    rotationShape: [frames, J, width],
    positions,
    positionShape: [frames, J, 3],
    options: { ...o },
  };
}

/** Arrays for {@link fromArrays}: same layouts as {@link ClipArrays}. */
export interface ArraysInput {
  /** `frames x joints x width` rotations in the representation of `options.rotation`. */
  rotations?: ArrayLike<number> | null;
  /** `frames x joints x 3` positions (global or local per `options.positions`). */
  positions?: ArrayLike<number> | null;
}

/**
 * Builds a {@link Clip} on `template`'s skeleton (names, hierarchy, offsets, channels, frame time) from
 * dense arrays, the inverse of {@link toArrays} with the same options: for example network output in 6D
 * and global positions back to a clip that `writeBvh` can save.
 *
 * Local rotations are recovered from global ones as `r_j = R_parentᶜ ⊗ R_j`, local translations from
 * global positions as `t_j = R_parent⁻¹ · (x_j − x_parent)`; without positions every joint keeps its
 * OFFSET (the root stays at its rest position). Rotations are normalised (6D by Gram-Schmidt). The frame
 * count comes from the array lengths.
 *
 * @throws {ShapeError} when an array length is not `frames x joints x width` or the two disagree.
 * @throws {InvalidValueError} on a zero, parallel (6D) or non-finite rotation.
 * @throws {OptionError} on an unknown option value or `rotation: 'none'` with no way to get rotations.
 * @example
 * const predicted6d = toArrays(clip, { rotation: '6d', positions: 'none' }).rotations; // e.g. a network's output
 * const clip2 = fromArrays(clip, { rotations: predicted6d }, { rotation: '6d', positions: 'none' });
 */
export function fromArrays(template: Clip, arrays: ArraysInput, options: ToArraysOptions = {}): Clip {
  const o = resolve(options, 'fromArrays');
  checkClip(template, 'fromArrays', {});
  const skeleton = template?.skeleton;
  if (
    skeleton?.names === undefined ||
    skeleton.parents === undefined ||
    skeleton.restTranslations === undefined
  ) {
    throw new ShapeError('fromArrays: template must be a Clip with a skeleton');
  }
  if (arrays === null || typeof arrays !== 'object')
    throw new ShapeError('fromArrays: arrays must be an object');
  const J = skeleton.names.length;
  const width = ROTATION_WIDTH[o.rotation];
  const rot = width > 0 ? arrays.rotations : null;
  const pos = o.positions !== 'none' ? arrays.positions : null;
  if (width > 0 && (rot === null || rot === undefined)) {
    throw new ShapeError(`fromArrays: rotation '${o.rotation}' needs arrays.rotations`);
  }
  if (width === 0)
    throw new OptionError("fromArrays: rotation 'none' gives no rotations to build a clip from");
  if (J === 0) throw new ShapeError('fromArrays: the template skeleton has no joints');
  const rotations = rot as ArrayLike<number>;
  if (rotations.length % (J * width) !== 0) {
    throw new ShapeError(
      `fromArrays: rotations has ${rotations.length} values, not a multiple of joints ${J} x ${width}`,
    );
  }
  const frames = rotations.length / (J * width);
  checkFiniteValues(rotations, 'fromArrays: rotations');
  if (pos !== null && pos !== undefined) checkFiniteValues(pos, 'fromArrays: positions');
  if (pos !== null && pos !== undefined && pos.length !== frames * J * 3) {
    throw new ShapeError(
      `fromArrays: positions has ${pos.length} values, expected frames ${frames} x joints ${J} x 3`,
    );
  }
  const orders = o.rotation === 'euler' ? ordersOf(template, o, 'fromArrays') : [];
  const parents = skeleton.parents;
  const local = new Float64Array(frames * J * 4);
  const global = new Float64Array(frames * J * 4);
  const translations = new Float64Array(frames * J * 3);
  const inv = new Float64Array(4);
  const diff = new Float64Array(3);
  const isGlobal = o.rotationSpace === 'global';
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const i = f * J + j;
      const target = isGlobal ? global : local;
      const s = i * width;
      if (o.rotation === 'quaternion') normalizeFlat(target, i * 4, rotations, s);
      else if (o.rotation === '6d') {
        from6DFlat(target, i * 4, rotations, s);
        if (o.sixd === 'rows') {
          target[i * 4] = -target[i * 4];
          target[i * 4 + 1] = -target[i * 4 + 1];
          target[i * 4 + 2] = -target[i * 4 + 2];
        }
      } else if (o.rotation === 'rotation-vector') fromRotationVectorFlat(target, i * 4, rotations, s);
      else {
        diff[0] = rotations[s];
        diff[1] = rotations[s + 1];
        diff[2] = rotations[s + 2];
        fromEulerFlat(target, i * 4, diff, 0, orders[j]);
      }
      const p = parents[j];
      const pq = (f * J + p) * 4;
      if (isGlobal) {
        if (p < 0) local.set(global.subarray(i * 4, i * 4 + 4), i * 4);
        else {
          conjugateRaw(inv, 0, global, pq);
          multiplyRaw(local, i * 4, inv, 0, global, i * 4);
        }
      } else if (p < 0) global.set(local.subarray(i * 4, i * 4 + 4), i * 4);
      else multiplyRaw(global, i * 4, global, pq, local, i * 4);
      const t = i * 3;
      if (pos === null || pos === undefined) {
        translations[t] = skeleton.restTranslations[j * 3];
        translations[t + 1] = skeleton.restTranslations[j * 3 + 1];
        translations[t + 2] = skeleton.restTranslations[j * 3 + 2];
      } else if (o.positions === 'local' || p < 0) {
        translations[t] = pos[t];
        translations[t + 1] = pos[t + 1];
        translations[t + 2] = pos[t + 2];
      } else {
        const pt = (f * J + p) * 3;
        diff[0] = pos[t] - pos[pt];
        diff[1] = pos[t + 1] - pos[pt + 1];
        diff[2] = pos[t + 2] - pos[pt + 2];
        conjugateRaw(inv, 0, global, pq);
        rotateVectorRaw(translations, t, inv, 0, diff, 0);
      }
    }
  }
  return {
    skeleton,
    frameTime: template.frameTime,
    rate: template.rate,
    frames,
    ...(template.startTime !== undefined ? { startTime: template.startTime } : {}),
    rotations: { data: local, frames, joints: J },
    translations: { data: translations, frames, joints: J },
    ...(template.scales !== undefined && template.scales.frames === frames
      ? { scales: template.scales }
      : {}),
    animated: template.animated.slice(),
    orders: template.orders.slice(),
    ...(template.source !== undefined ? { source: template.source } : {}),
  };
}

function checkFiniteValues(values: ArrayLike<number>, where: string): void {
  if (values === null || typeof values !== 'object' || typeof values.length !== 'number')
    throw new ShapeError(`${where} must be an array of numbers`);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'number' || !Number.isFinite(values[i]))
      throw new InvalidValueError(`${where}[${i}] is ${String(values[i])}, not a finite number`, {
        index: i,
      });
  }
}
