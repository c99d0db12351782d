// Jobs on shared servers run under an address-space limit (`ulimit -v`), below what V8 reserves for a
// WebAssembly memory. meshoptimizer instantiates its WebAssembly when its module loads, so the CLI must load
// it only for meshopt data and turn its failure into a typed one-line error there, never an unhandled
// promise rejection that kills the process.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGltf, writeGltf } from '../../src/io/index.js';
import { FIXTURE_GLTF_DIR } from '../support/gltf-data.js';
import { ensureBuilt, ROOT, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');
const LIMIT_KB = 4_000_000;

/** `node bin/rotsig.js ...args` under `ulimit -v`, as `bash -c` runs it. */
function limited(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync(
    'bash',
    ['-c', `ulimit -v ${LIMIT_KB}; exec '${process.execPath}' bin/rotsig.js ${quoted}`],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function noCrash(stderr: string): void {
  expect(stderr).not.toMatch(/triggerUncaughtException|RangeError|Unhandled|node:internal/);
}

describe(`rotsig under ulimit -v ${LIMIT_KB}`, () => {
  it('rotsig info samples/01_01.bvh works', () => {
    const r = limited(['info', 'samples/01_01.bvh']);
    noCrash(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/31 joints/);
  });

  it('rotsig info Fox.glb (no meshopt data) works', () => {
    const r = limited(['info', FOX]);
    noCrash(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/animation 2 'Run'/);
  });

  it('rotsig info on an EXT_meshopt_compression file reads it or fails with one typed line', async () => {
    const dir = tempDir();
    const packed = join(dir, 'fox-meshopt.glb');
    const { document } = await readGltf(new Uint8Array(readFileSync(FOX)));
    writeFileSync(packed, (await writeGltf(document, [], { compression: 'meshopt' })).glb!);
    const r = limited(['info', packed]);
    noCrash(r.stderr);
    if (r.code === 0) expect(r.stdout).toMatch(/animation 2 'Run'/);
    else {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^error: .*EXT_meshopt_compression: meshoptimizer's decoder cannot be loaded/m,
      );
    }
  });

  it('rotsig reduce --meshopt, where the encoder cannot load, fails with one typed line', () => {
    const out = join(tempDir(), 'fox-reduced.glb');
    const r = limited(['reduce', FOX, '-o', out, '--meshopt']);
    noCrash(r.stderr);
    if (r.code !== 0) {
      expect(r.code).toBe(1);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /EXT_meshopt_compression: meshoptimizer's encoder cannot be loaded here \(.+\)$/,
      );
    } else expect(r.stdout).toMatch(/wrote /);
  });
});
