import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { unrollQuaternions } from '../../../src/ops/unroll/unroll-quaternions.js';
import * as quat from '../../../src/quat/index.js';
import { quatSeries } from '../../../src/series/create.js';
import { unitQuat } from '../../support/arbitraries.js';

/** A spin of `total` radians about `axis` in `frames` equal steps, one joint, signs as fromAxisAngle gives. */
function spin(axis: number[], total: number, frames: number): Float64Array {
  const data = new Float64Array(frames * 4);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    quat.fromAxisAngle(q, axis, -total / 2 + (total * f) / (frames - 1));
    data.set(q, f * 4);
  }
  return data;
}

/** True when the quaternion at `i` of `a` is exactly the one of `b` or its negation. */
function sameUpToSign(a: ArrayLike<number>, b: ArrayLike<number>, i: number): boolean {
  let plus = true;
  let minus = true;
  for (let k = 0; k < 4; k++) {
    plus &&= a[i + k] === b[i + k];
    minus &&= a[i + k] === -b[i + k];
  }
  return plus || minus;
}

const dotAt = (d: ArrayLike<number>, i: number, k: number) =>
  d[i] * d[k] + d[i + 1] * d[k + 1] + d[i + 2] * d[k + 2] + d[i + 3] * d[k + 3];

describe('unrollQuaternions(series, { out? })', () => {
  it('unrollQuaternions(spin through ±720°) gives consecutive dots > 0 and the same rotations', () => {
    for (const axis of [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
      [0.3, -0.5, 0.8],
    ]) {
      const raw = spin(axis, 4 * Math.PI * 2, 721); // -720° .. +720°, 4° steps
      // Scramble signs so the input has flips everywhere.
      for (let f = 0; f < 721; f++) if (f % 3 === 1) for (let k = 0; k < 4; k++) raw[f * 4 + k] *= -1;
      const before = raw.slice();
      const s = unrollQuaternions(quatSeries(raw, 721, 1));
      expect(s.data).toBe(raw);
      expect(raw[3]).toBeGreaterThanOrEqual(0);
      for (let f = 1; f < 721; f++) expect(dotAt(raw, f * 4, (f - 1) * 4)).toBeGreaterThan(0);
      for (let i = 0; i < raw.length; i += 4) expect(sameUpToSign(raw, before, i)).toBe(true);
    }
  });

  it('unrollQuaternions(series) on a wheel goes up and comes back every 720° (double cover)', () => {
    // The unrolled w of a steady spin is cos(θ/2): it passes through -1 at 360° and returns to +1 at 720°.
    const data = spin([0, 0, 1], 4 * Math.PI, 361);
    unrollQuaternions(quatSeries(data, 361, 1));
    const w = (f: number) => data[f * 4 + 3];
    expect(w(0)).toBeCloseTo(1, 12);
    expect(w(180)).toBeCloseTo(-1, 12);
    expect(w(360)).toBeCloseTo(1, 12);
  });

  it('unrollQuaternions(series, { out }) leaves series alone and handles many joints independently', () => {
    const frames = 50;
    const joints = 3;
    const data = new Float64Array(frames * joints * 4);
    const q = new Float64Array(4);
    for (let f = 0; f < frames; f++) {
      for (let j = 0; j < joints; j++) {
        quat.fromAxisAngle(q, [j, 1, 0.5], 0.2 * f * (j + 1));
        const s = (f * 7 + j) % 2 === 0 ? 1 : -1;
        for (let k = 0; k < 4; k++) data[(f * joints + j) * 4 + k] = s * q[k];
      }
    }
    const copy = data.slice();
    const out = quatSeries(new Float32Array(data.length), frames, joints);
    const r = unrollQuaternions(quatSeries(data, frames, joints), { out });
    expect(r).toBe(out);
    expect(data).toEqual(copy);
    for (let f = 1; f < frames; f++) {
      for (let j = 0; j < joints; j++) {
        expect(dotAt(out.data, (f * joints + j) * 4, ((f - 1) * joints + j) * 4)).toBeGreaterThan(0);
      }
    }
    for (let j = 0; j < joints; j++) expect(out.data[j * 4 + 3]).toBeGreaterThanOrEqual(0);
  });

  it("unrollQuaternions(series, { first: 'keep' }) keeps the first frame's sign", () => {
    const data = new Float64Array([0, 0, 0.1, -0.995, 0, 0, -0.2, 0.98]);
    unrollQuaternions(quatSeries(data, 2, 1), { first: 'keep' });
    expect(Array.from(data)).toEqual([0, 0, 0.1, -0.995, -0, -0, 0.2, -0.98]);
    expect(() => unrollQuaternions(quatSeries(data, 2, 1), { first: 'x' as 'keep' })).toThrow(OptionError);
  });

  it('unrollQuaternions on 0, 1 and 2 frames', () => {
    expect(unrollQuaternions(quatSeries(new Float64Array(0), 0, 5)).data.length).toBe(0);
    expect(unrollQuaternions(quatSeries(new Float64Array(0), 3, 0)).data.length).toBe(0);
    const one = new Float64Array([0.1, 0.2, 0.3, -0.927]);
    unrollQuaternions(quatSeries(one, 1, 1));
    expect(Array.from(one)).toEqual([-0.1, -0.2, -0.3, 0.927]);
    const two = new Float64Array([0, 0, 0, 1, 0, 0, -0.1, -0.995]);
    const s2 = quatSeries(two, 2, 1);
    expect(unrollQuaternions(s2, { out: s2 })).toBe(s2); // out === series is in place
    expect(Array.from(two)).toEqual([0, 0, 0, 1, -0, -0, 0.1, 0.995]);
  });

  it('unrollQuaternions throws InvalidValueError naming frame and joint for NaN and Infinity, in place and to out', () => {
    for (const [frame, joint, value] of [
      [0, 1, Number.NaN],
      [2, 0, Number.NaN],
      [3, 1, Number.POSITIVE_INFINITY],
    ] as const) {
      const data = new Float64Array(4 * 2 * 4);
      for (let i = 3; i < data.length; i += 4) data[i] = 1;
      data[(frame * 2 + joint) * 4 + 1] = value;
      for (const out of [undefined, quatSeries(new Float64Array(data.length), 4, 2)]) {
        try {
          unrollQuaternions(quatSeries(data.slice(), 4, 2), { out });
          expect.unreachable();
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidValueError);
          expect((e as InvalidValueError).location).toEqual({ frame, joint });
        }
      }
    }
  });

  it('unrollQuaternions rejects a malformed series or an out of another shape with ShapeError', () => {
    expect(() => unrollQuaternions({ data: new Float64Array(7), frames: 2, joints: 1 })).toThrow(ShapeError);
    const s = quatSeries(new Float64Array(8), 2, 1);
    expect(() => unrollQuaternions(s, { out: quatSeries(new Float64Array(8), 1, 2) })).toThrow(ShapeError);
  });

  it('unrollQuaternions keeps every rotation and is idempotent (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(unitQuat, fc.boolean()), { minLength: 0, maxLength: 40 }), (items) => {
        const n = items.length;
        const data = new Float64Array(n * 4);
        items.forEach(([q, flip], f) => {
          for (let k = 0; k < 4; k++) data[f * 4 + k] = flip ? -q[k] : q[k];
        });
        const once = unrollQuaternions(quatSeries(data.slice(), n, 1)).data;
        const twice = unrollQuaternions(quatSeries(once.slice(), n, 1)).data;
        expect(twice).toEqual(once);
        for (let f = 0; f < n; f++) {
          expect(sameUpToSign(once, data, f * 4)).toBe(true);
          if (f > 0) expect(dotAt(once, f * 4, (f - 1) * 4)).toBeGreaterThanOrEqual(0);
        }
        if (n > 0) expect(once[3]).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });
});
