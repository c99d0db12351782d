/**
 * rotsig: signal processing on rotations. The root entry point is browser-safe: no `node:*`, no DOM.
 * Formats live in `rotsig/io`, files and workers in `rotsig/node`.
 *
 * @packageDocumentation
 */
export * from './errors.js';
export type { EulerOrder } from './quat/euler.js';
export * as quat from './quat/index.js';
export * from './series/index.js';
// operations (one file each) are re-exported below, one line per file
export * from './ops/unroll-quaternions.js';
export * from './ops/unroll-euler.js';
export * from './ops/euler-from-quat-series.js';
export * from './ops/unroll-rotation-vectors.js';
export * from './ops/unroll-clip.js';
export * from './ops/rotation-series.js';
export * from './ops/find-discontinuities.js';
export * from './ops/analyze-clip.js';
export * from './ops/forward-kinematics.js';
export * as kernels from './ops/kernels.js';
export type { Kernel } from './ops/kernels.js';
export * from './ops/rotation-window.js';
export * from './ops/filter-rotations.js';
export * from './ops/filter-vectors.js';
export * from './ops/arrays.js';
export * from './ops/angular-velocity.js';
export * from './ops/linear-velocity.js';
export * from './ops/average-quaternions.js';
export * from './ops/average-cost.js';
export * from './ops/average-euler.js';
export * from './ops/blend-poses.js';
export * from './ops/blend-clips.js';
export * from './ops/interpolate.js';
export * from './ops/filter-clip.js';
export * from './ops/clip-velocities.js';
export * from './ops/spectrum.js';
export * from './ops/clip-spectrum.js';
export * from './ops/time-grid.js';
export * from './ops/resample-rotations.js';
export * from './ops/resample-vectors.js';
export * from './ops/resample-clip.js';
export * from './ops/downsample-optimal.js';
