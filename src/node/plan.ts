import { existsSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type { InputFile } from './files.js';

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
 * under `dir`; `-o -` writes one input's result to stdout; `--in-place` replaces the inputs. Refuses to
 * overwrite an input without `inPlace`, and two inputs that would write the same output.
 *
 * @throws {PlanError} on any of these, with a message for the user.
 * @example
 * const { files } = collectInputs(['captures/']);
 * planOutputs(files, { output: 'out/', extension: '.npy' }); // captures/a/b.bvh -> out/a/b.npy
 */
export function planOutputs(files: readonly InputFile[], options: PlanOptions): PlannedFile[] {
  const { output, inPlace, extension } = options;
  if (inPlace && output !== undefined) throw new PlanError('use either -o/--output or --in-place, not both');
  if (inPlace) {
    if (extension && files.some((f) => extname(f.path).toLowerCase() !== extension.toLowerCase()))
      throw new PlanError(`--in-place needs ${extension} inputs, since it writes ${extension} files`);
    return files.map((f) => ({ input: f.path, output: f.path }));
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
    (existsSync(output) && statSync(output).isDirectory()) ||
    files.length > 1 ||
    (options.inputArguments ?? 0) > 1 ||
    files.some((f) => !f.direct);
  const planned = isDir
    ? files.map((f) => ({ input: f.path, output: join(output, withExtension(f.relative, extension)) }))
    : files.map((f) => ({ input: f.path, output }));
  const inputs = new Set(files.map((f) => resolve(f.path)));
  const seen = new Map<string, string>();
  for (const p of planned) {
    const key = resolve(p.output);
    if (inputs.has(key)) throw new PlanError(`${p.output} is an input; pass --in-place to overwrite inputs`);
    const other = seen.get(key);
    if (other !== undefined) throw new PlanError(`${other} and ${p.input} would both write ${p.output}`);
    seen.set(key, p.input);
  }
  return planned;
}

function withExtension(path: string, extension: string | undefined): string {
  if (!extension) return path;
  const ext = extname(path);
  return `${ext ? path.slice(0, -ext.length) : path}${extension}`;
}
