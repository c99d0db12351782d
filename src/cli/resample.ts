import { ROTATION_SPACES, type RotationSpace } from '../ops/kernel/rotation-blend.js';
import { BOUNDARIES, type Boundary } from '../ops/kernel/tap-window.js';
import {
  RESAMPLE_DEFAULTS,
  RESAMPLE_KERNEL_NAMES,
  type ResampleKernelName,
} from '../ops/resample/resample-rotations.js';
import { DURATION_POLICIES, type DurationPolicy } from '../ops/resample/time-grid.js';
import type { ClipStep } from '../pipeline/steps.js';
import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  numberOption,
  OUTPUT_OPTIONS,
  oneOf,
  type Parsed,
  UsageError,
} from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import {
  bvhOutputOptions,
  loopOption,
  loopValue,
  optional,
  precisionOption,
  RATE_RANGE,
  segmentsOption,
  segmentsValue,
} from './shared.js';

/** The options `resample` and `process --resample` share. */
export const resampleOptions: Record<string, import('./command.js').OptionSpec> = {
  kernel: {
    type: 'string',
    value: 'name',
    description: `${RESAMPLE_KERNEL_NAMES.join(', ')} (default ${RESAMPLE_DEFAULTS.kernel} up-sampling, ${RESAMPLE_DEFAULTS.downsampleKernel} down-sampling)`,
  },
  space: {
    type: 'string',
    value: 'space',
    description: `raw, log or eigen (default ${RESAMPLE_DEFAULTS.space})`,
  },
  boundary: {
    type: 'string',
    value: 'policy',
    description: `${BOUNDARIES.join(', ')} (default wrap on a loop, see --loop; else ${RESAMPLE_DEFAULTS.boundary})`,
  },
  duration: {
    type: 'string',
    value: 'policy',
    description: `${DURATION_POLICIES.join(', ')} (default loop on a loop, see --loop; else ${RESAMPLE_DEFAULTS.duration}, and a glTF keeps its end key)`,
  },
  'no-antialias': {
    type: 'boolean',
    description: 'do not widen the kernel when down-sampling (plain decimation)',
  },
  optimal: {
    type: 'boolean',
    description: 'rotation keys that best reconstruct the source under --playback (downsampleOptimal)',
  },
  playback: {
    type: 'string',
    value: 'kernel',
    description: 'linear or catmull-rom: the up-sampler --optimal fits (default linear)',
  },
  spline: {
    type: 'boolean',
    description:
      "C2 splines through the keys (SciPy's RotationSpline for rotations, a cubic for translations): smooth up-sampling of sparse keys; up-sampling only",
  },
  ...segmentsOption,
  ...loopOption,
};

/** The resample step described by `--rate` and the resample options. */
export function resampleStep(parsed: Parsed, rateText: string | undefined, rateName = 'rate'): ClipStep {
  const v = parsed.values;
  if (v.loop !== undefined && v.optimal === true && v.loop !== 'off')
    throw new UsageError('--loop applies to resampling without --optimal (the optimal keys do not wrap)');
  if (v.spline === true && (v.optimal === true || v.kernel !== undefined || v['no-antialias'] === true))
    throw new UsageError(
      '--spline draws splines through the keys; it takes no --optimal, --kernel or --no-antialias',
    );
  if (v.playback !== undefined && v.optimal !== true)
    throw new UsageError('--playback says what --optimal fits its keys for; give --optimal with it');
  return {
    op: 'resample',
    rate: numberOption(rateText, `--${rateName}`, RATE_RANGE),
    // without --kernel the library's defaults apply: catmull-rom up, lanczos3 down
    ...(v.kernel !== undefined
      ? {
          kernel: oneOf<ResampleKernelName>(
            v.kernel as string,
            'kernel',
            RESAMPLE_KERNEL_NAMES,
            RESAMPLE_DEFAULTS.kernel as ResampleKernelName,
          ),
        }
      : {}),
    space: oneOf<RotationSpace>(v.space as string | undefined, 'space', ROTATION_SPACES, 'log'),
    // boundary, duration, segments and loop only when given: the pipeline picks them for a loop
    ...optional(
      'boundary',
      v.boundary === undefined
        ? undefined
        : oneOf<Boundary>(v.boundary as string, 'boundary', BOUNDARIES, 'clamp'),
    ),
    ...optional(
      'duration',
      v.duration === undefined
        ? undefined
        : oneOf<DurationPolicy>(v.duration as string, 'duration', DURATION_POLICIES, 'floor'),
    ),
    antialias: v['no-antialias'] !== true,
    ...optional('segments', segmentsValue(parsed)),
    ...optional('loop', loopValue(parsed)),
    ...(v.spline === true ? { spline: true } : {}),
    ...(v.optimal === true
      ? {
          optimal: oneOf(
            v.playback as string | undefined,
            'playback',
            ['linear', 'catmull-rom'] as const,
            'linear',
          ),
        }
      : {}),
  };
}

/** `rotsig resample`: change the frame rate. */
export const resample: Command = {
  name: 'resample',
  summary: 'change the frame rate (any ratio, anti-aliased, exact time grid)',
  usage: 'rotsig resample <file|dir>... -o <file|dir> --rate <hz> [--kernel lanczos3] [--space log]',
  description: `
Resamples every joint's rotations and the translations to --rate Hz (resampleClip) on an exact time grid:
output frame i is at i / rate seconds. Down-sampling widens the kernel by the rate ratio so it removes what
the coarser grid cannot hold (anti-aliasing); --no-antialias decimates instead. Interpolating kernels
(linear, catmull-rom, cubic6, lanczos2/3, sinc) keep the source samples where the grids coincide.
--duration floor ends on or before the source's last time; keep-end adjusts the rate slightly so the
output ends exactly on it. A glTF animation keeps its end without it: its keys lie on the exact grid and
one more key at the input's last time holds the end pose. --loop auto (the default) resamples a clip
whose last pose repeats its first (a looping walk) round its seam with --boundary wrap, closed with its
first pose, so the output ends at the input's end time with a seam of 0 (a glTF keeps the rate and adds
the closing key; a BVH gets --duration loop, the rate adjusted so the period holds whole frames, and a
warning saying so); --loop on wraps any clip, --loop off
none unless --boundary wrap is given. An explicit --boundary or --duration holds, and --segments never
overrides --boundary. --optimal --playback linear computes the rotation keys that a linear (or
catmull-rom) player reconstructs the source from best (least squares, then Gauss-Newton); translations
are resampled as usual. --spline up-samples on C2 splines through the keys instead of a kernel (SciPy's
RotationSpline for rotations, a cubic with the same end conditions for translations and scales): on a glTF
animation through each track's own keys, so a few hand-set keys become smooth motion with angular rate and
acceleration continuous through them; the keys' values are kept at their times. It interpolates and does
not anti-alias, so a rate below the keys' own is refused.

Inputs are BVH, glTF/GLB or AMASS .npz files (SMPL, SMPL+H, SMPL-X); each output is written in the format of its
extension, the input's for a directory: an AMASS file stays an AMASS file with mocap_framerate (or
mocap_frame_rate) set to the new rate and every other member kept. Over several files a summary lists the
input rates found and the files whose rate metadata was missing or disagreed. Without --kernel, up-sampling
uses catmull-rom and down-sampling lanczos3, whose deeper stop band removes what decimation would fold
back (46 dB on a 25 Hz wobble going from 120 to 30 Hz; --kernel catmull-rom gives 36 dB).`,
  examples: [
    'rotsig resample take.bvh -o take30.bvh --rate 30',
    'rotsig resample take.bvh -o take120.bvh --rate 120 --kernel lanczos3',
    'rotsig resample loops/ -o loops30/ --rate 30 --boundary wrap',
    'rotsig resample take.bvh -o keys30.bvh --rate 30 --optimal --playback linear',
    'rotsig resample blocking.glb -o smooth60.glb --rate 60 --spline',
    'rotsig resample amass/ -o amass30/ --rate 30 --jobs 2',
  ],
  inputs: CLIP_IO,
  outputs: CLIP_IO,
  options: {
    rate: {
      type: 'string',
      short: 'r',
      value: 'hz',
      description: 'output frame rate in Hz, 0.001 to 100000 (required)',
    },
    ...resampleOptions,
    ...OUTPUT_OPTIONS,
    ...bvhOutputOptions,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'resample',
      steps: [resampleStep(parsed, parsed.values.rate as string | undefined)],
      emit: { kind: 'clip', precision: precisionOption(parsed) },
      outputs: 'file',
    }),
};
