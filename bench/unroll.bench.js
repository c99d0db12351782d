// Unrolling (issue: unrolling and continuity). The headline tasks are unrollQuaternions on 1,000,000 frames
// x 64 joints in float64 (64 million rotations, 2 GiB of data; 4 GiB with a separate output), target
// 200 million rotations/s per core.
import { eulerFromQuatSeries, findDiscontinuities, quatSeries, unrollQuaternions } from '../dist/index.js';

const FRAMES = 1_000_000;
const JOINTS = 64;

/**
 * Spins about per-joint axes at per-joint rates, stored in the w >= 0 hemisphere as converters write them,
 * so signs flip every time a joint passes 180°; with `scramble`, every quaternion gets a pseudo-random sign
 * (the worst case for branch prediction).
 */
function spins(Type, frames, joints, scramble) {
  const data = new Type(frames * joints * 4);
  let seed = 7;
  for (let j = 0; j < joints; j++) {
    const ax = Math.sin(j * 1.3);
    const ay = Math.cos(j * 0.7);
    const az = 0.5 + 0.01 * j;
    const n = Math.hypot(ax, ay, az);
    const rate = 0.002 + 0.0005 * j;
    for (let f = 0; f < frames; f++) {
      const h = 0.5 * rate * f;
      const s = Math.sin(h) / n;
      let c = Math.cos(h);
      let sign = c < 0 ? -1 : 1;
      if (scramble) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        sign = seed & 0x10000 ? -1 : 1;
      }
      c *= sign;
      const i = (f * joints + j) * 4;
      data[i] = sign * s * ax;
      data[i + 1] = sign * s * ay;
      data[i + 2] = sign * s * az;
      data[i + 3] = c;
    }
  }
  return data;
}

export default {
  name: 'unroll',
  tasks: [
    {
      // The default call: in place. After the first (warm-up) call the data is continuous, so later calls
      // measure the pass that checks every sign and writes nothing, as on real, mostly continuous data.
      name: 'unrollQuaternions f64 in place 1M frames x 64 joints',
      items: FRAMES * JOINTS,
      unit: 'rotations',
      target: 200e6,
      time: 4000,
      setup() {
        return { input: quatSeries(spins(Float64Array, FRAMES, JOINTS, false), FRAMES, JOINTS) };
      },
      run(s) {
        unrollQuaternions(s.input);
      },
    },
    {
      // Into a separate output: reads 2 GiB, writes 2 GiB on every call; flips where joints pass 180°.
      name: 'unrollQuaternions f64 to out 1M frames x 64 joints',
      items: FRAMES * JOINTS,
      unit: 'rotations',
      target: 200e6,
      time: 4000,
      setup() {
        const input = quatSeries(spins(Float64Array, FRAMES, JOINTS, false), FRAMES, JOINTS);
        return { input, out: quatSeries(new Float64Array(input.data.length), FRAMES, JOINTS) };
      },
      run(s) {
        unrollQuaternions(s.input, { out: s.out });
      },
    },
    {
      name: 'unrollQuaternions f64 random signs 100k frames x 64 joints',
      items: 100_000 * JOINTS,
      unit: 'rotations',
      setup() {
        const input = quatSeries(spins(Float64Array, 100_000, JOINTS, true), 100_000, JOINTS);
        return { input, out: quatSeries(new Float64Array(input.data.length), 100_000, JOINTS) };
      },
      run(s) {
        unrollQuaternions(s.input, { out: s.out });
      },
    },
    {
      name: 'unrollQuaternions f32 in place 100k frames x 64 joints',
      items: 100_000 * JOINTS,
      unit: 'rotations',
      setup() {
        return { input: quatSeries(spins(Float32Array, 100_000, JOINTS, false), 100_000, JOINTS) };
      },
      run(s) {
        unrollQuaternions(s.input);
      },
    },
    {
      name: 'eulerFromQuatSeries ZYX equivalent 10k frames x 64 joints',
      items: 10_000 * JOINTS,
      unit: 'rotations',
      setup() {
        return { input: quatSeries(spins(Float64Array, 10_000, JOINTS, false), 10_000, JOINTS) };
      },
      run(s) {
        eulerFromQuatSeries(s.input, 'ZYX');
      },
    },
    {
      name: 'findDiscontinuities quaternions 100k frames x 64 joints',
      items: 100_000 * JOINTS,
      unit: 'rotations',
      setup() {
        return { input: quatSeries(spins(Float64Array, 100_000, JOINTS, false), 100_000, JOINTS) };
      },
      run(s) {
        findDiscontinuities(s.input, { rate: 120 });
      },
    },
  ],
};
