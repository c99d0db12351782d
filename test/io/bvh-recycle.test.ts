// recycleClipArrays: the arrays of clips a caller is done with are filled by the next parse.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recycleClipArrays } from '../../src/io/bvh/recycle.js';
import { parseBvh, parseBvhBytes } from '../../src/io/index.js';
import { setSimdEnabled } from '../../src/numeric/simd.js';

const sample = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`../../samples/${name}`, import.meta.url)));

/** Whether two Float64Arrays hold the same bits (a byte comparison: fast on long arrays). */
const sameBits = (a: Float64Array | Float32Array, b: Float64Array | Float32Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** A one-joint file of `rows` frames whose values depend on `seed`. */
function small(rows: number, seed: number): string {
  const lines = Array.from(
    { length: rows },
    (_, f) => `${f * seed} ${-f} ${seed} ${10 * Math.sin(f + seed)} ${f} ${-seed}`,
  );
  return `HIERARCHY\nROOT A\n{\n  OFFSET 1 2 3\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: ${rows}\nFrame Time: 0.0333333\n${lines.join('\n')}\n`;
}

describe('recycleClipArrays(...clips)', () => {
  for (const simd of [true, false]) {
    it(`the next parse fills a recycled buffer and reads exactly what a fresh parse reads (SIMD ${simd ? 'on' : 'off'})`, () => {
      setSimdEnabled(simd);
      try {
        // a larger clip's buffers, then smaller files into them: nothing of the larger may show
        const big = parseBvh(small(400, 7));
        const fresh = parseBvh(small(300, 3));
        recycleClipArrays(big);
        const reused = parseBvh(small(300, 3));
        // each array into one of the two buffers (the smallest that fits, so they may swap)
        const buffers = new Set([big.rotations.data.buffer, big.translations.data.buffer]);
        expect(buffers.has(reused.rotations.data.buffer)).toBe(true);
        expect(buffers.has(reused.translations.data.buffer)).toBe(true);
        expect(reused.rotations.data.buffer).not.toBe(reused.translations.data.buffer);
        expect(reused.rotations.data.length).toBe(fresh.rotations.data.length);
        expect(Array.from(reused.rotations.data)).toEqual(Array.from(fresh.rotations.data));
        expect(Array.from(reused.translations.data)).toEqual(Array.from(fresh.translations.data));
        // a real capture likewise, into the buffers of the one before it
        const a = parseBvhBytes(sample('01_01.bvh')).clip;
        const b = parseBvhBytes(sample('01_01.bvh')).clip;
        recycleClipArrays(a);
        const c = parseBvhBytes(sample('01_01.bvh')).clip;
        expect(c.rotations.data.buffer).toBe(a.rotations.data.buffer);
        expect(sameBits(c.rotations.data, b.rotations.data)).toBe(true);
        expect(sameBits(c.translations.data, b.translations.data)).toBe(true);
      } finally {
        setSimdEnabled(true);
      }
    });
  }

  it('a buffer recycled twice is handed out once', () => {
    const a = parseBvh(small(200, 1));
    recycleClipArrays(a, a);
    recycleClipArrays(a);
    const first = parseBvh(small(200, 2));
    const second = parseBvh(small(200, 2));
    expect(first.rotations.data.buffer).toBe(a.rotations.data.buffer);
    expect(second.rotations.data.buffer).not.toBe(a.rotations.data.buffer);
    expect(Array.from(second.rotations.data)).toEqual(Array.from(first.rotations.data));
    // first's arrays are in use: filling second did not touch them
    expect(Array.from(first.rotations.data)).toEqual(Array.from(parseBvh(small(200, 2)).rotations.data));
  });

  it('the smallest buffer that holds the data is used, and a full store keeps the largest buffers', () => {
    // drain what earlier tests left
    for (let k = 0; k < 8; k++) parseBvh(small(4000, 1));
    const sizes = [100, 1000, 300, 3000, 30];
    const clips = sizes.map((rows) => parseBvh(small(rows, 1)));
    const fresh250 = Array.from(parseBvh(small(250, 4)).rotations.data);
    recycleClipArrays(...clips);
    // ten buffers offered, four kept: the rotation and translation buffers of the 3000- and 1000-row clips
    const kept = [clips[3], clips[1]].flatMap((c) => [c.rotations.data.buffer, c.translations.data.buffer]);
    // a 250-row file fits every kept buffer; it takes the smallest that holds each array: the two of the
    // 1000-row clip (its rotations, of 8000 bytes, into the 24,000-byte translation buffer)
    const small250 = parseBvh(small(250, 4));
    expect(small250.rotations.data.buffer).toBe(clips[1].translations.data.buffer);
    expect(small250.translations.data.buffer).toBe(clips[1].rotations.data.buffer);
    expect(Array.from(small250.rotations.data)).toEqual(fresh250);
    // the 3000-row clip's two are left: a 20-row file takes them rather than allocating
    const tiny = parseBvh(small(20, 5));
    expect(kept.slice(0, 2)).toContain(tiny.rotations.data.buffer);
    expect(kept.slice(0, 2)).toContain(tiny.translations.data.buffer);
    // the dropped buffers (clips of 100, 300 and 30 rows) are never handed out
    const dropped = [clips[0], clips[2], clips[4]].flatMap((c) => [
      c.rotations.data.buffer,
      c.translations.data.buffer,
    ]);
    for (let k = 0; k < 4; k++) {
      const c = parseBvh(small(20 + k, 6));
      expect(dropped).not.toContain(c.rotations.data.buffer);
      expect(dropped).not.toContain(c.translations.data.buffer);
    }
  });
});
