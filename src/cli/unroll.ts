import { WRITE_BVH_DEFAULTS } from '../io/bvh/write-options.js';
import { BATCH_OPTIONS, COMMON_OPTIONS, type Command, OUTPUT_OPTIONS } from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { bvhOutputOptions, precisionOption } from './shared.js';

/** `rotsig unroll`: remove flips and wraps. */
export const unroll: Command = {
  name: 'unroll',
  summary: 'make rotations continuous: no quaternion sign flips, no Euler wraps or branch switches',
  usage: `rotsig unroll <file|dir>... -o <file|dir> [--precision ${WRITE_BVH_DEFAULTS.precision}]`,
  description: `
Unrolls every joint of each clip (unrollClip): consecutive quaternions share a hemisphere, and the Euler
curves written back are continuous (the equivalent-triple "Euler filter": +-180 wraps and gimbal branch
switches removed, multi-turn motion grows past 360 instead of wrapping). Real jumps of the motion stay;
'rotsig info' lists them.`,
  examples: [
    'rotsig unroll dance.bvh -o dance.unrolled.bvh',
    'rotsig unroll captures/ -o unrolled/ --jobs 2',
    'rotsig unroll take.bvh -o - | less',
  ],
  inputs: CLIP_IO,
  outputs: CLIP_IO,
  options: { ...OUTPUT_OPTIONS, ...bvhOutputOptions, ...BATCH_OPTIONS, ...COMMON_OPTIONS },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'unroll',
      steps: [{ op: 'unroll' }],
      emit: { kind: 'clip', precision: precisionOption(parsed) },
      outputs: 'file',
    }),
};
