import {
  AnimationClip,
  AnimationUtils,
  type KeyframeTrack,
  QuaternionKeyframeTrack,
  VectorKeyframeTrack,
} from 'three';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { applyAdditive, makeClipAdditive } from '../../../src/ops/keys/additive.js';
import { bakeClip } from '../../../src/ops/keys/bake-clip.js';
import { subclip } from '../../../src/ops/keys/subclip.js';
import type { Clip } from '../../../src/series/clip.js';
import { TOL } from '../../support/tolerances.js';
import { axisAngle, chainKeyed, maxDiff, track } from './helpers.js';

function clip30(): Clip {
  const keyed = chainKeyed([track(1, 'scale', 'linear', [0, 1], [1, 1, 1, 2, 0.5, 1.5])]);
  return bakeClip(keyed, { rate: 30 });
}

/** Joint j's series of a clip as one flat array (what a three.js track holds). */
function jointSeries(
  data: ArrayLike<number>,
  frames: number,
  joints: number,
  j: number,
  width: number,
): number[] {
  const out: number[] = [];
  for (let f = 0; f < frames; f++)
    for (let c = 0; c < width; c++) out.push(data[(f * joints + j) * width + c]);
  return out;
}

describe('makeClipAdditive(clip, { reference })', () => {
  it("matches three.js's AnimationUtils.makeClipAdditive (reference frame 5) to Float32 precision", () => {
    const clip = clip30();
    const J = 3;
    const times = Array.from({ length: clip.frames }, (_, f) => f / 30);
    const tracks: KeyframeTrack[] = [];
    for (let j = 0; j < J; j++) {
      tracks.push(
        new QuaternionKeyframeTrack(
          `j${j}.quaternion`,
          times,
          jointSeries(clip.rotations.data, clip.frames, J, j, 4),
        ),
      );
      tracks.push(
        new VectorKeyframeTrack(
          `j${j}.position`,
          times,
          jointSeries(clip.translations.data, clip.frames, J, j, 3),
        ),
      );
      tracks.push(
        new VectorKeyframeTrack(`j${j}.scale`, times, jointSeries(clip.scales!.data, clip.frames, J, j, 3)),
      );
    }
    const three = AnimationUtils.makeClipAdditive(new AnimationClip('c', -1, tracks), 5, undefined, 30);
    const ours = makeClipAdditive(clip, { reference: 5 });
    for (let j = 0; j < J; j++) {
      const [q, p, s] = three.tracks.slice(j * 3, j * 3 + 3).map((t) => Array.from(t.values));
      expect(maxDiff(jointSeries(ours.rotations.data, clip.frames, J, j, 4), q)).toBeLessThan(4 * TOL.f32);
      expect(maxDiff(jointSeries(ours.translations.data, clip.frames, J, j, 3), p)).toBeLessThan(4 * TOL.f32);
      expect(maxDiff(jointSeries(ours.scales!.data, clip.frames, J, j, 3), s)).toBeLessThan(4 * TOL.f32);
    }
  });

  it('makes the reference frame the identity and round-trips through applyAdditive', () => {
    const clip = clip30();
    for (const scale of ['difference', 'ratio'] as const) {
      for (const reference of ['first-frame', 7] as const) {
        const add = makeClipAdditive(clip, { reference, scale });
        const f = reference === 'first-frame' ? 0 : reference;
        const q = Array.from(add.rotations.data.subarray(f * 12, f * 12 + 12));
        expect(maxDiff(q, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])).toBeLessThan(TOL.f64);
        expect(maxDiff(add.translations.data.subarray(f * 9, f * 9 + 9), new Float64Array(9))).toBe(0);
        const base = subclip(clip, { start: f / 30, end: f / 30 }); // the reference pose, one frame
        const back = applyAdditive(base, add, { scale });
        expect(back.frames).toBe(clip.frames);
        expect(maxDiff(back.rotations.data, clip.rotations.data)).toBeLessThan(TOL.f64);
        expect(maxDiff(back.translations.data, clip.translations.data)).toBeLessThan(TOL.f64);
        expect(maxDiff(back.scales!.data, clip.scales!.data)).toBeLessThan(TOL.f64);
      }
    }
  });

  it('takes a pose as reference (here the rest pose)', () => {
    const clip = clip30();
    const s = clip.skeleton;
    const add = makeClipAdditive(clip, {
      reference: { rotations: s.restRotations, translations: s.restTranslations },
    });
    // joint 2 is not animated in rotation: its rotation is the rest one, so its additive rotation is the identity
    expect(maxDiff(add.rotations.data.subarray(8, 12), [0, 0, 0, 1])).toBeLessThan(TOL.f64);
    expect(() =>
      makeClipAdditive(clip, { reference: { rotations: [0, 0, 0, 1], translations: [] } }),
    ).toThrow(ShapeError);
  });

  it('rejects bad references and options', () => {
    const clip = clip30();
    expect(() => makeClipAdditive(clip, { reference: clip.frames })).toThrow(OptionError);
    expect(() => makeClipAdditive(clip, { reference: 1.5 })).toThrow(OptionError);
    expect(() => makeClipAdditive(clip, { scale: 'log' as never })).toThrow(OptionError);
    expect(() => makeClipAdditive(clip, { ref: 0 } as never)).toThrow(/unknown option 'ref'/);
    const zero = { ...clip, scales: { ...clip.scales!, data: new Float64Array(clip.scales!.data.length) } };
    expect(() => makeClipAdditive(zero, { scale: 'ratio' })).toThrow(InvalidValueError);
  });
});

describe('applyAdditive(base, additive, { weight })', () => {
  it('weight scales the added rotation along the shortest arc; 0 gives the base', () => {
    const clip = clip30();
    const one = subclip(clip, { start: 0, end: 0 });
    const turn = {
      ...one,
      rotations: {
        ...one.rotations,
        data: Float64Array.from([...axisAngle(0, 0, 1, Math.PI / 2), 0, 0, 0, 1, 0, 0, 0, 1]),
      },
    };
    const add: Clip = {
      ...turn,
      translations: { ...one.translations, data: new Float64Array(9) },
      scales: undefined,
    };
    const half = applyAdditive(one, add, { weight: 0.5 });
    // base ⊗ (45° about z) for joint 0, whose base rotation is the identity
    expect(maxDiff(half.rotations.data.subarray(0, 4), axisAngle(0, 0, 1, Math.PI / 4))).toBeLessThan(
      TOL.f64,
    );
    const none = applyAdditive(clip, makeClipAdditive(clip), { weight: 0 });
    expect(maxDiff(none.rotations.data, clip.rotations.data)).toBeLessThan(TOL.f64);
    expect(maxDiff(none.translations.data, clip.translations.data)).toBe(0);
  });

  it('rejects mismatched clips and bad weights', () => {
    const clip = clip30();
    const short = subclip(clip, { start: 0, end: 0.1 });
    expect(() => applyAdditive(clip, short)).toThrow(ShapeError);
    expect(() => applyAdditive(clip, clip, { weight: Number.NaN })).toThrow(OptionError);
    const negative = makeClipAdditive(clip, { scale: 'ratio' });
    negative.scales!.data[4] = -1;
    expect(() => applyAdditive(clip, negative, { scale: 'ratio', weight: 0.5 })).toThrow(InvalidValueError);
  });
});
