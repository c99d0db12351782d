import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { findDiscontinuities } from '../../../src/ops/analysis/find-discontinuities.js';
import { eulerFromQuatSeries } from '../../../src/ops/unroll/euler-from-quat-series.js';
import { unrollEuler } from '../../../src/ops/unroll/unroll-euler.js';
import type { EulerOrder } from '../../../src/quat/euler.js';
import * as quat from '../../../src/quat/index.js';
import { quatSeries, vec3Series } from '../../../src/series/create.js';
import { rotatingJoints, sourceEulerCurves } from '../../support/bvh-channels.js';
import { eulerStepBound, lockDistance } from '../../support/euler-steps.js';
import { HAS_SHARED_BVH, readFixture, readSharedBvh } from '../../support/shared-data.js';

interface UnrollCase {
  order: EulerOrder;
  frames: number;
  truth: number[];
  quats: number[];
  wrapped: number[];
}
const fixture = readFixture<{ cases: UnrollCase[] }>('unroll.json');

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

describe('eulerFromQuatSeries(series, order, options) against SciPy (all 24 sequences)', () => {
  it('eulerFromQuatSeries(from_euler(truth), order, { initial: truth[0] }) returns the multi-turn truth to 1e-9', () => {
    for (const c of fixture.cases) {
      const s = quatSeries(Float64Array.from(c.quats), c.frames, 1);
      const e = eulerFromQuatSeries(s, c.order, { initial: c.truth.slice(0, 3) });
      expect(e.frames).toBe(c.frames);
      expect(e.joints).toBe(1);
      expect(maxAbsDiff(e.data, c.truth), c.order).toBeLessThan(1e-9);
    }
  });

  it("eulerFromQuatSeries(series, order, { unroll: 'none' }) equals SciPy's as_euler frame by frame", () => {
    for (const c of fixture.cases) {
      const s = quatSeries(Float64Array.from(c.quats), c.frames, 1);
      const e = eulerFromQuatSeries(s, c.order, { unroll: 'none' });
      expect(maxAbsDiff(e.data, c.wrapped), c.order).toBeLessThan(1e-9);
    }
  });

  it('eulerFromQuatSeries ignores quaternion signs', () => {
    const c = fixture.cases.find((k) => k.order === 'zyx')!;
    const q = Float64Array.from(c.quats);
    for (let i = 0; i < q.length; i += 8) for (let k = 0; k < 4; k++) q[i + k] = -q[i + k];
    const e = eulerFromQuatSeries(quatSeries(q, c.frames, 1), 'zyx', { initial: c.truth.slice(0, 3) });
    expect(maxAbsDiff(e.data, c.truth)).toBeLessThan(1e-9);
  });

  it('eulerFromQuatSeries on 0, 1 and 2 frames, per-joint orders and Float32 input', () => {
    expect(eulerFromQuatSeries(quatSeries(new Float64Array(0), 0, 3), 'ZYX').data.length).toBe(0);
    const one = quatSeries(Float32Array.of(0, 0, 1, 0), 1, 1); // 180° about z
    const e1 = eulerFromQuatSeries(one, 'ZYX', { initial: [3 * Math.PI, 0, 0] }).data;
    expect(maxAbsDiff(e1, [3 * Math.PI, 0, 0])).toBeLessThan(1e-12);
    const q = new Float64Array(8 * 2);
    quat.fromEuler(q.subarray(0, 4), [3, 0.2, 0.1], 'ZXY');
    quat.fromEuler(q.subarray(4, 8), [0.1, 2.9, 0.3], 'YZY');
    quat.fromEuler(q.subarray(8, 12), [-3, 0.2, 0.1], 'ZXY');
    quat.fromEuler(q.subarray(12, 16), [0.1, 2.9, 0.3], 'YZY');
    const e2 = eulerFromQuatSeries(quatSeries(q, 2, 2), ['ZXY', 'YZY']).data;
    expect(
      maxAbsDiff(e2, [3, 0.2, 0.1, 0.1, 2.9, 0.3, 2 * Math.PI - 3, 0.2, 0.1, 0.1, 2.9, 0.3]),
    ).toBeLessThan(1e-12);
  });

  it('eulerFromQuatSeries throws InvalidValueError naming frame and joint for NaN or zero quaternions', () => {
    for (const value of [Number.NaN, 0]) {
      const data = new Float64Array(3 * 2 * 4);
      for (let i = 3; i < data.length; i += 4) data[i] = 1;
      if (Number.isNaN(value)) data[(2 * 2 + 1) * 4] = value;
      else data[(2 * 2 + 1) * 4 + 3] = 0;
      try {
        eulerFromQuatSeries(quatSeries(data, 3, 2), 'XYZ');
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame: 2, joint: 1 });
      }
    }
  });

  it('eulerFromQuatSeries rejects bad options with OptionError / ShapeError', () => {
    const s = quatSeries(Float64Array.of(0, 0, 0, 1), 1, 1);
    expect(() => eulerFromQuatSeries(s, 'ABC' as EulerOrder)).toThrow(OptionError);
    expect(() => eulerFromQuatSeries(s, 'ZYX', { unroll: 'yes' as 'none' })).toThrow(OptionError);
    expect(() => eulerFromQuatSeries(s, ['ZYX', 'XYZ'])).toThrow(OptionError);
    expect(() => eulerFromQuatSeries(s, 'ZYX', { initial: [0] })).toThrow(ShapeError);
    expect(() => eulerFromQuatSeries(s, 'ZYX', { out: new Float64Array(2) })).toThrow(ShapeError);
    expect(() => eulerFromQuatSeries({ data: new Float64Array(3), frames: 1, joints: 1 }, 'ZYX')).toThrow(
      ShapeError,
    );
  });
});

describe.skipIf(!HAS_SHARED_BVH)('Euler curves of the shared real BVH files', () => {
  // Files whose source curves are already unrolled (CMU and 005_11 ZYX, Axis Neuron YXZ): BVH Euler ->
  // quaternion -> Euler gives them back, seeded with the source's first frame. Where the source itself is discontinuous the comparison restarts, seeded
  // with the source at that frame: real jumps (CMU's frame 0 is a T-pose, up to 136° from frame 1; 005_11
  // has toe and foot flips), and passages so close to gimbal lock that the source keeps a triple other than
  // the closest (005_11's right hand at frame 11, right after an exact lock: steps of 190°, 22° and 195°
  // where ours are 10°, 22° and 15°; the source returns to our curve at frame 12).
  for (const file of ['cmu/01_01.bvh', 'cmu-iclone/005_11.bvh', 'axis-neuron/test.bvh']) {
    it(`eulerFromQuatSeries(parseBvh(${file}).rotations, orders, { initial: source frame }) reproduces the source curves to 1e-9 rad`, () => {
      const text = readSharedBvh(file);
      const clip = parseBvh(text);
      const J = clip.rotations.joints;
      const frames = clip.frames;
      const source = sourceEulerCurves(text, clip);
      const splits = findDiscontinuities(vec3Series(source, frames, J), {
        order: clip.orders,
        rate: clip.rate,
      });
      // Every Euler-kind split of the source sits where the motion passes so near gimbal lock that the outer
      // angles may swing by 90° or more in one frame: there the closest triple and the source's differ.
      const qa = new Float64Array(4);
      const qb = new Float64Array(4);
      for (const d of splits) {
        if (d.kind === 'jump') continue;
        const order = clip.orders[d.joint];
        const i = (d.frame * J + d.joint) * 3;
        const p = i - J * 3;
        quat.fromEulerFlat(qa, 0, source, p, order);
        quat.fromEulerFlat(qb, 0, source, i, order);
        const bound = eulerStepBound(quat.angle(qa, qb), source[p + 1], source[i + 1], order[0] === order[2]);
        expect(bound, `${d.frame}:${clip.skeleton.names[d.joint]}:${d.kind}`).toBeGreaterThan(Math.PI / 2);
      }
      expect(splits.length).toBeLessThan(0.005 * frames * J);
      if (file.startsWith('cmu-iclone'))
        expect(splits.filter((d) => d.kind === 'euler-branch').length).toBeGreaterThan(0);
      else expect(splits.filter((d) => d.kind !== 'jump')).toEqual([]);
      let worst = 0;
      let largest = 0;
      let locked = 0;
      for (const j of rotatingJoints(clip)) {
        const proper = clip.orders[j][0] === clip.orders[j][2];
        const starts = [0, ...splits.filter((d) => d.joint === j).map((d) => d.frame), frames];
        for (let seg = 0; seg + 1 < starts.length; seg++) {
          const from = starts[seg];
          const n = starts[seg + 1] - from;
          const rot = new Float64Array(n * 4);
          const src = new Float64Array(n * 3);
          for (let f = 0; f < n; f++) {
            rot.set(
              clip.rotations.data.subarray(((from + f) * J + j) * 4, ((from + f) * J + j) * 4 + 4),
              f * 4,
            );
            src.set(source.subarray(((from + f) * J + j) * 3, ((from + f) * J + j) * 3 + 3), f * 3);
          }
          const e = eulerFromQuatSeries(quatSeries(rot, n, 1), clip.orders[j], {
            initial: src.subarray(0, 3),
          }).data;
          for (let i = 0; i < n * 3; i += 3) {
            if (lockDistance(src[i + 1], proper) < 1e-6) {
              // Exactly at gimbal lock (the source writes -90.0000) the rotation fixes only the sum or
              // difference of the outer angles: compare the rotation and the middle angle there.
              locked++;
              quat.fromEulerFlat(qa, 0, src, i, clip.orders[j]);
              quat.fromEulerFlat(qb, 0, e, i, clip.orders[j]);
              worst = Math.max(worst, quat.angle(qa, qb), Math.abs(e[i + 1] - src[i + 1]));
              continue;
            }
            for (let k = 0; k < 3; k++) {
              worst = Math.max(worst, Math.abs(e[i + k] - src[i + k]));
              largest = Math.max(largest, Math.abs(src[i + k]));
            }
          }
        }
      }
      expect(worst).toBeLessThan(1e-9);
      if (file.startsWith('cmu-iclone')) {
        expect(largest).toBeGreaterThan((1240 * Math.PI) / 180); // multi-turn values kept
        expect(locked).toBeGreaterThan(0);
      } else if (file.startsWith('cmu/')) expect(largest).toBeGreaterThan(Math.PI); // past ±180°
    });
  }

  // Files with wraps or gimbal jumps in the source: after unrolling, no channel steps more than the motion implies.
  for (const [file, sourceJumps] of [
    ['bandai-namco/dataset-1_dance-short_normal_001.bvh', 366],
    ['assimp/Boxing_Toes.bvh', 29],
    ['pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh', -1],
  ] as const) {
    it(`unrollEuler(source curves of ${file}) steps no channel more than the geodesic motion implies`, () => {
      const text = readSharedBvh(file);
      const clip = parseBvh(text);
      const J = clip.rotations.joints;
      const frames = clip.frames;
      const source = vec3Series(sourceEulerCurves(text, clip), frames, J);
      const orders = clip.orders;
      // The source's wraps: channel steps over 180° (the shared data README counts them).
      const wrapped = new Set<string>();
      let channelJumps = 0;
      for (let f = 1; f < frames; f++) {
        for (let j = 0; j < J; j++) {
          for (let k = 0; k < 3; k++) {
            const i = (f * J + j) * 3 + k;
            if (Math.abs(source.data[i] - source.data[i - J * 3]) > Math.PI) {
              channelJumps++;
              wrapped.add(`${f}:${j}`);
            }
          }
        }
      }
      if (sourceJumps >= 0) expect(channelJumps).toBe(sourceJumps);
      else expect(channelJumps).toBeGreaterThan(0);
      // findDiscontinuities reports every one of them (as a wrap, a branch switch, or a real jump).
      const found = findDiscontinuities(source, { order: orders, rate: clip.rate });
      const reported = new Set(found.map((d) => `${d.frame}:${d.joint}`));
      for (const key of wrapped) expect(reported.has(key), key).toBe(true);
      const un = unrollEuler(source, { order: orders });
      expect(
        findDiscontinuities(un, { order: orders, rate: clip.rate }).filter((d) => d.kind !== 'jump'),
      ).toEqual([]);
      const qa = new Float64Array(4);
      const qb = new Float64Array(4);
      let worstRatio = 0;
      for (const j of rotatingJoints(clip)) {
        const proper = orders[j][0] === orders[j][2];
        for (let f = 1; f < frames; f++) {
          const i = (f * J + j) * 3;
          const p = i - J * 3;
          quat.fromEulerFlat(qa, 0, un.data, p, orders[j]);
          quat.fromEulerFlat(qb, 0, un.data, i, orders[j]);
          const theta = quat.angle(qa, qb);
          const bound = eulerStepBound(theta, un.data[p + 1], un.data[i + 1], proper) + 1e-9;
          for (let k = 0; k < 3; k++) {
            worstRatio = Math.max(worstRatio, Math.abs(un.data[i + k] - un.data[p + k]) / bound);
          }
        }
      }
      expect(worstRatio).toBeLessThanOrEqual(1);
    });
  }
});
