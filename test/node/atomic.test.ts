import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  removeStaleTemporaryFiles,
  removeTemporaryFiles,
  temporaryPathFor,
  writeFileAtomic,
  writeFileAtomicAsync,
} from '../../src/node/atomic.js';
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

describe('writeFileAtomicAsync(path, content)', () => {
  it('leaves the old file until the flush, then the whole new one and no temporary file', async () => {
    const dir = fresh();
    const p = join(dir, 'a.bvh');
    writeFileSync(p, 'old');
    const content = new Uint8Array(3 << 20).fill(65);
    const done = writeFileAtomicAsync(p, content);
    // written to the temporary file already: the caller may reuse its buffer at once
    content.fill(66);
    expect(readFileSync(p, 'utf8')).toBe('old');
    expect(readdirSync(dir).length).toBe(2);
    await done;
    const back = readFileSync(p);
    expect(back.length).toBe(3 << 20);
    expect(back.every((c) => c === 65)).toBe(true);
    expect(readdirSync(dir)).toEqual(['a.bvh']);
  });

  it('a rename that fails (a directory in the way) rejects and removes the temporary file', async () => {
    const dir = fresh();
    const p = join(dir, 'taken');
    mkdirSync(join(p, 'inside'), { recursive: true });
    await expect(writeFileAtomicAsync(p, 'text')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('a failing chunk source throws at once and leaves no temporary file', () => {
    const dir = fresh();
    const failing = (function* () {
      yield 'partial';
      throw new Error('generator failed');
    })();
    expect(() => writeFileAtomicAsync(join(dir, 'a.txt'), failing)).toThrow('generator failed');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('removeStaleTemporaryFiles(directories)', () => {
  /** The id of a process that has run and exited (and been reaped), so it runs no more. */
  function deadPid(): number {
    const r = spawnSync(process.execPath, ['-e', '']);
    return r.pid!;
  }

  it('temporaryPathFor names a hidden sibling with the pid, thread, a counter and a host tag', () => {
    const a = temporaryPathFor(join('out', 'walk.bvh'));
    const b = temporaryPathFor(join('out', 'walk.bvh'));
    expect(a).toMatch(
      new RegExp(`^out[/\\\\]\\.walk\\.bvh\\.rotsig-${process.pid}-\\d+-\\d+-[0-9a-f]{8}\\.tmp$`),
    );
    expect(a).not.toBe(b);
  });

  it('removes the files of processes that no longer run, keeps those of live ones and other files', () => {
    const dir = fresh();
    const dead = deadPid();
    const mine = temporaryPathFor(join(dir, 'mine.bvh'));
    writeFileSync(mine, 'being written by this process');
    // A live process other than this one: the parent of the test runner.
    const live = join(dir, `.live.bvh.rotsig-${process.ppid}-0-1.tmp`);
    writeFileSync(live, 'being written by a live process');
    // One like those this version writes, and one of the older form without a host tag.
    const host = /-([0-9a-f]{8})\.tmp$/.exec(mine)![1];
    const stale = [`.a.bvh.rotsig-${dead}-0-3-${host}.tmp`, `.b.npy.rotsig-${dead}-2-1.tmp`];
    for (const name of stale) writeFileSync(join(dir, name), 'left by a killed run');
    // Written on another host sharing the directory: its process id means nothing here.
    const otherHost = host === '00000000' ? '00000001' : '00000000';
    const foreign = `.c.bvh.rotsig-${dead}-0-1-${otherHost}.tmp`;
    writeFileSync(join(dir, foreign), 'another host');
    // Names that only look similar.
    for (const name of ['keep.bvh', `.d.bvh.rotsig-${dead}-x-1.tmp`, `e.bvh.rotsig-${dead}-0-1.tmp`])
      writeFileSync(join(dir, name), 'not a temporary file of rotsig');
    const removed = removeStaleTemporaryFiles([dir, dir, join(dir, 'missing')]);
    expect(removed.map((r) => r.path).sort()).toEqual(stale.map((n) => join(dir, n)).sort());
    expect(removed.every((r) => r.pid === dead)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(
      [
        basename(mine),
        basename(live),
        foreign,
        'keep.bvh',
        `.d.bvh.rotsig-${dead}-x-1.tmp`,
        `e.bvh.rotsig-${dead}-0-1.tmp`,
      ].sort(),
    );
  });
});

describe('readBvhFile(path) and writeBvhFile(path, clip)', () => {
  it('round-trips the bundled walk through a new directory', async () => {
    const { readBvhFile, writeBvhFile } = await import('../../src/node/read.js');
    const { clip, warnings } = readBvhFile(
      join(__dirname, '..', '..', 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'),
    );
    expect(warnings.filter((w) => w.code !== 'frame-rate')).toEqual([]);
    const out = join(fresh(), 'deep', 'walk.bvh');
    writeBvhFile(out, clip);
    const again = readBvhFile(out).clip;
    expect(again.frames).toBe(1064);
    expect(again.skeleton.names).toEqual(clip.skeleton.names);
    expect(bvhOf(again).frameTimeText).toBe('0.008333');
  });
});
