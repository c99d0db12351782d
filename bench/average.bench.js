// Averaging and blending (issue: averaging). averageQuaternions 'eigen' on 200,000 sets of 8 rotations
// (target: 5 million sets/s per core), the raw kernel underneath it, the other methods for scale, and
// blendPoses of 8 poses x 64 joints.
import { averageQuaternions, blendPoses, quatSeries } from '../dist/index.js';
import { eigenAverageStrided } from '../dist/numeric/eigen4-average.js';
import { prng } from './support.js';

const SETS = 200_000;
const K = 8;

/** SETS x K quaternions: spread 0 = uniform on SO(3), else Gaussian noise of that size around a random centre. */
function sets(spread, seed) {
  const r = prng(seed);
  const g = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const data = new Float64Array(SETS * K * 4);
  for (let s = 0; s < SETS; s++) {
    const c = [g(), g(), g(), g()];
    const cn = Math.hypot(...c);
    for (let i = 0; i < K; i++) {
      const q = spread === 0 ? [g(), g(), g(), g()] : c.map((v) => v / cn + spread * g());
      const n = Math.hypot(...q) * (r() < 0.5 ? -1 : 1);
      for (let k = 0; k < 4; k++) data[(s * K + i) * 4 + k] = q[k] / n;
    }
  }
  return data;
}

function averageTask(name, spread, method, target) {
  return {
    name: `averageQuaternions ${method}, ${name} (200k sets of 8)`,
    items: SETS,
    unit: 'sets',
    target,
    setup() {
      const data = sets(spread, 7);
      const out = new Float64Array(SETS * 4);
      const views = Array.from({ length: SETS }, (_, s) => data.subarray(s * K * 4, (s + 1) * K * 4));
      const outs = Array.from({ length: SETS }, (_, s) => out.subarray(s * 4, s * 4 + 4));
      const weights = new Float64Array(K).fill(1 / K);
      const options = Array.from({ length: SETS }, (_, s) => ({ method, out: outs[s] }));
      return { views, weights, options };
    },
    run(st) {
      for (let s = 0; s < SETS; s++) averageQuaternions(st.views[s], st.weights, st.options[s]);
    },
  };
}

function kernelTask(name, spread, target) {
  return {
    name: `eigenAverageStrided kernel, ${name} (200k sets of 8)`,
    items: SETS,
    unit: 'sets',
    target,
    setup() {
      return {
        data: sets(spread, 7),
        out: new Float64Array(SETS * 4),
        weights: new Float64Array(K).fill(1 / K),
        scratch: new Float64Array(48),
      };
    },
    run(st) {
      for (let s = 0; s < SETS; s++)
        eigenAverageStrided(st.out, s * 4, st.data, s * K * 4, 4, st.weights, K, st.scratch);
    },
  };
}

function blendTask(method) {
  const J = 64;
  const CALLS = 2000;
  return {
    name: `blendPoses ${method}, 8 poses x 64 joints`,
    items: CALLS,
    unit: 'poses',
    setup() {
      const r = prng(11);
      const data = new Float64Array(K * J * 4);
      for (let j = 0; j < J; j++) {
        const c = [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5];
        for (let k = 0; k < K; k++) {
          const q = c.map((v) => v + 0.2 * (r() - 0.5));
          const n = Math.hypot(...q);
          for (let i = 0; i < 4; i++) data[(k * J + j) * 4 + i] = q[i] / n;
        }
      }
      const poses = quatSeries(data, K, J);
      const reference = data.slice(0, J * 4);
      return {
        poses,
        out: new Float64Array(J * 4),
        weights: Float64Array.from({ length: K }, (_, k) => k + 1),
        options: { method, reference, scratch: new Float64Array(48) },
      };
    },
    run(st) {
      for (let c = 0; c < CALLS; c++) blendPoses(st.out, st.poses, st.weights, st.options);
    },
  };
}

export default {
  name: 'average',
  tasks: [
    averageTask('clustered ~30°', 0.3, 'eigen', 5e6),
    averageTask('uniform', 0, 'eigen', 5e6),
    kernelTask('clustered ~30°', 0.3, 5e6),
    kernelTask('uniform', 0, 5e6),
    averageTask('clustered ~30°', 0.3, 'nlerp'),
    averageTask('clustered ~30°', 0.3, 'log'),
    averageTask('clustered ~30°', 0.3, 'geodesic'),
    blendTask('eigen'),
    blendTask('nlerp'),
    blendTask('log'),
    blendTask('raw'),
  ],
};
