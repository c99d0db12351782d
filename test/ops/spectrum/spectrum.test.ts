import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import type { WindowName } from '../../../src/numeric/window.js';
import { spectrum } from '../../../src/ops/spectrum/spectrum.js';
import { readFixture } from '../../support/shared-data.js';

interface SpectrumCase {
  n: number;
  rate: number;
  window: WindowName;
  x: number[];
  frequencies: number[];
  amplitude: number[];
}

const cases = readFixture<{ cases: SpectrumCase[] }>('spectrum.json').cases;

describe('spectrum(channels, rate, options)', () => {
  it.each(cases.map((c) => [`${c.window} n=${c.n} @ ${c.rate} Hz`, c] as const))(
    'matches numpy/scipy one-sided amplitudes (%s)',
    (_, c) => {
      const s = spectrum(c.x, c.rate, { window: c.window });
      expect(s.frequencies.length).toBe(c.frequencies.length);
      for (let k = 0; k < c.frequencies.length; k++) {
        expect(Math.abs(s.frequencies[k] - c.frequencies[k])).toBeLessThan(1e-12);
        expect(Math.abs(s.amplitude[0][k] - c.amplitude[k])).toBeLessThan(1e-13);
      }
    },
  );

  it('reads 20·log10(A) dB for a sinusoid of amplitude A on a bin, with the Hann default', () => {
    const rate = 120;
    const n = 240;
    const x = Float64Array.from({ length: n }, (_, i) => 0.25 * Math.sin((2 * Math.PI * 10 * i) / rate) + 3);
    const s = spectrum(x, rate);
    const bin = 20; // 10 Hz with 0.5 Hz bins
    expect(s.frequencies[bin]).toBe(10);
    expect(s.db[0][bin]).toBeCloseTo(20 * Math.log10(0.25), 10);
    expect(s.power[0][bin]).toBeCloseTo(0.25 ** 2 / 2, 14);
    // the mean (3) is removed by the default detrend
    expect(s.amplitude[0][0]).toBeLessThan(1e-14);
    // Hann leakage stays within the neighbouring bins: two bins away it is at the floor of rounding
    expect(s.amplitude[0][bin + 2]).toBeLessThan(1e-14);
  });

  it('accepts several channels and floors exact zeros at floorDb', () => {
    const s = spectrum([new Float64Array(16), Float64Array.from({ length: 16 }, (_, i) => i % 2)], 16, {
      detrend: 'none',
      window: 'rectangular',
      floorDb: -200,
    });
    expect(s.db.length).toBe(2);
    expect(s.db[0][3]).toBe(-200);
    expect(s.amplitude[1][0]).toBeCloseTo(0.5, 14);
    expect(s.amplitude[1][8]).toBeCloseTo(0.5, 14);
  });

  it("detrend 'linear' removes a ramp entirely", () => {
    const x = Array.from({ length: 50 }, (_, i) => 2 + 0.3 * i);
    const s = spectrum(x, 50, { detrend: 'linear' });
    for (const a of s.amplitude[0]) expect(a).toBeLessThan(1e-13);
  });

  it('zero-pads to a longer length for finer bins', () => {
    const s = spectrum([1, 2, 3, 2, 1], 10, { length: 20 });
    expect(s.frequencies.length).toBe(11);
    expect(s.frequencies[1]).toBe(0.5);
  });

  it('rejects bad input with typed errors', () => {
    expect(() => spectrum([], 10)).toThrow(ShapeError);
    expect(() => spectrum([[1, 2], [1]], 10)).toThrow(ShapeError);
    expect(() => spectrum([1, Number.NaN], 10)).toThrow(InvalidValueError);
    expect(() => spectrum([1, 2], 0)).toThrow(OptionError);
    expect(() => spectrum([1, 2], 10, { window: 'kaiser' as WindowName })).toThrow(OptionError);
    expect(() => spectrum([1, 2], 10, { length: 1 })).toThrow(OptionError);
  });
});
