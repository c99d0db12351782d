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
    expect(r.stdout).toMatch(/info/);
    expect(r.stdout).toMatch(/unroll/);
  });

  it('rotsig --version prints package.json version', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default;
    const r = rotsig(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('rotsig <command> --help shows usage, options and examples for every command', () => {
    const names = [...rotsig(['--help']).stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThanOrEqual(2);
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

  it('rotsig unroll --jobs 0 is a usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '-o', 'y.bvh', '--jobs', '0'], /--jobs must be a whole number/);
  });

  it('rotsig unroll --precision 40 is a usage error (exit 2)', () => {
    expectUsageError(['unroll', 'x.bvh', '-o', 'y.bvh', '--precision', '40'], /--precision/);
  });
});
