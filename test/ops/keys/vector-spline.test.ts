// vectorSplineTrack against SciPy's CubicSpline with the rotation spline's end conditions (fixtures written
// by scripts/fixtures_vector_spline.py, SciPy version recorded in the JSON), and the C² property itself
// checked by finite differences of the evaluated curve.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InvalidValueError, ShapeError } from '../../../src/errors.js';
import { vectorSplineTrack } from '../../../src/ops/keys/vector-spline.js';
import type { Track } from '../../../src/series/clip.js';

interface Case {
  name: string;
  times: number[];
  keys: number[][];
  at: number[];
  values: number[][];
}

const fixture = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'fixtures', 'vector-spline.json'), 'utf8'),
) as { scipy: string; cases: Case[] };

function trackOf(c: Case, interpolation: Track['interpolation'] = 'linear'): Track {
  const width = c.keys[0].length;
  const values =
    interpolation === 'cubicspline'
      ? // in-tangent, value, out-tangent per key: tangents that must not be used
        c.keys.flatMap((k) => [...k.map(() => 99), ...k, ...k.map(() => -99)])
      : c.keys.flat();
  return {
    joint: 0,
    path: width === 3 ? 'translation' : 'weights',
    interpolation,
    width,
    times: Float64Array.from(c.times),
    values: Float64Array.from(values),
  } as Track;
}

describe(`vectorSplineTrack against SciPy ${fixture.scipy} CubicSpline (clamped to the end intervals' slopes)`, () => {
  for (const c of fixture.cases) {
    test(`${c.name}: ${c.times.length} keys, ${c.at.length} times, to 1e-12`, () => {
      for (const interpolation of ['linear', 'step', 'cubicspline'] as const) {
        const got = vectorSplineTrack(trackOf(c, interpolation), c.at);
        let gap = 0;
        c.values.forEach((row, p) => {
          row.forEach((v, k) => {
            gap = Math.max(gap, Math.abs(got[p * row.length + k] - v) / (1 + Math.abs(v)));
          });
        });
        expect(gap).toBeLessThan(1e-12);
      }
    });
  }

  test('the curve is C²: first and second differences continuous through every interior key', () => {
    const c = fixture.cases[0];
    const track = trackOf(c);
    const e = 1e-4;
    for (let k = 1; k < c.times.length - 1; k++) {
      const t = c.times[k];
      const v = vectorSplineTrack(track, [t - 2 * e, t - e, t, t + e, t + 2 * e]);
      for (let d = 0; d < 3; d++) {
        const x = (i: number) => v[i * 3 + d];
        const slopeLeft = (x(2) - x(1)) / e;
        const slopeRight = (x(3) - x(2)) / e;
        const curvLeft = (x(2) - 2 * x(1) + x(0)) / (e * e);
        const curvRight = (x(4) - 2 * x(3) + x(2)) / (e * e);
        // one-sided differences differ by O(e·f''') for a C² curve, by the jump for one that is not
        expect(Math.abs(slopeLeft - slopeRight)).toBeLessThan(1e-2 * (1 + Math.abs(slopeLeft)));
        expect(Math.abs(curvLeft - curvRight)).toBeLessThan(5e-2 * (1 + Math.abs(curvLeft)));
      }
    }
  });

  test('one key holds its value; out, Float32 out and errors', () => {
    const one = {
      joint: 0,
      path: 'scale',
      interpolation: 'linear',
      width: 3,
      times: Float32Array.of(0.5),
      values: Float32Array.of(2, 3, 4),
    } as Track;
    expect(Array.from(vectorSplineTrack(one, [0, 0.5, 9]))).toEqual([2, 3, 4, 2, 3, 4, 2, 3, 4]);
    const out = new Float32Array(6);
    expect(vectorSplineTrack(one, [0, 1], out)).toBe(out);
    expect(() => vectorSplineTrack(one, [0], new Float64Array(2))).toThrow(ShapeError);
    expect(() => vectorSplineTrack(one, [Number.NaN])).toThrow(InvalidValueError);
    const rotation = {
      joint: 0,
      path: 'rotation',
      interpolation: 'linear',
      width: 4,
      times: Float32Array.of(0),
      values: Float32Array.of(0, 0, 0, 1),
    } as Track;
    expect(() => vectorSplineTrack(rotation, [0])).toThrow(ShapeError);
  });
});
