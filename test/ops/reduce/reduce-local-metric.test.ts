/**
 * The local metric's tests without the arctangent and `Math.hypot`: they must decide exactly as the
 * angle and the distance the report measures, at the boundary too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { angleTan2, distance3, rotationAngle, rotationWithin } from '../../../src/ops/reduce/reduce-check.js';

const component = fc.double({ min: -1, max: 1, noNaN: true });
const quaternion = fc
  .tuple(component, component, component, component)
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-6)
  .map((q) => Float64Array.from(q));

/** `b` a small rotation away from `a` (so the angles are near typical tolerances), not normalised. */
const near = fc
  .tuple(quaternion, fc.tuple(component, component, component), fc.double({ min: 1e-9, max: 0.2 }))
  .map(([a, [x, y, z], size]) => {
    const b = Float64Array.from(a);
    b[0] += x * size;
    b[1] += y * size;
    b[2] += z * size;
    b[3] -= (x + y) * size;
    return [a, b] as const;
  });

describe('rotationWithin', () => {
  it('decides as rotationAngle <= limit for random limits', () => {
    fc.assert(
      fc.property(near, fc.double({ min: 1e-7, max: 4, noNaN: true }), ([a, b], limit) => {
        expect(rotationWithin(a, 0, b, 0, limit, angleTan2(limit))).toBe(rotationAngle(a, 0, b, 0) <= limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('decides as the angle at the boundary: the angle itself, one ulp below and one ulp above', () => {
    fc.assert(
      fc.property(near, ([a, b]) => {
        const angle = rotationAngle(a, 0, b, 0);
        fc.pre(angle > 0);
        const below = angle * (1 - 2 ** -52);
        const above = angle * (1 + 2 ** -52);
        for (const limit of [angle, below, above])
          expect(rotationWithin(a, 0, b, 0, limit, angleTan2(limit))).toBe(angle <= limit);
      }),
      { numRuns: 1000 },
    );
  });

  it('passes every rotation at a limit of π or more, and fails NaN', () => {
    const a = Float64Array.of(0, 0, 0, 1);
    const b = Float64Array.of(1, 0, 0, 0); // half a turn away
    expect(rotationAngle(a, 0, b, 0)).toBeCloseTo(Math.PI, 12);
    expect(rotationWithin(a, 0, b, 0, Math.PI, angleTan2(Math.PI))).toBe(true);
    expect(rotationWithin(a, 0, b, 0, 3, angleTan2(3))).toBe(false);
    const nan = Float64Array.of(Number.NaN, 0, 0, 1);
    expect(rotationWithin(nan, 0, b, 0, 1, angleTan2(1))).toBe(false);
  });
});

describe('distance3', () => {
  it('is Math.hypot to an ulp in range, and Math.hypot itself where squares overflow or underflow', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        (x, y, z) => {
          const h = Math.hypot(x, y, z);
          expect(Math.abs(distance3(x, y, z) - h)).toBeLessThanOrEqual(2 * Number.EPSILON * h);
        },
      ),
    );
    expect(distance3(3e200, 4e200, 0)).toBe(Math.hypot(3e200, 4e200, 0));
    expect(distance3(3e-200, 4e-200, 0)).toBe(Math.hypot(3e-200, 4e-200, 0));
    expect(distance3(0, 0, 0)).toBe(0);
  });
});
