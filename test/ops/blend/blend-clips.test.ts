import { describe, expect, it } from 'vitest';
import { OptionError, ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { blendClips } from '../../../src/ops/blend/blend-clips.js';
import { blendPoses } from '../../../src/ops/blend/blend-poses.js';
import type { Clip } from '../../../src/series/clip.js';
import { ANIMATED_ROTATION } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';
import { quatSeries, vec3Series } from '../../../src/series/index.js';
import { randomQuats, rng, rotationAngle } from '../../support/average-random.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

/** A small synthetic clip: 3 joints in a chain, random rotations and translations. */
function syntheticClip(seed: number, frames: number, frameTime = 1 / 30): Clip {
  const r = rng(seed);
  const J = 3;
  const rot = new Float64Array(frames * J * 4);
  for (let j = 0; j < J; j++) {
    const q = randomQuats(r, frames, 0.3);
    for (let f = 0; f < frames; f++) rot.set(q.subarray(f * 4, f * 4 + 4), (f * J + j) * 4);
  }
  const tr = Float64Array.from({ length: frames * J * 3 }, () => r() * 10 - 5);
  return {
    skeleton: makeSkeleton({
      names: ['root', 'spine', 'head'],
      parents: Int32Array.from([-1, 0, 1]),
      restTranslations: new Float64Array(9),
    }),
    frameTime,
    rate: 1 / frameTime,
    frames,
    rotations: quatSeries(rot, frames, J),
    translations: vec3Series(tr, frames, J),
    orders: ['ZXY', 'ZXY', 'ZXY'],
    animated: new Uint8Array(3).fill(ANIMATED_ROTATION),
  };
}

describe('blendClips(clips, weights, options)', () => {
  it('blends rotations frame by frame with blendPoses and translations linearly, over the common frames', () => {
    const a = syntheticClip(81, 20);
    const b = syntheticClip(82, 15);
    const c = syntheticClip(83, 18);
    const w = [0.5, 0.3, 0.2];
    const out = blendClips([a, b, c], w, { method: 'log', reference: 'first-frame' });
    expect(out.frames).toBe(15);
    expect(out.rotations.frames).toBe(15);
    expect(out.skeleton).toBe(a.skeleton);
    expect(out.frameTime).toBe(a.frameTime);
    const stack = quatSeries(new Float64Array(36), 3, 3);
    const pose = new Float64Array(12);
    for (const f of [0, 7, 14]) {
      [a, b, c].forEach((clip, k) => {
        stack.data.set(clip.rotations.data.subarray(f * 12, f * 12 + 12), k * 12);
      });
      blendPoses(pose, stack, w, { method: 'log', reference: a.rotations.data.subarray(0, 12) });
      for (let j = 0; j < 3; j++) {
        expect(rotationAngle(pose, out.rotations.data, j * 4, (f * 3 + j) * 4)).toBeLessThan(1e-7);
      }
      for (let i = f * 9; i < f * 9 + 9; i++) {
        const expected =
          0.5 * a.translations.data[i] + 0.3 * b.translations.data[i] + 0.2 * c.translations.data[i];
        expect(out.translations.data[i]).toBeCloseTo(expected, 13);
      }
    }
  });

  it('one clip with weight 1 reproduces its rotations (up to sign) and translations', () => {
    const a = syntheticClip(84, 10);
    const out = blendClips([a], [2]);
    for (let i = 0; i < 30; i++)
      expect(rotationAngle(out.rotations.data, a.rotations.data, i * 4, i * 4)).toBeLessThan(1e-7);
    for (let i = 0; i < a.translations.data.length; i++)
      expect(out.translations.data[i]).toBeCloseTo(a.translations.data[i], 14);
  });

  it('throws ShapeError for no clips, different hierarchies or frame times, and frame counts under strict', () => {
    const a = syntheticClip(85, 10);
    expect(() => blendClips([], [])).toThrow(ShapeError);
    expect(() => blendClips([a, syntheticClip(86, 10, 1 / 60)], [1, 1])).toThrow(/frame time/);
    expect(() => blendClips([a, syntheticClip(87, 12)], [1, 1], { length: 'strict' })).toThrow(/strict/);
    const other = syntheticClip(88, 10);
    other.skeleton = { ...other.skeleton, parents: Int32Array.from([-1, 0, 0]) };
    expect(() => blendClips([a, other], [1, 1])).toThrow(/hierarchy/);
    expect(() => blendClips([a, a], [1, 1], { reference: 'rest' as never })).toThrow(OptionError);
    expect(() => blendClips([a, a], [1, 1], { length: 'longest' as never })).toThrow(OptionError);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('blendClips on a real clip', () => {
  it('blending a BVH clip with itself returns it (bandai-namco walk, 22 joints, 102 frames)', () => {
    const clip = parseBvh(readSharedBvh('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh'));
    const out = blendClips([clip, clip], [0.25, 0.75]);
    expect(out.frames).toBe(clip.frames);
    let worst = 0;
    for (let i = 0; i < clip.frames * clip.rotations.joints; i++) {
      worst = Math.max(worst, rotationAngle(out.rotations.data, clip.rotations.data, i * 4, i * 4));
    }
    expect(worst).toBeLessThan(1e-7);
  });
});
