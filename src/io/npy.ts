/**
 * NumPy `.npy` writer: typed array + shape in, file bytes out (no `node:*`; save the bytes with
 * `fs.writeFileSync` or a browser download).
 *
 * @module
 */
import { OptionError, ShapeError } from '../errors.js';

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

/**
 * Encodes a typed array as the bytes of a NumPy `.npy` file (format version 1.0, or 2.0 when the header
 * would not fit in 65,535 bytes), C order, little-endian: `numpy.load` returns an array of `shape` and
 * the matching dtype (`<f8` for Float64Array, `<f4` for Float32Array, `<i4`, `|u1`, ...).
 *
 * Layout (NumPy's format spec, numpy.lib.format): magic `\x93NUMPY`, version bytes, header length
 * (uint16 LE), an ASCII Python-dict header `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }`
 * padded with spaces and ended by `\n` so the data starts at a multiple of 64 bytes, then the raw data.
 * The bytes equal `numpy.save` output for the same array.
 *
 * @param shape Dimensions whose product is `data.length`; default `[data.length]`. `[]` stores a scalar.
 * @throws {ShapeError} when the shape is not non-negative integers multiplying to `data.length`.
 * @throws {OptionError} when `data` is not a supported typed array.
 * @example
 * const a = toArrays(clip, { rotation: '6d', dtype: 'float32' });
 * fs.writeFileSync('rot6d.npy', writeNpy(a.rotations, a.rotationShape));
 */
export function writeNpy(data: NpyArray, shape: readonly number[] = [data?.length]): Uint8Array {
  const descr = descrOf(data);
  if (!Array.isArray(shape))
    throw new ShapeError('writeNpy: shape must be an array of non-negative integers');
  let count = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0)
      throw new ShapeError(`writeNpy: shape [${shape.join(', ')}] must hold non-negative integers`);
    count *= d;
  }
  if (count !== data.length) {
    throw new ShapeError(
      `writeNpy: shape [${shape.join(', ')}] holds ${count} values but data has ${data.length}`,
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
  const out = new Uint8Array(total + data.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]); // \x93NUMPY, version
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, headerLength, true);
  else view.setUint32(8, headerLength, true);
  const header = dict.padEnd(headerLength - 1, ' ');
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out[total - 1] = 0x0a;
  const width = data.BYTES_PER_ELEMENT;
  if (LITTLE_ENDIAN || width === 1) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), total);
  } else {
    // big-endian host: write each element little-endian
    for (let i = 0; i < data.length; i++) {
      const at = total + i * width;
      const v = data[i];
      if (data instanceof Float64Array) view.setFloat64(at, v as number, true);
      else if (data instanceof Float32Array) view.setFloat32(at, v as number, true);
      else if (data instanceof Int32Array) view.setInt32(at, v as number, true);
      else if (data instanceof Uint32Array) view.setUint32(at, v as number, true);
      else if (data instanceof Int16Array) view.setInt16(at, v as number, true);
      else if (data instanceof Uint16Array) view.setUint16(at, v as number, true);
      else if (data instanceof BigInt64Array) view.setBigInt64(at, v as bigint, true);
      else view.setBigUint64(at, v as bigint, true);
    }
  }
  return out;
}
