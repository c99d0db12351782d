import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  customRule,
  frozenDefaults,
  NUMBER_LIST,
  type OptionSpec,
  OUT_BUFFER,
  oneOf,
  resolveOptions,
} from '../../options.js';
import type { EulerOrder } from '../../quat/euler.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import {
  checkInitial,
  checkMode,
  type EulerUnrollMode,
  eulerJointInfo,
  followTriple,
  orderInfo,
  unrollEulerData,
} from './unroll-kernels.js';

export type { EulerUnrollMode } from './unroll-kernels.js';

/** Options of {@link unrollEuler}. */
export interface UnrollEulerOptions {
  /**
   * The Euler sequence of the angles (SciPy notation, `'ZYX'` = BVH `Zrotation Yrotation Xrotation`), or
   * one sequence per joint for a {@link Vec3Series}. It tells the filter the other triple of each rotation
   * (Tait-Bryan: three different axes; proper Euler: first axis = last axis) and which combination of the
   * outer angles a gimbal lock leaves defined.
   */
  order: EulerOrder | readonly EulerOrder[];
  /**
   * `'equivalent'` (default): per frame, choose among both Euler triples of the same rotation (see
   * {@link unrollEuler}), each shifted per channel by whole turns, the one closest to the previous frame
   * (the "Euler filter" of Blender and Maya). `'wrap'`: only add multiples of 2π per channel (the classic
   * per-curve unwrap, `numpy.unwrap`).
   */
  mode?: EulerUnrollMode;
  /**
   * A reference triple (3 values per joint, radians) that chooses the 2π shell and the branch of the
   * first frame, for example the first frame of source curves. Without it the first frame stays as given.
   */
  initial?: ArrayLike<number>;
  /**
   * Where to write (same length as `angles`; may be `angles` itself for in place when that is a
   * Float64Array). Default: a new Float64Array. Float64 because unrolled angles grow past ±2π.
   */
  out?: Float64Array;
}

/** Defaults of the optional fields of {@link UnrollEulerOptions}. */
export const UNROLL_EULER_DEFAULTS = frozenDefaults({
  mode: 'equivalent' as EulerUnrollMode,
} as const);

const UNROLL_EULER_SPEC: OptionSpec = {
  order: customRule(
    "an Euler order such as 'ZYX' or an array of one per joint",
    (v) => typeof v === 'string' || Array.isArray(v),
  ),
  mode: oneOf(['equivalent', 'wrap']),
  initial: NUMBER_LIST,
  out: OUT_BUFFER,
};

/**
 * Makes Euler angle curves continuous: every frame's triple is replaced by the triple that gives the same
 * rotation and is closest (least squared difference over the three channels) to the previous frame.
 *
 * Input shape: either one joint as a flat `frames x 3` array (`[a0, b0, c0, a1, b1, c1, ...]`), or a
 * {@link Vec3Series} of `frames x joints` Euler triples (triple of joint `j` at frame `f` at
 * `(f * joints + j) * 3`). Angles in radians, channels in the order the sequence names them (`'ZYX'`:
 * the Z angle, then Y, then X), the same layout as `quat.fromEuler`/`quat.toEuler`.
 *
 * Candidates for a triple `(a, b, c)`:
 * - `mode: 'wrap'`: `(a + 2πi, b + 2πj, c + 2πk)`.
 * - `mode: 'equivalent'`: additionally the second triple of the same rotation, `(a + π, π − b, c + π)` for
 *   Tait-Bryan sequences (`'ZYX'`, `'xyz'`, ...) and `(a + π, −b, c + π)` for proper Euler sequences
 *   (`'ZXZ'`, ...), with the same per-channel wraps. Since `Ri(π) Rj(θ) Ri(π) = Rj(−θ)` for perpendicular
 *   axes, both triples compose to the same rotation, intrinsic or extrinsic.
 * Multi-turn motion is kept (a pirouette grows past ±180° and ±360°): the filter follows the previous
 * frame, it never brings angles back into a principal range. Steps of more than 180° per channel between
 * frames cannot be told from a wrap and are unrolled to the shorter way.
 *
 * Gimbal lock: exactly at the middle angle ±90° (Tait-Bryan) or 0°/180° (proper), within 1e-12 rad as in
 * `quat.toEuler`, only `a − σc` is defined (σ = ±1 depending on sequence and lock); in `'equivalent'` mode
 * such a triple is re-split, `(a + t, b, c + σt)`, to the point nearest the previous frame, so a curve
 * passing through the lock does not jump in `a` and `c`. Near (not at) the lock the outer angles can
 * legitimately swing by large amounts between frames, and which of the two branches is "closest" can then
 * differ from the source's choice.
 *
 * Edge cases: 0 frames returns an empty result; 1 frame is only moved to `initial`'s shell and branch.
 * Float32 input is read as Float64; the output is always Float64.
 *
 * Method: D. Holden, "Unrolling Rotations" (2024) for the per-channel unroll; the equivalent-triple
 * comparison is the Euler filter of Blender (`compatible_eul` / "Discontinuity (Euler) Filter") and Maya.
 *
 * @returns the unrolled angles: a Float64Array (or `out`) for flat input, a Vec3Series for series input.
 * @throws {ShapeError} when the length is not a multiple of 3, `out` or `initial` has the wrong length.
 * @throws {OptionError} on an unknown mode or order, or a per-joint order list of the wrong length.
 * @throws {InvalidValueError} on a non-finite angle, with `location.frame` and `location.joint`.
 * @example
 * const deg = Math.PI / 180;
 * const a = new Float64Array([170, 0, 0, -170, 0, 0].map((v) => v * deg));
 * unrollEuler(a, { order: 'ZYX' }); // second frame becomes (190°, 0, 0)
 */
export function unrollEuler(angles: FloatArray, options: UnrollEulerOptions): Float64Array;
export function unrollEuler(angles: Vec3Series, options: UnrollEulerOptions): Vec3Series<Float64Array>;
export function unrollEuler(
  angles: FloatArray | Vec3Series,
  options: UnrollEulerOptions,
): Float64Array | Vec3Series<Float64Array> {
  const isSeries = !(angles instanceof Float64Array || angles instanceof Float32Array);
  let data: FloatArray;
  let joints: number;
  if (isSeries) {
    const s = angles as Vec3Series;
    if (
      s === null ||
      typeof s !== 'object' ||
      !(s.data instanceof Float64Array || s.data instanceof Float32Array)
    ) {
      throw new ShapeError('unrollEuler: angles must be a Float64Array, Float32Array or Vec3Series');
    }
    if (s.data.length !== s.frames * s.joints * 3) {
      throw new ShapeError(
        `unrollEuler: angles has ${s.data.length} values, expected frames ${s.frames} x joints ${s.joints} x 3`,
      );
    }
    data = s.data;
    joints = s.joints;
  } else {
    data = angles as FloatArray;
    joints = 1;
    if (data.length % 3 !== 0) {
      throw new ShapeError(`unrollEuler: angles has ${data.length} values, not a multiple of 3 (frames x 3)`);
    }
  }
  if (options === null || typeof options !== 'object') {
    throw new OptionError('unrollEuler: options with at least { order } are required');
  }
  resolveOptions('unrollEuler', options, UNROLL_EULER_DEFAULTS, UNROLL_EULER_SPEC);
  const mode = options.mode ?? UNROLL_EULER_DEFAULTS.mode;
  const info = eulerJointInfo(options.order, joints, 'unrollEuler');
  checkMode(mode, 'unrollEuler');
  const out = options.out ?? new Float64Array(data.length);
  if (out.length !== data.length) {
    throw new ShapeError(`unrollEuler: out has ${out.length} values, angles has ${data.length}`);
  }
  const initial = options.initial;
  checkInitial(initial, joints, 'unrollEuler');
  if (initial !== undefined && initial !== null && initial.length !== joints * 3) {
    throw new ShapeError(
      `unrollEuler: initial has ${initial.length} values, expected ${joints * 3} (3 per joint)`,
    );
  }
  unrollEulerData(data, out, joints, info, mode === 'equivalent', initial ?? null, 'unrollEuler');
  if (isSeries) {
    const s = angles as Vec3Series;
    return { data: out, frames: s.frames, joints: s.joints };
  }
  return out;
}

/**
 * Moves one Euler triple, in place at `angles[offset..+3]` (radians), to the triple of the same rotation
 * closest to `previous[previousOffset..+3]`: the single-frame step of {@link unrollEuler}, for code that
 * produces Euler angles frame by frame (a BVH writer, a streaming exporter). `mode` as in
 * {@link unrollEuler}, default `'equivalent'`. Allocates nothing.
 *
 * @throws {OptionError} on an unknown order or mode.
 * @throws {InvalidValueError} when a value of the triple is not finite.
 * @example
 * const prev = new Float64Array([3.1, 1.5, 0]);
 * const cur = new Float64Array([-3.1, 0, 0]);
 * unrollEulerTriple(cur, 0, prev, 0, 'ZYX'); // cur = [-3.1 + 2π, 0, 0]
 */
export function unrollEulerTriple(
  angles: FloatArray,
  offset: number,
  previous: ArrayLike<number>,
  previousOffset: number,
  order: EulerOrder,
  mode: EulerUnrollMode = UNROLL_EULER_DEFAULTS.mode,
): void {
  const info = orderInfo(order, 'unrollEulerTriple');
  if (!(angles instanceof Float64Array || angles instanceof Float32Array || Array.isArray(angles)))
    throw new ShapeError('unrollEulerTriple: angles must be a Float64Array, Float32Array or number[]');
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + 3 > angles.length)
    throw new ShapeError(
      `unrollEulerTriple: no triple at offset ${String(offset)} of ${angles.length} angles`,
    );
  if (previous === null || typeof previous !== 'object' || typeof previous.length !== 'number')
    throw new ShapeError('unrollEulerTriple: previous must be an array of numbers');
  if (!Number.isSafeInteger(previousOffset) || previousOffset < 0 || previousOffset + 3 > previous.length)
    throw new ShapeError(`unrollEulerTriple: no previous triple at offset ${String(previousOffset)}`);
  checkMode(mode, 'unrollEulerTriple');
  const a = angles[offset];
  const b = angles[offset + 1];
  const c = angles[offset + 2];
  if (!(Number.isFinite(a) && Number.isFinite(b) && Number.isFinite(c))) {
    throw new InvalidValueError(`unrollEulerTriple: non-finite Euler angles (${a}, ${b}, ${c})`);
  }
  followTriple(angles, offset, a, b, c, previous, previousOffset, info, 0, mode === 'equivalent');
}
