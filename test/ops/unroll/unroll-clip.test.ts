import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import { parseBvh, writeBvh } from '../../../src/io/index.js';
import { findDiscontinuities } from '../../../src/ops/analysis/find-discontinuities.js';
import { eulerFromQuatSeries } from '../../../src/ops/unroll/euler-from-quat-series.js';
import { clipEulerCurves, unrollClip } from '../../../src/ops/unroll/unroll-clip.js';
import * as quat from '../../../src/quat/index.js';
import { quatDistance } from '../../support/arbitraries.js';
import { rotatingJoints, sourceEulerCurves } from '../../support/bvh-channels.js';
import { eulerStepBound } from '../../support/euler-steps.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

/** A two-joint BVH with the given motion rows (ZXY like the Bandai files). */
function tinyBvh(rows: string[]): string {
  return [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 0 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '  JOINT Spine',
    '  {',
    '    OFFSET 0 10 0',
    '    CHANNELS 3 Zrotation Xrotation Yrotation',
    '    End Site',
    '    {',
    '      OFFSET 0 10 0',
    '    }',
    '  }',
    '}',
    'MOTION',
    `Frames: ${rows.length}`,
    'Frame Time: 0.0333333',
    ...rows,
    '',
  ].join('\n');
}

const dotAt = (d: ArrayLike<number>, i: number, k: number) =>
  d[i] * d[k] + d[i + 1] * d[k + 1] + d[i + 2] * d[k + 2] + d[i + 3] * d[k + 3];

describe('unrollClip(clip, options)', () => {
  it('unrollClip(clip) returns a new clip whose quaternions have no sign flips and the same rotations', () => {
    const clip = parseBvh(
      tinyBvh(['0 0 0 10 20 30 0 0 0', '0 0 0 190 20 30 0 0 180', '0 0 0 370 20 30 0 0 360']),
    );
    const before = clip.rotations.data.slice();
    const un = unrollClip(clip);
    expect(un).not.toBe(clip);
    expect(un.skeleton).toBe(clip.skeleton);
    expect(clip.rotations.data).toEqual(before);
    const d = un.rotations.data;
    for (let k = 0; k < d.length / 4; k++) {
      expect(quatDistance(d.subarray(k * 4, k * 4 + 4), before.subarray(k * 4, k * 4 + 4))).toBe(0);
      if (k >= 2) expect(dotAt(d, k * 4, (k - 2) * 4)).toBeGreaterThan(0);
    }
    expect(findDiscontinuities(un.rotations).filter((x) => x.kind === 'sign-flip')).toEqual([]);
  });

  it("unrollClip(clip, { target: 'in-place' }) unrolls clip.rotations where it is", () => {
    const clip = parseBvh(tinyBvh(['0 0 0 10 20 30 0 0 0', '0 0 0 190 20 30 0 0 180']));
    const data = clip.rotations.data;
    expect(unrollClip(clip, { target: 'in-place' })).toBe(clip);
    expect(clip.rotations.data).toBe(data);
    expect(dotAt(data, 8, 0)).toBeGreaterThan(0);
    expect(() => unrollClip(clip, { target: 'elsewhere' as 'copy' })).toThrow(OptionError);
  });

  it('unrollClip and clipEulerCurves on 0, 1 and 2 frames', () => {
    for (const rows of [[], ['0 0 0 10 20 30 0 0 -90'], ['0 0 0 179 0 0 0 0 0', '0 0 0 -179 0 0 0 0 0']]) {
      const clip = parseBvh(tinyBvh(rows));
      expect(unrollClip(clip).frames).toBe(rows.length);
      const e = clipEulerCurves(clip);
      expect(e.frames).toBe(rows.length);
      if (rows.length === 2) expect(e.data[6]).toBeCloseTo((181 * Math.PI) / 180, 12);
    }
  });

  it('unrollClip throws InvalidValueError naming frame and joint for a NaN rotation', () => {
    const clip = parseBvh(tinyBvh(['0 0 0 0 0 0 0 0 0', '0 0 0 0 0 0 0 0 0']));
    clip.rotations.data[(1 * 2 + 1) * 4 + 2] = Number.NaN;
    for (const call of [() => unrollClip(clip), () => clipEulerCurves(clip)]) {
      try {
        call();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame: 1, joint: 1 });
      }
    }
  });

  it('clipEulerCurves(clip, initial) is eulerFromQuatSeries in each joint order', () => {
    const clip = parseBvh(tinyBvh(['0 0 0 170 20 30 0 0 0', '0 0 0 -170 20 30 0 0 10']));
    const initial = [0, 0, 0, 0, 0, 2 * Math.PI];
    const a = clipEulerCurves(clip, initial).data;
    const b = eulerFromQuatSeries(clip.rotations, clip.orders, { initial }).data;
    expect(a).toEqual(b);
    expect(a[5]).toBeCloseTo(2 * Math.PI, 12);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('writeBvh with the equivalent-triple filter on real data', () => {
  it('writeBvh(parseBvh(Bandai dance)) writes no channel jump larger than the motion implies', () => {
    const clip = parseBvh(readSharedBvh('bandai-namco/dataset-1_dance-short_normal_001.bvh'));
    const text = writeBvh(clip);
    const written = parseBvh(text);
    const curves = sourceEulerCurves(text, written);
    const J = clip.rotations.joints;
    let worstRatio = 0;
    let largest = 0;
    let biggestStep = 0;
    for (const j of rotatingJoints(clip)) {
      const order = clip.orders[j];
      for (let k = 0; k < 3; k++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (let f = 0; f < clip.frames; f++) {
          lo = Math.min(lo, curves[(f * J + j) * 3 + k]);
          hi = Math.max(hi, curves[(f * J + j) * 3 + k]);
        }
        largest = Math.max(largest, hi - lo);
      }
      for (let f = 1; f < clip.frames; f++) {
        const i = (f * J + j) * 3;
        const p = i - J * 3;
        // The motion between the two frames, from the clip the writer was given.
        const theta = quat.angle(
          clip.rotations.data.subarray((f - 1) * J * 4 + j * 4, (f - 1) * J * 4 + j * 4 + 4),
          clip.rotations.data.subarray(f * J * 4 + j * 4, f * J * 4 + j * 4 + 4),
        );
        const bound = eulerStepBound(theta, curves[p + 1], curves[i + 1], order[0] === order[2]) + 1e-6;
        for (let k = 0; k < 3; k++) {
          const step = Math.abs(curves[i + k] - curves[p + k]);
          worstRatio = Math.max(worstRatio, step / bound);
          biggestStep = Math.max(biggestStep, step);
        }
      }
    }
    expect(worstRatio).toBeLessThanOrEqual(1);
    expect(biggestStep).toBeLessThan(Math.PI); // no ±180° wraps left
    expect(largest).toBeGreaterThan(3 * 2 * Math.PI); // multi-turn kept: a channel spans more than 3 turns
    expect(
      findDiscontinuities(
        { data: curves, frames: clip.frames, joints: J },
        { order: clip.orders, rate: clip.rate },
      ).filter((d) => d.kind !== 'jump'),
    ).toEqual([]);
  });
});
