// Filtering (issue: kernels, convolution and filtering). filterRotations with gaussian σ = 2 (13 taps) on
// 100,000 frames x 64 joints, float64, in raw / log / eigen space (targets per core: 25 M, 4.5 M, 1 M output
// rotations/s); filterVectors and angularVelocity on the same shape for scale.
import {
  angularVelocity,
  filterRotations,
  filterVectors,
  kernels,
  quatSeries,
  vec3Series,
} from '../dist/index.js';
import { prng } from './support.js';

const FRAMES = 100_000;
const JOINTS = 64;

/**
 * Mocap-like rotations at 120 Hz: each joint turns about a slowly wandering axis at up to `speed` rad/s with a
 * little noise, stored in the canonical w >= 0 form (never unrolled: the sign flips every time a joint passes
 * 180°), so 'raw' must align the taps to the window centre.
 */
function motion(seed, speed) {
  const r = prng(seed);
  const data = new Float64Array(FRAMES * JOINTS * 4);
  const dt = 1 / 120;
  for (let j = 0; j < JOINTS; j++) {
    const w = speed * (0.2 + 0.8 * r());
    const ax = r() - 0.5;
    const ay = r() - 0.5;
    const az = r() - 0.5;
    for (let f = 0; f < FRAMES; f++) {
      const t = f * dt;
      let x = ax + 0.3 * Math.sin(0.7 * t + j);
      let y = ay + 0.3 * Math.cos(0.5 * t);
      let z = az;
      const n = Math.hypot(x, y, z);
      x /= n;
      y /= n;
      z /= n;
      const h = 0.5 * (w * t + 0.002 * (r() - 0.5));
      // canonical w >= 0 form, as many exporters write it: the sign flips whenever the rotation passes 180°
      const sign = Math.cos(h) < 0 ? -1 : 1;
      const s = sign * Math.sin(h);
      const c = sign * Math.cos(h);
      const o = (f * JOINTS + j) * 4;
      data[o] = x * s;
      data[o + 1] = y * s;
      data[o + 2] = z * s;
      data[o + 3] = c;
    }
  }
  return quatSeries(data, FRAMES, JOINTS);
}

let shared = null;
function series() {
  if (shared === null) shared = motion(6, 3);
  return shared;
}

function rotationTask(space, target, note = '', make = series) {
  return {
    name: `filterRotations ${space}, gaussian(2), 100k frames x 64 joints${note}`,
    items: FRAMES * JOINTS,
    unit: 'rotations',
    target,
    time: 3000,
    iterations: 3,
    setup() {
      const s = make();
      const out = quatSeries(new Float64Array(FRAMES * JOINTS * 4), FRAMES, JOINTS);
      return { s, out, k: kernels.gaussian(2), options: { space, out } };
    },
    run(st) {
      filterRotations(st.s, st.k, st.options);
    },
  };
}

export default {
  name: 'filter',
  tasks: [
    rotationTask('raw', 25e6),
    rotationTask('log', 4.5e6),
    rotationTask('eigen', 1e6),
    // fast motion (up to 20 rad/s at 120 Hz): more taps leave the Taylor fast path of the relative log
    rotationTask('log', undefined, ', fast motion', () => motion(7, 20)),
    {
      name: 'filterVectors gaussian(2), 100k frames x 64 joints',
      items: FRAMES * JOINTS,
      unit: 'vectors',
      setup() {
        const r = prng(3);
        const data = Float64Array.from({ length: FRAMES * JOINTS * 3 }, () => r());
        const s = vec3Series(data, FRAMES, JOINTS);
        return { s, out: vec3Series(new Float64Array(data.length), FRAMES, JOINTS), k: kernels.gaussian(2) };
      },
      run(st) {
        filterVectors(st.s, st.k, { out: st.out });
      },
    },
    {
      name: 'angularVelocity gaussian(2) at frames, 100k frames x 64 joints',
      items: FRAMES * JOINTS,
      unit: 'rotations',
      setup() {
        const s = series();
        return {
          s,
          k: kernels.gaussian(2),
          out: vec3Series(new Float64Array(FRAMES * JOINTS * 3), FRAMES, JOINTS),
        };
      },
      run(st) {
        angularVelocity(st.s, 1 / 120, { kernel: st.k, out: st.out });
      },
    },
  ],
};
