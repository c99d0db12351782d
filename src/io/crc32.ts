/**
 * CRC-32 (IEEE 802.3, the checksum zip stores for each member), by table look-up sixteen bytes at a time.
 * Internal to the `.npz` reader and writer.
 *
 * @module
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

let table: Int32Array | undefined;

/** Sixteen 256-entry tables: entry `t * 256 + b` is the CRC of byte `b` followed by `t` zero bytes. */
function crcTable(): Int32Array {
  if (table !== undefined) return table;
  const t = new Int32Array(16 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++)
    for (let s = 1; s < 16; s++)
      t[s * 256 + i] = (t[(s - 1) * 256 + i] >>> 8) ^ t[t[(s - 1) * 256 + i] & 0xff];
  table = t;
  return t;
}

/**
 * @internal Continues a CRC-32 over `data`: `state` is the running register (`-1` to start), the return
 * value the register after `data`; the checksum is `(state ^ -1) >>> 0`. Chunks fed in order give the
 * CRC of their concatenation.
 *
 * Method: slicing-by-16 (Kounavis and Berry, "A Systematic Approach to Building High Performance,
 * Software-based, CRC Generators", 2005) over 32-bit words read through an `Int32Array` view (no
 * allocation per byte, one load per four bytes); bytes before the first 4-aligned address and after the
 * last whole word go one at a time. Big-endian machines take the byte-at-a-time loop throughout.
 */
export function crc32Update(state: number, data: Uint8Array): number {
  const T = crcTable();
  let c = state | 0;
  let i = 0;
  const n = data.length;
  const lead = (4 - (data.byteOffset & 3)) & 3;
  if (LITTLE_ENDIAN && n >= lead + 16) {
    for (; i < lead; i++) c = T[(c ^ data[i]) & 0xff] ^ (c >>> 8);
    const words = (n - lead) >>> 2;
    const w = new Int32Array(data.buffer, data.byteOffset + lead, words);
    const blocks = words - (words & 3);
    let j = 0;
    for (; j < blocks; j += 4) {
      const a = c ^ w[j];
      const b = w[j + 1];
      const d = w[j + 2];
      const e = w[j + 3];
      c =
        T[3840 + (a & 0xff)] ^
        T[3584 + ((a >>> 8) & 0xff)] ^
        T[3328 + ((a >>> 16) & 0xff)] ^
        T[3072 + (a >>> 24)] ^
        T[2816 + (b & 0xff)] ^
        T[2560 + ((b >>> 8) & 0xff)] ^
        T[2304 + ((b >>> 16) & 0xff)] ^
        T[2048 + (b >>> 24)] ^
        T[1792 + (d & 0xff)] ^
        T[1536 + ((d >>> 8) & 0xff)] ^
        T[1280 + ((d >>> 16) & 0xff)] ^
        T[1024 + (d >>> 24)] ^
        T[768 + (e & 0xff)] ^
        T[512 + ((e >>> 8) & 0xff)] ^
        T[256 + ((e >>> 16) & 0xff)] ^
        T[e >>> 24];
    }
    for (; j < words; j++) {
      const a = c ^ w[j];
      c = T[768 + (a & 0xff)] ^ T[512 + ((a >>> 8) & 0xff)] ^ T[256 + ((a >>> 16) & 0xff)] ^ T[a >>> 24];
    }
    i = lead + 4 * words;
  }
  for (; i < n; i++) c = T[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return c;
}

/**
 * @internal The CRC-32 of `data` as zip stores it (an unsigned 32-bit number; `zlib.crc32` in Python).
 *
 * @example
 * crc32(new TextEncoder().encode('123456789')); // 0xcbf43926
 */
export function crc32(data: Uint8Array): number {
  return (crc32Update(-1, data) ^ -1) >>> 0;
}
