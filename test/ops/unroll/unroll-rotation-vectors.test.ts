import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { unrollRotationVectors } from '../../../src/ops/unroll/unroll-rotation-vectors.js';
import * as quat from '../../../src/quat/index.js';
import { vec3Series } from '../../../src/series/create.js';
import { quatDistance, vec3 } from '../../support/arbitraries.js';

const TWO_PI = 2 * Math.PI;

/** Principal rotation vectors (|v| <= π) of `rotation(f)` for every frame. */
function principal(frames: number, rotation: (q: Float64Array, f: number) => void): Float64Array {
  const v = new Float64Array(frames * 3);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    rotation(q, f);
    quat.toRotationVectorFlat(v, f * 3, q, 0);
  }
  return v;
}

function sameRotations(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const qa = new Float64Array(4);
  const qb = new Float64Array(4);
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) {
    quat.fromRotationVectorFlat(qa, 0, a, i);
    quat.fromRotationVectorFlat(qb, 0, b, i);
    worst = Math.max(worst, quatDistance(qa, qb));
  }
  return worst;
}

const step = (v: ArrayLike<number>, f: number) =>
  Math.hypot(v[f * 3] - v[f * 3 - 3], v[f * 3 + 1] - v[f * 3 - 2], v[f * 3 + 2] - v[f * 3 - 1]);

describe('unrollRotationVectors(vectors, options)', () => {
  it('unrollRotationVectors(spin −720°..+720° about one axis, { initial }) is one straight line, no jumps', () => {
    const frames = 721;
    const h = (4 * TWO_PI) / (frames - 1);
    for (const axis of [
      [1, 0, 0],
      [0, 0, 1],
      [0.6, -0.8, 0],
    ]) {
      const v = principal(frames, (q, f) => quat.fromAxisAngle(q, axis, -2 * TWO_PI + f * h));
      const { vectors, jumps } = unrollRotationVectors(v, { initial: axis.map((a) => a * -2 * TWO_PI) });
      expect(jumps).toEqual([]);
      for (let f = 0; f < frames; f++) {
        const expected = -2 * TWO_PI + f * h;
        for (let k = 0; k < 3; k++)
          expect(Math.abs(vectors[f * 3 + k] - axis[k] * expected)).toBeLessThan(1e-9);
      }
      expect(sameRotations(vectors, v)).toBeLessThan(1e-12);
    }
  });

  it('unrollRotationVectors(spin ±720° with a wobble off its axis) jumps only at the 2π shells, and reports those frames', () => {
    const frames = 1441;
    const h = (4 * TWO_PI) / (frames - 1);
    const spinAngle = (f: number) => -2 * TWO_PI + f * h;
    const qa = new Float64Array(4);
    const qb = new Float64Array(4);
    const v = principal(frames, (q, f) => {
      quat.fromAxisAngle(qa, [1, 0, 0], spinAngle(f));
      quat.fromAxisAngle(qb, [0, 1, 0], 0.15 * Math.sin(0.013 * f + 0.4));
      quat.multiply(q, qa, qb);
    });
    const { vectors, jumps } = unrollRotationVectors(v);
    expect(sameRotations(vectors, v)).toBeLessThan(1e-12);
    expect(jumps.length).toBeGreaterThan(0);
    const shells = new Set<number>();
    for (const j of jumps) {
      // Each reported step starts or ends next to a shell |v| = 2πk (k >= 1) ...
      const m0 = Math.hypot(vectors[j.frame * 3 - 3], vectors[j.frame * 3 - 2], vectors[j.frame * 3 - 1]);
      const m1 = Math.hypot(vectors[j.frame * 3], vectors[j.frame * 3 + 1], vectors[j.frame * 3 + 2]);
      const k = Math.round(Math.max(m0, m1) / TWO_PI);
      expect(k).toBeGreaterThanOrEqual(1);
      expect(Math.min(Math.abs(m0 - TWO_PI * k), Math.abs(m1 - TWO_PI * k))).toBeLessThan(0.5);
      // ... while the rotation itself moved by one small step near the identity.
      expect(j.angle).toBeLessThan(0.05);
      const a = spinAngle(j.frame);
      expect(Math.abs(a - TWO_PI * Math.round(a / TWO_PI))).toBeLessThan(0.5);
      expect(j.step).toBeGreaterThan(j.angle + 0.25);
      expect(j.step).toBeCloseTo(step(vectors, j.frame), 12);
      shells.add(k);
    }
    // Away from the reported frames the vector moves no more than a few times the rotation step.
    const reported = new Set(jumps.map((j) => j.frame));
    for (let f = 1; f < frames; f++) if (!reported.has(f)) expect(step(vectors, f)).toBeLessThan(h + 0.25);
    expect(shells.size).toBeGreaterThanOrEqual(1);
  });

  it('unrollRotationVectors(Vec3Series) unrolls joints independently; flat input gives a Float64Array', () => {
    const v = new Float64Array([3, 0, 0, 0, 0, 1, -3, 0, 0, 0, 0, 1.1]);
    const r = unrollRotationVectors(vec3Series(v, 2, 2));
    expect(r.vectors.frames).toBe(2);
    expect(r.vectors.joints).toBe(2);
    const d = r.vectors.data;
    expect(d[6]).toBeCloseTo(TWO_PI - 3, 14);
    expect(Array.from(d.subarray(9))).toEqual([0, 0, 1.1]);
    const flat = unrollRotationVectors(Float64Array.of(3, 0, 0, -3, 0, 0)).vectors;
    expect(flat).toBeInstanceOf(Float64Array);
    expect(flat[3]).toBeCloseTo(TWO_PI - 3, 14);
  });

  it('unrollRotationVectors on 0, 1 and 2 frames, zero vectors, Float32 and in place', () => {
    expect(unrollRotationVectors(new Float64Array(0)).vectors.length).toBe(0);
    expect(Array.from(unrollRotationVectors(Float64Array.of(0.5, 0, 0)).vectors)).toEqual([0.5, 0, 0]);
    const shifted = unrollRotationVectors(Float64Array.of(0.5, 0, 0), { initial: [TWO_PI, 0, 0] }).vectors;
    expect(shifted[0]).toBeCloseTo(0.5 + TWO_PI, 14);
    // The identity after a full turn stays on the shell, along the previous axis.
    const id = unrollRotationVectors(Float32Array.of(0, 0, 6.2, 0, 0, 0)).vectors;
    expect(id[5]).toBeCloseTo(TWO_PI, 6);
    const a = Float64Array.of(3, 0, 0, -3, 0, 0);
    expect(unrollRotationVectors(a, { out: a }).vectors).toBe(a);
    expect(a[3]).toBeCloseTo(TWO_PI - 3, 14);
  });

  it('unrollRotationVectors throws InvalidValueError naming frame and joint, ShapeError and OptionError', () => {
    const v = new Float64Array(3 * 2 * 3);
    v[(2 * 2 + 1) * 3 + 1] = Number.NaN;
    try {
      unrollRotationVectors(vec3Series(v, 3, 2));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location).toEqual({ frame: 2, joint: 1 });
    }
    expect(() => unrollRotationVectors(new Float64Array(4))).toThrow(ShapeError);
    expect(() => unrollRotationVectors(new Float64Array(3), { initial: [1] })).toThrow(ShapeError);
    expect(() => unrollRotationVectors(new Float64Array(3), { out: new Float64Array(6) })).toThrow(
      ShapeError,
    );
    expect(() => unrollRotationVectors(new Float64Array(3), { jumpTolerance: -1 })).toThrow(OptionError);
  });

  it('unrollRotationVectors keeps every rotation and is idempotent (property)', () => {
    fc.assert(
      fc.property(fc.array(vec3(12), { minLength: 0, maxLength: 30 }), (items) => {
        const v = new Float64Array(items.length * 3);
        for (let f = 0; f < items.length; f++) v.set(items[f], f * 3);
        const once = unrollRotationVectors(v).vectors;
        const twice = unrollRotationVectors(once).vectors;
        for (let i = 0; i < once.length; i++) expect(Math.abs(twice[i] - once[i])).toBeLessThan(1e-12);
        expect(sameRotations(once, v)).toBeLessThan(1e-9);
      }),
      { numRuns: 300 },
    );
  });
});
