/**
 * `.npz` archives generated field by field: `.npy` members with random dtypes (every one NumPy writes, the
 * zero-size `<U0`/`|S0`, pickles, complex, structured, unknown), shapes (scalars to many dimensions, zeros,
 * 1e12, 2^53, negative), data shorter or longer than the shape needs, header lengths and versions that lie;
 * zips with stored or deflated members, names of every kind, and entries whose sizes, CRC-32, method, flags,
 * offsets or counts lie, or that are cut short. `parseNpz` opens each archive and every member is read: a
 * member the generator wrote validly must read back as written; anything else must be a typed error
 * (`NpzError`, `NpyError`, `OptionError`), with no case slower than 10 s or holding more than 1 GB, or more
 * than 16 times the bytes of its members.
 *
 * CI runs a fixed seed and a few hundred archives; `npm run fuzz` runs more (`FUZZ_CASES`, `FUZZ_SEED`).
 */

import { crc32 } from 'node:zlib';
import { deflateSync } from 'fflate';
import { describe, expect, test } from 'vitest';
import { RotsigError } from '../../src/errors.js';
import { listNpz, type NdArray, parseNpz, writeNpy } from '../../src/io/index.js';
import { generator, int, pick, type Rand } from '../support/fuzz.js';

const CASES = Number(process.env.FUZZ_CASES ?? 40) * 10;
const SEED = Number(process.env.FUZZ_SEED ?? 17);
/** The bounds per archive: 10 s and 1 GB. */
const HANG_MS = 10_000;
const MAX_BYTES_HELD = 1e9;

/** Descriptors: the ones NumPy writes for what rotsig reads, then the refused and the malformed. */
const GOOD_DESCR = [
  '<f8',
  '>f8',
  '<f4',
  '>f4',
  '<f2',
  '|b1',
  '|u1',
  '|i1',
  '<i2',
  '>u2',
  '<i4',
  '>u4',
  '<i8',
  '>u8',
];
const ODD_DESCR = [
  '<U0',
  '|S0',
  '>U0',
  '<U3',
  '|S5',
  '>U2',
  '|a4',
  '|O',
  '<c16',
  '|V8',
  '<M8[ns]',
  '<f16',
  '<U99999999999',
  '|S4294967296',
  '',
  'f8',
  '=i4',
];
const DIMS = [0, 1, 2, 3, 5, 17, 1000, 65536, 2 ** 31, 1e12, 2 ** 53, 2 ** 53 + 2, -1, 1.5];

interface Member {
  name: string;
  /** The `.npy` bytes. */
  npy: Uint8Array;
  /** What reading it must give, when the generator wrote it validly. */
  expect: NdArray | null;
}

/** A `.npy` member: valid (from writeNpy of random values) or a header the generator spelled itself. */
function genNpy(rand: Rand): { npy: Uint8Array; expect: NdArray | null } {
  if (rand() < 0.4) {
    const n = int(rand, 40);
    const values = Float64Array.from({ length: n }, () => (rand() - 0.5) * 10 ** int(rand, 20));
    const kind = int(rand, 4);
    const a: NdArray =
      kind === 0
        ? { data: values, shape: [n], dtype: 'float64' }
        : kind === 1
          ? { data: Int32Array.from(values, (v) => v | 0), shape: [n], dtype: 'int32' }
          : kind === 2
            ? { data: Array.from({ length: n }, (_, i) => `s${i}é`), shape: [n], dtype: 'str', itemSize: 8 }
            : { data: Float32Array.from(values), shape: [n], dtype: 'float32' };
    return { npy: writeNpy(a), expect: a };
  }
  const r = rand();
  const descr =
    r < 0.45 ? pick(rand, GOOD_DESCR) : r < 0.6 ? pick(rand, ['<U0', '|S0']) : pick(rand, ODD_DESCR);
  const rank = pick(rand, [0, 1, 1, 2, 3, 8, 40]);
  const shape = Array.from({ length: rank }, () => (rand() < 0.7 ? int(rand, 6) : pick(rand, DIMS)));
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const fortran = rand() < 0.3 ? 'True' : 'False';
  let dict = `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${tuple}, }`;
  if (rand() < 0.1) dict = dict.slice(0, int(rand, dict.length));
  if (rand() < 0.05) dict = `{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (2,), }`;
  const version = rand() < 0.9 ? 1 : pick(rand, [2, 3, 0, 9]);
  const prefix = version === 1 ? 10 : 12;
  const header = new TextEncoder().encode(`${dict}\n`);
  // the data: about what the shape needs, fewer, more, or none
  let count = 1;
  for (const d of shape) count *= Number.isSafeInteger(d) && d >= 0 ? d : 0;
  const item = Number(/\d+/.exec(descr)?.[0] ?? 1) * (descr.includes('U') ? 4 : 1);
  const want = Math.min(count * (Number.isFinite(item) ? item : 1), 1 << 16);
  const size = pick(rand, [want, want, Math.max(0, want - 1 - int(rand, 8)), want + int(rand, 64), 0]);
  const out = new Uint8Array(prefix + header.length + size);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const v = new DataView(out.buffer);
  const declared = rand() < 0.9 ? header.length : pick(rand, [0, header.length + 1, 0xffff, 2 ** 31]);
  if (version === 1) v.setUint16(8, declared & 0xffff, true);
  else v.setUint32(8, declared >>> 0, true);
  out.set(header, prefix);
  for (let i = prefix + header.length; i < out.length; i++) out[i] = rand() < 0.5 ? 0 : int(rand, 256);
  return { npy: out, expect: null };
}

const NAMES = ['poses', 'trans', 'betas', 'gender', 'x', 'größe', '😀', 'a/b', '../up', '', 'x'.repeat(300)];

/** A zip of `members`, written here field by field (not by the code under test), with lies when `spoil`. */
function genZip(rand: Rand, members: Member[], spoil: boolean): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let at = 0;
  for (const m of members) {
    const name = new TextEncoder().encode(m.name);
    const deflate = rand() < 0.5;
    const body = deflate ? deflateSync(m.npy, { level: pick(rand, [0, 1, 6, 9]) as 6 }) : m.npy;
    let method = deflate ? 8 : 0;
    let crc = crc32(m.npy);
    let size = m.npy.length;
    let compressed = body.length;
    let flags = 0x800;
    let offset = at;
    if (spoil && rand() < 0.5) {
      const what = int(rand, 7);
      if (what === 0)
        size = pick(rand, [0, size + 1, Math.max(0, size - 1), 0xfffffffe, 2 ** 31, size * 2000]);
      else if (what === 1)
        compressed = pick(rand, [0, compressed + 1, Math.max(0, compressed - 5), 0xfffffffe]);
      else if (what === 2) crc ^= 1 << int(rand, 32);
      else if (what === 3) method = pick(rand, [1, 9, 12, 14, 99, 0xffff]);
      else if (what === 4) flags |= 1;
      else if (what === 5) offset = pick(rand, [offset + 1, 0xfffffffe, 0]);
      else if (deflate && body.length > 2) body[int(rand, body.length)] ^= 1 << int(rand, 8);
    }
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, flags, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc >>> 0, true);
    lv.setUint32(18, compressed >>> 0, true);
    lv.setUint32(22, size >>> 0, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    parts.push(local, body);
    const cd = new Uint8Array(46 + name.length);
    const cv = new DataView(cd.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, flags, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc >>> 0, true);
    cv.setUint32(20, compressed >>> 0, true);
    cv.setUint32(24, size >>> 0, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset >>> 0, true);
    cd.set(name, 46);
    central.push(cd);
    at += local.length + body.length;
  }
  const cdStart = at;
  const cdSize = central.reduce((s, c) => s + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  let count = members.length;
  let cdOffset = cdStart;
  if (spoil && rand() < 0.2) count = pick(rand, [0, count + 1, 0xffff, 0xfffe]);
  if (spoil && rand() < 0.1) cdOffset = pick(rand, [0xffffffff, cdStart + 3, 0]);
  ev.setUint16(8, count, true);
  ev.setUint16(10, count, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, cdOffset >>> 0, true);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((s, p) => s + p.length, 0));
  let p = 0;
  for (const part of all) {
    out.set(part, p);
    p += part.length;
  }
  if (spoil && rand() < 0.15) return out.subarray(0, int(rand, out.length));
  if (spoil && rand() < 0.1) for (let k = 0; k < 4; k++) out[int(rand, out.length)] = int(rand, 256);
  return out;
}

/** The bytes an array holds: typed arrays by length, strings by their characters and array slots. */
function heldBytes(a: NdArray): number {
  if (Array.isArray(a.data)) return a.data.reduce((s, x) => s + 8 + 2 * x.length, 0);
  return (a.data as ArrayBufferView).byteLength;
}

function sameArray(got: NdArray, want: NdArray): boolean {
  if (got.dtype !== want.dtype || got.shape.join() !== want.shape.join()) return false;
  if (got.data.length !== want.data.length) return false;
  for (let i = 0; i < want.data.length; i++) if (!Object.is(got.data[i], want.data[i])) return false;
  return true;
}

describe('parseNpz(bytes) on generated archives', () => {
  test(`valid members read back as written; every other outcome is a typed error (${CASES} archives, seed ${SEED})`, () => {
    const tally = { validRead: 0, spoiledRead: 0, typed: 0, defect: 0, hang: 0, maxHeld: 0 };
    const defects: string[] = [];
    for (let c = 0; c < CASES; c++) {
      const seed = (SEED * 7919 + c) >>> 0;
      const rand = generator(seed);
      const members: Member[] = Array.from({ length: 1 + int(rand, 4) }, (_, i) => {
        const { npy, expect } = genNpy(rand);
        const base = rand() < 0.85 ? pick(rand, NAMES.slice(0, 5)) + String(i) : pick(rand, NAMES);
        return { name: rand() < 0.95 ? `${base}.npy` : base, npy, expect };
      });
      const spoil = rand() < 0.6;
      const zip = genZip(rand, members, spoil);
      const options = rand() < 0.8 ? {} : { maxBytes: pick(rand, [0, 100, 1 << 16]) };
      const t0 = performance.now();
      let problem: string | null = null;
      let held = 0;
      const read = new Map<string, NdArray>();
      try {
        listNpz(zip);
        const npz = parseNpz(zip, options);
        for (const key of Object.keys(npz)) {
          try {
            const a = npz[key];
            const count = a.shape.reduce((x, y) => x * y, 1);
            if (!a.shape.every((d) => Number.isSafeInteger(d) && d >= 0) || a.data.length !== count)
              problem ??= `member ${key}: shape (${a.shape.slice(0, 8)}) does not hold its ${a.data.length} values`;
            held += heldBytes(a);
            read.set(key, a);
          } catch (e) {
            if (!(e instanceof RotsigError))
              problem ??= `member ${key}: ${(e as Error)?.name}: ${(e as Error)?.message}`;
          }
        }
      } catch (e) {
        if (!(e instanceof RotsigError)) problem = `${(e as Error)?.name}: ${(e as Error)?.message}`;
      }
      const ms = performance.now() - t0;
      tally.maxHeld = Math.max(tally.maxHeld, held);
      if (ms > HANG_MS) {
        tally.hang++;
        defects.push(`seed ${seed}: ${ms.toFixed(0)} ms`);
        continue;
      }
      if (held > MAX_BYTES_HELD) problem ??= `holds ${held} bytes`;
      // what was read is in proportion to the members' bytes (a string element: an 8-byte slot and its
      // characters for at least one byte of the file), never thousands of empty strings from a few bytes
      const written = members.reduce((s, m) => s + m.npy.length, 0);
      if (held > 16 * written + 4096) problem ??= `holds ${held} bytes read from ${written} bytes of members`;
      if (problem === null && !spoil && options.maxBytes === undefined) {
        // a valid archive: every member the generator wrote validly reads back as written (a later member
        // of the same key replaces an earlier one, as in NumPy)
        const last = new Map<string, Member>();
        for (const m of members) if (m.name.endsWith('.npy')) last.set(m.name.slice(0, -4), m);
        for (const [key, m] of last) {
          const got = read.get(key);
          if (m.expect !== null && (got === undefined || !sameArray(got, m.expect)))
            problem = `member ${key} did not read back as written`;
        }
      }
      if (problem !== null) {
        tally.defect++;
        if (defects.length < 10) defects.push(`seed ${seed}: ${problem}`);
      } else if (read.size === 0) tally.typed++;
      else if (spoil) tally.spoiledRead++;
      else tally.validRead++;
    }
    if (process.env.FUZZ_REPORT) console.log(`npz fuzz: ${CASES} archives`, tally);
    expect(defects).toEqual([]);
    // the generator reaches both sides
    expect(tally.validRead).toBeGreaterThan(CASES / 10);
    expect(tally.typed).toBeGreaterThan(CASES / 10);
  });
});
