import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh } from '../../src/io/index.js';
import { ensureBuilt, ROOT, rotsigAsync, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

/** The CMU sample with its motion repeated `times` times: a large input, hence a large output (~2 MB each). */
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

/** Starts `rotsig unroll big -o dest`, waits until its temporary output file appears, then sends `signal`. */
async function interruptDuringWrite(input: string, dest: string, signal: NodeJS.Signals) {
  const child = rotsigAsync(['unroll', input, '-o', dest, '--jobs', '1']);
  const dir = join(dest, '..');
  let sawTemporary = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, sig) => resolve(code ?? (sig ? -1 : null))),
  );
  let done = false;
  child.on('exit', () => {
    done = true;
  });
  while (!done) {
    if (readdirSync(dir).some((n) => n.endsWith('.tmp'))) {
      sawTemporary = true;
      child.kill(signal);
      break;
    }
    await new Promise((r) => setImmediate(r));
  }
  const code = await exited;
  return { sawTemporary, code };
}

describe('rotsig writes atomically', () => {
  it('SIGKILL in the middle of writing a large output leaves the old destination content', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'out.bvh');
    let interrupted = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      writeFileSync(dest, 'old content\n');
      const { sawTemporary } = await interruptDuringWrite(path, dest, 'SIGKILL');
      const now = readFileSync(dest, 'utf8');
      if (sawTemporary) {
        interrupted += 1;
        // Killed while the temporary file was being written: the destination is untouched, unless the
        // rename already happened, in which case it is the complete new file.
        if (now !== 'old content\n') expect(parseBvh(now).frames).toBe(frames);
      } else expect(parseBvh(now).frames).toBe(frames);
    }
    expect(interrupted).toBeGreaterThan(0);
  });

  it('SIGKILL with no previous destination leaves nothing or the complete file', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'fresh.bvh');
    const { sawTemporary } = await interruptDuringWrite(path, dest, 'SIGKILL');
    expect(sawTemporary).toBe(true);
    if (existsSync(dest)) expect(parseBvh(readFileSync(dest, 'utf8')).frames).toBe(frames);
  });

  it('Ctrl-C (SIGINT) during a write exits 130, keeps the old destination and removes the temporary file', async () => {
    const dir = tempDir();
    const { path, frames } = largeInput(dir, 10);
    const dest = join(dir, 'out.bvh');
    writeFileSync(dest, 'old content\n');
    const { sawTemporary, code } = await interruptDuringWrite(path, dest, 'SIGINT');
    expect(sawTemporary).toBe(true);
    expect(code).toBe(130);
    const now = readFileSync(dest, 'utf8');
    if (now !== 'old content\n') expect(parseBvh(now).frames).toBe(frames);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
