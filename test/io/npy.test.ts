import { describe, expect, test } from 'vitest';
import { OptionError, ShapeError } from '../../src/errors.js';
import { type NpyArray, writeNpy } from '../../src/io/index.js';
import { readFixture } from '../support/shared-data.js';

interface NpyCase {
  dtype: string;
  shape: number[];
  values: number[];
  npy: string;
}

const TYPES: Record<string, (v: number[]) => NpyArray> = {
  '<f8': (v) => Float64Array.from(v),
  '<f4': (v) => Float32Array.from(v),
  '<i4': (v) => Int32Array.from(v),
  '|u1': (v) => Uint8Array.from(v),
  '<u2': (v) => Uint16Array.from(v),
  '|i1': (v) => Int8Array.from(v),
};

function header(bytes: Uint8Array): string {
  const len = bytes[8] | (bytes[9] << 8);
  return String.fromCharCode(...bytes.subarray(10, 10 + len));
}

describe('writeNpy(data, shape)', () => {
  const { cases } = readFixture<{ cases: NpyCase[] }>('npy.json');
  for (const c of cases) {
    test(`writeNpy(${c.dtype} data, [${c.shape.join(', ')}]) equals numpy.save byte for byte`, () => {
      const bytes = writeNpy(TYPES[c.dtype](c.values), c.shape);
      expect(Buffer.from(bytes).toString('base64')).toBe(c.npy);
    });
  }

  test('writeNpy(data, shape) follows the v1.0 layout: magic, version, uint16 length, dict, 64-byte aligned data', () => {
    const data = Float64Array.from([1.5, -2, 3]);
    const bytes = writeNpy(data, [1, 3]);
    expect(Array.from(bytes.subarray(0, 8))).toEqual([0x93, 78, 85, 77, 80, 89, 1, 0]);
    const h = header(bytes);
    expect(h).toMatch(/^\{'descr': '<f8', 'fortran_order': False, 'shape': \(1, 3\), \} *\n$/);
    expect((10 + h.length) % 64).toBe(0);
    expect(bytes.length).toBe(10 + h.length + 24);
    expect(Array.from(new Float64Array(bytes.slice(10 + h.length).buffer))).toEqual([1.5, -2, 3]);
  });

  test('writeNpy(data) defaults to a 1-D shape and writes a subarray view, not its whole buffer', () => {
    const big = Float32Array.from([9, 1, 2, 9]);
    const bytes = writeNpy(big.subarray(1, 3));
    expect(header(bytes)).toContain("'shape': (2,)");
    expect(Array.from(new Float32Array(bytes.slice(bytes.length - 8).buffer))).toEqual([1, 2]);
  });

  test('writeNpy(data, shape) throws ShapeError when the shape does not hold data.length values', () => {
    expect(() => writeNpy(new Float64Array(6), [4, 2])).toThrow(
      'writeNpy: shape [4, 2] holds 8 values but data has 6',
    );
    expect(() => writeNpy(new Float64Array(6), [-2, -3])).toThrow(ShapeError);
    expect(() => writeNpy(new Float64Array(6), [2.5, 2])).toThrow(ShapeError);
    expect(() => writeNpy([1, 2] as unknown as Float64Array)).toThrow(OptionError);
  });
});
