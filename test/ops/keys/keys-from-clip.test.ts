import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { bakeClip } from '../../../src/ops/keys/bake-clip.js';
import { evaluateTrack } from '../../../src/ops/keys/evaluate-track.js';
import { keysFromClip } from '../../../src/ops/keys/keys-from-clip.js';
import type { Interpolation, KeyedClip, Track } from '../../../src/series/clip.js';
import { chainKeyed, chainSkeleton, maxDiff, track } from './helpers.js';

/** Random keyed clips on the chain: every path, all three interpolations, non-uniform times, Float32 or 64. */
const keyedArb = fc
  .record({
    interp: fc.array(fc.constantFrom<Interpolation>('step', 'linear', 'cubicspline'), {
      minLength: 3,
      maxLength: 3,
    }),
    gaps: fc.array(
      fc.array(fc.double({ min: 0.02, max: 0.4, noNaN: true }), { minLength: 1, maxLength: 8 }),
      {
        minLength: 3,
        maxLength: 3,
      },
    ),
    start: fc.double({ min: -1, max: 2, noNaN: true }),
    seed: fc.integer({ min: 1, max: 1e6 }),
    f32: fc.boolean(),
  })
  .map(({ interp, gaps, start, seed, f32 }): KeyedClip => {
    let s = seed;
    const rnd = () => {
      s = (s * 16807) % 2147483647;
      return s / 2147483647 - 0.5;
    };
    const paths = ['translation', 'rotation', 'scale'] as const;
    const tracks: Track[] = paths.map((path, i) => {
      let t = start;
      const times = gaps[i].map((g) => (t += g));
      const per = interp[i] === 'cubicspline' ? 3 : 1;
      const width = path === 'rotation' ? 4 : 3;
      const values: number[] = [];
      for (let k = 0; k < times.length * per; k++) {
        const v = Array.from({ length: width }, () => rnd());
        if (path === 'rotation' && (per === 1 || k % 3 === 1)) {
          v[3] += 0.8; // keep clear of zero
          const n = Math.hypot(...v);
          values.push(...v.map((x) => x / n));
        } else values.push(...v);
      }
      return track(i, path, interp[i], times, values, f32);
    });
    return { skeleton: chainSkeleton(), tracks, orders: ['XYZ', 'XYZ', 'XYZ'] };
  });

function sameUpToSign(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i += 4) {
    const plus = a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2] && a[i + 3] === b[i + 3];
    const minus =
      a[i] === -b[i] && a[i + 1] === -b[i + 1] && a[i + 2] === -b[i + 2] && a[i + 3] === -b[i + 3];
    if (!plus && !minus) return false;
  }
  return true;
}

describe("keysFromClip(clip, { keys: 'all' })", () => {
  it('makes one LINEAR track per animated component, a key per frame at startTime + f / rate', () => {
    const clip = bakeClip(chainKeyed(), { rate: 10 });
    const keyed = keysFromClip(clip);
    expect(keyed.tracks.map((t) => [t.joint, t.path, t.interpolation])).toEqual([
      [0, 'translation', 'linear'],
      [1, 'rotation', 'linear'],
      [2, 'scale', 'linear'],
    ]);
    for (const t of keyed.tracks) {
      expect(t.times.length).toBe(clip.frames);
      for (let f = 0; f < clip.frames; f++) expect(t.times[f]).toBe(f / 10);
    }
    expect(keyed.source).toBe(clip.source);
    expect(keyed.skeleton).toBe(clip.skeleton);
  });

  it('bake -> keysFromClip -> bake gives the same clip exactly (quaternions up to sign), for random keyed clips', () => {
    fc.assert(
      fc.property(keyedArb, fc.constantFrom(10, 24, 29.97, 30, 60), (keyed, rate) => {
        const a = bakeClip(keyed, { rate });
        const b = bakeClip(keysFromClip(a), { rate });
        expect(b.frames).toBe(a.frames);
        expect(b.startTime).toBe(a.startTime);
        expect(Array.from(b.animated)).toEqual(Array.from(a.animated));
        expect(Array.from(b.translations.data)).toEqual(Array.from(a.translations.data));
        expect(Array.from(b.scales!.data)).toEqual(Array.from(a.scales!.data));
        expect(sameUpToSign(b.rotations.data, a.rotations.data)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('makes rotation keys sign-continuous along every track', () => {
    fc.assert(
      fc.property(keyedArb, (keyed) => {
        const clip = bakeClip(keyed, { rate: 30 });
        // flip every other frame's sign: the same rotations, a discontinuous series
        for (let i = 0; i < clip.rotations.data.length; i += 8)
          for (let c = 0; c < 4; c++) clip.rotations.data[i + c] *= -1;
        for (const t of keysFromClip(clip).tracks) {
          if (t.path !== 'rotation') continue;
          for (let k = 1; k < t.times.length; k++) {
            let d = 0;
            for (let c = 0; c < 4; c++) d += t.values[k * 4 + c] * t.values[(k - 1) * 4 + c];
            expect(d).toBeGreaterThanOrEqual(0);
          }
          expect(t.values[3]).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe("keysFromClip(clip, { keys: 'optimal', targetRate })", () => {
  function smoothClip() {
    const n = 241; // 2 s at 120 Hz
    const times = Array.from({ length: n }, (_, i) => i / 120);
    const keyed: KeyedClip = {
      ...chainKeyed(),
      tracks: [
        track(
          0,
          'translation',
          'linear',
          times,
          times.flatMap((t) => [Math.sin(5 * t), Math.cos(3 * t), 0.2 * t]),
        ),
        track(
          1,
          'rotation',
          'linear',
          times,
          times.flatMap((t) => {
            const a = 0.8 * Math.sin(4 * t);
            return [Math.sin(a / 2), 0, 0, Math.cos(a / 2)];
          }),
        ),
      ],
    };
    return bakeClip(keyed, { rate: 120 });
  }

  it('keys at targetRate reconstruct the clip better than plain decimation (LINEAR playback, as glTF plays it)', () => {
    const clip = smoothClip();
    const optimal = keysFromClip(clip, { keys: 'optimal', targetRate: 30 });
    const all = keysFromClip(clip);
    const grid = Array.from({ length: clip.frames }, (_, f) => f / 120);
    for (const path of ['translation', 'rotation'] as const) {
      const opt = optimal.tracks.find((t) => t.path === path)!;
      expect(opt.times[1]).toBe(1 / 30);
      const src = all.tracks.find((t) => t.path === path)!;
      const w = src.width;
      // decimation: every 4th frame as a key
      const keep = Array.from({ length: Math.ceil(clip.frames / 4) }, (_, k) => k * 4);
      const dec: Track = {
        ...src,
        times: Float64Array.from(keep.map((f) => src.times[f])),
        values: Float64Array.from(keep.flatMap((f) => Array.from(src.values.subarray(f * w, f * w + w)))),
      };
      const truth = evaluateTrack(src, grid);
      const err = (t: Track) => {
        const got = evaluateTrack(t, grid);
        let s = 0;
        for (let i = 0; i < got.length; i += w) {
          let plus = 0;
          let minus = 0;
          for (let c = 0; c < w; c++) {
            plus += (got[i + c] - truth[i + c]) ** 2;
            minus += (got[i + c] + truth[i + c]) ** 2;
          }
          s += path === 'rotation' ? Math.min(plus, minus) : plus;
        }
        return s;
      };
      expect(err(opt)).toBeLessThan(err(dec));
    }
  });

  it('rejects a missing targetRate or one not below the clip rate', () => {
    const clip = smoothClip();
    expect(() => keysFromClip(clip, { keys: 'optimal' })).toThrow(OptionError);
    expect(() => keysFromClip(clip, { keys: 'optimal', targetRate: 120 })).toThrow(/below the clip's rate/);
    expect(() => keysFromClip(clip, { keys: 'some' as never })).toThrow(OptionError);
    expect(() => keysFromClip(clip, { key: 'all' } as never)).toThrow(/unknown option/);
  });

  it('one frame gives one-key tracks', () => {
    const clip = bakeClip({ ...chainKeyed(), tracks: [track(0, 'translation', 'step', [1], [1, 2, 3])] });
    const keyed = keysFromClip(clip, { keys: 'optimal', targetRate: 10 });
    expect(keyed.tracks.length).toBe(1);
    expect(Array.from(keyed.tracks[0].times)).toEqual([1]);
    expect(maxDiff(keyed.tracks[0].values, [1, 2, 3])).toBe(0);
  });
});
