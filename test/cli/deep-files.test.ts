// Every command on hostile hierarchies and counts: a glTF chain of 4,000 nodes, each the only child of
// the one before; a BVH file with joints nested 4,000 deep; a glTF with 2,000 animations. Each run ends
// with exit 0, 1 or 2, and a failed file is one error line, never a stack overflow.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

/** Key times 0 and 1 s and two identity rotations, as a data URI buffer of 40 bytes. */
const DATA = `data:application/octet-stream;base64,${Buffer.from(new Float32Array([0, 1, 0, 0, 0, 1, 0, 0, 0, 1]).buffer).toString('base64')}`;

/**
 * A `.gltf` of a chain of `depth` nodes (node i + 1 the only child of node i) with `animations`
 * animations, each turning node `target` (2 keys).
 */
function chainGltf(depth: number, target: number, animations = 1): string {
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: Array.from({ length: depth }, (_, i) => ({
      name: `n${i}`,
      ...(i + 1 < depth ? { children: [i + 1] } : {}),
    })),
    buffers: [{ uri: DATA, byteLength: 40 }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 8 },
      { buffer: 0, byteOffset: 8, byteLength: 32 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC4' },
    ],
    animations: Array.from({ length: animations }, (_, a) => ({
      name: `a${a}`,
      samplers: [{ input: 0, output: 1 }],
      channels: [{ sampler: 0, target: { node: target, path: 'rotation' } }],
    })),
  });
}

/** BVH text of a chain of `depth` joints with three rotation channels each, two frames. */
function chainBvh(depth: number): string {
  const joint = 'JOINT j\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n';
  const row = `${Array(3 * depth)
    .fill('0')
    .join(' ')}\n`;
  return (
    `HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n${joint.repeat(depth - 1)}` +
    `End Site\n{\nOFFSET 0 1 0\n}\n${'}\n'.repeat(depth)}MOTION\nFrames: 2\nFrame Time: 0.1\n${row}${row}`
  );
}

/** Every command that reads `file`, with the options it needs, writing into `out/`. */
function commands(file: string, ext: string): string[][] {
  const base = file.replace(/\.\w+$/, '');
  return [
    ['info', file],
    ['unroll', file, '-o', `out/${base}-unroll.${ext}`],
    ['smooth', file, '-o', `out/${base}-smooth.${ext}`],
    ['resample', file, '-o', `out/${base}-resample.${ext}`, '--rate', '10'],
    ['velocity', file, '-o', `out/${base}-velocity.csv`],
    ['spectrum', file, '-o', `out/${base}-spectrum.csv`],
    ['export', file, '-o', `out/${base}-export.npz`, '--as', 'quat'],
    ['export', file, '-o', `out/${base}-positions.npz`, '--as', 'positions'],
    ['process', file, '-o', `out/${base}-process.${ext}`, '--unroll'],
    ['subclip', file, '-o', `out/${base}-subclip.${ext}`, '--start', '0', '--end', '1'],
    ['convert', file, '-o', `out/${base}-convert.bvh`],
    ['convert', file, '-o', `out/${base}-convert.glb`],
    ['reduce', file, '-o', `out/${base}-reduce.glb`],
  ];
}

/** Runs the CLI with a 60 s limit: a run that hangs is killed and shows as `signal: 'SIGKILL'`. */
function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    cwd,
    timeout: 60_000,
    killSignal: 'SIGKILL',
    maxBuffer: 1 << 26,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** Checks that `rotsig args` ended by itself with exit 0, 1 or 2, and a failure is one error line naming `file`. */
function expectClean(r: ReturnType<typeof run>, args: string[], file: string): void {
  const what = `rotsig ${args.join(' ')}: ${r.stderr}`;
  expect(r.signal, what).toBe(null);
  expect([0, 1, 2], what).toContain(r.code);
  expect(r.stderr + r.stdout, what).not.toMatch(/RangeError|Maximum call stack|heap out of memory|\n\s+at /);
  // an error line starts with 'error: <file>' (with 'clean': '<file>:'); a warning or the summary does not
  const errors = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('error:') || new RegExp(`^${file}:`).test(l));
  if (r.code === 0) expect(errors, what).toEqual([]);
  else if (r.code === 1)
    expect(errors, what).toEqual([expect.stringMatching(new RegExp(`^(error: )?${file}:`))]);
}

describe('rotsig on a glTF chain of 4,000 nodes', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'deep.gltf'), chainGltf(4000, 3999));
    writeFileSync(join(dir, 'deeproot.gltf'), chainGltf(4000, 0));
    writeFileSync(join(dir, 'chain1000.gltf'), chainGltf(1000, 999));
  });

  it.each(commands('deep.gltf', 'glb').map((args) => [args.join(' '), args]))(
    'rotsig %s (the deepest node animated) ends with exit 0, 1 or 2 and no stack overflow',
    (_name, args) => {
      expectClean(run(args, dir), args, 'deep\\.gltf');
    },
  );

  it('rotsig convert deep.gltf -o x.bvh fails the file in one line: BVH nests joints 999 deep at most', () => {
    const r = run(['convert', 'deep.gltf', '-o', 'x.bvh'], dir);
    expect(r.code, r.stderr).toBe(1);
    expectClean(r, ['convert', 'deep.gltf', '-o', 'x.bvh'], 'deep\\.gltf');
    expect(r.stderr).toMatch(/joint 1000 \('n1000'\) is nested 1000 levels deep/);
  });

  it('rotsig convert of a chain of 1,000 nodes writes them nested, and info reads the file back', () => {
    const r = run(['convert', 'chain1000.gltf', '-o', 'chain1000.bvh'], dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'chain1000.bvh'), 'latin1').split('\n');
    expect(lines.slice(0, 3)).toEqual(['HIERARCHY', 'ROOT n0', '{']);
    expect(lines).toContain(`${'\t'.repeat(999)}JOINT n999`);
    const info = run(['info', 'chain1000.bvh'], dir);
    expectClean(info, ['info', 'chain1000.bvh'], 'chain1000\\.bvh');
    expect(info.code, info.stderr).toBe(0);
  });

  it('rotsig info and convert of the chain animated on its root end with exit 0', () => {
    for (const args of [
      ['info', 'deeproot.gltf'],
      ['convert', 'deeproot.gltf', '-o', 'root.bvh'],
      ['convert', 'deeproot.gltf', '-o', 'root.glb'],
    ]) {
      const r = run(args, dir);
      expectClean(r, args, 'deeproot\\.gltf');
      expect(r.code, r.stderr).toBe(0);
    }
  });
});

describe('rotsig on a BVH file with joints nested 4,000 deep', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'deep.bvh'), chainBvh(4000));
  });

  it.each(
    [...commands('deep.bvh', 'bvh'), ['clean', 'deep.bvh', '-o', 'out/deep-clean.bvh']].map((args) => [
      args.join(' '),
      args,
    ]),
  )('rotsig %s fails the file in one error line (exit 1)', (_name, args) => {
    const r = run(args, dir);
    expectClean(r, args, 'deep\\.bvh');
    expect(r.code, r.stderr).toBe(1);
  });
});

describe('rotsig on a glTF with 2,000 animations', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'many.gltf'), chainGltf(2, 1, 2000));
  });

  it.each(commands('many.gltf', 'glb').map((args) => [args.join(' '), args]))(
    'rotsig %s ends with exit 0, 1 or 2',
    (_name, args) => {
      expectClean(run(args, dir), args, 'many\\.gltf');
    },
  );
});
