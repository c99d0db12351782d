import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import {
  from6DSeries,
  fromMatrixSeries,
  to6DSeries,
  toMatrixSeries,
} from '../../../src/ops/unroll/rotation-series.js';
import * as quat from '../../../src/quat/index.js';
import { createQuatSeries, quatSeries } from '../../../src/series/create.js';
import { quatDistance } from '../../support/arbitraries.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

const fixture = readFixture<{ cases: { order: string; frames: number; quats: number[] }[] }>('unroll.json');

/** Two joints from the SciPy multi-turn curves (quaternions of truth Euler curves, signs as SciPy gives). */
function scipySeries() {
  const a = fixture.cases[0];
  const b = fixture.cases[13];
  const frames = a.frames;
  const data = new Float64Array(frames * 2 * 4);
  for (let f = 0; f < frames; f++) {
    data.set(a.quats.slice(f * 4, f * 4 + 4), f * 8);
    data.set(b.quats.slice(f * 4, f * 4 + 4), f * 8 + 4);
  }
  return quatSeries(data, frames, 2);
}

const dotAt = (d: ArrayLike<number>, i: number, k: number) =>
  d[i] * d[k] + d[i + 1] * d[k + 1] + d[i + 2] * d[k + 2] + d[i + 3] * d[k + 3];

describe('toMatrixSeries / to6DSeries and back', () => {
  it('toMatrixSeries(series) is quat.toMatrix of every rotation, frame-major, 9 per joint', () => {
    const s = scipySeries();
    const m = toMatrixSeries(s);
    expect(m.frames).toBe(s.frames);
    expect(m.joints).toBe(2);
    expect(m.data.length).toBe(s.frames * 2 * 9);
    const one = new Float64Array(9);
    for (let k = 0; k < s.frames * 2; k++) {
      quat.toMatrix(one, s.data.subarray(k * 4, k * 4 + 4));
      expect(Array.from(m.data.subarray(k * 9, k * 9 + 9))).toEqual(Array.from(one));
    }
  });

  it('to6DSeries(series) is the first two matrix columns of toMatrixSeries', () => {
    const s = scipySeries();
    const m = toMatrixSeries(s).data;
    const six = to6DSeries(s).data;
    for (let k = 0; k < s.frames * 2; k++) {
      const c = [m[k * 9], m[k * 9 + 3], m[k * 9 + 6], m[k * 9 + 1], m[k * 9 + 4], m[k * 9 + 7]];
      for (let i = 0; i < 6; i++) expect(Math.abs(six[k * 6 + i] - c[i])).toBeLessThan(TOL.f64);
    }
  });

  it('fromMatrixSeries(toMatrixSeries(q)) and from6DSeries(to6DSeries(q)) give q back, unrolled', () => {
    const s = scipySeries();
    for (const back of [fromMatrixSeries(toMatrixSeries(s)), from6DSeries(to6DSeries(s))]) {
      for (let k = 0; k < s.frames * 2; k++) {
        expect(
          quatDistance(back.data.subarray(k * 4, k * 4 + 4), s.data.subarray(k * 4, k * 4 + 4)),
        ).toBeLessThan(TOL.f64);
        if (k >= 2) expect(dotAt(back.data, k * 4, (k - 2) * 4)).toBeGreaterThan(0);
      }
      expect(back.data[3]).toBeGreaterThanOrEqual(0);
    }
    const h = fromMatrixSeries(toMatrixSeries(s), { sign: 'hemisphere' });
    for (let k = 0; k < s.frames * 2; k++) expect(h.data[k * 4 + 3]).toBeGreaterThanOrEqual(0);
  });

  it('to6DSeries(spin ±720°) is continuous: no step larger than the rotation step allows', () => {
    const frames = 721;
    const h = (8 * Math.PI) / (frames - 1);
    const data = new Float64Array(frames * 4);
    const q = new Float64Array(4);
    for (let f = 0; f < frames; f++) {
      quat.fromAxisAngle(q, [0.3, -0.5, 0.8], -4 * Math.PI + f * h);
      data.set(q, f * 4);
    }
    const six = to6DSeries(quatSeries(data, frames, 1)).data;
    // Each column is a unit vector turning by at most h per frame: it moves at most 2 sin(h/2) <= h.
    let worst = 0;
    for (let f = 1; f < frames; f++) {
      for (let c = 0; c < 6; c += 3) {
        const d = Math.hypot(
          six[f * 6 + c] - six[f * 6 + c - 6],
          six[f * 6 + c + 1] - six[f * 6 + c - 5],
          six[f * 6 + c + 2] - six[f * 6 + c - 4],
        );
        worst = Math.max(worst, d);
      }
    }
    expect(worst).toBeLessThanOrEqual(h + 1e-12);
  });

  it('the series conversions on 0, 1 and 2 frames, Float32 input and out', () => {
    expect(toMatrixSeries(createQuatSeries(0, 4)).data.length).toBe(0);
    expect(from6DSeries({ data: new Float64Array(0), frames: 0, joints: 3 }).data.length).toBe(0);
    const one = to6DSeries(createQuatSeries(1, 1)).data;
    expect(Array.from(one)).toEqual([1, 0, 0, 0, 1, 0]);
    const two = quatSeries(Float32Array.of(0, 0, 0.6, 0.8, 0, 0, -0.6, -0.8), 2, 1);
    const out = new Float32Array(18);
    expect(toMatrixSeries(two, { out }).data).toBe(out);
    const back = fromMatrixSeries({ data: out, frames: 2, joints: 1 }).data;
    expect(back).toBeInstanceOf(Float64Array);
    expect(Math.abs(back[6] - 0.6)).toBeLessThan(1e-6);
    expect(Math.abs(back[7] - 0.8)).toBeLessThan(1e-6);
  });

  it('the series conversions throw InvalidValueError naming frame and joint, ShapeError and OptionError', () => {
    const q = createQuatSeries(3, 2);
    q.data[(2 * 2 + 1) * 4] = Number.NaN;
    const m = toMatrixSeries(createQuatSeries(3, 2));
    m.data[(1 * 2 + 0) * 9 + 4] = -1; // a reflection
    const six = to6DSeries(createQuatSeries(3, 2));
    six.data.fill(0, (2 * 2 + 1) * 6, (2 * 2 + 1) * 6 + 3); // zero first column
    const cases: [() => unknown, number, number][] = [
      [() => toMatrixSeries(q), 2, 1],
      [() => to6DSeries(q), 2, 1],
      [() => fromMatrixSeries(m), 1, 0],
      [() => from6DSeries(six), 2, 1],
    ];
    for (const [call, frame, joint] of cases) {
      try {
        call();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame, joint });
      }
    }
    expect(() => toMatrixSeries(createQuatSeries(2, 1), { out: new Float64Array(9) })).toThrow(ShapeError);
    expect(() => fromMatrixSeries({ data: new Float64Array(10), frames: 1, joints: 1 })).toThrow(ShapeError);
    expect(() => from6DSeries(to6DSeries(createQuatSeries(1, 1)), { sign: 'up' as 'hemisphere' })).toThrow(
      OptionError,
    );
  });
});
