// The BVH writers on a hierarchy thousands of joints deep (a chain of glTF nodes): written like any
// other, never a stack overflow.
import { describe, expect, test } from 'vitest';
import { writeBvh, writeBvhBytes, writeBvhChunks } from '../../src/io/index.js';
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

describe('writeBvh(clip) on a 5000-deep chain', () => {
  test('writeBvh, writeBvhBytes and writeBvhChunks nest each joint one level deeper and close every brace', () => {
    const J = 5000;
    const clip = chain(J);
    const text = writeBvh(clip);
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['HIERARCHY', 'ROOT j0', '{']);
    expect(lines[5]).toBe('\tJOINT j1');
    const deepest = lines.indexOf(`${'\t'.repeat(J - 1)}JOINT j${J - 1}`);
    expect(deepest).toBe(1 + 4 * (J - 1));
    const motion = lines.indexOf('MOTION');
    // the closing braces of the chain, innermost first, end the hierarchy
    for (let d = 0; d < J; d++) expect(lines[motion - 1 - d]).toBe(`${'\t'.repeat(d)}}`);
    const opened = lines.slice(0, motion).filter((l) => l.trim() === '{').length;
    const closed = lines.slice(0, motion).filter((l) => l.trim() === '}').length;
    expect(opened).toBe(closed);
    expect(new TextDecoder().decode(writeBvhBytes(clip))).toBe(text);
    const chunks = Array.from(writeBvhChunks(clip), (c) => new TextDecoder().decode(c));
    expect(chunks.join('')).toBe(text);
  });
});
