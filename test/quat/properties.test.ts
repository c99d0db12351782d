import fc from 'fast-check';
import { describe, it } from 'vitest';
import * as quat from '../../src/quat/index.js';
import { eulerOrder, quatDistance, unitQuat, vec3 } from '../support/arbitraries.js';
import { TOL } from '../support/tolerances.js';

const norm = (q: ArrayLike<number>) => Math.hypot(q[0], q[1], q[2], q[3]);
const neg = (q: ArrayLike<number>) => Float64Array.of(-q[0], -q[1], -q[2], -q[3]);

describe('quat round trips (property tests)', () => {
  it('fromMatrix(toMatrix(q)) is q up to sign', () => {
    const m = new Float64Array(9);
    const r = new Float64Array(4);
    fc.assert(
      fc.property(unitQuat, (q) => quatDistance(quat.fromMatrix(r, quat.toMatrix(m, q)), q) < TOL.f64),
      { numRuns: 500 },
    );
  });

  it('fromEuler(toEuler(q, order), order) is q up to sign for every order', () => {
    const e = new Float64Array(3);
    const r = new Float64Array(4);
    fc.assert(
      fc.property(unitQuat, eulerOrder, (q, order) => {
        quat.fromEuler(r, quat.toEuler(e, q, order), order);
        return quatDistance(r, q) < TOL.f64;
      }),
      { numRuns: 2000 },
    );
  });

  it('from6D(to6D(q)) is q up to sign', () => {
    const v = new Float64Array(6);
    const r = new Float64Array(4);
    fc.assert(
      fc.property(unitQuat, (q) => quatDistance(quat.from6D(r, quat.to6D(v, q)), q) < TOL.f64),
      { numRuns: 500 },
    );
  });

  it('exp(log(q)) is q up to sign and log(q) = log(-q)', () => {
    const v = new Float64Array(3);
    const v2 = new Float64Array(3);
    const r = new Float64Array(4);
    fc.assert(
      fc.property(unitQuat, (q) => {
        quat.log(v, q);
        quat.log(v2, neg(q));
        const same = Math.max(...[0, 1, 2].map((i) => Math.abs(v[i] - v2[i])));
        return quatDistance(quat.exp(r, v), q) < TOL.f64 && (same < TOL.f64 || Math.abs(q[3]) < 1e-15);
      }),
      { numRuns: 500 },
    );
  });

  it('fromRotationVector(toRotationVector(q)) is q up to sign', () => {
    const v = new Float64Array(3);
    const r = new Float64Array(4);
    fc.assert(
      fc.property(
        unitQuat,
        (q) => quatDistance(quat.fromRotationVector(r, quat.toRotationVector(v, q)), q) < TOL.f64,
      ),
      { numRuns: 500 },
    );
  });

  it('every quaternion-valued kernel returns a unit quaternion', () => {
    const r = new Float64Array(4);
    fc.assert(
      fc.property(
        unitQuat,
        unitQuat,
        fc.double({ min: -0.5, max: 1.5, noNaN: true }),
        vec3(20),
        eulerOrder,
        (a, b, t, v, order) => {
          const outs = [
            quat.multiply(r, a, b).slice(),
            quat.slerp(r, a, b, t).slice(),
            quat.nlerp(r, a, b, Math.min(1, Math.max(0, t))).slice(),
            quat.exp(r, v).slice(),
            quat.fromRotationVector(r, v).slice(),
            quat.fromEuler(r, v, order).slice(),
            quat.fromUnitVectors(r, [v[0] + 1e-3, v[1], v[2]], [a[0], a[1], a[2] + 1e-3]).slice(),
            quat.invert(r, a).slice(),
          ];
          return outs.every((q) => Math.abs(norm(q) - 1) < 1e-12);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('quat treats q and -q as the same rotation', () => {
  it('angle, chordalDistance, toMatrix, toEuler, log and rotateVector ignore the sign', () => {
    const m1 = new Float64Array(9);
    const m2 = new Float64Array(9);
    const e1 = new Float64Array(3);
    const e2 = new Float64Array(3);
    const v1 = new Float64Array(3);
    const v2 = new Float64Array(3);
    fc.assert(
      fc.property(unitQuat, unitQuat, eulerOrder, vec3(), (a, b, order, v) => {
        const na = neg(a);
        const close = (x: ArrayLike<number>, y: ArrayLike<number>, tol = 1e-12) => {
          for (let i = 0; i < x.length; i++) if (Math.abs(x[i] - y[i]) > tol) return false;
          return true;
        };
        const wrapClose = (x: ArrayLike<number>, y: ArrayLike<number>) => {
          // outer Euler angles may land on ±π
          for (let i = 0; i < 3; i++) {
            const d = Math.abs(x[i] - y[i]);
            if (Math.min(d, Math.abs(d - 2 * Math.PI)) > 1e-9) return false;
          }
          return true;
        };
        return (
          Math.abs(quat.angle(a, b) - quat.angle(na, b)) < 1e-12 &&
          Math.abs(quat.chordalDistance(a, b) - quat.chordalDistance(a, neg(b))) < 1e-12 &&
          close(quat.toMatrix(m1, a), quat.toMatrix(m2, na)) &&
          wrapClose(quat.toEuler(e1, a, order), quat.toEuler(e2, na, order)) &&
          close(quat.rotateVector(v1, a, v), quat.rotateVector(v2, na, v), 1e-11) &&
          (Math.abs(a[3]) < 1e-12 || close(quat.log(v1, a), quat.log(v2, na)))
        );
      }),
      { numRuns: 500 },
    );
  });

  it('slerp(out, a, -b, t) gives the same rotations as slerp(out, a, b, t)', () => {
    const r1 = new Float64Array(4);
    const r2 = new Float64Array(4);
    fc.assert(
      fc.property(unitQuat, unitQuat, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, t) => {
        // a·b = 0 exactly (e.g. (0,1,8e-323,0) and (0,8e-323,-1,0)) is the tie of two rotations 180°
        // apart: both arcs are shortest and neither sign is flipped, so the property does not apply
        fc.pre(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] !== 0);
        return quatDistance(quat.slerp(r1, a, b, t), quat.slerp(r2, a, neg(b), t)) < 1e-12;
      }),
      { numRuns: 300 },
    );
  });
});

describe('quat kernels are safe when out aliases an input', () => {
  type Binary = (out: Float64Array, a: Float64Array, b: Float64Array) => Float64Array;
  const binary: [string, Binary][] = [
    ['multiply', (o, a, b) => quat.multiply(o, a, b)],
    ['slerp', (o, a, b) => quat.slerp(o, a, b, 0.3)],
    ['nlerp', (o, a, b) => quat.nlerp(o, a, b, 0.3)],
  ];
  type Unary = (out: Float64Array, a: Float64Array) => Float64Array;
  const unary: [string, Unary][] = [
    ['invert', (o, a) => quat.invert(o, a)],
    ['conjugate', (o, a) => quat.conjugate(o, a)],
    ['normalize', (o, a) => quat.normalize(o, a)],
    ['abs', (o, a) => quat.abs(o, a)],
    ['copy', (o, a) => quat.copy(o, a)],
    ['fromWxyz', (o, a) => quat.fromWxyz(o, a)],
    ['toWxyz', (o, a) => quat.toWxyz(o, a)],
    [
      'fromEulerFlat XYZ (first 3 as angles)',
      (o, a) => {
        quat.fromEulerFlat(o, 0, a, 0, 'XYZ');
        return o;
      },
    ],
  ];
  it.each(binary)('%s(out, a, b) with out === a or out === b equals a fresh out', (_name, f) => {
    fc.assert(
      fc.property(unitQuat, unitQuat, (a, b) => {
        const fresh = f(new Float64Array(4), a, b);
        const aliasA = a.slice();
        f(aliasA, aliasA, b);
        const aliasB = b.slice();
        f(aliasB, a, aliasB);
        return aliasA.every((x, i) => x === fresh[i]) && aliasB.every((x, i) => x === fresh[i]);
      }),
      { numRuns: 200 },
    );
  });
  it.each(unary)('%s(out = a, a) equals a fresh out', (_name, f) => {
    fc.assert(
      fc.property(unitQuat, (a) => {
        const fresh = f(new Float64Array(4), a);
        const inPlace = a.slice();
        f(inPlace, inPlace);
        return inPlace.every((x, i) => x === fresh[i]);
      }),
      { numRuns: 200 },
    );
  });
  it('rotateVector(out = v, q, v) equals a fresh out', () => {
    fc.assert(
      fc.property(unitQuat, vec3(), (q, v) => {
        const fresh = quat.rotateVector(new Float64Array(3), q, v);
        const inPlace = v.slice();
        quat.rotateVector(inPlace, q, inPlace);
        return inPlace.every((x, i) => x === fresh[i]);
      }),
    );
  });
});

describe('quat accepts Float32 input and output', () => {
  it('fromEuler/toEuler round trip through Float32Array within the f32 tier', () => {
    const e = new Float32Array(3);
    const q32 = new Float32Array(4);
    fc.assert(
      fc.property(unitQuat, eulerOrder, (q, order) => {
        quat.toEuler(e, Float32Array.from(q), order);
        quat.fromEuler(q32, e, order);
        return quatDistance(q32, q) < 10 * TOL.f32;
      }),
      { numRuns: 300 },
    );
  });
});

describe('fromEuler agrees with the product of axis rotations on both of its paths', () => {
  it('fromEuler(out, angles, order) = e(axis0, a)·e(axis1, b)·e(axis2, c) for angles within ±π (polynomial path) and ±4π', () => {
    const axes: Record<string, number[]> = { X: [1, 0, 0], Y: [0, 1, 0], Z: [0, 0, 1] };
    const r = new Float64Array(4);
    const p = new Float64Array(4);
    const t = new Float64Array(4);
    fc.assert(
      fc.property(fc.oneof(vec3(Math.PI), vec3(4 * Math.PI)), eulerOrder, (angles, order) => {
        const upper = order.toUpperCase();
        const intrinsic = order === upper;
        quat.identity(p);
        for (let i = 0; i < 3; i++) {
          quat.fromAxisAngle(t, axes[upper[i]], angles[i]);
          // intrinsic: R = R0·R1·R2; extrinsic: R = R2·R1·R0
          if (intrinsic) quat.multiply(p, p, t);
          else quat.multiply(p, t, p);
        }
        return quatDistance(quat.fromEuler(r, angles, order), p) < 1e-15 * 8;
      }),
      { numRuns: 3000 },
    );
  });
});
