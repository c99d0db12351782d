import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { averageQuaternions } from '../../../src/ops/average/average-quaternions.js';
import { BLEND_METHODS, type BlendMethod, blendPoses } from '../../../src/ops/blend/blend-poses.js';
import { quatSeries } from '../../../src/series/index.js';
import { axisAngle, mul, randomQuats, rng, rotationAngle } from '../../support/average-random.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

const DEG = Math.PI / 180;

function randomPoses(seed: number, K: number, J: number, spread: number) {
  const r = rng(seed);
  const data = new Float64Array(K * J * 4);
  for (let j = 0; j < J; j++) {
    const q = randomQuats(r, K, spread);
    for (let k = 0; k < K; k++) data.set(q.subarray(k * 4, k * 4 + 4), (k * J + j) * 4);
  }
  return quatSeries(data, K, J);
}

function joint(data: ArrayLike<number>, K: number, J: number, j: number): Float64Array {
  const out = new Float64Array(K * 4);
  for (let k = 0; k < K; k++) for (let c = 0; c < 4; c++) out[k * 4 + c] = data[(k * J + j) * 4 + c];
  return out;
}

describe('blendPoses(out, poses, weights, options)', () => {
  it('equals averageQuaternions joint by joint (eigen; nlerp about the first pose; raw and log about the reference)', () => {
    const K = 5;
    const J = 12;
    const poses = randomPoses(71, K, J, 0.6);
    const ref = randomPoses(72, 1, J, 0).data;
    const w = [0.3, 0.1, 0.25, 0.2, 0.15];
    const out = new Float64Array(J * 4);
    const as: Record<BlendMethod, (j: number) => ArrayLike<number>> = {
      eigen: (j) => averageQuaternions(joint(poses.data, K, J, j), w),
      nlerp: (j) => averageQuaternions(joint(poses.data, K, J, j), w, { method: 'nlerp' }),
      raw: (j) =>
        averageQuaternions(joint(poses.data, K, J, j), w, {
          method: 'nlerp',
          reference: ref.subarray(j * 4),
        }),
      log: (j) =>
        averageQuaternions(joint(poses.data, K, J, j), w, { method: 'log', reference: ref.subarray(j * 4) }),
    };
    for (const method of BLEND_METHODS) {
      blendPoses(out, poses, w, { method, reference: ref });
      for (let j = 0; j < J; j++) {
        expect(rotationAngle(out.subarray(j * 4, j * 4 + 4), as[method](j))).toBeLessThan(1e-7);
        expect(out[j * 4 + 3]).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("'raw' and 'log' about a rest pose return it for +170°/−170° about it; 'eigen' returns the 180° turn", () => {
    const rest = Float64Array.from([...axisAngle([1, 2, 3], 0.7), ...axisAngle([0, 1, 0], -1.2)]);
    const data = new Float64Array(16);
    for (let j = 0; j < 2; j++) {
      const rj = rest.subarray(j * 4, j * 4 + 4);
      data.set(mul(rj, axisAngle([1, 0, 0], 170 * DEG)), j * 4);
      data.set(mul(rj, axisAngle([1, 0, 0], -170 * DEG)), 8 + j * 4);
    }
    const poses = quatSeries(data, 2, 2);
    const out = new Float64Array(8);
    for (const method of ['raw', 'log'] as const) {
      blendPoses(out, poses, [1, 1], { method, reference: rest });
      for (let j = 0; j < 2; j++)
        expect(rotationAngle(out.subarray(j * 4), rest.subarray(j * 4))).toBeLessThan(1e-12);
    }
    blendPoses(out, poses, [1, 1]);
    for (let j = 0; j < 2; j++) {
      expect(rotationAngle(out.subarray(j * 4), rest.subarray(j * 4)) / DEG).toBeCloseTo(180, 6);
    }
  });

  it('writes into a Float32Array or a one-frame QuatSeries, and repeated calls give identical results', () => {
    const poses = randomPoses(73, 3, 4, 0.3);
    const a = new Float64Array(16);
    blendPoses(a, poses, [1, 2, 3]);
    const b = quatSeries(new Float32Array(16), 1, 4);
    expect(blendPoses(b, poses, [1, 2, 3])).toBe(b);
    for (let i = 0; i < 16; i++) expect(b.data[i]).toBeCloseTo(a[i], 6);
    const again = new Float64Array(16);
    blendPoses(again, poses, [1, 2, 3], { scratch: new Float64Array(48) });
    expect(Array.from(again)).toEqual(Array.from(a));
  });

  it('throws typed errors naming pose and joint', () => {
    const poses = randomPoses(74, 3, 4, 0.3);
    const out = new Float64Array(16);
    expect(() => blendPoses(out, poses, [1, 2])).toThrow(ShapeError);
    expect(() => blendPoses(new Float64Array(12), poses, [1, 2, 3])).toThrow(ShapeError);
    expect(() =>
      blendPoses(out, poses, [1, 2, 3], { method: 'log', reference: new Float64Array(8) }),
    ).toThrow(ShapeError);
    expect(() => blendPoses(out, poses, [1, -1, 0])).toThrow(/sum to zero/);
    expect(() => blendPoses(out, poses, [1, 2, 3], { method: 'slerp' as BlendMethod })).toThrow(OptionError);
    const bad = quatSeries(poses.data.slice(), 3, 4);
    bad.data[(2 * 4 + 1) * 4 + 2] = Number.NaN;
    try {
      blendPoses(out, bad, [1, 2, 3]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect((e as InvalidValueError).location).toEqual({ frame: 2, joint: 1 });
    }
    const zero = quatSeries(poses.data.slice(), 3, 4);
    zero.data.fill(0, (1 * 4 + 3) * 4, (1 * 4 + 3) * 4 + 4);
    for (const method of BLEND_METHODS) {
      try {
        blendPoses(out, zero, [1, 2, 3], { method });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame: 1, joint: 3 });
      }
    }
  });
});

describe.skipIf(!HAS_SHARED_BVH)('blendPoses on real BVH poses relative to the first frame (test 7)', () => {
  // K = 3, 4, 5 poses at 0.25 s, 0.5 s, ... , weights 0.4 / 0.3 / 0.2 / 0.1 / 0.05 (first K), reference =
  // frame 0. Measured angle between eigen and the reference-relative result per joint, mean / max in degrees,
  // for K = 4 (K = 3 and 5 stay within mean 0.09°, max 2.71°, the largest being cmu-iclone log at K = 5):
  //   file                         raw(ref)         log(ref)        raw about the identity
  //   cmu/01_01                    0.005 / 0.082    0.037 / 0.92    0.005 / 0.082
  //   cmu-iclone/005_11            0.045 / 1.59     0.060 / 2.13    0.52  / 27.1
  //   bandai-namco walk-turn-left  0.037 / 0.34     0.051 / 0.46    0.93  / 19.6
  //   pymo AV_8Walk                0.044 / 0.28     0.077 / 0.38    0.044 / 0.28
  const files = [
    'cmu/01_01.bvh',
    'cmu-iclone/005_11.bvh',
    'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh',
    'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh',
  ];
  const clips = new Map<string, ReturnType<typeof parseBvh>>();
  function compare(file: string, spreadAcrossClip: boolean, K = 4) {
    const w = [0.4, 0.3, 0.2, 0.1, 0.05].slice(0, K);
    if (!clips.has(file)) clips.set(file, parseBvh(readSharedBvh(file)));
    const clip = clips.get(file)!;
    const J = clip.rotations.joints;
    const F = clip.frames;
    const step = Math.max(1, Math.round(0.25 / clip.frameTime));
    const picks = Array.from({ length: K }, (_, i) =>
      spreadAcrossClip ? Math.floor(((i + 1) * (F - 1)) / K) : Math.min(F - 1, (i + 1) * step),
    );
    const data = new Float64Array(K * J * 4);
    picks.forEach((f, k) => {
      data.set(clip.rotations.data.subarray(f * J * 4, (f + 1) * J * 4), k * J * 4);
    });
    const poses = quatSeries(data, K, J);
    const reference = clip.rotations.data.subarray(0, J * 4);
    const eigen = blendPoses(new Float64Array(J * 4), poses, w);
    const stats = (method: BlendMethod, ref: ArrayLike<number> | null) => {
      const o = blendPoses(new Float64Array(J * 4), poses, w, { method, reference: ref });
      let max = 0;
      let sum = 0;
      for (let j = 0; j < J; j++) {
        const a = rotationAngle(eigen, o, j * 4, j * 4) / DEG;
        max = Math.max(max, a);
        sum += a;
      }
      return { mean: sum / J, max };
    };
    return { raw: stats('raw', reference), log: stats('log', reference), rawIdentity: stats('raw', null) };
  }

  it('eigen and raw/log about the first frame agree to mean < 0.1°, max < 3° per joint, 3-5 poses, 4 files', () => {
    for (const K of [3, 4, 5]) {
      for (const file of files) {
        const s = compare(file, false, K);
        for (const m of [s.raw, s.log]) {
          expect(m.mean).toBeLessThan(0.1);
          expect(m.max).toBeLessThan(3);
        }
        // log weighs large rotations more than raw, so it strays a little further from eigen
        expect(s.log.mean).toBeGreaterThanOrEqual(s.raw.mean);
      }
    }
  });

  it('averaging about the identity instead of the first frame strays up to 27° (cmu-iclone) and 19.6° (bandai walk)', () => {
    expect(compare('cmu-iclone/005_11.bvh', false).rawIdentity.max).toBeGreaterThan(25);
    expect(
      compare('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh', false).rawIdentity.max,
    ).toBeGreaterThan(19);
  });

  it('poses spread across the whole clip: raw about frame 0 strays up to 57.8° from eigen on cmu/01_01', () => {
    const s = compare('cmu/01_01.bvh', true);
    expect(s.raw.max).toBeGreaterThan(50);
    expect(s.raw.mean).toBeGreaterThan(1);
  });
});
