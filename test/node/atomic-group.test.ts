import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFilesAtomic } from '../../src/node/atomic.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'rotsig-group-'));

describe('writeFilesAtomic(files)', () => {
  it('writes a .gltf with its .bin, replacing the old pair, and leaves no temporary file', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'm.bin'), 'old bin');
    writeFileSync(join(dir, 'm.gltf'), 'old gltf');
    const report = writeFilesAtomic([
      { path: join(dir, 'm.bin'), content: new Uint8Array([1, 2, 3]) },
      { path: join(dir, 'm.gltf'), content: 'new gltf' },
    ]);
    expect(report).toEqual({ kept: [], replaced: [] });
    expect([...readFileSync(join(dir, 'm.bin'))]).toEqual([1, 2, 3]);
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('new gltf');
    expect(readdirSync(dir).sort()).toEqual(['m.bin', 'm.gltf']);
  });

  it('a file of the group that cannot be written leaves every file of the group as it was', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'm.bin'), 'old bin');
    writeFileSync(join(dir, 'm.gltf'), 'old gltf');
    expect(() =>
      writeFilesAtomic([
        { path: join(dir, 'm.bin'), content: 'new bin' },
        { path: join(dir, 'missing', 'img.png'), content: 'image' },
        { path: join(dir, 'm.gltf'), content: 'new gltf' },
      ]),
    ).toThrow(expect.objectContaining({ name: 'FileError', code: 'ENOENT' }));
    expect(readFileSync(join(dir, 'm.bin'), 'utf8')).toBe('old bin');
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('old gltf');
    expect(readdirSync(dir).sort()).toEqual(['m.bin', 'm.gltf']);
  });

  it('noClobber never replaces a file, nor writes through a link at the path; the same bytes count as written', () => {
    const dir = fresh();
    const outside = fresh();
    writeFileSync(join(dir, 'taken.png'), 'someone else');
    writeFileSync(join(dir, 'same.png'), 'image');
    symlinkSync(join(outside, 'pwned.png'), join(dir, 'link.png'));
    const report = writeFilesAtomic([
      { path: join(dir, 'taken.png'), content: 'image', noClobber: true },
      { path: join(dir, 'same.png'), content: 'image', noClobber: true },
      { path: join(dir, 'link.png'), content: 'image', noClobber: true },
      { path: join(dir, 'new.png'), content: 'image', noClobber: true },
      { path: join(dir, 'm.gltf'), content: 'gltf' },
    ]);
    expect(report.kept).toEqual([join(dir, 'taken.png'), join(dir, 'link.png')]);
    expect(readFileSync(join(dir, 'taken.png'), 'utf8')).toBe('someone else');
    expect(existsSync(join(outside, 'pwned.png'))).toBe(false);
    expect(readFileSync(join(dir, 'new.png'), 'utf8')).toBe('image');
    expect(readdirSync(dir).sort()).toEqual(['link.png', 'm.gltf', 'new.png', 'same.png', 'taken.png']);
  });
});
