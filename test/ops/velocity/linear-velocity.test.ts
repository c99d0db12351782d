import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { sampleChannels } from '../../../src/ops/kernel/tap-window.js';
import { linearVelocity } from '../../../src/ops/velocity/linear-velocity.js';
import { createVec3Series, vec3Series } from '../../../src/series/create.js';

function line(frames: number, dt: number, p0: number[], v: number[], acc = [0, 0, 0]) {
  const s = createVec3Series(frames, 1);
  for (let f = 0; f < frames; f++) {
    const t = f * dt;
    for (let c = 0; c < 3; c++) s.data[f * 3 + c] = p0[c] + v[c] * t + 0.5 * acc[c] * t * t;
  }
  return s;
}

describe('linearVelocity(series, dt, options)', () => {
  it('linearVelocity of a constant velocity returns it for any kernel, at frames, mid-points and times', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          kernels.tent,
          kernels.gaussian(2),
          kernels.lanczos(3),
          kernels.cubic6,
          kernels.unsharp(kernels.tent, 1),
        ),
        fc.tuple(
          fc.double({ min: -50, max: 50, noNaN: true }),
          fc.double({ min: -50, max: 50, noNaN: true }),
        ),
        (kernel, [vx, vz]) => {
          const dt = 0.01;
          const s = line(30, dt, [1, 2, 3], [vx, -1, vz]);
          for (const opts of [{}, { at: 'midpoints' as const }, { times: [0, 0.0137, 0.29] }]) {
            const v = linearVelocity(s, dt, { kernel, ...opts });
            for (let i = 0; i < v.frames; i++) {
              expect(v.data[i * 3]).toBeCloseTo(vx, 9);
              expect(v.data[i * 3 + 1]).toBeCloseTo(-1, 9);
              expect(v.data[i * 3 + 2]).toBeCloseTo(vz, 9);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('linearVelocity at mid-points is exact for a parabola; at frames with tent it is the central difference', () => {
    const dt = 0.1;
    const s = line(12, dt, [0, 0, 0], [1, 2, 3], [4, -2, 0.5]);
    const mid = linearVelocity(s, dt, { at: 'midpoints' });
    for (let m = 0; m < 11; m++) {
      const t = (m + 0.5) * dt;
      expect(mid.data[m * 3]).toBeCloseTo(1 + 4 * t, 12);
      expect(mid.data[m * 3 + 1]).toBeCloseTo(2 - 2 * t, 12);
    }
    const at = linearVelocity(s, dt);
    for (let f = 1; f < 11; f++) expect(at.data[f * 3]).toBeCloseTo(1 + 4 * f * dt, 12);
  });

  it("linearVelocity(..., { method: 'analytic' }) differentiates the kernel interpolation (matches a central difference)", () => {
    const dt = 0.05;
    const s = vec3Series(
      Float64Array.from({ length: 60 }, (_, i) => Math.sin(i * 0.37) + (i % 3) * 0.1),
      20,
      1,
    );
    for (const kernel of [kernels.lanczos(3), kernels.catmullRom, kernels.gaussian(1)]) {
      const times = [3.3 * dt, 8.71 * dt, 12.5 * dt];
      const v = linearVelocity(s, dt, { kernel, method: 'analytic', times });
      const h = 1e-5;
      const xa = new Float64Array(9);
      const xb = new Float64Array(9);
      sampleChannels(xa, s.data, 20, 3, kernel, 'renormalize', 3, (i) => times[i] / dt - h);
      sampleChannels(xb, s.data, 20, 3, kernel, 'renormalize', 3, (i) => times[i] / dt + h);
      for (let i = 0; i < 9; i++)
        expect(Math.abs(v.data[i] - (xb[i] - xa[i]) / (2 * h * dt))).toBeLessThan(1e-6);
    }
    // catmullRom reproduces straight lines, so its analytic velocity of a line is exact everywhere
    const l = line(20, dt, [0, 1, 2], [3, -4, 5]);
    const cr = linearVelocity(l, dt, {
      kernel: kernels.catmullRom,
      method: 'analytic',
      times: [0.31, 0.52, 0.77],
    });
    for (let i = 0; i < 3; i++) expect(cr.data[i * 3 + 1]).toBeCloseTo(-4, 10);
  });

  it("linearVelocity(loop, dt, { boundary: 'wrap' }) at the ends equals the interior of the loop played twice", () => {
    const n = 24;
    const dt = 1 / 30;
    const loop = createVec3Series(n, 1);
    const twice = createVec3Series(3 * n, 1);
    for (let f = 0; f < 3 * n; f++) {
      const p = [
        Math.sin((2 * Math.PI * f) / n),
        Math.cos((4 * Math.PI * f) / n),
        0.5 * Math.sin((2 * Math.PI * f) / n + 1),
      ];
      twice.data.set(p, f * 3);
      if (f < n) loop.data.set(p, f * 3);
    }
    const k = kernels.gaussian(2);
    const a = linearVelocity(loop, dt, { kernel: k, boundary: 'wrap' });
    const b = linearVelocity(twice, dt, { kernel: k });
    for (let f = 0; f < n; f++) {
      for (let c = 0; c < 3; c++) expect(a.data[f * 3 + c]).toBeCloseTo(b.data[(n + f) * 3 + c], 11);
    }
    expect(linearVelocity(loop, dt, { boundary: 'wrap', at: 'midpoints' }).frames).toBe(n);
  });

  it('linearVelocity handles 0-, 1- and 2-frame series and rejects bad input', () => {
    expect(linearVelocity(createVec3Series(0, 1), 0.1).frames).toBe(0);
    expect(Array.from(linearVelocity(createVec3Series(1, 1), 0.1).data)).toEqual([0, 0, 0]);
    const two = vec3Series(new Float64Array([0, 0, 0, 1, 2, 3]), 2, 1);
    expect(Array.from(linearVelocity(two, 0.5, { kernel: kernels.gaussian(2) }).data)).toEqual([
      2, 4, 6, 2, 4, 6,
    ]);
    expect(() => linearVelocity(two, -1)).toThrow(InvalidValueError);
    expect(() => linearVelocity(two, 0.1, { at: 'x' as never })).toThrow(OptionError);
    expect(() => linearVelocity(two, 0.1, { out: createVec3Series(3, 1) })).toThrow(ShapeError);
    expect(() => linearVelocity(vec3Series(new Float64Array([0, 0, Number.NaN]), 1, 1), 0.1)).toThrow(
      InvalidValueError,
    );
  });
});
