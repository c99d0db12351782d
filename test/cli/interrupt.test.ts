import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, rotsigAsync, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

/** The CMU sample with its motion repeated `times` times: a large input (~20 MB for 10), hence a large output. */
function largeInput(dir: string, times: number): { path: string; frames: number } {
  const text = readFileSync(join(ROOT, 'samples', '01_01.bvh'), 'utf8');
  const lines = text.split('\n');
  const motion = lines.findIndex((l) => /^MOTION/.test(l));
  const rows = lines.slice(motion + 3).filter((l) => l.trim() !== '');
  const frames = rows.length * times;
  const out = [...lines.slice(0, motion + 1), `Frames: ${frames}`, lines[motion + 2]];
  for (let i = 0; i < times; i++) out.push(...rows);
  const path = join(dir, 'big.bvh');
  writeFileSync(path, `${out.join('\n')}\n`);
  return { path, frames };
}

/** True when `text` is the complete positions CSV of a clip with `frames` frames and 31 joints. */
function completeCsv(text: string, frames: number): boolean {
  const lines = text.split('\n');
  return (
    lines.length === frames + 2 && lines[frames + 1] === '' && lines[frames].split(',').length === 2 + 31 * 3
  );
}

/**
 * Starts `rotsig export big --as positions -o dest.csv` (a ~50 MB CSV streamed in chunks), waits until its
 * temporary output file appears, then sends `signal`. Tries up to four times until the signal lands while
 * the temporary file exists; calls `check` after every attempt.
 */
async function interruptDuringWrite(
  input: string,
  dest: string,
  signal: NodeJS.Signals,
  before: () => void,
  check: (code: number | null) => void,
) {
  let interrupted = 0;
  for (let attempt = 0; attempt < 4 && interrupted === 0; attempt++) {
    before();
    const child = rotsigAsync(['export', input, '--as', 'positions', '-o', dest, '--jobs', '1']);
    const dir = join(dest, '..');
    let done = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        done = true;
        resolve(code);
      }),
    );
    while (!done) {
      if (readdirSync(dir).some((n) => n.endsWith('.tmp'))) {
        child.kill(signal);
        interrupted += 1;
        break;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    check(await exited);
  }
  return interrupted;
}

describe('rotsig writes atomically', () => {
  it('SIGKILL in the middle of writing a large output leaves the old destination content', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'out.csv');
    const interrupted = await interruptDuringWrite(
      path,
      dest,
      'SIGKILL',
      () => writeFileSync(dest, 'old content\n'),
      () => {
        const now = readFileSync(dest, 'utf8');
        // Killed while the temporary file was being written: the destination is untouched (or, had the
        // rename already happened, the complete new file). Never a partial file.
        expect(now === 'old content\n' || completeCsv(now, frames)).toBe(true);
      },
    );
    expect(interrupted).toBeGreaterThan(0);
  });

  it('SIGKILL with no previous destination leaves nothing or the complete file', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'fresh.csv');
    const interrupted = await interruptDuringWrite(
      path,
      dest,
      'SIGKILL',
      () => rmSync(dest, { force: true }),
      () => {
        if (existsSync(dest)) expect(completeCsv(readFileSync(dest, 'utf8'), frames)).toBe(true);
      },
    );
    expect(interrupted).toBeGreaterThan(0);
  });

  it('Ctrl-C (SIGINT) during a write exits 130, keeps the old destination and removes the temporary file', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'out.csv');
    const interrupted = await interruptDuringWrite(
      path,
      dest,
      'SIGINT',
      () => writeFileSync(dest, 'old content\n'),
      (code) => {
        // Ctrl-C stops the run, removes the temporary file and exits 130 before the rename, or the file was
        // already complete: a single small input runs on the main thread, which answers once it is written.
        const now = readFileSync(dest, 'utf8');
        if (now !== 'old content\n') expect(completeCsv(now, frames)).toBe(true);
        else expect(code).toBe(130);
        expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      },
    );
    expect(interrupted).toBeGreaterThan(0);
  });
});
