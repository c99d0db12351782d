import { describe, expect, it } from 'vitest';
import { InvalidValueError, ShapeError } from '../../src/errors.js';
import { seededRandom } from '../../src/numeric/random.js';
import * as quat from '../../src/quat/index.js';
import { randomQuatSeries } from '../../src/series/random.js';
import fixture from '../fixtures/fit.json' with { type: 'json' };
import { quatDistance } from '../support/arbitraries.js';
import { TOL } from '../support/tolerances.js';

/** Kolmogorov-Smirnov distance of `samples` from the distribution with CDF `cdf`. */
function ksDistance(samples: number[], cdf: (x: number) => number): number {
  const s = samples.slice().sort((a, b) => a - b);
  let d = 0;
  for (let i = 0; i < s.length; i++) {
    const c = cdf(s[i]);
    d = Math.max(d, Math.abs(c - i / s.length), Math.abs((i + 1) / s.length - c));
  }
  return d;
}

describe('quat.random(out, rng) and randomQuatSeries(frames, joints, { seed })', () => {
  const N = 20000;
  // KS critical value at α = 0.001 is 1.95/√n; a biased generator (e.g. normalised uniform cubes, or
  // uniform angles) lands far above it.
  const critical = 1.95 / Math.sqrt(N);
  const series = randomQuatSeries(N, 1, { seed: 5 });

  it('angles follow the Haar law P(θ ≤ t) = (t − sin t)/π', () => {
    const angles: number[] = [];
    for (let i = 0; i < N; i++) angles.push(quat.angle(series.data.subarray(4 * i, 4 * i + 4), [0, 0, 0, 1]));
    expect(ksDistance(angles, (t) => (t - Math.sin(t)) / Math.PI)).toBeLessThan(critical);
  });

  it('rotated directions are uniform on the sphere (z component uniform on [-1, 1])', () => {
    const zs: number[] = [];
    const v = [0, 0, 0];
    for (let i = 0; i < N; i++)
      zs.push(quat.rotateVector(v, series.data.subarray(4 * i, 4 * i + 4), [0, 0, 1])[2]);
    expect(ksDistance(zs, (z) => (z + 1) / 2)).toBeLessThan(critical);
  });

  it('is unit, reproducible by seed, and different for another seed', () => {
    for (let i = 0; i < 100; i++)
      expect(Math.abs(Math.hypot(...series.data.subarray(4 * i, 4 * i + 4)) - 1)).toBeLessThan(TOL.f64);
    expect(randomQuatSeries(3, 2, { seed: 9 }).data).toEqual(randomQuatSeries(3, 2, { seed: 9 }).data);
    expect(randomQuatSeries(3, 2, { seed: 9 }).data).not.toEqual(randomQuatSeries(3, 2, { seed: 10 }).data);
    const rng = seededRandom(9);
    const first = quat.random(quat.create(), rng);
    expect(Array.from(first)).toEqual(Array.from(randomQuatSeries(1, 1, { seed: 9 }).data));
  });

  it('rejects an rng that returns values outside [0, 1]', () => {
    expect(() => quat.random(quat.create(), () => Number.NaN)).toThrow(InvalidValueError);
    expect(() => quat.random(quat.create(), () => 2)).toThrow(InvalidValueError);
  });
});

describe('quat.toMrp / quat.fromMrp against SciPy as_mrp / from_mrp', () => {
  const { quats, mrp, params, fromMrp } = fixture.mrp;
  it('toMrp(out, q) equals as_mrp for random and edge rotations (|p| <= 1)', () => {
    const p = [0, 0, 0];
    for (let i = 0; i < quats.length / 4; i++) {
      const q = quats.slice(4 * i, 4 * i + 4);
      quat.toMrp(p, q);
      const want = mrp.slice(3 * i, 3 * i + 3);
      // At exactly 180° both ±axis are correct; compare the rotations there.
      if (Math.abs(q[3]) < 1e-9)
        expect(quatDistance(quat.fromMrp(quat.create(), p), q)).toBeLessThan(TOL.oracle);
      else for (let k = 0; k < 3; k++) expect(Math.abs(p[k] - want[k])).toBeLessThan(TOL.oracle);
      expect(Math.hypot(...p)).toBeLessThanOrEqual(1 + 1e-15);
    }
  });
  it('fromMrp(out, p) equals from_mrp for parameters of every size, and round-trips', () => {
    const q = quat.create();
    for (let i = 0; i < params.length / 3; i++) {
      const p = params.slice(3 * i, 3 * i + 3);
      quat.fromMrp(q, p);
      expect(quatDistance(q, fromMrp.slice(4 * i, 4 * i + 4))).toBeLessThan(TOL.oracle);
      expect(quatDistance(quat.fromMrp(quat.create(), quat.toMrp([0, 0, 0], q)), q)).toBeLessThan(TOL.f64);
    }
    expect(quatDistance(quat.fromMrp(quat.create(), [1e300, 0, 0]), [0, 0, 0, 1])).toBeLessThan(TOL.f64);
  });
});

describe('gimbal-lock flags from toEulerFlat and toEulerArray(out, quats, order, locked)', () => {
  it.each(fixture.gimbal.map((g) => [g.order, g] as const))(
    '%s: flags the rotations SciPy warns about',
    (_o, g) => {
      const n = g.quats.length / 4;
      const locked = new Uint8Array(n);
      quat.toEulerArray(new Float64Array(n * 3), g.quats, g.order as quat.EulerOrder, locked);
      expect(Array.from(locked, Boolean)).toEqual(g.locked);
      const e = [0, 0, 0];
      for (let i = 0; i < n; i++) {
        expect(quat.toEulerFlat(e, 0, g.quats, 4 * i, g.order as quat.EulerOrder)).toBe(g.locked[i]);
      }
    },
  );
});

describe('randomQuatSeries size', () => {
  it('refuses a series too large to allocate with a ShapeError naming the size', () => {
    expect(() => randomQuatSeries(1e20, 12)).toThrow(ShapeError);
    expect(() => randomQuatSeries(1e20, 12)).toThrow(/exceeds the limit/);
  });
});
