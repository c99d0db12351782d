// The BVH writers on deep hierarchies (a chain of glTF nodes): as deep as the reader takes is written,
// deeper is a ShapeError, never a stack overflow.
import { describe, expect, test } from 'vitest';
import { ShapeError } from '../../src/errors.js';
import { parseBvh, writeBvh, writeBvhBytes, writeBvhChunks } from '../../src/io/index.js';
import { makeClip, makeSkeleton } from '../../src/series/clip-create.js';
import { createQuatSeries } from '../../src/series/create.js';

/** One frame of a chain of `joints` joints, each the only child of the one before. */
function chain(joints: number) {
  const skeleton = makeSkeleton({
    names: Array.from({ length: joints }, (_, j) => `j${j}`),
    parents: Int32Array.from({ length: joints }, (_, j) => j - 1),
    restTranslations: new Float64Array(3 * joints),
  });
  return makeClip({ skeleton, frameTime: 0.1, rotations: createQuatSeries(1, joints) });
}

describe('writeBvh(clip) on deep chains', () => {
  test('a chain of 1000 joints, nested as deep as parseBvh reads, is written by all three writers and reads back', () => {
    const J = 1000;
    const clip = chain(J);
    const text = writeBvh(clip);
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['HIERARCHY', 'ROOT j0', '{']);
    expect(lines[5]).toBe('\tJOINT j1');
    expect(lines.indexOf(`${'\t'.repeat(J - 1)}JOINT j${J - 1}`)).toBe(1 + 4 * (J - 1));
    const motion = lines.indexOf('MOTION');
    // the closing braces of the chain, innermost first, end the hierarchy
    for (let d = 0; d < J; d++) expect(lines[motion - 1 - d]).toBe(`${'\t'.repeat(d)}}`);
    expect(new TextDecoder().decode(writeBvhBytes(clip))).toBe(text);
    const chunks = Array.from(writeBvhChunks(clip), (c) => new TextDecoder().decode(c));
    expect(chunks.join('')).toBe(text);
    const back = parseBvh(text);
    expect(Array.from(back.skeleton.parents)).toEqual(Array.from(clip.skeleton.parents));
  });

  test('a chain of 1001 or 5000 joints is a ShapeError naming joint 1000, from all three writers', () => {
    for (const J of [1001, 5000]) {
      const clip = chain(J);
      const message = /joint 1000 \('j1000'\) is nested 1000 levels deep; a BVH file nests at most 999/;
      expect(() => writeBvh(clip)).toThrow(ShapeError);
      expect(() => writeBvh(clip)).toThrow(message);
      expect(() => writeBvhBytes(clip)).toThrow(message);
      expect(() => writeBvhChunks(clip)).toThrow(message);
    }
  });
});
