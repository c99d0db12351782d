import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { crc32, crc32Update } from '../../src/io/crc32.js';
import { readFixture } from '../support/shared-data.js';

interface Case {
  offset: number;
  length: number;
  crc: number;
}
const fixture = readFixture<{ size: number; cases: Case[] }>('npz/crc32.json');
const pattern = new Uint8Array(fixture.size);
for (let i = 0; i < pattern.length; i++) pattern[i] = Number((BigInt(i) * 2654435761n) % 2n ** 32n) >> 24;

describe('crc32', () => {
  test("matches Python's zlib.crc32 on runs at every alignment and tail length", () => {
    expect(fixture.cases.length).toBeGreaterThan(300);
    for (const { offset, length, crc } of fixture.cases)
      expect(crc32(pattern.subarray(offset, offset + length)), `offset ${offset}, length ${length}`).toBe(
        crc,
      );
  });

  test('the check value of the CRC-32/ISO-HDLC catalogue: "123456789" gives 0xcbf43926', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  test('chunks fed in order give the CRC of their concatenation, wherever they are cut', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 300 }),
        fc.array(fc.nat(300), { maxLength: 6 }),
        fc.nat(7),
        (bytes, cuts, shift) => {
          // the same bytes at another alignment in a larger buffer
          const host = new Uint8Array(bytes.length + 8);
          host.set(bytes, shift);
          const data = host.subarray(shift, shift + bytes.length);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          let state = -1;
          let from = 0;
          for (const c of [...at, bytes.length]) {
            state = crc32Update(state, data.subarray(from, c));
            from = c;
          }
          return (state ^ -1) >>> 0 === crc32(bytes);
        },
      ),
    );
  });

  test('a single flipped bit anywhere changes the checksum (what catches a corrupt member)', () => {
    const data = pattern.slice(3, 3 + 4099);
    const clean = crc32(data);
    fc.assert(
      fc.property(fc.nat(data.length * 8 - 1), (bit) => {
        const copy = data.slice();
        copy[bit >> 3] ^= 1 << (bit & 7);
        return crc32(copy) !== clean;
      }),
    );
  });
});
