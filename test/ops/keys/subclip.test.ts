import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { bakeClip } from '../../../src/ops/keys/bake-clip.js';
import { evaluateTrack } from '../../../src/ops/keys/evaluate-track.js';
import { subclip } from '../../../src/ops/keys/subclip.js';
import type { Interpolation, KeyedClip, Track } from '../../../src/series/clip.js';
import { TOL } from '../../support/tolerances.js';
import { axisAngle, chainKeyed, maxDiff, track } from './helpers.js';

describe('subclip(clip, { start, end }) on a Clip', () => {
  const clip = () => {
    const c = bakeClip(chainKeyed(), { rate: 30 });
    return { ...c, startTime: 0.5 }; // 34 frames from 0.5 s
  };

  it('keeps the frames in [start, end] with their exact times', () => {
    const c = clip();
    const s = subclip(c, { start: 1, end: 1.5 });
    expect(s.frames).toBe(16); // frames 15 … 30
    expect(s.startTime).toBe(0.5 + 15 * c.frameTime);
    expect(s.rate).toBe(30);
    expect(Array.from(s.rotations.data)).toEqual(Array.from(c.rotations.data.subarray(15 * 12, 31 * 12)));
    expect(Array.from(s.translations.data)).toEqual(Array.from(c.translations.data.subarray(15 * 9, 31 * 9)));
    expect(Array.from(s.scales!.data)).toEqual(Array.from(c.scales!.data.subarray(15 * 9, 31 * 9)));
    expect(s.source).toBe(c.source);
  });

  it('clips the range to the clip, gives one frame for a zero-length range on a frame, and throws between frames', () => {
    const c = clip();
    expect(subclip(c, { start: -10, end: 100 }).frames).toBe(c.frames);
    const one = subclip(c, { start: 1, end: 1 });
    expect(one.frames).toBe(1);
    expect(() => subclip(c, { start: 1.01, end: 1.02 })).toThrow(/holds no frame/);
    expect(() => subclip(c, { start: 2, end: 1 })).toThrow(OptionError);
    expect(() => subclip(c, { start: Number.NaN, end: 1 })).toThrow(OptionError);
    expect(() => subclip(c, { start: 0, end: 1, step: 1 } as never)).toThrow(/unknown option/);
  });
});

describe('subclip(keyed, { start, end }) on a KeyedClip', () => {
  function random(
    interpolation: Interpolation,
    path: 'translation' | 'rotation' | 'scale',
    seed: number,
  ): Track {
    let s = seed;
    const rnd = () => {
      s = (s * 16807) % 2147483647;
      return s / 2147483647 - 0.5;
    };
    const times = [0, 0.13, 0.4, 0.45, 0.9, 1.3];
    const per = interpolation === 'cubicspline' ? 3 : 1;
    const values: number[] = [];
    for (let k = 0; k < times.length * per; k++) {
      if (path === 'rotation' && (per === 1 || k % 3 === 1))
        values.push(...axisAngle(rnd(), rnd(), rnd() + 0.1, 4 * rnd()));
      else values.push(...Array.from({ length: path === 'rotation' ? 4 : 3 }, () => 2 * rnd()));
    }
    return track(path === 'rotation' ? 1 : 0, path, interpolation, times, values);
  }

  it('plays exactly as the original over [start, end] (step, linear, cubicspline translations; step and linear rotations)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<[Interpolation, 'translation' | 'rotation']>(
          ['step', 'translation'],
          ['linear', 'translation'],
          ['cubicspline', 'translation'],
          ['step', 'rotation'],
          ['linear', 'rotation'],
        ),
        fc.double({ min: -0.2, max: 1.5, noNaN: true }),
        fc.double({ min: 0, max: 1.5, noNaN: true }),
        fc.integer({ min: 1, max: 1e6 }),
        ([interpolation, path], start, length, seed) => {
          const t = random(interpolation, path, seed);
          const keyed: KeyedClip = { ...chainKeyed(), tracks: [t] };
          const cut = subclip(keyed, { start, end: start + length }).tracks[0];
          const qs = Array.from({ length: 41 }, (_, i) => start + (i / 40) * length);
          expect(maxDiff(evaluateTrack(cut, qs), evaluateTrack(t, qs))).toBeLessThan(TOL.f64);
          // kept keys keep their times bit for bit
          for (const time of cut.times)
            if (time !== start && time !== start + length) expect(Array.from(t.times)).toContain(time);
        },
      ),
    );
  });

  it('gives each track one key for a zero-length range, and one key at start for a track outside the range', () => {
    const keyed = chainKeyed();
    const z = subclip(keyed, { start: 0.7, end: 0.7 });
    for (let i = 0; i < z.tracks.length; i++) {
      expect(Array.from(z.tracks[i].times)).toEqual([0.7]);
      expect(Array.from(z.tracks[i].values)).toEqual(Array.from(evaluateTrack(keyed.tracks[i], [0.7])));
    }
    const late = subclip(keyed, { start: 5, end: 6 });
    expect(Array.from(late.tracks[0].times)).toEqual([5]);
    expect(Array.from(late.tracks[0].values)).toEqual([0.9, 1, 0.2]);
  });

  it('stores cubicspline rotation boundary keys at unit length, playing the original rotation and angular velocity there', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.6, noNaN: true }),
        fc.double({ min: 0.7, max: 1.25, noNaN: true }),
        fc.integer({ min: 1, max: 1e6 }),
        (start, end, seed) => {
          const t = random('cubicspline', 'rotation', seed);
          const cut = subclip({ ...chainKeyed(), tracks: [t] }, { start, end }).tracks[0];
          const n = cut.times.length;
          expect(cut.times[0]).toBe(start);
          expect(cut.times[n - 1]).toBe(end);
          for (const k of [0, n - 1]) {
            const v = cut.values.subarray(k * 12 + 4, k * 12 + 8);
            expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(TOL.f64);
          }
          // the rotation at the boundaries and kept keys, and a central difference of the played
          // rotation a hair inside each boundary (the angular velocity), are the original's
          const h = 1e-6;
          const at = [
            start,
            start + h,
            start + 2 * h,
            ...cut.times.subarray(1, n - 1),
            end - 2 * h,
            end - h,
            end,
          ];
          const a = evaluateTrack(cut, at);
          const b = evaluateTrack(t, at);
          const sign = (i: number) =>
            Math.sign(
              a[i * 4] * b[i * 4] +
                a[i * 4 + 1] * b[i * 4 + 1] +
                a[i * 4 + 2] * b[i * 4 + 2] +
                a[i * 4 + 3] * b[i * 4 + 3],
            );
          for (let i = 0; i < at.length; i++)
            for (let c = 0; c < 4; c++)
              expect(Math.abs(a[i * 4 + c] - sign(i) * b[i * 4 + c])).toBeLessThan(1e-9);
          for (const [i, j] of [
            [2, 0],
            [at.length - 1, at.length - 3],
          ])
            for (let c = 0; c < 4; c++) {
              const da = (a[i * 4 + c] - a[j * 4 + c]) / (2 * h);
              const db = (sign(i) * b[i * 4 + c] - sign(j) * b[j * 4 + c]) / (2 * h);
              expect(Math.abs(da - db)).toBeLessThan(1e-4 * Math.max(1, Math.abs(db)));
            }
        },
      ),
    );
  });

  it('zeroes the first in-tangent and the last out-tangent of cubicspline tracks', () => {
    const t = random('cubicspline', 'translation', 3);
    const cut = subclip({ ...chainKeyed(), tracks: [t] }, { start: 0.3, end: 1 }).tracks[0];
    const n = cut.times.length;
    expect(Array.from(cut.values.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(cut.values.subarray(n * 9 - 3))).toEqual([0, 0, 0]);
  });

  it('adds no boundary key that float32 key times could not tell from a kept key, so glTF can store the cut', () => {
    // keys at float32 times, as a glTF file has them; boundaries a hair before and after kept keys
    const times = [0, 0.1, 0.2, 0.3, 0.4].map(Math.fround);
    const t = track(0, 'translation', 'linear', times, [0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0]);
    const keyed = { ...chainKeyed(), tracks: [t] };
    const start = times[1] - 1e-9; // float32 cannot tell it from key 1
    const end = times[3] + 1e-9; // nor this from key 3
    expect(Math.fround(start)).toBe(times[1]);
    expect(Math.fround(end)).toBe(times[3]);
    const cut = subclip(keyed, { start, end }).tracks[0];
    expect(Array.from(cut.times)).toEqual([times[1], times[2], times[3]]);
    // strictly increasing in float32, as the glTF writer requires
    const f32 = Array.from(Float32Array.from(cut.times));
    for (let k = 1; k < f32.length; k++) expect(f32[k]).toBeGreaterThan(f32[k - 1]);
    // a boundary float32 can tell apart still gets its exact key
    const apart = subclip(keyed, { start: 0.15, end: 0.35 }).tracks[0];
    expect(Array.from(apart.times)).toEqual([0.15, times[2], times[3], 0.35]);
    expect(Array.from(apart.values.subarray(0, 3))).toEqual(Array.from(evaluateTrack(t, [0.15])));
  });
});
