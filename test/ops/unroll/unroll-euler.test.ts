import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { eulerFromQuatSeries } from '../../../src/ops/unroll/euler-from-quat-series.js';
import { unrollEuler, unrollEulerTriple } from '../../../src/ops/unroll/unroll-euler.js';
import { EULER_ORDERS, type EulerOrder } from '../../../src/quat/euler.js';
import * as quat from '../../../src/quat/index.js';
import { quatSeries, vec3Series } from '../../../src/series/create.js';
import { eulerOrder, quatDistance, unitQuat } from '../../support/arbitraries.js';
import { eulerStepBound, lockDistance } from '../../support/euler-steps.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

interface UnrollCase {
  order: EulerOrder;
  frames: number;
  truth: number[];
  quats: number[];
  wrapped: number[];
  unwrapped: number[];
}
const fixture = readFixture<{ cases: UnrollCase[] }>('unroll.json');

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

/** The rotation of every triple, for "same rotation" checks. */
function rotationsOf(angles: ArrayLike<number>, order: EulerOrder): Float64Array {
  const n = angles.length / 3;
  return quat.fromEulerArray(new Float64Array(n * 4), angles, order);
}

function sameRotations(a: ArrayLike<number>, b: ArrayLike<number>, order: EulerOrder): number {
  const qa = rotationsOf(a, order);
  const qb = rotationsOf(b, order);
  let m = 0;
  for (let i = 0; i < qa.length; i += 4)
    m = Math.max(m, quatDistance(qa.subarray(i, i + 4), qb.subarray(i, i + 4)));
  return m;
}

describe('unrollEuler(angles, options) against SciPy/numpy curves (all 24 sequences)', () => {
  it("unrollEuler(wrapped, { mode: 'wrap' }) equals numpy.unwrap of SciPy's as_euler", () => {
    for (const c of fixture.cases) {
      const out = unrollEuler(Float64Array.from(c.wrapped), { order: c.order, mode: 'wrap' });
      expect(maxAbsDiff(out, c.unwrapped), c.order).toBeLessThan(TOL.oracle);
    }
  });

  it('unrollEuler(wrapped, { initial: truth[0] }) returns the multi-turn truth curves, branch switches and all', () => {
    for (const c of fixture.cases) {
      const out = unrollEuler(Float64Array.from(c.wrapped), { order: c.order, initial: c.truth.slice(0, 3) });
      expect(maxAbsDiff(out, c.truth), c.order).toBeLessThan(1e-11);
      // The truth leaves the principal range: the curves really are multi-turn and cross the branch.
      expect(Math.max(...c.truth.filter((_, i) => i % 3 === 0).map(Math.abs))).toBeGreaterThan(Math.PI);
    }
  });

  it('unrollEuler(wrapped) without initial keeps the first frame and is continuous', () => {
    for (const c of fixture.cases) {
      const out = unrollEuler(Float64Array.from(c.wrapped), { order: c.order });
      expect(Array.from(out.subarray(0, 3))).toEqual(c.wrapped.slice(0, 3));
      // It differs from the truth by constant whole turns, or is the truth's other branch: same steps up to
      // the sign of the middle one (the other branch runs b the opposite way).
      for (let i = 3; i < out.length; i++) {
        const d = out[i] - out[i - 3];
        const t = c.truth[i] - c.truth[i - 3];
        expect(Math.abs(i % 3 === 1 ? Math.abs(d) - Math.abs(t) : d - t), c.order).toBeLessThan(1e-11);
      }
    }
  });

  it("unrollEuler mode 'wrap' cannot follow a middle angle past its range: it keeps the branch jumps", () => {
    const c = fixture.cases.find((k) => k.order === 'ZYX')!;
    const out = unrollEuler(Float64Array.from(c.wrapped), { order: 'ZYX', mode: 'wrap' });
    let biggest = 0;
    for (let i = 3; i < out.length; i++) biggest = Math.max(biggest, Math.abs(out[i] - out[i - 3]));
    expect(biggest).toBeGreaterThan(2); // about pi in the first and third channels
  });
});

describe('unrollEuler on synthetic spins', () => {
  it('eulerFromQuatSeries(spin through ±720° about x, y or z) is monotone with no step > the spin step + 1e-9, all 24 sequences', () => {
    // -716° .. +720° in 4° steps: every multiple of 90° is hit exactly (so are the gimbal locks), but the
    // first frame is not the identity, where a locked sequence could only guess how to split a and c.
    const frames = 360;
    const step = (4 * Math.PI * 2) / frames;
    const q = new Float64Array(4);
    const axes = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] } as const;
    for (const order of EULER_ORDERS) {
      for (const name of ['x', 'y', 'z']) {
        const data = new Float64Array(frames * 4);
        for (let f = 0; f < frames; f++) {
          quat.fromAxisAngle(q, axes[name as 'x'], -4 * Math.PI + (f + 1) * step);
          data.set(q, f * 4);
        }
        const e = eulerFromQuatSeries(quatSeries(data, frames, 1), order).data;
        // Every channel is monotone (for a sequence locked all along, like 'ZXZ' about z, the turn is split
        // evenly between the first and third angles) and the channels together turn by 8π less a step.
        let worst = 0;
        let total = 0;
        for (let k = 0; k < 3; k++) {
          const sign = Math.sign(e[(frames - 1) * 3 + k] - e[k]);
          let backwards = 0;
          for (let f = 1; f < frames; f++) {
            const d = e[f * 3 + k] - e[(f - 1) * 3 + k];
            worst = Math.max(worst, Math.abs(d));
            if (sign * d < -1e-12 || (sign === 0 && Math.abs(d) > 1e-12)) backwards++;
          }
          expect(backwards, `${order} about ${name}, channel ${k}`).toBe(0);
          total += Math.abs(e[(frames - 1) * 3 + k] - e[k]);
        }
        expect(worst, `${order} about ${name}`).toBeLessThanOrEqual(step + 1e-9);
        expect(total, `${order} about ${name}`).toBeCloseTo(8 * Math.PI - step, 9);
      }
    }
  });

  it('eulerFromQuatSeries(constant-rate spin about a tilted axis near gimbal lock) steps no more than the motion implies', () => {
    // Axis 3° off the y axis: for 'ZYX' the middle angle passes within 3° of ±90° twice per turn.
    const frames = 720;
    const axis = [Math.sin((3 * Math.PI) / 180), Math.cos((3 * Math.PI) / 180), 0];
    const rate = (2 * 2 * Math.PI) / frames; // two turns
    const q = new Float64Array(4);
    const data = new Float64Array(frames * 4);
    for (let f = 0; f < frames; f++) {
      quat.fromAxisAngle(q, axis, f * rate);
      data.set(q, f * 4);
    }
    const series = quatSeries(data, frames, 1);
    const e = eulerFromQuatSeries(series, 'ZYX').data;
    const q0 = new Float64Array(4);
    const q1 = new Float64Array(4);
    let closest = Math.PI;
    for (let f = 1; f < frames; f++) {
      quat.fromEuler(q0, e.subarray((f - 1) * 3, f * 3), 'ZYX');
      quat.fromEuler(q1, e.subarray(f * 3, f * 3 + 3), 'ZYX');
      const bound =
        eulerStepBound(quat.angle(q0, q1), e[(f - 1) * 3 + 1], e[f * 3 + 1], false) / Math.sqrt(3);
      closest = Math.min(closest, lockDistance(e[f * 3 + 1], false));
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(e[f * 3 + k] - e[(f - 1) * 3 + k])).toBeLessThanOrEqual(bound + 1e-9);
      }
    }
    expect(closest).toBeLessThan((3.1 * Math.PI) / 180); // it did pass within about 3° of the lock
    expect(closest).toBeGreaterThan((2.9 * Math.PI) / 180);
    expect(sameRotations(e, eulerFromQuatSeries(series, 'ZYX', { unroll: 'none' }).data, 'ZYX')).toBeLessThan(
      TOL.f64,
    );
  });
});

describe('unrollEuler(angles, options) shapes, edges and errors', () => {
  it('unrollEuler on 0, 1 and 2 frames', () => {
    expect(unrollEuler(new Float64Array(0), { order: 'ZYX' }).length).toBe(0);
    const one = Float64Array.of(3, 0.5, -3);
    expect(Array.from(unrollEuler(one, { order: 'ZYX' }))).toEqual([3, 0.5, -3]);
    const moved = unrollEuler(one, { order: 'ZYX', initial: [3 + 4 * Math.PI, 0.5, -3 - 2 * Math.PI] });
    expect(maxAbsDiff(moved, [3 + 4 * Math.PI, 0.5, -3 - 2 * Math.PI])).toBeLessThan(1e-14);
    const two = Float64Array.of(3, 0.5, -3, -3, 0.5, 3);
    expect(
      maxAbsDiff(unrollEuler(two, { order: 'ZYX' }), [3, 0.5, -3, 2 * Math.PI - 3, 0.5, 3 - 2 * Math.PI]),
    ).toBeLessThan(1e-15);
  });

  it('unrollEuler(Vec3Series, { order: perJoint }) unrolls each joint with its own sequence, Float32 input too', () => {
    const c1 = fixture.cases.find((k) => k.order === 'ZXY')!;
    const c2 = fixture.cases.find((k) => k.order === 'zxz')!;
    const frames = c1.frames;
    const data = new Float32Array(frames * 2 * 3);
    const data64 = new Float64Array(frames * 2 * 3);
    for (let f = 0; f < frames; f++) {
      for (let k = 0; k < 3; k++) {
        data64[f * 6 + k] = c1.wrapped[f * 3 + k];
        data64[f * 6 + 3 + k] = c2.wrapped[f * 3 + k];
      }
    }
    data.set(data64);
    const initial = [...c1.truth.slice(0, 3), ...c2.truth.slice(0, 3)];
    const r64 = unrollEuler(vec3Series(data64, frames, 2), { order: ['ZXY', 'zxz'], initial });
    const r32 = unrollEuler(vec3Series(data, frames, 2), { order: ['ZXY', 'zxz'], initial });
    expect(r64.frames).toBe(frames);
    expect(r64.joints).toBe(2);
    expect(r32.data).toBeInstanceOf(Float64Array);
    for (let f = 0; f < frames; f++) {
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(r64.data[f * 6 + k] - c1.truth[f * 3 + k])).toBeLessThan(1e-11);
        expect(Math.abs(r64.data[f * 6 + 3 + k] - c2.truth[f * 3 + k])).toBeLessThan(1e-11);
        expect(Math.abs(r32.data[f * 6 + k] - c1.truth[f * 3 + k])).toBeLessThan(1e-6);
      }
    }
  });

  it('unrollEuler(angles, { out: angles }) works in place', () => {
    const c = fixture.cases[0];
    const a = Float64Array.from(c.wrapped);
    const r = unrollEuler(a, { order: c.order, out: a, initial: c.truth.slice(0, 3) });
    expect(r).toBe(a);
    expect(maxAbsDiff(a, c.truth)).toBeLessThan(1e-11);
  });

  it('unrollEuler throws InvalidValueError naming frame and joint for a NaN frame', () => {
    const data = new Float64Array(4 * 3 * 3);
    data[(2 * 3 + 1) * 3 + 2] = Number.NaN;
    try {
      unrollEuler(vec3Series(data, 4, 3), { order: 'XYZ' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location).toEqual({ frame: 2, joint: 1 });
    }
    expect(() => unrollEulerTriple(Float64Array.of(0, Number.NaN, 0), 0, [0, 0, 0], 0, 'XYZ')).toThrow(
      InvalidValueError,
    );
  });

  it('unrollEuler rejects bad shapes and options with ShapeError / OptionError', () => {
    expect(() => unrollEuler(new Float64Array(4), { order: 'ZYX' })).toThrow(ShapeError);
    expect(() => unrollEuler(new Float64Array(6), { order: 'ZYX', out: new Float64Array(3) })).toThrow(
      ShapeError,
    );
    expect(() => unrollEuler(new Float64Array(6), { order: 'ZYX', initial: [1, 2] })).toThrow(ShapeError);
    expect(() => unrollEuler(new Float64Array(6), { order: 'ZZX' as EulerOrder })).toThrow(OptionError);
    expect(() => unrollEuler(new Float64Array(6), { order: 'ZYX', mode: 'all' as 'wrap' })).toThrow(
      OptionError,
    );
    expect(() => unrollEuler(vec3Series(new Float64Array(6), 1, 2), { order: ['ZYX'] })).toThrow(OptionError);
    expect(() => unrollEuler(new Float64Array(6), undefined as never)).toThrow(OptionError);
  });

  it('unrollEulerTriple(cur, 0, prev, 0, order) is one frame of unrollEuler', () => {
    const c = fixture.cases.find((k) => k.order === 'YXZ')!;
    const cur = new Float64Array(3);
    const prev = Float64Array.from(c.truth.slice(0, 3));
    for (let f = 1; f < c.frames; f++) {
      cur.set(c.wrapped.slice(f * 3, f * 3 + 3));
      unrollEulerTriple(cur, 0, prev, 0, 'YXZ');
      expect(maxAbsDiff(cur, c.truth.slice(f * 3, f * 3 + 3))).toBeLessThan(1e-11);
      prev.set(cur);
    }
  });
});

describe('unrollEuler properties', () => {
  /** Random triples: a random rotation per frame, written as either branch with random whole turns. */
  const curves = fc.array(
    fc.tuple(unitQuat, fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -1, max: 1 })),
    { minLength: 0, maxLength: 30 },
  );

  it('unrollEuler keeps every rotation the same rotation and is idempotent, both modes, all sequences', () => {
    fc.assert(
      fc.property(curves, eulerOrder, fc.constantFrom('wrap', 'equivalent'), (items, order, mode) => {
        const proper = order[0] === order[2];
        const angles = new Float64Array(items.length * 3);
        const e = new Float64Array(3);
        items.forEach(([q, other, turns, turnsB], f) => {
          quat.toEuler(e, q, order);
          let [a, b, c] = e;
          if (other) [a, b, c] = [a + Math.PI, proper ? -b : Math.PI - b, c + Math.PI];
          angles.set([a + 2 * Math.PI * turns, b + 2 * Math.PI * turnsB, c - 2 * Math.PI * turns], f * 3);
        });
        const once = unrollEuler(angles, { order, mode });
        const twice = unrollEuler(once, { order, mode });
        expect(maxAbsDiff(twice, once)).toBeLessThan(1e-12);
        expect(sameRotations(once, angles, order)).toBeLessThan(1e-12);
      }),
      { numRuns: 300 },
    );
  });
});
