import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atan2OverS, atan2OverSFromSquares, cosOfTheta, sinOverTheta } from '../../src/numeric/fast-trig.js';

describe('fast-trig kernels', () => {
  it('atan2OverS(s, c) and atan2OverSFromSquares(s², 1/c) equal atan2(s, c) / s to 4 ulps', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: Math.PI - 1e-9, noNaN: true }), (h) => {
        const s = Math.sin(h / 2);
        const c = Math.cos(h / 2);
        const ref = Math.atan2(s, c) / s;
        expect(Math.abs(atan2OverS(s, c) - ref)).toBeLessThanOrEqual(4 * Number.EPSILON * ref);
        expect(Math.abs(atan2OverSFromSquares(s * s, 1 / c) - ref)).toBeLessThanOrEqual(
          4 * Number.EPSILON * ref,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('sinOverTheta(θ²) and cosOfTheta(θ²) equal sin(θ)/θ and cos(θ) to 2 ulps, both sides of π/4', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 3, noNaN: true }), (t) => {
        expect(Math.abs(sinOverTheta(t * t) - Math.sin(t) / t)).toBeLessThanOrEqual(2 * Number.EPSILON);
        expect(Math.abs(cosOfTheta(t * t) - Math.cos(t))).toBeLessThanOrEqual(2 * Number.EPSILON);
      }),
      { numRuns: 2000 },
    );
    expect(sinOverTheta(0)).toBe(1);
    expect(cosOfTheta(0)).toBe(1);
  });
});
