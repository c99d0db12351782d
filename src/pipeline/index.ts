/**
 * rotsig/pipeline: the processing pipeline the command line and the studio share. A step list as plain
 * data ({@link ClipStep}), run on a uniform clip ({@link runSteps}) or a keyed one ({@link runKeyedSteps},
 * baked on {@link keyedBakeRate}), optimal down-sampling ({@link resampleOptimal}) and the outputs a
 * processed clip becomes ({@link emitClip}). Browser-safe: no `node:*`, no DOM; files and workers are
 * `rotsig/node`'s and the CLI's.
 *
 * @packageDocumentation
 */
export {
  BVH_WRITER,
  CLIP_WRITERS,
  type ClipWriter,
  type EmittedContent,
  NPZ_WRITER,
  type WriteClipOptions,
} from './clip-writers.js';
export { csvTextCell, type FrameTable, frameTableCsv, frameTableJson } from './formats.js';
export {
  bakeKeyed,
  CUBIC_BAKE_RATE,
  keyedBakeRate,
  RUN_KEYED_STEPS_DEFAULTS,
  runKeyedSteps,
} from './keyed.js';
export { renderSpectrumSvg, type SpectrumPlot } from './spectrum-svg.js';
export {
  type ClipStep,
  type Emit,
  type Emitted,
  emitClip,
  type FeatureKind,
  type KernelSpec,
  kernelFromSpec,
  type LiveFilterSpec,
  type MotionFeatureSpec,
  RESAMPLE_OPTIMAL_DEFAULTS,
  type ReduceEmit,
  type ResampleOptimalOptions,
  RUN_STEPS_DEFAULTS,
  type RunStepsOptions,
  resampleOptimal,
  runSteps,
  SMOOTH_DEFAULTS,
  type SpectrumSummary,
  type StepReport,
  subclipSeconds,
  type TableFormat,
  type WidthUnit,
} from './steps.js';
