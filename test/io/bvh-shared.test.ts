import { describe, expect, test } from 'vitest';
import { parseBvhWithReport } from '../../src/io/index.js';
import { bvhOf } from '../support/bvh-source.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../support/shared-data.js';

// Facts from the shared folder's README (joints, frames, first non-root order, frame time text).
const EXPECTED: Record<
  string,
  { joints: number; endSites: number; frames: number; order: string; time: string }
> = {
  'cmu/01_01.bvh': { joints: 31, endSites: 7, frames: 2752, order: 'ZYX', time: '.0083333' },
  'cmu-iclone/005_11.bvh': { joints: 100, endSites: 41, frames: 296, order: 'ZYX', time: '0.016667' },
  'bandai-namco/dataset-1_dance-short_normal_001.bvh': {
    joints: 22,
    endSites: 5,
    frames: 1901,
    order: 'ZXY',
    time: '0.0333333',
  },
  'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh': {
    joints: 22,
    endSites: 5,
    frames: 102,
    order: 'ZXY',
    time: '0.0333333',
  },
  'axis-neuron/test.bvh': { joints: 59, endSites: 13, frames: 2156, order: 'YXZ', time: '0.008' },
  'assimp/Boxing_Toes.bvh': { joints: 21, endSites: 5, frames: 3070, order: 'ZXY', time: '0.010000' },
  'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh': {
    joints: 23,
    endSites: 7,
    frames: 1064,
    order: 'XYZ',
    time: '0.008333',
  },
  'lafan1-resolved/Geno_bind.bvh': { joints: 75, endSites: 21, frames: 2, order: 'ZYX', time: '0.016667' },
};

describe.skipIf(!HAS_SHARED_BVH)('parseBvh(text) on the shared real files', () => {
  for (const file of SHARED_BVH_FILES) {
    test(`parseBvh(${file}) reads skeleton, frames, order and frame time`, () => {
      const { clip, warnings } = parseBvhWithReport(readSharedBvh(file));
      const e = EXPECTED[file];
      expect(clip.skeleton.names.length).toBe(e.joints);
      expect(bvhOf(clip).endSites.length).toBe(e.endSites);
      expect(clip.frames).toBe(e.frames);
      expect(clip.orders[1]).toBe(e.order);
      expect(bvhOf(clip).frameTimeText).toBe(e.time);
      // the Frame Time text stands for a whole rate (120 Hz for .0083333): the clip's frame time is exact
      expect(clip.frameTime).toBe(1 / Math.round(1 / Number(e.time)));
      expect(clip.rotations.data.length).toBe(e.frames * e.joints * 4);
      expect(clip.translations.data.length).toBe(e.frames * e.joints * 3);
      for (let i = 0; i < clip.rotations.data.length; i += 4) {
        const d = clip.rotations.data;
        const n = Math.hypot(d[i], d[i + 1], d[i + 2], d[i + 3]);
        if (Math.abs(n - 1) > 1e-12) throw new Error(`quaternion ${i / 4} has norm ${n}`);
      }
      // the reader's note on reading a rounded Frame Time as its rate is not a warning about the data
      const codes = warnings
        .map((w) => w.code)
        .filter((c) => c !== 'frame-rate')
        .sort();
      if (file === 'assimp/Boxing_Toes.bvh') expect(codes).toEqual(['frame-count']);
      else if (file === 'cmu-iclone/005_11.bvh') expect(codes).toEqual(['position-offset']);
      else expect(codes).toEqual([]);
    });
  }

  test('parseBvh(005_11, { positionMode: "add" }) adds the root OFFSET and does not warn', () => {
    const text = readSharedBvh('cmu-iclone/005_11.bvh');
    const { clip, warnings } = parseBvhWithReport(text, { positionMode: 'add' });
    expect(warnings.filter((w) => w.code !== 'frame-rate')).toEqual([]);
    // first data row starts "-0.151123 2.535439 0.987863"; root OFFSET is 0 105.214226 0.000021
    expect(clip.translations.data[0]).toBeCloseTo(-0.151123, 12);
    expect(clip.translations.data[1]).toBeCloseTo(105.214226 + 2.535439, 12);
    expect(clip.translations.data[2]).toBeCloseTo(0.000021 + 0.987863, 12);
  });

  test('parseBvh(Boxing_Toes, { strict: true }) throws on the frame-count mismatch', () => {
    expect(() => parseBvhWithReport(readSharedBvh('assimp/Boxing_Toes.bvh'), { strict: true })).toThrow(
      /declares 3069 frames but the data has 3070 rows/,
    );
  });
});
