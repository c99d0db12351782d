import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_BUFFER, oneOf, resolveOptions } from '../../options.js';
import { from6DFlat, fromMatrixFlat, to6DFlat, toMatrixFlat } from '../../quat/index.js';
import { assertQuatSeries } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { unrollQuaternionData } from './unroll-kernels.js';

/**
 * A time series of 3x3 rotation matrices, frame-major, row-major (`m[r * 3 + c]`, acting on column
 * vectors): the matrix of joint `j` at frame `f` starts at `data[(f * joints + j) * 9]`.
 */
export interface MatrixSeries<T extends FloatArray = FloatArray> {
  data: T;
  frames: number;
  joints: number;
}

/**
 * A time series of 6D rotations (Zhou et al. 2019): the first two matrix columns
 * `[m00, m10, m20, m01, m11, m21]` of joint `j` at frame `f` start at `data[(f * joints + j) * 6]`.
 */
export interface SixDSeries<T extends FloatArray = FloatArray> {
  data: T;
  frames: number;
  joints: number;
}

/** Options of {@link fromMatrixSeries} and {@link from6DSeries}. */
export interface RotationSeriesOptions {
  /**
   * Sign of the quaternions produced: `'continuous'` (default) runs {@link unrollQuaternions} so consecutive
   * frames share a hemisphere, `'hemisphere'` puts every quaternion at `w >= 0` independently.
   */
  sign?: 'continuous' | 'hemisphere';
  /** Where to write the quaternions, `frames * joints * 4` values. Default: a new Float64Array. */
  out?: FloatArray;
}

/** Options of {@link toMatrixSeries} and {@link to6DSeries}. */
export interface ToRotationSeriesOptions<T extends FloatArray = FloatArray> {
  /** Where to write (`frames * joints * 9` or `* 6` values, Float64 or Float32). Default: a new Float64Array. */
  out?: T;
}

/** Defaults of {@link ToRotationSeriesOptions}: the output is allocated. */
export const TO_ROTATION_SERIES_DEFAULTS: ToRotationSeriesOptions = frozenDefaults({});

const TO_ROTATION_SERIES_SPEC: OptionSpec = { out: OUT_BUFFER };

/** Defaults of the optional fields of {@link RotationSeriesOptions}. */
export const ROTATION_SERIES_DEFAULTS = frozenDefaults({
  sign: 'continuous' as 'continuous' | 'hemisphere',
} as const);

const ROTATION_SERIES_SPEC: OptionSpec = { sign: oneOf(['continuous', 'hemisphere']), out: OUT_BUFFER };

type Kernel = (dst: FloatArray, dstOffset: number, src: FloatArray, srcOffset: number) => void;

function convert(
  src: FloatArray,
  srcWidth: number,
  dst: FloatArray,
  dstWidth: number,
  joints: number,
  kernel: Kernel,
  where: string,
): void {
  const items = joints > 0 ? src.length / srcWidth : 0;
  let k = 0;
  try {
    for (; k < items; k++) kernel(dst, k * dstWidth, src, k * srcWidth);
  } catch (e) {
    if (!(e instanceof InvalidValueError)) throw e;
    const frame = Math.floor(k / joints);
    const joint = k % joints;
    throw new InvalidValueError(`${where}: ${e.message} (frame ${frame}, joint ${joint})`, { frame, joint });
  }
}

function checkSeries(series: MatrixSeries | SixDSeries, width: number, where: string): void {
  if (series === null || typeof series !== 'object')
    throw new ShapeError(`${where}: expected a series object`);
  const { data, frames, joints } = series;
  if (!(data instanceof Float64Array || data instanceof Float32Array)) {
    throw new ShapeError(`${where}: data must be a Float64Array or Float32Array`);
  }
  if (!Number.isInteger(frames) || frames < 0 || !Number.isInteger(joints) || joints < 0) {
    throw new ShapeError(
      `${where}: frames and joints must be non-negative integers, got ${frames} x ${joints}`,
    );
  }
  if (data.length !== frames * joints * width) {
    throw new ShapeError(
      `${where}: data has ${data.length} values, expected frames ${frames} x joints ${joints} x ${width}`,
    );
  }
}

function outFor(out: FloatArray | undefined, n: number, where: string): FloatArray {
  const target = out ?? new Float64Array(n);
  if (!(target instanceof Float64Array || target instanceof Float32Array))
    throw new ShapeError(`${where}: out must be a Float64Array or Float32Array`);
  if (target.length !== n) throw new ShapeError(`${where}: out has ${target.length} values, expected ${n}`);
  return target;
}

/**
 * Rotation matrices of every quaternion of a series (`frames x joints x 9`, row-major).
 *
 * Matrices are continuous in the rotation and bounded, with no sign or wrap ambiguity, at the price of
 * nine numbers; `q` and `-q` give the same matrix. Non-unit quaternions give the matrix of the rotation
 * they represent. 0 frames or joints give an empty series.
 *
 * Method: D. Holden, "Unrolling Rotations" (2024), section "Rotation Matrices".
 *
 * @throws {ShapeError} on a malformed series or `out` of the wrong length.
 * @throws {InvalidValueError} on a zero or non-finite quaternion, with `location.frame` and `location.joint`.
 * @example
 * const m = toMatrixSeries(createQuatSeries(2, 3)); // 2 x 3 identity matrices
 */
export function toMatrixSeries<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  options: ToRotationSeriesOptions<T> = {},
): MatrixSeries<T> {
  assertQuatSeries(series, 'toMatrixSeries: series');
  const out = resolveOptions(
    'toMatrixSeries',
    options,
    TO_ROTATION_SERIES_DEFAULTS,
    TO_ROTATION_SERIES_SPEC,
  ).out;
  const { frames, joints } = series;
  const data = outFor(out, frames * joints * 9, 'toMatrixSeries') as T;
  convert(series.data, 4, data, 9, joints, toMatrixFlat, 'toMatrixSeries');
  return { data, frames, joints };
}

/**
 * 6D representation of every quaternion of a series (`frames x joints x 6`): the first two columns of each
 * rotation matrix, `[m00, m10, m20, m01, m11, m21]`.
 *
 * Continuous by construction (no sign flips, no wraps, no shells), which is why motion-learning pipelines
 * use it (Zhou et al., "On the Continuity of Rotation Representations in Neural Networks", CVPR 2019).
 * 0 frames or joints give an empty series.
 *
 * @throws {ShapeError} on a malformed series or `out` of the wrong length.
 * @throws {InvalidValueError} on a zero or non-finite quaternion, with `location.frame` and `location.joint`.
 * @example
 * const six = to6DSeries(createQuatSeries(10, 1)); // every row [1, 0, 0, 0, 1, 0]
 */
export function to6DSeries<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  options: ToRotationSeriesOptions<T> = {},
): SixDSeries<T> {
  assertQuatSeries(series, 'to6DSeries: series');
  const out = resolveOptions('to6DSeries', options, TO_ROTATION_SERIES_DEFAULTS, TO_ROTATION_SERIES_SPEC).out;
  const { frames, joints } = series;
  const data = outFor(out, frames * joints * 6, 'to6DSeries') as T;
  convert(series.data, 4, data, 6, joints, to6DFlat, 'to6DSeries');
  return { data, frames, joints };
}

function checkSign(options: RotationSeriesOptions, where: string): 'continuous' | 'hemisphere' {
  const sign = options.sign ?? ROTATION_SERIES_DEFAULTS.sign;
  if (sign !== 'continuous' && sign !== 'hemisphere') {
    throw new OptionError(`${where}: sign must be 'continuous' or 'hemisphere', got ${String(sign)}`);
  }
  return sign;
}

function finish(data: FloatArray, joints: number, sign: 'continuous' | 'hemisphere'): void {
  if (sign === 'continuous') {
    unrollQuaternionData(data, data, joints, true);
    return;
  }
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] < 0) {
      data[i] = -data[i];
      data[i + 1] = -data[i + 1];
      data[i + 2] = -data[i + 2];
      data[i + 3] = -data[i + 3];
    }
  }
}

/**
 * Quaternions of a matrix series; the inverse of {@link toMatrixSeries}.
 *
 * Matrices that are not exactly orthogonal are projected to the nearest rotation (`quat.fromMatrix`). A
 * matrix has no sign, so the quaternions get one by policy: `sign: 'continuous'` (default) unrolls them
 * (first frame `w >= 0`, then each the sign nearest the previous frame).
 *
 * @throws {ShapeError} on a malformed series or `out` of the wrong length.
 * @throws {OptionError} on an unknown `sign`.
 * @throws {InvalidValueError} on a non-finite matrix or a determinant <= 0, with `location.frame` and
 *   `location.joint`.
 * @example
 * const q = fromMatrixSeries(toMatrixSeries(series)); // series again, unrolled
 */
export function fromMatrixSeries(matrices: MatrixSeries, options: RotationSeriesOptions = {}): QuatSeries {
  checkSeries(matrices, 9, 'fromMatrixSeries');
  options = resolveOptions('fromMatrixSeries', options, ROTATION_SERIES_DEFAULTS, ROTATION_SERIES_SPEC);
  const sign = checkSign(options, 'fromMatrixSeries');
  const { frames, joints } = matrices;
  const data = outFor(options.out, frames * joints * 4, 'fromMatrixSeries');
  convert(matrices.data, 9, data, 4, joints, fromMatrixFlat, 'fromMatrixSeries');
  finish(data, joints, sign);
  return { data, frames, joints };
}

/**
 * Quaternions of a 6D series; the inverse of {@link to6DSeries}. Each pair of columns is orthonormalised by
 * Gram-Schmidt first (`quat.from6D`), so raw network outputs are accepted. Signs as in
 * {@link fromMatrixSeries}.
 *
 * @throws {ShapeError} on a malformed series or `out` of the wrong length.
 * @throws {OptionError} on an unknown `sign`.
 * @throws {InvalidValueError} on zero, parallel or non-finite columns, with `location.frame` and
 *   `location.joint`.
 * @example
 * const q = from6DSeries(to6DSeries(series)); // series again, unrolled
 */
export function from6DSeries(sixD: SixDSeries, options: RotationSeriesOptions = {}): QuatSeries {
  checkSeries(sixD, 6, 'from6DSeries');
  options = resolveOptions('from6DSeries', options, ROTATION_SERIES_DEFAULTS, ROTATION_SERIES_SPEC);
  const sign = checkSign(options, 'from6DSeries');
  const { frames, joints } = sixD;
  const data = outFor(options.out, frames * joints * 4, 'from6DSeries');
  convert(sixD.data, 6, data, 4, joints, from6DFlat, 'from6DSeries');
  finish(data, joints, sign);
  return { data, frames, joints };
}
