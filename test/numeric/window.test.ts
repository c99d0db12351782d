import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { type WindowName, windowFunction } from '../../src/numeric/window.js';

describe('windowFunction(name, n)', () => {
  // values from scipy.signal.get_window(name, n) (periodic)
  it('matches scipy.signal.get_window for n = 5', () => {
    const ref: Record<string, number[]> = {
      hann: [0, 0.34549150281252633, 0.9045084971874737, 0.9045084971874737, 0.34549150281252633],
      hamming: [
        0.08000000000000007, 0.3978521825875243, 0.9121478174124759, 0.9121478174124759, 0.3978521825875243,
      ],
      blackman: [
        -1.3877787807814457e-17, 0.2007701432625305, 0.8492298567374694, 0.8492298567374694,
        0.2007701432625305,
      ],
    };
    for (const [name, values] of Object.entries(ref)) {
      const w = windowFunction(name as WindowName, 5);
      for (let k = 0; k < 5; k++) expect(Math.abs(w[k] - values[k])).toBeLessThan(1e-15);
    }
  });

  it('is [1] for n = 1 and all ones for rectangular', () => {
    expect(Array.from(windowFunction('hann', 1))).toEqual([1]);
    expect(Array.from(windowFunction('rectangular', 3))).toEqual([1, 1, 1]);
  });

  it('rejects an unknown name', () => {
    expect(() => windowFunction('kaiser' as WindowName, 4)).toThrow(OptionError);
  });
});
