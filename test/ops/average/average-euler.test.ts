import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { averageEuler } from '../../../src/ops/average/average-euler.js';

const DEG = Math.PI / 180;

/** Smallest absolute difference of two angles on the circle, in degrees. */
function circDiff(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return Math.min(d, 2 * Math.PI - d) / DEG;
}

describe('averageEuler(angles, weights, options)', () => {
  it('averages 170° and −170° to 180° (wrap-safe), channel by channel', () => {
    const got = averageEuler([170 * DEG, 10 * DEG, -90 * DEG, -170 * DEG, 30 * DEG, 0]);
    expect(circDiff(got[0], Math.PI)).toBeLessThan(1e-12);
    expect(got[1]).toBeCloseTo(20 * DEG, 15);
    expect(got[2]).toBeCloseTo(-45 * DEG, 15);
    // −90° and +90° are opposite: no mean direction
    expect(() => averageEuler([0, 0, -90 * DEG, 0, 0, 90 * DEG])).toThrow(/channel 2/);
  });

  it('SC-lerp is continuous where C-lerp jumps (test 8): 0° and θ, θ swept 170°..190° in 0.01° steps', () => {
    // C-lerp = θ/2 before 180° and θ/2 − 180° after: the cosine sum touches 0 where the sine sum changes sign
    const h = 0.01;
    let prevC = Number.NaN;
    let prevS = Number.NaN;
    let jumpC = 0;
    let jumpS = 0;
    for (let i = 0; i < 2000; i++) {
      const theta = (170.005 + i * h) * DEG;
      const c = averageEuler([0, 0, 0, theta, 0, 0])[0];
      const s = averageEuler([0, 0, 0, theta, 0, 0], null, { method: 'smoothed', epsilon: 0.05 })[0];
      if (i > 0) {
        jumpC = Math.max(jumpC, circDiff(c, prevC));
        jumpS = Math.max(jumpS, circDiff(s, prevS));
      }
      prevC = c;
      prevS = s;
    }
    expect(jumpC).toBeGreaterThan(179.9);
    // the smoothed slope at the crossing is (1/2)/ε = 10, so one 0.01° step moves it by at most 0.1°
    expect(jumpS).toBeLessThan(0.1 + 1e-9);
    expect(jumpS).toBeGreaterThan(0.09);
  });

  it("'smoothed' is atan2(Σ w̃ sin, Σ w̃ cos + ε): biased toward 0 (10° and 30° give 19.05°, not 20°)", () => {
    const eps = 0.05;
    const got = averageEuler([10 * DEG, 0, 0, 30 * DEG, 0, 0], [1, 3], {
      method: 'smoothed',
      epsilon: eps,
    })[0];
    const sin = 0.25 * Math.sin(10 * DEG) + 0.75 * Math.sin(30 * DEG);
    const cos = 0.25 * Math.cos(10 * DEG) + 0.75 * Math.cos(30 * DEG);
    expect(got).toBeCloseTo(Math.atan2(sin, cos + eps), 15);
    expect(got).toBeLessThan(Math.atan2(sin, cos));
    expect(
      averageEuler([10 * DEG, 0, 0, 30 * DEG, 0, 0], [1, 1], { method: 'smoothed' })[0] / DEG,
    ).toBeCloseTo(19.05, 2);
  });

  it("'circular' throws where the mean direction vanishes (0° and 180°); 'smoothed' returns 0 there", () => {
    expect(() => averageEuler([0, 0, 0, Math.PI, 0, 0])).toThrow(/channel 0 has no mean direction/);
    expect(Math.abs(averageEuler([0, 0, 0, Math.PI, 0, 0], null, { method: 'smoothed' })[0])).toBeLessThan(
      1e-14,
    );
  });

  it('scaling all weights by a non-zero constant never changes the result; negative weights extrapolate', () => {
    const angles = [0.3, -2, 3, 1.1, 2.5, -3];
    const a = averageEuler(angles, [0.2, 0.7]);
    const b = averageEuler(angles, [-20, -70]);
    for (let c = 0; c < 3; c++) expect(b[c]).toBeCloseTo(a[c], 14);
    // weights 2, −1 on 10° and 20°: atan2(2 sin 10° − sin 20°, 2 cos 10° − cos 20°) ≈ 0.29°, past 10° away from 20°
    const ex = averageEuler([10 * DEG, 0, 0, 20 * DEG, 0, 0], [2, -1])[0];
    expect(ex).toBeCloseTo(
      Math.atan2(2 * Math.sin(10 * DEG) - Math.sin(20 * DEG), 2 * Math.cos(10 * DEG) - Math.cos(20 * DEG)),
      15,
    );
    expect(ex).toBeLessThan(10 * DEG);
  });

  it('writes into options.out and returns one input unchanged (wrapped to [−π, π])', () => {
    const out = new Float64Array(3);
    expect(averageEuler([0.5, -1, 4], null, { out })).toBe(out);
    expect(out[0]).toBeCloseTo(0.5, 15);
    expect(out[1]).toBeCloseTo(-1, 15);
    expect(out[2]).toBeCloseTo(4 - 2 * Math.PI, 14);
  });

  it('throws typed errors: empty or ragged input, NaN naming the item, bad weights, bad options', () => {
    expect(() => averageEuler([])).toThrow(ShapeError);
    expect(() => averageEuler([1, 2])).toThrow(ShapeError);
    expect(() => averageEuler([0, 0, 0], [1, 2])).toThrow(ShapeError);
    try {
      averageEuler([0, 0, 0, 0, Number.NaN, 0]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location.index).toBe(1);
    }
    expect(() => averageEuler([0, 0, 0, 1, 1, 1], [0, 0])).toThrow(/all weights are zero/);
    expect(() => averageEuler([0, 0, 0, 1, 1, 1], [2, -2])).toThrow(/sum to zero/);
    expect(() => averageEuler([0, 0, 0], null, { method: 'mean' as never })).toThrow(OptionError);
    expect(() => averageEuler([0, 0, 0], null, { method: 'smoothed', epsilon: Number.NaN })).toThrow(
      OptionError,
    );
  });
});
