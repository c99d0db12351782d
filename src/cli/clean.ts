// `rotsig clean`: spikes, flips and jitter out of BVH, AMASS and pose-estimator SMPL files (cleanClip).
import { CLEAN_CLIP_DEFAULTS as D } from '../ops/clean/clean-options.js';
import { COMMON_OPTIONS, type Command } from './command.js';

const CLEAN_GLOB = '**/*.{bvh,npz,json}';

/** `rotsig clean`: spikes replaced, flips removed, smoothing in log space with the cutoff from the spectrum. */
export const clean: Command = {
  name: 'clean',
  summary:
    'clean jittery motion (pose-estimator output): spikes, sign and 2π flips, smoothing from the spectrum',
  usage:
    'rotsig clean <file|dir>... -o <file|dir> [--cutoff auto|<hz>] [--filter gaussian|one-euro] [--spikes replace|keep]',
  description: `
Cleans motion estimated from video (SMPL parameters of 4D-Humans, VIBE, ROMP, SMPLer-X) or noisy
captures (cleanClip): spikes are found from each joint's own statistics and replaced from their
neighbours, quaternion sign flips and 2π flips of axis-angle data are removed, then every joint is
smoothed in log space (never across a flip, never shrinking a rotation) by a zero-phase Gaussian whose
width is chosen from the clip's spectrum (the signal against the noise floor, per joint), or from
--cutoff in Hz. --filter one-euro uses the One Euro filter instead (live use; --beta sets its speed
response). Prints the sign flips, spikes and smoothing per file and Accel, the mean joint acceleration
in mm/frame², before and after.

Reads BVH (units taken as centimetres for Accel; --units-per-meter to change), AMASS .npz, and SMPL
parameter files (.npz or .json) with global_orient / body_pose / transl / betas or one combined pose
(axis-angle or rotation matrices, any of the common key names); each is written back in its own
layout (key names, shapes, dtypes). Estimator files rarely store a frame rate: --rate gives it (30 Hz
otherwise, with a warning). Never unpickles.`,
  examples: [
    'rotsig clean vibe_output.npz -o vibe_clean.npz --rate 30',
    'rotsig clean hmr2_track.npz -o hmr2_clean.npz --cutoff 4',
    'rotsig clean captures/ -o cleaned/',
    'rotsig clean webcam.bvh -o webcam.clean.bvh --filter one-euro --cutoff 1.5 --beta 0.5',
  ],
  inputs: ['bvh', 'amass', 'smpl'],
  outputs: ['bvh', 'amass', 'smpl'],
  options: {
    cutoff: {
      type: 'string',
      value: 'hz',
      description: "smoothing cutoff in Hz, or 'auto' (default: from the spectrum)",
    },
    filter: {
      type: 'string',
      value: 'name',
      description: `gaussian (zero-phase) or one-euro (live) (default ${D.filter})`,
    },
    beta: {
      type: 'string',
      value: 'hz-per-speed',
      description: `one-euro: cutoff rise per rad/s (default ${D.beta})`,
    },
    spikes: { type: 'string', value: 'mode', description: `replace or keep (default ${D.spikes})` },
    'spike-spread': {
      type: 'string',
      value: 'k',
      description: `spike threshold in robust standard deviations of a joint (default ${D.spikeSpread})`,
    },
    rate: {
      type: 'string',
      value: 'hz',
      description: 'frame rate of SMPL/AMASS files (default: the file’s, else 30)',
    },
    'units-per-meter': {
      type: 'string',
      value: 'n',
      description: `file units per metre for Accel (default ${D.unitsPerMeter} for BVH, 1 for SMPL/AMASS)`,
    },
    glob: {
      type: 'string',
      value: 'pattern',
      description: `files to take from directories (default '${CLEAN_GLOB}')`,
    },
    output: {
      type: 'string',
      short: 'o',
      value: 'path',
      description: 'output file, or directory (mirrors the input tree)',
    },
    'in-place': { type: 'boolean', description: 'overwrite the input files (atomically)' },
    json: { type: 'boolean', description: 'print a JSON summary (the reports) on stdout' },
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  // the readers, writers and cleanClip load when the command runs, not with the CLI's main thread
  run: async (parsed, io) => (await import('./clean-run.js')).runClean(parsed, io),
};
