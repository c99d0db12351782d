import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { filterVectors } from '../../../src/ops/filter/filter-vectors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import type { Boundary } from '../../../src/ops/kernel/tap-window.js';
import { sampleChannels } from '../../../src/ops/kernel/tap-window.js';
import { vec3Series } from '../../../src/series/create.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

interface Fixture {
  vectors: {
    frames: number;
    signal: number[];
    cases: { sigma: number; truncate: number; boundary: Boundary; output: number[] }[];
  };
}
const fx = readFixture<Fixture>('filter.json').vectors;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>, from = 0, to = a.length): number {
  let m = 0;
  for (let i = from; i < to; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('filterVectors(series, kernel, options)', () => {
  it('filterVectors(series, gaussian(σ), { boundary }) matches scipy.ndimage.gaussian_filter1d', () => {
    const series = vec3Series(Float64Array.from(fx.signal), fx.frames, 1);
    for (const c of fx.cases) {
      const out = filterVectors(series, kernels.gaussian(c.sigma, { truncate: c.truncate }), {
        boundary: c.boundary,
      });
      expect(maxDiff(out.data, c.output), `σ=${c.sigma} ${c.boundary}`).toBeLessThan(TOL.oracle); // measured 3.6e-15
    }
  });

  it('filterVectors(values, kernel) filters a plain scalar channel like one component of a series', () => {
    const series = vec3Series(Float64Array.from(fx.signal), fx.frames, 1);
    const y = Float64Array.from({ length: fx.frames }, (_, f) => fx.signal[f * 3 + 1]);
    const k = kernels.cubic6;
    const a = filterVectors(series, k, { boundary: 'reflect' });
    const b = filterVectors(Array.from(y), k, { boundary: 'reflect' });
    expect(b).toBeInstanceOf(Float64Array);
    for (let f = 0; f < fx.frames; f++) expect(b[f]).toBe(a.data[f * 3 + 1]);
  });

  it('filterVectors(x, gaussian) then tent equals one pass with composeKernels(gaussian, tent) away from the ends', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 60, maxLength: 80 }),
        fc.double({ min: 0.6, max: 3, noNaN: true }),
        (xs, sigma) => {
          const g = kernels.gaussian(sigma);
          const twice = filterVectors(filterVectors(xs, g), kernels.tent);
          const once = filterVectors(xs, kernels.composeKernels(g, kernels.tent));
          const r = g.radius + 1;
          // stated accuracy: rounding only (≈1e-15 relative) where neither pass reaches an end
          expect(maxDiff(twice, once, r, xs.length - r)).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('gaussian then tent evaluated at half frames equals the composed kernel at half frames (sampleChannels)', () => {
    // at the frames a tent is the identity; between them it is the linear up-sampling of the smoothed signal
    const xs = Float64Array.from(
      { length: 70 },
      (_, i) => Math.sin(i * 0.45) * 5 + Math.cos(i * 1.3) + 0.01 * i * i,
    );
    for (const sigma of [0.8, 2, 3.3]) {
      const g = kernels.gaussian(sigma);
      const smooth = filterVectors(xs, g);
      const n = 70 - 1;
      const twice = new Float64Array(n);
      const once = new Float64Array(n);
      sampleChannels(twice, smooth, 70, 1, kernels.tent, 'renormalize', n, (i) => i + 0.5);
      sampleChannels(
        once,
        xs,
        70,
        1,
        kernels.composeKernels(g, kernels.tent),
        'renormalize',
        n,
        (i) => i + 0.5,
      );
      const r = g.radius + 1;
      expect(maxDiff(twice, once, r, n - r)).toBeLessThan(1e-12);
      expect(maxDiff(twice, once)).toBeGreaterThan(1e-6); // near the ends the boundary rule applies once vs twice
    }
  });

  it('composeKernels(a, b) in filterVectors is exact for asymmetric sampled kernels too', () => {
    const xs = Array.from({ length: 50 }, (_, i) => Math.sin(i * 0.7) * 10 + i);
    const a = kernels.sampled([1, 4, 2]);
    const b = kernels.sampled([3, 1, 0.5, 2, 1]);
    const twice = filterVectors(filterVectors(xs, a), b);
    const once = filterVectors(xs, kernels.composeKernels(a, b));
    expect(maxDiff(twice, once, 4, 46)).toBeLessThan(1e-12);
  });

  it('filterVectors preserves constants and straight lines in the interior (symmetric kernel)', () => {
    const xs = Array.from({ length: 30 }, (_, i) => 3 - 0.25 * i);
    for (const k of [
      kernels.gaussian(2),
      kernels.cubic6,
      kernels.lanczos(3),
      kernels.unsharp(kernels.tent, 2),
    ]) {
      const y = filterVectors(xs, k);
      for (let i = 7; i < 23; i++) expect(Math.abs(y[i] - xs[i])).toBeLessThan(1e-12);
    }
  });

  it('filterVectors handles 0, 1 and 2 frames and windows longer than the clip', () => {
    expect(filterVectors([], kernels.gaussian(2)).length).toBe(0);
    expect(filterVectors(vec3Series(new Float64Array(0), 0, 4), kernels.gaussian(2)).frames).toBe(0);
    for (const boundary of ['clamp', 'reflect', 'wrap', 'renormalize'] as Boundary[]) {
      expect(Array.from(filterVectors([5], kernels.gaussian(2), { boundary }))).toEqual([5]);
      const two = filterVectors([1, 3], kernels.gaussian(8), { boundary });
      for (const v of two) expect(v > 1 && v < 3).toBe(true);
    }
  });

  it('filterVectors writes into a Float32 out accumulating in Float64', () => {
    const xs = Float32Array.from({ length: 20 }, (_, i) => i * 0.1);
    const out = new Float32Array(20);
    const r = filterVectors(xs, kernels.gaussian(1), { out });
    expect(r).toBe(out);
    const ref = filterVectors(Float64Array.from(xs), kernels.gaussian(1));
    expect(maxDiff(out, ref)).toBeLessThan(TOL.f32);
  });

  it('filterVectors rejects bad input with typed errors', () => {
    const s = vec3Series(new Float64Array([0, 0, 0, 1, Number.NaN, 1]), 2, 1);
    try {
      filterVectors(s, kernels.tent);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location).toEqual({ frame: 1, joint: 0 });
    }
    const ok = vec3Series(new Float64Array(6), 2, 1);
    expect(() => filterVectors(ok, kernels.tent, { out: ok })).toThrow(OptionError);
    expect(() => filterVectors(ok, kernels.tent, { out: vec3Series(new Float64Array(3), 1, 1) })).toThrow(
      ShapeError,
    );
    expect(() => filterVectors(ok, 'gaussian' as never)).toThrow(OptionError);
    expect(() => filterVectors(ok, kernels.tent, { boundary: 'edge' as never })).toThrow(OptionError);
    expect(() => filterVectors([1, 2, 3], kernels.sampled([-1, 2, -1]), { boundary: 'clamp' })).toThrow(
      InvalidValueError,
    );
  });
});
