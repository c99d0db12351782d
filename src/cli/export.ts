import type { FeatureKind } from '../node/steps.js';
import { BATCH_OPTIONS, COMMON_OPTIONS, type Command, OUTPUT_OPTIONS, oneOf } from './command.js';
import { runFileCommand } from './run.js';
import { tableFormatOption, tableOptions } from './shared.js';

/** `rotsig export`: features for machine learning. */
export const exportCommand: Command = {
  name: 'export',
  summary: 'write rotations or positions as frames x joints x features (.npy, .csv, .json)',
  usage: 'rotsig export <file|dir>... -o <out.npy|.csv|.json|dir> --as quat|6d|rotvec|euler|positions',
  description: `
Writes one array per file, frames x joints x width (toArrays): quat = x, y, z, w; 6d = the first two
columns of the rotation matrix [m00 m10 m20 m01 m11 m21]; rotvec = axis x angle (radians); euler =
radians in each joint's own channel order, each frame in the principal range; positions = joint positions from forward kinematics (file
units). Rotations are local (relative to the parent) unless --frame global. .npy loads with numpy.load
(float64, or float32 with --dtype float32); .csv has a header row joint.component and one row per
frame; .json holds the shape, names and data nested [frame][joint][component].`,
  examples: [
    'rotsig export take.bvh -o take_6d.npy --as 6d --dtype float32',
    'rotsig export take.bvh -o positions.csv --as positions',
    'rotsig export captures/ -o features/ --as quat --format npy --jobs 2',
  ],
  options: {
    as: { type: 'string', value: 'kind', description: 'quat, 6d, rotvec, euler or positions (default quat)' },
    frame: {
      type: 'string',
      value: 'frame',
      description: 'local or global (default local; global for positions)',
    },
    dtype: { type: 'string', value: 'type', description: 'float64 or float32 (default float64)' },
    sign: {
      type: 'string',
      value: 'policy',
      description: 'quaternion signs: keep, w-positive or continuous (default keep)',
    },
    ...tableOptions,
    ...OUTPUT_OPTIONS,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const v = parsed.values;
    const as = oneOf<FeatureKind>(
      v.as as string | undefined,
      'as',
      ['quat', '6d', 'rotvec', 'euler', 'positions'],
      'quat',
    );
    const format = tableFormatOption(parsed);
    const frame = oneOf(
      v.frame as string | undefined,
      'frame',
      ['local', 'global'] as const,
      as === 'positions' ? 'global' : 'local',
    );
    const sign = oneOf(
      v.sign as string | undefined,
      'sign',
      ['keep', 'w-positive', 'continuous'] as const,
      'keep',
    );
    const dtype = oneOf(v.dtype as string | undefined, 'dtype', ['float64', 'float32'] as const, 'float64');
    return runFileCommand(parsed, io, {
      command: 'export',
      steps: [],
      emit: { kind: 'features', as, format, space: frame, dtype, sign },
      outputs: 'file',
      extension: `.${format}`,
    });
  },
};
