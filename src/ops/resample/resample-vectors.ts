/**
 * Resampling of vector channels (translations, positions, any 3-vectors) on the same kernels and time
 * grids as rotations.
 *
 * @module
 */
import { ShapeError } from '../../errors.js';
import { assertFiniteSeries, assertVec3Series, checkSeriesSize } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import { blendChannels, createTapWindow, placeTaps, type TapWindow } from '../kernel/tap-window.js';
import {
  planResample,
  type ResampledGrid,
  type ResampleOptions,
  type ResamplePlan,
} from './resample-plan.js';

/** Options of {@link resampleVectors}: those of `resampleRotations` (`space` is ignored). */
export interface ResampleVectorsOptions<T extends FloatArray = Float64Array> extends ResampleOptions {
  /** Where to write (`frames x joints` of the output grid). Default: a new Float64 series. */
  out?: Vec3Series<T>;
}

/** Defaults of {@link ResampleVectorsOptions}: the same as `RESAMPLE_DEFAULTS`. */
export { RESAMPLE_DEFAULTS as RESAMPLE_VECTORS_DEFAULTS } from './resample-plan.js';

/**
 * Resamples a vector series from `sourceRate` to `targetRate` (or explicit `times`) with a kernel:
 * output frame i is `Σₖ kernel(u − k)·x[k] / Σₖ kernel(u − k)` at source position `u = times[i]·sourceRate`,
 * per joint and component, on exactly the grid `resampleRotations` uses for the same options (so a clip's
 * rotations and translations stay in step). Down-sampling widens the kernel by the ratio unless
 * `antialias: false`; interpolating kernels reproduce source samples at shared times.
 *
 * Edge cases: 0 frames give 0 frames; non-finite input is rejected up front, naming frame and joint.
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025).
 *
 * @param options - Defaults in {@link RESAMPLE_VECTORS_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} on a malformed series or `out`. @throws {OptionError} on bad options.
 * @throws {InvalidValueError} on non-finite samples or non-uniform `sourceTimes`.
 * @example
 * const root = resampleVectors(clip.translations, { sourceRate: 120, targetRate: 30, kernel: 'lanczos3' });
 */
export function resampleVectors<T extends FloatArray = Float64Array>(
  series: Vec3Series,
  options: ResampleVectorsOptions<T>,
): Vec3Series<T> & ResampledGrid {
  const where = 'resampleVectors';
  assertVec3Series(series, `${where}: series`);
  const plan = planResample(series.frames, options, where, series.joints * 3);
  const { grid } = plan;
  checkSeriesSize(grid.frames, series.joints, 3, where);
  const joints = series.joints;
  let out: Vec3Series<T>;
  if (options.out !== undefined) {
    assertVec3Series(options.out, `${where}: out`);
    if (options.out.frames !== grid.frames || options.out.joints !== joints) {
      throw new ShapeError(
        `${where}: out is ${options.out.frames} x ${options.out.joints}, the output grid is ${grid.frames} x ${joints}`,
      );
    }
    out = options.out;
  } else {
    out = { data: new Float64Array(grid.frames * joints * 3) as T, frames: grid.frames, joints };
  }
  blendVectorsAt(out.data, series, plan, grid.positions, `${where}: series`);
  return { data: out.data, frames: grid.frames, joints, rate: grid.rate, times: grid.times };
}

/**
 * The blend of {@link resampleVectors} once its plan is made: `series` at the source positions
 * `positions` (in frames) under the plan's kernel and boundary, into `out` (`positions.length x joints x
 * 3`, frame-major). `resampleClip` uses it to evaluate some output frames of a plan again.
 *
 * @throws {InvalidValueError} on a non-finite sample, naming `name`, the frame and the joint.
 * @internal
 */
export function blendVectorsAt(
  out: FloatArray,
  series: Vec3Series,
  plan: ResamplePlan,
  positions: Float64Array,
  name: string,
): void {
  const joints = series.joints;
  if (positions.length === 0 || joints === 0) return;
  const win = createTapWindow(plan.kernel, series.frames, plan.boundary);
  const channels = joints * 3;
  const moving = movingJoints(series.data, series.frames, joints);
  // non-finite samples, found in the same pass, are reported with their frame and joint
  if (moving === null) assertFiniteSeries(series.data, joints, 3, name);
  if (moving === null || moving.length === joints) {
    for (let f = 0; f < positions.length; f++) {
      placeTaps(win, positions[f]);
      blendChannels(out, f * channels, series.data, channels, win);
    }
  } else {
    blendMoving(out, series.data, series.frames, joints, moving, win, positions);
  }
}

/**
 * The joints whose vector changes at some frame (bit for bit), or null when a sample is not finite. A clip's translations are mostly constant
 * bone offsets (an AMASS clip moves 1 of its 52), and a constant resamples to itself.
 */
function movingJoints(data: FloatArray, frames: number, joints: number): Int32Array | null {
  const stride = joints * 3;
  const moving = new Uint8Array(joints);
  let count = 0;
  // one pass in memory order (a joint-by-joint scan would stride through the whole series per joint);
  // x − x is 0 for every finite x and NaN otherwise, so `bad` stays 0 only on finite data
  let bad = 0;
  for (let c = 0; c < stride; c++) bad += data[c] - data[c];
  for (let f = 1; f < frames; f++) {
    const o = f * stride;
    for (let j = 0, c = 0; j < joints; j++, c += 3) {
      const x = data[o + c];
      const y = data[o + c + 1];
      const z = data[o + c + 2];
      bad += x - x + (y - y) + (z - z);
      if (moving[j] === 0 && (x !== data[c] || y !== data[c + 1] || z !== data[c + 2])) {
        moving[j] = 1;
        count++;
      }
    }
  }
  if (bad !== 0) return null;
  const out = new Int32Array(count);
  for (let j = 0, k = 0; j < joints; j++) if (moving[j]) out[k++] = j;
  return out;
}

/**
 * The resampling loop when some joints are constant: the moving joints are gathered into a compact
 * series and blended as usual; each constant joint gets its value exactly (the normalised weighted sum of
 * a constant, without its rounding). The taps are still placed at every output time, so the boundary
 * rules refuse the same positions.
 */
function blendMoving(
  out: FloatArray,
  data: FloatArray,
  frames: number,
  joints: number,
  moving: Int32Array,
  win: TapWindow,
  positions: Float64Array,
): void {
  const stride = joints * 3;
  const m = moving.length;
  const compact = new Float64Array(frames * m * 3);
  for (let f = 0; f < frames; f++)
    for (let k = 0; k < m; k++) {
      const src = f * stride + moving[k] * 3;
      const dst = (f * m + k) * 3;
      compact[dst] = data[src];
      compact[dst + 1] = data[src + 1];
      compact[dst + 2] = data[src + 2];
    }
  const first = Float64Array.from(data.subarray(0, stride));
  const row = new Float64Array(m * 3);
  for (let f = 0; f < positions.length; f++) {
    placeTaps(win, positions[f]);
    const base = f * stride;
    for (let c = 0; c < stride; c++) out[base + c] = first[c];
    if (m === 0) continue;
    blendChannels(row, 0, compact, m * 3, win);
    for (let k = 0; k < m; k++) {
      const o = base + moving[k] * 3;
      out[o] = row[k * 3];
      out[o + 1] = row[k * 3 + 1];
      out[o + 2] = row[k * 3 + 2];
    }
  }
}
