import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh } from '../../src/io/index.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const SAMPLE = join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
const CMU = join(ROOT, 'samples', '01_01.bvh');

/** A directory tree with two good captures and one corrupt one (a bad number in frame data). */
function treeWithCorruptFile(): { dir: string; badLine: number; badColumn: number } {
  const dir = tempDir();
  mkdirSync(join(dir, 'in', 'sub'), { recursive: true });
  copyFileSync(SAMPLE, join(dir, 'in', 'walk.bvh'));
  copyFileSync(CMU, join(dir, 'in', 'sub', 'jump.bvh'));
  const lines = readFileSync(SAMPLE, 'utf8').split('\n');
  const motion = lines.findIndex((l) => /^MOTION/.test(l));
  const row = motion + 3 + 10; // frame 10
  const cols = lines[row].split(/(\s+)/);
  const badColumn = cols.slice(0, 4).join('').length + 1; // third value of the row
  cols[4] = '0.0-7.5';
  lines[row] = cols.join('');
  writeFileSync(join(dir, 'in', 'broken.bvh'), lines.join('\n'));
  return { dir, badLine: row + 1, badColumn };
}

describe('rotsig batches', () => {
  it('a corrupt file is reported with path and line:column, the others complete, exit 1', () => {
    const { dir, badLine, badColumn } = treeWithCorruptFile();
    const r = rotsig(['unroll', join(dir, 'in'), '-o', join(dir, 'out'), '--jobs', '2']);
    expect(r.code).toBe(1);
    const broken = join(dir, 'in', 'broken.bvh');
    expect(r.stderr).toContain(`error: ${broken}:${badLine}:${badColumn}: `);
    expect(r.stderr).toMatch(/0\.0-7\.5/);
    expect(r.stderr).toMatch(/3 files, 2 ok, 1 failed/);
    expect(existsSync(join(dir, 'out', 'broken.bvh'))).toBe(false);
    const walk = parseBvh(readFileSync(join(dir, 'out', 'walk.bvh'), 'utf8'));
    const jump = parseBvh(readFileSync(join(dir, 'out', 'sub', 'jump.bvh'), 'utf8'));
    expect(walk.frames).toBe(1064);
    expect(jump.frames).toBe(2752);
    // No temporary files are left next to the outputs.
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['sub', 'walk.bvh']);
  });

  it('--fail-fast stops handing out files after the first failure', () => {
    const { dir } = treeWithCorruptFile();
    // broken.bvh sorts first; with one job nothing else starts.
    const r = rotsig(['unroll', join(dir, 'in'), '-o', join(dir, 'out'), '--jobs', '1', '--fail-fast']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/1 failed, 2 skipped \(--fail-fast\)/);
    expect(existsSync(join(dir, 'out', 'walk.bvh'))).toBe(false);
  });

  it('--json prints a parseable run summary on stdout; --quiet silences stderr on success', () => {
    const dir = tempDir();
    const r = rotsig(['unroll', SAMPLE, '-o', join(dir, 'walk.bvh'), '--json', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const s = JSON.parse(r.stdout);
    expect(s.ok).toBe(1);
    expect(s.failed).toBe(0);
    expect(s.files[0].frames).toBe(1064);
    expect(s.files[0].joints).toBe(23);
    expect(s.files[0].output).toBe(join(dir, 'walk.bvh'));
  });

  it('--verbose prints one line per file', () => {
    const dir = tempDir();
    const r = rotsig(['unroll', SAMPLE, CMU, '-o', dir, '--verbose', '--jobs', '1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/AV_8Walk_Meredith_HVHA_Rep1\.bvh -> .*: 1064 frames x 23 joints/);
    expect(r.stderr).toMatch(/01_01\.bvh -> .*: 2752 frames x 31 joints/);
    expect(r.stdout).toBe('');
  });

  it('-o - writes the result to stdout and nothing else', () => {
    const r = rotsig(['unroll', SAMPLE, '-o', '-', '--quiet']);
    expect(r.code).toBe(0);
    expect(parseBvh(r.stdout).frames).toBe(1064);
  });

  it('inputs are never overwritten without --in-place; --in-place replaces them', () => {
    const dir = tempDir();
    const file = join(dir, 'walk.bvh');
    copyFileSync(SAMPLE, file);
    const before = readFileSync(file);
    const r = rotsig(['unroll', file, '-o', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is an input; pass --in-place/);
    expect(readFileSync(file).equals(before)).toBe(true);
    const r2 = rotsig(['unroll', file, '--in-place', '--quiet']);
    expect(r2.code).toBe(0);
    expect(readFileSync(file).equals(before)).toBe(false);
    expect(parseBvh(readFileSync(file, 'utf8')).frames).toBe(1064);
    expect(readdirSync(dir)).toEqual(['walk.bvh']);
  });

  it('a missing input is reported and makes the exit code 1', () => {
    const dir = tempDir();
    const r = rotsig(['unroll', SAMPLE, join(dir, 'nope.bvh'), '-o', join(dir, 'out')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${join(dir, 'nope.bvh')}: no such file or directory`);
    expect(existsSync(join(dir, 'out', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'))).toBe(true);
  });

  it('an output that cannot be written is reported as that file failing (exit 1)', () => {
    const r = rotsig(['unroll', SAMPLE, '-o', '/dev/null/sub/walk.bvh']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: ${SAMPLE}: cannot write /dev/null/sub/walk.bvh: a parent is not a directory`,
    );
  });

  it('--glob picks files from directory inputs', () => {
    const { dir } = treeWithCorruptFile();
    const r = rotsig(['info', join(dir, 'in'), '--glob', 'sub/*.bvh', '--json']);
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(a.file).toBe(join(dir, 'in', 'sub', 'jump.bvh'));
  });
});

describe('rotsig in a pipe', () => {
  it('rotsig export -o - | head stops quietly when the reader goes away', () => {
    const r = spawnSync(
      'sh',
      ['-c', `node bin/rotsig.js export '${CMU}' -o - --as positions --format csv -q | head -n 2`],
      {
        cwd: ROOT,
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout.toString().split('\n')[0]).toMatch(/^frame,time,Hips\.x,/);
    expect(r.stderr.toString()).toBe('');
  });
});
