// Key reduction (issue: keyframe reduction with a guaranteed error bound). reduceKeys on the bundled CMU
// 01_01 capture (2752 frames x 31 joints at 120 Hz, centimetres) with the 'acl' and 'ozz' presets, linear
// and cubic-spline players, 16-bit rotations, and effort 'best' (points check, fitted rotation keys). Target
// per core: 1 M joint-samples/s for 'object'.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reduceKeys } from '../dist/index.js';
import { parseBvh } from '../dist/io/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const clip = parseBvh(readFileSync(join(here, '..', 'samples', '01_01.bvh'), 'utf8'));
const samples = clip.frames * clip.skeleton.names.length;

function task(name, options) {
  return {
    name: `reduceKeys ${name} (${clip.frames} frames x ${clip.skeleton.names.length} joints)`,
    items: samples,
    unit: 'joint-samples',
    target: options.metric === 'local' ? undefined : 1e6,
    time: 3000,
    run: () => reduceKeys(clip, options),
  };
}

export default {
  name: 'reduce',
  tasks: [
    task("'acl' linear", { preset: 'acl', unitsPerMeter: 100 }),
    task("'acl' linear, effort 'best'", { preset: 'acl', unitsPerMeter: 100, effort: 'best' }),
    task("'ozz' linear", { preset: 'ozz', unitsPerMeter: 100 }),
    task("'acl' cubicspline", { preset: 'acl', unitsPerMeter: 100, interpolation: 'cubicspline' }),
    task('0.05 cm, int16 rotations', {
      preset: 'acl',
      unitsPerMeter: 100,
      tolerance: 0.05,
      quantization: 'int16',
    }),
    task("'local' 0.1°, 0.01 units", {
      metric: 'local',
      toleranceAngle: 0.1 * (Math.PI / 180),
      tolerance: 0.01,
    }),
  ],
};
