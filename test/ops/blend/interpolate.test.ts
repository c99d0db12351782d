import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import {
  INTERPOLATION_METHODS,
  type InterpolationMethod,
  interpolate,
} from '../../../src/ops/blend/interpolate.js';
import * as quat from '../../../src/quat/index.js';
import { axisAngle, randomQuats, rng, rotationAngle } from '../../support/average-random.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

const DEG = Math.PI / 180;

/**
 * Samples `interpolate(a, b, t)` at N + 1 evenly spaced t and measures (1) the largest deviation from the
 * great circle through a and b, as the rotation angle in degrees to the nearest point of that circle, and
 * (2) the spread of the angular speed, (max − min) / mean over the N segments.
 */
function measure(a: Float64Array, b: Float64Array, method: InterpolationMethod, N = 400) {
  const d = quat.dot(a, b);
  const bb = b.map((v) => (d < 0 ? -v : v));
  const e2 = bb.map((v, k) => v - Math.abs(d) * a[k]);
  const n2 = Math.hypot(...e2);
  const e2n = e2.map((v) => v / n2);
  let deviation = 0;
  const points: Float64Array[] = [];
  for (let i = 0; i <= N; i++) {
    const p = interpolate(new Float64Array(4), a, b, i / N, method);
    points.push(p);
    const c1 = quat.dot(p, a);
    const c2 = quat.dot(p, e2n);
    const off = Math.hypot(...p.map((v, k) => v - c1 * a[k] - c2 * e2n[k]));
    deviation = Math.max(deviation, (2 * Math.asin(Math.min(1, off))) / DEG);
  }
  const speeds: number[] = [];
  for (let i = 0; i < N; i++) speeds.push(rotationAngle(points[i], points[i + 1]) * N);
  const mean = speeds.reduce((s, v) => s + v, 0) / N;
  return { deviation, spread: (Math.max(...speeds) - Math.min(...speeds)) / mean };
}

describe("interpolate(out, a, b, t, method): Casey Muratori's comparison (test 9)", () => {
  // two rotations far apart with different axes: 120° about x and 120° about y (151° apart)
  const a = axisAngle([1, 0, 0], 120 * DEG);
  const b = axisAngle([0, 1, 0], 120 * DEG);
  const m = Object.fromEntries(INTERPOLATION_METHODS.map((k) => [k, measure(a, b, k)])) as Record<
    InterpolationMethod,
    { deviation: number; spread: number }
  >;

  it("'slerp': on the great circle (deviation < 1e-10°) at constant speed (spread < 1e-9)", () => {
    expect(m.slerp.deviation).toBeLessThan(1e-10);
    expect(m.slerp.spread).toBeLessThan(1e-9);
  });

  it("'nlerp': exactly slerp's great circle (deviation < 1e-10°) but not constant speed (spread 0.439)", () => {
    expect(m.nlerp.deviation).toBeLessThan(1e-10);
    expect(m.nlerp.spread).toBeGreaterThan(0.43);
    expect(m.nlerp.spread).toBeLessThan(0.45);
  });

  it("'log' (exp-map about the identity): even speed (spread 0.0071, 60x below nlerp) but 16.7° off the great circle", () => {
    expect(m.log.spread).toBeLessThan(0.008);
    expect(m.log.spread * 60).toBeLessThan(m.nlerp.spread);
    expect(m.log.deviation).toBeGreaterThan(16.6);
    expect(m.log.deviation).toBeLessThan(16.8);
  });

  it("'matrix' (lerp + Gram-Schmidt): neither, 38.9° off the circle and speed spread 2.13", () => {
    expect(m.matrix.deviation).toBeGreaterThan(38.8);
    expect(m.matrix.deviation).toBeGreaterThan(2 * m.log.deviation);
    expect(m.matrix.spread).toBeGreaterThan(2.1);
    expect(m.matrix.spread).toBeGreaterThan(4 * m.nlerp.spread);
  });

  it("'log' is the geodesic when the axes agree (30° to 150° about z): deviation and spread vanish", () => {
    const s = measure(axisAngle([0, 0, 1], 30 * DEG), axisAngle([0, 0, 1], 150 * DEG), 'log');
    expect(s.deviation).toBeLessThan(1e-10);
    expect(s.spread).toBeLessThan(1e-9);
  });

  it('all four converge for close rotations (40° about x vs 40° about y, 56° apart): log 0.58°, matrix 3.6° off', () => {
    const a2 = axisAngle([1, 0, 0], 40 * DEG);
    const b2 = axisAngle([0, 1, 0], 40 * DEG);
    expect(measure(a2, b2, 'log').deviation).toBeLessThan(0.6);
    expect(measure(a2, b2, 'nlerp').spread).toBeLessThan(0.06);
    expect(measure(a2, b2, 'matrix').deviation).toBeLessThan(3.7);
  });
});

describe('interpolate(out, a, b, t, method) basics', () => {
  interface SlerpCase {
    a: number[];
    b: number[];
    t: number[];
    expected: number[];
  }
  const fixture = readFixture<{ slerp: SlerpCase[] }>('average.json');

  it("'slerp' matches SciPy's Slerp up to sign to 1e-12 on 12 pairs up to 3 rad apart", () => {
    const out = new Float64Array(4);
    for (const c of fixture.slerp) {
      c.t.forEach((t, i) => {
        interpolate(out, c.a, c.b, t, 'slerp');
        const e = c.expected.slice(i * 4, i * 4 + 4);
        const s = quat.dot(out, e) < 0 ? -1 : 1;
        for (let k = 0; k < 4; k++) expect(Math.abs(out[k] - s * e[k])).toBeLessThan(TOL.oracle);
      });
    }
  });

  it('every method returns a at t = 0 and b at t = 1 (up to sign), unit length, alias-safe', () => {
    const r = rng(61);
    for (let trial = 0; trial < 100; trial++) {
      const q = randomQuats(r, 2);
      const a = q.slice(0, 4);
      const b = q.slice(4, 8);
      for (const method of INTERPOLATION_METHODS) {
        if (method === 'matrix' && rotationAngle(a, b) > 170 * DEG) continue;
        expect(rotationAngle(interpolate(new Float64Array(4), a, b, 0, method), a)).toBeLessThan(1e-7);
        expect(rotationAngle(interpolate(new Float64Array(4), a, b, 1, method), b)).toBeLessThan(1e-7);
        const mid = interpolate(new Float64Array(4), a, b, 0.3, method);
        expect(Math.hypot(...mid)).toBeCloseTo(1, 14);
        const alias = a.slice();
        interpolate(alias, alias, b, 0.3, method);
        expect(Array.from(alias)).toEqual(Array.from(mid));
      }
    }
  });

  it("'matrix' throws InvalidValueError where the lerped columns vanish (identity to 180° about x at t = 0.5)", () => {
    expect(() => interpolate(new Float64Array(4), [0, 0, 0, 1], [1, 0, 0, 0], 0.5, 'matrix')).toThrow(
      InvalidValueError,
    );
  });

  it('normalises non-unit inputs and throws for a zero input or an unknown method', () => {
    const got = interpolate(new Float64Array(4), [0, 0, 0, 3], [0, 0, 0.5, 0.5], 0.5, 'slerp');
    expect(rotationAngle(got, axisAngle([0, 0, 1], 45 * DEG))).toBeLessThan(1e-15);
    expect(() => interpolate(new Float64Array(4), [0, 0, 0, 0], [0, 0, 0, 1], 0.5)).toThrow(
      InvalidValueError,
    );
    expect(() => interpolate(new Float64Array(4), [0, 0, 0, 1], [0, 0, 0, 1], 0.5, 'cubic' as never)).toThrow(
      OptionError,
    );
  });
});

describe('quat.chordalDistance(a, b) and the Frobenius distance of rotation matrices', () => {
  it('‖R(a) − R(b)‖_F = 2√2·chordalDistance(a, b) on SciPy matrices, angles 1e-6 to 3.1 rad, to 1e-12', () => {
    const fixture = readFixture<{
      frobenius: { a: number[]; b: number[]; frobenius: number; angle: number }[];
    }>('average.json');
    for (const c of fixture.frobenius) {
      const chord = quat.chordalDistance(c.a, c.b);
      expect(Math.abs(2 * Math.SQRT2 * chord - c.frobenius)).toBeLessThan(TOL.oracle);
      expect(Math.abs(chord - Math.sin(c.angle / 2))).toBeLessThan(TOL.oracle);
    }
  });
});
