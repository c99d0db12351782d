import { ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_SERIES, resolveOptions } from '../../options.js';
import { multiplyRaw, rotateVectorRaw } from '../../quat/raw.js';
import type { Clip } from '../../series/clip.js';
import { assertFiniteSeries, assertQuatSeries, assertVec3Series } from '../../series/create.js';
import type { FloatArray, QuatSeries, Vec3Series } from '../../series/types.js';
import { assertParents } from './clip-check.js';

/** Global (world) rotations and positions of every joint at every frame. */
export interface ForwardKinematicsResult<T extends FloatArray = Float64Array> {
  /** Global rotation of each joint: the product of the local rotations from its root down to it. */
  rotations: QuatSeries<T>;
  /** Global position of each joint, in the clip's units. */
  positions: Vec3Series<T>;
}

/** Options of {@link forwardKinematics}. */
export interface ForwardKinematicsOptions {
  /** Series to write the global rotations into (`frames x joints`); default a new Float64 series. */
  rotations?: QuatSeries;
  /** Series to write the global positions into (`frames x joints`); default a new Float64 series. */
  positions?: Vec3Series;
}

/** Defaults of {@link ForwardKinematicsOptions} (frozen): both outputs are allocated. */
export const FORWARD_KINEMATICS_DEFAULTS: Readonly<ForwardKinematicsOptions> = frozenDefaults({});

const FORWARD_KINEMATICS_SPEC: OptionSpec = { rotations: OUT_SERIES, positions: OUT_SERIES };

function checkHierarchy(clip: Clip, where: string): void {
  if (
    clip === null ||
    typeof clip !== 'object' ||
    clip.skeleton === null ||
    typeof clip.skeleton !== 'object'
  ) {
    throw new ShapeError(`${where}: clip must be a Clip with a skeleton`);
  }
  const parents = clip.skeleton.parents;
  if (parents === null || typeof parents !== 'object' || typeof parents.length !== 'number')
    throw new ShapeError(`${where}: clip.skeleton.parents must be an array of joint indices`);
  const J = parents.length;
  assertQuatSeries(clip.rotations, 'clip.rotations');
  assertVec3Series(clip.translations, 'clip.translations');
  if (clip.rotations.joints !== J || clip.translations.joints !== J) {
    throw new ShapeError(
      `${where}: skeleton has ${J} joints but rotations have ${clip.rotations.joints} and translations ${clip.translations.joints}`,
    );
  }
  if (clip.rotations.frames !== clip.translations.frames) {
    throw new ShapeError(
      `${where}: rotations have ${clip.rotations.frames} frames but translations ${clip.translations.frames}`,
    );
  }
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (!(p === -1 || (Number.isInteger(p) && p >= 0 && p < j))) {
      throw new ShapeError(
        `${where}: joint ${j} has parent ${p}; parents must be -1 or come before their children`,
      );
    }
  }
}

/**
 * One frame of forward kinematics on flat arrays, no checks, no allocation: reads the local rotations
 * and translations of frame `frame` and writes global ones at `outRotations[rOff..]`, `outPositions[pOff..]`.
 */
function fkFrame(
  parents: Int32Array | ArrayLike<number>,
  local: FloatArray,
  translations: FloatArray,
  frame: number,
  outRotations: FloatArray,
  rOff: number,
  outPositions: FloatArray,
  pOff: number,
): void {
  const J = parents.length;
  const lq = frame * J * 4;
  const lt = frame * J * 3;
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    const q = rOff + j * 4;
    const t = pOff + j * 3;
    if (p < 0) {
      outRotations[q] = local[lq + j * 4];
      outRotations[q + 1] = local[lq + j * 4 + 1];
      outRotations[q + 2] = local[lq + j * 4 + 2];
      outRotations[q + 3] = local[lq + j * 4 + 3];
      outPositions[t] = translations[lt + j * 3];
      outPositions[t + 1] = translations[lt + j * 3 + 1];
      outPositions[t + 2] = translations[lt + j * 3 + 2];
    } else {
      // position first: it needs the parent's global rotation, which the child's product does not change
      rotateVectorRaw(outPositions, t, outRotations, rOff + p * 4, translations, lt + j * 3);
      outPositions[t] += outPositions[pOff + p * 3];
      outPositions[t + 1] += outPositions[pOff + p * 3 + 1];
      outPositions[t + 2] += outPositions[pOff + p * 3 + 2];
      multiplyRaw(outRotations, q, outRotations, rOff + p * 4, local, lq + j * 4);
    }
  }
}

/**
 * Whether the clip has scales to apply at all: a scale series, or a rest scale other than 1. O(joints).
 * When it does, {@link unitFrame} decides frame by frame.
 */
function hasScales(clip: Clip): boolean {
  if (clip.scales !== undefined) return true;
  const rest = clip.skeleton.restScales;
  if (rest !== undefined) for (let i = 0; i < rest.length; i++) if (rest[i] !== 1) return true;
  return false;
}

/**
 * Whether every scale frame `f` uses is 1: the scale series' frame when there is one (it takes the place
 * of the rest scales), else the rest scales. O(joints): a frame with unit scales is composed without
 * matrices, by {@link forwardKinematics} and {@link forwardKinematicsFrame} alike, so the two agree bit
 * for bit.
 */
function unitFrame(clip: Clip, f: number, J: number): boolean {
  const scales = clip.scales?.data;
  const values = scales ?? clip.skeleton.restScales;
  if (values === undefined) return true;
  const o = scales !== undefined ? f * J * 3 : 0;
  for (let i = 0; i < J * 3; i++) if (values[o + i] !== 1) return false;
  return true;
}

/**
 * One frame of forward kinematics with scales, on world 3x3 matrices: `A_j = A_p · R(r_j) · diag(s_j)`,
 * `x_j = x_p + A_p · t_j` (glTF nodes and three.js `Object3D` compose `T · R · S`). Global rotations
 * stay the product of the local rotations. `linear` is scratch of `joints x 9`.
 */
function fkFrameScaled(
  parents: Int32Array | ArrayLike<number>,
  local: FloatArray,
  translations: FloatArray,
  scales: FloatArray | undefined,
  restScales: FloatArray,
  frame: number,
  outRotations: FloatArray,
  rOff: number,
  outPositions: FloatArray,
  pOff: number,
  linear: Float64Array,
): void {
  const J = parents.length;
  const lq = frame * J * 4;
  const lt = frame * J * 3;
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    const q = lq + j * 4;
    const x = local[q];
    const y = local[q + 1];
    const z = local[q + 2];
    const w = local[q + 3];
    const sb = scales === undefined ? restScales : scales;
    const so = scales === undefined ? j * 3 : lt + j * 3;
    const sx = sb[so];
    const sy = sb[so + 1];
    const sz = sb[so + 2];
    // R(q) · diag(s), column-major: column k is R's column k times s_k (q as given, unnormalised like the fast path's products)
    const m0 = (1 - 2 * (y * y + z * z)) * sx;
    const m1 = 2 * (x * y + z * w) * sx;
    const m2 = 2 * (x * z - y * w) * sx;
    const m3 = 2 * (x * y - z * w) * sy;
    const m4 = (1 - 2 * (x * x + z * z)) * sy;
    const m5 = 2 * (y * z + x * w) * sy;
    const m6 = 2 * (x * z + y * w) * sz;
    const m7 = 2 * (y * z - x * w) * sz;
    const m8 = (1 - 2 * (x * x + y * y)) * sz;
    const a = j * 9;
    const t = pOff + j * 3;
    const tx = translations[lt + j * 3];
    const ty = translations[lt + j * 3 + 1];
    const tz = translations[lt + j * 3 + 2];
    const r = rOff + j * 4;
    if (p < 0) {
      linear[a] = m0;
      linear[a + 1] = m1;
      linear[a + 2] = m2;
      linear[a + 3] = m3;
      linear[a + 4] = m4;
      linear[a + 5] = m5;
      linear[a + 6] = m6;
      linear[a + 7] = m7;
      linear[a + 8] = m8;
      outPositions[t] = tx;
      outPositions[t + 1] = ty;
      outPositions[t + 2] = tz;
      outRotations[r] = x;
      outRotations[r + 1] = y;
      outRotations[r + 2] = z;
      outRotations[r + 3] = w;
    } else {
      const b = p * 9;
      const pp = pOff + p * 3;
      outPositions[t] = outPositions[pp] + linear[b] * tx + linear[b + 3] * ty + linear[b + 6] * tz;
      outPositions[t + 1] =
        outPositions[pp + 1] + linear[b + 1] * tx + linear[b + 4] * ty + linear[b + 7] * tz;
      outPositions[t + 2] =
        outPositions[pp + 2] + linear[b + 2] * tx + linear[b + 5] * ty + linear[b + 8] * tz;
      for (let c = 0; c < 3; c++) {
        const c0 = c === 0 ? m0 : c === 1 ? m3 : m6;
        const c1 = c === 0 ? m1 : c === 1 ? m4 : m7;
        const c2 = c === 0 ? m2 : c === 1 ? m5 : m8;
        linear[a + c * 3] = linear[b] * c0 + linear[b + 3] * c1 + linear[b + 6] * c2;
        linear[a + c * 3 + 1] = linear[b + 1] * c0 + linear[b + 4] * c1 + linear[b + 7] * c2;
        linear[a + c * 3 + 2] = linear[b + 2] * c0 + linear[b + 5] * c1 + linear[b + 8] * c2;
      }
      multiplyRaw(outRotations, r, outRotations, rOff + p * 4, local, q);
    }
  }
}

/**
 * Global rotations and positions of every joint of a clip at every frame (forward kinematics).
 *
 * Conventions: for a joint `j` with parent `p`, `R_j = R_p ⊗ r_j` and `x_j = x_p + R_p · t_j`, where `r_j`
 * and `t_j` are its local rotation and translation (`clip.rotations`, `clip.translations`; for a parsed BVH
 * the translation is the OFFSET with position channels already applied); a root's global values are its
 * local ones. Quaternions x, y, z, w, Hamilton product, active rotations; positions in the clip's units.
 * Local quaternions are used as given (a non-unit quaternion scales the subtree's offsets).
 * Scales: when the clip has a `scales` series or a rest scale other than 1, each joint's local transform
 * is `T · R · S` as in glTF and three.js, positions come from world matrices `A_j = A_p · R_j · S_j`,
 * `x_j = x_p + A_p · t_j` (exact for any scales, non-uniform ones included), and the global rotation is
 * still the product of the local rotations (the rotation part of the world matrix when scales are
 * uniform and positive). When every scale is 1 the quaternion-only path runs.
 * Float32 input is computed in float64; outputs are Float64 unless given in `options`.
 * Method: the standard recursive composition of the BVH hierarchy (Meredith & Maddock 2001).
 *
 * @param options - Defaults in {@link FORWARD_KINEMATICS_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when the skeleton, the series or the output series do not fit together.
 * @example
 * const clip = parseBvh(text);
 * const { positions } = forwardKinematics(clip);
 * const J = clip.skeleton.names.length;
 * const [f, j] = [10, clip.skeleton.names.indexOf('Head')];
 * const head = positions.data.subarray((f * J + j) * 3, (f * J + j) * 3 + 3);
 */
export function forwardKinematics(
  clip: Clip,
  options: ForwardKinematicsOptions = {},
): ForwardKinematicsResult<FloatArray> {
  checkHierarchy(clip, 'forwardKinematics');
  options = resolveOptions(
    'forwardKinematics',
    options,
    FORWARD_KINEMATICS_DEFAULTS,
    FORWARD_KINEMATICS_SPEC,
  );
  const J = clip.skeleton.parents.length;
  const frames = clip.rotations.frames;
  assertFiniteSeries(clip.rotations.data, J, 4, 'forwardKinematics: clip.rotations');
  assertFiniteSeries(clip.translations.data, J, 3, 'forwardKinematics: clip.translations');
  const rotations = options.rotations ?? { data: new Float64Array(frames * J * 4), frames, joints: J };
  const positions = options.positions ?? { data: new Float64Array(frames * J * 3), frames, joints: J };
  assertQuatSeries(rotations, 'options.rotations');
  assertVec3Series(positions, 'options.positions');
  if (
    rotations.frames !== frames ||
    rotations.joints !== J ||
    positions.frames !== frames ||
    positions.joints !== J
  ) {
    throw new ShapeError(`forwardKinematics: output series must be ${frames} frames x ${J} joints`);
  }
  const parents = clip.skeleton.parents;
  const local = clip.rotations.data;
  const trans = clip.translations.data;
  const scaled = hasScales(clip);
  if (scaled) checkScales(clip, 'forwardKinematics');
  const linear = new Float64Array(scaled ? J * 9 : 0);
  const scales = clip.scales?.data;
  for (let f = 0; f < frames; f++) {
    if (scaled && !unitFrame(clip, f, J)) {
      fkFrameScaled(
        parents,
        local,
        trans,
        scales,
        clip.skeleton.restScales,
        f,
        rotations.data,
        f * J * 4,
        positions.data,
        f * J * 3,
        linear,
      );
    } else fkFrame(parents, local, trans, f, rotations.data, f * J * 4, positions.data, f * J * 3);
  }
  // finite inputs can still overflow: non-unit rotations scale offsets, offsets near 1.8e308 add up
  assertFiniteSeries(rotations.data, J, 4, 'forwardKinematics: global rotations (overflow)');
  assertFiniteSeries(positions.data, J, 3, 'forwardKinematics: global positions (overflow)');
  return { rotations, positions };
}

/**
 * Forward kinematics of one frame into caller buffers (`joints x 4` rotations and `joints x 3` positions),
 * allocating nothing: for playback, the studio and per-frame losses. Same conventions as
 * {@link forwardKinematics}.
 *
 * @throws {ShapeError} when the buffers are too short, the frame is out of range or the clip is malformed.
 * @example
 * const J = clip.skeleton.names.length;
 * const rot = new Float64Array(J * 4);
 * const pos = new Float64Array(J * 3);
 * const rootPath: number[] = [];
 * for (let f = 0; f < clip.frames; f++) { forwardKinematicsFrame(clip, f, rot, pos); rootPath.push(pos[0], pos[1], pos[2]); }
 */
export function forwardKinematicsFrame(
  clip: Clip,
  frame: number,
  outRotations: FloatArray,
  outPositions: FloatArray,
): void {
  const parents = clip?.skeleton?.parents;
  if (parents === undefined)
    throw new ShapeError('forwardKinematicsFrame: clip must be a Clip with a skeleton');
  const J = parents.length;
  const frames = clip.rotations?.frames;
  if (clip.rotations?.data === undefined || clip.translations?.data === undefined) {
    throw new ShapeError('forwardKinematicsFrame: clip must have rotations and translations series');
  }
  if (!Number.isInteger(frame) || frame < 0 || frame >= frames) {
    throw new ShapeError(`forwardKinematicsFrame: frame ${frame} is outside 0..${frames - 1}`);
  }
  if (
    !(ArrayBuffer.isView(outRotations) || Array.isArray(outRotations)) ||
    !(ArrayBuffer.isView(outPositions) || Array.isArray(outPositions))
  ) {
    throw new ShapeError('forwardKinematicsFrame: outRotations and outPositions must be number arrays');
  }
  if (!((outRotations?.length ?? 0) >= J * 4) || !((outPositions?.length ?? 0) >= J * 3)) {
    throw new ShapeError(
      `forwardKinematicsFrame: buffers hold ${outRotations?.length} and ${outPositions?.length} values, need ${J * 4} and ${J * 3}`,
    );
  }
  // the full shape check is O(joints) with no allocation; cheap next to the frame itself
  if (
    clip.rotations.joints !== J ||
    clip.translations.joints !== J ||
    clip.rotations.data.length !== frames * J * 4 ||
    clip.translations.data.length < frames * J * 3
  ) {
    checkHierarchy(clip, 'forwardKinematicsFrame');
  }
  // O(joints), no allocation: the studio calls this for every displayed frame
  assertParents(parents, J, 'forwardKinematicsFrame: skeleton');
  const scaled = hasScales(clip);
  if (scaled) checkScales(clip, 'forwardKinematicsFrame');
  if (scaled && !unitFrame(clip, frame, J)) {
    // the scratch of world matrices is the module's, grown to the largest skeleton seen: no allocation
    if (frameLinear.length < J * 9) frameLinear = new Float64Array(J * 9);
    const linear = frameLinear;
    fkFrameScaled(
      parents,
      clip.rotations.data,
      clip.translations.data,
      clip.scales?.data,
      clip.skeleton.restScales,
      frame,
      outRotations,
      0,
      outPositions,
      0,
      linear,
    );
    return;
  }
  fkFrame(parents, clip.rotations.data, clip.translations.data, frame, outRotations, 0, outPositions, 0);
}

/** {@link forwardKinematicsFrame}'s world matrices of a scaled frame (joints x 9), reused. */
let frameLinear = new Float64Array(0);

function checkScales(clip: Clip, where: string): void {
  const J = clip.skeleton.parents.length;
  if (clip.skeleton.restScales === undefined || clip.skeleton.restScales.length !== J * 3)
    throw new ShapeError(`${where}: skeleton.restScales must hold joints x 3 = ${J * 3} values`);
  if (clip.scales !== undefined) {
    assertVec3Series(clip.scales, 'clip.scales');
    if (clip.scales.joints !== J || clip.scales.frames !== clip.rotations.frames)
      throw new ShapeError(`${where}: clip.scales must be ${clip.rotations.frames} frames x ${J} joints`);
  }
}
