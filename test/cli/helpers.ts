// Runs the BUILT command line as a user would (node bin/rotsig.js ...), building dist/ and the bundle
// bin/rotsig.js runs (dist/cli-bundle/) first when they are missing or older than src/ (one build at a time
// across test files, by a lock directory).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(ROOT, 'dist', 'cli-bundle', 'main.js');
const LOCK = join(ROOT, 'node_modules', '.cache', 'rotsig-cli-build.lock');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function stale(): boolean {
  try {
    return statSync(MAIN).mtimeMs < newest(join(ROOT, 'src'));
  } catch {
    return true;
  }
}

/** Builds dist/ with tsc, then the command's bundle, when it is missing or older than src/. */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (stale()) {
    mkdirSync(dirname(LOCK), { recursive: true });
    try {
      mkdirSync(LOCK);
    } catch {
      // Another test file is building; a lock older than two minutes is a leftover.
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      } catch {}
      if (Date.now() > deadline) throw new Error('timed out waiting for the build lock');
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    const started = Date.now() - 1000;
    try {
      // tsc emits even when a file elsewhere in progress has a type error; the check is that main.js is fresh.
      spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
        {
          cwd: ROOT,
          stdio: 'ignore',
        },
      );
      spawnSync(process.execPath, [join(ROOT, 'scripts', 'bundle_cli.mjs')], { cwd: ROOT, stdio: 'ignore' });
      // Files others save during the build may be newer than the output; what matters is that it ran.
      if ((statSync(MAIN, { throwIfNoEntry: false })?.mtimeMs ?? 0) < started)
        throw new Error('the build did not refresh dist/cli-bundle/main.js');
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

/** Runs `rotsig ...args` to completion. */
export function rotsig(args: string[], options: { cwd?: string; input?: string | Buffer } = {}): RunResult {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    maxBuffer: 1 << 28,
  });
  return {
    code: r.status,
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
    stdoutBytes: r.stdout,
  };
}

/** Starts `rotsig ...args` without waiting. */
export function rotsigAsync(args: string[], cwd = ROOT) {
  return spawn(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'rotsig-cli-'));
}
