import { readdirSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';

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

/** Defaults of {@link CollectOptions}: every `.bvh`, `.gltf` and `.glb` file, at any depth, case-insensitive. */
export const COLLECT_DEFAULTS: Required<CollectOptions> = { glob: '**/*.{bvh,gltf,glb}' };

/** An input argument that names nothing on disk. */
export interface MissingInput {
  path: string;
  message: string;
}

/**
 * Expands file and directory arguments into the list of input files: files are taken as given, directories
 * are walked recursively (hidden entries skipped) and filtered by `glob`. The result is sorted within each
 * directory and free of duplicates; arguments that do not exist are returned in `missing`.
 *
 * @example
 * const { files } = collectInputs(['captures/'], { glob: '**\/walk*.bvh' });
 */
export function collectInputs(
  inputs: readonly string[],
  options: CollectOptions = {},
): { files: InputFile[]; missing: MissingInput[] } {
  const matcher = globToRegExp(options.glob ?? COLLECT_DEFAULTS.glob);
  const files: InputFile[] = [];
  const missing: MissingInput[] = [];
  const seen = new Set<string>();
  const add = (file: InputFile) => {
    const key = resolve(file.path);
    if (seen.has(key)) return;
    seen.add(key);
    files.push(file);
  };
  for (const input of inputs) {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(input);
    } catch {
      missing.push({ path: input, message: 'no such file or directory' });
      continue;
    }
    if (stats.isDirectory()) {
      for (const rel of walk(input, ''))
        if (matcher.test(rel)) add({ path: join(input, rel), relative: rel, direct: false });
    } else {
      add({ path: input, relative: basename(input), direct: true });
    }
  }
  return { files, missing };
}

function* walk(root: string, prefix: string): Generator<string> {
  const entries = readdirSync(join(root, prefix), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) yield* walk(root, rel);
    else if (entry.isFile()) yield rel;
  }
}

/**
 * Compiles a glob to a regular expression over `/`-separated relative paths: `**` any number of
 * directories, `*` any characters but `/`, `?` one character, `{a,b}` alternatives. Case-insensitive, so
 * `*.bvh` also finds `WALK.BVH`.
 *
 * @example
 * globToRegExp('**\/walk*.bvh').test('day1/walk_fast.bvh'); // true
 */
export function globToRegExp(glob: string): RegExp {
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
  // A glob without a directory part matches the base name at any depth, as users expect of `*.bvh`.
  const anchored = glob.includes('/') ? re : `(?:[^/]*/)*${re}`;
  return new RegExp(`^${anchored}$`, 'i');
}

function escapeChar(c: string): string {
  return /[.+^$()|[\]{}\\]/.test(c) ? `\\${c}` : c;
}

/** Converts a platform path to the `/`-separated form used for relative paths. */
export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/** Relative path from `from` to `to`, `/`-separated. */
export function relativePosix(from: string, to: string): string {
  return toPosix(relative(from, to));
}
