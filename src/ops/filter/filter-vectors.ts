import { OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  frozenDefaults,
  type OptionSpec,
  OUT_ARRAY,
  OUT_SERIES,
  oneOf,
  resolveOptions,
} from '../../options.js';
import { assertFiniteSeries, assertVec3Series, createVec3Series } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import { isKernel, type Kernel } from '../kernel/kernels.js';
import { BOUNDARIES, type Boundary, sampleChannels } from '../kernel/tap-window.js';
import { SMOOTH_DEFAULTS } from './smooth-defaults.js';

/** Options of {@link filterVectors}. */
export interface FilterVectorsOptions<O = unknown> {
  /** What taps beyond the clip ends read; see {@link Boundary}. */
  boundary?: Boundary;
  /** Receives the result: a `Vec3Series` of the same shape, or for a scalar channel an array of its length. */
  out?: O;
}

/** Defaults of {@link FilterVectorsOptions}: `'linear'` ends, like {@link filterRotations}. */
export const FILTER_VECTORS_DEFAULTS: Required<Omit<FilterVectorsOptions, 'out'>> = frozenDefaults({
  boundary: SMOOTH_DEFAULTS.boundary,
});

const FILTER_VECTORS_SPEC: OptionSpec = { boundary: oneOf(BOUNDARIES), out: anyOf(OUT_ARRAY, OUT_SERIES) };

/**
 * Filters vector channels along time with `kernel`: `out[f] = Σᵢ k(f − i)·x[i] / Σᵢ k(f − i)` per component,
 * over the frames `i` under the kernel (boundary rule applied). Takes a `Vec3Series` (root positions,
 * translations, angular velocities; every joint and component is filtered independently) or a plain scalar
 * channel (`Float64Array`, `Float32Array` or `number[]`, one value per frame), and returns the same kind
 * (Float64 unless `out` is given).
 *
 * This is the linear filter the rotation filters reduce to on vectors: filtering by `a` then `b` equals one
 * pass with `composeKernels(a, b)` (to rounding, away from the ends). Weights are divided by their sum, so a
 * kernel's scale does not matter and constants are preserved. Same boundary rules and edge cases as
 * {@link filterRotations}; non-finite input is rejected up front.
 *
 * Method: discrete convolution of a Dirac-train signal with a continuous kernel (Holden, "Filtering,
 * Convolutions, and Quaternions", 2025). With `kernels.gaussian(σ)` and `boundary: 'reflect'` it matches SciPy's
 * `gaussian_filter1d(x, σ, mode='mirror')`.
 *
 * @throws {ShapeError} on malformed input or `out`; {@link OptionError} on a bad kernel/boundary or an
 *   aliasing `out`; {@link InvalidValueError} on a non-finite value (frame, joint) or vanishing weight sums.
 * @example
 * const smoothRoot = filterVectors(clip.translations, kernels.gaussian(2));
 * const smoothCurve = filterVectors(new Float64Array([0, 1, 0, 1]), kernels.tent);
 */
export function filterVectors<T extends FloatArray = Float64Array>(
  series: Vec3Series,
  kernel: Kernel,
  options?: FilterVectorsOptions<Vec3Series<T>>,
): Vec3Series<T>;
export function filterVectors(
  values: FloatArray | number[],
  kernel: Kernel,
  options?: FilterVectorsOptions<FloatArray>,
): Float64Array;
export function filterVectors(
  input: Vec3Series | FloatArray | number[],
  kernel: Kernel,
  options: FilterVectorsOptions<Vec3Series | FloatArray> = {},
): Vec3Series | FloatArray {
  if (!isKernel(kernel)) throw new OptionError('filterVectors: kernel must be a Kernel (see kernels)');
  options = resolveOptions('filterVectors', options, FILTER_VECTORS_DEFAULTS, FILTER_VECTORS_SPEC);
  const boundary = options.boundary ?? FILTER_VECTORS_DEFAULTS.boundary;
  if (Array.isArray(input) || input instanceof Float64Array || input instanceof Float32Array) {
    const src =
      input instanceof Float64Array || input instanceof Float32Array ? input : Float64Array.from(input);
    const n = src.length;
    assertFiniteSeries(src, 1, 1, 'filterVectors: values');
    let out = options.out as FloatArray | undefined;
    if (out === undefined) out = new Float64Array(n);
    else if (!(out instanceof Float64Array || out instanceof Float32Array) || out.length !== n) {
      throw new ShapeError(`filterVectors: out must be a Float64Array or Float32Array of length ${n}`);
    } else if (out.buffer === src.buffer && n > 0) {
      throw new OptionError('filterVectors: out must not share the input buffer');
    }
    filterChannels(out, src, n, 1, kernel, boundary);
    return out;
  }
  assertVec3Series(input, 'filterVectors: series');
  const { frames, joints } = input;
  assertFiniteSeries(input.data, joints, 3, 'filterVectors: series');
  const out = (options.out as Vec3Series | undefined) ?? createVec3Series(frames, joints);
  if (options.out !== undefined) {
    assertVec3Series(out, 'filterVectors: out');
    if (out.frames !== frames || out.joints !== joints) {
      throw new ShapeError(
        `filterVectors: out is ${out.frames} x ${out.joints}, series is ${frames} x ${joints}`,
      );
    }
    if (out.data.buffer === input.data.buffer && frames * joints > 0) {
      throw new OptionError('filterVectors: out must not share the input buffer');
    }
  }
  filterChannels(out.data, input.data, frames, joints * 3, kernel, boundary);
  return out;
}

/**
 * Filters `frames` rows of `channels` interleaved values from `src` into `dst` (no aliasing), output row `f`
 * centred on frame `f`. Accumulates in Float64 even when `dst` is Float32.
 *
 * @internal
 */
export function filterChannels(
  dst: FloatArray,
  src: FloatArray,
  frames: number,
  channels: number,
  kernel: Kernel,
  boundary: Boundary,
): void {
  sampleChannels(dst, src, frames, channels, kernel, boundary, frames, identityCentre);
}

function identityCentre(i: number): number {
  return i;
}
