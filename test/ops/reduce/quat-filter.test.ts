// The quaternion filter of EXT_meshopt_compression: rotsig's decoder against meshoptimizer's own (the
// decoder players load files with), and the encoder's accuracy at every bit width.
import fc from 'fast-check';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeQuatFilter, encodeQuatFilter } from '../../../src/ops/reduce/quat-filter.js';
import '../../support/fast-check-seed.js';

beforeAll(async () => {
  await MeshoptDecoder.ready;
  await MeshoptEncoder.ready;
});

/** meshoptimizer's decoding of filter input `codes` (n keys), through a compressed buffer view. */
function meshoptDecode(codes: Int16Array): Int16Array {
  const n = codes.length / 4;
  const bytes = new Uint8Array(codes.buffer.slice(codes.byteOffset, codes.byteOffset + codes.byteLength));
  const packed = MeshoptEncoder.encodeGltfBuffer(bytes, n, 8, 'ATTRIBUTES');
  const out = new Uint8Array(n * 8);
  MeshoptDecoder.decodeGltfBuffer(out, n, 8, packed, 'ATTRIBUTES', 'QUATERNION');
  return new Int16Array(out.buffer);
}

/** Unit quaternions from a seeded generator, and the hard cases: axes, ties at 1/√2, near-ties. */
function quaternions(n: number, seed: number): Float64Array {
  const out = new Float64Array(n * 4);
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const h = Math.SQRT1_2;
  const special = [
    [0, 0, 0, 1],
    [1, 0, 0, 0],
    [0, -1, 0, 0],
    [0, 0, 0, -1],
    [h, h, 0, 0],
    [h, 0, 0, -h],
    [0.5, 0.5, 0.5, 0.5],
    [-0.5, 0.5, -0.5, 0.5],
  ];
  for (let i = 0; i < n; i++) {
    const q = i < special.length ? special[i] : [next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5];
    const l = Math.hypot(q[0], q[1], q[2], q[3]);
    for (let c = 0; c < 4; c++) out[i * 4 + c] = q[c] / l;
  }
  return out;
}

describe('quaternion filter (EXT_meshopt_compression filter 2)', () => {
  it("decodes every bit width (4..16) exactly as meshoptimizer's decoder does", () => {
    const n = 20000;
    const q = quaternions(n, 7);
    for (let bits = 4; bits <= 16; bits++) {
      const codes = new Int16Array(n * 4);
      for (let i = 0; i < n; i++) encodeQuatFilter(q, i * 4, bits, codes, i * 4);
      const ours = new Int16Array(n * 4);
      for (let i = 0; i < n; i++) decodeQuatFilter(codes, i * 4, ours, i * 4);
      const theirs = meshoptDecode(codes);
      let differing = 0;
      for (let i = 0; i < ours.length; i++) if (ours[i] !== theirs[i]) differing++;
      expect(differing, `${bits} bits`).toBe(0);
    }
  });

  it('codes stay in the K-bit range, carry 1.0 with the largest index, and decode within the rounding of K bits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 4, max: 16 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
        (bits, raw) => {
          const l = Math.hypot(...raw);
          fc.pre(l > 1e-3);
          const q = Float64Array.from(raw, (x) => x / l);
          const codes = new Int16Array(4);
          encodeQuatFilter(q, 0, bits, codes, 0);
          const one = (1 << (bits - 1)) - 1;
          for (let c = 0; c < 3; c++) expect(Math.abs(codes[c])).toBeLessThanOrEqual(one);
          expect(codes[3] | 3).toBe(one);
          const out = new Int16Array(4);
          decodeQuatFilter(codes, 0, out, 0);
          const n = Math.hypot(out[0], out[1], out[2], out[3]);
          // a unit quaternion to the 16-bit output's rounding
          expect(Math.abs(n / 32767 - 1)).toBeLessThan(3e-4 + 4 / one);
          // the same rotation (either sign) to the components' rounding: each of the three within
          // 1/(2·√2·one) (|Δ| ≤ 0.62/one), w (≥ 1/2) following by at most (1 + √3)·|Δ|, the 16-bit
          // output within 1/32767 each; the angle is twice the chord
          const dot = Math.abs(q[0] * out[0] + q[1] * out[1] + q[2] * out[2] + q[3] * out[3]) / n;
          const angle = 2 * Math.acos(Math.min(1, dot));
          expect(angle).toBeLessThanOrEqual(2 * (2 / one + 2 / 32767));
        },
      ),
    );
  });

  it('decoding writes only its four outputs, and the rest of the array is untouched', () => {
    const codes = new Int16Array([100, -200, 50, (((1 << 11) - 1) & ~3) | 2, 9, 9, 9, 9]);
    const out = new Int16Array([7, 7, 7, 7, 7, 7, 7, 7, 7, 7]);
    decodeQuatFilter(codes, 0, out, 3);
    expect([out[0], out[1], out[2], out[7], out[8], out[9]]).toEqual([7, 7, 7, 7, 7, 7]);
    expect(Array.from(out.subarray(3, 7))).toEqual(Array.from(meshoptDecode(codes.slice(0, 4))));
  });
});
