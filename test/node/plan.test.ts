import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectInputs, type InputFile } from '../../src/node/files.js';
import { caseInsensitiveAt, PlanError, planOutputs, realTarget } from '../../src/node/plan.js';

const direct = (path: string): InputFile => ({ path, relative: path.split('/').pop()!, direct: true });
const found = (root: string, rel: string): InputFile => ({
  path: join(root, rel),
  relative: rel,
  direct: false,
});

describe('planOutputs(files, options)', () => {
  it('one file and -o file writes that file', () => {
    expect(planOutputs([direct('in/a.bvh')], { output: 'out/b.bvh' })).toEqual([
      { input: 'in/a.bvh', output: 'out/b.bvh' },
    ]);
  });

  it('a directory input mirrors its tree under -o with the output extension', () => {
    const plan = planOutputs([found('cap', 'a.bvh'), found('cap', 'x/b.bvh')], {
      output: 'out',
      extension: '.npy',
    });
    expect(plan.map((p) => p.output)).toEqual([join('out', 'a.npy'), join('out', 'x', 'b.npy')]);
  });

  it('-o dir/ or an existing directory is a directory even for one file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-plan-'));
    expect(planOutputs([direct('in/a.bvh')], { output: dir })[0].output).toBe(join(dir, 'a.bvh'));
    expect(planOutputs([direct('in/a.bvh')], { output: 'new/' })[0].output).toBe(join('new', 'a.bvh'));
  });

  it('refuses to overwrite an input without inPlace, and allows it with inPlace', () => {
    expect(() => planOutputs([direct('a.bvh')], { output: 'a.bvh' })).toThrow(PlanError);
    expect(() => planOutputs([direct('a.bvh')], { output: './a.bvh' })).toThrow(/--in-place/);
    expect(planOutputs([direct('a.bvh')], { inPlace: true })).toEqual([{ input: 'a.bvh', output: 'a.bvh' }]);
    expect(() => planOutputs([direct('a.bvh')], { inPlace: true, extension: '.npy' })).toThrow(PlanError);
  });

  it('refuses two inputs writing one output, -o - with several inputs, and a missing -o', () => {
    expect(() => planOutputs([direct('x/a.bvh'), direct('y/a.bvh')], { output: 'out' })).toThrow(
      /would both write/,
    );
    expect(() => planOutputs([direct('a.bvh'), direct('b.bvh')], { output: '-' })).toThrow(
      /exactly one input/,
    );
    expect(() => planOutputs([direct('a.bvh')], {})).toThrow(/missing -o/);
    expect(() => planOutputs([direct('a.bvh')], { output: 'o.bvh', inPlace: true })).toThrow(/either/);
  });
});

describe('planOutputs(files, options) compares files, not path strings', () => {
  /** `d/x.bvh` and `d/sub/y.bvh`, with `lnk -> d`. Returns absolute paths. */
  function tree() {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-plan-links-'));
    mkdirSync(join(dir, 'd', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'd', 'x.bvh'), 'x');
    writeFileSync(join(dir, 'd', 'sub', 'y.bvh'), 'y');
    symlinkSync('d', join(dir, 'lnk'));
    return { dir, d: join(dir, 'd'), lnk: join(dir, 'lnk') };
  }

  it('-o through a symbolic link to the input directory is the input (unroll d/x.bvh -o lnk/x.bvh)', () => {
    const { d, lnk } = tree();
    expect(() => planOutputs([direct(join(d, 'x.bvh'))], { output: join(lnk, 'x.bvh') })).toThrow(
      /is an input \(the same file as input .*d\/x\.bvh, reached through a symbolic link\)/,
    );
  });

  it('an input through a symbolic link written to its real path is the input (unroll lnk/x.bvh -o d/x.bvh)', () => {
    const { d, lnk } = tree();
    expect(() => planOutputs([direct(join(lnk, 'x.bvh'))], { output: join(d, 'x.bvh') })).toThrow(PlanError);
  });

  it('a directory input mirrored into a link to itself is refused (process d -o lnk)', () => {
    const { d, lnk } = tree();
    const files = collectInputs([d]).files;
    expect(() => planOutputs(files, { output: lnk })).toThrow(/lnk\/sub\/y\.bvh is an input/);
    // and the long way round: lnk/sub/.. is d, as the file system resolves it
    expect(() => planOutputs(files, { output: `${lnk}/sub/..` })).toThrow(PlanError);
  });

  it('a hard link to the input is the input', () => {
    const { dir, d } = tree();
    linkSync(join(d, 'x.bvh'), join(dir, 'hard.bvh'));
    expect(() => planOutputs([direct(join(d, 'x.bvh'))], { output: join(dir, 'hard.bvh') })).toThrow(
      /a hard link/,
    );
  });

  it('an output that is a symbolic link to an input is refused', () => {
    const { dir, d } = tree();
    symlinkSync(join(d, 'x.bvh'), join(dir, 'alias.bvh'));
    expect(() => planOutputs([direct(join(d, 'x.bvh'))], { output: join(dir, 'alias.bvh') })).toThrow(
      PlanError,
    );
  });

  it('two outputs that are one file through a link are refused', () => {
    const { dir, d } = tree();
    const out = join(dir, 'out');
    mkdirSync(out);
    symlinkSync('.', join(out, 'same'));
    const files = [
      { path: join(d, 'x.bvh'), relative: 'x.bvh', direct: false },
      { path: join(d, 'sub', 'y.bvh'), relative: 'same/x.bvh', direct: false },
    ];
    expect(() => planOutputs(files, { output: out })).toThrow(/would both write/);
  });

  it('-o into a fresh directory next to the inputs, or inside the input tree, is allowed', () => {
    const { dir, d, lnk } = tree();
    const files = collectInputs([lnk]).files;
    expect(planOutputs(files, { output: join(dir, 'out') }).map((p) => p.output)).toEqual([
      join(dir, 'out', 'sub', 'y.bvh'),
      join(dir, 'out', 'x.bvh'),
    ]);
    expect(planOutputs(files, { output: join(d, 'cleaned') })).toHaveLength(2);
  });

  it('a symbolic link inside the -o tree that leads out of it is refused; -o itself may be a link', () => {
    const { dir, d } = tree();
    const out = join(dir, 'out');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(out);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, 'sub'));
    const files = collectInputs([d]).files;
    expect(() => planOutputs(files, { output: out })).toThrow(
      /out\/sub\/y\.bvh would be written to .*elsewhere\/y\.bvh, outside the output directory/,
    );
    // A link that stays inside the tree is fine, and so is -o naming a link to a directory.
    rmSync(join(out, 'sub'));
    mkdirSync(join(out, 'real-sub'));
    symlinkSync('real-sub', join(out, 'sub'));
    expect(planOutputs(files, { output: out })).toHaveLength(2);
    symlinkSync(elsewhere, join(dir, 'out-link'));
    expect(planOutputs(files, { output: join(dir, 'out-link') })).toHaveLength(2);
  });

  it('--in-place on a symbolic link to a file writes the file it points to, so the link stays', () => {
    const { dir, d } = tree();
    symlinkSync(join(d, 'x.bvh'), join(dir, 'alias.bvh'));
    expect(planOutputs([direct(join(dir, 'alias.bvh'))], { inPlace: true })).toEqual([
      { input: join(dir, 'alias.bvh'), output: realpathSync(join(d, 'x.bvh')) },
    ]);
  });

  it('realTarget(path) resolves links and .. in the order the file system does', () => {
    const { dir, d, lnk } = tree();
    const real = realpathSync(dir);
    expect(realTarget(join(lnk, 'sub', 'new', 'z.bvh'))).toBe(join(real, 'd', 'sub', 'new', 'z.bvh'));
    // lnk/sub/.. is d (the parent of the link's target), where a string normalisation would say lnk.
    expect(realTarget(`${lnk}/sub/../x.bvh`)).toBe(join(real, 'd', 'x.bvh'));
    expect(realTarget(join(d, 'missing', '..', 'x.bvh'))).toBe(join(real, 'd', 'x.bvh'));
  });

  it('outputs that differ only in case collide exactly when this file system ignores case', () => {
    const { dir, d } = tree();
    // What the file system does, found out independently of the code under test.
    writeFileSync(join(dir, 'probe-a'), '');
    const insensitive = existsSync(join(dir, 'PROBE-A'));
    expect(caseInsensitiveAt(dir)).toBe(insensitive);
    const input = direct(join(d, 'x.bvh'));
    const asUpper = () => planOutputs([input], { output: join(d, 'X.BVH') });
    if (insensitive) expect(asUpper).toThrow(/the name spelled in another case/);
    else expect(asUpper()).toEqual([{ input: input.path, output: join(d, 'X.BVH') }]);
    const two = [
      { path: join(d, 'x.bvh'), relative: 'a.bvh', direct: false },
      { path: join(d, 'sub', 'y.bvh'), relative: 'A.bvh', direct: false },
    ];
    const both = () => planOutputs(two, { output: join(dir, 'out') });
    if (insensitive) expect(both).toThrow(/would both write/);
    else expect(both()).toHaveLength(2);
  });
});

describe('planOutputs(files, options) on odd -o paths', () => {
  it('an -o below a file is planned (the write then fails for that file), not an internal error', () => {
    expect(planOutputs([direct('in/a.bvh')], { output: '/dev/null/sub/a.bvh' })).toEqual([
      { input: 'in/a.bvh', output: '/dev/null/sub/a.bvh' },
    ]);
  });

  it('one file and a new -o with no extension is refused (a folder was likely meant), naming both ways', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-plan-'));
    expect(() => planOutputs([direct('in/m.gltf')], { output: join(dir, 'newdir') })).toThrow(
      /newdir is neither an existing directory nor a file name with an extension: end it with \//,
    );
    writeFileSync(join(dir, 'kept'), '');
    expect(planOutputs([direct('in/a.bvh')], { output: join(dir, 'kept') })[0].output).toBe(
      join(dir, 'kept'),
    );
  });

  it('several inputs and -o naming an existing file is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-plan-'));
    writeFileSync(join(dir, 'f.bvh'), '');
    expect(() => planOutputs([direct('a.bvh'), direct('b.bvh')], { output: join(dir, 'f.bvh') })).toThrow(
      /is a file, but these inputs need a directory/,
    );
  });
});
