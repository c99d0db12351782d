// The exponential filter's encoder against meshoptimizer's own (SharedComponent mode), bit for bit, and
// its decoding against meshoptimizer's decoder.
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import { decodeExpFilter, encodeExpFilter } from '../../../src/ops/reduce/exp-filter.js';

function translations(n: number, seed: number): Float32Array {
  let s = seed;
  const rand = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const out = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    out[i * 3] = 40 * Math.sin(i / 17) + rand() - 0.5; // a root wandering tens of units
    out[i * 3 + 1] = 90 + 3 * rand(); // height
    out[i * 3 + 2] = i % 7 === 0 ? 0 : 1e-3 * (rand() - 0.5); // small, with exact zeros
  }
  out[5] = 2 ** 6; // an exact power of two: the largest mantissa
  out[8] = -(2 ** -3);
  return out;
}

describe('exponential filter (SharedComponent)', () => {
  it('encodes bit for bit as meshoptimizer does, at every width from 1 to 24, and decodes as its decoder', async () => {
    await MeshoptEncoder.ready;
    await MeshoptDecoder.ready;
    for (const seed of [1, 2, 3]) {
      const v = translations(203, seed);
      for (let bits = 1; bits <= 24; bits++) {
        const ours = new Uint32Array(v.length);
        encodeExpFilter(v, 203, 3, bits, ours);
        const theirs = MeshoptEncoder.encodeFilterExp(v, 203, 12, bits, 'SharedComponent');
        expect(new Uint8Array(ours.buffer), `bits ${bits}`).toEqual(theirs);
        const decoded = new Float32Array(v.length);
        decodeExpFilter(ours, decoded);
        // meshoptimizer's decoder on the codes, through its glTF buffer codec
        const raw = MeshoptEncoder.encodeGltfBuffer(new Uint8Array(ours.buffer), 203, 12, 'ATTRIBUTES');
        const back = new Uint8Array(203 * 12);
        MeshoptDecoder.decodeGltfBuffer(back, 203, 12, raw, 'ATTRIBUTES', 'EXPONENTIAL');
        expect(new Float32Array(back.buffer), `bits ${bits}`).toEqual(decoded);
      }
    }
  });

  it('refuses widths outside 1 to 24 and values that are not finite, naming the element', () => {
    const out = new Uint32Array(3);
    expect(() => encodeExpFilter([0, 0, 0], 1, 3, 25, out)).toThrow(OptionError);
    expect(() => encodeExpFilter([0, 0, 0], 1, 3, 0, out)).toThrow(OptionError);
    expect(() => encodeExpFilter([0, Number.NaN, 0], 1, 3, 12, out)).toThrow(InvalidValueError);
    expect(() => encodeExpFilter([0, Number.NaN, 0], 1, 3, 12, out)).toThrow(/element 0, component 1/);
  });
});
