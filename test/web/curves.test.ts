// The curves the studio's worker posts (web/src/curves.ts): thinned for the screen without losing a spike,
// and, on a small keyed track, the same values and key dots as a direct evaluation.
import { describe, expect, it } from 'vitest';
import { bakeClip, type KeyedClip, makeSkeleton, type Track } from '../../src/index.js';
import { curveData, DRAW_COLUMNS, decimationRows, postCurves } from '../../web/src/curves.js';

/** A one-joint LINEAR rotation track about z, angle `angle(k)` at key k, keys at `rate` Hz. */
function zTrack(keys: number, rate: number, angle: (k: number) => number): KeyedClip {
  const times = new Float64Array(keys);
  const values = new Float64Array(keys * 4);
  for (let k = 0; k < keys; k++) {
    times[k] = k / rate;
    const a = angle(k);
    values[k * 4 + 2] = Math.sin(a / 2);
    values[k * 4 + 3] = Math.cos(a / 2);
  }
  const track = { joint: 0, path: 'rotation', interpolation: 'linear', width: 4, times, values } as Track;
  const skeleton = makeSkeleton({
    names: ['root'],
    parents: [-1],
    restTranslations: [0, 0, 0],
    restRotations: [0, 0, 0, 1],
  });
  return { name: 'z', skeleton, orders: ['zyx'], tracks: [track] } as unknown as KeyedClip;
}

describe('decimationRows', () => {
  it('keeps short tables whole', () => {
    const x = Float64Array.from({ length: 100 }, (_, i) => i);
    expect(decimationRows([x, x], 64)).toBeNull();
  });

  it('keeps every bucket’s extremes: a one-sample spike and the ends survive, NaN is skipped', () => {
    const n = 100_000;
    const x = Float64Array.from({ length: n }, (_, i) => i / 30);
    const a = Float64Array.from({ length: n }, (_, i) => Math.sin(i / 500));
    const b = new Float64Array(n).fill(Number.NaN);
    a[54_321] = 40;
    a[7] = -40;
    const rows = decimationRows([x, a, b], 512)!;
    expect(rows.length).toBeLessThan(512 * 6);
    expect([...rows]).toEqual(expect.arrayContaining([0, 7, 54_321, n - 1]));
    // in every bucket (as decimationRows buckets time) the kept rows hold the bucket's min and max of a
    const bucket = (i: number) => Math.min(511, Math.floor(((x[i] - x[0]) / (x[n - 1] - x[0])) * 512));
    const lo = new Array(512).fill(Infinity);
    const hi = new Array(512).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      lo[bucket(i)] = Math.min(lo[bucket(i)], a[i]);
      hi[bucket(i)] = Math.max(hi[bucket(i)], a[i]);
    }
    const keptLo = new Array(512).fill(Infinity);
    const keptHi = new Array(512).fill(-Infinity);
    for (const r of rows) {
      keptLo[bucket(r)] = Math.min(keptLo[bucket(r)], a[r]);
      keptHi[bucket(r)] = Math.max(keptHi[bucket(r)], a[r]);
    }
    expect(keptLo).toEqual(lo);
    expect(keptHi).toEqual(hi);
  });
});

describe('postCurves', () => {
  it('posts a small keyed track’s Euler curves and key dots as a direct evaluation gives them', () => {
    const keys = 61;
    const angle = (k: number) => 0.05 * k;
    const clip = bakeClip(zTrack(keys, 30, angle));
    const tracks = zTrack(keys, 30, angle).tracks;
    const d = curveData('euler', clip, null, 0, false, null, { tracks, kept: null });
    const { curves, transfer } = postCurves('euler', 0, d);
    expect(curves.rows).toBe(keys);
    expect(curves.columns[0].length).toBe(keys);
    // the z channel in degrees equals the angle the keys were made from; the others are zero
    const order = clip.orders[0].toUpperCase();
    const z = 1 + order.indexOf('Z');
    for (let k = 0; k < keys; k++) {
      expect(curves.columns[0][k]).toBeCloseTo(k / 30, 9);
      expect(curves.columns[z][k]).toBeCloseTo((angle(k) * 180) / Math.PI, 6);
    }
    // processed columns absent: NaN
    expect(curves.columns.slice(4).every((c) => c.every(Number.isNaN))).toBe(true);
    // one dot set per channel at the keys
    expect(curves.dots.map((s) => s.column)).toEqual([1, 2, 3]);
    expect(Array.from(curves.dots[z - 1].y)).toEqual(Array.from(curves.columns[z]));
    expect(transfer.length).toBeGreaterThan(0);
  });

  it('thins a long track for the screen; the key dots keep every pixel column’s extremes of the keys', () => {
    const keys = 200_000;
    const rate = 30;
    // a slow swing, a fast ripple and one spike key: each pixel column holds ~200 keys
    const angle = (k: number) =>
      k === 123_457 ? 1.2 : 0.3 * Math.sin(k * 0.0005) + 0.01 * Math.sin(k * 1.7);
    const clip = bakeClip(zTrack(keys, rate, angle));
    const tracks = zTrack(keys, rate, angle).tracks;
    const d = curveData('quat', clip, null, 0, false, null, { tracks, kept: null });
    const grid = { width: 937.5, height: 300 };
    const { curves } = postCurves('quat', 0, d, DRAW_COLUMNS, grid);
    expect(curves.rows).toBe(keys);
    expect(curves.columns[0].length).toBeLessThan(DRAW_COLUMNS * 8);
    expect(curves.grid).toEqual(grid);
    // the spike (z of the one key at 1.2 rad) is drawn
    expect(Math.max(...curves.columns[3])).toBeCloseTo(Math.sin(0.6), 9);
    // the key dots, per channel: far fewer than the keys, and the count of keys they stand for
    expect(curves.dots.map((s) => s.column)).toEqual([1, 2, 3, 4]);
    expect(curves.dots.map((s) => s.keys)).toEqual([keys, keys, keys, keys]);
    for (const s of curves.dots) expect(s.x.length).toBeLessThan(keys / 10);
    // the plot draws a dot at pixel column round((x - x0) / (x1 - x0) * width) (LinePlot.drawDots); the
    // keys the track was made from (time k / rate, quaternion (0, 0, sin(a/2), cos(a/2))) give each pixel
    // column's smallest and largest value of each channel, which the dots drawn there must include
    const x1 = (keys - 1) / rate;
    const column = (t: number) => Math.round(t * (grid.width / x1));
    const component = (k: number, c: number) => [0, 0, Math.sin(angle(k) / 2), Math.cos(angle(k) / 2)][c];
    for (let c = 0; c < 4; c++) {
      const lo = new Map<number, number>();
      const hi = new Map<number, number>();
      for (let k = 0; k < keys; k++) {
        const px = column(k / rate);
        const v = component(k, c);
        lo.set(px, Math.min(lo.get(px) ?? Infinity, v));
        hi.set(px, Math.max(hi.get(px) ?? -Infinity, v));
      }
      const set = curves.dots[c];
      const dotLo = new Map<number, number>();
      const dotHi = new Map<number, number>();
      for (let i = 0; i < set.x.length; i++) {
        // every dot is one of the keys, at its time and value
        const k = Math.round(set.x[i] * rate);
        expect(set.x[i]).toBeCloseTo(k / rate, 9);
        expect(set.y[i]).toBeCloseTo(component(k, c), 9);
        const px = column(set.x[i]);
        dotLo.set(px, Math.min(dotLo.get(px) ?? Infinity, set.y[i]));
        dotHi.set(px, Math.max(dotHi.get(px) ?? -Infinity, set.y[i]));
      }
      expect([...dotLo.keys()].sort((a, b) => a - b)).toEqual([...lo.keys()].sort((a, b) => a - b));
      for (const [px, v] of lo) expect(dotLo.get(px)).toBeCloseTo(v, 9);
      for (const [px, v] of hi) expect(dotHi.get(px)).toBeCloseTo(v, 9);
    }
  });

  it('keeps every key dot of a short track (at most four keys per pixel column)', () => {
    const keys = 3000;
    const angle = (k: number) => 0.001 * k;
    const clip = bakeClip(zTrack(keys, 30, angle));
    const d = curveData('quat', clip, null, 0, false, null, {
      tracks: zTrack(keys, 30, angle).tracks,
      kept: null,
    });
    const { curves } = postCurves('quat', 0, d, DRAW_COLUMNS, { width: 800, height: 300 });
    expect(curves.dots.map((s) => s.x.length)).toEqual([keys, keys, keys, keys]);
  });
});
