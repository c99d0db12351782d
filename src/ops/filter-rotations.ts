import { OptionError, ShapeError } from '../errors.js';
import { assertQuatSeries, createQuatSeries } from '../series/create.js';
import type { FloatArray, QuatSeries } from '../series/types.js';
import { isKernel, type Kernel } from './kernels.js';
import {
  type Boundary,
  blendRotations,
  checkRotationSpace,
  createTapWindow,
  createWindowScratch,
  placeTaps,
  type RotationSpace,
} from './rotation-window.js';

/** Options of {@link filterRotations}. */
export interface FilterRotationsOptions<T extends FloatArray = FloatArray> {
  /** Where the weighted sums are taken: `'raw'` (nlerp-like, fastest), `'log'` (slerp-like), `'eigen'` (robust). */
  space?: RotationSpace;
  /** What taps beyond the clip ends read; see {@link Boundary}. */
  boundary?: Boundary;
  /** Receives the result (same shape as the input, must not share its buffer); allocated (Float64) if absent. */
  out?: QuatSeries<T>;
}

/** Defaults of {@link FilterRotationsOptions}: raw space, `'renormalize'` ends (taps past the ends are dropped). */
export const FILTER_ROTATIONS_DEFAULTS: Required<Omit<FilterRotationsOptions, 'out'>> = {
  space: 'raw',
  boundary: 'renormalize',
};

/**
 * Filters every joint's rotation signal along time with `kernel`: output frame `f` is the weighted sum of the
 * input frames `i` with weights `kernel.evaluate(f - i)`, taken in `space` and divided by the weight sum
 * (see `rotation-window.ts` for the three spaces). The output quaternions are unit length and each lies in
 * the hemisphere of the input sample at the same frame, so unrolled input gives unrolled output.
 *
 * Properties: a constant rotation comes back unchanged (to rounding); the filter commutes with a fixed
 * rotation applied to every input (left or right) in all spaces; `'raw'` does not need unrolled input
 * (every sample is aligned to the window centre); kernels with negative lobes (unsharp, lanczos) work in all
 * three spaces. Tap weights are computed once per output frame and reused for all joints; no allocation
 * inside the frame loop.
 *
 * Edge cases: 0 frames give an empty series; 1 frame gives the (normalised) input; windows longer than the
 * clip follow the boundary rule (`'wrap'` revisits frames). When the tap weights at a frame sum to zero (a
 * zero-mean kernel cut by `'renormalize'` at an end) an {@link InvalidValueError} names the frame; choose
 * another boundary then.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025): raw, relative-log and eigen weighted
 * sums; Lee and Shin (1995) for the relative log form; Markley et al. (2007) for the eigen average.
 *
 * @param series - input rotations, `x, y, z, w`, unit (raw space weighs samples by their norm).
 * @param kernel - a {@link Kernel} from `kernels`, in frames.
 * @throws {ShapeError} on a malformed series or `out`; {@link OptionError} on a bad kernel, space, boundary
 *   or an `out` aliasing the input; {@link InvalidValueError} on non-finite input or vanishing weight sums,
 *   with `location.frame` and `location.joint`.
 * @example
 * const smooth = filterRotations(clip.rotations, kernels.gaussian(2), { space: 'log' });
 */
export function filterRotations<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  kernel: Kernel,
  options: FilterRotationsOptions<T> = {},
): QuatSeries<T> {
  assertQuatSeries(series, 'filterRotations: series');
  if (!isKernel(kernel)) throw new OptionError('filterRotations: kernel must be a Kernel (see kernels)');
  const space = options.space ?? FILTER_ROTATIONS_DEFAULTS.space;
  checkRotationSpace(space, 'filterRotations');
  const boundary = options.boundary ?? FILTER_ROTATIONS_DEFAULTS.boundary;
  const { frames, joints } = series;
  const out = (options.out ?? createQuatSeries(frames, joints)) as QuatSeries<T>;
  if (options.out !== undefined) {
    assertQuatSeries(out, 'filterRotations: out');
    if (out.frames !== frames || out.joints !== joints) {
      throw new ShapeError(
        `filterRotations: out is ${out.frames} x ${out.joints}, series is ${frames} x ${joints}`,
      );
    }
    if (out.data.buffer === series.data.buffer && frames * joints > 0) {
      throw new OptionError('filterRotations: out must not share the input buffer');
    }
  }
  const win = createTapWindow(kernel, frames, boundary);
  if (frames === 0 || joints === 0) return out;
  const scratch = createWindowScratch();
  const stride = joints * 4;
  const src = series.data;
  const dst = out.data;
  for (let f = 0; f < frames; f++) {
    placeTaps(win, f);
    blendRotations(dst, f * stride, src, joints, win, space, scratch);
  }
  return out;
}
