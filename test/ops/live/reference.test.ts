import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRITICAL_HALF_LIFE_ROOT, createDamper, type DamperResponse } from '../../../src/ops/live/damper.js';
import { createOneEuroFilter, type OneEuroDerivative } from '../../../src/ops/live/one-euro.js';
import { quatDistance } from '../../support/arbitraries.js';
import { TOL } from '../../support/tolerances.js';

// Written by scripts/fixtures_live.py: the 1€ paper's pseudocode, Holden's scalar dampers and SciPy-based
// rotation filters (see the script's docstring).
const here = dirname(fileURLToPath(import.meta.url));
const fx = JSON.parse(readFileSync(join(here, '..', '..', 'fixtures', 'live.json'), 'utf8')) as {
  criticalHalfLifeRoot: number;
  times: number[];
  signal: number[];
  oneEuro: {
    minCutoff: number;
    beta: number;
    dCutoff: number;
    derivative: OneEuroDerivative;
    output: number[];
  }[];
  dampers: { response: DamperResponse; halfLife: number; output: number[] }[];
  rotations: {
    times: number[];
    quats: number[];
    oneEuro: { minCutoff: number; beta: number; dCutoff: number; output: number[] };
    dampers: { response: DamperResponse; halfLife: number; output: number[] }[];
  };
};

function runScalar(filter: { push(out: Float64Array, x: ArrayLike<number>, t: number): Float64Array }) {
  const out = new Float64Array(1);
  return fx.times.map((t, k) => filter.push(out, [fx.signal[k]], t)[0]);
}

describe('the live filters against independent references', () => {
  it('createOneEuroFilter({ kind: "vector", width: 1 }) matches the 1€ paper’s pseudocode to 1e-12 (both derivative variants)', () => {
    expect(fx.oneEuro.length).toBe(6);
    for (const c of fx.oneEuro) {
      const f = createOneEuroFilter({
        joints: 1,
        kind: 'vector',
        width: 1,
        minCutoff: c.minCutoff,
        beta: c.beta,
        dCutoff: c.dCutoff,
        derivative: c.derivative,
      });
      const got = runScalar(f);
      let worst = 0;
      for (let k = 0; k < got.length; k++) worst = Math.max(worst, Math.abs(got[k] - c.output[k]));
      expect(worst, JSON.stringify({ ...c, output: undefined })).toBeLessThan(TOL.f64);
    }
  });

  it('the two derivative variants differ when beta > 0 (the fixture tells them apart)', () => {
    const a = fx.oneEuro.find((c) => c.beta === 0.5 && c.derivative === 'input')!;
    const b = fx.oneEuro.find((c) => c.beta === 0.5 && c.derivative === 'output')!;
    const diff = Math.max(...a.output.map((v, k) => Math.abs(v - b.output[k])));
    expect(diff).toBeGreaterThan(1e-3);
  });

  it('createDamper({ kind: "vector", width: 1 }) matches Holden’s exact spring and damper to 1e-12', () => {
    expect(CRITICAL_HALF_LIFE_ROOT).toBeCloseTo(fx.criticalHalfLifeRoot, 15);
    for (const c of fx.dampers) {
      const got = runScalar(
        createDamper({ joints: 1, kind: 'vector', width: 1, halfLife: c.halfLife, response: c.response }),
      );
      let worst = 0;
      for (let k = 0; k < got.length; k++) worst = Math.max(worst, Math.abs(got[k] - c.output[k]));
      expect(worst, `${c.response} ${c.halfLife}`).toBeLessThan(TOL.f64);
    }
  });

  it('the rotation One Euro filter and dampers match SciPy-based references on noisy, sign-flipping input to 1e-12', () => {
    const r = fx.rotations;
    const n = r.times.length;
    const run = (filter: { push(out: Float64Array, q: ArrayLike<number>, t: number): Float64Array }) => {
      const out = new Float64Array(4);
      const all = new Float64Array(n * 4);
      for (let k = 0; k < n; k++)
        all.set(filter.push(out, r.quats.slice(k * 4, k * 4 + 4), r.times[k]), k * 4);
      return all;
    };
    const worst = (got: Float64Array, want: number[]) => {
      let w = 0;
      for (let k = 0; k < n; k++)
        w = Math.max(w, quatDistance(got.subarray(k * 4, k * 4 + 4), want.slice(k * 4, k * 4 + 4)));
      return w;
    };
    const e = r.oneEuro;
    const oe = run(
      createOneEuroFilter({ joints: 1, minCutoff: e.minCutoff, beta: e.beta, dCutoff: e.dCutoff }),
    );
    expect(worst(oe, e.output)).toBeLessThan(TOL.f64);
    for (const d of r.dampers) {
      const got = run(createDamper({ joints: 1, halfLife: d.halfLife, response: d.response }));
      expect(worst(got, d.output), d.response).toBeLessThan(TOL.f64);
    }
  });
});
