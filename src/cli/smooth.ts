import { SMOOTH_DEFAULTS } from '../ops/filter/smooth-defaults.js';
import { ROTATION_SPACES, type RotationSpace } from '../ops/kernel/rotation-blend.js';
import { BOUNDARIES, type Boundary } from '../ops/kernel/tap-window.js';
import { DAMPER_DEFAULTS, MAX_HALF_LIFE, MIN_HALF_LIFE } from '../ops/live/damper.js';
import { ONE_EURO_DEFAULTS } from '../ops/live/one-euro.js';
import { CLIP_DIRECTIONS } from '../ops/live/run-clip.js';
import type { ClipStep } from '../pipeline/steps.js';
import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  OUTPUT_OPTIONS,
  oneOf,
  type Parsed,
  UsageError,
} from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import {
  bvhOutputOptions,
  kernelOptions,
  kernelSpecOption,
  loopOption,
  loopValue,
  optional,
  precisionOption,
  segmentsOption,
  segmentsValue,
} from './shared.js';

/** Reads a positive (or, with `zero`, non-negative) number option. */
function numberOption(parsed: Parsed, name: string, fallback: number, zero = false): number {
  const text = parsed.values[name] as string | undefined;
  if (text === undefined) return fallback;
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || x < 0 || (!zero && x === 0)) {
    throw new UsageError(`--${name} must be a ${zero ? 'non-negative' : 'positive'} number, got '${text}'`);
  }
  return x;
}

/**
 * The smoothing step described by --filter (kernel, one-euro or damper) and its options: --kernel/--sigma/
 * --amount, --space, --boundary for kernels; --min-cutoff, --beta, --d-cutoff or --half-life and --direction
 * for the streaming filters; --joints for all.
 */
export function smoothStep(parsed: Parsed): ClipStep {
  const v = parsed.values;
  const joints = v.joints as string | undefined;
  const names = joints
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names?.length === 0)
    throw new UsageError(`--joints needs joint names (comma-separated), got '${joints}'`);
  const filter = oneOf(
    v.filter as string | undefined,
    'filter',
    ['kernel', 'one-euro', 'damper'] as const,
    'kernel',
  );
  const live = ['min-cutoff', 'beta', 'd-cutoff', 'half-life', 'direction'].filter((k) => v[k] !== undefined);
  const kernelOnly = ['kernel', 'sigma', 'amount', 'space', 'boundary', 'loop', 'segments'].filter(
    (k) => v[k] !== undefined,
  );
  if (filter !== 'kernel') {
    if (kernelOnly.length) throw new UsageError(`--${kernelOnly[0]} applies to --filter kernel only`);
    const direction = oneOf(v.direction as string | undefined, 'direction', CLIP_DIRECTIONS, 'forward');
    if (filter === 'one-euro') {
      if (v['half-life'] !== undefined) throw new UsageError('--half-life applies to --filter damper only');
      return {
        op: 'live',
        filter: {
          name: 'one-euro',
          minCutoff: numberOption(parsed, 'min-cutoff', ONE_EURO_DEFAULTS.minCutoff),
          beta: numberOption(parsed, 'beta', ONE_EURO_DEFAULTS.beta, true),
          dCutoff: numberOption(parsed, 'd-cutoff', ONE_EURO_DEFAULTS.dCutoff),
        },
        direction,
        ...(names !== undefined ? { joints: names } : {}),
      };
    }
    const wrong = ['min-cutoff', 'beta', 'd-cutoff'].find((k) => v[k] !== undefined);
    if (wrong) throw new UsageError(`--${wrong} applies to --filter one-euro only`);
    const halfLife = numberOption(parsed, 'half-life', DAMPER_DEFAULTS.halfLife);
    // the damper's own range, checked here so that it is a usage error (exit 2), not a failure of every file
    if (halfLife < MIN_HALF_LIFE || halfLife > MAX_HALF_LIFE)
      throw new UsageError(
        `--half-life must be from ${MIN_HALF_LIFE} to ${MAX_HALF_LIFE} seconds, got ${v['half-life'] as string}`,
      );
    return {
      op: 'live',
      filter: { name: 'damper', halfLife },
      direction,
      ...(names !== undefined ? { joints: names } : {}),
    };
  }
  if (live.length) throw new UsageError(`--${live[0]} applies to --filter one-euro or damper only`);
  return {
    op: 'smooth',
    kernel: kernelSpecOption(parsed),
    space: oneOf<RotationSpace>(v.space as string | undefined, 'space', ROTATION_SPACES, 'raw'),
    // boundary, segments and loop only when given: the pipeline picks wrap for a loop, linear else
    ...optional(
      'boundary',
      v.boundary === undefined
        ? undefined
        : oneOf<Boundary>(v.boundary as string, 'boundary', BOUNDARIES, SMOOTH_DEFAULTS.boundary),
    ),
    ...optional('segments', segmentsValue(parsed)),
    ...optional('loop', loopValue(parsed)),
    ...(names !== undefined ? { joints: names } : {}),
  };
}

/** `rotsig smooth`: filter rotations and translations along time. */
export const smooth: Command = {
  name: 'smooth',
  summary: 'smooth (or sharpen) rotations and translations with a kernel, the One Euro filter or a damper',
  usage:
    'rotsig smooth <file|dir>... -o <file|dir> [--kernel gaussian] [--sigma 0.0167] [--space raw|log|eigen]\n' +
    '       rotsig smooth <file|dir>... -o <file|dir> --filter one-euro [--min-cutoff 1] [--beta 0] [--d-cutoff 1]\n' +
    '       rotsig smooth <file|dir>... -o <file|dir> --filter damper [--half-life 0.1]',
  description: `
Filters every joint's rotation and translation along time with one kernel (filterClip). gaussian
smooths; unsharp sharpens (signal + amount x its difference from the gaussian blur);
tent is a light 3-tap smoothing. --space says where the rotation weighted sums are taken: raw
(aligned quaternions, fastest), log (slerp-like) or eigen (robust average). --boundary says what the
window reads past the clip ends (linear, the default, drops those taps and fits a line to the rest,
so an end pose does not lag a motion through it; renormalize only drops them; wrap for loops). --loop auto (the
default) smooths a clip whose last pose repeats its first (a looping walk or run, as glTF stores it)
round the seam: wrap on one period, the last pose kept equal to the first, so the loop stays closed;
--loop on wraps any clip, --loop off wraps none unless --boundary wrap is given. An explicit --boundary
always holds, and --segments never overrides it. --joints limits the filter to some joints
(comma-separated names, as in the file).

Time: --sigma is a time, so one command smooths a 24 Hz game clip and a 120 Hz capture alike: 0.02,
0.02s and 20ms are seconds, 2f is 2 frames of the file's rate (a bare number of 1 or more is refused
as ambiguous). The default, 1/60 s, is 2 frames at 120 Hz and 0.5 at 30 Hz. Frames are steps of the
file's rate; for a glTF file, the rate its key times lie on (as 'info' reports it). A glTF animation
keeps its key times (bit for bit) and each track its interpolation, whatever the keys' spacing: it is
smoothed on that grid (at least 60 Hz with a CUBICSPLINE track) and read back at every key, cubic
tangents fitted to the smoothed motion; --json gives per animation the largest change at the keys
(rotation in radians, translation in file units, scale). tent is 3 taps of the file's frames whatever
the rate.

--filter one-euro runs the clip through the One Euro filter frame by frame, as a live stream of the
same frames would be filtered (oneEuroClip): --min-cutoff is the cutoff at rest in Hz (lower removes
more jitter), --beta how much the cutoff opens per rad/s of rotation speed (and per file unit/s of
translation speed), --d-cutoff the cutoff of the speed estimate. For cleaning pose-estimator output.
--filter damper follows every rotation and translation with a critically damped spring of the given
--half-life in seconds (dampClip). --direction forward-backward runs the result backwards through a
second filter: less lag, no longer causal.`,
  examples: [
    'rotsig smooth take.bvh -o take.smooth.bvh --sigma 20ms',
    'rotsig smooth take.bvh -o take.smooth.bvh --sigma 2f',
    'rotsig smooth take.bvh -o take.sharp.bvh --kernel unsharp --sigma 0.0167 --amount 0.5 --space eigen',
    'rotsig smooth captures/ -o smoothed/ --sigma 0.0125 --joints LeftHand,RightHand',
    'rotsig smooth webcam.bvh -o webcam.clean.bvh --filter one-euro --min-cutoff 1 --beta 0.01',
    'rotsig smooth take.bvh -o take.damped.bvh --filter damper --half-life 0.05',
  ],
  inputs: CLIP_IO,
  outputs: CLIP_IO,
  options: {
    filter: { type: 'string', value: 'name', description: 'kernel, one-euro or damper (default kernel)' },
    ...kernelOptions,
    ...segmentsOption,
    ...loopOption,
    'min-cutoff': {
      type: 'string',
      value: 'hz',
      description: 'one-euro: cutoff at rest in Hz, > 0 (default 1)',
    },
    beta: {
      type: 'string',
      value: 'hz-per-speed',
      description: 'one-euro: cutoff rise per unit of speed, >= 0 (default 0)',
    },
    'd-cutoff': {
      type: 'string',
      value: 'hz',
      description: 'one-euro: cutoff of the speed estimate in Hz (default 1)',
    },
    'half-life': {
      type: 'string',
      value: 'seconds',
      description: 'damper: time to halve the distance, > 0 (default 0.1)',
    },
    direction: {
      type: 'string',
      value: 'dir',
      description: 'one-euro, damper: forward or forward-backward (default forward)',
    },
    space: { type: 'string', value: 'space', description: 'raw, log or eigen (default raw)' },
    boundary: {
      type: 'string',
      value: 'policy',
      description: `${BOUNDARIES.join(', ')} (default wrap on a loop, see --loop; else ${SMOOTH_DEFAULTS.boundary})`,
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
      emit: { kind: 'clip', precision: precisionOption(parsed) },
      outputs: 'file',
    }),
};
