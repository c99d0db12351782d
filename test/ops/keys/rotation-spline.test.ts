// createRotationSpline / evaluateRotationSpline against SciPy's RotationSpline (fixtures written by
// scripts/fixtures_rotation_spline.py, SciPy version recorded in the JSON): rotations, body angular rates
// and angular accelerations at the keys and between them, uneven key times, to 1e-10.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InvalidValueError, ShapeError } from '../../../src/errors.js';
import {
  createRotationSpline,
  evaluateRotationSpline,
  rotationSplineTrack,
} from '../../../src/ops/keys/rotation-spline.js';
import type { Track } from '../../../src/series/clip.js';

/** The agreement the issue asks of SciPy's RotationSpline (its solver stops at 1e-9 relative change). */
const SPLINE_TOL = 1e-10;

interface Case {
  name: string;
  times: number[];
  keys: number[][];
  at: number[];
  rotations: number[][];
  rates: number[][];
  accelerations: number[][];
}

const fixture = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'fixtures', 'rotation-spline.json'), 'utf8'),
) as { scipy: string; cases: Case[] };

/** Largest |a − b| over rows of 3, relative to 1 + |b| (rates and accelerations reach hundreds). */
function vectorGap(a: Float64Array | Float32Array, rows: number[][]): number {
  let gap = 0;
  rows.forEach((row, i) => {
    for (let k = 0; k < 3; k++) gap = Math.max(gap, Math.abs(a[i * 3 + k] - row[k]) / (1 + Math.abs(row[k])));
  });
  return gap;
}

/** Largest component gap between quaternions up to sign. */
function quatGap(a: Float64Array | Float32Array, rows: number[][]): number {
  let gap = 0;
  rows.forEach((row, i) => {
    const d = a[i * 4] * row[0] + a[i * 4 + 1] * row[1] + a[i * 4 + 2] * row[2] + a[i * 4 + 3] * row[3];
    const s = d < 0 ? -1 : 1;
    for (let k = 0; k < 4; k++) gap = Math.max(gap, Math.abs(a[i * 4 + k] - s * row[k]));
  });
  return gap;
}

describe(`createRotationSpline against SciPy ${fixture.scipy} RotationSpline`, () => {
  for (const c of fixture.cases) {
    test(`${c.name}: ${c.times.length} keys, ${c.at.length} times; rotations, rates, accelerations to 1e-10`, () => {
      const spline = createRotationSpline(c.times, c.keys.flat());
      expect(quatGap(evaluateRotationSpline(spline, c.at), c.rotations)).toBeLessThan(SPLINE_TOL);
      expect(vectorGap(evaluateRotationSpline(spline, c.at, { order: 1 }), c.rates)).toBeLessThan(SPLINE_TOL);
      expect(vectorGap(evaluateRotationSpline(spline, c.at, { order: 2 }), c.accelerations)).toBeLessThan(
        SPLINE_TOL,
      );
    });
  }

  test('the spline passes through every key; rates and accelerations are continuous across keys', () => {
    const c = fixture.cases.find((x) => x.name === 'uneven-large')!;
    const spline = createRotationSpline(c.times, c.keys.flat());
    expect(quatGap(evaluateRotationSpline(spline, c.times), c.keys)).toBeLessThan(1e-14);
    // just before and just after each interior key
    const eps = 1e-7;
    const around = c.times.slice(1, -1).flatMap((t) => [t - eps, t + eps]);
    for (const order of [1, 2] as const) {
      const v = evaluateRotationSpline(spline, around, { order });
      for (let i = 0; i < around.length; i += 2)
        for (let k = 0; k < 3; k++)
          expect(Math.abs(v[i * 3 + k] - v[(i + 1) * 3 + k])).toBeLessThan(
            1e-4 * (1 + Math.abs(v[i * 3 + k])),
          );
    }
  });

  test('Float32 out, descending times and q = −q keys give the same rotations', () => {
    const c = fixture.cases.find((x) => x.name === 'random-25')!;
    const flipped = c.keys.flatMap((q, i) => (i % 2 ? q.map((x) => -x) : q));
    const spline = createRotationSpline(c.times, flipped);
    const reversed = [...c.at].reverse();
    const out = new Float32Array(reversed.length * 4);
    evaluateRotationSpline(spline, reversed, { out });
    expect(quatGap(out, [...c.rotations].reverse())).toBeLessThan(1e-6);
  });

  test('bad input is a typed error', () => {
    expect(() => createRotationSpline([0], [0, 0, 0, 1])).toThrow(ShapeError);
    expect(() => createRotationSpline([0, 1], [0, 0, 0, 1])).toThrow(ShapeError);
    expect(() => createRotationSpline([0, 0], [0, 0, 0, 1, 0, 0, 0, 1])).toThrow(InvalidValueError);
    expect(() => createRotationSpline([0, 1], [0, 0, 0, 1, 0, 0, 0, 0])).toThrow(InvalidValueError);
    const spline = createRotationSpline([0, 1], [0, 0, 0, 1, 0, 0, 1, 0]);
    expect(() => evaluateRotationSpline(spline, [Number.NaN])).toThrow(InvalidValueError);
    expect(() => evaluateRotationSpline(spline, [0], { order: 3 as 1 })).toThrow(/order/);
    expect(() => evaluateRotationSpline(spline, [0], { out: new Float64Array(3) })).toThrow(ShapeError);
  });
});

describe('rotationSplineTrack(track, times) up-samples a keyed rotation track', () => {
  const c = fixture.cases.find((x) => x.name === 'uneven-large')!;
  test('LINEAR keys: the spline through them, to 1e-10 of SciPy; ends held outside the keys', () => {
    const track: Track = {
      joint: 0,
      path: 'rotation',
      interpolation: 'linear',
      times: Float64Array.from(c.times),
      values: Float64Array.from(c.keys.flat()),
      width: 4,
    };
    expect(quatGap(rotationSplineTrack(track, c.at), c.rotations)).toBeLessThan(SPLINE_TOL);
    const ends = rotationSplineTrack(track, [c.times[0] - 1, c.times[c.times.length - 1] + 1]);
    expect(quatGap(ends, [c.keys[0], c.keys[c.keys.length - 1]])).toBeLessThan(1e-14);
  });

  test('CUBICSPLINE keys: the key values, not the tangents, are the spline keys', () => {
    const values = c.keys.flatMap((q) => [9, 9, 9, 9, ...q, -9, -9, -9, -9]);
    const track: Track = {
      joint: 0,
      path: 'rotation',
      interpolation: 'cubicspline',
      times: Float64Array.from(c.times),
      values: Float64Array.from(values),
      width: 4,
    };
    expect(quatGap(rotationSplineTrack(track, c.at), c.rotations)).toBeLessThan(SPLINE_TOL);
  });
});
