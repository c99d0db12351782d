import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { OptionError } from '../../src/errors.js';
import {
  listNpz,
  type NdArray,
  NpyError,
  NpzError,
  parseNpy,
  parseNpz,
  writeNpy,
  writeNpz,
} from '../../src/io/index.js';
import { PARSE_NPZ_DEFAULTS } from '../../src/io/npz.js';
import { readFixture } from '../support/shared-data.js';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'npz');
const bytesOf = (name: string) => new Uint8Array(readFileSync(join(DIR, name)));

interface Member {
  dtype: string;
  shape: number[];
  fortran: boolean;
  values: (string | number)[];
}
const expected = readFixture<{ members: Record<string, Member> }>('npz/expected.json');

const DTYPE_OF: Record<string, string> = {
  f8: 'float64',
  f4: 'float32',
  f2: 'float16',
  i1: 'int8',
  u1: 'uint8',
  i2: 'int16',
  u2: 'uint16',
  i4: 'int32',
  u4: 'uint32',
  i8: 'int64',
  u8: 'uint64',
  b1: 'bool',
};

/** The values of an NdArray as the fixture writes them (float reprs, 64-bit ints as strings). */
function asFixture(a: NdArray): (string | number)[] {
  if (Array.isArray(a.data)) return a.data;
  if (a.data instanceof BigInt64Array || a.data instanceof BigUint64Array) return Array.from(a.data, String);
  if (a.dtype.startsWith('float')) return Array.from(a.data as Float64Array, (x) => x);
  return Array.from(a.data as Int32Array);
}

function expectMember(a: NdArray, m: Member, name: string): void {
  expect(a.shape, name).toEqual(m.shape);
  const kind = m.dtype.slice(1);
  if (kind[0] === 'U') expect(a.dtype).toBe('str');
  else if (kind[0] === 'S') expect(a.dtype).toBe('bytes');
  else expect(a.dtype, name).toBe(DTYPE_OF[kind]);
  const got = asFixture(a);
  if (a.dtype.startsWith('float')) expect(got, name).toEqual(m.values.map((v) => Number(v)));
  else expect(got, name).toEqual(m.values);
}

describe('parseNpz(bytes) on numpy.savez and numpy.savez_compressed files', () => {
  for (const file of ['all_savez.npz', 'all_savez_compressed.npz']) {
    test(`parseNpz(${file}) reads every dtype, byte order and layout exactly, in C order`, () => {
      const npz = parseNpz(bytesOf(file));
      expect(Object.keys(npz)).toEqual(Object.keys(expected.members));
      for (const [name, m] of Object.entries(expected.members)) expectMember(npz[name], m, name);
    });
  }

  test('parseNpz reads unicode and bytes scalars as one-string arrays of shape []', () => {
    const npz = parseNpz(bytesOf('all_savez.npz'));
    expect(npz.unicode).toEqual({ data: ['female'], shape: [], dtype: 'str', itemSize: 6 });
    expect(npz.bytes).toEqual({ data: ['male'], shape: [], dtype: 'bytes', itemSize: 4 });
    expect(npz.unicode_wide.data).toEqual(['Zoë', '😀 ok', '', 'abé']);
  });

  test('parseNpz reads a SMPL-X AMASS-layout file written by savez_compressed', () => {
    const npz = parseNpz(bytesOf('amass_smplx.npz'));
    expect(npz.poses.shape).toEqual([30, 165]);
    expect(npz.gender.data).toEqual(['female']);
    expect((npz.mocap_frame_rate.data as Float64Array)[0]).toBe(59.9999885);
  });
});

describe('parseNpy(bytes)', () => {
  test('parseNpy and parseNpz read a Node Buffer from readFileSync (pooled, with a slice that does not copy)', () => {
    const small = readFileSync(join(DIR, 'unicode_scalar.npy'));
    expect(parseNpy(small).data).toEqual(['female']);
    const a = parseNpz(readFileSync(join(DIR, 'all_savez.npz')));
    expect(Array.from(a.u1.data as Uint8Array)).toEqual([0, 1, 255]);
    expect(Object.getPrototypeOf(a.u1.data)).toBe(Uint8Array.prototype);
    expect(a.f8.data).toEqual(parseNpz(bytesOf('all_savez.npz')).f8.data);
  });

  test('parseNpy reads format versions 2.0 and 3.0 and big-endian Fortran-order files', () => {
    expectMember(parseNpy(bytesOf('version2.npy')), expected.members.f8, 'version2');
    expectMember(parseNpy(bytesOf('version3.npy')), expected.members.f4, 'version3');
    expectMember(parseNpy(bytesOf('fortran_big.npy')), expected.members.fortran3_big, 'fortran_big');
    expect(parseNpy(bytesOf('unicode_scalar.npy')).data).toEqual(['female']);
  });

  test('parseNpy refuses an object array (pickle) with NpyError code npy-pickle, never unpickling', () => {
    const err = (() => {
      try {
        parseNpy(bytesOf('object.npy'));
      } catch (e) {
        return e;
      }
    })() as NpyError;
    expect(err).toBeInstanceOf(NpyError);
    expect(err.code).toBe('npy-pickle');
  });

  test('parseNpz names the member holding an object array', () => {
    // members are decoded when read, so the error comes from reading the member
    const npz = parseNpz(bytesOf('object_member.npz'));
    expect(() => npz.bad).toThrow(/^bad\.npy: object arrays/);
  });

  test('parseNpy refuses complex and structured dtypes with NpyError code npy-dtype', () => {
    for (const f of ['complex.npy', 'structured.npy']) {
      expect(() => parseNpy(bytesOf(f))).toThrow(NpyError);
      try {
        parseNpy(bytesOf(f));
      } catch (e) {
        expect((e as NpyError).code).toBe('npy-dtype');
      }
    }
  });

  test('parseNpy refuses a truncated data section, a bad magic and a malformed header', () => {
    const good = bytesOf('version2.npy');
    expect(() => parseNpy(good.subarray(0, good.length - 1))).toThrow(
      /truncated: shape \(3, 4\) of <f8 needs 96 bytes/,
    );
    const bad = good.slice();
    bad[1] = 0;
    expect(() => parseNpy(bad)).toThrow(NpyError);
    expect(() =>
      parseNpy(withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': __import__('os'), }", 16)),
    ).toThrow(/malformed header/);
    expect(() => parseNpy(withHeader("{'descr': '<f8', 'shape': (2,), }", 16))).toThrow(/needs the keys/);
  });

  test('parseNpy refuses an absurd header shape before allocating anything', () => {
    const huge = withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999,), }", 8);
    expect(() => parseNpy(huge)).toThrow(/needs 799999999992 bytes, over the limit of 4294967296/);
    const overflow = withHeader(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999), }",
      8,
    );
    expect(() => parseNpy(overflow)).toThrow(/too large/);
    expect(() => parseNpy(huge, { maxBytes: 2 ** 60 })).toThrow(/truncated/);
    expect(() =>
      parseNpy(withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -1), }", 8)),
    ).toThrow(NpyError);
  });

  test('parseNpy refuses zero-size string dtypes (<U0, |S0) with elements: NpyError npy-dtype, never a RangeError', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof NpyError ? e.code : `untyped ${(e as Error).name}`;
      }
      return 'no error';
    };
    // 1e12 empty strings from a 100-byte file: an engine RangeError before, and 1.5 GB at 2e8 elements
    for (const descr of ['<U0', '|S0', '>U0'])
      for (const dims of ['1000000000000,', '1000,', '0, 7'])
        expect(
          code(() =>
            parseNpy(withHeader(`{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`, 0)),
          ),
          `${descr} (${dims})`,
        ).toBe(dims === '0, 7' ? 'no error' : 'npy-dtype');
    expect(
      parseNpy(withHeader("{'descr': '<U0', 'fortran_order': False, 'shape': (0, 7), }", 0)).data,
    ).toEqual([]);
  });

  test('parseNpy counts string elements at 8 bytes each against maxBytes (their array slots)', () => {
    // 100 one-byte strings: 100 bytes in the file, 100 · 8 = 800 counted
    const file = withHeader("{'descr': '|S1', 'fortran_order': False, 'shape': (100,), }", 100);
    expect(() => parseNpy(file, { maxBytes: 799 })).toThrow(
      /needs 800 bytes in memory, over the limit of 799/,
    );
    expect(parseNpy(file, { maxBytes: 800 }).data).toHaveLength(100);
  });

  test('parseNpy quotes at most 8 dimensions of a long shape in its messages', () => {
    const dims = new Array(5000).fill(2).join(', ');
    const file = withHeader(`{'descr': '<f8', 'fortran_order': False, 'shape': (${dims}), }`, 0);
    expect(() => parseNpy(file)).toThrow(NpyError);
    try {
      parseNpy(file);
    } catch (e) {
      expect((e as Error).message.length).toBeLessThan(200);
      expect((e as Error).message).toContain('… 5000 dimensions');
    }
  });

  test('parseNpy rejects unknown options and non-byte input with OptionError', () => {
    expect(() => parseNpy(new Uint8Array(0), { maxBites: 1 } as never)).toThrow(OptionError);
    expect(() => parseNpy('x' as never)).toThrow(OptionError);
  });

  test('parseNpy(writeNpy(a)) returns a for every dtype, including float16 round to nearest even', () => {
    const npz = parseNpz(bytesOf('all_savez.npz'));
    for (const [name, a] of Object.entries(npz)) {
      expect(parseNpy(writeNpy(a)), name).toEqual(a);
    }
  });

  test('parseNpy(writeNpy(x, shape)) is the identity on random float64 and int32 arrays (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true }), { maxLength: 40 }),
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 40 }),
        (xs, ns) => {
          const f = parseNpy(writeNpy(Float64Array.from(xs)));
          expect(Array.from(f.data as Float64Array)).toEqual(Array.from(Float64Array.from(xs)));
          const i = parseNpy(writeNpy(Int32Array.from(ns), [1, ns.length]));
          expect(i.shape).toEqual([1, ns.length]);
          expect(Array.from(i.data as Int32Array)).toEqual(ns);
        },
      ),
    );
  });

  test('parseNpy never throws anything but NpyError/OptionError on mutated files (fuzz)', () => {
    const base = writeNpy(Float64Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length - 1), fc.nat(255)), { maxLength: 6 }),
        fc.nat(base.length),
        (edits, cut) => {
          const b = base.slice(0, cut);
          for (const [at, v] of edits) if (at < b.length) b[at] = v;
          try {
            const a = parseNpy(b);
            expect(a.data.length).toBe(a.shape.reduce((x, y) => x * y, 1));
          } catch (e) {
            expect(e).toBeInstanceOf(NpyError);
          }
        },
      ),
    );
  });
});

describe('writeNpz(arrays, options)', () => {
  test('writeNpz(parseNpz(file)) round-trips every member, stored and deflated', () => {
    const npz = parseNpz(bytesOf('all_savez_compressed.npz'));
    for (const compression of ['stored', 'deflate'] as const) {
      const again = parseNpz(writeNpz(npz, { compression }));
      expect(again).toEqual(npz);
    }
  });

  test('writeNpz with deflate is smaller than stored on compressible data and deterministic', () => {
    const arrays = { zeros: new Float64Array(10000), ramp: Float64Array.from({ length: 1000 }, (_, i) => i) };
    const stored = writeNpz(arrays);
    const deflated = writeNpz(arrays, { compression: 'deflate' });
    expect(deflated.length).toBeLessThan(stored.length / 10);
    expect(writeNpz(arrays)).toEqual(stored);
    expect(Array.from((parseNpz(deflated).ramp.data as Float64Array).subarray(995))).toEqual([
      995, 996, 997, 998, 999,
    ]);
  });

  test('a stored archive reads back with another zip reader (fflate.unzipSync): the same .npy bytes, UTF-8 names, stored', () => {
    const arrays = {
      poses: Float64Array.from({ length: 999 }, (_, i) => Math.sin(i)),
      größe: Int16Array.of(-3, 4),
      empty: new Float32Array(0),
    };
    const zip = writeNpz(arrays);
    const members = unzipSync(zip);
    expect(Object.keys(members)).toEqual(['poses.npy', 'größe.npy', 'empty.npy']);
    for (const [name, value] of Object.entries(arrays))
      expect(members[`${name}.npy`]).toEqual(writeNpy(value));
    expect(listNpz(zip).map((m) => [m.compression, m.size === m.compressedSize])).toEqual([
      ['stored', true],
      ['stored', true],
      ['stored', true],
    ]);
    // the UTF-8 flag (bit 11) on the non-ASCII name only, in the local header and the central directory
    const flagsAt = (signature: number, from = 0) => {
      const at = findSignature(zip.subarray(from), signature) + from;
      return {
        at,
        flags:
          zip[at + (signature === 0x04034b50 ? 6 : 8)] | (zip[at + (signature === 0x04034b50 ? 7 : 9)] << 8),
      };
    };
    const first = flagsAt(0x02014b50);
    const second = flagsAt(0x02014b50, first.at + 4);
    expect([first.flags, second.flags]).toEqual([0, 0x800]);
  });

  test('writeNpz rejects unknown options, bad levels and non-arrays with OptionError', () => {
    expect(() => writeNpz({ a: new Float64Array(1) }, { compresion: 'deflate' } as never)).toThrow(
      OptionError,
    );
    expect(() => writeNpz({ a: new Float64Array(1) }, { level: 12 })).toThrow(OptionError);
    expect(() => writeNpz({ a: 3 } as never)).toThrow(OptionError);
  });
});

describe('parseNpz on hostile archives', () => {
  const member = writeNpy(
    Float64Array.from({ length: 64 }, (_, i) => i),
    [8, 8],
  );

  test('parseNpz refuses a zip bomb by its declared sizes before inflating', () => {
    const bomb = zipSync({ 'a.npy': [new Uint8Array(1 << 20), { level: 9 }] });
    expect(bomb.length).toBeLessThan(5000);
    expect(() => parseNpz(bomb, { maxBytes: 1 << 16 })).toThrow(NpzError);
    try {
      parseNpz(bomb, { maxBytes: 1 << 16 });
    } catch (e) {
      expect((e as NpzError).code).toBe('npz-size');
      expect((e as NpzError).member).toBe('a.npy');
    }
  });

  test('parseNpz refuses a member that inflates to more than it declares', () => {
    const zip = zipSync({ 'a.npy': [member, { level: 6 }] });
    // shrink the declared size in the central directory (offset 24 of the entry) and the local header
    const cd = findSignature(zip, 0x02014b50);
    const v = new DataView(zip.buffer);
    v.setUint32(cd + 24, member.length - 100, true);
    v.setUint32(22, member.length - 100, true);
    expect(() => parseNpz(zip).a).toThrow(/a\.npy: inflates to more than/);
  });

  test('parseNpz refuses a truncated archive and a corrupt member, naming the member', () => {
    const stored = zipSync({ 'x.npy': [member, { level: 0 }] });
    expect(() => parseNpz(stored.subarray(0, stored.length - 40))).toThrow(NpzError);
    const corrupt = stored.slice();
    corrupt[30 + 5 + 200] ^= 1;
    expect(() => parseNpz(corrupt).x).toThrow(/x\.npy: CRC-32 mismatch/);
    expect(() => parseNpz(corrupt, { checksum: 'skip' }).x).not.toThrow();
    const deflated = zipSync({ 'y.npy': [member, { level: 6 }] });
    const cut = deflated.slice();
    const cd = findSignature(cut, 0x02014b50);
    // cut the compressed data short: lower the declared compressed size
    new DataView(cut.buffer).setUint32(cd + 20, 20, true);
    expect(() => parseNpz(cut).y).toThrow(/y\.npy: /);
  });

  test('parseNpz inflates a member only when it is read: a corrupt member never read is no error', () => {
    const arrays = parseNpz(
      writeNpz({ a: Float64Array.of(1, 2, 3), junk: new Float64Array(64) }, { compression: 'deflate' }),
    );
    expect(Object.keys(arrays)).toEqual(['a', 'junk']);
    const broken = writeNpz(
      { a: Float64Array.of(1, 2, 3), junk: new Float64Array(64) },
      { compression: 'deflate' },
    );
    const cds = allSignatures(broken, 0x02014b50);
    const junkLocal = new DataView(broken.buffer).getUint32(cds[1] + 42, true);
    const junkData = junkLocal + 30 + u16at(broken, junkLocal + 26) + u16at(broken, junkLocal + 28);
    broken[junkData] = 0x07; // BFINAL = 1, BTYPE = 11: reserved, an error for every inflater
    const lazy = parseNpz(broken);
    expect(Array.from(lazy.a.data as Float64Array)).toEqual([1, 2, 3]);
    expect(() => lazy.junk).toThrow(/^junk\.npy: corrupt deflate data/);
  });

  test('parseNpz counts the members read against maxBytes: each within it, together within it', () => {
    // two stored members of 600,000 values' bytes (+128 header bytes): one fits 1 MiB, both do not
    const zip = writeNpz({ a: new Uint8Array(600_000), b: new Uint8Array(600_000) });
    const npz = parseNpz(zip, { maxBytes: 2 ** 20 });
    expect(npz.a.data.length).toBe(600_000);
    expect(() => npz.b).toThrow(NpzError);
    try {
      void npz.b;
    } catch (e) {
      expect((e as NpzError).code).toBe('npz-size');
      expect((e as NpzError).member).toBe('b.npy');
    }
    expect(npz.a.data.length).toBe(600_000); // a member read once is kept, not read again
    expect(parseNpz(zip, { maxBytes: 2 * 600_128 }).b.data.length).toBe(600_000);
  });

  test('parseNpz refuses a deflated member declaring more than 1032 times its compressed size, before inflating', () => {
    const zip = zipSync({ 'a.npy': [member, { level: 6 }] });
    const cd = findSignature(zip, 0x02014b50);
    const v = new DataView(zip.buffer);
    const compressed = v.getUint32(cd + 20, true);
    const declared = 1032 * compressed + 1025; // deflate's limit is 1032:1 (zlib's technical details)
    v.setUint32(cd + 24, declared, true);
    expect(() => parseNpz(zip)).toThrow(
      new RegExp(
        `^a\\.npy: declares ${declared} bytes from ${compressed} deflated bytes, more than deflate can produce`,
      ),
    );
  });

  test('parseNpz reads at most 1 GiB by default: a member declaring more is refused when opened', () => {
    expect(PARSE_NPZ_DEFAULTS.maxBytes).toBe(2 ** 30);
    // a deflated entry declaring 2^30 + 1 bytes from 2 MiB of (garbage) data: plausible for deflate, over the default
    const zip = zipSync({ 'a.npy': [new Uint8Array(2 ** 21).fill(7), { level: 0 }] });
    const cd = findSignature(zip, 0x02014b50);
    const v = new DataView(zip.buffer);
    v.setUint16(cd + 10, 8, true);
    v.setUint32(cd + 24, 2 ** 30 + 1, true);
    expect(() => parseNpz(zip)).toThrow(
      /^a\.npy: the member declares 1073741825 bytes, over the limit of 1073741824/,
    );
  });

  test('parseNpz refuses non-zip bytes and random garbage with NpzError or NpyError only (fuzz)', () => {
    expect(() => parseNpz(new Uint8Array(100))).toThrow(NpzError);
    const base = writeNpz({ a: new Float64Array(4), b: Int32Array.from([1, 2]) }, { compression: 'deflate' });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length - 1), fc.nat(255)), { minLength: 1, maxLength: 4 }),
        (edits) => {
          const b = base.slice();
          for (const [at, v] of edits) b[at] = v;
          try {
            Object.values(parseNpz(b));
          } catch (e) {
            expect(e instanceof NpzError || e instanceof NpyError).toBe(true);
          }
        },
      ),
    );
  });
});

/** A version 1.0 `.npy` with the given header text and `dataBytes` zero bytes of data. */
function withHeader(text: string, dataBytes: number): Uint8Array {
  const header = `${text}\n`;
  const out = new Uint8Array(10 + header.length + dataBytes);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  out.set(new TextEncoder().encode(header), 10);
  return out;
}

function allSignatures(b: Uint8Array, sig: number): number[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const found: number[] = [];
  for (let i = 0; i + 4 <= b.length; i++) if (v.getUint32(i, true) === sig) found.push(i);
  return found;
}

const u16at = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);

function findSignature(b: Uint8Array, sig: number): number {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i + 4 <= b.length; i++) if (v.getUint32(i, true) === sig) return i;
  throw new Error('signature not found');
}
