import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { filterClip } from '../../../src/ops/filter/filter-clip.js';
import { filterRotations } from '../../../src/ops/filter/filter-rotations.js';
import { filterVectors } from '../../../src/ops/filter/filter-vectors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import type { Clip } from '../../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';
import { chainClip } from '../../support/clips.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

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

  it('filterClip filters only the moving joints, with the numbers of the whole-series filters (every space)', () => {
    const cmu = parseBvh(readSharedBvh('cmu/01_01.bvh'));
    const J = cmu.rotations.joints;
    for (const space of ['raw', 'log', 'eigen'] as const) {
      const kernel = kernels.gaussian(2); // 13 taps: the raw fast path
      const out = filterClip(cmu, kernel, { space });
      const r = filterRotations(cmu.rotations, kernel, { space });
      const t = filterVectors(cmu.translations, kernel);
      let moving = 0;
      for (let j = 0; j < J; j++) {
        let still = true;
        for (let i = 0; i < cmu.frames * 4 && still; i++) {
          const f = Math.floor(i / 4);
          still = cmu.rotations.data[(f * J + j) * 4 + (i % 4)] === cmu.rotations.data[j * 4 + (i % 4)];
        }
        if (still) continue;
        moving++;
        for (let f = 0; f < cmu.frames; f++) {
          for (let c = 0; c < 4; c++) {
            const k = (f * J + j) * 4 + c;
            if (out.rotations.data[k] !== r.data[k]) expect.fail(`${space}: frame ${f}, joint ${j}`);
          }
        }
      }
      expect(moving).toBeGreaterThan(20);
      // the root's translation moves; the other joints keep their OFFSETs exactly
      for (let f = 0; f < cmu.frames; f++) {
        for (let c = 0; c < 3; c++) expect(out.translations.data[f * J * 3 + c]).toBe(t.data[f * J * 3 + c]);
      }
      for (let i = 0; i < out.translations.data.length; i++) {
        if (i % (J * 3) >= 3 && out.translations.data[i] !== cmu.translations.data[i])
          expect.fail(`value ${i}`);
      }
    }
  });

  it('filterClip names a non-finite rotation by its joint in the clip, not in the subset it filters', () => {
    const cmu = parseBvh(readSharedBvh('cmu/01_01.bvh'));
    const J = cmu.rotations.joints;
    const j = J - 3;
    cmu.rotations.data[(40 * J + j) * 4] = Number.NaN;
    let message = '';
    try {
      filterClip(cmu, kernels.gaussian(2));
    } catch (error) {
      message = (error as Error).message;
    }
    let whole = '';
    try {
      filterRotations(cmu.rotations, kernels.gaussian(2));
    } catch (error) {
      whole = (error as Error).message;
    }
    expect(whole).toMatch(new RegExp(`joint ${j}\\b`));
    expect(message).toBe(whole);
  });

  it("filterClip(clip, kernel, { input: 'reuse' }) writes the same numbers into the input's arrays", () => {
    const kept = filterClip(clip, kernels.gaussian(2));
    const own = parseBvh(readSharedBvh('bandai-namco/dataset-2_walk-turn-left_normal_001.bvh'));
    const out = filterClip(own, kernels.gaussian(2), { input: 'reuse' });
    expect(out.rotations.data).toBe(own.rotations.data);
    expect(out.translations.data).toBe(own.translations.data);
    expect(Array.from(out.rotations.data)).toEqual(Array.from(kept.rotations.data));
    expect(Array.from(out.translations.data)).toEqual(Array.from(kept.translations.data));
    expect(() => filterClip(clip, kernels.tent, { input: 'move' as never })).toThrow(OptionError);
  });

  it("filterClip with 'reuse' on clips one after another, of every size and with constant joints, gives the numbers of 'keep'", () => {
    // the intermediate arrays of a reusing filter are kept from call to call (up to 2^20 values): nothing
    // of one clip may reach the next, whether all joints move, some are constant, or the clip is over that size
    const made = (frames: number, joints: number, still: number, seed: number): Clip => {
      const rotations = new Float64Array(frames * joints * 4);
      const translations = new Float64Array(frames * joints * 3);
      for (let f = 0; f < frames; f++)
        for (let j = 0; j < joints; j++) {
          const a = j < still ? 0.3 * j : 0.01 * f * (1 + ((j * seed) % 7)) + seed;
          // the still joints a little off unit length, which a filter would change and a copy keeps
          const n = j < still ? 1.001 : 1;
          rotations.set(
            [n * Math.sin(a) * 0.6, n * Math.sin(a) * 0.8, 0, n * Math.cos(a)],
            (f * joints + j) * 4,
          );
          translations.set([j, j === 0 ? 0.1 * f * seed : 1, 2], (f * joints + j) * 3);
        }
      return chainClip(rotations, translations, joints, 60);
    };
    const kernel = kernels.gaussian(2);
    // 3000 x 100 x 4 = 1.2M values: over the kept size; the others under it (a single frame: every joint
    // still, kept as it is)
    for (const [frames, joints, still, seed] of [
      [400, 20, 0, 1],
      [900, 12, 5, 2],
      [60, 3, 0, 3],
      [3000, 100, 30, 4],
      [700, 30, 29, 5],
      [1, 4, 4, 7],
      [400, 20, 0, 6],
      // few still joints (a sixth or less): filtered with the others, then put back
      [500, 24, 4, 8],
      [300, 7, 1, 9],
    ]) {
      const input = made(frames, joints, still, seed);
      const kept = filterClip(input, kernel);
      // still joints come out as they went in, bit for bit (the filter would bring them to unit length)
      for (let f = 0; f < frames; f++)
        for (let j = 0; j < still; j++)
          for (let c = 0; c < 4; c++) {
            const at = (f * joints + j) * 4 + c;
            expect(kept.rotations.data[at]).toBe(input.rotations.data[at]);
          }
      const own = made(frames, joints, still, seed);
      const out = filterClip(own, kernel, { input: 'reuse' });
      expect(out.rotations.data).toBe(own.rotations.data);
      expect(Array.from(out.rotations.data)).toEqual(Array.from(kept.rotations.data));
      expect(Array.from(out.translations.data)).toEqual(Array.from(kept.translations.data));
    }
  });

  it('filterClip rejects bad arguments with typed errors', () => {
    expect(() => filterClip(clip, kernels.tent, { channels: 'positions' as never })).toThrow(OptionError);
    expect(() => filterClip(clip, 3 as never)).toThrow(OptionError);
    const broken: Clip = { ...clip, translations: { data: new Float64Array(3), frames: 1, joints: 1 } };
    expect(() => filterClip(broken, kernels.tent)).toThrow(ShapeError);
  });
});

describe('filterClip(clip, kernel) on bad constant joints', () => {
  const text = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '\tOFFSET 0 0 0',
    '\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '\tJOINT Spine',
    '\t{',
    '\t\tOFFSET 0 1 0',
    '\t\tCHANNELS 3 Zrotation Xrotation Yrotation',
    '\t\tEnd Site',
    '\t\t{',
    '\t\t\tOFFSET 0 1 0',
    '\t\t}',
    '\t}',
    '}',
    'MOTION',
    'Frames: 6',
    'Frame Time: 0.0333333',
    ...Array.from({ length: 6 }, (_, f) => `0 ${f} 0 ${f * 10} 0 0 0 0 0`),
  ].join('\n');

  it('filterClip rejects a joint whose constant rotation is the zero quaternion, as filterRotations does', () => {
    const clip = parseBvh(text);
    // joint 1 (Spine) is constant: the moving-joints path would copy it, so it must be checked
    for (let f = 0; f < clip.frames; f++) clip.rotations.data.fill(0, (f * 2 + 1) * 4, (f * 2 + 2) * 4);
    expect(() => filterRotations(clip.rotations, kernels.tent)).toThrow(InvalidValueError);
    expect(() => filterClip(clip, kernels.tent)).toThrow(/joint 1/);
    expect(() => filterClip(clip, kernels.tent)).toThrow(InvalidValueError);
  });

  it('filterClip tells joints that start moving late, or only in the last frame, from constant ones', () => {
    // a chain Hips > A > B > C > D: Hips moves from frame 1, A and D never, B only in the last frame, C from
    // frame 20; several joints drop out of the constancy scan in the same frame and in different frames
    const names = ['A', 'B', 'C', 'D'];
    const lines = ['HIERARCHY', 'ROOT Hips', '{', 'OFFSET 0 0 0'];
    lines.push('CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation');
    for (const name of names)
      lines.push(`JOINT ${name}`, '{', 'OFFSET 0 1 0', 'CHANNELS 3 Zrotation Xrotation Yrotation');
    lines.push('End Site', '{', 'OFFSET 0 1 0', '}', ...names.map(() => '}'), '}');
    const frames = 40;
    lines.push('MOTION', `Frames: ${frames}`, 'Frame Time: 0.0333333');
    for (let f = 0; f < frames; f++) {
      const b = f === frames - 1 ? 30 : 5;
      const c = f >= 20 ? 2 * f : 0;
      lines.push(`${f} 0 0 ${3 * f} 0 0  0 7 0  0 0 ${b}  ${c} 0 0  1 2 3`);
    }
    const clip = parseBvh(lines.join('\n'));
    const kernel = kernels.gaussian(1.5);
    const out = filterClip(clip, kernel);
    const whole = filterRotations(clip.rotations, kernel);
    for (const [j, moves] of [
      [0, true],
      [1, false],
      [2, true],
      [3, true],
      [4, false],
    ] as const) {
      for (let f = 0; f < frames; f++) {
        for (let c = 0; c < 4; c++) {
          const k = (f * 5 + j) * 4 + c;
          const want = moves ? whole.data[k] : clip.rotations.data[j * 4 + c];
          if (out.rotations.data[k] !== want) expect.fail(`joint ${j}, frame ${f}: ${out.rotations.data[k]}`);
        }
      }
    }
    // the late movers really are filtered: the last frame's step is smoothed into the frames before it
    expect(out.rotations.data[((frames - 2) * 5 + 2) * 4 + 1]).not.toBe(clip.rotations.data[2 * 4 + 1]);
  });

  it('filterClip tells a joint that changes in one component only (w, or a translation z) from a constant one', () => {
    // joint 1 is the identity with w = +1, then from frame 10 the same rotation written with w = -1 (x, y, z
    // unchanged); joint 2's translation changes in z only. Each must be filtered, not copied from frame 0.
    const frames = 24;
    const J = 3;
    const rotations = new Float64Array(frames * J * 4);
    const translations = new Float64Array(frames * J * 3);
    for (let f = 0; f < frames; f++) {
      const a = 0.05 * f;
      rotations.set([Math.sin(a), 0, 0, Math.cos(a)], (f * J + 0) * 4);
      rotations.set([0, 0, 0, f < 10 ? 1 : -1], (f * J + 1) * 4);
      rotations.set([0, 0, 0, 1], (f * J + 2) * 4);
      translations.set([1, 2, 3], (f * J + 1) * 3);
      translations.set([4, 5, f < 12 ? 6 : 7], (f * J + 2) * 3);
    }
    const clip = makeClip({
      skeleton: makeSkeleton({
        names: ['root', 'a', 'b'],
        parents: [-1, 0, 1],
        restTranslations: [0, 0, 0, 1, 2, 3, 4, 5, 6],
      }),
      frameTime: 1 / 30,
      rotations: { data: rotations, frames, joints: J },
      translations: { data: translations, frames, joints: J },
    });
    const kernel = kernels.gaussian(1);
    const out = filterClip(clip, kernel, { segments: 'none' });
    const r = filterRotations(clip.rotations, kernel);
    const t = filterVectors(clip.translations, kernel);
    for (let f = 0; f < frames; f++) {
      // the output stays in each frame's own hemisphere: w = -1 after the flip, as the whole-series filter gives
      expect(out.rotations.data[(f * J + 1) * 4 + 3]).toBe(r.data[(f * J + 1) * 4 + 3]);
      expect(out.rotations.data[(f * J + 1) * 4 + 3]).toBeCloseTo(f < 10 ? 1 : -1, 12);
      expect(out.translations.data[(f * J + 2) * 3 + 2]).toBe(t.data[(f * J + 2) * 3 + 2]);
    }
    // the step in z is smoothed, so the z channel was filtered rather than copied
    expect(out.translations.data[(11 * J + 2) * 3 + 2]).toBeGreaterThan(6);
  });

  it('filterClip copies a constant joint bit for bit while the root moves', () => {
    const clip = parseBvh(text);
    const out = filterClip(clip, kernels.gaussian(1));
    for (let f = 0; f < clip.frames; f++) {
      for (let c = 0; c < 4; c++)
        expect(out.rotations.data[(f * 2 + 1) * 4 + c]).toBe(clip.rotations.data[4 + c]);
    }
    expect(out.rotations.data[3 * 8 + 2]).not.toBe(clip.rotations.data[3 * 8 + 2]);
  });
});
