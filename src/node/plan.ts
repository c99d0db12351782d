import { lstatSync, realpathSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import type { InputFile } from './files.js';
import { readInputFile } from './input.js';
import { resourceName } from './resource-name.js';

/** A request that cannot be carried out as given (the CLI reports it as a usage error, exit code 2). */
export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** Options of {@link planOutputs}. */
export interface PlanOptions {
  /** A file, a directory, or `-` for stdout. */
  output?: string;
  /** Write each result over its input (only for outputs of the input's format). */
  inPlace?: boolean;
  /** Extension of the outputs (`.bvh`, `.npy`); the input's extension is replaced by it in a directory. */
  extension?: string;
  /** Input extensions (lower case, `.gltf`) whose files are written in their own format: they keep their name. */
  keep?: readonly string[];
  /** Number of input arguments the user gave (several arguments mean `-o` is a directory even if some are missing). */
  inputArguments?: number;
}

/** One input with the output it goes to (`'-'` for stdout). */
export interface PlannedFile {
  input: string;
  output: string;
}

/**
 * Decides where each input's result goes. `-o file` with one input file writes that file; `-o dir` (an
 * existing directory, a path ending in `/`, several inputs, or a directory input) mirrors the input tree
 * under `dir`; a new path with no extension is refused (it could be meant as either); `-o -` writes one input's result to stdout; `--in-place` replaces the inputs.
 *
 * File safety, decided on the file system, not on path strings:
 * - An output is an input when it is the same file: the same device and inode (the same path, a path
 *   through a symbolic link to the input or to a directory holding it, a hard link, or another spelling of
 *   the name on a case-insensitive file system), or the same real path. Refused without `inPlace`.
 * - Two outputs that land on one file (by real path, compared without case where the file system ignores
 *   case) are refused.
 * - With `-o dir`, an output is written only inside `dir`: a symbolic link below `dir` (to a directory
 *   elsewhere) that an output would be written through is refused. `dir` itself may be a link.
 * - `inPlace` on a symbolic link to a file writes the file it points to, so the link stays a link.
 * - A `.gltf` output's buffer, `<name>.bin` beside it, is checked like an output: it may not be an
 *   input, a buffer or image of a `.gltf` input (`resample in/m.gltf -o in/ok.gltf` when `m.gltf` keeps
 *   its data in `ok.bin`), or another output.
 *
 * The checks see the file system as it is when planning; a tree changed while the run goes is not
 * re-checked.
 *
 * @throws {PlanError} on any of these, with a message for the user.
 * @example
 * const { files } = collectInputs(['captures/']);
 * planOutputs(files, { output: 'out/', extension: '.npy' }); // captures/a/b.bvh -> out/a/b.npy
 */
export function planOutputs(files: readonly InputFile[], options: PlanOptions): PlannedFile[] {
  const { output, inPlace, extension, keep = [] } = options;
  // the extension a file's output takes: its own where its format is kept
  const extensionOf = (path: string) => (keep.includes(extname(path).toLowerCase()) ? undefined : extension);
  if (inPlace && output !== undefined) throw new PlanError('use either -o/--output or --in-place, not both');
  if (inPlace) {
    if (
      extension &&
      files.some(
        (f) => extensionOf(f.path) !== undefined && extname(f.path).toLowerCase() !== extension.toLowerCase(),
      )
    )
      throw new PlanError(`--in-place needs ${extension} inputs, since it writes ${extension} files`);
    return files.map((f) => ({ input: f.path, output: inPlaceTarget(f.path) }));
  }
  if (output === undefined) throw new PlanError('missing -o/--output (a file, a directory, or - for stdout)');
  if (output === '') throw new PlanError('option -o/--output needs a value');
  if (output === '-') {
    if (files.length !== 1) throw new PlanError('-o - writes to stdout and takes exactly one input file');
    return [{ input: files[0].path, output: '-' }];
  }
  const isDir =
    output.endsWith('/') ||
    output.endsWith(sep) ||
    statOrUndefined(output)?.isDirectory() === true ||
    files.length > 1 ||
    (options.inputArguments ?? 0) > 1 ||
    files.some((f) => !f.direct);
  if (!isDir && extname(output) === '' && statOrUndefined(output) === undefined)
    throw new PlanError(
      `-o ${output} is neither an existing directory nor a file name with an extension: end it with / to write into a new directory, or name the file with its format's extension (such as ${output}${extension ?? '.glb'})`,
    );
  if (isDir && statOrUndefined(output)?.isDirectory() === false)
    throw new PlanError(`-o ${output} is a file, but these inputs need a directory to mirror them into`);
  const planned = isDir
    ? files.map((f) => ({
        input: f.path,
        output: join(output, withExtension(f.relative, extensionOf(f.path))),
      }))
    : files.map((f) => ({ input: f.path, output }));

  const inputById = new Map<string, string>();
  const inputByReal = new Map<string, string>();
  for (const f of files) {
    const stats = statOrUndefined(f.path);
    if (stats) inputById.set(identity(stats), f.path);
    inputByReal.set(realTarget(f.path), f.path);
  }
  const root = isDir ? realTarget(output) : undefined;
  const seen = new Map<string, { input: string; output: string }>();
  for (const p of planned) {
    const stats = statOrUndefined(p.output);
    const real = realTarget(p.output);
    const input = (stats && inputById.get(identity(stats))) ?? inputByReal.get(real);
    if (input !== undefined) {
      const how =
        resolve(input) === resolve(p.output)
          ? ''
          : ` (the same file as input ${input}${sameFileHow(p.output, input)})`;
      throw new PlanError(`${p.output} is an input${how}; pass --in-place to overwrite inputs`);
    }
    if (root !== undefined) {
      const parent = realTarget(dirname(p.output));
      if (parent !== root && !parent.startsWith(root.endsWith(sep) ? root : root + sep))
        throw new PlanError(
          `${p.output} would be written to ${join(parent, basename(p.output))}, outside the output directory ${output}, through a symbolic link; refusing to write through links that leave the output tree`,
        );
    }
    const key = caseInsensitiveAt(real) ? real.toLowerCase() : real;
    const other = seen.get(key);
    if (other !== undefined) {
      const spelled = other.output === p.output ? p.output : `${other.output} and ${p.output} (one file)`;
      throw new PlanError(`${other.input} and ${p.input} would both write ${spelled}`);
    }
    seen.set(key, { input: p.input, output: p.output });
  }
  // A .gltf output writes its buffer `<name>.bin` beside it: that companion is checked like an output,
  // against the inputs and the resources of .gltf inputs (their own .bin), and against the other outputs.
  const companions = planned.filter((p) => extname(p.output).toLowerCase() === '.gltf');
  if (companions.length > 0) {
    const resources = resourcesOfInputs(files);
    for (const p of companions) {
      const bin = join(dirname(p.output), `${basename(p.output, extname(p.output))}.bin`);
      const stats = statOrUndefined(bin);
      const real = realTarget(bin);
      const input = (stats && inputById.get(identity(stats))) ?? inputByReal.get(real);
      const owner = stats && resources.get(identity(stats));
      if (input !== undefined || owner !== undefined)
        throw new PlanError(
          `${bin}, the buffer ${p.output} writes beside it, is ${input !== undefined ? `input ${input}` : `a resource of input ${owner}`}; choose another output name`,
        );
      const key = caseInsensitiveAt(real) ? real.toLowerCase() : real;
      const other = seen.get(key);
      if (other !== undefined)
        throw new PlanError(
          `${p.input} would write ${bin} (the buffer of ${p.output}), which ${other.input} writes as its output`,
        );
      seen.set(key, { input: p.input, output: bin });
    }
  }
  return planned;
}

function withExtension(path: string, extension: string | undefined): string {
  if (!extension) return path;
  const ext = extname(path);
  return `${ext ? path.slice(0, -ext.length) : path}${extension}`;
}

/** The stats of `path`, or undefined when it cannot be had (missing, a parent that is a file, no access). */
function statOrUndefined(path: string, stat: typeof statSync = statSync): Stats | undefined {
  try {
    return stat(path);
  } catch {
    return undefined;
  }
}

function identity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

/** Why two different path strings are one file, for the message. */
function sameFileHow(a: string, b: string): string {
  const ra = realTarget(a);
  const rb = realTarget(b);
  if (ra === rb) return ', reached through a symbolic link';
  if (ra.toLowerCase() === rb.toLowerCase()) return ', the name spelled in another case';
  return ', a hard link';
}

/** The file an in-place write replaces: the input itself, or the file a symbolic link input points to. */
function inPlaceTarget(path: string): string {
  const link = statOrUndefined(path, lstatSync)?.isSymbolicLink() === true;
  if (!link) return path;
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Where `path` leads: the real path of its longest existing prefix (symbolic links and `..` resolved by
 * the file system, in that order) joined with the components that do not exist yet.
 */
export function realTarget(path: string): string {
  const rest: string[] = [];
  let p = path;
  for (;;) {
    try {
      const real = realpathSync(p);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch {
      const parent = dirname(p);
      if (parent === p) return resolve(path);
      rest.push(basename(p));
      p = parent;
    }
  }
}

const caseCache = new Map<string, boolean>();

/**
 * True when the file system holding `path` (or its longest existing prefix) ignores the case of names, as
 * macOS and Windows do by default: the directory answers to its own name with the case of letters swapped.
 */
export function caseInsensitiveAt(path: string): boolean {
  let dir = path;
  let stats = statOrUndefined(dir);
  while (!stats?.isDirectory()) {
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
    stats = statOrUndefined(dir);
  }
  const cached = caseCache.get(String(stats.dev));
  if (cached !== undefined) return cached;
  // The nearest directory with a letter in its name tells; one without any says nothing (assume sensitive).
  let answer = false;
  for (let probe = dir; ; probe = dirname(probe)) {
    const name = basename(probe);
    const swapped = swapCase(name);
    if (swapped !== name) {
      const own = statOrUndefined(probe);
      const other = statOrUndefined(join(dirname(probe), swapped));
      answer = own !== undefined && other !== undefined && identity(own) === identity(other);
      break;
    }
    if (dirname(probe) === probe) break;
  }
  const result = answer;
  caseCache.set(String(stats.dev), result);
  return result;
}

function swapCase(s: string): string {
  let out = '';
  for (const c of s) {
    const lower = c.toLowerCase();
    out += c === lower ? c.toUpperCase() : lower;
  }
  return out;
}

/** Largest `.gltf` input whose resources the planner looks up (a larger one is left to the run's own checks). */
const MAX_PLANNED_GLTF_BYTES = 64 << 20;

/**
 * The files (`device:inode`) that `.gltf` inputs name as buffers and images, each with its input, so no
 * companion of an output replaces them. Only regular files are read; one that cannot be read or parsed
 * names nothing here (the run reports it).
 */
function resourcesOfInputs(files: readonly InputFile[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of files) {
    // never a pipe: reading it here would take its data from the run
    if (extname(f.path).toLowerCase() !== '.gltf' || statOrUndefined(f.path)?.isFile() !== true) continue;
    let json: { buffers?: unknown; images?: unknown };
    try {
      json = JSON.parse(new TextDecoder().decode(readInputFile('plan', f.path, MAX_PLANNED_GLTF_BYTES)));
    } catch {
      continue;
    }
    for (const list of [json?.buffers, json?.images]) {
      if (!Array.isArray(list)) continue;
      for (const item of list) {
        const uri = (item as { uri?: unknown } | null)?.uri;
        if (typeof uri !== 'string' || uri.startsWith('data:')) continue;
        const named = resourceName(uri);
        if ('reason' in named) continue;
        const stats = statOrUndefined(join(dirname(f.path), named.name));
        if (stats?.isFile()) out.set(identity(stats), f.path);
      }
    }
  }
  return out;
}
