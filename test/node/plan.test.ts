import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputFile } from '../../src/node/files.js';
import { PlanError, planOutputs } from '../../src/node/plan.js';

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
