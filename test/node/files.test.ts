import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { collectInputs, globMatcher, globToRegExp } from '../../src/node/files.js';

describe('globToRegExp(glob)', () => {
  it.each([
    ['**/*.bvh', 'a.bvh', true],
    ['**/*.bvh', 'x/y/a.BVH', true],
    ['**/*.bvh', 'x/a.bvh.txt', false],
    ['*.bvh', 'deep/down/a.bvh', true],
    ['sub/*.bvh', 'sub/a.bvh', true],
    ['sub/*.bvh', 'sub/deeper/a.bvh', false],
    ['sub/*.bvh', 'other/a.bvh', false],
    ['**/walk?.bvh', 'w/walk1.bvh', true],
    ['**/walk?.bvh', 'w/walk12.bvh', false],
    ['**/*.{bvh,npy}', 'q/a.npy', true],
    ['**/*.{bvh,npy}', 'q/a.csv', false],
    ['a+b(1).bvh', 'a+b(1).bvh', true],
    ['a\\*b\\?.bvh', 'a*b?.bvh', true],
    ['a\\*b.bvh', 'axb.bvh', false],
  ])('globToRegExp(%s) and globMatcher(%s) on %s are %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
    expect(globMatcher(glob)(path)).toBe(expected);
  });
});

describe('globMatcher(glob)', () => {
  const globPart = fc.constantFrom(
    'a',
    'b',
    'A',
    '.',
    '/',
    '*',
    '**',
    '**/',
    '?',
    '{a,b}',
    '{,a*}',
    '{a,{b,.}}',
    '\\?',
    '\\*',
  );
  const pathPart = fc.constantFrom('a', 'b', 'B', '.', '/', '*');

  it('globMatcher(glob)(path) agrees with globToRegExp(glob).test(path) on random globs and paths', () => {
    fc.assert(
      fc.property(
        fc.array(globPart, { minLength: 1, maxLength: 6 }).map((p) => p.join('')),
        fc.array(pathPart, { maxLength: 10 }).map((p) => p.join('')),
        (glob, path) => {
          fc.pre(!glob.startsWith('/'));
          expect(globMatcher(glob)(path)).toBe(globToRegExp(glob).test(path));
        },
      ),
      { seed: 17, numRuns: 3000 },
    );
  });

  it('globMatcher(*a*a*a*a*a*a*a*a*b) on a 200-character name answers (a backtracking regex would not)', () => {
    const test = globMatcher(`${'*a'.repeat(8)}*b`);
    expect(test('a'.repeat(200))).toBe(false);
    expect(test(`${'a'.repeat(200)}b`)).toBe(true);
    expect(test(`x/${'a'.repeat(199)}/b`)).toBe(false);
  });

  it('refuses a glob longer than 4096 characters', () => {
    expect(() => globMatcher('a'.repeat(5000))).toThrow(OptionError);
  });
});

describe('collectInputs(inputs, { glob })', () => {
  function tree(): string {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-files-'));
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    mkdirSync(join(dir, '.hidden'));
    for (const f of [
      'a.bvh',
      'b/z.bvh',
      'b/c/y.BVH',
      'b/notes.txt',
      '.hidden/h.bvh',
      'b/.x.bvh.rotsig-1-0-1.tmp',
    ])
      writeFileSync(join(dir, f), '');
    return dir;
  }

  it('walks directories recursively in sorted order, skipping hidden entries', () => {
    const dir = tree();
    const { files, missing } = collectInputs([dir]);
    expect(missing).toEqual([]);
    expect(files.map((f) => f.relative)).toEqual(['a.bvh', 'b/c/y.BVH', 'b/z.bvh']);
    expect(files.every((f) => !f.direct)).toBe(true);
    expect(files[0].path).toBe(join(dir, 'a.bvh'));
  });

  it('takes named files as given, drops duplicates and reports missing arguments', () => {
    const dir = tree();
    const { files, missing } = collectInputs([
      join(dir, 'b', 'notes.txt'),
      dir,
      join(dir, 'a.bvh'),
      join(dir, 'nope.bvh'),
    ]);
    expect(files.map((f) => f.relative)).toEqual(['notes.txt', 'a.bvh', 'b/c/y.BVH', 'b/z.bvh']);
    expect(files[0].direct).toBe(true);
    expect(missing).toEqual([{ path: join(dir, 'nope.bvh'), message: 'no such file or directory' }]);
  });

  it('filters directory contents with --glob', () => {
    const dir = tree();
    expect(collectInputs([dir], { glob: 'b/*.bvh' }).files.map((f) => f.relative)).toEqual(['b/z.bvh']);
    expect(collectInputs([dir], { glob: '**/*.txt' }).files.map((f) => f.relative)).toEqual(['b/notes.txt']);
  });
});

describe('collectInputs(inputs) with symbolic links, hard links and odd entries', () => {
  /** `real/` with two captures, and `links/` holding only symbolic links. */
  function linkTree(): string {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-links-'));
    mkdirSync(join(dir, 'real', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'real', 'a.bvh'), 'a');
    writeFileSync(join(dir, 'real', 'sub', 'b.bvh'), 'b');
    mkdirSync(join(dir, 'links'));
    symlinkSync(join('..', 'real', 'a.bvh'), join(dir, 'links', 'a.bvh'));
    symlinkSync(join('..', 'real', 'sub'), join(dir, 'links', 'sub'));
    return dir;
  }

  it('a tree of only symbolic links finds the files they point to, under the link names', () => {
    const dir = linkTree();
    const { files, missing, skipped } = collectInputs([join(dir, 'links')]);
    expect(files.map((f) => f.relative)).toEqual(['a.bvh', 'sub/b.bvh']);
    expect(files.map((f) => readFileSync(f.path, 'utf8'))).toEqual(['a', 'b']);
    expect(missing).toEqual([]);
    expect(skipped).toEqual([]);
  });

  it('a broken link that matches the glob is reported as skipped, one that does not is ignored', () => {
    const dir = linkTree();
    symlinkSync(join(dir, 'nowhere.bvh'), join(dir, 'links', 'broken.bvh'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'links', 'gone.txt'));
    const { files, skipped } = collectInputs([join(dir, 'links')]);
    expect(files).toHaveLength(2);
    expect(skipped).toEqual([
      { path: join(dir, 'links', 'broken.bvh'), reason: expect.stringMatching(/broken/) },
    ]);
  });

  it('a directory link back to an ancestor is a loop: reported, not entered, and the walk ends', () => {
    const dir = linkTree();
    symlinkSync('..', join(dir, 'real', 'sub', 'up'));
    symlinkSync('.', join(dir, 'real', 'self'));
    const { files, skipped } = collectInputs([join(dir, 'real')]);
    expect(files.map((f) => f.relative)).toEqual(['a.bvh', 'sub/b.bvh']);
    expect(skipped.map((s) => [s.path, s.reason.replace(/:.*/, '')]).sort()).toEqual([
      [join(dir, 'real', 'self'), 'symbolic link loop'],
      [join(dir, 'real', 'sub', 'up'), 'symbolic link loop'],
    ]);
  });

  it('a self-referential link (ELOOP) is reported, not thrown', () => {
    const dir = linkTree();
    symlinkSync('me.bvh', join(dir, 'real', 'me.bvh'));
    const { files, skipped } = collectInputs([join(dir, 'real')]);
    expect(files).toHaveLength(2);
    expect(skipped).toEqual([{ path: join(dir, 'real', 'me.bvh'), reason: 'symbolic link loop' }]);
  });

  it('one file reached by two paths (a link and its target, a hard link) is taken once and the other reported', () => {
    const dir = linkTree();
    linkSync(join(dir, 'real', 'a.bvh'), join(dir, 'real', 'hard.bvh'));
    const { files, skipped } = collectInputs([join(dir, 'real'), join(dir, 'links')]);
    expect(files.map((f) => f.path)).toEqual([join(dir, 'real', 'a.bvh'), join(dir, 'real', 'sub', 'b.bvh')]);
    expect(skipped.map((s) => s.path)).toEqual([
      join(dir, 'real', 'hard.bvh'),
      join(dir, 'links', 'a.bvh'),
      join(dir, 'links', 'sub'),
    ]);
    expect(skipped[0].reason).toBe(`same file as ${join(dir, 'real', 'a.bvh')}; taken once`);
    expect(skipped[2].reason).toMatch(/same directory as .*already searched/);
  });

  it('the same argument twice, or a file named and found in a walk, is taken once without a report', () => {
    const dir = linkTree();
    const real = join(dir, 'real');
    const { files, skipped } = collectInputs([real, join(real, 'a.bvh'), `${real}/`]);
    expect(files).toHaveLength(2);
    expect(skipped).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')(
    'a named pipe found in a walk is skipped (reading it would block)',
    () => {
      const dir = linkTree();
      const fifo = join(dir, 'real', 'pipe.bvh');
      if (spawnSync('mkfifo', [fifo]).status !== 0) return;
      const { files, skipped } = collectInputs([join(dir, 'real')]);
      expect(files).toHaveLength(2);
      expect(skipped).toEqual([{ path: fifo, reason: expect.stringMatching(/not a regular file/) }]);
    },
  );

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)(
    'a directory that cannot be read is returned in missing',
    () => {
      const dir = linkTree();
      const locked = join(dir, 'real', 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0);
      try {
        const { files, missing } = collectInputs([join(dir, 'real')]);
        expect(files).toHaveLength(2);
        expect(missing).toEqual([{ path: locked, message: 'cannot read directory: permission denied' }]);
      } finally {
        chmodSync(locked, 0o755);
      }
    },
  );
});

describe('globToRegExp(glob) refuses what is not a pattern', () => {
  it.each([
    ['**/*.{bvh', /without its closing/],
    ['{a,{b,c}', /without its closing/],
    ['', /non-empty/],
    ['/abs/*.bvh', /relative/],
  ])('globToRegExp(%j) throws OptionError', (glob, message) => {
    expect(() => globToRegExp(glob)).toThrow(OptionError);
    expect(() => globToRegExp(glob)).toThrow(message);
  });

  it('nested and empty alternatives and an unmatched } still work', () => {
    expect(globToRegExp('{a,{b,c}}.bvh').test('c.bvh')).toBe(true);
    expect(globToRegExp('x{,y}.bvh').test('x.bvh')).toBe(true);
    expect(globToRegExp('a}.bvh').test('a}.bvh')).toBe(true);
  });
});
