import { BVH_TO_GLTF_SCALE } from '../node/bvh-scale.js';
import { BATCH_OPTIONS, COMMON_OPTIONS, type Command, OUTPUT_OPTIONS } from './command.js';
import { CLIP_IO } from './formats.js';
import { runFileCommand } from './run.js';
import { bvhOutputOptions, precisionOption } from './shared.js';

/** `rotsig convert`: BVH to glTF/GLB and back, by the -o extension. */
export const convert: Command = {
  name: 'convert',
  summary: 'convert between BVH and glTF/GLB (the -o extension names the format)',
  usage: `rotsig convert <file> -o <file.glb|file.gltf|file.bvh> [--scale ${BVH_TO_GLTF_SCALE}]`,
  description: `
BVH to glTF/GLB writes a skeleton (a node per joint, no mesh), a scene and one animation keyed at every
frame (LINEAR), so mocap plays in any glTF viewer. glTF is in metres and most BVH files in centimetres:
translations are multiplied by --scale (default ${BVH_TO_GLTF_SCALE}); use --scale 1 for a BVH already in metres.
Node world positions equal rotsig's BVH forward kinematics times the scale.
glTF/GLB to BVH bakes the first animation (or --animation) on its keys' grid and writes three rotation
channels per joint in XYZ order, plus position channels where translations are animated. Lost: scales
(BVH has no scale channel); non-identity rest rotations are folded into the rotation channels; morph
weights; everything that is not the skeleton (meshes, skins, materials).`,
  examples: [
    'rotsig convert capture.bvh -o capture.glb',
    'rotsig convert capture.bvh -o capture.gltf --scale 1',
    'rotsig convert Fox.glb -o fox-walk.bvh --animation Walk',
  ],
  inputs: CLIP_IO,
  outputs: ['bvh', 'gltf'],
  options: { ...OUTPUT_OPTIONS, ...bvhOutputOptions, ...BATCH_OPTIONS, ...COMMON_OPTIONS },
  minPositionals: 1,
  run: (parsed, io) =>
    runFileCommand(parsed, io, {
      command: 'convert',
      steps: [],
      emit: { kind: 'bvh', precision: precisionOption(parsed) },
      outputs: 'file',
    }),
};
