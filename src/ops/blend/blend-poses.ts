import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { EIGEN4_SCRATCH_LENGTH, type Eigen4Options } from '../../numeric/eigen4.js';
import { eigenAverageStrided } from '../../numeric/eigen4-average.js';
import {
  checkOptions,
  customRule,
  frozenDefaults,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  orNull,
} from '../../options.js';
import { assertFiniteSeries, assertQuatSeries } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { checkWeights, POSE_OPTION, writeCanonical } from '../average/average-checks.js';

/** Per-joint methods of {@link blendPoses}. */
export type BlendMethod = 'eigen' | 'nlerp' | 'log' | 'raw';

/** The methods in the order the studio lists them. */
export const BLEND_METHODS: readonly BlendMethod[] = ['eigen', 'nlerp', 'log', 'raw'];

/** Options of {@link blendPoses}. */
export interface BlendPosesOptions {
  /**
   * - `'eigen'` (default): per joint, the chordal mean (dominant eigenvector of Σ wₖ qₖ qₖᵀ); needs no
   *   reference and ignores one.
   * - `'nlerp'`: per joint, every pose flipped to the hemisphere of the first pose, summed, normalised.
   * - `'raw'`: per joint, Σ wₖ·abs(ref⁻¹ qₖ) normalised, then ref ⊗ it (Holden's raw average; relative to
   *   `reference`, or to the identity without one).
   * - `'log'`: per joint, ref ⊗ exp(Σ w̃ₖ log(ref⁻¹ qₖ)) (Holden's log average, same reference rule).
   */
  method?: BlendMethod;
  /** Reference (rest) pose for `'raw'` and `'log'`: J x 4 numbers, or a QuatSeries with one frame. */
  reference?: ArrayLike<number> | QuatSeries | null;
  /** `Float64Array(EIGEN4_SCRATCH_LENGTH)` for the eigen solve; a module buffer otherwise. */
  scratch?: Float64Array | null;
  /** Tuning of the eigen solve. */
  eigen?: Eigen4Options;
}

/** Defaults of {@link BlendPosesOptions}. */
export const BLEND_POSES_DEFAULTS = frozenDefaults({
  method: 'eigen' as BlendMethod,
  reference: null,
  scratch: null,
  eigen: {} as Eigen4Options,
} satisfies Required<BlendPosesOptions>);

const BLEND_POSES_SPEC: OptionSpec = {
  method: oneOf(BLEND_METHODS),
  reference: orNull(POSE_OPTION),
  scratch: orNull(customRule('a Float64Array', (v) => v instanceof Float64Array)),
  eigen: OBJECT_OPTION,
};

const moduleScratch = new Float64Array(EIGEN4_SCRATCH_LENGTH);

/**
 * Blends K poses of J joints (a {@link QuatSeries} with `frames = K`, one pose per frame) into one pose,
 * joint by joint, with weights `weights[k]`. Writes J x 4 numbers into `out` (a flat array or a QuatSeries
 * with one frame) and returns `out`.
 *
 * Which method when: `'eigen'` when no meaningful reference pose exists or poses differ a lot (result
 * independent of signs, order and reference); `'log'` or `'raw'` relative to the rest pose when it is a
 * meaningful centre (faster, and `+170°`/`−170°` about the rest pose average back to the rest pose instead
 * of 180°); `'nlerp'` for poses that are already close. Weights are divided by their sum (a zero sum is an
 * error); negative weights extrapolate. Input quaternions need not be unit; outputs are unit with w ≥ 0.
 *
 * Allocation-free: repeated calls allocate nothing (pass `scratch` when blending from several
 * re-entrant contexts). Cost O(K·J); `'eigen'` adds a 4x4 eigen solve per joint.
 *
 * Source: Daniel Holden, "Quaternion Weighted Average" (2023), `bone_rotations_weighted_average_*`.
 *
 * @throws {ShapeError} on malformed series, `out`/`reference` of the wrong length, or K ≠ weights.length.
 * @throws {InvalidValueError} naming frame (pose) and joint of a non-finite or zero quaternion; for a
 *   non-finite weight (naming its index) or weights summing to zero; when a joint's `'raw'`/`'nlerp'` sum
 *   cancels.
 * @throws {OptionError} for an unknown method.
 * @example
 * // two poses of one joint: the identity and 90° about z; rest pose = identity
 * const poses = quatSeries(new Float64Array([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]), 2, 1);
 * const out = blendPoses(new Float64Array(4), poses, [1, 1], { method: 'log', reference: [0, 0, 0, 1] });
 * // out ≈ [0, 0, 0.3827, 0.9239]: 45° about z
 */
export function blendPoses<T extends FloatArray | QuatSeries>(
  out: T,
  poses: QuatSeries,
  weights: ArrayLike<number>,
  options?: BlendPosesOptions,
): T {
  const where = 'blendPoses';
  assertQuatSeries(poses, 'blendPoses: poses');
  // checked, not merged: every read below is `options?.x ?? DEFAULTS.x` (this runs per pose blend)
  options = checkOptions(where, options, BLEND_POSES_SPEC);
  const K = poses.frames;
  const J = poses.joints;
  if (K < 1) throw new ShapeError(`${where}: need at least one pose, got 0 frames`);
  const dst = seriesData(out, J, 'out');
  const wsum = checkWeights(weights, K, where);
  const src = poses.data;
  const method = options?.method ?? BLEND_POSES_DEFAULTS.method;
  const stride = J * 4;

  if (method === 'eigen') {
    const scratch = options?.scratch ?? moduleScratch;
    for (let j = 0; j < J; j++) {
      try {
        eigenAverageStrided(
          dst,
          j * 4,
          src,
          j * 4,
          stride,
          weights,
          K,
          scratch,
          undefined,
          null,
          0,
          options?.eigen,
        );
      } catch (e) {
        // the kernel names the pose as its index; add the joint
        const k = e instanceof InvalidValueError ? e.location.index : undefined;
        if (k === undefined) throw e;
        throw new InvalidValueError(
          `${where}: pose ${k}, joint ${j}: ${e instanceof Error ? e.message : e}`,
          {
            frame: k,
            joint: j,
          },
        );
      }
    }
    return out;
  }
  assertFiniteSeries(src, J, 4, 'blendPoses: poses');
  if (method !== 'nlerp' && method !== 'raw' && method !== 'log') {
    throw new OptionError(
      `${where}: unknown method '${String(method)}'; expected one of ${BLEND_METHODS.join(', ')}`,
    );
  }
  const ref = method === 'nlerp' ? null : referenceData(options?.reference ?? null, J);

  for (let j = 0; j < J; j++) {
    const jo = j * 4;
    // reference rotation of this joint (unit), identity when absent
    let rx = 0;
    let ry = 0;
    let rz = 0;
    let rw = 1;
    if (ref !== null) {
      rx = ref[jo];
      ry = ref[jo + 1];
      rz = ref[jo + 2];
      rw = ref[jo + 3];
      const rn2 = rx * rx + ry * ry + rz * rz + rw * rw;
      if (!(rn2 > 0) || !Number.isFinite(rn2)) {
        throw new InvalidValueError(`${where}: reference joint ${j} is zero or not finite`, { joint: j });
      }
      const s = 1 / Math.sqrt(rn2);
      rx *= s;
      ry *= s;
      rz *= s;
      rw *= s;
    } else if (method === 'nlerp') {
      // hemisphere of the first pose
      rx = src[jo];
      ry = src[jo + 1];
      rz = src[jo + 2];
      rw = src[jo + 3];
    }
    let ax = 0;
    let ay = 0;
    let az = 0;
    let aw = 0;
    let wabs = 0;
    for (let k = 0; k < K; k++) {
      const o = k * stride + jo;
      const qx = src[o];
      const qy = src[o + 1];
      const qz = src[o + 2];
      const qw = src[o + 3];
      const n2 = qx * qx + qy * qy + qz * qz + qw * qw;
      if (!(n2 > 0)) {
        throw new InvalidValueError(`${where}: pose ${k}, joint ${j} is a zero quaternion`, {
          frame: k,
          joint: j,
        });
      }
      const wk = weights[k] / wsum;
      const c = wk / Math.sqrt(n2);
      if (method === 'nlerp') {
        const sgn = rx * qx + ry * qy + rz * qz + rw * qw < 0 ? -c : c;
        ax += sgn * qx;
        ay += sgn * qy;
        az += sgn * qz;
        aw += sgn * qw;
        wabs += Math.abs(c);
        continue;
      }
      // d = ref⁻¹ ⊗ q (unit ref: conjugate), in its w ≥ 0 form
      let dx = rw * qx - rx * qw - ry * qz + rz * qy;
      let dy = rw * qy - ry * qw - rz * qx + rx * qz;
      let dz = rw * qz - rz * qw - rx * qy + ry * qx;
      let dw = rw * qw + rx * qx + ry * qy + rz * qz;
      if (dw < 0) {
        dx = -dx;
        dy = -dy;
        dz = -dz;
        dw = -dw;
      }
      if (method === 'raw') {
        ax += c * dx;
        ay += c * dy;
        az += c * dz;
        aw += c * dw;
        wabs += Math.abs(c);
      } else {
        // log of the unit relative rotation (half-angle vector), stable at 180° via atan2
        const vn = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const f = vn > 0 ? (wk * Math.atan2(vn, dw)) / vn : 0;
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
      }
    }
    if (method === 'log') {
      // exp of the half-angle vector
      const t = Math.sqrt(ax * ax + ay * ay + az * az);
      const k = t < 1e-8 ? 1 - (t * t) / 6 : Math.sin(t) / t;
      ax *= k;
      ay *= k;
      az *= k;
      aw = Math.cos(t);
    } else {
      const len = Math.sqrt(ax * ax + ay * ay + az * az + aw * aw);
      if (!(len > 1e-12 * wabs)) {
        throw new InvalidValueError(
          `${where}: joint ${j}: the '${method}' sum of the poses cancels; use 'eigen'`,
          {
            joint: j,
          },
        );
      }
    }
    if (method === 'nlerp') {
      writeCanonical(dst, jo, ax, ay, az, aw);
    } else {
      // ref ⊗ a
      writeCanonical(
        dst,
        jo,
        rw * ax + rx * aw + ry * az - rz * ay,
        rw * ay + ry * aw + rz * ax - rx * az,
        rw * az + rz * aw + rx * ay - ry * ax,
        rw * aw - rx * ax - ry * ay - rz * az,
      );
    }
  }
  return out;
}

function seriesData(out: FloatArray | QuatSeries, J: number, name: string): FloatArray {
  const data = out instanceof Float64Array || out instanceof Float32Array ? out : out?.data;
  if (!(data instanceof Float64Array || data instanceof Float32Array)) {
    throw new ShapeError(`blendPoses: ${name} must be a Float64Array, Float32Array or QuatSeries`);
  }
  if (data.length !== J * 4) {
    throw new ShapeError(
      `blendPoses: ${name} has ${data.length} values, expected joints ${J} x 4 = ${J * 4}`,
    );
  }
  return data;
}

function referenceData(
  reference: ArrayLike<number> | QuatSeries | null,
  J: number,
): ArrayLike<number> | null {
  if (reference === null) return null;
  const data = 'data' in reference && !(reference instanceof Float64Array) ? reference.data : reference;
  if ((data as ArrayLike<number>).length !== J * 4) {
    throw new ShapeError(
      `blendPoses: reference has ${(data as ArrayLike<number>).length} values, expected joints ${J} x 4 = ${J * 4}`,
    );
  }
  return data as ArrayLike<number>;
}
