import { describe, expect, it } from 'vitest';
import { InvalidValueError, RotsigError, ShapeError } from '../../src/errors.js';
import {
  assertFiniteSeries,
  assertQuatSeries,
  assertVec3Series,
  createQuatSeries,
  createVec3Series,
  quatSeries,
  vec3Series,
} from '../../src/series/create.js';

describe('series constructors', () => {
  it('createQuatSeries(frames, joints) holds identity rotations, frame-major', () => {
    const s = createQuatSeries(3, 2);
    expect(s.data).toBeInstanceOf(Float64Array);
    expect(s.data.length).toBe(24);
    for (let f = 0; f < 3; f++) {
      for (let j = 0; j < 2; j++)
        expect(Array.from(s.data.subarray((f * 2 + j) * 4, (f * 2 + j) * 4 + 4))).toEqual([0, 0, 0, 1]);
    }
  });

  it('createVec3Series(frames, joints) is zero-filled with 3 floats per joint', () => {
    const s = createVec3Series(4, 5);
    expect(s.data.length).toBe(60);
    expect(s.data.every((x) => x === 0)).toBe(true);
  });

  it('quatSeries(data, frames, joints) wraps Float32 and Float64 data without copying', () => {
    const d32 = new Float32Array(8);
    expect(quatSeries(d32, 2, 1).data).toBe(d32);
    const d64 = new Float64Array(0);
    expect(quatSeries(d64, 0, 7).frames).toBe(0);
    expect(vec3Series(new Float64Array(6), 1, 2).joints).toBe(2);
  });

  it('quatSeries(data, frames, joints) names the mismatch in a ShapeError', () => {
    expect(() => quatSeries(new Float64Array(7), 2, 1)).toThrow(ShapeError);
    expect(() => quatSeries(new Float64Array(7), 2, 1)).toThrow(
      /7 values, expected frames 2 x joints 1 x 4 = 8/,
    );
    expect(() => vec3Series(new Float64Array(5), 1, 2)).toThrow(/expected frames 1 x joints 2 x 3 = 6/);
    expect(() => quatSeries(new Float64Array(4), 1.5, 1)).toThrow(/frames must be a non-negative integer/);
    expect(() => createQuatSeries(-1, 2)).toThrow(ShapeError);
    expect(() => quatSeries([0, 0, 0, 1] as unknown as Float64Array, 1, 1)).toThrow(
      /Float64Array or Float32Array/,
    );
  });

  it('assertQuatSeries and assertVec3Series reject malformed objects with the argument name', () => {
    expect(() => assertQuatSeries({ data: new Float64Array(4), frames: 1, joints: 2 }, 'poses')).toThrow(
      /^poses:/,
    );
    expect(() => assertVec3Series(null as never, 'positions')).toThrow(/positions must be a Vec3Series/);
    expect(() => assertQuatSeries({ data: new Float64Array(8), frames: 1, joints: 2 })).not.toThrow();
  });

  it('assertFiniteSeries(data, joints, width) reports the frame and joint of the first bad value', () => {
    const s = createQuatSeries(5, 3);
    s.data[(3 * 3 + 2) * 4 + 1] = Number.NaN;
    try {
      assertFiniteSeries(s.data, 3, 4, 'rotations');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidValueError);
      expect(e).toBeInstanceOf(RotsigError);
      expect((e as InvalidValueError).location).toEqual({ frame: 3, joint: 2 });
      expect((e as Error).message).toMatch(/rotations: non-finite value NaN at frame 3, joint 2/);
      expect((e as RotsigError).code).toBe('invalid-value');
      expect((e as Error).name).toBe('InvalidValueError');
    }
  });

  it('assertFiniteSeries finds NaN and ±Infinity at every index of odd and even lengths, Float64 and Float32', () => {
    for (const Type of [Float64Array, Float32Array]) {
      for (const length of [1, 2, 3, 12, 15]) {
        // finite extremes pass: the largest values, -0, subnormals
        const ok = new Type(length).map((_, i) => [-0, 3.4e38, -3.4e38, 1e-45, 0.5][i % 5]);
        expect(() => assertFiniteSeries(ok, 1, length, 'x')).not.toThrow();
        for (let i = 0; i < length; i++) {
          for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
            const data = Type.from(ok);
            data[i] = bad;
            expect(() => assertFiniteSeries(data, 1, 1, 'x'), `${Type.name} ${length} ${i} ${bad}`).toThrow(
              new RegExp(`x: non-finite value ${bad} at frame ${i}, joint 0`),
            );
          }
        }
      }
    }
  });
});
