import { describe, expect, it } from 'vitest';
import { parseBvhWithReport } from '../../../src/io/index.js';
import { clipRate, keyTimesRate, standardRate } from '../../../src/ops/analysis/rate.js';
import { clipSourceRate } from '../../../src/ops/resample/resample-clip.js';
import { HAS_SHARED_BVH, readSharedBvh, SHARED_BVH_FILES } from '../../support/shared-data.js';

/**
 * Key times as COLLADA2GLTF writes a 37.5 Hz animation: the COLLADA times printed with 4 decimals, then
 * accumulated and stored as float32, so consecutive intervals range from 0.0266 to 0.0267 s.
 */
function colladaTimes(keys: number): Float32Array {
  const out = new Float32Array(keys);
  for (let k = 0; k < keys; k++) out[k] = Math.fround(Math.round((k / 37.5) * 1e4) / 1e4);
  return out;
}

describe('standardRate(frameTime, text): the rate a written frame time stands for', () => {
  it('.0083333 is 120, 0.0333333 is 30, 0.016667 is 60, 0.0333667 is 30000/1001; 0.033 and 0.0083334 stand for none', () => {
    expect(standardRate(0.0083333, '.0083333')).toBe(120);
    expect(standardRate(0.0333333, '0.0333333')).toBe(30);
    expect(standardRate(0.016667, '0.016667')).toBe(60);
    expect(standardRate(0.0333667, '0.0333667')).toBe(30000 / 1001);
    expect(standardRate(0.033, '0.033')).toBeNull();
    expect(standardRate(0.0083334, '0.0083334')).toBeNull();
  });
});

describe.skipIf(!HAS_SHARED_BVH)('clipRate(clip) on the shared captures', () => {
  it('every capture reads at the whole rate its Frame Time stands for (was 120.00048, 30.00003, ... on 6 of 8)', () => {
    for (const file of SHARED_BVH_FILES) {
      const text = readSharedBvh(file);
      const written = /Frame Time:\s*([0-9.]+)/i.exec(text)![1];
      // the whole number nearest to the written rate: what the rounded digits mean
      const meant = Math.round(1 / Number(written));
      const { clip, warnings } = parseBvhWithReport(text);
      expect(clip.rate, file).toBe(meant);
      expect(clip.frameTime, file).toBe(1 / meant);
      expect(clipRate(clip).rate, file).toBe(meant);
      expect(clipSourceRate(clip), file).toBe(meant);
      const notes = warnings.filter((w) => w.code === 'frame-rate');
      expect(notes.length, file).toBe(1 / Number(written) === meant ? 0 : 1);
    }
  });
});

describe('keyTimesRate(times) and clipRate(keyed)', () => {
  it('a COLLADA2GLTF 37.5 Hz grid with float32 jitter is uniform 37.5 Hz, with its spread measured', () => {
    const times = colladaTimes(48);
    let lo = Number.POSITIVE_INFINITY;
    let hi = 0;
    for (let k = 1; k < times.length; k++) {
      lo = Math.min(lo, times[k] - times[k - 1]);
      hi = Math.max(hi, times[k] - times[k - 1]);
    }
    expect(lo).toBeLessThan(0.02665);
    expect(hi).toBeGreaterThan(0.02668);
    const r = keyTimesRate([times, times.subarray(0, 1)]);
    expect(r.rate).toBe(37.5);
    expect(r.uniform).toBe(true);
    expect(r.from).toBe('key-times');
    // the largest distance of a key from k / 37.5, computed here directly
    let spread = 0;
    for (let k = 0; k < times.length; k++) spread = Math.max(spread, Math.abs(times[k] - k / 37.5));
    expect(r.spread).toBeCloseTo(spread, 12);
    expect(r.spread).toBeGreaterThan(1e-5);
    expect(r.minInterval).toBe(lo);
    expect(r.maxInterval).toBe(hi);
  });

  it('a track every other frame and a track every frame of 24 Hz share the 24 Hz grid', () => {
    const every = Float32Array.from({ length: 25 }, (_, k) => k / 24);
    const half = Float32Array.from({ length: 13 }, (_, k) => (2 * k) / 24);
    const r = keyTimesRate([half, every]);
    expect(r.rate).toBe(24);
    expect(r.uniform).toBe(true);
  });

  it('keys off any grid are not uniform, and their rate is their median interval, not a default', () => {
    const times = Float32Array.from([0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.9]);
    const r = keyTimesRate([times]);
    expect(r.uniform).toBe(false);
    expect(r.rate).toBe(10);
    const keyed = {
      tracks: [{ times, values: new Float32Array(times.length * 4), path: 'rotation' }],
    } as unknown as Parameters<typeof clipRate>[0];
    expect(clipRate(keyed).rate).toBe(10);
  });

  it("a tiny track never sets the rate: 1 ms of two keys beside a 2000 s track is the long track's rate", () => {
    // 1000 Hz over 2000 s would be 2,000,001 frames for 4 keys; the long track's own grid is 2 frames
    const r = keyTimesRate([Float32Array.from([0, 0.001]), Float32Array.from([0, 2000])]);
    expect(r.rate).toBe(1 / 2000);
    // a dense track that spans the clip still counts
    const dense = Float32Array.from({ length: 61 }, (_, i) => i / 30);
    expect(keyTimesRate([dense, Float32Array.from([0, 2])]).rate).toBe(30);
  });
});
