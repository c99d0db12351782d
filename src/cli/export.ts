import { LENGTH_UNITS } from '../ops/ml/clip-defaults.js';
import { MOTION_FEATURES_DEFAULTS } from '../ops/ml/motion-features.js';
import type { FeatureKind, MotionFeatureSpec } from '../pipeline/steps.js';
import {
  BATCH_OPTIONS,
  COMMON_OPTIONS,
  type Command,
  numberOption,
  oneOf,
  type Parsed,
  TABLE_OUTPUT_OPTIONS,
  UsageError,
} from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { tableFormatOption, tableOptions } from './shared.js';

/** `rotsig export`: features for machine learning. */
export const exportCommand: Command = {
  name: 'export',
  summary: 'write rotations, positions or training features for machine learning (.npy, .npz, .csv, .json)',
  usage:
    'rotsig export <file|dir>... -o <out.npy|.npz|.csv|.json|dir> --as quat|6d|rotvec|euler|positions|features',
  description: `
Writes one array per file, frames x joints x width (toArrays): quat = x, y, z, w; 6d = the first two
columns of the rotation matrix [m00 m10 m20 m01 m11 m21], or with --sixd rows the first two rows
[m00 m01 m02 m10 m11 m12] as PyTorch3D's matrix_to_rotation_6d (decoding one as the other gives the
inverse rotation; the layout is named in the .npz, .json and sidecar); rotvec = axis x angle (radians); euler =
radians in each joint's own channel order, each frame in the principal range; positions = joint positions from forward kinematics (file
units). Rotations are local (relative to the parent) unless --frame global. .npy loads with numpy.load
(float64, or float32 with --dtype float32); .csv has a header row joint.component and one row per
frame; .json holds the shape, names and data nested [frame][joint][component]; .npz holds data with
joint_names, components, rate and kind (and sixd), so it names its axes itself.

--as features writes one frames x columns matrix (motionFeatures): root angular velocity about up (rad/s),
root velocity in the heading frame (units/s), root height, every joint's position relative to the root's
ground point and heading, its local rotation as 6D, its velocity in the heading frame (units/s), and foot
contacts (0/1; speed and height thresholds in metres, with hysteresis). Velocities are per second, so
features of the same motion at 30 and 120 Hz agree. Next to the .npy/.npz goes a .json sidecar naming
every column (name, joint, unit) with the frame rate, root, length unit and 6D layout; the .npz also holds
the unrolled heading, the ground trajectory and the column names. Defaults come from the file: up is z for
AMASS and y otherwise; the root is the joint whose translation travels furthest; the length unit is found
from the skeleton's size (centimetres or metres; --units overrides), and the contact thresholds are scaled
to it. Without --template an AMASS clip has no bone offsets (every joint at the root), so the joint
position, velocity and contact columns are left out with a warning: pass your model's joint template J.`,
  examples: [
    'rotsig export take.bvh -o take_6d.npy --as 6d --dtype float32',
    'rotsig export take.bvh -o positions.csv --as positions',
    'rotsig export captures/ -o features/ --as quat --format npy --jobs 2',
    'rotsig export amass/ -o features/ --as features --format npz --up z --dtype float32',
  ],
  inputs: CLIP_IO,
  outputs: ['npy', 'npz', 'csv', 'json'],
  options: {
    as: {
      type: 'string',
      value: 'kind',
      description: 'quat, 6d, rotvec, euler, positions or features (default quat)',
    },
    up: {
      type: 'string',
      value: 'axis',
      description: 'features: the world up axis, y, z or auto (default auto: z for AMASS, else y)',
    },
    units: {
      type: 'string',
      value: 'unit',
      description:
        "features: the file's length unit, m, cm, mm or auto (default auto: from the skeleton's size)",
    },
    'body-up': {
      type: 'string',
      value: 'axis',
      description: `features: the body's own up axis (default ${MOTION_FEATURES_DEFAULTS.bodyUp})`,
    },
    root: {
      type: 'string',
      value: 'joint',
      description:
        'features: the joint carrying the motion (default: the one whose translation travels furthest)',
    },
    feet: {
      type: 'string',
      value: 'joints',
      description:
        "features: comma-separated foot joints, 'auto' (names with foot/toe) or 'none' (default auto)",
    },
    'contact-speed': {
      type: 'string',
      value: 'm/s',
      description: `features: contact speed in metres per second (default ${MOTION_FEATURES_DEFAULTS.contactSpeed})`,
    },
    template: {
      type: 'string',
      value: 'file',
      description: "AMASS: the body model's joint template J (.npz, .npy or .json) for joint positions",
    },
    'contact-height': {
      type: 'string',
      value: 'm',
      description: `features: contact height in metres above the foot's lowest point (default ${MOTION_FEATURES_DEFAULTS.contactHeight})`,
    },
    frame: {
      type: 'string',
      value: 'frame',
      description: 'local or global (default local; global for positions)',
    },
    dtype: { type: 'string', value: 'type', description: 'float64 or float32 (default float64)' },
    sixd: {
      type: 'string',
      value: 'layout',
      description: '6d and features: columns or rows (PyTorch3D) of the rotation matrix (default columns)',
    },
    sign: {
      type: 'string',
      value: 'policy',
      description: 'quaternion signs: keep, w-positive or continuous (default keep)',
    },
    ...tableOptions,
    ...TABLE_OUTPUT_OPTIONS,
    ...BATCH_OPTIONS,
    ...COMMON_OPTIONS,
  },
  minPositionals: 1,
  run(parsed, io) {
    const v = parsed.values;
    const as = oneOf<FeatureKind>(
      v.as as string | undefined,
      'as',
      ['quat', '6d', 'rotvec', 'euler', 'positions', 'features'],
      'quat',
    );
    const format = tableFormatOption(parsed);
    if (as === 'features' && format !== 'npy' && format !== 'npz')
      throw new UsageError(`--as features writes npy or npz, not ${format}`);
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
    const sixd = oneOf(v.sixd as string | undefined, 'sixd', ['columns', 'rows'] as const, 'columns');
    if (v.sixd !== undefined && as !== '6d' && as !== 'features')
      throw new UsageError(`--sixd applies to --as 6d or features, not ${as}`);
    return runFileCommand(parsed, io, {
      command: 'export',
      steps: [],
      emit: {
        kind: 'features',
        as,
        format,
        space: frame,
        dtype,
        sign,
        ...(as === '6d' ? { sixd } : {}),
        ...(as === 'features' ? { motion: { ...motionSpec(parsed), sixd } } : {}),
      },
      outputs: 'file',
      extension: `.${format}`,
    });
  },
};

function motionSpec(parsed: Parsed): MotionFeatureSpec {
  const v = parsed.values;
  const axis = (name: string) => oneOf(v[name] as string | undefined, name, ['y', 'z'] as const, 'y');
  const units = oneOf(
    v.units as string | undefined,
    'units',
    ['auto', ...LENGTH_UNITS.map((u) => u.name)],
    'auto',
  );
  const feetText = (v.feet as string | undefined) ?? 'auto';
  const feet =
    feetText === 'auto' || feetText === 'none'
      ? feetText
      : feetText
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  return {
    up: oneOf(v.up as string | undefined, 'up', ['auto', 'y', 'z'] as const, 'auto'),
    unitsPerMeter: units === 'auto' ? 'auto' : LENGTH_UNITS.find((u) => u.name === units)!.unitsPerMeter,
    bodyUp: axis('body-up'),
    ...(v.root !== undefined ? { root: v.root as string } : {}),
    feet,
    ...(v['contact-speed'] !== undefined
      ? {
          contactSpeed: numberOption(v['contact-speed'] as string, '--contact-speed', {
            min: 0,
            aboveMin: true,
            max: 1e9,
          }),
        }
      : {}),
    ...(v['contact-height'] !== undefined
      ? {
          contactHeight: numberOption(v['contact-height'] as string, '--contact-height', {
            min: 0,
            aboveMin: true,
            max: 1e9,
          }),
        }
      : {}),
  };
}
