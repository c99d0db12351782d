import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { BAKE_CLIP_DEFAULTS, bakeClip, inferKeyRate } from '../../../src/ops/keys/bake-clip.js';
import { evaluateTrack } from '../../../src/ops/keys/evaluate-track.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_SCALE,
  ANIMATED_TRANSLATION,
  type KeyedClip,
} from '../../../src/series/clip.js';
import { assertClip } from '../../../src/series/clip-create.js';
import { TOL } from '../../support/tolerances.js';
import { axisAngle, chainKeyed, maxDiff, track } from './helpers.js';

function frameOf(data: ArrayLike<number>, f: number, j: number, joints: number, width: number): number[] {
  return Array.from({ length: width }, (_, c) => data[(f * joints + j) * width + c]);
}

describe('bakeClip(keyed, options)', () => {
  it('samples every track on the grid startTime + f / rate and holds rest values elsewhere', () => {
    const keyed = chainKeyed();
    const clip = bakeClip(keyed, { rate: 10 });
    assertClip(clip);
    // keys span 0 … 1.1 s: 11 intervals at 10 Hz, the last frame on the last key
    expect(clip.frames).toBe(12);
    expect(clip.rate).toBe(10);
    expect(clip.startTime ?? 0).toBe(0);
    expect(Array.from(clip.animated)).toEqual([ANIMATED_TRANSLATION, ANIMATED_ROTATION, ANIMATED_SCALE]);
    const rest = keyed.skeleton;
    for (let f = 0; f < clip.frames; f++) {
      const t = f / 10;
      expect(frameOf(clip.translations.data, f, 0, 3, 3)).toEqual(
        Array.from(evaluateTrack(keyed.tracks[0], [t])),
      );
      expect(frameOf(clip.rotations.data, f, 1, 3, 4)).toEqual(
        Array.from(evaluateTrack(keyed.tracks[1], [t])),
      );
      expect(frameOf(clip.scales!.data, f, 2, 3, 3)).toEqual(Array.from(evaluateTrack(keyed.tracks[2], [t])));
      expect(frameOf(clip.rotations.data, f, 0, 3, 4)).toEqual(Array.from(rest.restRotations.subarray(0, 4)));
      expect(frameOf(clip.rotations.data, f, 2, 3, 4)).toEqual(
        Array.from(rest.restRotations.subarray(8, 12)),
      );
      expect(frameOf(clip.translations.data, f, 1, 3, 3)).toEqual(
        Array.from(rest.restTranslations.subarray(3, 6)),
      );
      expect(frameOf(clip.scales!.data, f, 1, 3, 3)).toEqual([1, 1, 1]);
    }
    // clamped before a track's first key: the root translation at 0 s is its first key (0.1 s)
    expect(frameOf(clip.translations.data, 0, 0, 3, 3)).toEqual([0, 1, 0]);
    expect(clip.source).toBe(keyed.source);
    expect(clip.name).toBe('test');
  });

  it('starts at the earliest key time and carries it as startTime (times are not shifted)', () => {
    const keyed = chainKeyed();
    keyed.tracks.splice(1, 1); // without the spine rotation, keys start at 0.1 s
    const clip = bakeClip(keyed, { rate: 10 });
    expect(clip.startTime).toBe(0.1);
    expect(clip.frames).toBe(11); // 0.1 … 1.1
    expect(frameOf(clip.translations.data, 10, 0, 3, 3)).toEqual([0.9, 1, 0.2]);
  });

  it('has no scales when no track animates a scale', () => {
    const keyed = chainKeyed();
    keyed.tracks.pop();
    expect(bakeClip(keyed, { rate: 10 }).scales).toBeUndefined();
  });

  it("names its frame-count policy: 'ceil' covers the last key, 'floor' stops before, 'keep-end' lands on it", () => {
    const keyed: KeyedClip = {
      ...chainKeyed(),
      tracks: [track(0, 'translation', 'linear', [0, 1.04], [0, 0, 0, 1, 1, 1])],
    };
    const ceil = bakeClip(keyed, { rate: 10 });
    expect(ceil.frames).toBe(12);
    expect(frameOf(ceil.translations.data, 11, 0, 3, 3)).toEqual([1, 1, 1]); // clamped after the last key
    expect(bakeClip(keyed, { rate: 10, duration: 'floor' }).frames).toBe(11);
    const keep = bakeClip(keyed, { rate: 10, duration: 'keep-end' });
    expect(keep.frames).toBe(11);
    expect(keep.rate).toBeCloseTo(10 / 1.04, 12);
    expect(maxDiff(frameOf(keep.translations.data, 10, 0, 3, 3), [1, 1, 1])).toBeLessThan(TOL.f64);
  });

  it('bakes Float32 glTF-style keys at their own rate: 30 Hz found, a frame per key, values within Float32 rounding', () => {
    const n = 61;
    const times = Array.from({ length: n }, (_, i) => i / 30);
    const values = times.flatMap((t) => axisAngle(1, 2, 0.5, 3 * Math.sin(2 * t)));
    const keyed: KeyedClip = {
      ...chainKeyed(),
      tracks: [track(1, 'rotation', 'linear', times, values, true)],
    };
    expect(inferKeyRate(keyed)).toEqual({ rate: 30, uniform: true, tracks: 1 });
    const clip = bakeClip(keyed);
    expect(clip.rate).toBe(30);
    expect(clip.frames).toBe(n);
    const stored = Array.from(Float32Array.from(values));
    const got = Array.from({ length: n }, (_, f) => frameOf(clip.rotations.data, f, 1, 3, 4)).flat();
    // keyTimes 'float32' (default): a grid time a rounding off a Float32 key time is that key, bit for bit
    expect(got).toEqual(stored);
    // 'exact': pure glTF evaluation, the keys interpolated a rounding away
    const exact = bakeClip(keyed, { keyTimes: 'exact' });
    const near = Array.from({ length: n }, (_, f) => frameOf(exact.rotations.data, f, 1, 3, 4)).flat();
    expect(maxDiff(near, stored)).toBeLessThan(TOL.f32);
    expect(maxDiff(near, stored)).toBeGreaterThan(0);
    // between keys nothing snaps: at 60 Hz every other frame is a slerp
    const up = bakeClip(keyed, { rate: 60 });
    expect(frameOf(up.rotations.data, 3, 1, 3, 4)).toEqual(
      Array.from(evaluateTrack(keyed.tracks[0], [3 / 60])),
    );
  });

  it('inferKeyRate finds NTSC rates, takes the finest of several uniform rates, the finest track for keys off one grid, and 30 Hz with no track', () => {
    const ntsc = Array.from({ length: 100 }, (_, i) => (i * 1001) / 30000);
    const k1: KeyedClip = {
      ...chainKeyed(),
      tracks: [
        track(
          0,
          'scale',
          'linear',
          ntsc,
          ntsc.flatMap(() => [1, 1, 1]),
          true,
        ),
      ],
    };
    expect(inferKeyRate(k1).rate).toBe(30000 / 1001);
    const t60 = Array.from({ length: 121 }, (_, i) => i / 60);
    const t30 = Array.from({ length: 61 }, (_, i) => i / 30);
    const k2: KeyedClip = {
      ...chainKeyed(),
      tracks: [
        track(
          0,
          'scale',
          'linear',
          t30,
          t30.flatMap(() => [1, 1, 1]),
        ),
        track(
          1,
          'scale',
          'linear',
          t60,
          t60.flatMap(() => [1, 1, 1]),
        ),
      ],
    };
    // every 30 Hz key lies on the 60 Hz grid: one grid holds every key
    expect(inferKeyRate(k2)).toEqual({ rate: 60, uniform: true, tracks: 2 });
    // keys at 0.1/0.4/1.1, 0/0.5/1 and 0.2/0.6 s: the finest track steps 0.4 s (2.5 Hz), and the others'
    // keys are off that grid (0.1 s is a quarter period from 0.2 s), so the keys are not uniform
    expect(inferKeyRate(chainKeyed())).toEqual({ rate: 2.5, uniform: false, tracks: 3 });
    expect(inferKeyRate({ ...chainKeyed(), tracks: [] })).toEqual({ rate: 30, uniform: true, tracks: 0 });
  });

  it("inferKeyRate(keyed) is not driven by a tiny track: 1 ms of 2 keys beside a 2000 s track bakes at the long track's rate", () => {
    const bomb: KeyedClip = {
      ...chainKeyed(),
      tracks: [
        track(0, 'translation', 'linear', [0, 0.001], [0, 0, 0, 1, 0, 0]),
        track(1, 'rotation', 'linear', [0, 2000], [...axisAngle(0, 1, 0, 0), ...axisAngle(0, 1, 0, 1)]),
      ],
    };
    // 1000 Hz over 2000 s would be 2 000 001 frames for 4 keys; the 2000 s track's own grid is 2 frames
    expect(inferKeyRate(bomb).rate).toBe(1 / 2000);
    expect(bakeClip(bomb).frames).toBe(2);
    // a short track at a higher rate still counts when its grid over the clip is no longer than the
    // clip's keys: 60 Hz over 10 s (601 frames) beside 301 + 61 keys
    const t30 = Array.from({ length: 301 }, (_, i) => i / 30);
    const t60 = Array.from({ length: 61 }, (_, i) => i / 60);
    const mixed: KeyedClip = {
      ...chainKeyed(),
      tracks: [
        track(
          0,
          'scale',
          'linear',
          t30,
          t30.flatMap(() => [1, 1, 1]),
        ),
        track(
          1,
          'scale',
          'linear',
          t60,
          t60.flatMap(() => [1, 1, 1]),
        ),
      ],
    };
    expect(inferKeyRate(mixed).rate).toBe(30);
    expect(inferKeyRate({ ...mixed, tracks: [...mixed.tracks, { ...mixed.tracks[0], joint: 2 }] }).rate).toBe(
      60,
    );
  });

  it('bakeClip(keyed, { maxValues }) refuses frames x joints x channels past the cap before allocating', () => {
    const keyed = chainKeyed(); // 3 joints, a scale track: 10 channels; 0 to 1.1 s
    // 100 Hz: 111 frames x 3 joints x 10 channels = 3330 values
    expect(() => bakeClip(keyed, { rate: 100, maxValues: 3329 })).toThrow(
      /111 frames x 3 joints x 10 channels = 3330 values, more than maxValues \(3329\)/,
    );
    expect(bakeClip(keyed, { rate: 100, maxValues: 3330 }).frames).toBe(111);
    expect(() => bakeClip(keyed, { maxValues: 0 })).toThrow(OptionError);
    // the default: 1 GiB of float64
    expect(BAKE_CLIP_DEFAULTS.maxValues).toBe(2 ** 27);
    expect(() => bakeClip(keyed, { rate: 5e6 })).toThrow(/more than maxValues \(134217728\)/);
  });

  it('does not bake weights tracks but counts their keys in the time span', () => {
    const keyed = chainKeyed([track(-1, 'weights', 'linear', [0, 1.5], [0, 1, 1, 0])]);
    const clip = bakeClip(keyed, { rate: 10 });
    expect(clip.frames).toBe(16);
    expect(clip.source).toBe(keyed.source);
  });

  it('bakes one key (or no track) as one frame', () => {
    const one: KeyedClip = {
      ...chainKeyed(),
      tracks: [track(0, 'translation', 'cubicspline', [2], [9, 9, 9, 1, 2, 3, 9, 9, 9])],
    };
    const clip = bakeClip(one);
    expect(clip.frames).toBe(1);
    expect(clip.startTime).toBe(2);
    expect(frameOf(clip.translations.data, 0, 0, 3, 3)).toEqual([1, 2, 3]);
    const none = bakeClip({ ...chainKeyed(), tracks: [] });
    expect(none.frames).toBe(1);
    expect(Array.from(none.rotations.data)).toEqual(Array.from(none.skeleton.restRotations));
  });

  it('bakes into options.out buffers when they are large enough', () => {
    const rotations = new Float64Array(12 * 3 * 4 + 8);
    const clip = bakeClip(chainKeyed(), { rate: 10, out: { rotations } });
    expect(clip.rotations.data.buffer).toBe(rotations.buffer);
    expect(clip.rotations.data.length).toBe(12 * 3 * 4);
    expect(() => bakeClip(chainKeyed(), { rate: 10, out: { rotations: new Float64Array(4) } })).toThrow(
      OptionError,
    );
  });

  it('rejects bad tracks naming the track and the key, and bad options', () => {
    const bad = chainKeyed();
    (bad.tracks[1].times as Float64Array)[2] = Number.NaN;
    expect(() => bakeClip(bad)).toThrow(/tracks\[1\] \(joint 1 'spine', rotation\): key 2 has time NaN/);
    expect(() => bakeClip(bad)).toThrow(InvalidValueError);
    const dup = chainKeyed([track(1, 'rotation', 'step', [0], [0, 0, 0, 1])]);
    expect(() => bakeClip(dup)).toThrow(/tracks\[3\].*same joint and path as tracks\[1\]/);
    const out = chainKeyed([track(5, 'rotation', 'step', [0], [0, 0, 0, 1])]);
    expect(() => bakeClip(out)).toThrow(ShapeError);
    expect(() => bakeClip(chainKeyed(), { rate: 0 })).toThrow(OptionError);
    expect(() => bakeClip(chainKeyed(), { fps: 30 } as never)).toThrow(/unknown option 'fps'/);
    expect(() => bakeClip(chainKeyed(), { duration: 'loop' as never })).toThrow(OptionError);
    expect(() => bakeClip(chainKeyed(), { keyTimes: 'near' as never })).toThrow(OptionError);
    // a long span at a high rate fails before allocating
    const long: KeyedClip = {
      ...chainKeyed(),
      tracks: [track(0, 'translation', 'linear', [0, 1e7], [0, 0, 0, 1, 1, 1])],
    };
    expect(() => bakeClip(long, { rate: 1000 })).toThrow(/maxFrames/);
  });
});

describe("bakeClip(keyed, { curve: 'spline' })", () => {
  it('bakes each track on its C² spline through the keys, keys kept, rest elsewhere', async () => {
    const { rotationSplineTrack } = await import('../../../src/ops/keys/rotation-spline.js');
    const { vectorSplineTrack } = await import('../../../src/ops/keys/vector-spline.js');
    const keyed = chainKeyed();
    const spline = bakeClip(keyed, { rate: 20, curve: 'spline' });
    const linear = bakeClip(keyed, { rate: 20 });
    assertClip(spline);
    expect(spline.frames).toBe(linear.frames);
    const times = Float64Array.from({ length: spline.frames }, (_, f) => f / 20);
    const rot = rotationSplineTrack(keyed.tracks[1], times);
    const pos = vectorSplineTrack(keyed.tracks[0], times);
    for (let f = 0; f < spline.frames; f++) {
      expect(frameOf(spline.rotations.data, f, 1, 3, 4)).toEqual(Array.from(rot.subarray(f * 4, f * 4 + 4)));
      expect(frameOf(spline.translations.data, f, 0, 3, 3)).toEqual(
        Array.from(pos.subarray(f * 3, f * 3 + 3)),
      );
      // joints without a track of that path hold their rest values
      expect(frameOf(spline.rotations.data, f, 0, 3, 4)).toEqual(
        Array.from(keyed.skeleton.restRotations.subarray(0, 4)),
      );
    }
    // on the keys (0, 0.5, 1 s for the rotation) both curves give the key
    for (const f of [0, 10, 20])
      expect(
        maxDiff(frameOf(spline.rotations.data, f, 1, 3, 4), frameOf(linear.rotations.data, f, 1, 3, 4)),
      ).toBeLessThan(1e-12);
    // between keys they differ: the spline bends where linear keys turn a corner
    expect(
      maxDiff(frameOf(spline.rotations.data, 5, 1, 3, 4), frameOf(linear.rotations.data, 5, 1, 3, 4)),
    ).toBeGreaterThan(1e-3);
  });

  it('refuses an unknown curve with an OptionError', () => {
    expect(() => bakeClip(chainKeyed(), { curve: 'bezier' as 'spline' })).toThrow(OptionError);
  });
});
