import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../../src/errors.js';
import { parseBvh, writeBvh } from '../../../src/io/index.js';
import { frameTimeTextOf, guessRate } from '../../../src/ops/analysis/analyze-clip.js';
import { clipSourceRate, resampleClip } from '../../../src/ops/resample/resample-clip.js';
import { resampleRotations } from '../../../src/ops/resample/resample-rotations.js';
import * as quat from '../../../src/quat/index.js';
import type { Clip } from '../../../src/series/clip.js';
import { chainClip } from '../../support/clips.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../../support/shared-data.js';

describe.skipIf(!HAS_SHARED_BVH)('resampleClip(clip, options) on CMU 01_01', () => {
  // vitest runs a skipped block's body to collect it; the data below exists only with ../shared.
  if (!HAS_SHARED_BVH) return;
  const clip = parseBvh(readSharedBvh('cmu/01_01.bvh'));

  it('120 -> 30 Hz updates frames, rate and frame time and writes back as a valid BVH', () => {
    const r = resampleClip(clip, { targetRate: 30, kernel: 'lanczos3' });
    expect(clip.frames).toBe(2752);
    expect(r.frames).toBe(Math.floor((2751 * 30) / clip.rate + 1e-9) + 1);
    expect(r.rate).toBe(30);
    expect(r.frameTime).toBe(1 / 30);
    expect(writeBvh(r)).toMatch(/Frame Time: 0.0333333333333/);
    expect(r.skeleton).toBe(clip.skeleton);
    const text = writeBvh(r);
    expect(text).toMatch(/Frames:\s+688/);
    const back = parseBvh(text);
    expect(back.frames).toBe(r.frames);
    expect(back.rate).toBeCloseTo(30, 4);
    // rotations survive the text round trip (6 decimals of degrees)
    let worst = 0;
    const a = new Float64Array(4);
    const b = new Float64Array(4);
    for (let i = 0; i < r.rotations.data.length; i += 4) {
      a.set(r.rotations.data.subarray(i, i + 4));
      b.set(back.rotations.data.subarray(i, i + 4));
      worst = Math.max(worst, quat.angle(a, b));
    }
    expect(worst).toBeLessThan(1e-6);
    // translations follow the same grid: frame 10 at 30 Hz is source frame 40
    for (let c = 0; c < 3; c++) {
      expect(r.translations.data[10 * clip.translations.joints * 3 + c]).toBeCloseTo(
        clip.translations.data[40 * clip.translations.joints * 3 + c],
        0,
      );
    }
  });

  it("translationBoundary 'clamp' keeps root motion out of a wrapped loop's seam", () => {
    const loop = { ...clip, frames: 240 };
    loop.rotations = { data: clip.rotations.data.slice(0, 240 * 31 * 4), frames: 240, joints: 31 };
    loop.translations = { data: clip.translations.data.slice(0, 240 * 31 * 3), frames: 240, joints: 31 };
    const wrapped = resampleClip(loop, { targetRate: 30, kernel: 'lanczos3', boundary: 'wrap' });
    const clamped = resampleClip(loop, {
      targetRate: 30,
      kernel: 'lanczos3',
      boundary: 'wrap',
      translationBoundary: 'clamp',
    });
    expect(wrapped.frames).toBe(60);
    expect(clamped.frames).toBe(60);
    expect(Array.from(clamped.rotations.data)).toEqual(Array.from(wrapped.rotations.data));
    // frame 0 of the root translation: wrapping mixes in the clip's end, clamping does not
    const src0 = loop.translations.data[0];
    expect(Math.abs(clamped.translations.data[0] - src0)).toBeLessThan(
      Math.abs(wrapped.translations.data[0] - src0),
    );
  });

  it('rotations equal resampleRotations on the clip rotations with the same options', () => {
    const r = resampleClip(clip, { targetRate: 50, kernel: 'catmull-rom', duration: 'keep-end' });
    const rot = resampleRotations(clip.rotations, {
      sourceRate: clipSourceRate(clip),
      targetRate: 50,
      kernel: 'catmull-rom',
      duration: 'keep-end',
    });
    expect(Array.from(r.rotations.data)).toEqual(Array.from(rot.data));
    expect(r.rate).toBe(rot.rate);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('resampleClip(clip, options) on every shared BVH file', () => {
  it.each(SHARED_BVH_FILES.map((f) => [f]))(
    '%s to 24 Hz writes back with the same frames and translations',
    (file) => {
      const clip = parseBvh(readSharedBvh(file));
      const r = resampleClip(clip, { targetRate: 24, kernel: 'lanczos3' });
      // the source rate is the one the written frame time stands for (0.0333333 s is 30 Hz)
      const rate = guessRate(clip.frameTime, frameTimeTextOf(clip)).guessHz ?? clip.rate;
      expect(r.frames).toBe(Math.floor(((clip.frames - 1) * 24) / rate + 1e-9) + 1);
      const back = parseBvh(writeBvh(r));
      expect(back.frames).toBe(r.frames);
      expect(back.rate).toBeCloseTo(24, 3);
      let worst = 0;
      for (let i = 0; i < r.translations.data.length; i++) {
        worst = Math.max(worst, Math.abs(r.translations.data[i] - back.translations.data[i]));
      }
      // 6 decimals in the file
      expect(worst).toBeLessThanOrEqual(5.1e-7);
    },
  );
});

describe('resampleClip(clip, { targetRate: clip rate }) keeps every frame', () => {
  const text = readFileSync(new URL('../../../samples/01_01.bvh', import.meta.url), 'utf8');
  it('CMU 01_01 (Frame Time .0083333, 2752 frames) at 120 Hz: 2752 frames, the samples unchanged', () => {
    const clip = parseBvh(text);
    expect(clip.rate).toBe(120); // .0083333 read as 120 Hz (120.0048 as written)
    const r = resampleClip(clip, { targetRate: 120 });
    expect(r.frames).toBe(2752);
    let worst = 0;
    for (let i = 0; i < r.rotations.data.length; i += 4) {
      worst = Math.max(
        worst,
        quat.angle(r.rotations.data.subarray(i, i + 4), clip.rotations.data.subarray(i, i + 4)),
      );
    }
    expect(worst).toBeLessThan(1e-12);
    expect(resampleClip(clip, { targetRate: 120, rateFrom: 'frame-time' }).frames).toBe(2751);
  });
  it('a 30 Hz file written as 0.033333 keeps its last frame at 30 Hz', () => {
    const clip30 = parseBvh(text.replace('Frame Time: .0083333', 'Frame Time: 0.033333'));
    expect(clip30.rate).toBe(30); // 30.0003 as written
    expect(resampleClip(clip30, { targetRate: 30 }).frames).toBe(2752);
  });
});

describe('resampleClip(clip, options) with joints that hold still', () => {
  /** 240 frames at 120 Hz of `joints` joints; the first `still` hold one quaternion (a little off unit length). */
  function made(joints: number, still: number, bad?: 'zero' | 'nan'): Clip {
    const frames = 240;
    const rotations = new Float64Array(frames * joints * 4);
    const translations = new Float64Array(frames * joints * 3);
    for (let f = 0; f < frames; f++)
      for (let j = 0; j < joints; j++) {
        const a = j < still ? 0.2 * j - 0.3 : 0.02 * f * (1 + (j % 5)) + j;
        const n = j < still ? 1.001 : 1;
        rotations.set(
          [n * 0.6 * Math.sin(a), -n * 0.8 * Math.sin(a), 0, n * Math.cos(a)],
          (f * joints + j) * 4,
        );
      }
    if (bad === 'zero')
      for (let f = 0; f < frames; f++) rotations.fill(0, f * joints * 4, f * joints * 4 + 4);
    if (bad === 'nan') for (let f = 0; f < frames; f++) rotations[f * joints * 4] = Number.NaN;
    return chainClip(rotations, translations, joints, 120);
  }

  it('still joints come out as their quaternion at unit length in every output frame; moving ones as resampleRotations gives them', () => {
    // 12 of 20 still: the still ones are copied; 2 of 20: every joint is blended (the still ones to rounding)
    for (const [joints, still] of [
      [20, 12],
      [20, 2],
      [7, 7],
    ]) {
      const clip = made(joints, still);
      for (const options of [
        { targetRate: 30 },
        { targetRate: 24, kernel: 'cubic6' as const },
        { targetRate: 200 },
      ]) {
        const out = resampleClip(clip, { ...options, rateFrom: 'frame-time' });
        const whole = resampleRotations(clip.rotations, { ...options, sourceRate: clip.rate });
        expect(out.frames).toBe(whole.frames);
        for (let j = 0; j < joints; j++) {
          const q = clip.rotations.data.subarray(j * 4, j * 4 + 4);
          const unit = Math.hypot(...q);
          for (let f = 0; f < out.frames; f++)
            for (let c = 0; c < 4; c++) {
              const at = (f * joints + j) * 4 + c;
              if (j >= still) expect(out.rotations.data[at]).toBe(whole.data[at]);
              else expect(out.rotations.data[at]).toBeCloseTo(q[c] / unit, 15);
            }
        }
      }
    }
  });

  it('a still joint that is zero or not finite is reported as without still joints', () => {
    expect(() => resampleClip(made(20, 12, 'zero'), { targetRate: 30 })).toThrow(InvalidValueError);
    expect(() => resampleClip(made(20, 12, 'nan'), { targetRate: 30 })).toThrow(InvalidValueError);
  });
});
