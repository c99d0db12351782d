// writeBvhChunks hands the BVH text over in chunks of about 1 MiB, each a view of one buffer that the next
// step writes over. Joined, the chunks must be writeBvhBytes's bytes, whatever comes between two chunks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../src/errors.js';
import { BVH_CHUNK_BYTES, parseBvh, writeBvhBytes, writeBvhChunks } from '../../src/io/index.js';
import { joinContent } from '../../src/node/atomic.js';
import { setSimdEnabled } from '../../src/numeric/simd.js';
import { resampleRotations } from '../../src/ops/resample/resample-rotations.js';
import type { Clip } from '../../src/series/clip.js';

const SAMPLES = new URL('../../samples/', import.meta.url);

/** The chunks, each copied as it comes (the next step writes over the buffer), and their sizes. */
function drain(chunks: Iterable<Uint8Array>, between?: () => void): { bytes: Buffer; sizes: number[] } {
  const parts: Buffer[] = [];
  for (const chunk of chunks) {
    parts.push(Buffer.from(chunk));
    between?.();
  }
  return { bytes: Buffer.concat(parts), sizes: parts.map((p) => p.length) };
}

/** `clip` repeated end to end `times` times: a text of several chunks. */
function repeated(clip: Clip, times: number): Clip {
  const cat = (data: Float64Array | Float32Array) => {
    const out = new Float64Array(data.length * times);
    for (let k = 0; k < times; k++) out.set(data, k * data.length);
    return out;
  };
  const frames = clip.frames * times;
  return {
    ...clip,
    frames,
    rotations: { data: cat(clip.rotations.data), frames, joints: clip.rotations.joints },
    translations: { data: cat(clip.translations.data), frames, joints: clip.translations.joints },
  };
}

describe('writeBvhChunks(clip, options)', () => {
  const sample = parseBvh(readFileSync(new URL('01_01.bvh', SAMPLES), 'utf8'));
  // about 6 MB of text: several chunks
  const long = repeated(sample, 3);
  // about 0.6 MB: one chunk
  const short = parseBvh(readFileSync(new URL('AV_8Walk_Meredith_HVHA_Rep1.bvh', SAMPLES), 'utf8'));

  it('joined, is writeBvhBytes to the byte: six decimals (the kernel), other precisions (copied texts), CRLF', () => {
    for (const options of [{}, { precision: 3 }, { newline: '\r\n' as const }, { precision: 9 }]) {
      const whole = Buffer.from(writeBvhBytes(long, options));
      const { bytes, sizes } = drain(writeBvhChunks(long, options));
      expect(bytes.equals(whole), JSON.stringify(options)).toBe(true);
      expect(sizes.length).toBeGreaterThan(4);
      // every chunk but the last passes the limit by less than one row, and ends with a whole row
      const rowBytes = whole.length / long.frames;
      for (const size of sizes.slice(0, -1)) {
        expect(size).toBeGreaterThanOrEqual(BVH_CHUNK_BYTES);
        expect(size).toBeLessThan(BVH_CHUNK_BYTES + 4 * rowBytes);
      }
      let at = 0;
      for (const size of sizes) {
        at += size;
        expect(whole[at - 1]).toBe(10);
      }
    }
  });

  it('is the same with the JavaScript row loop, and a short clip is one chunk with its header', () => {
    setSimdEnabled(false);
    try {
      expect(drain(writeBvhChunks(long)).bytes.equals(Buffer.from(writeBvhBytes(long)))).toBe(true);
    } finally {
      setSimdEnabled(true);
    }
    const { bytes, sizes } = drain(writeBvhChunks(short));
    expect(sizes.length).toBe(1);
    expect(bytes.equals(Buffer.from(writeBvhBytes(short)))).toBe(true);
    expect(bytes.subarray(0, 9).toString()).toBe('HIERARCHY');
  });

  it('keeps its bytes when other code uses the WebAssembly scratch memory between chunks, or another writer runs', () => {
    const whole = Buffer.from(writeBvhBytes(long));
    // down-sampling asks for a larger scratch memory (a new one) and writes its own data into it
    const series = { data: new Float64Array(40 * 3000 * 4).fill(0.5), frames: 3000, joints: 40 };
    const other = writeBvhChunks(long, { precision: 6 });
    const { bytes } = drain(writeBvhChunks(long), () => {
      resampleRotations(series, { sourceRate: 120, targetRate: 30 });
      other.next();
    });
    expect(bytes.equals(whole)).toBe(true);
  });

  it('joined for stdout (joinContent, which copies each chunk as it comes) is the whole text', () => {
    const joined = joinContent(writeBvhChunks(long));
    expect(Buffer.from(joined).equals(Buffer.from(writeBvhBytes(long)))).toBe(true);
  });

  it('checks its arguments at the call, and throws a non-finite value from the chunk of its row', () => {
    expect(() => writeBvhChunks(sample, { precision: 99 })).toThrow(OptionError);
    expect(() => writeBvhChunks(sample, { sigma: 1 } as never)).toThrow(OptionError);
    const broken = repeated(sample, 3);
    const frame = broken.frames - 10;
    broken.rotations.data[(frame * broken.rotations.joints + 3) * 4] = Number.NaN;
    const chunks = writeBvhChunks(broken);
    let handed = 0;
    expect(() => {
      for (const _ of chunks) handed++;
    }).toThrow(InvalidValueError);
    expect(handed).toBeGreaterThan(2);
    // a one-shot iterator, like a generator's
    expect([...chunks].length).toBe(0);
  });
});
