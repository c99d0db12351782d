import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShapeError } from '../../src/errors.js';
import {
  createFftPlan,
  fft,
  fftInPlace,
  ifft,
  ifftInPlace,
  rfft,
  rfftFrequencies,
} from '../../src/numeric/fft.js';
import { readFixture } from '../support/shared-data.js';

interface FftCase {
  n: number;
  re: number[];
  im: number[];
  fftRe: number[];
  fftIm: number[];
  rfftRe: number[];
  rfftIm: number[];
}

/** O(n²) reference DFT with exact modular angles. */
function naiveDft(re: ArrayLike<number>, im: ArrayLike<number>, sign = -1): { re: number[]; im: number[] } {
  const n = re.length;
  const outRe: number[] = [];
  const outIm: number[] = [];
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let t = 0; t < n; t++) {
      const a = (sign * 2 * Math.PI * ((k * t) % n)) / n;
      const c = Math.cos(a);
      const s = Math.sin(a);
      sr += re[t] * c - im[t] * s;
      si += re[t] * s + im[t] * c;
    }
    outRe.push(sr);
    outIm.push(si);
  }
  return { re: outRe, im: outIm };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

const cases = readFixture<{ cases: FftCase[] }>('fft.json').cases;

describe('fft(re, im)', () => {
  it.each(cases.map((c) => [c.n, c] as const))('matches numpy.fft.fft for n = %i', (n, c) => {
    const out = fft(c.re, c.im);
    // error bound of an O(n log n) transform: a few ulps times log n times the signal scale
    const tol = 1e-13 * Math.max(1, Math.sqrt(n)) * Math.log2(n + 2) * 4;
    expect(maxAbsDiff(out.re, c.fftRe)).toBeLessThan(tol);
    expect(maxAbsDiff(out.im, c.fftIm)).toBeLessThan(tol);
  });

  it('matches a naive DFT for every length 0..70', () => {
    for (let n = 0; n <= 70; n++) {
      const re = Array.from({ length: n }, (_, i) => Math.sin(1.3 * i + 0.2) + (i % 3));
      const im = Array.from({ length: n }, (_, i) => Math.cos(0.7 * i * i));
      const out = fft(re, im);
      const ref = naiveDft(re, im);
      expect(maxAbsDiff(out.re, ref.re)).toBeLessThan(1e-11);
      expect(maxAbsDiff(out.im, ref.im)).toBeLessThan(1e-11);
    }
  });

  it('chooses radix 2 for powers of two and Bluestein otherwise', () => {
    expect(createFftPlan(1024).method).toBe('radix2');
    expect(createFftPlan(1000).method).toBe('bluestein');
    expect(createFftPlan(1).method).toBe('radix2');
  });

  it('ifft(fft(x)) = x for random complex inputs of any length (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: -1e3, max: 1e3, noNaN: true }),
            fc.double({ min: -1e3, max: 1e3, noNaN: true }),
          ),
          {
            minLength: 1,
            maxLength: 200,
          },
        ),
        (pairs) => {
          const re = pairs.map((p) => p[0]);
          const im = pairs.map((p) => p[1]);
          const f = fft(re, im);
          const back = ifft(f.re, f.im);
          expect(maxAbsDiff(back.re, re)).toBeLessThan(1e-9);
          expect(maxAbsDiff(back.im, im)).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('fftInPlace and ifftInPlace reuse one plan across calls (Parseval holds)', () => {
    const n = 2752;
    const plan = createFftPlan(n);
    for (let trial = 0; trial < 3; trial++) {
      const re = new Float64Array(n).map((_, i) => Math.sin(0.01 * i * (trial + 1)) + 0.1 * Math.cos(3 * i));
      const im = new Float64Array(n);
      const copy = re.slice();
      let energy = 0;
      for (const v of re) energy += v * v;
      fftInPlace(plan, re, im);
      let spec = 0;
      for (let k = 0; k < n; k++) spec += re[k] * re[k] + im[k] * im[k];
      expect(spec / n / energy).toBeCloseTo(1, 12);
      ifftInPlace(plan, re, im);
      expect(maxAbsDiff(re, copy)).toBeLessThan(1e-12);
    }
  });

  it('fftInPlace rejects arrays that do not match the plan', () => {
    expect(() => fftInPlace(createFftPlan(8), new Float64Array(7), new Float64Array(7))).toThrow(ShapeError);
    expect(() => createFftPlan(-1)).toThrow(ShapeError);
    expect(() => createFftPlan(2.5)).toThrow(ShapeError);
  });
});

describe('rfft(input, plan)', () => {
  it.each(cases.map((c) => [c.n, c] as const))('matches numpy.fft.rfft for n = %i', (n, c) => {
    const out = rfft(c.re);
    const tol = 1e-13 * Math.max(1, Math.sqrt(n)) * Math.log2(n + 2) * 4;
    expect(out.re.length).toBe(Math.floor(n / 2) + 1);
    expect(maxAbsDiff(out.re, c.rfftRe)).toBeLessThan(tol);
    expect(maxAbsDiff(out.im, c.rfftIm)).toBeLessThan(tol);
  });

  it('rfftFrequencies(n, rate) matches numpy.fft.rfftfreq', () => {
    expect(Array.from(rfftFrequencies(5, 10))).toEqual([0, 2, 4]);
    expect(Array.from(rfftFrequencies(4, 120))).toEqual([0, 30, 60]);
  });

  it('rfft rejects a plan of another length', () => {
    expect(() => rfft([1, 2, 3], createFftPlan(4))).toThrow(ShapeError);
  });
});
