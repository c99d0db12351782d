import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTemporaryFiles, temporaryPathFor, writeFileAtomic } from '../../src/node/atomic.js';
import { bvhOf } from '../support/bvh-source.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'rotsig-atomic-'));

describe('writeFileAtomic(path, content)', () => {
  it('writes text, bytes and chunk sequences, replacing the old file and leaving no temporary file', () => {
    const dir = fresh();
    const p = join(dir, 'a.txt');
    writeFileSync(p, 'old');
    writeFileAtomic(p, 'new text');
    expect(readFileSync(p, 'utf8')).toBe('new text');
    writeFileAtomic(p, new Uint8Array([104, 105]));
    expect(readFileSync(p, 'utf8')).toBe('hi');
    writeFileAtomic(
      p,
      (function* () {
        yield 'a';
        yield new Uint8Array([98]);
        yield 'c';
      })(),
    );
    expect(readFileSync(p, 'utf8')).toBe('abc');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('a failing chunk source leaves the old content and no temporary file', () => {
    const dir = fresh();
    const p = join(dir, 'a.txt');
    writeFileSync(p, 'old');
    const failing = (function* () {
      yield 'partial';
      throw new Error('generator failed');
    })();
    expect(() => writeFileAtomic(p, failing)).toThrow('generator failed');
    expect(readFileSync(p, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('removeTemporaryFiles removes only this process temporary files', () => {
    const dir = fresh();
    const mine = temporaryPathFor(join(dir, 'x.bvh'));
    writeFileSync(mine, 'partial');
    writeFileSync(join(dir, `.x.bvh.rotsig-${process.pid + 1}-0-1.tmp`), 'other process');
    writeFileSync(join(dir, 'keep.bvh'), 'keep');
    expect(removeTemporaryFiles([dir, dir])).toBe(1);
    expect(readdirSync(dir).sort()).toEqual([`.x.bvh.rotsig-${process.pid + 1}-0-1.tmp`, 'keep.bvh']);
  });
});

describe('readBvhFile(path) and writeBvhFile(path, clip)', () => {
  it('round-trips the bundled walk through a new directory', async () => {
    const { readBvhFile, writeBvhFile } = await import('../../src/node/read.js');
    const { clip, warnings } = readBvhFile(
      join(__dirname, '..', '..', 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'),
    );
    expect(warnings).toEqual([]);
    const out = join(fresh(), 'deep', 'walk.bvh');
    writeBvhFile(out, clip);
    const again = readBvhFile(out).clip;
    expect(again.frames).toBe(1064);
    expect(again.skeleton.names).toEqual(clip.skeleton.names);
    expect(bvhOf(again).frameTimeText).toBe('0.008333');
  });
});
