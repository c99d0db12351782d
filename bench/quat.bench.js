// Conversions between Euler angles and quaternions on 1,000,000 rotations (issue: foundation).
import { quat } from '../dist/index.js';

const N = 1_000_000;

function angles(Type) {
  const a = new Type(N * 3);
  let s = 12345;
  for (let i = 0; i < a.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    a[i] = (s / 2 ** 32 - 0.5) * 2 * Math.PI;
  }
  return a;
}

function task(Type, direction, order, target) {
  return {
    name: `${direction} ${order} ${Type === Float64Array ? 'f64' : 'f32'} (1M rotations)`,
    items: N,
    unit: 'rotations',
    target,
    setup() {
      const e = angles(Type);
      const q = quat.fromEulerArray(new Type(N * 4), e, order);
      return { e, q, outQ: new Type(N * 4), outE: new Type(N * 3) };
    },
    run(s) {
      if (direction === 'euler->quat') quat.fromEulerArray(s.outQ, s.e, order);
      else quat.toEulerArray(s.outE, s.q, order);
    },
  };
}

function unitQuats(n) {
  const e = angles(Float64Array).subarray(0, n * 3);
  return quat.fromEulerArray(new Float64Array(n * 4), e, 'ZYX');
}

/** One flat kernel over 1M rotations: the building blocks of forward kinematics, blends and analysis. */
function kernelTask(name, run) {
  return {
    name: `${name} (1M rotations)`,
    items: N,
    unit: 'rotations',
    setup() {
      return {
        a: unitQuats(N),
        b: unitQuats(N).reverse(),
        v: angles(Float64Array),
        out: new Float64Array(N * 4),
      };
    },
    run,
  };
}

export default {
  name: 'quat',
  tasks: [
    task(Float64Array, 'euler->quat', 'ZYX', 30e6),
    task(Float32Array, 'euler->quat', 'ZYX'),
    task(Float64Array, 'quat->euler', 'ZYX'),
    task(Float32Array, 'quat->euler', 'ZYX'),
    task(Float64Array, 'euler->quat', 'zxz'),
    task(Float64Array, 'quat->euler', 'zxz'),
    kernelTask('multiplyFlat', (s) => {
      for (let i = 0; i < N; i++) quat.multiplyFlat(s.out, i * 4, s.a, i * 4, s.b, i * 4);
    }),
    kernelTask('rotateVectorFlat', (s) => {
      for (let i = 0; i < N; i++) quat.rotateVectorFlat(s.out, i * 3, s.a, i * 4, s.v, i * 3);
    }),
    kernelTask('slerpFlat t = 0.3', (s) => {
      for (let i = 0; i < N; i++) quat.slerpFlat(s.out, i * 4, s.a, i * 4, s.b, i * 4, 0.3);
    }),
    kernelTask('logFlat', (s) => {
      for (let i = 0; i < N; i++) quat.logFlat(s.out, i * 3, s.a, i * 4);
    }),
  ],
};
