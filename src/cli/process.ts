import { ROTATION_SPACES, type RotationSpace } from '../ops/kernel/rotation-blend.js';
import type { ClipStep } from '../pipeline/steps.js';
import { BATCH_OPTIONS, COMMON_OPTIONS, type Command, OUTPUT_OPTIONS, oneOf, UsageError } from './command.js';
import { CLIP_IO } from './formats.js';
import { resampleOptions, resampleStep } from './resample.js';
import { runFileCommand } from './run.js';
import {
  bvhOutputOptions,
  loopValue,
  optional,
  parseKernelText,
  precisionOption,
  segmentsValue,
} from './shared.js';

/** `rotsig process`: several steps in one pass. */
export const processCommand: Command = {
  name: 'process',
  summary: 'run a pipeline (unroll, smooth, resample) over many files in one pass',
  usage: 'rotsig process <file|dir>... -o <dir> [--unroll] [--smooth gaussian:0.0167] [--resample <hz>]',
  description: `
Reads each file once, applies the requested steps in a fixed order (unroll, smooth, resample) and writes
one BVH per input, mirroring the input tree under -o. Files run in parallel on --jobs worker threads;
a file that fails is reported with its path and line:column and the others complete.
--smooth takes gaussian:<sigma>, unsharp:<sigma>:<amount> or tent; sigma is a time as in 'rotsig smooth'
(0.02 or 20ms seconds, 2f frames; gaussian alone: 1/60 s). The resample options (--kernel,
--boundary, --duration, --no-antialias, --optimal, --playback) are those of 'rotsig resample'; --space
applies to both smoothing (default raw) and resampling (default log). At least one step is required;
to only rewrite files with continuous Euler curves, use 'rotsig unroll'.`,
  examples: [
    'rotsig process captures/ -o cleaned/ --unroll --smooth gaussian:20ms --resample 30',
    "rotsig process captures/ --glob '**/*walk*.bvh' -o out/ --unroll --jobs 2",
  ],
  inputs: CLIP_IO,
  outputs: CLIP_IO,
  options: {
    unroll: { type: 'boolean', description: 'remove quaternion sign flips and Euler wraps (rotsig unroll)' },
    smooth: {
      type: 'string',
      value: 'kernel',
      description: 'gaussian:<sigma>, unsharp:<sigma>:<amount> or tent (sigma: 0.02, 20ms or 2f)',
    },
    resample: { type: 'string', value: 'hz', description: 'resample to this rate (rotsig resample --rate)' },
    ...resampleOptions,
    space: {
      type: 'string',
      value: 'space',
      description: 'raw, log or eigen (default: raw for --smooth, log for --resample)',
    },
    ...OUTPUT_OPTIONS,
    ...bvhOutputOptions,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const v = parsed.values;
    // Options of a step that is not asked for would be ignored without a word; say so instead.
    if (v.resample === undefined) {
      const stray = ['kernel', 'boundary', 'duration', 'no-antialias', 'optimal', 'playback'].find(
        (name) => v[name] !== undefined,
      );
      if (stray) throw new UsageError(`--${stray} is a resample option; give --resample <hz> with it`);
      if (v.smooth === undefined && v.space !== undefined)
        throw new UsageError('--space applies to --smooth and --resample; give one of them with it');
    }
    const steps: ClipStep[] = [];
    if (v.unroll === true) steps.push({ op: 'unroll' });
    if (v.smooth !== undefined) {
      const space = v.space as string | undefined;
      steps.push({
        op: 'smooth',
        kernel: parseKernelText(v.smooth as string, '--smooth'),
        space: oneOf<RotationSpace>(space, 'space', ROTATION_SPACES, 'raw'),
        ...optional('segments', segmentsValue(parsed)),
        ...optional('loop', loopValue(parsed)),
      });
    }
    if (v.resample !== undefined) steps.push(resampleStep(parsed, v.resample as string, 'resample'));
    if (steps.length === 0) {
      throw new UsageError(
        "nothing to do: give --unroll, --smooth or --resample (to only rewrite the files with continuous Euler curves, use 'rotsig unroll')",
      );
    }
    return runFileCommand(parsed, io, {
      command: 'process',
      steps,
      emit: { kind: 'clip', precision: precisionOption(parsed) },
      outputs: 'file',
    });
  },
};
