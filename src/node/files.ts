import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { OptionError, ShapeError } from '../errors.js';
import { frozenDefaults, resolveOptions, STRING_OPTION } from '../options.js';
import { checkPath, systemReason } from './checks.js';
import { DEFAULT_CLIP_GLOB } from './extensions.js';

/** One input file found by {@link collectInputs}. */
export interface InputFile {
  /** Path as the user can read it (the input argument, or the directory argument joined with the relative path). */
  path: string;
  /** Path relative to the directory argument it was found under (its base name for a file argument), `/`-separated. */
  relative: string;
  /** True when the file was named directly rather than found in a directory. */
  direct: boolean;
}

/** Options of {@link collectInputs}. */
export interface CollectOptions {
  /** Glob matched against paths relative to each directory argument (`**`, `*`, `?`, `{a,b}`). */
  glob?: string;
}

/** Defaults of {@link CollectOptions}: every clip file (`.bvh`, `.gltf`, `.glb`, `.npz`), at any depth, case-insensitive. */
export const COLLECT_DEFAULTS: Readonly<Required<CollectOptions>> = frozenDefaults({
  glob: DEFAULT_CLIP_GLOB,
});

/** An input argument that names nothing on disk, or a directory that cannot be read. */
export interface MissingInput {
  path: string;
  message: string;
}

/** An entry of a directory walk that matched the glob but is not taken, and why. */
export interface SkippedInput {
  path: string;
  reason: string;
}

/**
 * Expands file and directory arguments into the list of input files: files are taken as given, directories
 * are walked recursively (hidden entries skipped) and filtered by `glob`. The result is sorted within each
 * directory and free of duplicates; arguments that do not exist, and directories that cannot be read, are
 * returned in `missing`; directory arguments in which no file matched the glob in `empty`.
 *
 * Symbolic links met in a walk are followed, to files and to directories, so a tree of links to captures
 * finds the captures. Each file is taken once: a second path to the same file (a link to it, a hard link,
 * the same directory reached twice) is not taken again. A directory link that leads back to a directory
 * being walked (a loop) or to one already walked is not entered. Entries that match the glob but are not
 * taken (broken links, loops, second paths to one file, pipes and devices, which a walk never reads) are
 * returned in `skipped` with the reason, so the caller can say why a file was left out.
 *
 * @throws {OptionError} when `glob` is not a valid pattern (see {@link globToRegExp}) or options are no object or name an unknown option.
 * @throws {ShapeError} or {@link InvalidValueError} when `inputs` is not an array of non-empty paths.
 * @example
 * const { files, skipped } = collectInputs(['captures/'], { glob: '**\/walk*.bvh' });
 */
export function collectInputs(
  inputs: readonly string[],
  options: CollectOptions = {},
): { files: InputFile[]; missing: MissingInput[]; skipped: SkippedInput[]; empty: string[] } {
  if (!Array.isArray(inputs)) throw new ShapeError('collectInputs: inputs must be an array of paths');
  inputs.forEach((input, i) => {
    // an empty path is reported missing like any path that does not exist
    if (input !== '') checkPath('collectInputs', `inputs[${i}]`, input);
  });
  const { glob } = resolveOptions('collectInputs', options, COLLECT_DEFAULTS, { glob: STRING_OPTION });
  const matcher = globMatcher(glob);
  const files: InputFile[] = [];
  const missing: MissingInput[] = [];
  const skipped: SkippedInput[] = [];
  const empty: string[] = [];
  // Entries that matched the glob in the directory argument being walked (taken or skipped).
  let matched = 0;
  // Files taken so far by identity (device and inode), with the path they were taken under.
  const taken = new Map<string, string>();
  // Directories walked so far, by identity, with the path they were walked under.
  const walked = new Map<string, string>();
  const add = (file: InputFile, stats: Stats) => {
    const id = identity(stats);
    const first = taken.get(id);
    if (first !== undefined) {
      // The same argument twice, or a file named and also found in a walk, is simply taken once.
      if (resolve(first) !== resolve(file.path))
        skipped.push({ path: file.path, reason: `same file as ${first}; taken once` });
      return;
    }
    taken.set(id, file.path);
    files.push(file);
  };
  const walk = (root: string, prefix: string, stack: Set<string>) => {
    const dir = prefix ? join(root, prefix) : root;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      missing.push({ path: dir, message: `cannot read directory: ${systemMessage(error)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const path = join(root, rel);
      const link = entry.isSymbolicLink();
      let stats: Stats;
      try {
        stats = statSync(path);
      } catch (error) {
        if (matcher(rel)) {
          matched++;
          skipped.push({ path, reason: linkProblem(error, link) });
        }
        continue;
      }
      if (stats.isDirectory()) {
        const id = identity(stats);
        if (stack.has(id)) {
          skipped.push({ path, reason: `symbolic link loop: leads back to ${walked.get(id)}` });
          continue;
        }
        const before = walked.get(id);
        if (before !== undefined) {
          skipped.push({ path, reason: `same directory as ${before}, already searched` });
          continue;
        }
        walked.set(id, path);
        stack.add(id);
        walk(root, rel, stack);
        stack.delete(id);
      } else if (matcher(rel)) {
        matched++;
        if (stats.isFile()) add({ path, relative: rel, direct: false }, stats);
        else
          skipped.push({
            path,
            reason: 'not a regular file (a pipe, socket or device is never read from a walk)',
          });
      }
    }
  };
  for (const input of inputs) {
    let stats: Stats;
    try {
      stats = statSync(input);
    } catch (error) {
      missing.push({ path: input, message: linkProblem(error, false) });
      continue;
    }
    if (stats.isDirectory()) {
      const id = identity(stats);
      const before = walked.get(id);
      if (before !== undefined) {
        if (resolve(before) !== resolve(input))
          skipped.push({ path: input, reason: `same directory as ${before}, already searched` });
        continue;
      }
      walked.set(id, input);
      matched = 0;
      walk(input, '', new Set([id]));
      if (matched === 0) empty.push(input);
    } else {
      // Named files are taken as given, pipes included (`rotsig info <(gunzip -c take.bvh.gz)`).
      add({ path: input, relative: basename(input), direct: true }, stats);
    }
  }
  return { files, missing, skipped, empty };
}

function identity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

function linkProblem(error: unknown, link: boolean): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return link ? 'broken symbolic link (its target does not exist)' : 'no such file or directory';
  if (code === 'ELOOP') return 'symbolic link loop';
  return systemMessage(error);
}

/** {@link systemReason}, but in a walk an ENOTDIR means the path itself is no directory. */
function systemMessage(error: unknown): string {
  return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'not a directory' : systemReason(error);
}

/** Longest glob taken: far beyond any real pattern, and it bounds the matcher's size. */
const MAX_GLOB_LENGTH = 4096;

function checkGlob(glob: string): void {
  if (typeof glob !== 'string' || glob === '')
    throw new OptionError('glob must be a non-empty pattern such as **/*.bvh');
  if (glob.length > MAX_GLOB_LENGTH)
    throw new OptionError(`glob is ${glob.length} characters long; at most ${MAX_GLOB_LENGTH} are taken`);
  if (glob.startsWith('/'))
    throw new OptionError(
      `glob '${glob}' starts with '/': it is matched against paths relative to each directory input`,
    );
}

/**
 * Compiles a glob to a regular expression over `/`-separated relative paths: `**` any number of
 * directories, `*` any characters but `/`, `?` one character, `{a,b}` alternatives. Case-insensitive, so
 * `*.bvh` also finds `WALK.BVH`. A `\` takes the next character literally; a `}` outside braces is literal.
 *
 * A backtracking regular expression engine can take exponential time on some globs and names (`*a*a*a*a*a*a*b`
 * against a name of 60 `a`s: 19 s); {@link globMatcher} matches the same paths in linear time and is what
 * {@link collectInputs} uses.
 *
 * @throws {OptionError} for an empty glob, an absolute one (it is matched against relative paths, so it
 * could never match), or a `{` without its `}`.
 * @example
 * globToRegExp('**\/walk*.bvh').test('day1/walk_fast.bvh'); // true
 */
export function globToRegExp(glob: string): RegExp {
  checkGlob(glob);
  let re = '';
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i += 2;
        if (glob[i] === '/') {
          i += 1;
          re += '(?:[^/]*/)*';
        } else re += '.*';
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces += 1;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces -= 1;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else if (c === '\\' && i + 1 < glob.length) {
      i += 1;
      re += escapeChar(glob[i]);
    } else re += escapeChar(c);
    i += 1;
  }
  if (braces > 0) throw new OptionError(`glob '${glob}' has a '{' without its closing '}'`);
  // A glob without a directory part matches the base name at any depth, as users expect of `*.bvh`.
  const anchored = glob.includes('/') ? re : `(?:[^/]*/)*${re}`;
  return new RegExp(`^${anchored}$`, 'i');
}

// A Thompson automaton for globs: each state either reads one character or splits without reading, and a
// match runs every live state at once, so time is (path length) x (glob length) whatever the pattern.
const READ_CHAR = 0;
const READ_NOT_SLASH = 1;
const READ_ANY = 2;
const SPLIT = 3;
const MATCH = 4;

interface GlobState {
  kind: number;
  /** The lower-case character a READ_CHAR state reads. */
  c: string;
  next: GlobState | null;
  /** The second way out of a SPLIT state. */
  other: GlobState | null;
  /** Last step this state was added in (no state is listed twice per step). */
  mark: number;
}

type GlobItem =
  | { k: 'char'; c: string }
  | { k: 'one' }
  | { k: 'star' }
  | { k: 'any' }
  | { k: 'segments' }
  | { k: 'alt'; alts: GlobItem[][] };

function state(kind: number, next: GlobState | null, other: GlobState | null = null, c = ''): GlobState {
  return { kind, c, next, other, mark: -1 };
}

function foldCase(c: string): string {
  const lower = c.toLowerCase();
  return lower.length === 1 ? lower : c;
}

/** Parses `glob` from `at` up to its end, or (inside braces) to the `,` or `}` that ends an alternative. */
function parseGlob(glob: string, at: { i: number }, inBraces: boolean): GlobItem[] {
  const items: GlobItem[] = [];
  while (at.i < glob.length) {
    const c = glob[at.i];
    if (inBraces && (c === ',' || c === '}')) return items;
    at.i += 1;
    if (c === '*') {
      if (glob[at.i] === '*') {
        at.i += 1;
        if (glob[at.i] === '/') {
          at.i += 1;
          items.push({ k: 'segments' });
        } else items.push({ k: 'any' });
      } else items.push({ k: 'star' });
    } else if (c === '?') items.push({ k: 'one' });
    else if (c === '{') {
      const alts = [parseGlob(glob, at, true)];
      while (glob[at.i] === ',') {
        at.i += 1;
        alts.push(parseGlob(glob, at, true));
      }
      if (glob[at.i] !== '}') throw new OptionError(`glob '${glob}' has a '{' without its closing '}'`);
      at.i += 1;
      items.push({ k: 'alt', alts });
    } else if (c === '\\' && at.i < glob.length) {
      items.push({ k: 'char', c: foldCase(glob[at.i]) });
      at.i += 1;
    } else items.push({ k: 'char', c: foldCase(c) });
  }
  return items;
}

/** Builds the states of `items` back to front, each leading on to `next`. */
function buildGlob(items: readonly GlobItem[], next: GlobState): GlobState {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    switch (item.k) {
      case 'char':
        next = state(READ_CHAR, next, null, item.c);
        break;
      case 'one':
        next = state(READ_NOT_SLASH, next);
        break;
      case 'star':
      case 'any': {
        const loop = state(SPLIT, null, next);
        loop.next = state(item.k === 'star' ? READ_NOT_SLASH : READ_ANY, loop);
        next = loop;
        break;
      }
      case 'segments': {
        // (?:[^/]*/)*: any number of whole directory names, each with its '/'
        const loop = state(SPLIT, null, next);
        const inName = state(SPLIT, null, state(READ_CHAR, loop, null, '/'));
        inName.next = state(READ_NOT_SLASH, inName);
        loop.next = inName;
        next = loop;
        break;
      }
      case 'alt': {
        const starts = item.alts.map((alt) => buildGlob(alt, next));
        next = starts.reduceRight((rest, start) => state(SPLIT, start, rest));
        break;
      }
    }
  }
  return next;
}

/**
 * A test of `/`-separated relative paths against a glob, with the same meaning as {@link globToRegExp}
 * (`**`, `*`, `?`, `{a,b}`, `\`, case-insensitive, a glob without `/` matching base names at any depth),
 * but in time linear in the path's length for any glob: it runs every possible position in the glob at
 * once instead of trying them one after another, so no name can make it hang.
 *
 * @throws {OptionError} as {@link globToRegExp} does, and for a glob over 4096 characters.
 * @example
 * const test = globMatcher('**\/walk*.bvh');
 * test('day1/walk_fast.bvh'); // true
 */
export function globMatcher(glob: string): (path: string) => boolean {
  checkGlob(glob);
  const items = parseGlob(glob, { i: 0 }, false);
  if (!glob.includes('/')) items.unshift({ k: 'segments' });
  const start = buildGlob(items, state(MATCH, null));
  let step = 0;
  const add = (list: GlobState[], s: GlobState | null) => {
    if (s === null || s.mark === step) return;
    s.mark = step;
    if (s.kind === SPLIT) {
      add(list, s.next);
      add(list, s.other);
    } else list.push(s);
  };
  return (path: string) => {
    let current: GlobState[] = [];
    let following: GlobState[] = [];
    step += 1;
    add(current, start);
    for (let i = 0; i < path.length && current.length > 0; i++) {
      const c = path[i];
      const folded = foldCase(c);
      step += 1;
      following.length = 0;
      for (const s of current) {
        if (
          s.kind === READ_ANY ||
          (s.kind === READ_NOT_SLASH && c !== '/') ||
          (s.kind === READ_CHAR && s.c === folded)
        )
          add(following, s.next);
      }
      [current, following] = [following, current];
    }
    return current.some((s) => s.kind === MATCH);
  };
}

function escapeChar(c: string): string {
  return /[.*+?^$()|[\]{}\\]/.test(c) ? `\\${c}` : c;
}

/** Converts a platform path to the `/`-separated form used for relative paths. */
export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** Relative path from `from` to `to`, `/`-separated. */
export function relativePosix(from: string, to: string): string {
  return toPosix(relative(from, to));
}
