import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFilesAtomic } from '../../src/node/atomic.js';
import { groupLockPath, lockGroup } from '../../src/node/group-lock.js';

const ROOT = join(import.meta.dirname, '..', '..');
const fresh = () => mkdtempSync(join(tmpdir(), 'rotsig-lock-'));

/** A child process that writes the pair `m.bin`/`m.gltf` (both holding `tag`) `times` times with the built writer. */
function writerScript(dir: string, tag: string, times: number): string {
  const atomic = JSON.stringify(join(ROOT, 'dist', 'node', 'atomic.js'));
  const bin = JSON.stringify(join(dir, 'm.bin'));
  const gltf = JSON.stringify(join(dir, 'm.gltf'));
  return `import(${atomic}).then(({ writeFilesAtomic }) => {
    for (let i = 0; i < ${times}; i++)
      writeFilesAtomic([{ path: ${bin}, content: ${JSON.stringify(tag)} + ' ' + i }, { path: ${gltf}, content: ${JSON.stringify(tag)} + ' ' + i }]);
  });`;
}

describe('writeFilesAtomic: two writers of one group', () => {
  it('waits while another writer holds the group, then writes the whole group', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'm.bin'), 'old');
    writeFileSync(join(dir, 'm.gltf'), 'old');
    const release = lockGroup(join(dir, 'm.gltf'), 'test');
    const child = spawn(process.execPath, ['-e', writerScript(dir, 'child', 1)], { stdio: 'inherit' });
    const ended = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    await new Promise((r) => setTimeout(r, 1500));
    // the child has staged its files but not renamed them while the lock is held
    expect(readFileSync(join(dir, 'm.bin'), 'utf8')).toBe('old');
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('old');
    release();
    expect(await ended).toBe(0);
    expect(readFileSync(join(dir, 'm.bin'), 'utf8')).toBe('child 0');
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('child 0');
    expect(readdirSync(dir).sort()).toEqual(['m.bin', 'm.gltf']);
  });

  it('two processes writing the same pair 300 times each leave one writer whole pair', async () => {
    const dir = fresh();
    const run = (tag: string) =>
      new Promise<number | null>((done) =>
        spawn(process.execPath, ['-e', writerScript(dir, tag, 300)], { stdio: 'inherit' }).on('exit', done),
      );
    expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
    expect(readFileSync(join(dir, 'm.bin'), 'utf8')).toBe(readFileSync(join(dir, 'm.gltf'), 'utf8'));
    expect(readdirSync(dir).sort()).toEqual(['m.bin', 'm.gltf']);
  });

  it('takes over a lock left by a process that no longer runs, and an old lock of another host', () => {
    const dir = fresh();
    const dead = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    writeFileSync(groupLockPath(join(dir, 'm.gltf')), `${dead} 0 ${hostname()}\n`);
    expect(writeFilesAtomic([{ path: join(dir, 'm.gltf'), content: 'x' }])).toEqual({
      kept: [],
      replaced: [],
    });
    const lock = groupLockPath(join(dir, 'm.gltf'));
    writeFileSync(lock, '1 0 another-host\n');
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(lock, old, old);
    writeFilesAtomic([{ path: join(dir, 'm.gltf'), content: 'y' }]);
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('y');
    expect(readdirSync(dir)).toEqual(['m.gltf']);
  });

  it('a live holder past the wait fails with ELOCKED and leaves the files as they were', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'm.gltf'), 'old');
    const release = lockGroup(join(dir, 'm.gltf'), 'test');
    try {
      expect(() => lockGroup(join(dir, 'm.gltf'), 'writeFilesAtomic', 200)).toThrow(
        expect.objectContaining({ name: 'FileError', code: 'ELOCKED' }),
      );
    } finally {
      release();
    }
    expect(readFileSync(join(dir, 'm.gltf'), 'utf8')).toBe('old');
  });

  it('a rename that fails puts back the companions already replaced', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'm.bin'), 'old bin');
    mkdirSync(join(dir, 'm.gltf', 'inside'), { recursive: true });
    expect(() =>
      writeFilesAtomic([
        { path: join(dir, 'm.bin'), content: 'new bin' },
        { path: join(dir, 'm.gltf'), content: 'new gltf' },
      ]),
    ).toThrow(expect.objectContaining({ name: 'FileError' }));
    expect(readFileSync(join(dir, 'm.bin'), 'utf8')).toBe('old bin');
    expect(readdirSync(dir).sort()).toEqual(['m.bin', 'm.gltf']);
  });
});
