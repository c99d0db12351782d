import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectInputs, globToRegExp } from '../../src/node/files.js';

describe('globToRegExp(glob)', () => {
  it.each([
    ['**/*.bvh', 'a.bvh', true],
    ['**/*.bvh', 'x/y/a.BVH', true],
    ['**/*.bvh', 'x/a.bvh.txt', false],
    ['*.bvh', 'deep/down/a.bvh', true],
    ['sub/*.bvh', 'sub/a.bvh', true],
    ['sub/*.bvh', 'sub/deeper/a.bvh', false],
    ['sub/*.bvh', 'other/a.bvh', false],
    ['**/walk?.bvh', 'w/walk1.bvh', true],
    ['**/walk?.bvh', 'w/walk12.bvh', false],
    ['**/*.{bvh,npy}', 'q/a.npy', true],
    ['**/*.{bvh,npy}', 'q/a.csv', false],
    ['a+b(1).bvh', 'a+b(1).bvh', true],
  ])('globToRegExp(%s) on %s is %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });
});

describe('collectInputs(inputs, { glob })', () => {
  function tree(): string {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-files-'));
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    mkdirSync(join(dir, '.hidden'));
    for (const f of [
      'a.bvh',
      'b/z.bvh',
      'b/c/y.BVH',
      'b/notes.txt',
      '.hidden/h.bvh',
      'b/.x.bvh.rotsig-1-0-1.tmp',
    ])
      writeFileSync(join(dir, f), '');
    return dir;
  }

  it('walks directories recursively in sorted order, skipping hidden entries', () => {
    const dir = tree();
    const { files, missing } = collectInputs([dir]);
    expect(missing).toEqual([]);
    expect(files.map((f) => f.relative)).toEqual(['a.bvh', 'b/c/y.BVH', 'b/z.bvh']);
    expect(files.every((f) => !f.direct)).toBe(true);
    expect(files[0].path).toBe(join(dir, 'a.bvh'));
  });

  it('takes named files as given, drops duplicates and reports missing arguments', () => {
    const dir = tree();
    const { files, missing } = collectInputs([
      join(dir, 'b', 'notes.txt'),
      dir,
      join(dir, 'a.bvh'),
      join(dir, 'nope.bvh'),
    ]);
    expect(files.map((f) => f.relative)).toEqual(['notes.txt', 'a.bvh', 'b/c/y.BVH', 'b/z.bvh']);
    expect(files[0].direct).toBe(true);
    expect(missing).toEqual([{ path: join(dir, 'nope.bvh'), message: 'no such file or directory' }]);
  });

  it('filters directory contents with --glob', () => {
    const dir = tree();
    expect(collectInputs([dir], { glob: 'b/*.bvh' }).files.map((f) => f.relative)).toEqual(['b/z.bvh']);
    expect(collectInputs([dir], { glob: '**/*.txt' }).files.map((f) => f.relative)).toEqual(['b/notes.txt']);
  });
});
