import { describe, expect, it } from 'vitest';
import type { EulerOrder } from '../../src/quat/euler.js';
import * as quat from '../../src/quat/index.js';
import { quatDistance } from '../support/arbitraries.js';
import { readFixture } from '../support/shared-data.js';
import { TOL } from '../support/tolerances.js';

interface Fixture {
  quats: number[][];
  euler: Record<string, { angles: number[][]; fromEuler: number[][]; toEuler: number[][] }>;
  matrix: number[][];
  nonOrthogonal: { matrix: number[]; nearest: number[] }[];
  rotvec: number[][];
  fromRotvec: { vectors: number[][]; quats: number[][] };
  products: { a: number[][]; b: number[][]; ab: number[][] };
  inverse: number[][];
  apply: { vectors: number[][]; rotated: number[][] };
  slerp: { a: number[]; b: number[]; t: number[]; q: number[][] }[];
  magnitude: number[];
}

const fx = readFixture<Fixture>('quat.json');
const orders = Object.keys(fx.euler) as EulerOrder[];

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('quat kernels against SciPy fixtures', () => {
  it('covers all 24 Euler sequences', () => {
    expect(orders).toHaveLength(24);
  });

  it.each(orders)('fromEuler(out, angles, %s) matches Rotation.from_euler up to sign', (order) => {
    const { angles, fromEuler } = fx.euler[order];
    const q = new Float64Array(4);
    let worst = 0;
    angles.forEach((a, i) => {
      quat.fromEuler(q, a, order);
      worst = Math.max(worst, quatDistance(q, fromEuler[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it.each(orders)(
    'toEuler(out, q, %s) reproduces the rotation and matches as_euler off gimbal lock',
    (order) => {
      const e = new Float64Array(3);
      const back = new Float64Array(4);
      let worstRotation = 0;
      let worstAngles = 0;
      fx.quats.forEach((q, i) => {
        quat.toEuler(e, q, order);
        quat.fromEuler(back, e, order);
        worstRotation = Math.max(worstRotation, quatDistance(back, q));
        const ref = fx.euler[order].toEuler[i];
        // Where the triple is unique, compare angles directly (modulo 2π for the outer angles).
        const proper = order[0].toUpperCase() === order[2].toUpperCase();
        const mid = ref[1];
        const locked = proper
          ? Math.min(Math.abs(mid), Math.abs(Math.PI - mid)) < 1e-6
          : Math.abs(Math.abs(mid) - Math.PI / 2) < 1e-6;
        if (!locked) {
          for (let k = 0; k < 3; k++) {
            let d = Math.abs(e[k] - ref[k]);
            d = Math.min(d, Math.abs(d - 2 * Math.PI));
            worstAngles = Math.max(worstAngles, d);
          }
        }
      });
      expect(worstRotation).toBeLessThan(TOL.oracle);
      expect(worstAngles).toBeLessThan(1e-10);
    },
  );

  it.each(orders)(
    'toEuler(out, fromEuler(angles), %s) reproduces SciPy angle fixtures as rotations',
    (order) => {
      const { angles } = fx.euler[order];
      const q = new Float64Array(4);
      const e = new Float64Array(3);
      const q2 = new Float64Array(4);
      let worst = 0;
      for (const a of angles) {
        quat.fromEuler(q, a, order);
        quat.toEuler(e, q, order);
        quat.fromEuler(q2, e, order);
        worst = Math.max(worst, quatDistance(q, q2));
      }
      expect(worst).toBeLessThan(TOL.oracle);
    },
  );

  it('toMatrix(out, q) matches as_matrix', () => {
    const m = new Float64Array(9);
    let worst = 0;
    fx.quats.forEach((q, i) => {
      worst = Math.max(worst, maxAbsDiff(quat.toMatrix(m, q), fx.matrix[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('fromMatrix(out, m) inverts as_matrix for every rotation, including 180° turns', () => {
    const q = new Float64Array(4);
    let worst = 0;
    fx.matrix.forEach((m, i) => {
      worst = Math.max(worst, quatDistance(quat.fromMatrix(q, m), fx.quats[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('fromMatrix(out, m) of a non-orthogonal matrix is the nearest rotation (SciPy polar factor)', () => {
    const q = new Float64Array(4);
    let worst = 0;
    for (const { matrix, nearest } of fx.nonOrthogonal) {
      worst = Math.max(worst, quatDistance(quat.fromMatrix(q, matrix), nearest));
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('toRotationVector(out, q) matches as_rotvec (sign-free at exactly π)', () => {
    const v = new Float64Array(3);
    let worst = 0;
    fx.quats.forEach((q, i) => {
      quat.toRotationVector(v, q);
      const ref = fx.rotvec[i];
      const angle = Math.hypot(ref[0], ref[1], ref[2]);
      const d = maxAbsDiff(v, ref);
      // At θ = π, v and -v are the same rotation.
      const flipped =
        Math.abs(angle - Math.PI) < 1e-12
          ? maxAbsDiff(
              v,
              ref.map((x) => -x),
            )
          : d;
      worst = Math.max(worst, Math.min(d, flipped));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('fromRotationVector(out, v) matches from_rotvec, including 0, 1e-12 and |v| > π', () => {
    const q = new Float64Array(4);
    let worst = 0;
    fx.fromRotvec.vectors.forEach((v, i) => {
      worst = Math.max(worst, quatDistance(quat.fromRotationVector(q, v), fx.fromRotvec.quats[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('multiply(out, a, b) matches Rotation composition a * b', () => {
    const q = new Float64Array(4);
    let worst = 0;
    fx.products.a.forEach((a, i) => {
      worst = Math.max(worst, quatDistance(quat.multiply(q, a, fx.products.b[i]), fx.products.ab[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('invert(out, q) matches Rotation.inv', () => {
    const q = new Float64Array(4);
    let worst = 0;
    fx.quats.forEach((a, i) => {
      worst = Math.max(worst, quatDistance(quat.invert(q, a), fx.inverse[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('rotateVector(out, q, v) matches Rotation.apply', () => {
    const v = new Float64Array(3);
    let worst = 0;
    fx.quats.forEach((q, i) => {
      worst = Math.max(worst, maxAbsDiff(quat.rotateVector(v, q, fx.apply.vectors[i]), fx.apply.rotated[i]));
    });
    expect(worst).toBeLessThan(1e-12);
  });

  it('slerp(out, a, b, t) matches scipy Slerp', () => {
    const q = new Float64Array(4);
    let worst = 0;
    for (const s of fx.slerp) {
      s.t.forEach((t, k) => {
        worst = Math.max(worst, quatDistance(quat.slerp(q, s.a, s.b, t), s.q[k]));
      });
    }
    expect(worst).toBeLessThan(TOL.oracle);
  });

  it('angle(a, identity) matches Rotation.magnitude', () => {
    const id = quat.create();
    let worst = 0;
    fx.quats.forEach((q, i) => {
      worst = Math.max(worst, Math.abs(quat.angle(q, id) - fx.magnitude[i]));
    });
    expect(worst).toBeLessThan(TOL.oracle);
  });
});
