import { describe, expect, it } from 'vitest';
import { fillPositions, rationalRatio } from '../../src/numeric/rational.js';

describe('rationalRatio(a, b) and fillPositions(positions, sourceRate, rate)', () => {
  it('finds the small fractions behind common rate pairs', () => {
    expect(rationalRatio(120, 60)).toEqual([2, 1]);
    expect(rationalRatio(30, 120)).toEqual([1, 4]);
    expect(rationalRatio(29.97, 60)).toEqual([999, 2000]);
    expect(rationalRatio(29.97, 59.94)).toEqual([1, 2]);
    expect(rationalRatio(100, 30)).toEqual([10, 3]);
    expect(rationalRatio(30000 / 1001, 24)).toEqual([1250, 1001]);
  });

  it('returns null when no fraction with a denominator up to 2^20 is within a few ulps', () => {
    expect(rationalRatio(Math.PI, 1)).toBeNull();
    expect(rationalRatio(Math.E, 3)).toBeNull();
    // CMU's Frame Time .0083333 is 1e7 / 83333 Hz: against 30 Hz that is exactly 1e6 / 249999
    expect(rationalRatio(1 / 0.0083333, 30)).toEqual([1000000, 249999]);
  });

  it('puts shared instants on exact integers', () => {
    const p = new Float64Array(2001);
    fillPositions(p, 29.97, 60);
    expect(p[2000]).toBe(999);
    expect(p[1000]).toBe(499.5);
    const q = new Float64Array(11);
    fillPositions(q, Math.PI, 1);
    expect(q[10]).toBe(10 * Math.PI);
  });
});
