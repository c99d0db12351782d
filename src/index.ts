/**
 * rotsig: signal processing on rotations. The root entry point is browser-safe: no `node:*`, no DOM.
 * Formats live in `rotsig/io`, files and workers in `rotsig/node`.
 *
 * @packageDocumentation
 */
// biome-ignore-all assist/source/organizeImports: grouped by area, in the order a reader meets them

// Foundation: errors, single-rotation kernels, shape-carrying series.
export * from './errors.js';
export type { EulerOrder } from './quat/euler.js';
export * as quat from './quat/index.js';
export * from './series/index.js';

// Skeletons and features.
export * from './ops/skeleton/arrays.js';
export * from './ops/skeleton/forward-kinematics.js';

// Averaging and blending.
export * from './ops/average/average-cost.js';
export * from './ops/average/average-euler.js';
export * from './ops/average/average-quaternions.js';
export * from './ops/blend/blend-clips.js';
export * from './ops/blend/blend-poses.js';
export * from './ops/blend/interpolate.js';

// Unrolling and continuity.
export * from './ops/unroll/euler-from-quat-series.js';
export * from './ops/analysis/find-discontinuities.js';
export {
  JUMP_SPIKE_RATIO,
  type JumpSplit,
  jumpCuts,
  jumpSplits,
  SEGMENT_POLICIES,
  type SegmentPolicy,
} from './ops/analysis/segments.js';
export * from './ops/analysis/loop.js';
export * from './ops/unroll/rotation-series.js';
export * from './ops/unroll/unroll-clip.js';
export * from './ops/unroll/unroll-euler.js';
export * from './ops/unroll/unroll-quaternions.js';
export * from './ops/unroll/unroll-rotation-vectors.js';

// Kernels, filtering and velocities.
export {
  ANGULAR_VELOCITY_DEFAULTS,
  type AngularVelocityOptions,
  angularVelocity,
} from './ops/velocity/angular-velocity.js';
export * from './ops/velocity/clip-velocities.js';
export * from './ops/filter/filter-clip.js';
export * from './ops/filter/filter-rotations.js';
export {
  FILTER_VECTORS_DEFAULTS,
  type FilterVectorsOptions,
  filterVectors,
} from './ops/filter/filter-vectors.js';
export type { Kernel } from './ops/kernel/kernels.js';
export * as kernels from './ops/kernel/kernels.js';
export * from './ops/velocity/linear-velocity.js';
export * from './ops/kernel/rotation-blend.js';
export {
  BOUNDARIES,
  type Boundary,
  blendChannels,
  createTapWindow,
  mapBoundaryFrame,
  placeTaps,
  type TapWindow,
  ZERO_SUM,
} from './ops/kernel/tap-window.js';

// Live (streaming) filters: one sample at a time, any frame rate, and their offline forms for clips.
export {
  type LiveFilter,
  type LiveStateBase,
  MAX_LIVE_VALUE,
  MAX_STATE_VALUE,
  MIN_TIME_STEP,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
} from './ops/live/live-contract.js';
export * from './ops/live/damp-clip.js';
export * from './ops/live/damper.js';
export * from './ops/live/one-euro.js';
export * from './ops/live/one-euro-clip.js';
export { CLIP_DIRECTIONS, type ClipDirection } from './ops/live/run-clip.js';
export * from './ops/live/streaming-filter.js';
export * from './ops/live/streaming-unroll.js';

// Resampling and spectra.
export * from './ops/spectrum/clip-spectrum.js';
export * from './ops/resample/downsample-optimal.js';
export * from './ops/resample/resample-clip.js';
// by name: these modules also hold the blends that resampleClip shares (internal)
export {
  RESAMPLE_DEFAULTS,
  RESAMPLE_KERNEL_NAMES,
  type ResampledGrid,
  type ResampleKernelName,
  type ResampleOptions,
  type ResampleRotationsOptions,
  resampleKernel,
  resampleRotations,
} from './ops/resample/resample-rotations.js';
export {
  RESAMPLE_VECTORS_DEFAULTS,
  type ResampleVectorsOptions,
  resampleVectors,
} from './ops/resample/resample-vectors.js';
export * from './ops/spectrum/spectrum.js';
export * from './ops/resample/time-grid.js';

// Key reduction.
export * from './ops/reduce/index.js';

// Keyed tracks (glTF-style animation): evaluate, bake, keys, subclip, additive.
export * from './ops/keys/index.js';

// Features for machine learning: root motion, foot contacts, training feature matrices.
export * from './ops/ml/index.js';

// Whole-clip analysis (behind `rotsig info`).
export * from './ops/analysis/analyze-clip.js';
export {
  type ClipRate,
  clipRate,
  keyTimesRate,
  STANDARD_RATE_TOLERANCE,
  standardRate,
} from './ops/analysis/rate.js';

// Fitting rotations to data.
export * from './ops/fit/align-vectors.js';
export { seededRandom } from './numeric/random.js';

// Cleaning jittery motion (pose-estimator output): spikes, flips, smoothing chosen from the spectrum.
export * from './ops/clean/index.js';
