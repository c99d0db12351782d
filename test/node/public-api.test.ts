/**
 * The public interface of rotsig/node under hostile arguments and failing file operations: every function
 * throws (or rejects with) a typed RotsigError, never a TypeError or a raw system error. The list of
 * functions comes from the module's exports, so a new export fails here until it has a row.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileError, OptionError, RotsigError } from '../../src/errors.js';
import { parseBvh } from '../../src/io/index.js';
import * as node from '../../src/node/index.js';

const root = mkdtempSync(join(tmpdir(), 'rotsig-node-api-'));
afterAll(() => {
  // left for the OS's temporary-file cleanup when a case failed half-way; nothing here is large
});

const BVH = `HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 0 0 0 0 0
1 0 0 10 0 0
`;
const clip = parseBvh(BVH);

/** A valid first argument for each export (the hostile values go into every position in turn). */
const FIRST: Record<string, () => unknown> = {
  readBvhFile: () => join(root, 'in.bvh'),
  writeBvhFile: () => join(root, 'out', 'a.bvh'),
  readGltfFile: () => join(root, 'in.bvh'),
  writeGltfFile: () => join(root, 'out', 'a.glb'),
  writeFileAtomic: () => join(root, 'out', 'a.txt'),
  writeFileAtomicAsync: () => join(root, 'out', 'b.txt'),
  collectInputs: () => [root],
};
const HOSTILE: unknown[] = [null, undefined, 5, Number.NaN, '', 'a\0b', {}, [1, 2], true, Symbol('s')];

/** The error a call ends in (thrown or rejected), or undefined when it succeeded. */
async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return error;
  }
}

const functions = Object.entries(node).filter(([, v]) => typeof v === 'function' && v !== FileError);

describe('rotsig/node under hostile arguments', () => {
  writeFileSync(join(root, 'in.bvh'), BVH);

  it('every exported function has a row', () => {
    expect(functions.map(([name]) => name).filter((name) => !(name in FIRST))).toEqual([]);
  });

  it.each(functions)(
    '%s: each argument replaced by a hostile value gives a typed error or a result',
    async (name, f) => {
      const fn = f as (...args: unknown[]) => unknown;
      const valid = [
        FIRST[name](),
        name === 'writeGltfFile' ? null : clip,
        name === 'writeGltfFile' ? [clip] : {},
      ];
      for (let i = 0; i < Math.max(1, fn.length); i++)
        for (const bad of HOSTILE) {
          const args = valid.slice(0, Math.max(1, fn.length));
          args[i] = bad;
          const error = await outcome(() => fn(...args));
          if (error !== undefined)
            expect(error, `${name} argument ${i} = ${String(bad)}: ${String(error)}`).toBeInstanceOf(
              RotsigError,
            );
        }
    },
  );

  it('failed file operations are FileErrors naming the file and keeping the system code', async () => {
    const missing = join(root, 'missing.bvh');
    const file = join(root, 'in.bvh');
    const cases: [() => unknown, string, string][] = [
      [() => node.readBvhFile(missing), 'ENOENT', missing],
      [() => node.readBvhFile(root), 'EISDIR', root],
      [() => node.readGltfFile(missing), 'ENOENT', missing],
      [
        () => node.writeBvhFile(join(file, 'under-a-file.bvh'), clip),
        'EEXIST',
        join(file, 'under-a-file.bvh'),
      ],
      [() => node.writeFileAtomic(join(file, 'x.txt'), 'x'), 'ENOTDIR', join(file, 'x.txt')],
      [
        () => node.writeFileAtomicAsync(join(root, 'no-dir', 'x.txt'), 'x'),
        'ENOENT',
        join(root, 'no-dir', 'x.txt'),
      ],
      [() => node.writeGltfFile(join(file, 'a.glb'), null, [clip]), 'EEXIST', join(file, 'a.glb')],
    ];
    for (const [call, code, path] of cases) {
      const error = (await outcome(call)) as FileError;
      expect(error, `${code} ${path}`).toBeInstanceOf(FileError);
      expect(error.code).toBe(code);
      expect(error.path).toBe(path);
      expect(error.message).toContain(JSON.stringify(path));
    }
  });

  it('an unknown option name is an OptionError (a typo never passes)', async () => {
    const file = join(root, 'in.bvh');
    const calls: (() => unknown)[] = [
      () => node.readBvhFile(file, { strickt: true } as never),
      () => node.readGltfFile(file, { animations: 1 } as never),
      () => node.collectInputs([root], { globb: '*.bvh' } as never),
      () => node.writeGltfFile(join(root, 'out', 'c.glb'), null, [clip], { scal: 2 } as never),
    ];
    for (const call of calls) expect(await outcome(call)).toBeInstanceOf(OptionError);
  });

  it('valid calls still work: write, read back, collect', async () => {
    mkdirSync(join(root, 'ok'), { recursive: true });
    node.writeBvhFile(join(root, 'ok', 'a.bvh'), clip);
    expect(node.readBvhFile(join(root, 'ok', 'a.bvh')).clip.frames).toBe(2);
    await node.writeFileAtomicAsync(join(root, 'ok', 'b.txt'), ['a', new Uint8Array([98])]);
    expect(node.collectInputs([join(root, 'ok')]).files.map((f) => f.path.endsWith('a.bvh'))).toEqual([true]);
  });
});
