// bin/rotsig.js runs the command from dist/cli-bundle/ (scripts/bundle_cli.mjs), which must be the same
// program as the modules in dist/: same bytes out, its batch workers included, and a stale bundle is
// never run.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const BUNDLE = join(ROOT, 'dist', 'cli-bundle');

/** `rotsig ...args` run from dist/cli/main.js itself, not the bundle (a script file: workers inherit flags). */
function unbundled(args: string[]) {
  const script = join(tempDir(), 'unbundled.mjs');
  writeFileSync(
    script,
    `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)};
process.exitCode = await main(process.argv.slice(2));`,
  );
  const r = spawnSync(process.execPath, [script, ...args], { cwd: ROOT });
  return { code: r.status, stderr: r.stderr.toString('utf8') };
}

/** Every file below `dir`, relative path to bytes. */
function tree(dir: string, base = dir, out = new Map<string, Buffer>()): Map<string, Buffer> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) tree(p, base, out);
    else out.set(p.slice(base.length + 1), readFileSync(p));
  }
  return out;
}

describe('the bundled command line', () => {
  it('is built beside dist/: its entry and the batch worker it starts', () => {
    expect(existsSync(join(BUNDLE, 'main.js'))).toBe(true);
    expect(existsSync(join(BUNDLE, 'worker.js'))).toBe(true);
  });

  it('writes the same bytes as dist/ itself, on a batch across two worker threads', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in', 'sub'), { recursive: true });
    copyFileSync(join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'), join(dir, 'in', 'walk.bvh'));
    copyFileSync(join(ROOT, 'samples', '01_01.bvh'), join(dir, 'in', 'sub', 'jump.bvh'));
    copyFileSync(join(ROOT, 'samples', 'Fox.glb'), join(dir, 'in', 'fox.glb'));
    const args = (out: string) => [
      'process',
      '--unroll',
      '--smooth',
      'gaussian:2f',
      '--resample',
      '30',
      join(dir, 'in'),
      '-o',
      join(dir, out),
      '--jobs',
      '2',
    ];
    const a = rotsig(args('bundled'));
    const b = unbundled(args('modules'));
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const bundled = tree(join(dir, 'bundled'));
    const modules = tree(join(dir, 'modules'));
    expect([...bundled.keys()].sort()).toEqual(['fox.glb', 'sub/jump.bvh', 'walk.bvh']);
    expect([...bundled.keys()].sort()).toEqual([...modules.keys()].sort());
    for (const [name, bytes] of bundled) expect(bytes.equals(modules.get(name)!), name).toBe(true);
  });

  it('bin/rotsig.js runs the bundle while it is as new as dist/cli/main.js, else dist/ (after tsc alone)', () => {
    // bin/rotsig.js beside two stand-in entries that say which one ran
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    mkdirSync(join(dir, 'dist', 'cli-bundle'));
    copyFileSync(join(ROOT, 'bin', 'rotsig.js'), join(dir, 'bin', 'rotsig.js'));
    const stand = (which: string) =>
      `export async function main(argv) { process.stdout.write('${which} ' + argv.join(' ')); return 0; }\n`;
    const modules = join(dir, 'dist', 'cli', 'main.js');
    const bundled = join(dir, 'dist', 'cli-bundle', 'main.js');
    writeFileSync(modules, stand('modules'));
    writeFileSync(bundled, stand('bundle'));
    const run = () => {
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'rotsig.js'), 'info', 'x.bvh'], { cwd: dir });
      expect(r.status, r.stderr.toString('utf8')).toBe(0);
      return r.stdout.toString('utf8');
    };
    const at = (file: string, ms: number) => utimesSync(file, new Date(ms), new Date(ms));
    const now = Date.now();
    at(modules, now - 60_000);
    at(bundled, now);
    expect(run()).toBe('bundle info x.bvh');
    at(bundled, now - 60_000);
    expect(run()).toBe('bundle info x.bvh'); // built in the same instant: as new
    at(bundled, now - 120_000);
    expect(run()).toBe('modules info x.bvh');
    rmSync(bundled);
    expect(run()).toBe('modules info x.bvh');
  });
});
