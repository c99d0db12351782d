import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  frozenDefaults,
  NON_NEGATIVE_NUMBER,
  NUMBER_LIST,
  type OptionSpec,
  OUT_BUFFER,
  resolveOptions,
} from '../../options.js';
import { angle, fromRotationVectorFlat } from '../../quat/index.js';
import { assertFiniteSeries } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import { checkInitial } from './unroll-kernels.js';

/** Options of {@link unrollRotationVectors}. */
export interface UnrollRotationVectorsOptions {
  /**
   * Reference vector per joint (`joints x 3`, radians) choosing the shell of the first frame. Without it the
   * first frame stays as given.
   */
  initial?: ArrayLike<number>;
  /**
   * A frame is reported in `jumps` when its step in rotation-vector space exceeds the geodesic angle the
   * rotation actually turned by more than this many radians. Default 0.25 (about 14°): within `|v| <= π`
   * a step is at most π/2 times the angle, so ordinary motion stays well below it, while the sweep across
   * a shell moves the vector by about a radian per frame for a hundredth of that in rotation.
   */
  jumpTolerance?: number;
  /** Where to write (same length as the input; may be the input when it is a Float64Array). Default: new. */
  out?: Float64Array;
}

/** Defaults of the optional fields of {@link UnrollRotationVectorsOptions}. */
export const UNROLL_ROTATION_VECTORS_DEFAULTS = frozenDefaults({
  jumpTolerance: 0.25,
} as const);

const UNROLL_ROTATION_VECTORS_SPEC: OptionSpec = {
  initial: NUMBER_LIST,
  jumpTolerance: NON_NEGATIVE_NUMBER,
  out: OUT_BUFFER,
};

/** A frame where the rotation vector could not follow the rotation continuously. */
export interface RotationVectorJump {
  /** The frame whose vector jumped (the step is from `frame - 1` to `frame`). */
  frame: number;
  /** The joint (0 for flat single-joint input). */
  joint: number;
  /** Length of the step in rotation-vector space, radians. */
  step: number;
  /** Geodesic angle between the two rotations, radians (what the motion itself turned). */
  angle: number;
}

/** Result of {@link unrollRotationVectors}. */
export interface UnrollRotationVectorsResult<T> {
  /** The unrolled vectors, Float64 (or `out`), in the input's shape. */
  vectors: T;
  /** Frames where continuity was impossible, in frame order then joint order. */
  jumps: RotationVectorJump[];
}

const TWO_PI = 2 * Math.PI;

/**
 * Makes rotation vectors (`axis · angle`, radians) follow the motion: every frame's vector is replaced by
 * the representative of the same rotation on the 2π shell nearest the previous frame.
 *
 * The rotation `θ n̂` is also `(θ + 2πk) n̂` for every integer `k` (for `k = −1` that is the opposite axis with
 * angle `2π − θ`). Minimising `|(θ + 2πk) n̂ − p|` over `k` for the previous vector `p` gives
 * `k = round((n̂·p − θ) / 2π)`. A spin about a fixed axis therefore grows past π, 2π and 4π without a step
 * (a −720°..+720° spin about x gives one straight line from −4π to 4π), unlike the logarithm of unrolled
 * quaternions, which jumps from +2π to −2π where the spin passes ±360°.
 *
 * Where continuity is impossible: every point of a shell `|v| = 2πk` (`k ≠ 0`) is the identity, so near a
 * shell a small rotation across the spin axis needs a large move of the vector (the map from vectors to
 * rotations is singular there; D. Holden, "Unrolling Rotations", 2024, notes the jumps and leaves them
 * open). A spin that passes the identity with any wobble off its axis (a ±720° spin that is not exactly about
 * one axis) must jump where its vector crosses a shell. Those frames are returned in `jumps`: frames whose
 * vector step exceeds the geodesic angle between the two rotations by more than `jumpTolerance`. Zero
 * vectors (the identity, no axis; also any shorter than 1e-100) are taken on the previous vector's axis.
 *
 * Input shape as in {@link unrollEuler}: a flat `frames x 3` array for one joint, or a {@link Vec3Series}.
 *
 * Edge cases: 0 frames gives an empty result; 1 frame is only moved to `initial`'s shell.
 *
 * @throws {ShapeError} when the length is not a multiple of 3, or `out`/`initial` do not fit.
 * @throws {OptionError} when `jumpTolerance` is negative or not finite.
 * @throws {InvalidValueError} on a non-finite component, with `location.frame` and `location.joint`.
 * @example
 * const v = new Float64Array([3, 0, 0, -3, 0, 0]); // 3 rad about x, then 3 rad about -x
 * unrollRotationVectors(v).vectors; // [3, 0, 0, 2π − 3, 0, 0]: 3.28 rad about x, no sign jump
 */
export function unrollRotationVectors(
  vectors: FloatArray,
  options?: UnrollRotationVectorsOptions,
): UnrollRotationVectorsResult<Float64Array>;
export function unrollRotationVectors(
  vectors: Vec3Series,
  options?: UnrollRotationVectorsOptions,
): UnrollRotationVectorsResult<Vec3Series<Float64Array>>;
export function unrollRotationVectors(
  vectors: FloatArray | Vec3Series,
  options: UnrollRotationVectorsOptions = {},
): UnrollRotationVectorsResult<Float64Array | Vec3Series<Float64Array>> {
  options = resolveOptions(
    'unrollRotationVectors',
    options,
    UNROLL_ROTATION_VECTORS_DEFAULTS,
    UNROLL_ROTATION_VECTORS_SPEC,
  );
  const isSeries = !(vectors instanceof Float64Array || vectors instanceof Float32Array);
  let data: FloatArray;
  let joints: number;
  if (isSeries) {
    const s = vectors as Vec3Series;
    if (
      s === null ||
      typeof s !== 'object' ||
      !(s.data instanceof Float64Array || s.data instanceof Float32Array)
    ) {
      throw new ShapeError(
        'unrollRotationVectors: vectors must be a Float64Array, Float32Array or Vec3Series',
      );
    }
    if (s.data.length !== s.frames * s.joints * 3) {
      throw new ShapeError(
        `unrollRotationVectors: vectors has ${s.data.length} values, expected frames ${s.frames} x joints ${s.joints} x 3`,
      );
    }
    data = s.data;
    joints = s.joints;
  } else {
    data = vectors as FloatArray;
    joints = 1;
    if (data.length % 3 !== 0) {
      throw new ShapeError(`unrollRotationVectors: vectors has ${data.length} values, not a multiple of 3`);
    }
  }
  const tol = options.jumpTolerance ?? UNROLL_ROTATION_VECTORS_DEFAULTS.jumpTolerance;
  if (!(tol >= 0 && tol < Infinity)) {
    throw new OptionError(`unrollRotationVectors: jumpTolerance must be a finite number >= 0, got ${tol}`);
  }
  const out = options.out ?? new Float64Array(data.length);
  if (out.length !== data.length) {
    throw new ShapeError(`unrollRotationVectors: out has ${out.length} values, vectors has ${data.length}`);
  }
  const initial = options.initial;
  checkInitial(initial, joints, 'unrollRotationVectors');
  if (initial !== undefined && initial !== null && initial.length !== joints * 3) {
    throw new ShapeError(
      `unrollRotationVectors: initial has ${initial.length} values, expected ${joints * 3}`,
    );
  }
  const jumps: RotationVectorJump[] = [];
  const stride = joints * 3;
  const qa = new Float64Array(4);
  const qb = new Float64Array(4);
  for (let i = 0; i < data.length; i += 3) {
    const x = data[i];
    const y = data[i + 1];
    const z = data[i + 2];
    if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z))) {
      const item = i / 3;
      const frame = Math.floor(item / joints);
      const joint = item % joints;
      throw new InvalidValueError(
        `unrollRotationVectors: non-finite vector (${x}, ${y}, ${z}) at frame ${frame}, joint ${joint}`,
        { frame, joint },
      );
    }
    let ref: ArrayLike<number>;
    let r: number;
    if (i < stride) {
      if (initial === undefined || initial === null) {
        out[i] = x;
        out[i + 1] = y;
        out[i + 2] = z;
        continue;
      }
      ref = initial;
      r = i;
    } else {
      ref = out;
      r = i - stride;
    }
    const px = ref[r];
    const py = ref[r + 1];
    const pz = ref[r + 2];
    const theta = Math.sqrt(x * x + y * y + z * z);
    // Below 1e-100 the squared norm may have lost digits to underflow: treat the vector as the identity.
    if (theta > 1e-100) {
      const proj = (x * px + y * py + z * pz) / theta;
      const t = theta + TWO_PI * Math.round((proj - theta) / TWO_PI);
      const s = t / theta;
      out[i] = x * s;
      out[i + 1] = y * s;
      out[i + 2] = z * s;
    } else {
      // No axis: the identity is every point of every shell; take the shell nearest p along p's axis.
      const pn = Math.sqrt(px * px + py * py + pz * pz);
      const s = pn > 0 ? (TWO_PI * Math.round(pn / TWO_PI)) / pn : 0;
      out[i] = x + px * s;
      out[i + 1] = y + py * s;
      out[i + 2] = z + pz * s;
    }
    if (i >= stride) {
      const dx = out[i] - px;
      const dy = out[i + 1] - py;
      const dz = out[i + 2] - pz;
      const step = Math.sqrt(dx * dx + dy * dy + dz * dz);
      // A step can only exceed the turned angle by the tolerance when the angle is below the step.
      if (step > tol) {
        fromRotationVectorFlat(qa, 0, out, r);
        fromRotationVectorFlat(qb, 0, out, i);
        const turned = angle(qa, qb);
        if (step - turned > tol) {
          const item = i / 3;
          jumps.push({ frame: Math.floor(item / joints), joint: item % joints, step, angle: turned });
        }
      }
    }
  }
  // vectors near the float64 limit overflow the shell arithmetic
  assertFiniteSeries(out, joints, 3, 'unrollRotationVectors: the unrolled vectors (overflow)');
  if (isSeries) {
    const s = vectors as Vec3Series;
    return { vectors: { data: out, frames: s.frames, joints: s.joints }, jumps };
  }
  return { vectors: out, jumps };
}
