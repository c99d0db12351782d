/**
 * rotsig/node: the parts of rotsig that touch the file system and threads: reading BVH and glTF files, atomic
 * writes, walking input trees, the worker pool behind `rotsig --jobs`, and the batch runner the CLI uses.
 *
 * @packageDocumentation
 */
export * from './atomic.js';
export * from './batch.js';
export * from './files.js';
export * from './formats.js';
export * from './gltf.js';
export {
  BVH_TO_GLTF_SCALE,
  type GltfChannelInfo,
  type GltfInfo,
  gltfInfo,
  runKeyedSteps,
} from './gltf-task.js';
export * from './plan.js';
export * from './pool.js';
export * from './progress.js';
export * from './read.js';
export * from './spectrum-svg.js';
export type { ClipStep, Emit, Emitted } from './steps.js';
export { emitClip, type RunStepsOptions, runSteps } from './steps.js';
export { type FileTask, formatTaskError, type TaskError, type TaskResult } from './task.js';
export { runAnyFileTask, runFileTask } from './tasks.js';
