import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { findDiscontinuities } from '../../../src/ops/analysis/find-discontinuities.js';
import { unrollEuler } from '../../../src/ops/unroll/unroll-euler.js';
import { unrollQuaternions } from '../../../src/ops/unroll/unroll-quaternions.js';
import type { EulerOrder } from '../../../src/quat/euler.js';
import * as quat from '../../../src/quat/index.js';
import { createQuatSeries, quatSeries, vec3Series } from '../../../src/series/create.js';
import { readFixture } from '../../support/shared-data.js';

const fixture = readFixture<{
  cases: { order: EulerOrder; frames: number; truth: number[]; wrapped: number[] }[];
}>('unroll.json');

/** A slow spin about a tilted axis (0.02 rad per frame), two joints, signs forced to w >= 0. */
function smooth(frames: number): Float64Array {
  const data = new Float64Array(frames * 2 * 4);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < 2; j++) {
      quat.fromAxisAngle(q, [1, j, 0.5], 0.02 * f + j);
      data.set(q, (f * 2 + j) * 4);
    }
  }
  unrollQuaternions(quatSeries(data, frames, 2));
  return data;
}

describe('findDiscontinuities(series, options) on quaternions', () => {
  it('findDiscontinuities finds injected sign flips and a real jump, frame and joint, nothing else', () => {
    const frames = 60;
    const data = smooth(frames);
    // Sign flips: joint 1 from frame 10 on (one flip at 10), joint 0 at frame 30 only (flips at 30 and 31).
    for (let f = 10; f < frames; f++) for (let k = 0; k < 4; k++) data[(f * 2 + 1) * 4 + k] *= -1;
    for (let k = 0; k < 4; k++) data[30 * 2 * 4 + k] *= -1;
    // A real jump: joint 0 turned by 1 rad about z at frame 45 only.
    const jump = quat.fromAxisAngle(new Float64Array(4), [0, 0, 1], 1);
    const at = data.subarray(45 * 2 * 4, 45 * 2 * 4 + 4);
    quat.multiply(at, jump, at.slice());
    const found = findDiscontinuities(quatSeries(data, frames, 2), { rate: 30 });
    expect(found.map((d) => [d.frame, d.joint, d.kind])).toEqual([
      [10, 1, 'sign-flip'],
      [30, 0, 'sign-flip'],
      [31, 0, 'sign-flip'],
      [45, 0, 'jump'],
      [46, 0, 'jump'],
    ]);
    expect(found[0].angle).toBeCloseTo(0.02, 12);
    expect(found[3].angle).toBeGreaterThan(0.9);
  });

  it('findDiscontinuities threshold is maxAngularSpeed / rate unless given', () => {
    const frames = 3;
    const data = new Float64Array(frames * 4);
    const q = new Float64Array(4);
    for (let f = 0; f < frames; f++) data.set(quat.fromAxisAngle(q, [0, 1, 0], 0.5 * f), f * 4);
    const s = quatSeries(data, frames, 1);
    // 0.5 rad per frame: 15 rad/s at 30 Hz (under the 25 rad/s default), 60 rad/s at 120 Hz.
    expect(findDiscontinuities(s, { rate: 30 })).toEqual([]);
    expect(findDiscontinuities(s).length).toBe(0);
    expect(findDiscontinuities(s, { rate: 120 }).map((d) => d.kind)).toEqual(['jump', 'jump']);
    expect(findDiscontinuities(s, { rate: 30, maxAngularSpeed: 10 }).length).toBe(2);
    expect(findDiscontinuities(s, { rate: 120, threshold: 0.6 })).toEqual([]);
  });

  it('findDiscontinuities on 0, 1 and 2 frames', () => {
    expect(findDiscontinuities(createQuatSeries(0, 3))).toEqual([]);
    expect(findDiscontinuities(createQuatSeries(1, 3))).toEqual([]);
    const two = quatSeries(Float64Array.of(0, 0, 0, 1, 0, 0, 0, -1), 2, 1);
    expect(findDiscontinuities(two)).toEqual([{ frame: 1, joint: 0, angle: 0, kind: 'sign-flip' }]);
  });

  it('findDiscontinuities throws InvalidValueError naming frame and joint, OptionError and ShapeError', () => {
    for (const bad of [Number.NaN, 0]) {
      const s = createQuatSeries(4, 3);
      if (bad === 0) s.data[(3 * 3 + 2) * 4 + 3] = 0;
      else s.data[(3 * 3 + 2) * 4 + 1] = bad;
      try {
        findDiscontinuities(s);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame: 3, joint: 2 });
      }
    }
    expect(() => findDiscontinuities(createQuatSeries(2, 1), { rate: 0 })).toThrow(OptionError);
    expect(() => findDiscontinuities(createQuatSeries(2, 1), { maxAngularSpeed: -1 })).toThrow(OptionError);
    expect(() => findDiscontinuities(createQuatSeries(2, 1), { threshold: Number.NaN })).toThrow(OptionError);
    expect(() => findDiscontinuities(createQuatSeries(2, 1), { order: 'ZYX' })).toThrow(ShapeError);
    expect(() =>
      findDiscontinuities(vec3Series(new Float64Array(6), 2, 1), { order: 'QQQ' as EulerOrder }),
    ).toThrow(OptionError);
  });
});

describe('findDiscontinuities(curves, { order }) on Euler curves', () => {
  it('findDiscontinuities reports a ±180° wrap as euler-wrap with the channel step', () => {
    const deg = Math.PI / 180;
    const e = Float64Array.from([170, 10, 5, 178, 11, 5, -175, 12, 5, -168, 13, 5].map((v) => v * deg));
    const found = findDiscontinuities(vec3Series(e, 4, 1), { order: 'ZXY' });
    expect(found.length).toBe(1);
    expect(found[0].frame).toBe(2);
    expect(found[0].kind).toBe('euler-wrap');
    expect(found[0].angle).toBeCloseTo(353 * deg, 12);
  });

  it("findDiscontinuities reports SciPy's branch switches as euler-branch, and none after unrollEuler", () => {
    for (const c of fixture.cases) {
      const wrapped = vec3Series(Float64Array.from(c.wrapped), c.frames, 1);
      const found = findDiscontinuities(wrapped, { order: c.order });
      // Where the principal value leaves the truth's branch between two frames, a branch switch is reported.
      const proper = c.order[0] === c.order[2];
      const expected: number[] = [];
      for (let f = 1; f < c.frames; f++) {
        const branch = (i: number) => {
          const d = c.wrapped[i * 3 + 1] - c.truth[i * 3 + 1];
          return Math.abs(d - 2 * Math.PI * Math.round(d / (2 * Math.PI))) < 1e-6 ? 0 : 1;
        };
        if (branch(f) !== branch(f - 1)) expected.push(f);
      }
      expect(expected.length, c.order).toBeGreaterThan(0);
      const branches = found.filter((d) => d.kind === 'euler-branch').map((d) => d.frame);
      expect(branches, `${c.order} proper=${proper}`).toEqual(expected);
      expect(found.every((d) => d.kind === 'euler-branch' || d.kind === 'euler-wrap')).toBe(true);
      const un = unrollEuler(wrapped, { order: c.order });
      expect(findDiscontinuities(un, { order: c.order })).toEqual([]);
    }
  });
});

describe('findDiscontinuities(series) classifies pairs at the threshold as the square-root test does', () => {
  /** The pair rule in its square-root form: `|d| / √(|a|²|b|²) < cos(θ/2)`, then the exact angle decides. */
  function reference(data: Float64Array, frames: number, joints: number, threshold: number) {
    const out: { frame: number; joint: number; kind: string }[] = [];
    const cosHalf = Math.cos(threshold / 2);
    for (let f = 1; f < frames; f++) {
      for (let j = 0; j < joints; j++) {
        const a = data.subarray(((f - 1) * joints + j) * 4, ((f - 1) * joints + j) * 4 + 4);
        const b = data.subarray((f * joints + j) * 4, (f * joints + j) * 4 + 4);
        const d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        const na = a[0] ** 2 + a[1] ** 2 + a[2] ** 2 + a[3] ** 2;
        const nb = b[0] ** 2 + b[1] ** 2 + b[2] ** 2 + b[3] ** 2;
        const isJump = Math.abs(d / Math.sqrt(na * nb)) < cosHalf;
        if (!isJump && d >= 0) continue;
        const angle = quat.angle(Float64Array.from(a), Float64Array.from(b));
        const kind = angle > threshold ? 'jump' : d < 0 ? 'sign-flip' : null;
        if (kind !== null) out.push({ frame: f, joint: j, kind });
      }
    }
    return out;
  }

  it('on steps within 1e-15 to 1e-6 of the threshold, both signs, norms from 1e-3 to 1e3', () => {
    const threshold = 0.2;
    const joints = 7;
    const frames = 400;
    const data = new Float64Array(frames * joints * 4);
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const q = new Float64Array(4);
    for (let j = 0; j < joints; j++) {
      let turned = rand() * 3;
      for (let f = 0; f < frames; f++) {
        // a step at the threshold times (1 ± 10^-k), k from 6 to 15, or an ordinary small step
        const near = rand() < 0.7;
        const rel = (rand() < 0.5 ? -1 : 1) * 10 ** -(6 + Math.floor(rand() * 10));
        turned += near ? threshold * (1 + rel) : rand() * 0.05;
        // turned about the unit axis (0.3, 1, 0.2·j) / |…|
        const n = Math.hypot(0.3, 1, 0.2 * j);
        const sh = Math.sin(turned / 2) / n;
        q[0] = 0.3 * sh;
        q[1] = sh;
        q[2] = 0.2 * j * sh;
        q[3] = Math.cos(turned / 2);
        const scale = 10 ** (rand() * 6 - 3) * (rand() < 0.2 ? -1 : 1);
        for (let c = 0; c < 4; c++) data[(f * joints + j) * 4 + c] = q[c] * scale;
      }
    }
    const found = findDiscontinuities(quatSeries(data, frames, joints), { threshold });
    const expected = reference(data, frames, joints, threshold);
    expect(expected.filter((e) => e.kind === 'jump').length).toBeGreaterThan(100);
    expect(found.map(({ frame, joint, kind }) => ({ frame, joint, kind }))).toEqual(
      [...expected].sort((x, y) => x.frame - y.frame || x.joint - y.joint),
    );
  });

  it('names the first zero or non-finite quaternion in frame order, wherever the scan meets one', () => {
    const s = createQuatSeries(6, 3);
    s.data[(5 * 3 + 0) * 4 + 3] = 0; // frame 5, joint 0: zero
    s.data[(2 * 3 + 2) * 4 + 1] = Number.NaN; // frame 2, joint 2: NaN, the first in order
    expect(() => findDiscontinuities(s)).toThrow(/frame 2, joint 2/);
    const z = createQuatSeries(3, 2);
    z.data.fill(0, 4, 8); // frame 0, joint 1
    expect(() => findDiscontinuities(z)).toThrow(
      /zero or non-finite quaternion \(0, 0, 0, 0\) at frame 0, joint 1/,
    );
  });
});
