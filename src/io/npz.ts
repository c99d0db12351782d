/**
 * NumPy `.npz` archives: a zip of `.npy` members, as `numpy.savez` (stored) and `numpy.savez_compressed`
 * (deflate) write them. The zip directory is read here; deflate is `fflate`'s.
 *
 * @module
 */

import { inflateSync, zipSync } from 'fflate';
import { OptionError } from '../errors.js';
import { frozenDefaults, integerIn, type OptionSpec, oneOf, resolveOptions } from '../options.js';
import { crc32 } from './crc32.js';
import { BYTE_LIMIT, decodeNpy, type NdArray, type NpyArray, plainBytes, writeNpy } from './npy.js';
import { NpzError } from './npy-errors.js';

/** Options of {@link parseNpz}. */
export interface ParseNpzOptions {
  /**
   * Largest number of uncompressed bytes read from the archive: a member declaring more is refused when the
   * archive is opened (before anything is inflated), and the members read so far must together stay within
   * it, so a member read past the budget is refused too (`'npz-size'`). A member that inflates to more than
   * it declares is refused as well. String elements count at least 8 bytes each (see `parseNpy`).
   * Default 1 GiB ({@link PARSE_NPZ_DEFAULTS}); raise it for larger archives.
   */
  maxBytes?: number;
  /** `'verify'` (default): each member's CRC-32 is checked against its zip entry; `'skip'` saves the pass. */
  checksum?: 'verify' | 'skip';
}

/** Defaults of {@link ParseNpzOptions}. */
export const PARSE_NPZ_DEFAULTS: Required<ParseNpzOptions> = frozenDefaults({
  maxBytes: 2 ** 30,
  checksum: 'verify',
});

const PARSE_NPZ_SPEC: OptionSpec = { maxBytes: BYTE_LIMIT, checksum: oneOf(['verify', 'skip']) };

/**
 * Most bytes one byte of deflate data can inflate to: a length-258 match coded in 2 bits (zlib's "technical
 * details": the limit is 1032:1). A member declaring more for its compressed size is corrupt or hostile.
 */
const DEFLATE_MAX_RATIO = 1032;

/** Arrays by name, as {@link parseNpz} returns them and {@link writeNpz} takes them. */
export type NpzArrays = Record<string, NdArray>;

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const u16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u32 = (b: Uint8Array, at: number) =>
  (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
const u64 = (b: Uint8Array, at: number) => u32(b, at) + u32(b, at + 4) * 2 ** 32;

function zipError(reason: string, member?: string): never {
  throw new NpzError('npz-zip', reason, member);
}

/** The central directory of a zip file (zip64 included). */
function readDirectory(b: Uint8Array): Entry[] {
  const n = b.length;
  let eocd = -1;
  for (let i = n - 22; i >= Math.max(0, n - 22 - 65535); i--) {
    if (b[i] === 0x50 && b[i + 1] === 0x4b && b[i + 2] === 5 && b[i + 3] === 6) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) zipError('not a zip archive (no end-of-central-directory record)');
  let entries = u16(b, eocd + 10);
  let cdOffset = u32(b, eocd + 16);
  if (u16(b, eocd + 4) !== 0 || u16(b, eocd + 6) !== 0) zipError('multi-disk zip archives are not supported');
  if (entries === 0xffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || u32(b, loc) !== 0x07064b50) zipError('zip64 locator missing');
    const z = u64(b, loc + 8);
    if (z + 56 > n || u32(b, z) !== 0x06064b50) zipError('zip64 end-of-central-directory record missing');
    entries = u64(b, z + 32);
    cdOffset = u64(b, z + 48);
  }
  const out: Entry[] = [];
  let p = cdOffset;
  for (let e = 0; e < entries; e++) {
    if (p + 46 > n || u32(b, p) !== 0x02014b50)
      zipError(`central directory entry ${e} is cut short or corrupt`);
    const nameLength = u16(b, p + 28);
    const extraLength = u16(b, p + 30);
    const commentLength = u16(b, p + 32);
    if (p + 46 + nameLength + extraLength > n) zipError(`central directory entry ${e} is cut short`);
    const name = new TextDecoder('utf-8').decode(b.subarray(p + 46, p + 46 + nameLength));
    let size = u32(b, p + 24);
    let compressedSize = u32(b, p + 20);
    let localOffset = u32(b, p + 42);
    // zip64 extended information: the 64-bit sizes, in order, for the fields saturated above
    let x = p + 46 + nameLength;
    const xEnd = x + extraLength;
    while (x + 4 <= xEnd) {
      const id = u16(b, x);
      const len = u16(b, x + 2);
      if (id === 1) {
        let q = x + 4;
        if (size === 0xffffffff && q + 8 <= x + 4 + len) {
          size = u64(b, q);
          q += 8;
        }
        if (compressedSize === 0xffffffff && q + 8 <= x + 4 + len) {
          compressedSize = u64(b, q);
          q += 8;
        }
        if (localOffset === 0xffffffff && q + 8 <= x + 4 + len) localOffset = u64(b, q);
      }
      x += 4 + len;
    }
    out.push({
      name,
      method: u16(b, p + 10),
      flags: u16(b, p + 8),
      crc: u32(b, p + 16),
      compressedSize,
      size,
      localOffset,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

/**
 * Reads a NumPy `.npz` archive (the bytes of a file written by `numpy.savez` or `numpy.savez_compressed`)
 * into its arrays, keyed by member name without `.npy` (`poses.npy` → `poses`), in archive order. Every
 * dtype and layout {@link parseNpy} reads is read; members whose name does not end in `.npy` are skipped.
 *
 * Lazy: the zip directory is read and checked here, and each member is inflated and decoded when its
 * property is first read (then kept), so members never used cost nothing; `Object.keys` lists them all
 * without reading any. An error in a member (a corrupt stream, a CRC-32 mismatch, an unreadable `.npy`, the
 * size budget) is therefore thrown by the property read, naming the member. Assigning a property replaces
 * the member.
 *
 * Hostile archives: every entry's offsets, compression method, encryption flag and declared size are checked
 * against the file and `maxBytes` before anything is inflated (a deflated member cannot declare more than
 * 1032 times its compressed size, deflate's limit); a member must inflate to exactly its declared size and,
 * by default, match its CRC-32; the members read together stay within `maxBytes` (default 1 GiB). So a
 * truncated, corrupt or bomb archive is an error naming the member, never a hang or an out-of-memory
 * crash. Object arrays are refused (never unpickled). Stored and deflated members, zip64 included.
 *
 * Source: PKWARE APPNOTE.TXT (zip), NumPy `numpy.lib.npyio` (npz, itself lazy: `NpzFile`), fflate (inflate).
 *
 * @throws {NpzError} on a malformed archive or entry (`member` names it); from a property read, on a
 *   member that does not inflate to its declared bytes or checksum, or over the `maxBytes` budget.
 * @throws {NpyError} from a property read, on a member that is not a readable `.npy`.
 * @throws {OptionError} on bad options or non-byte input.
 * @example
 * const amass = parseNpz(fs.readFileSync('B3_-_walk1_poses.npz'));
 * amass.poses.shape; // [frames, 156]: poses.npy is inflated here
 * amass.gender.data[0]; // 'male'
 */
export function parseNpz(bytes: Uint8Array, options: ParseNpzOptions = {}): NpzArrays {
  const { maxBytes, checksum } = resolveOptions('parseNpz', options, PARSE_NPZ_DEFAULTS, PARSE_NPZ_SPEC);
  if (checksum !== 'verify' && checksum !== 'skip')
    throw new OptionError(`parseNpz: checksum must be 'verify' or 'skip', got '${String(checksum)}'`);
  if (!(bytes instanceof Uint8Array)) throw new OptionError('parseNpz: bytes must be a Uint8Array');
  const file = plainBytes(bytes);
  const entries = readDirectory(file).filter((e) => e.name.endsWith('.npy'));
  const located = entries.map((e) => locateMember(file, e, maxBytes));
  const out: NpzArrays = Object.create(null);
  let used = 0;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const key = e.name.slice(0, -4);
    const keep = (value: NdArray) =>
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get(): NdArray {
        if (used + e.size > maxBytes)
          throw new NpzError(
            'npz-size',
            `reading its ${e.size} bytes after ${used} from other members is over the limit of ${maxBytes}`,
            e.name,
          );
        const raw = memberBytes(file, e, located[i]);
        if (checksum === 'verify' && crc32(raw) !== e.crc)
          throw new NpzError('npz-member', 'CRC-32 mismatch: the member is corrupt', e.name);
        const value = decodeNpy(raw, maxBytes - used, e.name);
        used += e.size;
        keep(value);
        return value;
      },
      set: keep,
    });
  }
  return out;
}

/**
 * Checks a member's entry against the file before anything is inflated: not encrypted, a local header inside
 * the file, the data inside the file, a supported method, and a declared size within `maxBytes` that its
 * compressed bytes can produce. Returns where its data starts.
 */
function locateMember(b: Uint8Array, e: Entry, maxBytes: number): number {
  const fail = (reason: string): never => {
    throw new NpzError('npz-member', reason, e.name);
  };
  if (e.flags & 1) fail('encrypted members are not supported');
  const at = e.localOffset;
  if (at + 30 > b.length || u32(b, at) !== 0x04034b50) fail('local header missing or cut short');
  const dataStart = at + 30 + u16(b, at + 26) + u16(b, at + 28);
  const dataEnd = dataStart + e.compressedSize;
  if (dataEnd > b.length)
    fail(
      `truncated: the entry declares ${e.compressedSize} bytes but the archive ends ${dataEnd - b.length} bytes short`,
    );
  if (e.method !== 0 && e.method !== 8)
    fail(`compression method ${e.method} is not supported (only stored and deflate)`);
  if (e.method === 0 && e.compressedSize !== e.size)
    fail(`a stored member declares ${e.size} bytes but holds ${e.compressedSize}`);
  if (e.size > maxBytes)
    throw new NpzError(
      'npz-size',
      `the member declares ${e.size} bytes, over the limit of ${maxBytes}`,
      e.name,
    );
  if (e.method === 8 && e.size > DEFLATE_MAX_RATIO * e.compressedSize + 1024)
    fail(
      `declares ${e.size} bytes from ${e.compressedSize} deflated bytes, more than deflate can produce (${DEFLATE_MAX_RATIO}:1)`,
    );
  return dataStart;
}

/** The uncompressed bytes of a member checked by {@link locateMember}: its stored data, or its data inflated. */
function memberBytes(b: Uint8Array, e: Entry, dataStart: number): Uint8Array {
  const data = b.subarray(dataStart, dataStart + e.compressedSize);
  if (e.method === 0) return data;
  const fail = (reason: string): never => {
    throw new NpzError('npz-member', reason, e.name);
  };
  // one spare byte: a stream that fills it inflates to more than declared (fflate does not grow a given buffer)
  const target = new Uint8Array(e.size + 1);
  let inflated: Uint8Array;
  try {
    inflated = inflateSync(data, { out: target });
  } catch (error) {
    return fail(`corrupt deflate data (${(error as Error).message})`);
  }
  if (inflated.length !== e.size)
    fail(
      inflated.length > e.size
        ? `inflates to more than the ${e.size} bytes it declares`
        : `truncated: inflates to ${inflated.length} bytes, the entry declares ${e.size}`,
    );
  return inflated.subarray(0, e.size);
}

/** One member of a `.npz` as {@link listNpz} reports it. */
export interface NpzMember {
  /** Zip entry name (`poses.npy`). */
  name: string;
  /** `'stored'` or `'deflate'`; another method is reported by its zip number. */
  compression: 'stored' | 'deflate' | number;
  /** Bytes in the archive and uncompressed. */
  compressedSize: number;
  size: number;
}

/**
 * The members of a `.npz` archive from its zip directory, without inflating anything: names, compression
 * and sizes (to check what a file holds, or how it was written, before reading it).
 *
 * @throws {NpzError} when the bytes are not a readable zip archive.
 * @example
 * listNpz(bytes).some((m) => m.compression === 'deflate'); // written by savez_compressed
 */
export function listNpz(bytes: Uint8Array): NpzMember[] {
  if (!(bytes instanceof Uint8Array)) throw new OptionError('listNpz: bytes must be a Uint8Array');
  return readDirectory(bytes).map((e) => ({
    name: e.name,
    compression: e.method === 0 ? 'stored' : e.method === 8 ? 'deflate' : e.method,
    compressedSize: e.compressedSize,
    size: e.size,
  }));
}

/** Options of {@link writeNpz}. */
export interface WriteNpzOptions {
  /** `'stored'` (like `numpy.savez`; default) or `'deflate'` (like `numpy.savez_compressed`). */
  compression?: 'stored' | 'deflate';
  /** Deflate level 1 (fastest) to 9 (smallest). Default 6, zlib's and NumPy's. */
  level?: number;
}

/** Defaults of {@link WriteNpzOptions}. */
export const WRITE_NPZ_DEFAULTS: Required<WriteNpzOptions> = frozenDefaults({
  compression: 'stored',
  level: 6,
});

const WRITE_NPZ_SPEC: OptionSpec = { compression: oneOf(['stored', 'deflate']), level: integerIn(0, 9) };

/** Zip timestamps: a fixed date, so the same arrays always give the same bytes. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

/**
 * Writes arrays as a NumPy `.npz` archive: one `<name>.npy` member per entry, in the object's order,
 * stored (`numpy.savez`) or deflated (`numpy.savez_compressed`). `numpy.load` returns the same arrays.
 * Values are {@link NdArray}s (as {@link parseNpz} returns them, so a parsed archive writes back with every
 * member) or plain typed arrays (1-D). The output is deterministic (fixed timestamps).
 *
 * @throws {OptionError} on bad options, an empty or non-string name, or a value that is not an array.
 * @throws {ShapeError} when an array's shape does not hold its values.
 * @example
 * const frames = 2;
 * const poses = new Float64Array(frames * 156);
 * const bytes = writeNpz(
 *   {
 *     poses: { data: poses, shape: [frames, 156], dtype: 'float64' },
 *     mocap_framerate: { data: new Float64Array([120]), shape: [], dtype: 'float64' },
 *   },
 *   { compression: 'deflate' },
 * );
 */
export function writeNpz(
  arrays: Record<string, NdArray | NpyArray>,
  options: WriteNpzOptions = {},
): Uint8Array {
  const o = resolveOptions('writeNpz', options, WRITE_NPZ_DEFAULTS, WRITE_NPZ_SPEC);
  if (o.compression !== 'stored' && o.compression !== 'deflate')
    throw new OptionError(
      `writeNpz: compression must be 'stored' or 'deflate', got '${String(o.compression)}'`,
    );
  if (!Number.isInteger(o.level) || o.level < 1 || o.level > 9)
    throw new OptionError(`writeNpz: level must be an integer from 1 to 9, got ${String(o.level)}`);
  if (arrays === null || typeof arrays !== 'object')
    throw new OptionError('writeNpz: arrays must be an object of arrays');
  const members: [string, Uint8Array][] = [];
  for (const name of Object.keys(arrays)) {
    if (name === '') throw new OptionError('writeNpz: array names must not be empty');
    const value = arrays[name];
    if (value === null || typeof value !== 'object')
      throw new OptionError(`writeNpz: '${name}' is not an array`);
    members.push([`${name}.npy`, writeNpy(value)]);
  }
  if (o.compression === 'stored') return zipStored(members);
  const level = o.level as 6;
  const files: Record<string, [Uint8Array, { level: 6; mtime: Date }]> = {};
  for (const [name, bytes] of members) files[name] = [bytes, { level, mtime: FIXED_MTIME }];
  return zipSync(files);
}

/** DOS date of 1980-01-01 (the fixed timestamp of every member): day 1, month 1, year 0 from 1980. */
const DOS_DATE = (1 << 5) | 1;

/**
 * A zip archive of stored (uncompressed) members, as `numpy.savez` writes: local header and data per
 * member, then the central directory. Written here rather than by `fflate.zipSync` for its CRC-32, which
 * goes a byte at a time (this one is the reader's, sixteen bytes at a time). Archives past the plain zip
 * limits (4 GiB, 65,535 members) are refused: they would need zip64 records.
 */
function zipStored(members: [string, Uint8Array][]): Uint8Array {
  const encoder = new TextEncoder();
  const names = members.map(([name]) => encoder.encode(name));
  let size = 22;
  for (let i = 0; i < members.length; i++) size += 30 + 46 + 2 * names[i].length + members[i][1].length;
  if (size > 0xffffffff || members.length > 0xffff)
    throw new OptionError(
      `writeNpz: a stored archive of ${members.length} members and ${size} bytes needs zip64, which is not written; use compression: 'deflate' or split the arrays`,
    );
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  const offsets: number[] = [];
  const crcs: number[] = [];
  let at = 0;
  for (let i = 0; i < members.length; i++) {
    const name = names[i];
    const data = members[i][1];
    // bit 11: the name is UTF-8 (set only when it is not plain ASCII, as zip writers do)
    const flags = name.length !== members[i][0].length ? 0x800 : 0;
    offsets.push(at);
    const crc = crc32(data);
    crcs.push(crc);
    v.setUint32(at, 0x04034b50, true);
    v.setUint16(at + 4, 20, true);
    v.setUint16(at + 6, flags, true);
    v.setUint16(at + 8, 0, true);
    v.setUint16(at + 10, 0, true);
    v.setUint16(at + 12, DOS_DATE, true);
    v.setUint32(at + 14, crc, true);
    v.setUint32(at + 18, data.length, true);
    v.setUint32(at + 22, data.length, true);
    v.setUint16(at + 26, name.length, true);
    v.setUint16(at + 28, 0, true);
    out.set(name, at + 30);
    out.set(data, at + 30 + name.length);
    at += 30 + name.length + data.length;
  }
  const cdStart = at;
  for (let i = 0; i < members.length; i++) {
    const name = names[i];
    const data = members[i][1];
    const flags = name.length !== members[i][0].length ? 0x800 : 0;
    v.setUint32(at, 0x02014b50, true);
    v.setUint16(at + 4, 20, true);
    v.setUint16(at + 6, 20, true);
    v.setUint16(at + 8, flags, true);
    v.setUint16(at + 10, 0, true);
    v.setUint16(at + 12, 0, true);
    v.setUint16(at + 14, DOS_DATE, true);
    v.setUint32(at + 16, crcs[i], true);
    v.setUint32(at + 20, data.length, true);
    v.setUint32(at + 24, data.length, true);
    v.setUint16(at + 28, name.length, true);
    // extra and comment lengths, disk number, internal and external attributes: zero
    v.setUint32(at + 42, offsets[i], true);
    out.set(name, at + 46);
    at += 46 + name.length;
  }
  v.setUint32(at, 0x06054b50, true);
  v.setUint16(at + 8, members.length, true);
  v.setUint16(at + 10, members.length, true);
  v.setUint32(at + 12, at - cdStart, true);
  v.setUint32(at + 16, cdStart, true);
  return out;
}
