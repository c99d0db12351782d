import type { ClipStep } from '../node/steps.js';
import { BOUNDARIES, type Boundary, ROTATION_SPACES, type RotationSpace } from '../ops/rotation-window.js';
import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  OUTPUT_OPTIONS,
  oneOf,
  type Parsed,
  UsageError,
} from './command.js';
import { runFileCommand } from './run.js';
import { bvhOutputOptions, kernelOptions, kernelSpecOption, precisionOption } from './shared.js';

/** The smoothing step described by --kernel/--sigma/--amount, --space, --boundary and --joints. */
export function smoothStep(parsed: Parsed): ClipStep {
  const v = parsed.values;
  const joints = v.joints as string | undefined;
  const names = joints
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names?.length === 0)
    throw new UsageError(`--joints needs joint names (comma-separated), got '${joints}'`);
  return {
    op: 'smooth',
    kernel: kernelSpecOption(parsed),
    space: oneOf<RotationSpace>(v.space as string | undefined, 'space', ROTATION_SPACES, 'raw'),
    boundary: oneOf<Boundary>(v.boundary as string | undefined, 'boundary', BOUNDARIES, 'renormalize'),
    ...(names !== undefined ? { joints: names } : {}),
  };
}

/** `rotsig smooth`: filter rotations and translations along time. */
export const smooth: Command = {
  name: 'smooth',
  summary: 'smooth (or sharpen) rotations and translations with a kernel',
  usage: 'rotsig smooth <file|dir>... -o <file|dir> [--kernel gaussian] [--sigma 2] [--space raw|log|eigen]',
  description: `
Filters every joint's rotation and translation along time with one kernel (filterClip). gaussian
smooths (sigma in frames); unsharp sharpens (signal + amount x its difference from the gaussian blur);
tent is a light 3-tap smoothing. --space says where the rotation weighted sums are taken: raw
(aligned quaternions, fastest), log (slerp-like) or eigen (robust average). --boundary says what the
window reads past the clip ends (renormalize drops those taps; wrap for loops). --joints limits the
filter to some joints (comma-separated names, as in the file).`,
  examples: [
    'rotsig smooth take.bvh -o take.smooth.bvh --sigma 2',
    'rotsig smooth take.bvh -o take.sharp.bvh --kernel unsharp --sigma 2 --amount 0.5 --space eigen',
    'rotsig smooth captures/ -o smoothed/ --sigma 1.5 --joints LeftHand,RightHand',
  ],
  options: {
    ...kernelOptions,
    space: { type: 'string', value: 'space', description: 'raw, log or eigen (default raw)' },
    boundary: {
      type: 'string',
      value: 'policy',
      description: `${BOUNDARIES.join(', ')} (default renormalize)`,
    },
    joints: { type: 'string', value: 'names', description: 'only these joints (comma-separated)' },
    ...OUTPUT_OPTIONS,
    ...bvhOutputOptions,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'smooth',
      steps: [smoothStep(parsed)],
      emit: { kind: 'bvh', precision: precisionOption(parsed) },
      outputs: 'file',
      extension: '.bvh',
    }),
};
