import { describe, expect, it } from 'vitest';
import { InvalidValueError, ShapeError } from '../../../src/errors.js';
import { averageCost } from '../../../src/ops/average/average-cost.js';
import { averageQuaternions } from '../../../src/ops/average/average-quaternions.js';
import * as quat from '../../../src/quat/index.js';
import { axisAngle, flat, randomQuats, rng } from '../../support/average-random.js';

describe('averageCost(q, quats, weights)', () => {
  it('is Σ wᵢ sin²(θᵢ/2): identity against identity and a 180° turn costs 1; weights scale it', () => {
    expect(averageCost([0, 0, 0, 1], flat([0, 0, 0, 1], [1, 0, 0, 0]))).toBeCloseTo(1, 15);
    expect(averageCost([0, 0, 0, 1], flat([0, 0, 0, 1], axisAngle([0, 1, 0], 1)), [5, 3])).toBeCloseTo(
      3 * Math.sin(0.5) ** 2,
      15,
    );
  });

  it('equals (1/8) Σ wᵢ ‖R(q) − R(qᵢ)‖²_F, the summed squared Frobenius distance of the matrices', () => {
    const r = rng(91);
    const m = new Float64Array(9);
    const mi = new Float64Array(9);
    for (let trial = 0; trial < 100; trial++) {
      const qs = randomQuats(r, 6);
      const q = randomQuats(r, 1);
      const w = Array.from({ length: 6 }, () => r() * 2);
      quat.toMatrix(m, q);
      let frob = 0;
      for (let i = 0; i < 6; i++) {
        quat.toMatrix(mi, qs.subarray(i * 4, i * 4 + 4));
        for (let k = 0; k < 9; k++) frob += w[i] * (m[k] - mi[k]) ** 2;
      }
      expect(averageCost(q, qs, w)).toBeCloseTo(frob / 8, 13);
    }
  });

  it('is sign- and length-invariant and accurate for tiny angles (1e-9 rad costs sin²(5e-10) to 1e-6 relative)', () => {
    const a = axisAngle([1, 1, 0], 0.3);
    const b = axisAngle([1, 1, 0], 0.3 + 1e-9);
    const cost = averageCost(a, b);
    expect(Math.abs(cost / Math.sin(5e-10) ** 2 - 1)).toBeLessThan(1e-6);
    expect(
      averageCost(
        a.map((v) => -3 * v),
        b.map((v) => 0.5 * v),
      ),
    ).toBeCloseTo(cost, 25);
  });

  it('is minimised by the eigen average: nudging it in any of 8 directions never lowers the cost', () => {
    const r = rng(92);
    for (let trial = 0; trial < 30; trial++) {
      const qs = randomQuats(r, 9, 0.7);
      const w = Array.from({ length: 9 }, () => 0.1 + r());
      const best = averageQuaternions(qs, w);
      const c0 = averageCost(best, qs, w);
      for (let d = 0; d < 8; d++) {
        const nudged = best.map((v) => v + 1e-4 * (r() - 0.5));
        expect(averageCost(nudged, qs, w)).toBeGreaterThanOrEqual(c0 - 1e-15);
      }
    }
  });

  it('throws typed errors for empty input, mismatched weights, a zero q, NaN naming the index', () => {
    expect(() => averageCost([0, 0, 0, 1], [])).toThrow(ShapeError);
    expect(() => averageCost([0, 0, 0, 1], [0, 0, 0, 1], [1, 2])).toThrow(ShapeError);
    expect(() => averageCost([0, 0, 0, 0], [0, 0, 0, 1])).toThrow(InvalidValueError);
    try {
      averageCost([0, 0, 0, 1], [0, 0, 0, 1, Number.NaN, 0, 0, 1]);
      expect.unreachable();
    } catch (e) {
      expect((e as InvalidValueError).location.index).toBe(1);
    }
  });
});
