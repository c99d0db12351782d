import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { averageCost } from '../../../src/ops/average/average-cost.js';
import {
  AVERAGE_METHODS,
  type AverageMethod,
  averageQuaternions,
  createAverageDiagnostics,
} from '../../../src/ops/average/average-quaternions.js';
import * as quat from '../../../src/quat/index.js';
import { axisAngle, flat, mul, randomQuats, rng, rotationAngle } from '../../support/average-random.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

const DEG = Math.PI / 180;

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  const out: number[][] = [];
  for (const p of permutations(n - 1)) {
    for (let i = 0; i <= p.length; i++) out.push([...p.slice(0, i), n - 1, ...p.slice(i)]);
  }
  return out;
}

function permute(q: Float64Array, w: Float64Array, p: number[]): [Float64Array, Float64Array] {
  const q2 = new Float64Array(q.length);
  const w2 = new Float64Array(w.length);
  p.forEach((src, dst) => {
    q2.set(q.subarray(src * 4, src * 4 + 4), dst * 4);
    w2[dst] = w[src];
  });
  return [q2, w2];
}

/** Largest absolute component difference, up to sign. */
function diffUpToSign(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let plus = 0;
  let minus = 0;
  for (let k = 0; k < 4; k++) {
    plus = Math.max(plus, Math.abs(a[k] - b[k]));
    minus = Math.max(minus, Math.abs(a[k] + b[k]));
  }
  return Math.min(plus, minus);
}

describe('averageQuaternions(quats, weights) is independent of order (test 1)', () => {
  it("'eigen' gives the same result to 1e-12 for every permutation of random sets of 2..5 and random permutations of sets up to 64", () => {
    const r = rng(11);
    let worst = 0;
    for (let n = 2; n <= 5; n++) {
      for (let trial = 0; trial < 6; trial++) {
        const q = randomQuats(r, n, trial % 2 ? 0.4 : 0);
        const w = Float64Array.from({ length: n }, () => 0.1 + r());
        const base = averageQuaternions(q, w);
        for (const p of permutations(n)) {
          const [q2, w2] = permute(q, w, p);
          worst = Math.max(worst, diffUpToSign(base, averageQuaternions(q2, w2)));
        }
      }
    }
    for (const n of [8, 16, 33, 64]) {
      for (let trial = 0; trial < 20; trial++) {
        const q = randomQuats(r, n, trial % 2 ? 0.4 : 0);
        const w = Float64Array.from({ length: n }, () => 0.1 + r());
        const base = averageQuaternions(q, w);
        const p = Array.from({ length: n }, (_, i) => i);
        for (let i = n - 1; i > 0; i--) {
          const j = Math.floor(r() * (i + 1));
          [p[i], p[j]] = [p[j], p[i]];
        }
        const [q2, w2] = permute(q, w, p);
        worst = Math.max(worst, diffUpToSign(base, averageQuaternions(q2, w2)));
      }
    }
    expect(worst).toBeLessThan(TOL.f64);
  });

  it("'flip' depends on order: 90° about −x, 120° about (1,1,0), 170° about z give results 137° apart when reversed", () => {
    const a = axisAngle([-1, 0, 0], 90 * DEG);
    const b = axisAngle([1, 1, 0], 120 * DEG);
    const c = axisAngle([0, 0, 1], 170 * DEG);
    const forward = averageQuaternions(flat(a, b, c), null, { method: 'flip' });
    const reverse = averageQuaternions(flat(c, b, a), null, { method: 'flip' });
    const gap = rotationAngle(forward, reverse) / DEG;
    expect(gap).toBeGreaterThan(136.9);
    expect(gap).toBeLessThan(137.0);
    // the same witness leaves 'eigen' untouched
    const e1 = averageQuaternions(flat(a, b, c));
    const e2 = averageQuaternions(flat(c, b, a));
    expect(diffUpToSign(e1, e2)).toBeLessThan(TOL.f64);
  });
});

describe('averageQuaternions(quats) is continuous across the hemisphere boundary (test 2)', () => {
  // identity, 60° about x, and a third rotation about (0, 0.3, 1) swept 0..360° in 0.05° steps, stored
  // with w >= 0 so its stored sign flips at 180°
  const h = 0.05;
  function maxJump(method: AverageMethod): { jump: number; at: number } {
    let prev: ArrayLike<number> | null = null;
    let jump = 0;
    let at = 0;
    for (let i = 0; i <= 7200; i++) {
      const th = i * h;
      const moving = quat.abs(new Float64Array(4), axisAngle([0, 0.3, 1], th * DEG));
      const r = averageQuaternions(flat([0, 0, 0, 1], axisAngle([1, 0, 0], 60 * DEG), moving), null, {
        method,
      });
      if (prev !== null) {
        const j = rotationAngle(prev, r) / DEG;
        if (j > jump) {
          jump = j;
          at = th;
        }
      }
      prev = r;
    }
    return { jump, at };
  }

  it("'eigen' moves at most 1.12 × the step (measured 0.0558° per 0.05° step); 'flip' and 'raw' jump 109.5° at 180°", () => {
    const eigen = maxJump('eigen');
    expect(eigen.jump).toBeLessThan(1.2 * h);
    const flip = maxJump('flip');
    const raw = maxJump('raw');
    for (const m of [flip, raw]) {
      expect(m.jump).toBeGreaterThan(109);
      expect(Math.abs(m.at - 180)).toBeLessThanOrEqual(h + 1e-9);
    }
  });

  it("reference-based 'nlerp' (109°), 'log' (119°) and the Karcher 'geodesic' mean (122°) also jump there", () => {
    expect(maxJump('nlerp').jump).toBeGreaterThan(100);
    expect(maxJump('log').jump).toBeGreaterThan(110);
    expect(maxJump('geodesic').jump).toBeGreaterThan(110);
  });
});

describe('averageCost(averageQuaternions(quats, weights), quats, weights) is minimal for eigen (test 3)', () => {
  it("the eigen cost is <= the cost of every other method's result (property, 300 random sets)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 24 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(0, 0.1, 0.5, 1),
        (n, seed, spread) => {
          const r = rng(seed);
          const q = randomQuats(r, n, spread);
          const w = Float64Array.from({ length: n }, () => 0.05 + r());
          const eigenCost = averageCost(averageQuaternions(q, w), q, w);
          for (const method of AVERAGE_METHODS) {
            let other: ArrayLike<number>;
            try {
              other = averageQuaternions(q, w, { method });
            } catch (e) {
              if (e instanceof InvalidValueError) continue; // a cancelling raw sum has no result
              throw e;
            }
            if (eigenCost > averageCost(other, q, w) + 1e-13 * n) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it("'geodesic' has the smallest Σ wᵢ θᵢ² and a vanishing tangent gradient", () => {
    const r = rng(21);
    const diag = createAverageDiagnostics();
    for (let trial = 0; trial < 50; trial++) {
      const q = randomQuats(r, 7, 0.3);
      const w = Float64Array.from({ length: 7 }, () => 0.1 + r());
      const sq = (m: ArrayLike<number>) =>
        w.reduce((s, wi, i) => s + wi * rotationAngle(m, q, 0, i * 4) ** 2, 0);
      const g = averageQuaternions(q, w, { method: 'geodesic', diagnostics: diag });
      expect(diag.converged).toBe(true);
      for (const method of AVERAGE_METHODS) {
        expect(sq(g)).toBeLessThanOrEqual(sq(averageQuaternions(q, w, { method })) + 1e-12);
      }
    }
  });
});

describe('averageQuaternions([a, b]) identities for two inputs (test 4)', () => {
  it("'flip' equals 'nlerp' for two inputs and any weights", () => {
    const r = rng(31);
    for (let trial = 0; trial < 200; trial++) {
      const q = randomQuats(r, 2);
      const w = [0.1 + r(), 0.1 + r()];
      const f = averageQuaternions(q, w, { method: 'flip' });
      const n = averageQuaternions(q, w, { method: 'nlerp' });
      expect(diffUpToSign(f, n)).toBeLessThan(1e-15);
    }
  });

  it("with equal weights every method except 'raw' gives the slerp midpoint; 'raw' does not when signs differ", () => {
    const r = rng(32);
    const mid = new Float64Array(4);
    let rawMisses = 0;
    for (let trial = 0; trial < 200; trial++) {
      const q = randomQuats(r, 2);
      quat.slerp(mid, q.subarray(0, 4), q.subarray(4, 8), 0.5);
      for (const method of AVERAGE_METHODS) {
        if (method === 'raw') continue;
        expect(diffUpToSign(averageQuaternions(q, [1, 1], { method }), mid)).toBeLessThan(TOL.f64);
      }
      if (quat.dot(q.subarray(0, 4), q.subarray(4, 8)) < 0) {
        const raw = averageQuaternions(q, [1, 1], { method: 'raw' });
        if (rotationAngle(raw, mid) > 1e-3) rawMisses++;
      }
    }
    expect(rawMisses).toBeGreaterThan(50);
  });
});

interface MeanCase {
  n: number;
  spread: number | null;
  quats: number[];
  weights: number[] | null;
  mean: number[];
}

describe('averageQuaternions(quats, weights) agrees with SciPy (test 5)', () => {
  const fixture = readFixture<{
    mean: MeanCase[];
    logMean: { quats: number[]; weights: number[]; mean: number[] }[];
  }>('average.json');

  it("'eigen' matches Rotation.mean(weights) up to sign to 1e-10 on 72 sets (non-unit, mixed-sign inputs)", () => {
    let worst = 0;
    for (const c of fixture.mean) {
      const got = averageQuaternions(c.quats, c.weights);
      worst = Math.max(worst, diffUpToSign(got, c.mean));
    }
    expect(worst).toBeLessThan(1e-10);
  });

  it("'log' about the first input matches ref·exp(mean of rotvec(ref⁻¹ qᵢ)) built from SciPy to 1e-12", () => {
    for (const c of fixture.logMean) {
      const got = averageQuaternions(c.quats, c.weights, { method: 'log' });
      expect(diffUpToSign(got, c.mean)).toBeLessThan(TOL.oracle);
    }
  });
});

describe('averageQuaternions of +170° and −170° about a reference (test 6)', () => {
  it("'nlerp' and 'log' about the reference return it; 'eigen' returns the 180° rotation", () => {
    const r = rng(41);
    for (let trial = 0; trial < 20; trial++) {
      const ref = randomQuats(r, 1);
      const axis = Array.from(randomQuats(r, 1).subarray(0, 3));
      const plus = mul(ref, axisAngle(axis, 170 * DEG));
      const minus = mul(ref, axisAngle(axis, -170 * DEG));
      const q = flat(plus, minus);
      for (const method of ['nlerp', 'log'] as const) {
        const got = averageQuaternions(q, null, { method, reference: ref });
        expect(rotationAngle(got, ref)).toBeLessThan(1e-12);
      }
      const eigen = averageQuaternions(q);
      expect(rotationAngle(eigen, mul(ref, axisAngle(axis, 180 * DEG)))).toBeLessThan(1e-7);
      expect(rotationAngle(eigen, ref) / DEG).toBeCloseTo(180, 6);
    }
  });
});

describe('averageQuaternions edge cases', () => {
  it('throws ShapeError for empty input or a length that is not a multiple of 4', () => {
    expect(() => averageQuaternions([])).toThrow(ShapeError);
    expect(() => averageQuaternions([0, 0, 1])).toThrow(ShapeError);
    expect(() => averageQuaternions([0, 0, 0, 1], [1, 2])).toThrow(ShapeError);
  });

  it('returns the single input, normalised into w >= 0, for every method', () => {
    const q = [0.2, -0.4, 0.1, -0.8];
    const n = Math.hypot(...q);
    for (const method of AVERAGE_METHODS) {
      const got = averageQuaternions(q, null, { method });
      for (let k = 0; k < 4; k++) expect(got[k]).toBeCloseTo(-q[k] / n, 15);
    }
  });

  it('throws InvalidValueError for all-zero weights and weights summing to zero, for every method', () => {
    const q = flat([0, 0, 0, 1], axisAngle([1, 0, 0], 1));
    for (const method of AVERAGE_METHODS) {
      expect(() => averageQuaternions(q, [0, 0], { method })).toThrow(/all weights are zero/);
      expect(() => averageQuaternions(q, [1, -1], { method })).toThrow(/sum to zero/);
    }
  });

  it('throws InvalidValueError naming the index of a NaN component, an infinite weight or a zero quaternion', () => {
    const cases: [() => unknown, number][] = [
      [() => averageQuaternions([0, 0, 0, 1, 0, Number.NaN, 0, 1]), 1],
      [() => averageQuaternions([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0], null, { method: 'log' }), 2],
      [() => averageQuaternions([0, 0, 0, 1, 0, 0, 0, 1], [1, Number.POSITIVE_INFINITY]), 1],
    ];
    for (const [fn, index] of cases) {
      try {
        fn();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location.index).toBe(index);
        expect((e as Error).message).toContain(`${index}`);
      }
    }
  });

  it('normalises non-unit inputs first: scaling any input never changes any method', () => {
    const r = rng(51);
    for (let trial = 0; trial < 50; trial++) {
      const q = randomQuats(r, 5, 0.5);
      const w = Float64Array.from({ length: 5 }, () => 0.1 + r());
      const scaled = q.map((v, i) => v * (0.01 + 10 * ((i >> 2) % 3)));
      for (const method of AVERAGE_METHODS) {
        const a = averageQuaternions(q, w, { method });
        const b = averageQuaternions(scaled, w, { method });
        expect(diffUpToSign(a, b)).toBeLessThan(1e-13);
      }
    }
  });

  it('scaling all weights by any non-zero constant never changes any method (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.boolean(),
        fc.constantFrom(...AVERAGE_METHODS),
        (n, seed, scale, negate, method) => {
          const r = rng(seed);
          const q = randomQuats(r, n, 0.4);
          const w = Float64Array.from({ length: n }, () => 0.05 + r());
          const c = negate ? -scale : scale;
          const a = averageQuaternions(q, w, { method });
          const b = averageQuaternions(
            q,
            w.map((v) => v * c),
            { method },
          );
          return diffUpToSign(a, b) < 1e-12;
        },
      ),
      { numRuns: 300 },
    );
  });

  it("exactly antipodal pair (q, −q): one rotation; 'eigen', 'flip', 'nlerp', 'log', 'geodesic' return it, 'raw' throws", () => {
    const q = axisAngle([1, 2, 3], 1.2);
    const pair = flat(
      q,
      q.map((v) => -v),
    );
    for (const method of ['eigen', 'flip', 'nlerp', 'log', 'geodesic'] as const) {
      expect(diffUpToSign(averageQuaternions(pair, null, { method }), q)).toBeLessThan(1e-15);
    }
    expect(() => averageQuaternions(pair, null, { method: 'raw' })).toThrow(/vanishes/);
  });

  it('reports the tie of the identity and a 180° turn as ambiguous, deterministically', () => {
    const diag = createAverageDiagnostics();
    const q = flat([0, 0, 0, 1], [1, 0, 0, 0]);
    const a = averageQuaternions(q, null, { diagnostics: diag });
    expect(diag.ambiguous).toBe(true);
    expect(diag.gap).toBe(0);
    expect(Array.from(averageQuaternions(q))).toEqual(Array.from(a));
    averageQuaternions(flat([0, 0, 0, 1], axisAngle([1, 0, 0], 1)), null, { diagnostics: diag });
    expect(diag.ambiguous).toBe(false);
    expect(diag.gap).toBeGreaterThan(0.5);
  });

  it('negative weights extrapolate: eigen along the great circle past a, nlerp and log linearly', () => {
    const a = axisAngle([0, 0, 1], 0.4);
    const b = axisAngle([0, 0, 1], 1.0);
    const q = flat(a, b);
    const w = [2, -1];
    // log about a: a ⊗ exp(2·0 − log(a⁻¹b)) = rotation by 0.4 − 0.6 = −0.2 about z
    const log = averageQuaternions(q, w, { method: 'log' });
    expect(rotationAngle(log, axisAngle([0, 0, 1], -0.2))).toBeLessThan(1e-15);
    // nlerp: normalize(2a − b)
    const lin = Array.from(a, (v, k) => 2 * v - b[k]);
    expect(rotationAngle(averageQuaternions(q, w, { method: 'nlerp' }), lin)).toBeLessThan(1e-15);
    // eigen: about z, on the far side of a from b (angle below 0.4), not the same as the linear ones
    const eigen = averageQuaternions(q, w);
    expect(Math.abs(eigen[0]) + Math.abs(eigen[1])).toBeLessThan(1e-15);
    const eigenAngle = 2 * Math.atan2(eigen[2], eigen[3]);
    expect(eigenAngle).toBeLessThan(0.4);
    expect(Math.abs(eigenAngle - -0.2)).toBeGreaterThan(1e-3);
    // eigen maximises qᵀMq of M = 2aaᵀ − bbᵀ: its 2x2 restriction in the (a, b) plane gives
    // tan 2φ = sin 2Δ / (cos 2Δ − 2) with Δ = half of 0.6, φ the half-angle offset from a
    const d = 0.3;
    const phi = 0.5 * Math.atan2(-Math.sin(2 * d), 2 - Math.cos(2 * d));
    expect(eigenAngle).toBeCloseTo(0.4 + 2 * phi, 13);
  });

  it("negative weights on one axis: 'flip', 'raw' give normalize(2a − b); 'geodesic' the affine tangent point −0.2", () => {
    const a = axisAngle([0, 0, 1], 0.4);
    const b = axisAngle([0, 0, 1], 1.0);
    const q = flat(a, b);
    const lin = Array.from(a, (v, k) => 2 * v - b[k]);
    for (const method of ['flip', 'raw'] as const) {
      expect(rotationAngle(averageQuaternions(q, [2, -1], { method }), lin)).toBeLessThan(1e-15);
    }
    // the Karcher fixed point Σ w̃ᵢ log(m⁻¹qᵢ) = 0 of weights (2, −1) on one axis is the angle 2·0.4 − 1.0
    const diag = createAverageDiagnostics();
    const g = averageQuaternions(q, [2, -1], { method: 'geodesic', diagnostics: diag });
    expect(diag.converged).toBe(true);
    expect(rotationAngle(g, axisAngle([0, 0, 1], -0.2))).toBeLessThan(1e-14);
  });

  it('throws OptionError for an unknown method', () => {
    expect(() => averageQuaternions([0, 0, 0, 1], null, { method: 'mean' as AverageMethod })).toThrow(
      OptionError,
    );
  });

  it('accepts Float32Array input and writes into options.out', () => {
    const q32 = Float32Array.from([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]);
    const out = new Float32Array(4);
    const got = averageQuaternions(q32, null, { out });
    expect(got).toBe(out);
    expect(out[2]).toBeCloseTo(Math.sin(Math.PI / 8), 6);
  });
});
