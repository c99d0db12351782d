/**
 * Optimal down-sampling: the key rotations at a lower rate that reconstruct the source best under the
 * up-sampler playback will use.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { choleskyBanded, solveCholeskyBanded } from '../../numeric/banded.js';
import { rationalRatio } from '../../numeric/rational.js';
import { multiplyRaw, rotateVectorRaw } from '../../quat/raw.js';
import type { Clip } from '../../series/clip.js';
import { assertFiniteSeries, assertQuatSeries, assertVec3Series } from '../../series/create.js';
import type { QuatSeries, Vec3Series } from '../../series/types.js';
import { forwardKinematics } from '../skeleton/forward-kinematics.js';
import {
  measurePlayback,
  type PlaybackError,
  type PlaybackKernel,
  type PlaybackTaps,
  playback,
  playbackNormalEquations,
  playbackTaps,
} from './downsample-playback.js';
import { checkRate } from './resample-plan.js';

export type { PlaybackError, PlaybackKernel } from './downsample-playback.js';

import {
  customRule,
  frozenDefaults,
  integerIn,
  NON_NEGATIVE_NUMBER,
  OBJECT_OPTION,
  type OptionSpec,
  OUT_SERIES,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { unrollQuaternions } from '../unroll/unroll-quaternions.js';

/** Forward-kinematics term of {@link downsampleOptimal}. */
export interface DownsampleFkOptions {
  /** Parent index per joint, `-1` for roots, parents before children. */
  parents: ArrayLike<number>;
  /** Local offset of each joint from its parent, `joints x 3`, in the clip's units. */
  offsets: ArrayLike<number>;
  /**
   * Weight of the position term, per squared clip unit, against the rotation term (squared quaternion
   * distance). With positions in centimetres, 1e-3 weighs a 1 cm error like a 0.06 rad rotation error.
   */
  weight: number;
  /** Local translations at the source rate (`frames x joints`), when they vary (6-channel joints). Default: `offsets`. */
  translations?: Vec3Series;
}

/** Options of {@link downsampleOptimal}. */
export interface DownsampleOptimalOptions {
  /** Source rate in Hz. */
  sourceRate: number;
  /** Key rate in Hz (below the source rate or equal). */
  targetRate: number;
  /** The up-sampler playback uses. Default `'linear'`. */
  playback?: PlaybackKernel;
  /** Gauss-Newton steps after the linear least-squares start (sweeps over the joints with `fk`). Default 3. */
  iterations?: number;
  /** Adds the squared error of global joint positions to the objective (the FK-aware variant). */
  fk?: DownsampleFkOptions;
}

/** Defaults of {@link DownsampleOptimalOptions} (frozen; `sourceRate`, `targetRate` and `fk` have none). */
export const DOWNSAMPLE_OPTIMAL_DEFAULTS = frozenDefaults({
  playback: 'linear' as PlaybackKernel,
  iterations: 3,
});

const PLAYBACK_RULE = oneOf(['linear', 'catmull-rom']);

const DOWNSAMPLE_OPTIMAL_SPEC: OptionSpec = {
  sourceRate: POSITIVE_NUMBER,
  targetRate: POSITIVE_NUMBER,
  playback: PLAYBACK_RULE,
  iterations: integerIn(0),
  fk: OBJECT_OPTION,
};

const ARRAY_LIKE = customRule(
  'an array of numbers',
  (v) => v !== null && typeof v === 'object' && typeof (v as ArrayLike<number>).length === 'number',
);

/** The rules of {@link DownsampleFkOptions} (`parents`, `offsets` and `weight` are required, checked with the series). */
const DOWNSAMPLE_FK_SPEC: OptionSpec = {
  parents: ARRAY_LIKE,
  offsets: ARRAY_LIKE,
  weight: NON_NEGATIVE_NUMBER,
  translations: OUT_SERIES,
};

/** Result of {@link downsampleOptimal}. */
export interface DownsampleOptimalResult {
  /** The keys, `frames x joints` unit quaternions, hemisphere-continuous, at `i / rate` seconds. */
  keys: QuatSeries<Float64Array>;
  /** Key rate in Hz (the target rate). */
  rate: number;
  /** Key times in seconds. */
  times: Float64Array;
  /** Error of plain decimation (source frame nearest each key time) played back the same way. */
  before: PlaybackError;
  /** Error after the linear least-squares solve and normalisation. */
  leastSquares: PlaybackError;
  /** Error of the returned keys. */
  after: PlaybackError;
  /** Gauss-Newton steps accepted (each lowered the objective). */
  steps: number;
}

interface FkState {
  parents: Int32Array;
  weight: number;
  /** local translations, frames x joints x 3 (or joints x 3 when constant) */
  trans: Float64Array;
  transStride: number;
  target: Float64Array;
  /** global rotations and positions of the played-back rotations */
  rot: Float64Array;
  pos: Float64Array;
  children: number[][];
  order: number[];
}

function fkInto(st: FkState, local: Float64Array, joints: number, frames: number): void {
  const { parents, trans, transStride, rot, pos } = st;
  for (let f = 0; f < frames; f++) {
    const rb = f * joints * 4;
    const pb = f * joints * 3;
    const tb = f * transStride;
    for (let j = 0; j < joints; j++) {
      const p = parents[j];
      if (p < 0) {
        for (let c = 0; c < 4; c++) rot[rb + j * 4 + c] = local[rb + j * 4 + c];
        for (let c = 0; c < 3; c++) pos[pb + j * 3 + c] = trans[tb + j * 3 + c];
      } else {
        rotateVectorRaw(pos, pb + j * 3, rot, rb + p * 4, trans, tb + j * 3);
        for (let c = 0; c < 3; c++) pos[pb + j * 3 + c] += pos[pb + p * 3 + c];
        multiplyRaw(rot, rb + j * 4, rot, rb + p * 4, local, rb + j * 4);
      }
    }
  }
}

/** Recomputes global rotations/positions of joint a's subtree at every frame (parents already current). */
function fkSubtree(
  st: FkState,
  local: Float64Array,
  joints: number,
  frames: number,
  a: number,
  subtree: number[],
): void {
  const { parents, trans, transStride, rot, pos } = st;
  for (let f = 0; f < frames; f++) {
    const rb = f * joints * 4;
    const pb = f * joints * 3;
    const tb = f * transStride;
    for (const j of subtree) {
      const p = parents[j];
      if (p < 0) {
        for (let c = 0; c < 4; c++) rot[rb + j * 4 + c] = local[rb + j * 4 + c];
        for (let c = 0; c < 3; c++) pos[pb + j * 3 + c] = trans[tb + j * 3 + c];
      } else {
        if (j !== a) {
          rotateVectorRaw(pos, pb + j * 3, rot, rb + p * 4, trans, tb + j * 3);
          for (let c = 0; c < 3; c++) pos[pb + j * 3 + c] += pos[pb + p * 3 + c];
        }
        multiplyRaw(rot, rb + j * 4, rot, rb + p * 4, local, rb + j * 4);
      }
    }
  }
}

/** Tangent basis of the unit sphere at k: columns k ⊗ i, k ⊗ j, k ⊗ k (orthonormal, orthogonal to k). */
function tangent(k: Float64Array, o: number, T: Float64Array): void {
  const x = k[o];
  const y = k[o + 1];
  const z = k[o + 2];
  const w = k[o + 3];
  // column-major 4x3: T[c*4 + r]
  T[0] = w;
  T[1] = z;
  T[2] = -y;
  T[3] = -x;
  T[4] = -z;
  T[5] = w;
  T[6] = x;
  T[7] = -y;
  T[8] = y;
  T[9] = -x;
  T[10] = w;
  T[11] = -z;
}

/**
 * Computes down-sampled key rotations that minimise the reconstruction error of the source under a
 * known playback up-sampler.
 *
 * Playback: source frame i (time `i / sourceRate`) is reconstructed from the keys (times `j / targetRate`,
 * the last key on or after the source's end) as `normalize(Σⱼ B(x − j)·kⱼ)` in raw quaternion space, with
 * `x = i · targetRate / sourceRate` and B the tent (`'linear'`, i.e. nlerp between keys) or Catmull-Rom
 * kernel (`kernels.tent` / `kernels.catmullRom`), key indices clamped at the ends, and each key's sign
 * aligned to the nearest key (shortest arc, as the rotation-blend engine's raw blend does). The objective
 * is `Σᵢ ‖played(i) − qᵢ‖²` over frames and joints, against the nearer of ±qᵢ.
 *
 * Method: without the normalisation the played-back signal is linear in the keys, so the keys first come
 * from the banded least-squares problem `(BᵀB)·K = Bᵀ·Q` (tridiagonal for linear, 7-diagonal for
 * Catmull-Rom; one Cholesky factorisation shared by all joints and components), then are normalised, then
 * refined by Gauss-Newton steps on the normalised objective with the keys kept on the unit sphere
 * (updates `k ← normalize(k + T·δ)` in the tangent basis T; banded 3x3-block normal equations per joint,
 * Levenberg damping, a step is kept only if it lowers that joint's objective). With `fk`, the objective
 * adds `weight · Σ ‖p_m(played) − p_m(source)‖²` over all joints' global positions, and the Gauss-Newton
 * steps run joint by joint from the roots down (block Gauss-Seidel), each joint's system including the
 * position errors of its subtree (Jacobian `−[p_m − p_a]× · R_parent · ω(δ)`).
 *
 * Errors before (plain decimation: the source frame nearest each key time), after the least-squares
 * start and at the end are reported; the returned keys never do worse than the least-squares start.
 *
 * Edge cases: fewer than 2 source frames return the source as keys; `targetRate ≥ sourceRate` is
 * rejected (nothing to optimise). Source rotations need not be unit or unrolled (they are normalised and
 * made hemisphere-continuous for the objective).
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025), optimal down-sampling for a known
 * up-sampler and its FK loss, after Wronski's optimal down-sampling for bilinear up-sampling (2021);
 * here solved directly as least squares plus Gauss-Newton instead of by gradient descent.
 *
 * @param options - Defaults in {@link DOWNSAMPLE_OPTIMAL_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} on a malformed series or FK arrays that do not fit. @throws {OptionError} on bad
 * options. @throws {InvalidValueError} on non-finite or zero source rotations.
 * @example
 * const { keys, before, after } = downsampleOptimal(clip.rotations, { sourceRate: 120, targetRate: 30 });
 * // after.meanAngle < before.meanAngle
 */
export function downsampleOptimal(
  series: QuatSeries,
  options: DownsampleOptimalOptions,
): DownsampleOptimalResult {
  const where = 'downsampleOptimal';
  assertQuatSeries(series, `${where}: series`);
  if (options === null || typeof options !== 'object')
    throw new OptionError(`${where}: options are required`);
  const o = resolveOptions(where, options, DOWNSAMPLE_OPTIMAL_DEFAULTS, DOWNSAMPLE_OPTIMAL_SPEC);
  if (o.fk !== undefined) resolveOptions(`${where}: fk`, o.fk, {}, DOWNSAMPLE_FK_SPEC);
  const { sourceRate, targetRate, playback: playbackName, iterations } = o;
  checkRate(sourceRate, 'sourceRate', where);
  checkRate(targetRate, 'targetRate', where);
  if (targetRate >= sourceRate) {
    throw new OptionError(
      `${where}: targetRate (${targetRate} Hz) must be below sourceRate (${sourceRate} Hz)`,
    );
  }
  assertFiniteSeries(series.data, series.joints, 4, `${where}: series`);
  const { frames, joints } = series;

  // source: normalised and hemisphere-continuous
  const src = new Float64Array(series.data.length);
  for (let n = 0; n < frames * joints; n++) {
    const o = n * 4;
    const l = Math.hypot(series.data[o], series.data[o + 1], series.data[o + 2], series.data[o + 3]);
    if (!(l > 0)) {
      throw new InvalidValueError(
        `${where}: zero quaternion at frame ${Math.floor(n / joints)}, joint ${n % joints}`,
        {
          frame: Math.floor(n / joints),
          joint: n % joints,
        },
      );
    }
    for (let c = 0; c < 4; c++) src[o + c] = series.data[o + c] / l;
  }
  unrollQuaternions({ data: src, frames, joints });

  const taps = playbackTaps(frames, sourceRate, targetRate, playbackName);
  const K = taps.keys;
  const times = new Float64Array(K);
  for (let j = 0; j < K; j++) times[j] = j / targetRate;

  const fk = o.fk ? prepareFk(o.fk, series, src, where) : null;

  // plain decimation: the source frame nearest each key time
  const keys = new Float64Array(K * joints * 4);
  const pq = rationalRatio(sourceRate, targetRate);
  for (let j = 0; j < K; j++) {
    const u = pq ? (j * pq[0]) / pq[1] : (j * sourceRate) / targetRate;
    const f = Math.min(frames - 1, Math.max(0, Math.round(u)));
    keys.set(src.subarray(f * joints * 4, (f + 1) * joints * 4), j * joints * 4);
  }
  const played = new Float64Array(frames * joints * 4);
  const norms = new Float64Array(frames * joints);
  const evaluate = (): PlaybackError => {
    playback(taps, keys, joints, played, norms);
    if (fk) fkInto(fk, played, joints, frames);
    return measurePlayback(played, src, frames * joints, fk?.pos, fk?.target);
  };
  const before = evaluate();
  if (frames < 2) {
    return {
      keys: { data: keys, frames: K, joints },
      rate: targetRate,
      times,
      before,
      leastSquares: before,
      after: before,
      steps: 0,
    };
  }

  // linear least squares (BᵀB) K = Bᵀ Q, shared matrix for every joint and component
  const { ab, rhs, b } = playbackNormalEquations(taps, frames, K, src, joints * 4);
  // a tiny ridge keeps keys that no frame reaches (or barely reaches) defined: they tend to the decimated key
  let maxDiag = 0;
  for (let k = 0; k < K; k++) maxDiag = Math.max(maxDiag, ab[k * (b + 1) + b]);
  const ridge = 1e-9 * maxDiag;
  for (let k = 0; k < K; k++) {
    ab[k * (b + 1) + b] += ridge;
    for (let c = 0; c < joints * 4; c++) rhs[k * joints * 4 + c] += ridge * keys[k * joints * 4 + c];
  }
  choleskyBanded(ab, K, b);
  solveCholeskyBanded(ab, K, b, rhs, joints * 4);
  // normalise; keep the decimated key where the solve degenerates
  for (let n = 0; n < K * joints; n++) {
    const o = n * 4;
    const l = Math.hypot(rhs[o], rhs[o + 1], rhs[o + 2], rhs[o + 3]);
    if (l > 1e-9) for (let c = 0; c < 4; c++) keys[o + c] = rhs[o + c] / l;
  }
  const leastSquares = evaluate();

  let steps = 0;
  if (iterations > 0) {
    steps = fk
      ? gaussNewtonFk(taps, keys, src, joints, iterations, fk, played, norms)
      : gaussNewton(taps, keys, src, joints, iterations, played, norms);
  }
  // hemisphere-continuous keys; playback aligns signs to the nearest key, so no rotation changes
  unrollQuaternions({ data: keys, frames: K, joints });
  const after = evaluate();
  return {
    keys: { data: keys, frames: K, joints },
    rate: targetRate,
    times,
    before,
    leastSquares,
    after,
    steps,
  };
}

function prepareFk(o: DownsampleFkOptions, series: QuatSeries, src: Float64Array, where: string): FkState {
  const { frames, joints } = series;
  if (o === null || typeof o !== 'object')
    throw new OptionError(`${where}: fk must be { parents, offsets, weight }`);
  if (!(typeof o.weight === 'number' && o.weight >= 0 && Number.isFinite(o.weight))) {
    throw new OptionError(
      `${where}: fk.weight must be a non-negative finite number, got ${String(o.weight)}`,
    );
  }
  if (!o.parents || o.parents.length !== joints) {
    throw new ShapeError(
      `${where}: fk.parents has ${o.parents?.length} entries, the series has ${joints} joints`,
    );
  }
  if (!o.offsets || o.offsets.length !== joints * 3) {
    throw new ShapeError(
      `${where}: fk.offsets has ${o.offsets?.length} values, expected joints x 3 = ${joints * 3}`,
    );
  }
  const parents = Int32Array.from(o.parents);
  for (let j = 0; j < joints; j++) {
    if (!(parents[j] < j) || parents[j] < -1) {
      throw new ShapeError(
        `${where}: fk.parents[${j}] = ${parents[j]}; parents must come before children (-1 for roots)`,
      );
    }
  }
  let trans: Float64Array;
  let transStride: number;
  if (o.translations) {
    assertVec3Series(o.translations, `${where}: fk.translations`);
    if (o.translations.frames !== frames || o.translations.joints !== joints) {
      throw new ShapeError(`${where}: fk.translations must be ${frames} x ${joints}`);
    }
    trans = Float64Array.from(o.translations.data);
    transStride = joints * 3;
  } else {
    trans = Float64Array.from(o.offsets);
    transStride = 0;
  }
  for (let i = 0; i < trans.length; i++) {
    if (!Number.isFinite(trans[i]))
      throw new InvalidValueError(`${where}: fk offsets/translations hold a non-finite value`);
  }
  // target positions through the shared forward kinematics
  const translations: Vec3Series<Float64Array> = {
    data: new Float64Array(frames * joints * 3),
    frames,
    joints,
  };
  for (let f = 0; f < frames; f++) {
    translations.data.set(
      transStride ? trans.subarray(f * transStride, (f + 1) * transStride) : trans,
      f * joints * 3,
    );
  }
  const restRotations = new Float64Array(joints * 4);
  for (let j = 0; j < joints; j++) restRotations[j * 4 + 3] = 1;
  const clipLike: Clip = {
    skeleton: {
      names: [],
      parents,
      restTranslations: Float64Array.from(o.offsets),
      restRotations,
      restScales: new Float64Array(joints * 3).fill(1),
    },
    frameTime: 1,
    rate: 1,
    frames,
    rotations: { data: src, frames, joints },
    translations,
    animated: new Uint8Array(joints),
    orders: [],
  };
  const target = forwardKinematics(clipLike).positions.data as Float64Array;
  const children: number[][] = Array.from({ length: joints }, () => []);
  for (let j = 0; j < joints; j++) if (parents[j] >= 0) children[parents[j]].push(j);
  const order: number[] = [];
  for (let j = 0; j < joints; j++) order.push(j); // parents before children already
  return {
    parents,
    weight: o.weight,
    trans,
    transStride,
    target,
    rot: new Float64Array(frames * joints * 4),
    pos: new Float64Array(frames * joints * 3),
    children,
    order,
  };
}

/** Rotation objective of one joint: Σᵢ ‖played − q‖². */
function jointRotationObjective(
  played: Float64Array,
  src: Float64Array,
  frames: number,
  joints: number,
  a: number,
): number {
  let e = 0;
  for (let i = 0; i < frames; i++) {
    const o = (i * joints + a) * 4;
    const sg =
      played[o] * src[o] +
        played[o + 1] * src[o + 1] +
        played[o + 2] * src[o + 2] +
        played[o + 3] * src[o + 3] <
      0
        ? -1
        : 1;
    const dx = played[o] - sg * src[o];
    const dy = played[o + 1] - sg * src[o + 1];
    const dz = played[o + 2] - sg * src[o + 2];
    const dw = played[o + 3] - sg * src[o + 3];
    e += dx * dx + dy * dy + dz * dz + dw * dw;
  }
  return e;
}

/** Plays back one joint into `played`/`norms`. */
function playJoint(
  taps: PlaybackTaps,
  keys: Float64Array,
  joints: number,
  a: number,
  played: Float64Array,
  norms: Float64Array,
): void {
  const { frames, width, index, weight, count, reference } = taps;
  for (let i = 0; i < frames; i++) {
    const base = i * width;
    const ro = (index[base + reference[i]] * joints + a) * 4;
    let x = 0;
    let y = 0;
    let z = 0;
    let w = 0;
    for (let t = 0; t < count[i]; t++) {
      const o = (index[base + t] * joints + a) * 4;
      const d =
        keys[ro] * keys[o] +
        keys[ro + 1] * keys[o + 1] +
        keys[ro + 2] * keys[o + 2] +
        keys[ro + 3] * keys[o + 3];
      const wt = d < 0 ? -weight[base + t] : weight[base + t];
      x += wt * keys[o];
      y += wt * keys[o + 1];
      z += wt * keys[o + 2];
      w += wt * keys[o + 3];
    }
    const n = Math.sqrt(x * x + y * y + z * z + w * w);
    const o = (i * joints + a) * 4;
    if (!(n > 1e-12)) {
      // a degenerate trial step: make the objective infinite so the step is rejected
      played[o] = played[o + 1] = played[o + 2] = played[o + 3] = Number.POSITIVE_INFINITY;
      norms[i * joints + a] = 0;
      continue;
    }
    played[o] = x / n;
    played[o + 1] = y / n;
    played[o + 2] = z / n;
    played[o + 3] = w / n;
    norms[i * joints + a] = n;
  }
}

/** Scratch of {@link buildJointSystem}, allocated once per solve. */
interface SystemScratch {
  /** per tap: 4x3 column-major Jacobian of the played-back quaternion */
  M: Float64Array;
  /** per tap: 3x3 row-major map to the world angular perturbation (FK) */
  D: Float64Array;
  /** per tap: S·D (FK) */
  SD: Float64Array;
}

function createSystemScratch(width: number): SystemScratch {
  return { M: new Float64Array(12 * width), D: new Float64Array(9 * width), SD: new Float64Array(9 * width) };
}

/**
 * Adds joint a's Gauss-Newton normal equations to the band `ab` (3K unknowns, half-band `bb`) and the
 * gradient `g`. Rotation term: J = P·w·T/|s| with P = I − n·nᵀ, T the key's tangent basis. FK term (when
 * `fk` is given: per frame S = w·Σ(|d|²I − d·dᵀ), G = w·Σ d × r over the subtree, and the parent's global
 * rotation): J = −[d]×·D with D = R_parent·2·vec((J_rot δ) ⊗ conj(n)).
 */
function buildJointSystem(
  taps: PlaybackTaps,
  keys: Float64Array,
  src: Float64Array,
  joints: number,
  a: number,
  played: Float64Array,
  norms: Float64Array,
  ab: Float64Array,
  bb: number,
  g: Float64Array,
  fk: { S: Float64Array; G: Float64Array; parentRot: Float64Array } | null,
  scratch: SystemScratch,
): void {
  const { frames, width, index, weight, count, reference } = taps;
  const { M, D, SD } = scratch;
  const w1 = bb + 1;
  for (let i = 0; i < frames; i++) {
    const c = count[i];
    const base = i * width;
    const o = (i * joints + a) * 4;
    const nx = played[o];
    const ny = played[o + 1];
    const nz = played[o + 2];
    const nw = played[o + 3];
    const inv = 1 / norms[i * joints + a];
    const sg = nx * src[o] + ny * src[o + 1] + nz * src[o + 2] + nw * src[o + 3] < 0 ? -1 : 1;
    const rx = nx - sg * src[o];
    const ry = ny - sg * src[o + 1];
    const rz = nz - sg * src[o + 2];
    const rw = nw - sg * src[o + 3];
    const ro = (index[base + reference[i]] * joints + a) * 4;
    for (let t = 0; t < c; t++) {
      const kt = index[base + t];
      const ko = (kt * joints + a) * 4;
      const x = keys[ko];
      const y = keys[ko + 1];
      const z = keys[ko + 2];
      const w = keys[ko + 3];
      const side = keys[ro] * x + keys[ro + 1] * y + keys[ro + 2] * z + keys[ro + 3] * w < 0 ? -1 : 1;
      const s = side * weight[base + t] * inv;
      // tangent columns k ⊗ i, k ⊗ j, k ⊗ k, projected off n and scaled
      const m = t * 12;
      let d = nx * w + ny * z - nz * y - nw * x;
      M[m] = s * (w - d * nx);
      M[m + 1] = s * (z - d * ny);
      M[m + 2] = s * (-y - d * nz);
      M[m + 3] = s * (-x - d * nw);
      d = -nx * z + ny * w + nz * x - nw * y;
      M[m + 4] = s * (-z - d * nx);
      M[m + 5] = s * (w - d * ny);
      M[m + 6] = s * (x - d * nz);
      M[m + 7] = s * (-y - d * nw);
      d = nx * y - ny * x + nz * w - nw * z;
      M[m + 8] = s * (y - d * nx);
      M[m + 9] = s * (-x - d * ny);
      M[m + 10] = s * (w - d * nz);
      M[m + 11] = s * (-z - d * nw);
      const go = kt * 3;
      g[go] += M[m] * rx + M[m + 1] * ry + M[m + 2] * rz + M[m + 3] * rw;
      g[go + 1] += M[m + 4] * rx + M[m + 5] * ry + M[m + 6] * rz + M[m + 7] * rw;
      g[go + 2] += M[m + 8] * rx + M[m + 9] * ry + M[m + 10] * rz + M[m + 11] * rw;
      // blocks (t, u) for u ≤ t: taps are in increasing key order
      for (let u = 0; u <= t; u++) {
        const ku = index[base + u];
        const mu = u * 12;
        for (let r1 = 0; r1 < 3; r1++) {
          const row = kt * 3 + r1;
          const m1 = m + r1 * 4;
          const a0 = M[m1];
          const a1 = M[m1 + 1];
          const a2 = M[m1 + 2];
          const a3 = M[m1 + 3];
          const rowBase = row * w1 + bb - row + ku * 3;
          const top = u === t ? r1 : 2;
          for (let r2 = 0; r2 <= top; r2++) {
            const m2 = mu + r2 * 4;
            ab[rowBase + r2] += a0 * M[m2] + a1 * M[m2 + 1] + a2 * M[m2 + 2] + a3 * M[m2 + 3];
          }
        }
      }
    }
    if (fk === null) continue;
    // FK term: ω_world = R_parent · 2·vec(dn ⊗ conj(n)) for each tangent column
    const pr = fk.parentRot;
    const po = i * 4;
    const qx = pr[po];
    const qy = pr[po + 1];
    const qz = pr[po + 2];
    const qw = pr[po + 3];
    const S = fk.S;
    const so = i * 9;
    const G = fk.G;
    const Gx = G[i * 3];
    const Gy = G[i * 3 + 1];
    const Gz = G[i * 3 + 2];
    for (let t = 0; t < c; t++) {
      for (let col = 0; col < 3; col++) {
        const m = t * 12 + col * 4;
        const dx = M[m];
        const dy = M[m + 1];
        const dz = M[m + 2];
        const dw = M[m + 3];
        const wx = 2 * (-dw * nx + dx * nw - dy * nz + dz * ny);
        const wy = 2 * (-dw * ny + dx * nz + dy * nw - dz * nx);
        const wz = 2 * (-dw * nz - dx * ny + dy * nx + dz * nw);
        const ux = 2 * (qy * wz - qz * wy);
        const uy = 2 * (qz * wx - qx * wz);
        const uz = 2 * (qx * wy - qy * wx);
        const vx = wx + qw * ux + (qy * uz - qz * uy);
        const vy = wy + qw * uy + (qz * ux - qx * uz);
        const vz = wz + qw * uz + (qx * uy - qy * ux);
        const dd = t * 9;
        D[dd + col] = vx;
        D[dd + 3 + col] = vy;
        D[dd + 6 + col] = vz;
        SD[dd + col] = S[so] * vx + S[so + 1] * vy + S[so + 2] * vz;
        SD[dd + 3 + col] = S[so + 3] * vx + S[so + 4] * vy + S[so + 5] * vz;
        SD[dd + 6 + col] = S[so + 6] * vx + S[so + 7] * vy + S[so + 8] * vz;
      }
    }
    for (let t = 0; t < c; t++) {
      const kt = index[base + t];
      const dd = t * 9;
      for (let col = 0; col < 3; col++) {
        g[kt * 3 + col] += D[dd + col] * Gx + D[dd + 3 + col] * Gy + D[dd + 6 + col] * Gz;
      }
      for (let u = 0; u <= t; u++) {
        const ku = index[base + u];
        const du = u * 9;
        for (let r1 = 0; r1 < 3; r1++) {
          const row = kt * 3 + r1;
          const rowBase = row * w1 + bb - row + ku * 3;
          const top = u === t ? r1 : 2;
          for (let r2 = 0; r2 <= top; r2++) {
            ab[rowBase + r2] +=
              D[dd + r1] * SD[du + r2] + D[dd + 3 + r1] * SD[du + 3 + r2] + D[dd + 6 + r1] * SD[du + 6 + r2];
          }
        }
      }
    }
  }
}

/** Sets joint a's keys to normalize(b + T(b)·(−step·δ)) from its saved keys b (`K x 4`). */
function applyStep(
  keys: Float64Array,
  base: Float64Array,
  K: number,
  joints: number,
  a: number,
  delta: Float64Array,
  step: number,
): void {
  const T = new Float64Array(12);
  for (let k = 0; k < K; k++) {
    const o = (k * joints + a) * 4;
    tangent(base, k * 4, T);
    const d0 = -step * delta[k * 3];
    const d1 = -step * delta[k * 3 + 1];
    const d2 = -step * delta[k * 3 + 2];
    let x = base[k * 4];
    let y = base[k * 4 + 1];
    let z = base[k * 4 + 2];
    let w = base[k * 4 + 3];
    x += T[0] * d0 + T[4] * d1 + T[8] * d2;
    y += T[1] * d0 + T[5] * d1 + T[9] * d2;
    z += T[2] * d0 + T[6] * d1 + T[10] * d2;
    w += T[3] * d0 + T[7] * d1 + T[11] * d2;
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    keys[o] = x / l;
    keys[o + 1] = y / l;
    keys[o + 2] = z / l;
    keys[o + 3] = w / l;
  }
}

function solveDamped(
  ab: Float64Array,
  g: Float64Array,
  n: number,
  bb: number,
  damping: number,
): Float64Array | null {
  const w1 = bb + 1;
  let trace = 0;
  for (let i = 0; i < n; i++) trace += ab[i * w1 + bb];
  const mu = damping * (trace / n) + 1e-300;
  const m = ab.slice();
  for (let i = 0; i < n; i++) m[i * w1 + bb] += mu;
  const x = g.slice();
  try {
    choleskyBanded(m, n, bb);
  } catch {
    return null;
  }
  solveCholeskyBanded(m, n, bb, x, 1);
  return x;
}

/** Gauss-Newton on the rotation objective, joint by joint (joints are independent without FK). */
function gaussNewton(
  taps: PlaybackTaps,
  keys: Float64Array,
  src: Float64Array,
  joints: number,
  iterations: number,
  played: Float64Array,
  norms: Float64Array,
): number {
  const K = taps.keys;
  const frames = taps.frames;
  const n = 3 * K;
  const bb = 3 * taps.width - 1;
  const ab = new Float64Array(n * (bb + 1));
  const g = new Float64Array(n);
  const saved = new Float64Array(K * 4);
  const scratch = createSystemScratch(taps.width);
  let accepted = 0;
  for (let a = 0; a < joints; a++) {
    playJoint(taps, keys, joints, a, played, norms);
    let current = jointRotationObjective(played, src, frames, joints, a);
    let damping = 1e-6;
    for (let it = 0; it < iterations; it++) {
      ab.fill(0);
      g.fill(0);
      buildJointSystem(taps, keys, src, joints, a, played, norms, ab, bb, g, null, scratch);
      const delta = solveDamped(ab, g, n, bb, damping);
      if (!delta) break;
      for (let k = 0; k < K; k++)
        for (let c = 0; c < 4; c++) saved[k * 4 + c] = keys[(k * joints + a) * 4 + c];
      let improved = false;
      for (let tries = 0; tries < 4 && !improved; tries++) {
        applyStep(keys, saved, K, joints, a, delta, 1 / 2 ** tries);
        playJoint(taps, keys, joints, a, played, norms);
        const e = jointRotationObjective(played, src, frames, joints, a);
        if (e < current) {
          current = e;
          improved = true;
        }
      }
      if (!improved) {
        for (let k = 0; k < K; k++)
          for (let c = 0; c < 4; c++) keys[(k * joints + a) * 4 + c] = saved[k * 4 + c];
        playJoint(taps, keys, joints, a, played, norms);
        damping *= 100;
        continue;
      }
      accepted++;
    }
  }
  return accepted;
}

/** Gauss-Newton with the FK position term: block Gauss-Seidel from the roots down. */
function gaussNewtonFk(
  taps: PlaybackTaps,
  keys: Float64Array,
  src: Float64Array,
  joints: number,
  iterations: number,
  fk: FkState,
  played: Float64Array,
  norms: Float64Array,
): number {
  const K = taps.keys;
  const frames = taps.frames;
  const n = 3 * K;
  const bb = 3 * taps.width - 1;
  const ab = new Float64Array(n * (bb + 1));
  const g = new Float64Array(n);
  const S = new Float64Array(frames * 9);
  const G = new Float64Array(frames * 3);
  const parentRot = new Float64Array(frames * 4);
  const subtrees: number[][] = [];
  for (let a = 0; a < joints; a++) {
    const list = [a];
    for (let q = 0; q < list.length; q++) for (const ch of fk.children[list[q]]) list.push(ch);
    list.sort((x, y) => x - y);
    subtrees.push(list);
  }
  const weight = fk.weight;
  playback(taps, keys, joints, played, norms);
  fkInto(fk, played, joints, frames);
  const objective = (a: number): number => {
    let e = jointRotationObjective(played, src, frames, joints, a);
    for (let i = 0; i < frames; i++) {
      for (const m of subtrees[a]) {
        const o = (i * joints + m) * 3;
        const dx = fk.pos[o] - fk.target[o];
        const dy = fk.pos[o + 1] - fk.target[o + 1];
        const dz = fk.pos[o + 2] - fk.target[o + 2];
        e += weight * (dx * dx + dy * dy + dz * dz);
      }
    }
    return e;
  };
  const saved = new Float64Array(K * 4);
  const scratch = createSystemScratch(taps.width);
  let accepted = 0;
  for (let sweep = 0; sweep < iterations; sweep++) {
    for (const a of fk.order) {
      let current = objective(a);
      const p = fk.parents[a];
      // per-frame FK blocks: S = w Σ_m (|d|² I − d dᵀ), G = w Σ_m d × r, d = p_m − p_a, r = p_m − target_m
      for (let i = 0; i < frames; i++) {
        let s00 = 0;
        let s01 = 0;
        let s02 = 0;
        let s11 = 0;
        let s12 = 0;
        let s22 = 0;
        let gx = 0;
        let gy = 0;
        let gz = 0;
        const ao = (i * joints + a) * 3;
        for (const m of subtrees[a]) {
          if (m === a) continue;
          const o = (i * joints + m) * 3;
          const dx = fk.pos[o] - fk.pos[ao];
          const dy = fk.pos[o + 1] - fk.pos[ao + 1];
          const dz = fk.pos[o + 2] - fk.pos[ao + 2];
          const rx = fk.pos[o] - fk.target[o];
          const ry = fk.pos[o + 1] - fk.target[o + 1];
          const rz = fk.pos[o + 2] - fk.target[o + 2];
          const d2 = dx * dx + dy * dy + dz * dz;
          s00 += d2 - dx * dx;
          s11 += d2 - dy * dy;
          s22 += d2 - dz * dz;
          s01 -= dx * dy;
          s02 -= dx * dz;
          s12 -= dy * dz;
          gx += dy * rz - dz * ry;
          gy += dz * rx - dx * rz;
          gz += dx * ry - dy * rx;
        }
        const so = i * 9;
        S[so] = weight * s00;
        S[so + 1] = weight * s01;
        S[so + 2] = weight * s02;
        S[so + 3] = weight * s01;
        S[so + 4] = weight * s11;
        S[so + 5] = weight * s12;
        S[so + 6] = weight * s02;
        S[so + 7] = weight * s12;
        S[so + 8] = weight * s22;
        G[i * 3] = weight * gx;
        G[i * 3 + 1] = weight * gy;
        G[i * 3 + 2] = weight * gz;
        const po = i * 4;
        if (p < 0) {
          parentRot[po] = 0;
          parentRot[po + 1] = 0;
          parentRot[po + 2] = 0;
          parentRot[po + 3] = 1;
        } else {
          const ro = (i * joints + p) * 4;
          for (let c = 0; c < 4; c++) parentRot[po + c] = fk.rot[ro + c];
        }
      }
      ab.fill(0);
      g.fill(0);
      buildJointSystem(taps, keys, src, joints, a, played, norms, ab, bb, g, { S, G, parentRot }, scratch);
      const delta = solveDamped(ab, g, n, bb, 1e-6);
      if (!delta) continue;
      for (let k = 0; k < K; k++)
        for (let c = 0; c < 4; c++) saved[k * 4 + c] = keys[(k * joints + a) * 4 + c];
      let improved = false;
      for (let tries = 0; tries < 4 && !improved; tries++) {
        applyStep(keys, saved, K, joints, a, delta, 1 / 2 ** tries);
        playJoint(taps, keys, joints, a, played, norms);
        fkSubtree(fk, played, joints, frames, a, subtrees[a]);
        const e = objective(a);
        if (e < current) {
          current = e;
          improved = true;
        }
      }
      if (!improved) {
        for (let k = 0; k < K; k++)
          for (let c = 0; c < 4; c++) keys[(k * joints + a) * 4 + c] = saved[k * 4 + c];
        playJoint(taps, keys, joints, a, played, norms);
        fkSubtree(fk, played, joints, frames, a, subtrees[a]);
        continue;
      }
      accepted++;
    }
  }
  return accepted;
}
