import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, rotsig } from './helpers.js';

beforeAll(ensureBuilt);

function expectUsageError(args: string[], pattern: RegExp) {
  const r = rotsig(args);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('rotsig usage', () => {
  it('rotsig --help lists the commands and exits 0', () => {
    const r = rotsig(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Commands:/);
    for (const c of [
      'info',
      'unroll',
      'smooth',
      'resample',
      'velocity',
      'spectrum',
      'export',
      'process',
      'subclip',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
  });

  it('rotsig --version prints package.json version', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
    const r = rotsig(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('rotsig <command> --help shows usage, options and examples for every command', () => {
    const names = [...rotsig(['--help']).stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
    expect(names).toHaveLength(12);
    for (const name of names) {
      const r = rotsig([name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toMatch(new RegExp(`^rotsig ${name}: `));
      expect(r.stdout, name).toMatch(/Usage: /);
      expect(r.stdout, name).toMatch(/Options:/);
      expect(r.stdout, name).toMatch(/Examples:\n {2}rotsig /);
    }
  });

  it('rotsig frobnicate is a one-line usage error (exit 2)', () => {
    expectUsageError(['frobnicate'], /unknown command 'frobnicate'/);
  });

  it('rotsig unroll --bogus is a one-line usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '--bogus', '-o', 'y.bvh'], /unknown option '--bogus'/);
  });

  it('rotsig unroll x.bvh -o (missing value) is a one-line usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '-o'], /--output needs a value/);
  });

  it('rotsig unroll x.bvh without -o is a usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh'], /missing -o\/--output/);
  });

  it('rotsig unroll without inputs is a usage error (exit 2)', () => {
    expectUsageError(['unroll', '-o', 'y.bvh'], /missing input/);
  });

  it('rotsig smooth --sigma -2 (negative sigma) is a one-line usage error (exit 2)', () => {
    expectUsageError(
      ['smooth', 'samples/01_01.bvh', '-o', 'x.bvh', '--sigma', '-2'],
      /--sigma must be greater than 0, got -2/,
    );
    expectUsageError(
      ['smooth', 'samples/01_01.bvh', '-o', 'x.bvh', '--sigma=-2'],
      /--sigma must be greater than 0/,
    );
    expectUsageError(
      ['process', 'samples/', '-o', 'x/', '--smooth', 'gaussian:-1'],
      /--smooth sigma must be greater than 0/,
    );
  });

  it('rotsig resample --rate 0 is a one-line usage error (exit 2)', () => {
    expectUsageError(
      ['resample', 'samples/01_01.bvh', '-o', 'x.bvh', '--rate', '0'],
      /--rate must be greater than 0, got 0/,
    );
    expectUsageError(
      ['resample', 'samples/01_01.bvh', '-o', 'x.bvh', '--rate', 'abc'],
      /--rate must be a number/,
    );
    expectUsageError(['resample', 'samples/01_01.bvh', '-o', 'x.bvh'], /missing --rate/);
    expectUsageError(
      ['process', 'samples/', '-o', 'x/', '--resample', '0'],
      /--resample must be greater than 0/,
    );
  });

  it('unknown choices name the valid ones (exit 2)', () => {
    expectUsageError(
      ['smooth', 'samples/01_01.bvh', '-o', 'x.bvh', '--space', 'quaternion'],
      /--space must be one of raw, log, eigen/,
    );
    expectUsageError(
      ['export', 'samples/01_01.bvh', '-o', 'x.npy', '--as', 'matrix'],
      /--as must be one of quat, 6d, rotvec, euler, positions/,
    );
    expectUsageError(
      ['resample', 'samples/01_01.bvh', '-o', 'x.bvh', '--rate', '30', '--kernel', 'bicubic'],
      /--kernel must be one of/,
    );
    expectUsageError(
      ['spectrum', 'samples/01_01.bvh', '--share', '1.5'],
      /--share must be a number between 0 and 1/,
    );
  });

  it('rotsig unroll --jobs 0 is a usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '-o', 'y.bvh', '--jobs', '0'], /--jobs must be a whole number/);
  });

  it('rotsig unroll --precision 40 is a usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '-o', 'y.bvh', '--precision', '40'], /--precision/);
  });
});
