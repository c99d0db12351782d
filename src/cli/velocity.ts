import { BATCH_OPTIONS, COMMON_OPTIONS, type Command, oneOf, TABLE_OUTPUT_OPTIONS } from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { kernelOptions, kernelSpecOption, tableFormatOption, tableOptions } from './shared.js';

/** `rotsig velocity`: angular velocities per joint. */
export const velocity: Command = {
  name: 'velocity',
  summary: 'angular velocity of every joint (and the root linear velocity), filtered like the signal',
  usage:
    'rotsig velocity <file|dir>... -o <out.csv|.json|.npy|dir> [--kernel tent | --kernel gaussian --sigma 0.0167]',
  description: `
Computes velocities with clipVelocities: finite differences between consecutive frames, placed at the
mid-points, then filtered with the kernel and evaluated at the frames, so a quaternion sign flip never
makes a spike. Output: frames x (joints + 1) x 3, the angular velocity of each joint in rad/s (local:
the joint's rotation relative to its parent, expressed in the parent's frame; global: in the world
frame, after forward kinematics), then the root's linear velocity in file units per second. --sigma is a time (seconds, or
frames with f, as in 'rotsig smooth').`,
  examples: [
    'rotsig velocity take.bvh -o take_velocity.csv',
    'rotsig velocity take.bvh -o take_velocity.npy --kernel gaussian --sigma 20ms --frame global',
  ],
  inputs: CLIP_IO,
  outputs: ['csv', 'json', 'npy'],
  options: {
    ...kernelOptions,
    kernel: { type: 'string', value: 'name', description: 'tent, gaussian or unsharp (default tent)' },
    frame: { type: 'string', value: 'frame', description: 'local or global (default local)' },
    ...tableOptions,
    ...TABLE_OUTPUT_OPTIONS,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const format = tableFormatOption(parsed);
    const frame = oneOf(
      parsed.values.frame as string | undefined,
      'frame',
      ['local', 'global'] as const,
      'local',
    );
    return runFileCommand(parsed, io, {
      command: 'velocity',
      steps: [],
      emit: { kind: 'velocity', format, kernel: kernelSpecOption(parsed, 'tent'), space: frame },
      outputs: 'file',
      extension: `.${format}`,
    });
  },
};
