import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { alignVectors } from '../../../src/ops/fit/align-vectors.js';
import * as quat from '../../../src/quat/index.js';
import precision from '../../fixtures/align-precision.json' with { type: 'json' };
import fixture from '../../fixtures/fit.json' with { type: 'json' };
import { quatDistance } from '../../support/arbitraries.js';

/** √(Σ wᵢ‖aᵢ − C·bᵢ‖²) for SciPy's rotation C, summed here: the residual its rotation leaves. */
function residual(c: { a: number[]; b: number[]; weights: number[] | null; quat: number[] }): number {
  let sum = 0;
  const v = [0, 0, 0];
  for (let i = 0; i < c.a.length / 3; i++) {
    quat.rotateVector(v, c.quat, c.b.slice(3 * i, 3 * i + 3));
    const d = Math.hypot(c.a[3 * i] - v[0], c.a[3 * i + 1] - v[1], c.a[3 * i + 2] - v[2]);
    sum += (c.weights?.[i] ?? 1) * d * d;
  }
  return Math.sqrt(sum);
}

describe('alignVectors(a, b, { weights }) against SciPy Rotation.align_vectors', () => {
  it.each(fixture.align.map((c, i) => [i, c] as const))('case %i: rotation and rssd', (_i, c) => {
    const { rotation, rssd, degenerate } = alignVectors(c.a, c.b, { weights: c.weights });
    expect(quatDistance(rotation, c.quat)).toBeLessThan(1e-9);
    // SciPy's rssd is √(2·loss) from a cancelling difference, off by up to √ε·|a| (1e-6) on exact fits;
    // the residual of SciPy's own rotation is the sharper oracle there.
    const scale = 1 + c.rssd;
    expect(Math.abs(rssd - c.rssd)).toBeLessThan(1e-9 * scale + (c.rssd < 1e-5 ? 2e-6 : 0));
    expect(Math.abs(rssd - residual(c))).toBeLessThan(1e-9 * scale);
    expect(degenerate).toBe(false);
  });
});

describe('alignVectors(a, b) edges', () => {
  it('recovers an exact rotation with rssd at rounding level', () => {
    const c = quat.fromAxisAngle(quat.create(), [1, 2, 3], 2.5);
    const b = [1, 0, 0, 0, 2, 0, 0, 0, 3, 1, 1, 1];
    const a = b.map(() => 0);
    for (let i = 0; i < 4; i++) quat.rotateVectorFlat(a, i * 3, c, 0, b, i * 3);
    const { rotation, rssd } = alignVectors(a, b);
    expect(quatDistance(rotation, c)).toBeLessThan(1e-14);
    expect(rssd).toBeLessThan(1e-13);
  });

  it('a single pair gives the shortest arc; parallel pairs are flagged degenerate', () => {
    const single = alignVectors([0, 2, 0], [1, 0, 0]);
    expect(
      quatDistance(single.rotation, quat.fromAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2)),
    ).toBeLessThan(1e-15);
    expect(single.rssd).toBeCloseTo(1, 14); // |[0,2,0] − [0,1,0]|
    expect(alignVectors([0, 1, 0, 0, 2, 0], [1, 0, 0, 2, 0, 0]).degenerate).toBe(true);
  });

  it('zero weights drop pairs; rejects bad shapes, values and options by type', () => {
    const r = alignVectors([0, 1, 0, -1, 0, 0, 5, 5, 5], [1, 0, 0, 0, 1, 0, 1, 2, 3], { weights: [1, 1, 0] });
    expect(quatDistance(r.rotation, quat.fromAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2))).toBeLessThan(
      1e-14,
    );
    expect(() => alignVectors([1, 0, 0], [1, 0])).toThrow(ShapeError);
    expect(() => alignVectors([], [])).toThrow(ShapeError);
    expect(() => alignVectors([1, 0, 0], [1, 0, 0], { weights: [1, 2] })).toThrow(ShapeError);
    expect(() => alignVectors([1, 0, Number.NaN], [1, 0, 0])).toThrow(InvalidValueError);
    expect(() => alignVectors([1, 0, 0], [1, 0, 0], { weights: [-1] })).toThrow(InvalidValueError);
    expect(() => alignVectors([1, 0, 0], [1, 0, 0], { weights: [0] })).toThrow(InvalidValueError);
    expect(() => alignVectors([0, 0, 0], [1, 0, 0])).toThrow(InvalidValueError);
    expect(() => alignVectors([1, 0, 0], [1, 0, 0], { weight: [1] } as never)).toThrow(OptionError);
  });
});

/** Angle in radians between two unit quaternions, from the vector part of r⁻¹·q (accurate when small). */
function angleBetween(r: ArrayLike<number>, q: ArrayLike<number>): number {
  const rel = quat.multiply(quat.create(), quat.conjugate(quat.create(), r), q);
  return 2 * Math.atan2(Math.hypot(rel[0], rel[1], rel[2]), Math.abs(rel[3]));
}

describe('alignVectors(a, b, { weights }) against a 60-digit reference (scripts/fixtures_align_precision.py)', () => {
  it.each(precision.cases.map((c) => [c.name, c] as const))('%s: within 2x of SciPy', (_name, c) => {
    const { rotation } = alignVectors(c.a, c.b, { weights: c.weights });
    const error = angleBetween(c.quat, rotation);
    // SciPy's own error against the same reference is recorded in the fixture (up to 2.0e-6 rad at 1e10);
    // the floor is the rounding of the reference quaternion itself and of the angle measured here.
    expect(error).toBeLessThanOrEqual(Math.max(2 * c.scipyError, 2e-15));
  });
});

describe('alignVectors(a, b, { weights }) refuses weights that are no numbers', () => {
  it.each([
    ['[[1]]', [[1], 1]],
    ["'1'", ['1', 1]],
    ['true', [true, 1]],
    ['null', [null, 1]],
  ])('weights %s is an InvalidValueError naming the pair', (_label, weights) => {
    const a = [1, 0, 0, 0, 1, 0];
    expect(() => alignVectors(a, a, { weights: weights as unknown as number[] })).toThrow(InvalidValueError);
    expect(() => alignVectors(a, a, { weights: weights as unknown as number[] })).toThrow(/pair 0/);
  });

  it('a string of digits as the weights is an OptionError (wrong type), not a weight list', () => {
    expect(() => alignVectors([1, 0, 0], [1, 0, 0], { weights: '1' as unknown as number[] })).toThrow(
      OptionError,
    );
  });
});
