import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { blendRotations, createWindowScratch } from '../../../src/ops/kernel/rotation-blend.js';
import { createTapWindow, placeTaps } from '../../../src/ops/kernel/tap-window.js';
import { angularVelocity } from '../../../src/ops/velocity/angular-velocity.js';
import * as quat from '../../../src/quat/index.js';
import { createQuatSeries, quatSeries, vec3Series } from '../../../src/series/create.js';
import type { QuatSeries } from '../../../src/series/types.js';
import { unitQuat } from '../../support/arbitraries.js';
import { randomCurve } from '../../support/rotation-curves.js';

const KERNELS = [
  kernels.tent,
  kernels.gaussian(2),
  kernels.catmullRom,
  kernels.cubic6,
  kernels.lanczos(3),
  kernels.unsharp(kernels.gaussian(1.5), 1),
  kernels.box,
];

/** q(t) = g ⊗ exp(ω t a) ⊗ h: parent-frame velocity R(g)·ω·a, body-frame velocity R(h)⁻¹·ω·a. */
function spin(
  frames: number,
  dt: number,
  omega: number,
  axis: number[],
  g: Float64Array,
  h: Float64Array,
  flips = 0,
) {
  const s = createQuatSeries(frames, 1);
  const e = new Float64Array(4);
  const n = Math.hypot(...axis);
  const a = axis.map((c) => c / n);
  for (let f = 0; f < frames; f++) {
    quat.fromAxisAngle(e, a, omega * f * dt);
    const q = quat.multiply(new Float64Array(4), quat.multiply(new Float64Array(4), g, e), h);
    const sign = flips && (f * 7919) % 3 === 0 ? -1 : 1; // a deterministic pattern of sign flips
    for (let c = 0; c < 4; c++) s.data[f * 4 + c] = sign * q[c];
  }
  const parent = quat.rotateVector(
    new Float64Array(3),
    g,
    a.map((c) => c * omega),
  );
  const body = quat.rotateVector(
    new Float64Array(3),
    quat.invert(new Float64Array(4), h),
    a.map((c) => c * omega),
  );
  return { series: s, parent, body };
}

function maxRowError(v: { data: ArrayLike<number>; frames: number }, expected: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < v.frames; i++) {
    for (let c = 0; c < 3; c++) m = Math.max(m, Math.abs(v.data[i * 3 + c] - expected[c]));
  }
  return m;
}

describe('angularVelocity(series, dt, options)', () => {
  it('angularVelocity of a constant-rate spin gives ω exactly for any kernel, at frames, mid-points and times', () => {
    fc.assert(
      fc.property(
        unitQuat,
        unitQuat,
        fc.double({ min: -12, max: 12, noNaN: true }),
        fc.constantFrom(...KERNELS),
        (g, h, omega, kernel) => {
          const dt = 1 / 60;
          const { series, parent, body } = spin(40, dt, omega, [0.3, -1, 0.5], g, h, 1);
          const tol = 1e-12 * Math.max(1, Math.abs(omega));
          // box picks the later of two tied mid-points, which does not exist at the last frame under 'renormalize'
          const boundaries =
            kernel === kernels.box
              ? (['clamp', 'reflect'] as const)
              : (['renormalize', 'clamp', 'reflect'] as const);
          for (const boundary of boundaries) {
            expect(maxRowError(angularVelocity(series, dt, { kernel, boundary }), parent)).toBeLessThan(tol);
            expect(
              maxRowError(angularVelocity(series, dt, { kernel, boundary, frame: 'body' }), body),
            ).toBeLessThan(tol);
            expect(
              maxRowError(angularVelocity(series, dt, { kernel, boundary, at: 'midpoints' }), parent),
            ).toBeLessThan(tol);
            const times = [0, 0.013, 0.2, 39 * dt, 0.5 * dt];
            expect(
              maxRowError(angularVelocity(series, dt, { kernel, boundary, times }), parent),
            ).toBeLessThan(tol);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('angularVelocity: a quaternion sign flip in the input creates no spike', () => {
    const series = randomCurve(50, 2, 21, 0.05);
    const flipped = createQuatSeries(50, 2);
    flipped.data.set(series.data);
    for (let c = 0; c < 4; c++) flipped.data[(25 * 2 + 1) * 4 + c] *= -1;
    const a = angularVelocity(series, 0.01, { kernel: kernels.gaussian(2) });
    const b = angularVelocity(flipped, 0.01, { kernel: kernels.gaussian(2) });
    let m = 0;
    for (let i = 0; i < a.data.length; i++) m = Math.max(m, Math.abs(a.data[i] - b.data[i]));
    expect(m).toBeLessThan(1e-10);
  });

  it("angularVelocity at 'midpoints' with tent is the finite difference; parent = R(q₀)·body", () => {
    const s = randomCurve(20, 3, 5, 0.2);
    const dt = 0.04;
    const p = angularVelocity(s, dt, { at: 'midpoints' });
    const b = angularVelocity(s, dt, { at: 'midpoints', frame: 'body' });
    expect(p.frames).toBe(19);
    const rel = new Float64Array(4);
    const rv = new Float64Array(3);
    const rot = new Float64Array(3);
    for (let m = 0; m < 19; m++) {
      for (let j = 0; j < 3; j++) {
        const q0 = s.data.subarray((m * 3 + j) * 4, (m * 3 + j) * 4 + 4);
        const q1 = s.data.subarray(((m + 1) * 3 + j) * 4, ((m + 1) * 3 + j) * 4 + 4);
        quat.multiply(rel, q1, quat.invert(new Float64Array(4), q0));
        quat.toRotationVector(rv, rel);
        quat.rotateVector(rot, q0, b.data.subarray((m * 3 + j) * 3, (m * 3 + j) * 3 + 3));
        for (let c = 0; c < 3; c++) {
          expect(p.data[(m * 3 + j) * 3 + c]).toBeCloseTo(rv[c] / dt, 10);
          expect(rot[c]).toBeCloseTo(p.data[(m * 3 + j) * 3 + c], 10);
        }
      }
    }
  });

  it("angularVelocity(..., { method: 'analytic' }) is the derivative of the log-space kernel interpolation", () => {
    const s = randomCurve(30, 2, 17, 0.3);
    const dt = 1 / 30;
    const scratch = createWindowScratch();
    for (const kernel of [kernels.lanczos(3), kernels.catmullRom, kernels.gaussian(1.5)]) {
      for (const frame of ['parent', 'body'] as const) {
        // not at half-frames: there the log interpolation switches its reference frame (a small jump)
        const times = [4.3 * dt, 10.77 * dt, 15.4 * dt, 20.1 * dt];
        const v = angularVelocity(s, dt, { kernel, method: 'analytic', times, frame });
        const win = createTapWindow(kernel, 30, 'renormalize');
        const qa = new Float64Array(8);
        const qb = new Float64Array(8);
        const h = 1e-5;
        times.forEach((t, i) => {
          // the reference tap must stay the same on both sides of the difference
          blendRotations(qa, 0, s.data, 2, placeTaps(win, t / dt - h), 'log', scratch);
          blendRotations(qb, 0, s.data, 2, placeTaps(win, t / dt + h), 'log', scratch);
          for (let j = 0; j < 2; j++) {
            const a = qa.subarray(4 * j, 4 * j + 4);
            const b = qb.subarray(4 * j, 4 * j + 4);
            const rel =
              frame === 'parent'
                ? quat.multiply(new Float64Array(4), b, quat.invert(new Float64Array(4), a))
                : quat.multiply(new Float64Array(4), quat.invert(new Float64Array(4), a), b);
            const w = quat.toRotationVector(new Float64Array(3), rel).map((c) => c / (2 * h * dt));
            for (let c = 0; c < 3; c++) {
              expect(Math.abs(v.data[(i * 2 + j) * 3 + c] - w[c]), `${kernel.name} ${frame}`).toBeLessThan(
                1e-5,
              );
            }
          }
        });
      }
    }
  });

  it("angularVelocity analytic is exact for linear-reproducing kernels on a spin; lanczos ripples, differences don't", () => {
    const g = quat.create();
    const dt = 1 / 60;
    const { series, parent } = spin(60, dt, 5, [0, 0, 1], g, g);
    const times = Array.from({ length: 50 }, (_, i) => (10 + i * 0.77) * dt);
    const cr = angularVelocity(series, dt, { kernel: kernels.catmullRom, method: 'analytic', times });
    expect(maxRowError(cr, parent)).toBeLessThan(1e-9);
    const lz = angularVelocity(series, dt, { kernel: kernels.lanczos(3), method: 'analytic', times });
    const fd = angularVelocity(series, dt, { kernel: kernels.lanczos(3), times });
    expect(maxRowError(fd, parent)).toBeLessThan(1e-11);
    expect(maxRowError(lz, parent)).toBeGreaterThan(1e-4); // the renormalisation ripples of Holden's article
  });

  it("angularVelocity(loop, dt, { boundary: 'wrap' }) at the ends equals the interior of the loop played twice", () => {
    const n = 20;
    const dt = 1 / 30;
    const loop = createQuatSeries(n, 1);
    const twice = createQuatSeries(3 * n, 1);
    const q = new Float64Array(4);
    for (let f = 0; f < 3 * n; f++) {
      const ph = (2 * Math.PI * f) / n;
      quat.fromRotationVector(q, [0.6 * Math.sin(ph), 0.3 * Math.cos(2 * ph), 0.2]);
      twice.data.set(q, f * 4);
      if (f < n) loop.data.set(q, f * 4);
    }
    const k = kernels.gaussian(2);
    const a = angularVelocity(loop, dt, { kernel: k, boundary: 'wrap' });
    const b = angularVelocity(twice, dt, { kernel: k });
    for (let f = 0; f < n; f++) {
      for (let c = 0; c < 3; c++) expect(a.data[f * 3 + c]).toBeCloseTo(b.data[(n + f) * 3 + c], 11);
    }
  });

  it('angularVelocity handles 0-, 1- and 2-frame clips', () => {
    expect(angularVelocity(createQuatSeries(0, 2), 0.1).frames).toBe(0);
    const one = angularVelocity(createQuatSeries(1, 2), 0.1);
    expect(Array.from(one.data)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(angularVelocity(createQuatSeries(1, 2), 0.1, { at: 'midpoints' }).frames).toBe(0);
    const two = quatSeries(new Float64Array([0, 0, 0, 1, 0, 0, Math.sin(0.05), Math.cos(0.05)]), 2, 1);
    for (const kernel of [kernels.tent, kernels.gaussian(3)]) {
      const v = angularVelocity(two, 0.5, { kernel });
      expect(v.frames).toBe(2);
      for (let f = 0; f < 2; f++) expect(v.data[f * 3 + 2]).toBeCloseTo(0.2, 14);
    }
  });

  it('angularVelocity rejects bad arguments with typed errors', () => {
    const s: QuatSeries = randomCurve(5, 1, 3);
    expect(() => angularVelocity(s, 0)).toThrow(InvalidValueError);
    expect(() => angularVelocity(s, Number.NaN)).toThrow(InvalidValueError);
    expect(() => angularVelocity(s, 0.1, { frame: 'world' as never })).toThrow(OptionError);
    expect(() => angularVelocity(s, 0.1, { at: 'edges' as never })).toThrow(OptionError);
    expect(() => angularVelocity(s, 0.1, { method: 'spline' as never })).toThrow(OptionError);
    expect(() => angularVelocity(s, 0.1, { boundary: 'edge' as never })).toThrow(OptionError);
    expect(() =>
      angularVelocity(s, 0.1, { kernel: { name: 'k', radius: 1, evaluate: () => 1 }, method: 'analytic' }),
    ).toThrow(OptionError);
    expect(() => angularVelocity(s, 0.1, { times: [0, Number.NaN] })).toThrow(InvalidValueError);
    expect(() => angularVelocity(s, 0.1, { times: [100] })).toThrow(InvalidValueError); // no taps that far out
    expect(() => angularVelocity(s, 0.1, { out: vec3Series(new Float64Array(3), 1, 1) })).toThrow(ShapeError);
    s.data[9] = Number.NaN;
    expect(() => angularVelocity(s, 0.1)).toThrow(InvalidValueError);
  });
});
