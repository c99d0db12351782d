import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../src/errors.js';
import type { EulerOrder } from '../../src/quat/euler.js';
import * as quat from '../../src/quat/index.js';
import { randomQuatSeries } from '../../src/series/random.js';
import { quatDistance, unitQuat, vec3 } from '../support/arbitraries.js';
import { TOL } from '../support/tolerances.js';

const nextDown = (x: number) => {
  const f = new Float64Array([x]);
  const u = new BigInt64Array(f.buffer);
  u[0] -= 1n;
  return f[0];
};

describe('slerp at the edges', () => {
  it('slerp(out, q, q, t) of identical quaternions returns q, no NaN', () => {
    const q = quat.normalize(quat.create(), [0.1, -0.7, 0.3, 0.6]);
    for (const t of [0, 1e-9, 0.5, 1 - 1e-9, 1]) {
      const r = quat.slerp(quat.create(), q, q, t);
      expect(quatDistance(r, q)).toBeLessThan(1e-16 + 1e-15);
      expect(r.every(Number.isFinite)).toBe(true);
    }
  });

  it('slerp(out, a, b, t) with dot(a, b) = 1 − 1 ulp is finite and exact at the endpoints', () => {
    const a = Float64Array.of(0, 0, 0, 1);
    const w = nextDown(1);
    const b = Float64Array.of(Math.sqrt(1 - w * w), 0, 0, w);
    expect(quat.dot(a, b)).toBe(w);
    expect(quat.slerp(quat.create(), a, b, 0)).toEqual(a);
    expect(quatDistance(quat.slerp(quat.create(), a, b, 1), b)).toBe(0);
    const mid = quat.slerp(quat.create(), a, b, 0.5);
    expect(mid.every(Number.isFinite)).toBe(true);
    expect(Math.abs(Math.hypot(...mid) - 1)).toBeLessThan(TOL.f64);
  });

  it('slerp(out, a, b, t) hits both endpoints exactly (up to sign) for random pairs', () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, (a, b) => {
        const r0 = quat.slerp(quat.create(), a, b, 0);
        const r1 = quat.slerp(quat.create(), a, b, 1);
        return quatDistance(r0, a) < 1e-15 && quatDistance(r1, b) < 1e-15;
      }),
    );
  });

  it('slerp and slerpFlat return a bit for bit at t = 0 and ±b at t = 1 over 10,000 random pairs', () => {
    const pairs = randomQuatSeries(10000, 2, { seed: 18 }).data;
    let off = 0;
    const r = quat.create();
    const flat = new Float64Array(8);
    for (let i = 0; i < 10000; i++) {
      const a = pairs.subarray(8 * i, 8 * i + 4);
      const b = pairs.subarray(8 * i + 4, 8 * i + 8);
      const s = quat.dot(a, b) < 0 ? -1 : 1;
      quat.slerp(r, a, b, 0);
      quat.slerpFlat(flat, 4, pairs, 8 * i, pairs, 8 * i + 4, 0);
      for (let k = 0; k < 4; k++) if (r[k] !== a[k] || flat[4 + k] !== a[k]) off++;
      quat.slerp(r, a, b, 1);
      quat.slerpFlat(flat, 4, pairs, 8 * i, pairs, 8 * i + 4, 1);
      for (let k = 0; k < 4; k++) if (r[k] !== s * b[k] || flat[4 + k] !== s * b[k]) off++;
    }
    expect(off).toBe(0);
  });

  it('slerp(out, a, b, t) moves at constant angular speed', () => {
    const a = quat.fromAxisAngle(quat.create(), [1, 2, 3], 0.3);
    const b = quat.fromAxisAngle(quat.create(), [-2, 0.5, 1], 2.9);
    const total = quat.angle(a, b);
    for (const t of [0.1, 0.37, 0.8]) {
      expect(quat.angle(a, quat.slerp(quat.create(), a, b, t))).toBeCloseTo(t * total, 12);
    }
  });
});

describe('angle and log near the unit circle limits', () => {
  it('angle(a, b) with |dot| slightly above 1 (non-unit rounding) is 0, not NaN', () => {
    const a = Float64Array.of(0, 0, 0, 1 + 2e-16);
    const b = Float64Array.of(0, 0, 0, -1 - 2e-16);
    expect(quat.angle(a, b)).toBe(0);
    expect(quat.angle(a, a)).toBe(0);
  });

  it('angle(a, b) is accurate for tiny angles where acos loses digits', () => {
    const a = quat.create();
    const b = quat.fromAxisAngle(quat.create(), [0, 1, 0], 1e-9);
    expect(Math.abs(quat.angle(a, b) - 1e-9) / 1e-9).toBeLessThan(1e-9);
  });

  it('log(out, q) with w slightly above 1 is finite and zero-length', () => {
    const v = quat.log(new Float64Array(3), [0, 0, 0, 1 + 1e-15]);
    expect(Array.from(v)).toEqual([0, 0, 0]);
    const v2 = quat.log(new Float64Array(3), [1e-17, 0, 0, 1 + 1e-15]);
    expect(v2.every(Number.isFinite)).toBe(true);
    expect(v2[0]).toBeCloseTo(1e-17, 25);
  });

  it('toRotationVector(out, q) at exactly π has length π and the input axis', () => {
    const q = Float64Array.of(0.6, 0, 0.8, 0);
    const v = quat.toRotationVector(new Float64Array(3), q);
    expect(Math.hypot(...v)).toBeCloseTo(Math.PI, 14);
    expect(v[0] / v[2]).toBeCloseTo(0.75, 14);
    expect(v[1]).toBe(0);
  });

  it('toRotationVector(out, q) near π keeps a stable axis on both sides of the hemisphere', () => {
    const axis = [0.2, -0.5, 0.84];
    const n = Math.hypot(...axis);
    for (const d of [1e-6, 1e-9, 1e-12]) {
      for (const angle of [Math.PI - d, Math.PI + d]) {
        const q = quat.fromAxisAngle(quat.create(), axis, angle);
        const v = quat.toRotationVector(new Float64Array(3), q);
        const len = Math.hypot(...v);
        expect(len).toBeLessThanOrEqual(Math.PI + 1e-15);
        expect(Math.abs(len - (Math.PI - d))).toBeLessThan(1e-12);
        // axis is ±(axis/n), never garbage
        const c = (v[0] * axis[0] + v[1] * axis[1] + v[2] * axis[2]) / (len * n);
        expect(Math.abs(Math.abs(c) - 1)).toBeLessThan(1e-12);
      }
    }
  });

  it('exp(out, v) and fromRotationVector(out, v) are exact at 0 and at 1e-12', () => {
    expect(Array.from(quat.exp(quat.create(), [0, 0, 0]))).toEqual([0, 0, 0, 1]);
    expect(Array.from(quat.fromRotationVector(quat.create(), [0, 0, 0]))).toEqual([0, 0, 0, 1]);
    const q = quat.fromRotationVector(quat.create(), [1e-12, 0, 0]);
    expect(q[0]).toBe(5e-13);
    expect(q[3]).toBe(1);
    const e = quat.exp(quat.create(), [0, 1e-12, 0]);
    expect(e[1]).toBe(1e-12);
  });
});

const TAIT_BRYAN: EulerOrder[] = [
  'XYZ',
  'XZY',
  'YXZ',
  'YZX',
  'ZXY',
  'ZYX',
  'xyz',
  'xzy',
  'yxz',
  'yzx',
  'zxy',
  'zyx',
];
const PROPER: EulerOrder[] = [
  'XYX',
  'XZX',
  'YXY',
  'YZY',
  'ZXZ',
  'ZYZ',
  'xyx',
  'xzx',
  'yxy',
  'yzy',
  'zxz',
  'zyz',
];

describe('toEuler at and near gimbal lock', () => {
  const cases: [EulerOrder, number][] = [
    ...TAIT_BRYAN.flatMap((o): [EulerOrder, number][] => [
      [o, Math.PI / 2],
      [o, -Math.PI / 2],
    ]),
    ...PROPER.flatMap((o): [EulerOrder, number][] => [
      [o, 0],
      [o, Math.PI],
    ]),
  ];
  it.each(cases)(
    'toEuler(out, q, %s) at middle angle %f sets the third angle to 0 and reproduces q',
    (order, mid) => {
      const q = quat.fromEuler(quat.create(), [0.7, mid, -0.4], order);
      const e = quat.toEuler(new Float64Array(3), q, order);
      expect(e[2]).toBe(0);
      expect(Math.abs(e[1] - mid)).toBeLessThan(1e-7);
      expect(quatDistance(quat.fromEuler(quat.create(), e, order), q)).toBeLessThan(TOL.f64);
    },
  );

  it.each([...TAIT_BRYAN, ...PROPER])('toEuler(out, q, %s) near gimbal lock reproduces q', (order) => {
    const proper = PROPER.includes(order);
    for (const d of [1e-4, 1e-7, 1e-10, 1e-13]) {
      const mid = proper ? d : Math.PI / 2 - d;
      const q = quat.fromEuler(quat.create(), [2.1, mid, -1.3], order);
      const e = quat.toEuler(new Float64Array(3), q, order);
      expect(quatDistance(quat.fromEuler(quat.create(), e, order), q)).toBeLessThan(TOL.f64);
    }
  });
});

describe('bad input gets a typed error, never a silent NaN', () => {
  it('normalize(out, q) of zero, NaN and infinite quaternions throws InvalidValueError', () => {
    for (const bad of [
      [0, 0, 0, 0],
      [Number.NaN, 0, 0, 1],
      [Number.POSITIVE_INFINITY, 0, 0, 1],
    ]) {
      expect(() => quat.normalize(quat.create(), bad)).toThrow(InvalidValueError);
    }
  });

  it('normalize(out, q) scales tiny and huge finite quaternions to unit length', () => {
    expect(Math.hypot(...quat.normalize(quat.create(), [1e-200, 0, 0, 1e-200]))).toBeCloseTo(1, 15);
    expect(Math.hypot(...quat.normalize(quat.create(), [1e150, 1e150, 0, 0]))).toBeCloseTo(1, 15);
  });

  it('fromMatrix(out, m) of a reflection or singular matrix throws InvalidValueError', () => {
    expect(() => quat.fromMatrix(quat.create(), [-1, 0, 0, 0, 1, 0, 0, 0, 1])).toThrow(InvalidValueError);
    expect(() => quat.fromMatrix(quat.create(), [1, 0, 0, 0, 1, 0, 0, 0, 0])).toThrow(InvalidValueError);
    expect(() => quat.fromMatrix(quat.create(), [1, 0, 0, 0, Number.NaN, 0, 0, 0, 1])).toThrow(
      InvalidValueError,
    );
  });

  it('fromMatrix(out, 2·R) of a scaled rotation returns the rotation', () => {
    const q = quat.fromAxisAngle(quat.create(), [1, 1, 0], 1.2);
    const m = quat.toMatrix(new Float64Array(9), q).map((x) => 2 * x);
    expect(quatDistance(quat.fromMatrix(quat.create(), m), q)).toBeLessThan(TOL.f64);
  });

  it('fromEuler with an unknown order throws OptionError', () => {
    expect(() => quat.fromEuler(quat.create(), [0, 0, 0], 'XXY' as EulerOrder)).toThrow(OptionError);
    expect(() => quat.toEuler(new Float64Array(3), quat.create(), 'ZYZX' as EulerOrder)).toThrow(OptionError);
  });

  it('invert, toMatrix, from6D, fromAxisAngle, fromUnitVectors, swingTwist reject degenerate input', () => {
    expect(() => quat.invert(quat.create(), [0, 0, 0, 0])).toThrow(InvalidValueError);
    expect(() => quat.toMatrix(new Float64Array(9), [0, 0, 0, 0])).toThrow(InvalidValueError);
    expect(() => quat.from6D(quat.create(), [1, 0, 0, 2, 0, 0])).toThrow(InvalidValueError);
    expect(() => quat.from6D(quat.create(), [0, 0, 0, 0, 1, 0])).toThrow(InvalidValueError);
    expect(() => quat.fromAxisAngle(quat.create(), [0, 0, 0], 1)).toThrow(InvalidValueError);
    expect(() => quat.fromUnitVectors(quat.create(), [0, 0, 0], [1, 0, 0])).toThrow(InvalidValueError);
    expect(() => quat.swingTwist(quat.create(), quat.create(), quat.create(), [0, 0, 0])).toThrow(
      InvalidValueError,
    );
    expect(() => quat.exp(quat.create(), [Number.NaN, 0, 0])).toThrow(InvalidValueError);
  });
});

describe('vector kernels', () => {
  it('fromUnitVectors(out, a, b) rotates a onto b, also for opposite directions', () => {
    fc.assert(
      fc.property(vec3(), vec3(), (a, b) => {
        fc.pre(Math.hypot(...a) > 1e-3 && Math.hypot(...b) > 1e-3);
        const q = quat.fromUnitVectors(quat.create(), a, b);
        const r = quat.rotateVector(new Float64Array(3), q, a);
        const s = Math.hypot(...a) / Math.hypot(...b);
        return [0, 1, 2].every((i) => Math.abs(r[i] - b[i] * s) < 1e-9 * Math.hypot(...a));
      }),
    );
    const q = quat.fromUnitVectors(quat.create(), [0, 1, 0], [0, -3, 0]);
    const r = quat.rotateVector(new Float64Array(3), q, [0, 1, 0]);
    expect(r[1]).toBeCloseTo(-1, 14);
    expect(quat.angle(q, quat.create())).toBeCloseTo(Math.PI, 12);
  });

  it('swingTwist(swing, twist, q, axis) recomposes q with the twist about the axis and the swing perpendicular', () => {
    fc.assert(
      fc.property(unitQuat, vec3(1), (q, axis) => {
        fc.pre(Math.hypot(...axis) > 1e-3);
        const swing = quat.create();
        const twist = quat.create();
        quat.swingTwist(swing, twist, q, axis);
        const back = quat.multiply(quat.create(), swing, twist);
        const n = Math.hypot(...axis);
        const twistAlong =
          Math.abs(twist[0] * axis[1] - twist[1] * axis[0]) +
          Math.abs(twist[1] * axis[2] - twist[2] * axis[1]) +
          Math.abs(twist[0] * axis[2] - twist[2] * axis[0]);
        const swingPerp = Math.abs(swing[0] * axis[0] + swing[1] * axis[1] + swing[2] * axis[2]) / n;
        return quatDistance(back, q) < 1e-12 && twistAlong < 1e-12 && swingPerp < 1e-12;
      }),
    );
  });

  it('fromWxyz and toWxyz reorder scalar-first data', () => {
    expect(Array.from(quat.fromWxyz(quat.create(), [4, 1, 2, 3]))).toEqual([1, 2, 3, 4]);
    expect(Array.from(quat.toWxyz(quat.create(), [1, 2, 3, 4]))).toEqual([4, 1, 2, 3]);
  });

  it('chordalDistance(a, b) = ‖R(a) − R(b)‖_F / (2√2)', () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, (a, b) => {
        const ma = quat.toMatrix(new Float64Array(9), a);
        const mb = quat.toMatrix(new Float64Array(9), b);
        let f = 0;
        for (let i = 0; i < 9; i++) f += (ma[i] - mb[i]) ** 2;
        return Math.abs(quat.chordalDistance(a, b) - Math.sqrt(f) / (2 * Math.SQRT2)) < 1e-12;
      }),
    );
  });
});

describe('batch Euler conversions', () => {
  it('fromEulerArray and toEulerArray equal the single kernels and check shapes', () => {
    const n = 50;
    const angles = Float64Array.from({ length: n * 3 }, (_, i) => Math.sin(i * 1.7) * 3);
    const q = quat.fromEulerArray(new Float64Array(n * 4), angles, 'ZXY');
    const single = quat.create();
    for (let i = 0; i < n; i++) {
      quat.fromEuler(single, angles.subarray(i * 3, i * 3 + 3), 'ZXY');
      expect(Array.from(q.subarray(i * 4, i * 4 + 4))).toEqual(Array.from(single));
    }
    const back = quat.toEulerArray(new Float64Array(n * 3), q, 'ZXY');
    const q2 = quat.fromEulerArray(new Float32Array(n * 4), back, 'ZXY');
    for (let i = 0; i < n; i++)
      expect(quatDistance(q2.subarray(i * 4), q.subarray(i * 4))).toBeLessThan(TOL.f32);
    expect(() => quat.fromEulerArray(new Float64Array(8), new Float64Array(5), 'XYZ')).toThrow(
      /multiple of 3/,
    );
    expect(() => quat.toEulerArray(new Float64Array(5), new Float64Array(8), 'XYZ')).toThrow(
      /expected 2 x 3/,
    );
  });
});

describe('nlerp speed', () => {
  it('nlerp(out, a, b, t) is faster in the middle than at the ends by 1/cos²(θ/4)', () => {
    for (const deg of [45, 90, 150]) {
      const theta = (deg * Math.PI) / 180;
      const a = quat.create();
      const b = quat.fromAxisAngle(quat.create(), [0, 0, 1], theta);
      const h = 1e-6;
      const speed = (t: number) =>
        quat.angle(quat.nlerp(quat.create(), a, b, t), quat.nlerp(quat.create(), a, b, t + h)) / h;
      const ratio = speed(0.5 - h / 2) / speed(0);
      expect(ratio).toBeCloseTo(1 / Math.cos(theta / 4) ** 2, 4);
    }
  });
});
