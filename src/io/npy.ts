/**
 * NumPy `.npy` reader and writer: file bytes in, typed array + shape out, and back (no `node:*`; read and
 * save the bytes with `fs` or a browser download).
 *
 * The format (numpy.lib.format, versions 1.0, 2.0 and 3.0): magic `\x93NUMPY`, two version bytes, the
 * header length (uint16 LE for 1.0, uint32 LE otherwise), an ASCII (3.0: UTF-8) Python dict literal
 * `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }` padded with spaces and a newline, then
 * the raw data. The header is read by a small literal parser: nothing in a file is ever evaluated, and
 * object arrays (`|O`, stored with pickle) are refused.
 *
 * @module
 */

import { OptionError, ShapeError } from '../errors.js';
import { customRule, frozenDefaults, type OptionSpec, resolveOptions } from '../options.js';
import { NpyError } from './npy-errors.js';

/** Typed arrays {@link writeNpy} can store, with their NumPy dtype. */
export type NpyArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | BigInt64Array
  | BigUint64Array;

function descrOf(data: NpyArray): string {
  if (data instanceof Float64Array) return '<f8';
  if (data instanceof Float32Array) return '<f4';
  if (data instanceof Int32Array) return '<i4';
  if (data instanceof Uint32Array) return '<u4';
  if (data instanceof Int16Array) return '<i2';
  if (data instanceof Uint16Array) return '<u2';
  if (data instanceof Int8Array) return '|i1';
  if (data instanceof Uint8Array) return '|u1';
  if (data instanceof BigInt64Array) return '<i8';
  if (data instanceof BigUint64Array) return '<u8';
  throw new OptionError('writeNpy: data must be a typed array (Float64Array, Float32Array, Int32Array, ...)');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Alignment of the data start that NumPy uses (a multiple of the 16 the v1.0 format asks for). */
const ALIGN = 64;

/** Element types of {@link NdArray}, by NumPy name. */
export type NpyDtype =
  | 'bool'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'float16'
  | 'float32'
  | 'float64'
  | 'str'
  | 'bytes';

/**
 * An n-dimensional array as {@link parseNpy} returns it and {@link writeNpy} takes it: values in C order
 * (row-major, the last index fastest) and native byte order, whatever the file's layout.
 *
 * Storage per dtype: `float64` Float64Array, `float32` and `float16` Float32Array (half floats are
 * widened exactly), `int8`...`uint32` the matching typed array, `int64`/`uint64` BigInt64Array and
 * BigUint64Array, `bool` Uint8Array of 0 and 1, `str` (NumPy `<U`) and `bytes` (NumPy `|S`) arrays of
 * strings (bytes as one character per byte, Latin-1), trailing NULs removed as NumPy does.
 */
export interface NdArray {
  data: NpyArray | string[];
  /** Dimensions; `[]` for a scalar (one value), as NumPy's `shape`. */
  shape: number[];
  dtype: NpyDtype;
  /** For `str` and `bytes`: characters (bytes) per element in the file (`<U6` → 6). Writers use at least this. */
  itemSize?: number;
}

/** Options of {@link parseNpy}. */
export interface ParseNpyOptions {
  /**
   * Largest data section accepted, in bytes; a header declaring more is an {@link NpyError}. String elements
   * count at least 8 bytes each (their slot in the returned array), however short they are in the file.
   * Default 4 GiB.
   */
  maxBytes?: number;
}

/** Defaults of {@link ParseNpyOptions}. */
export const PARSE_NPY_DEFAULTS: Required<ParseNpyOptions> = frozenDefaults({ maxBytes: 2 ** 32 });

/** @internal A byte limit: a number >= 0, `Infinity` for none. */
export const BYTE_LIMIT = customRule(
  'a number >= 0 (Infinity for no limit)',
  (v) => typeof v === 'number' && v >= 0,
);

const PARSE_NPY_SPEC: OptionSpec = { maxBytes: BYTE_LIMIT };

/** Longest header accepted, in bytes. */
const MAX_HEADER = 1 << 20;

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

interface Kind {
  dtype: NpyDtype;
  size: number;
}

const NUMERIC: Record<string, Kind> = {
  b1: { dtype: 'bool', size: 1 },
  i1: { dtype: 'int8', size: 1 },
  u1: { dtype: 'uint8', size: 1 },
  i2: { dtype: 'int16', size: 2 },
  u2: { dtype: 'uint16', size: 2 },
  i4: { dtype: 'int32', size: 4 },
  u4: { dtype: 'uint32', size: 4 },
  i8: { dtype: 'int64', size: 8 },
  u8: { dtype: 'uint64', size: 8 },
  f2: { dtype: 'float16', size: 2 },
  f4: { dtype: 'float32', size: 4 },
  f8: { dtype: 'float64', size: 8 },
};

/**
 * Reads the bytes of a NumPy `.npy` file into an {@link NdArray}: little- and big-endian, C and Fortran
 * order (returned in C order), bool, int8 to int64, uint8 to uint64, float16/32/64, and unicode (`<U`)
 * and bytes (`|S`) strings, including 0-d scalars such as the `gender` of an AMASS file. Format versions
 * 1.0, 2.0 and 3.0.
 *
 * The header is parsed as a literal, never evaluated; the shape is checked against the bytes present
 * before anything is allocated, so a header declaring a huge shape costs nothing. The values are copied
 * out of `bytes` (the result never shares memory with it).
 *
 * Source: NumPy's format specification, `numpy.lib.format` (NEP 1).
 *
 * @throws {NpyError} `'npy-header'` on a bad magic string, version or header; `'npy-pickle'` on an object
 *   array (never unpickled); `'npy-dtype'` on complex, structured, datetime or void dtypes, and on a
 *   zero-size string dtype (`<U0`, `|S0`) with elements; `'npy-size'` when the data is shorter than the
 *   shape needs, larger than `maxBytes`, or more than the engine can allocate (never a bare `RangeError`).
 * @throws {OptionError} when `bytes` is not a Uint8Array or an option is unknown or out of range.
 * @example
 * const a = parseNpy(fs.readFileSync('rot6d.npy'));
 * a.shape; // [frames, joints, 6]
 * a.data instanceof Float32Array; // for a float32 file
 */
export function parseNpy(bytes: Uint8Array, options: ParseNpyOptions = {}): NdArray {
  const o = npyOptions(options, 'parseNpy');
  if (!(bytes instanceof Uint8Array)) throw new OptionError('parseNpy: bytes must be a Uint8Array');
  return decodeNpy(plainBytes(bytes), o.maxBytes, undefined);
}

/**
 * @internal A plain Uint8Array over the same memory: Node's Buffer (a subclass) has a `slice` that does
 * not copy, and a `readFileSync` result sits at an offset in a shared pool.
 */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** @internal Resolves and checks {@link ParseNpyOptions}. */
export function npyOptions(options: ParseNpyOptions, where: string): Required<ParseNpyOptions> {
  const o = resolveOptions(where, options, PARSE_NPY_DEFAULTS, PARSE_NPY_SPEC);
  if (typeof o.maxBytes !== 'number' || !(o.maxBytes >= 0))
    throw new OptionError(`${where}: maxBytes must be a non-negative number, got ${String(o.maxBytes)}`);
  return o;
}

/** @internal The reader behind {@link parseNpy} and `parseNpz`; `member` names the archive entry in errors. */
export function decodeNpy(bytes: Uint8Array, maxBytes: number, member: string | undefined): NdArray {
  const fail = (code: 'npy-header' | 'npy-dtype' | 'npy-pickle' | 'npy-size', reason: string): never => {
    throw new NpyError(code, reason, member);
  };
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b))
    fail('npy-header', 'not a .npy file (it does not start with \\x93NUMPY)');
  const major = bytes[6];
  if (major !== 1 && major !== 2 && major !== 3)
    fail('npy-header', `unsupported .npy format version ${major}.${bytes[7]}`);
  const prefix = major === 1 ? 10 : 12;
  if (bytes.length < prefix) fail('npy-header', 'the file ends inside the header length');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  // NumPy itself refuses headers over 10,000 bytes unless told otherwise; 1 MiB is far beyond any real one
  if (headerLength > MAX_HEADER)
    fail('npy-header', `the header declares ${headerLength} bytes, over ${MAX_HEADER}`);
  const start = prefix + headerLength;
  if (start > bytes.length)
    fail(
      'npy-header',
      `the header declares ${headerLength} bytes but the file ends after ${bytes.length - prefix}`,
    );
  const headerBytes = bytes.subarray(prefix, start);
  let text = '';
  if (major === 3) text = new TextDecoder('utf-8').decode(headerBytes);
  else for (let c = 0; c < headerBytes.length; c++) text += String.fromCharCode(headerBytes[c]);
  let header: Map<string, HeaderValue>;
  try {
    header = parseHeader(text);
  } catch (error) {
    return fail(
      'npy-header',
      `malformed header ${JSON.stringify(text.trim().slice(0, 120))}: ${(error as Error).message}`,
    );
  }
  const descr = header.get('descr');
  const fortran = header.get('fortran_order');
  const shapeValue = header.get('shape');
  if (descr === undefined || fortran === undefined || shapeValue === undefined)
    fail('npy-header', "the header needs the keys 'descr', 'fortran_order' and 'shape'");
  if (typeof fortran !== 'boolean') fail('npy-header', "'fortran_order' must be True or False");
  if (!Array.isArray(shapeValue) || shapeValue.some((d) => typeof d !== 'number'))
    fail('npy-header', "'shape' must be a tuple of integers");
  if (typeof descr !== 'string') {
    fail('npy-dtype', 'structured dtypes (a list descr) are not supported; save each field as its own array');
  }
  const shape = shapeValue as number[];
  const m = /^([<>|=]?)([a-zA-Z])(\d*)$/.exec(descr as string);
  if (m === null) fail('npy-dtype', `unknown dtype '${descr}'`);
  const [, order, letter, digits] = m as RegExpExecArray;
  if (letter === 'O')
    fail('npy-pickle', 'object arrays (dtype |O) hold pickled Python objects; rotsig never unpickles');
  let kind: Kind | undefined;
  let chars = 0;
  if (letter === 'U' || letter === 'S' || letter === 'a') {
    chars = digits === '' ? 0 : Number(digits);
    kind = { dtype: letter === 'U' ? 'str' : 'bytes', size: letter === 'U' ? 4 * chars : chars };
  } else kind = NUMERIC[`${letter}${digits}`] ?? (letter === '?' ? NUMERIC.b1 : undefined);
  if (kind === undefined) {
    const what =
      letter === 'c'
        ? 'complex'
        : letter === 'M' || letter === 'm'
          ? 'datetime'
          : letter === 'V'
            ? 'void'
            : 'this';
    fail('npy-dtype', `${what} dtype '${descr}' is not supported`);
  }
  const k = kind as Kind;
  const dims = shapeText(shape as number[]);
  let count = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0)
      fail('npy-header', `shape ${dims} must hold non-negative integers`);
    count *= d;
    if (!Number.isSafeInteger(count)) fail('npy-size', `shape ${dims} is too large`);
  }
  const strings = k.dtype === 'str' || k.dtype === 'bytes';
  // a zero-size element would let a few header bytes declare any number of elements with no data behind them
  if (k.size === 0 && count > 0)
    fail('npy-dtype', `zero-size dtype '${descr}' with ${count} elements (NumPy never writes one)`);
  const need = count * k.size;
  // a string element costs at least one array slot in memory however short it is in the file
  const cost = strings ? count * Math.max(k.size, STRING_SLOT_BYTES) : need;
  if (cost > maxBytes)
    fail(
      'npy-size',
      `shape ${dims} of ${descr} needs ${cost} bytes${strings ? ' in memory' : ''}, over the limit of ${maxBytes}`,
    );
  const have = bytes.length - start;
  if (need > have)
    fail(
      'npy-size',
      `truncated: shape ${dims} of ${descr} needs ${need} bytes of data, the file has ${have}`,
    );
  const big = order === '>';
  const body = bytes.subarray(start, start + need);
  let data: NpyArray | string[];
  try {
    if (strings) data = decodeStrings(body, count, chars, k.dtype === 'str', big);
    else data = decodeNumbers(body, count, k, big);
    if (fortran && shape.length > 1) data = fortranToC(data, shape);
  } catch (error) {
    // the engine's own limits (array length, memory) sit below maxBytes when the caller raises it
    if (error instanceof RangeError)
      return fail('npy-size', `shape ${dims} of ${descr} cannot be allocated (${error.message})`);
    throw error;
  }
  const out: NdArray = { data, shape: shape.slice(), dtype: k.dtype };
  if (k.dtype === 'str' || k.dtype === 'bytes') out.itemSize = chars;
  return out;
}

/** Bytes a string element is counted as at least against `maxBytes`: its slot in the array of strings. */
const STRING_SLOT_BYTES = 8;

/** A shape for a message: `(2, 3)`, the first 8 dimensions of a longer one with the count. */
function shapeText(shape: readonly number[]): string {
  const head = shape.slice(0, 8).map(String);
  if (shape.length > 8) head.push(`… ${shape.length} dimensions`);
  return `(${head.join(', ')})`;
}

type HeaderValue = string | boolean | number | number[] | null | HeaderValue[];

/** Parses the Python dict literal of a `.npy` header: string keys; strings, booleans, None, ints, tuples and lists. */
function parseHeader(text: string): Map<string, HeaderValue> {
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const expect = (c: string) => {
    skip();
    if (text[i] !== c) throw new Error(`expected '${c}' at character ${i}`);
    i++;
  };
  const value = (): HeaderValue => {
    skip();
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new Error('unterminated string');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    if (c === '(' || c === '[') {
      const close = c === '(' ? ')' : ']';
      i++;
      const items: HeaderValue[] = [];
      for (;;) {
        skip();
        if (text[i] === close) {
          i++;
          return items as HeaderValue;
        }
        items.push(value());
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== close) throw new Error(`expected ',' or '${close}' at character ${i}`);
      }
    }
    const word = /^[A-Za-z_]+|^-?\d+L?/.exec(text.slice(i, i + 40));
    if (word === null) throw new Error(`unexpected '${text.slice(i, i + 10)}' at character ${i}`);
    i += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    const n = Number(word[0].replace(/L$/, ''));
    if (!Number.isFinite(n) || !/^-?\d/.test(word[0])) throw new Error(`unexpected '${word[0]}'`);
    return n;
  };
  const out = new Map<string, HeaderValue>();
  expect('{');
  for (;;) {
    skip();
    if (text[i] === '}') {
      i++;
      break;
    }
    const key = value();
    if (typeof key !== 'string') throw new Error('dictionary keys must be strings');
    expect(':');
    out.set(key, value());
    skip();
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new Error(`expected ',' or '}' at character ${i}`);
  }
  skip();
  if (i !== text.length) throw new Error(`unexpected text after the dictionary at character ${i}`);
  return out;
}

function decodeNumbers(body: Uint8Array, count: number, k: Kind, big: boolean): NpyArray {
  const copy = () => body.slice().buffer;
  const swap = big !== !LITTLE_ENDIAN && k.size > 1;
  if (k.dtype === 'float16') return decodeHalf(body, count, big);
  if (!swap) {
    switch (k.dtype) {
      case 'bool': {
        const b = body.slice();
        for (let i = 0; i < b.length; i++) b[i] = b[i] === 0 ? 0 : 1;
        return b;
      }
      case 'int8':
        return new Int8Array(copy());
      case 'uint8':
        return body.slice();
      case 'int16':
        return new Int16Array(copy());
      case 'uint16':
        return new Uint16Array(copy());
      case 'int32':
        return new Int32Array(copy());
      case 'uint32':
        return new Uint32Array(copy());
      case 'int64':
        return new BigInt64Array(copy());
      case 'uint64':
        return new BigUint64Array(copy());
      case 'float32':
        return new Float32Array(copy());
      default:
        return new Float64Array(copy());
    }
  }
  // the file's byte order differs from this machine's: read element by element
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const le = !big;
  switch (k.dtype) {
    case 'int16':
      return Int16Array.from({ length: count }, (_, i) => v.getInt16(i * 2, le));
    case 'uint16':
      return Uint16Array.from({ length: count }, (_, i) => v.getUint16(i * 2, le));
    case 'int32':
      return Int32Array.from({ length: count }, (_, i) => v.getInt32(i * 4, le));
    case 'uint32':
      return Uint32Array.from({ length: count }, (_, i) => v.getUint32(i * 4, le));
    case 'int64': {
      const out = new BigInt64Array(count);
      for (let i = 0; i < count; i++) out[i] = v.getBigInt64(i * 8, le);
      return out;
    }
    case 'uint64': {
      const out = new BigUint64Array(count);
      for (let i = 0; i < count; i++) out[i] = v.getBigUint64(i * 8, le);
      return out;
    }
    case 'float32': {
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = v.getFloat32(i * 4, le);
      return out;
    }
    default: {
      const out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = v.getFloat64(i * 8, le);
      return out;
    }
  }
}

/** IEEE 754 binary16 to float32, exactly (every half is a float). */
function decodeHalf(body: Uint8Array, count: number, big: boolean): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const h = big ? (body[2 * i] << 8) | body[2 * i + 1] : body[2 * i] | (body[2 * i + 1] << 8);
    const sign = h & 0x8000 ? -1 : 1;
    const e = (h >> 10) & 0x1f;
    const f = h & 0x3ff;
    out[i] =
      e === 0
        ? sign * f * 2 ** -24
        : e === 31
          ? f
            ? Number.NaN
            : sign * Number.POSITIVE_INFINITY
          : sign * (1 + f / 1024) * 2 ** (e - 15);
  }
  return out;
}

/** float to IEEE 754 binary16 bits, rounding to nearest even (NumPy's `astype(float16)`). */
function encodeHalf(x: number): number {
  const f32 = new Float32Array([x]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    let half = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

function decodeStrings(
  body: Uint8Array,
  count: number,
  chars: number,
  unicode: boolean,
  big: boolean,
): string[] {
  const out: string[] = new Array(count);
  const size = unicode ? 4 * chars : chars;
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let i = 0; i < count; i++) {
    let end = chars;
    const at = i * size;
    // NumPy strips trailing NULs
    if (unicode) while (end > 0 && v.getUint32(at + 4 * (end - 1), !big) === 0) end--;
    else while (end > 0 && body[at + end - 1] === 0) end--;
    let s = '';
    for (let c = 0; c < end; c++)
      s += unicode
        ? String.fromCodePoint(Math.min(v.getUint32(at + 4 * c, !big), 0x10ffff))
        : String.fromCharCode(body[at + c]);
    out[i] = s;
  }
  return out;
}

/** Reorders column-major values of `shape` into row-major order. */
function fortranToC<T extends NpyArray | string[]>(data: T, shape: readonly number[]): T {
  const n = shape.length;
  const count = data.length;
  const out = (
    Array.isArray(data) ? new Array(count) : new (data.constructor as new (n: number) => NpyArray)(count)
  ) as T;
  // Fortran stride of each axis, then walk the C-order index with a counter
  const stride = new Array<number>(n);
  let s = 1;
  for (let a = 0; a < n; a++) {
    stride[a] = s;
    s *= shape[a];
  }
  const idx = new Array<number>(n).fill(0);
  let src = 0;
  for (let i = 0; i < count; i++) {
    (out as unknown as unknown[])[i] = (data as unknown as unknown[])[src];
    for (let a = n - 1; a >= 0; a--) {
      idx[a]++;
      src += stride[a];
      if (idx[a] < shape[a]) break;
      src -= stride[a] * shape[a];
      idx[a] = 0;
    }
  }
  return out;
}

function descrOfNd(a: NdArray, where: string): { descr: string; payload: Uint8Array; count: number } {
  const { data, dtype } = a;
  const need = (ok: boolean, type: string) => {
    if (!ok) throw new OptionError(`${where}: dtype '${dtype}' needs ${type} data`);
  };
  if (dtype === 'str' || dtype === 'bytes') {
    need(Array.isArray(data) && data.every((x) => typeof x === 'string'), 'string[]');
    const strings = data as string[];
    const unicode = dtype === 'str';
    let chars = Math.max(1, a.itemSize ?? 0);
    for (const s of strings) chars = Math.max(chars, unicode ? [...s].length : s.length);
    const size = unicode ? 4 * chars : chars;
    const payload = new Uint8Array(strings.length * size);
    const v = new DataView(payload.buffer);
    strings.forEach((s, i) => {
      if (unicode) {
        let c = 0;
        for (const ch of s) v.setUint32(i * size + 4 * c++, ch.codePointAt(0)!, true);
      } else
        for (let c = 0; c < s.length; c++) {
          const code = s.charCodeAt(c);
          if (code > 255) throw new OptionError(`${where}: bytes element ${i} has a character above 255`);
          payload[i * size + c] = code;
        }
    });
    return { descr: unicode ? `<U${chars}` : `|S${chars}`, payload, count: strings.length };
  }
  if (dtype === 'bool') {
    need(data instanceof Uint8Array, 'Uint8Array');
    const b = (data as Uint8Array).map((x) => (x ? 1 : 0));
    return { descr: '|b1', payload: b, count: b.length };
  }
  if (dtype === 'float16') {
    need(data instanceof Float32Array || data instanceof Float64Array, 'Float32Array or Float64Array');
    const f = data as Float32Array;
    const payload = new Uint8Array(f.length * 2);
    for (let i = 0; i < f.length; i++) {
      const h = encodeHalf(f[i]);
      payload[2 * i] = h & 0xff;
      payload[2 * i + 1] = h >> 8;
    }
    return { descr: '<f2', payload, count: f.length };
  }
  if (Array.isArray(data))
    throw new OptionError(`${where}: dtype '${dtype}' needs a typed array, got string[]`);
  const descr = descrOf(data as NpyArray);
  const expected = Object.entries(NUMERIC).find(([, k]) => k.dtype === dtype)?.[0];
  if (expected === undefined || descr.slice(1) !== expected)
    throw new OptionError(
      `${where}: dtype '${dtype}' does not match ${(data as NpyArray).constructor.name} data`,
    );
  return { descr, payload: littleEndianBytes(data as NpyArray), count: (data as NpyArray).length };
}

function littleEndianBytes(data: NpyArray): Uint8Array {
  const width = data.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN || width === 1) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(data.byteLength);
  const src = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < data.length; i++)
    for (let b = 0; b < width; b++) out[i * width + b] = src[i * width + width - 1 - b];
  return out;
}

/**
 * Encodes an array as the bytes of a NumPy `.npy` file (format version 1.0, or 2.0 when the header would
 * not fit in 65,535 bytes), C order, little-endian: `numpy.load` returns an array of `shape` and the
 * matching dtype (`<f8` for Float64Array, `<f4` for Float32Array, `<i4`, `|u1`, ...). Also takes an
 * {@link NdArray} (as {@link parseNpy} returns it), which adds bool, float16 and string dtypes: a parsed
 * array written back loads in NumPy equal to the original.
 *
 * Layout (NumPy's format spec, numpy.lib.format): magic `\x93NUMPY`, version bytes, header length
 * (uint16 LE), an ASCII Python-dict header `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }`
 * padded with spaces and ended by `\n` so the data starts at a multiple of 64 bytes, then the raw data.
 * The bytes equal `numpy.save` output for the same array.
 *
 * @param shape Dimensions whose product is `data.length`; default `[data.length]` (an NdArray's own
 *   shape). `[]` stores a scalar.
 * @throws {ShapeError} when the shape is not non-negative integers multiplying to `data.length`.
 * @throws {OptionError} when `data` is not a supported typed array or NdArray.
 * @example
 * const a = toArrays(clip, { rotation: '6d', dtype: 'float32' });
 * fs.writeFileSync('rot6d.npy', writeNpy(a.rotations!, a.rotationShape)); // rotations: null only for 'none'
 */
export function writeNpy(data: NpyArray | NdArray, shape?: readonly number[]): Uint8Array {
  let descr: string;
  let payload: Uint8Array;
  let count: number;
  if (data !== null && typeof data === 'object' && !ArrayBuffer.isView(data) && 'dtype' in data) {
    ({ descr, payload, count } = descrOfNd(data, 'writeNpy'));
    shape ??= data.shape;
  } else {
    descr = descrOf(data as NpyArray);
    payload = littleEndianBytes(data as NpyArray);
    count = (data as NpyArray).length;
    shape ??= [count];
  }
  if (!Array.isArray(shape))
    throw new ShapeError('writeNpy: shape must be an array of non-negative integers');
  let product = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0)
      throw new ShapeError(`writeNpy: shape [${shape.join(', ')}] must hold non-negative integers`);
    product *= d;
  }
  if (product !== count) {
    throw new ShapeError(
      `writeNpy: shape [${shape.join(', ')}] holds ${product} values but data has ${count}`,
    );
  }
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${tuple}, }`;
  let version = 1;
  let prefix = 10;
  let total = Math.ceil((prefix + dict.length + 1) / ALIGN) * ALIGN;
  if (total - prefix > 65535) {
    version = 2;
    prefix = 12;
    total = Math.ceil((prefix + dict.length + 1) / ALIGN) * ALIGN;
  }
  const headerLength = total - prefix;
  const out = new Uint8Array(total + payload.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]); // \x93NUMPY, version
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, headerLength, true);
  else view.setUint32(8, headerLength, true);
  const header = dict.padEnd(headerLength - 1, ' ');
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out[total - 1] = 0x0a;
  out.set(payload, total);
  return out;
}
