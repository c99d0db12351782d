import { describe, expect, it } from 'vitest';
import { OptionError, ShapeError } from '../../src/errors.js';
import { parseBvh } from '../../src/io/index.js';
import { filterClip } from '../../src/ops/filter-clip.js';
import { filterRotations } from '../../src/ops/filter-rotations.js';
import { filterVectors } from '../../src/ops/filter-vectors.js';
import * as kernels from '../../src/ops/kernels.js';
import type { Clip } from '../../src/series/clip.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../support/shared-data.js';

describe.skipIf(!HAS_SHARED_BVH)('filterClip(clip, kernel, options)', () => {
  // vitest runs a skipped block's body to collect it; the data below exists only with ../shared.
  if (!HAS_SHARED_BVH) return;
  const clip = parseBvh(readSharedBvh('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh'));

  it('filterClip filters rotations and translations with the same kernel, leaving the input alone', () => {
    const before = Float64Array.from(clip.rotations.data);
    const out = filterClip(clip, kernels.gaussian(2), { space: 'log' });
    expect(Array.from(clip.rotations.data)).toEqual(Array.from(before));
    expect(out.skeleton).toBe(clip.skeleton);
    expect(out.frames).toBe(clip.frames);
    const r = filterRotations(clip.rotations, kernels.gaussian(2), { space: 'log' });
    const t = filterVectors(clip.translations, kernels.gaussian(2));
    const J = clip.rotations.joints;
    // joint 1 (Hips) moves: identical to the per-series filters
    const hips = clip.skeleton.names.indexOf('Hips');
    expect(hips).toBeGreaterThan(-1);
    for (let f = 0; f < clip.frames; f++) {
      for (let c = 0; c < 4; c++)
        expect(out.rotations.data[(f * J + hips) * 4 + c]).toBe(r.data[(f * J + hips) * 4 + c]);
      for (let c = 0; c < 3; c++)
        expect(out.translations.data[(f * J + hips) * 3 + c]).toBe(t.data[(f * J + hips) * 3 + c]);
    }
  });

  it('filterClip copies static joints bit for bit (joint_Root, fixed OFFSETs)', () => {
    const out = filterClip(clip, kernels.unsharp(kernels.gaussian(2), 1));
    const J = clip.rotations.joints;
    const root = clip.skeleton.names.indexOf('joint_Root');
    expect(root).toBe(0);
    for (let f = 0; f < clip.frames; f++) {
      for (let c = 0; c < 4; c++)
        expect(out.rotations.data[(f * J + root) * 4 + c]).toBe(clip.rotations.data[(f * J + root) * 4 + c]);
    }
    // every non-root translation in this file equals its OFFSET in all frames
    for (let j = 2; j < J; j++) {
      for (let f = 0; f < clip.frames; f++) {
        for (let c = 0; c < 3; c++)
          expect(out.translations.data[(f * J + j) * 3 + c]).toBe(
            clip.translations.data[(f * J + j) * 3 + c],
          );
      }
    }
  });

  it("filterClip(..., { channels: 'rotations' }) keeps the translations", () => {
    const out = filterClip(clip, kernels.gaussian(3), { channels: 'rotations' });
    expect(Array.from(out.translations.data)).toEqual(Array.from(clip.translations.data));
    expect(out.translations.data).not.toBe(clip.translations.data);
  });

  it('filterClip rejects bad arguments with typed errors', () => {
    expect(() => filterClip(clip, kernels.tent, { channels: 'positions' as never })).toThrow(OptionError);
    expect(() => filterClip(clip, 3 as never)).toThrow(OptionError);
    const broken: Clip = { ...clip, translations: { data: new Float64Array(3), frames: 1, joints: 1 } };
    expect(() => filterClip(broken, kernels.tent)).toThrow(ShapeError);
  });
});
