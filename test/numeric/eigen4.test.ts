import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, ShapeError } from '../../src/errors.js';
import {
  createEigen4Diagnostics,
  dominantEigenvector4,
  EIGEN4_SCRATCH_LENGTH,
  symmetricEigen4,
} from '../../src/numeric/eigen4.js';
import { eigenAverageFlat, eigenAverageStrided } from '../../src/numeric/eigen4-average.js';
import { randomQuats } from '../support/average-random.js';
import { gauss, rng } from '../support/random.js';
import { TOL } from '../support/tolerances.js';

function buildM(quats: ArrayLike<number>, weights: ArrayLike<number>): Float64Array {
  const m = new Float64Array(16);
  let ws = 0;
  for (let i = 0; i < weights.length; i++) ws += weights[i];
  for (let i = 0; i < weights.length; i++) {
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 4; b++) m[a * 4 + b] += (weights[i] * quats[i * 4 + a] * quats[i * 4 + b]) / ws;
    }
  }
  return m;
}

function absDot(a: ArrayLike<number>, b: ArrayLike<number>, bo = 0): number {
  return Math.abs(a[0] * b[bo] + a[1] * b[bo + 1] + a[2] * b[bo + 2] + a[3] * b[bo + 3]);
}

/** sin of the angle between two unit 4-vectors up to sign (robust for tiny angles). */
function sinAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  let d = 0;
  for (let k = 0; k < 4; k++) d += (a[k] - s * b[k]) ** 2;
  return Math.sqrt(d);
}

function symmetricFrom(r: () => number): Float64Array {
  const m = new Float64Array(16);
  for (let a = 0; a < 4; a++) {
    for (let b = a; b < 4; b++) m[a * 4 + b] = m[b * 4 + a] = gauss(r);
  }
  return m;
}

describe('symmetricEigen4(values, vectors, m)', () => {
  it('returns sorted eigenpairs with ‖Mv − λv‖ ≤ 1e-14·‖M‖ and orthonormal vectors on 2000 random matrices', () => {
    const r = rng(1);
    const values = new Float64Array(4);
    const vectors = new Float64Array(16);
    let worstResidual = 0;
    let worstOrtho = 0;
    for (let trial = 0; trial < 2000; trial++) {
      const m = symmetricFrom(r);
      const fro = Math.hypot(...m);
      symmetricEigen4(values, vectors, m);
      expect(values[0] >= values[1] && values[1] >= values[2] && values[2] >= values[3]).toBe(true);
      const trace = m[0] + m[5] + m[10] + m[15];
      expect(Math.abs(values[0] + values[1] + values[2] + values[3] - trace)).toBeLessThan(1e-13 * fro);
      for (let k = 0; k < 4; k++) {
        for (let a = 0; a < 4; a++) {
          let mv = 0;
          for (let b = 0; b < 4; b++) mv += m[a * 4 + b] * vectors[k * 4 + b];
          worstResidual = Math.max(worstResidual, Math.abs(mv - values[k] * vectors[k * 4 + a]) / fro);
        }
        for (let l = 0; l < 4; l++) {
          let d = 0;
          for (let a = 0; a < 4; a++) d += vectors[k * 4 + a] * vectors[l * 4 + a];
          worstOrtho = Math.max(worstOrtho, Math.abs(d - (k === l ? 1 : 0)));
        }
      }
    }
    expect(worstResidual).toBeLessThan(1e-14);
    expect(worstOrtho).toBeLessThan(1e-14);
  });

  it('handles repeated eigenvalues: Q·diag(1, 1, 0.5, 0)·Qᵀ and a diagonal matrix with ties', () => {
    const values = new Float64Array(4);
    const vectors = new Float64Array(16);
    symmetricEigen4(values, vectors, [2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, -1]);
    expect(Array.from(values)).toEqual([3, 3, 2, -1]);
    // deterministic tie order: lower diagonal index first
    expect(Array.from(vectors.subarray(0, 4))).toEqual([0, 1, 0, 0]);
    expect(Array.from(vectors.subarray(4, 8))).toEqual([0, 0, 1, 0]);

    const r = rng(7);
    const q = randomQuats(r, 4);
    // Gram-Schmidt to an orthonormal basis
    const basis: number[][] = [];
    for (let i = 0; i < 4; i++) {
      const v = Array.from(q.subarray(i * 4, i * 4 + 4));
      for (const u of basis) {
        const d = v.reduce((s, x, k) => s + x * u[k], 0);
        for (let k = 0; k < 4; k++) v[k] -= d * u[k];
      }
      const n = Math.hypot(...v);
      basis.push(v.map((x) => x / n));
    }
    const lam = [1, 1, 0.5, 0];
    const m = new Float64Array(16);
    for (let i = 0; i < 4; i++) {
      for (let a = 0; a < 4; a++)
        for (let b = 0; b < 4; b++) m[a * 4 + b] += lam[i] * basis[i][a] * basis[i][b];
    }
    symmetricEigen4(values, vectors, m);
    for (let k = 0; k < 4; k++) expect(values[k]).toBeCloseTo(lam[k], 14);
    // the top two vectors span the same plane as basis[0], basis[1]
    for (const k of [0, 1]) {
      const v = vectors.subarray(k * 4, k * 4 + 4);
      const inPlane = Math.hypot(absDot(v, basis[0]), absDot(v, basis[1]));
      expect(inPlane).toBeCloseTo(1, 14);
    }
  });

  it('throws InvalidValueError on a NaN entry', () => {
    const m = new Float64Array(16);
    m[6] = Number.NaN;
    expect(() => symmetricEigen4(new Float64Array(4), new Float64Array(16), m)).toThrow(InvalidValueError);
  });
});

describe('dominantEigenvector4(out, m, start, diagnostics)', () => {
  it('agrees with the Jacobi solve to 1e-12 on clustered (power path) and spread (fallback) quaternion sets', () => {
    const r = rng(2);
    const out = new Float64Array(4);
    const values = new Float64Array(4);
    const vectors = new Float64Array(16);
    const diag = createEigen4Diagnostics();
    const used = { power: 0, jacobi: 0 };
    let worst = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const n = 2 + Math.floor(r() * 15);
      const spread = [0, 0.05, 0.3, 1][trial % 4];
      const q = randomQuats(r, n, spread);
      const w = Float64Array.from({ length: n }, () => 0.1 + r());
      const m = buildM(q, w);
      const lambda = dominantEigenvector4(out, m, null, diag);
      symmetricEigen4(values, vectors, m);
      used[diag.method]++;
      expect(Math.hypot(...out)).toBeCloseTo(1, 14);
      expect(out[3]).toBeGreaterThanOrEqual(0);
      expect(lambda).toBeCloseTo(values[0], 13);
      if (values[0] - values[1] > 1e-6) worst = Math.max(worst, sinAngle(out, vectors));
    }
    expect(worst).toBeLessThan(TOL.f64);
    // the fast path answers almost every set, even uniformly random ones (measured: 2990 of 3000)
    expect(used.power).toBeGreaterThan(2900);
  });

  it('falls back to Jacobi on a near tie (identity and 180° about x, weights 1 and 1 + 1e-6) and stays exact', () => {
    const out = new Float64Array(4);
    const diag = createEigen4Diagnostics();
    const m = buildM([0, 0, 0, 1, 1, 0, 0, 0], [1, 1 + 1e-6]);
    dominantEigenvector4(out, m, null, diag);
    expect(diag.method).toBe('jacobi');
    expect(diag.ambiguous).toBe(false);
    expect(diag.gap).toBeCloseTo(1e-6 / (2 + 1e-6), 15);
    expect(Array.from(out)).toEqual([1, 0, 0, 0]);
  });

  it('picks the largest algebraic eigenvalue of an indefinite matrix, not the largest magnitude', () => {
    const out = new Float64Array(4);
    const diag = createEigen4Diagnostics();
    const lambda = dominantEigenvector4(
      out,
      [1, 0, 0, 0, 0, -5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, -3],
      null,
      diag,
    );
    expect(lambda).toBe(1);
    expect(Array.from(out)).toEqual([1, 0, 0, 0]);
    expect(diag.method).toBe('jacobi');
  });

  it('reports a tie as ambiguous and answers deterministically (identity and a 180° turn, equal weights)', () => {
    const out = new Float64Array(4);
    const diag = createEigen4Diagnostics();
    const m = buildM([0, 0, 0, 1, 1, 0, 0, 0], [1, 1]);
    dominantEigenvector4(out, m, null, diag);
    expect(diag.ambiguous).toBe(true);
    expect(diag.gap).toBe(0);
    expect(Array.from(out)).toEqual([1, 0, 0, 0]);
    const again = new Float64Array(4);
    dominantEigenvector4(again, m, null, diag);
    expect(Array.from(again)).toEqual(Array.from(out));
  });

  it('certifies a warm start close to the answer in 1 step, and still answers from a useless start', () => {
    const r = rng(3);
    const diag = createEigen4Diagnostics();
    const prev = new Float64Array(4);
    const next = new Float64Array(4);
    const q = randomQuats(r, 8, 0.2);
    const w = new Float64Array(8).fill(1);
    dominantEigenvector4(prev, buildM(q, w), null, diag);
    q[0] += 1e-13;
    const m = buildM(q, w);
    dominantEigenvector4(next, m, prev, diag);
    expect(diag.method).toBe('power');
    expect(diag.iterations).toBe(1);
    // a start orthogonal to the answer: the plain steps fail to certify, the squaring path answers
    const cold = new Float64Array(4);
    dominantEigenvector4(cold, m, null, diag);
    const ortho = [-prev[1], prev[0], -prev[3], prev[2]];
    dominantEigenvector4(next, m, ortho, diag);
    expect(diag.iterations).toBeGreaterThan(2);
    expect(sinAngle(next, cold)).toBeLessThan(TOL.f64);
  });

  it("with solver 'jacobi' gives the same vector as the default path to 1e-12", () => {
    const r = rng(4);
    const a = new Float64Array(4);
    const b = new Float64Array(4);
    for (let trial = 0; trial < 200; trial++) {
      const m = buildM(randomQuats(r, 6, 0.1), new Float64Array(6).fill(1));
      dominantEigenvector4(a, m);
      dominantEigenvector4(b, m, null, undefined, { solver: 'jacobi' });
      expect(sinAngle(a, b)).toBeLessThan(TOL.f64);
    }
  });

  it('throws InvalidValueError for the zero matrix', () => {
    expect(() => dominantEigenvector4(new Float64Array(4), new Float64Array(16))).toThrow(InvalidValueError);
  });
});

describe('eigenAverageFlat(dst, dstOffset, src, offsets, weights, count)', () => {
  it('matches eigenAverageStrided and the Jacobi eigenvector of M built independently', () => {
    const r = rng(5);
    const a = new Float64Array(8);
    const b = new Float64Array(4);
    const values = new Float64Array(4);
    const vectors = new Float64Array(16);
    const scratch = new Float64Array(EIGEN4_SCRATCH_LENGTH);
    for (let trial = 0; trial < 300; trial++) {
      // sets longer than the kernel's reused gather buffer too (its own array; a grown one kept)
      const n = trial < 3 ? [1500, 20, 1100][trial] : 1 + Math.floor(r() * 10);
      const q = randomQuats(r, n, trial % 2 ? 0.2 : 0);
      const w = Float64Array.from({ length: n }, () => r());
      // place the quaternions in a padded buffer at scattered offsets
      const src = new Float64Array(n * 7 + 3);
      const offsets = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        offsets[i] = 3 + i * 7;
        src.set(q.subarray(i * 4, i * 4 + 4), offsets[i]);
      }
      eigenAverageFlat(a, 4, src, offsets, w, n, scratch);
      eigenAverageStrided(b, 0, src, 3, 7, w, n, scratch);
      expect(Array.from(a.subarray(4))).toEqual(Array.from(b));
      symmetricEigen4(values, vectors, buildM(q, w));
      if (values[0] - values[1] > 1e-6) expect(sinAngle(b, vectors)).toBeLessThan(TOL.f64);
    }
  });

  it('ignores input length and sign, and any non-zero scaling of all weights (property)', () => {
    const out1 = new Float64Array(4);
    const out2 = new Float64Array(4);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
        fc.boolean(),
        (n, seed, scale, negate) => {
          const r = rng(seed);
          const q = randomQuats(r, n, 0.5);
          const w = Float64Array.from({ length: n }, () => 0.05 + r());
          eigenAverageStrided(out1, 0, q, 0, 4, w, n);
          const q2 = q.map((v, k) => v * (1 + ((k >> 2) % 3)) * (((k >> 2) & 1) === 1 ? -1 : 1));
          const w2 = w.map((v) => v * scale * (negate ? -1 : 1));
          eigenAverageStrided(out2, 0, q2, 0, 4, w2, n);
          return sinAngle(out1, out2) < 1e-12;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads Float32Array input', () => {
    const q32 = Float32Array.from([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]);
    const out = new Float64Array(4);
    eigenAverageStrided(out, 0, q32, 0, 4, [1, 1], 2);
    const h = Math.PI / 8;
    expect(out[2]).toBeCloseTo(Math.sin(h), 6);
    expect(out[3]).toBeCloseTo(Math.cos(h), 6);
  });

  it('throws InvalidValueError naming the index for NaN, a zero quaternion and a NaN weight', () => {
    const q = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, Number.NaN, 0, 1]);
    const out = new Float64Array(4);
    const expectIndex = (fn: () => void, index: number) => {
      try {
        fn();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location.index).toBe(index);
        expect((e as Error).message).toContain(String(index));
      }
    };
    expectIndex(() => eigenAverageStrided(out, 0, q, 0, 4, [1, 1, 1], 3), 2);
    const z = new Float64Array([0, 0, 0, 1, 0, 0, 0, 0]);
    expectIndex(() => eigenAverageFlat(out, 0, z, [0, 4], [1, 1], 2), 1);
    expectIndex(() => eigenAverageFlat(out, 0, z, [0, 0], [1, Number.NaN], 2), 1);
  });

  it('takes the certified fast path on random sets of 8 and agrees with the Jacobi solve to 1e-12 (clustered and uniform, positive weights)', () => {
    const r = rng(4242);
    const diag = createEigen4Diagnostics();
    const fast = new Float64Array(4);
    const ref = new Float64Array(4);
    const jacobi = { solver: 'jacobi' as const };
    for (const spread of [0.05, 0.3, 1, 0]) {
      let power = 0;
      let worst = 0;
      for (let t = 0; t < 1000; t++) {
        const q = randomQuats(r, 8, spread);
        const w = Float64Array.from({ length: 8 }, () => 0.1 + r());
        eigenAverageStrided(fast, 0, q, 0, 4, w, 8, undefined, diag);
        if (diag.method === 'power') power++;
        eigenAverageStrided(ref, 0, q, 0, 4, w, 8, undefined, undefined, null, 0, jacobi);
        // both canonical (w ≥ 0), so compare components directly unless w ≈ 0
        if (ref[3] > 1e-6) for (let k = 0; k < 4; k++) worst = Math.max(worst, Math.abs(fast[k] - ref[k]));
        else worst = Math.max(worst, sinAngle(fast, ref));
      }
      expect(worst).toBeLessThan(1e-12);
      // clustered sets always certify; wide (spread 1) and uniform sets fall back to Jacobi rarely (measured:
      // 0 and 1 of 1000; 5 and 10 with Samuelson's bound alone, before the bound the squaring proves)
      expect(power).toBeGreaterThanOrEqual(spread > 0 && spread < 0.5 ? 1000 : 997);
    }
  });

  it('falls back to the Jacobi solve when the certificate fails: two 180° turns about x and y, equal weights', () => {
    // M = ½(e_x e_xᵀ + e_y e_yᵀ): λ₁ = λ₂ = ½, no dominant eigenvector, so no certificate can hold
    const q = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0]);
    const diag = createEigen4Diagnostics();
    const out = new Float64Array(4);
    const flat = new Float64Array(4);
    eigenAverageStrided(out, 0, q, 0, 4, [1, 1], 2, undefined, diag);
    expect(diag.method).toBe('jacobi');
    expect(diag.ambiguous).toBe(true);
    expect(diag.gap).toBeLessThan(1e-15);
    // a deterministic member of span{e_x, e_y}, the same through the offsets kernel
    expect(Math.hypot(out[0], out[1])).toBeCloseTo(1, 15);
    eigenAverageFlat(flat, 0, q, [0, 4], [1, 1], 2, undefined, diag);
    expect(diag.method).toBe('jacobi');
    expect(Array.from(flat)).toEqual(Array.from(out));
  });

  it('throws InvalidValueError for count 0, all-zero weights and weights that sum to zero; ShapeError for a count the arrays do not hold', () => {
    const q = new Float64Array([0, 0, 0, 1, 1, 0, 0, 0]);
    const out = new Float64Array(4);
    expect(() => eigenAverageStrided(out, 0, q, 0, 4, [], 0)).toThrow(InvalidValueError);
    // a count beyond the weights or the offsets (or not an integer) is named, never read past them
    expect(() => eigenAverageStrided(out, 0, q, 0, 4, [1, 1], 3)).toThrow(
      /count 3 needs as many weights, got 2/,
    );
    expect(() => eigenAverageFlat(out, 0, q, [0, 4], [1, 1], 1e12)).toThrow(ShapeError);
    expect(() => eigenAverageFlat(out, 0, q, [0], [1, 1], 2)).toThrow(/count 2 needs as many offsets, got 1/);
    expect(() => eigenAverageFlat(out, 0, q, [0, 4], [1, 1], 1.5)).toThrow(/count must be an integer/);
    expect(() => eigenAverageStrided(out, 0, q, 0, 4, [0, 0], 2)).toThrow(/all weights are zero/);
    expect(() => eigenAverageStrided(out, 0, q, 0, 4, [0.5, -0.5], 2)).toThrow(/sum to zero/);
    expect(() => eigenAverageStrided(out, 0, q, 0, 4, [0.1, 0.2, -0.3], 2 + 0)).not.toThrow();
    const q3 = new Float64Array([0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0]);
    expect(() => eigenAverageStrided(out, 0, q3, 0, 4, [0.1, 0.2, -0.3], 3)).toThrow(/sum to zero/);
  });
});
