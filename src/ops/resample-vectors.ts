/**
 * Resampling of vector channels (translations, positions, any 3-vectors) on the same kernels and time
 * grids as rotations.
 *
 * @module
 */
import { ShapeError } from '../errors.js';
import { assertFiniteSeries, assertVec3Series, checkSeriesSize } from '../series/create.js';
import type { FloatArray, Vec3Series } from '../series/types.js';
import { planResample, type ResampledGrid, type ResampleOptions } from './resample-support.js';
import { blendChannels, createTapWindow, placeTaps } from './rotation-window.js';

/** Options of {@link resampleVectors}: those of `resampleRotations` (`space` is ignored). */
export interface ResampleVectorsOptions<T extends FloatArray = Float64Array> extends ResampleOptions {
  /** Where to write (`frames x joints` of the output grid). Default: a new Float64 series. */
  out?: Vec3Series<T>;
}

/** Defaults of {@link ResampleVectorsOptions}: the same as `RESAMPLE_DEFAULTS`. */
export { RESAMPLE_DEFAULTS as RESAMPLE_VECTORS_DEFAULTS } from './resample-support.js';

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
  assertFiniteSeries(series.data, series.joints, 3, `${where}: series`);
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
  if (grid.frames > 0 && joints > 0) {
    const win = createTapWindow(plan.kernel, series.frames, plan.boundary);
    const channels = joints * 3;
    for (let f = 0; f < grid.frames; f++) {
      placeTaps(win, grid.positions[f]);
      blendChannels(out.data, f * channels, series.data, channels, win);
    }
  }
  return { data: out.data, frames: grid.frames, joints, rate: grid.rate, times: grid.times };
}
