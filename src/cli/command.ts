import { parseArgs } from 'node:util';
import { type CliFormatId, formatList } from './formats.js';

/** A command-line mistake: reported as one line on stderr with exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One option of a command, as `util.parseArgs` takes it plus what the help text shows. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder shown in help (`<sigma>`). */
  value?: string;
  description: string;
}

/** Where a command writes: stdout for data, stderr for messages. */
export interface CliIo {
  stdout: { write(chunk: string | Uint8Array): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean; columns?: number };
}

/** Parsed command line of one command. */
export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** A command: summary line, long help with examples, typed options and an action. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Long description (paragraphs) shown by `rotsig <command> --help`. */
  description: string;
  examples: string[];
  /** The formats it reads (see `CLI_FORMATS`), listed by its help. */
  inputs: readonly CliFormatId[];
  /** The formats it writes, by the output's extension where there are several (see `CLI_FORMATS`). */
  outputs: readonly CliFormatId[];
  /** Every option its parser accepts, and its help lists: one table for both. */
  options: Record<string, OptionSpec>;
  /** Fewest positional arguments. */
  minPositionals: number;
  run(parsed: Parsed, io: CliIo): Promise<number>;
}

/** Options every command takes. */
export const COMMON_OPTIONS: Record<string, OptionSpec> = {
  quiet: { type: 'boolean', short: 'q', description: 'print nothing but errors on stderr' },
  verbose: { type: 'boolean', description: 'print one line per file (time, frames, warnings) on stderr' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** Options of commands that read many files and may write many. */
export const BATCH_OPTIONS: Record<string, OptionSpec> = {
  glob: {
    type: 'string',
    value: 'pattern',
    description: "files to take from directory inputs (default '**/*.{bvh,gltf,glb,npz}')",
  },
  animation: {
    type: 'string',
    value: 'index|name',
    description: 'glTF inputs: the animation to read (default: all; one-clip outputs take the first)',
  },
  jobs: { type: 'string', short: 'j', value: 'n', description: 'worker threads (default: number of cores)' },
  'fail-fast': { type: 'boolean', description: 'stop at the first file that fails' },
  'position-mode': {
    type: 'string',
    value: 'mode',
    description: "read position channels as replace (default) or add (to OFFSET); 'info' suggests one",
  },
  repair: {
    type: 'boolean',
    description:
      'read damaged files, with a warning: NaN values interpolated (BVH, .npz), a cut-off last BVH row and damaged glTF keys dropped',
  },
};

/** Options of commands that write one output per input (BVH commands: they may replace their inputs). */
export const OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  output: {
    type: 'string',
    short: 'o',
    value: 'path',
    description: 'output file, directory (mirrors the input tree), or - for stdout',
  },
  'in-place': { type: 'boolean', description: 'overwrite the input files (atomically)' },
  json: { type: 'boolean', description: 'print a JSON summary of the run on stdout' },
};

/** {@link OUTPUT_OPTIONS} without `--in-place`, for commands whose outputs are not BVH (tables, plots). */
export const TABLE_OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  output: OUTPUT_OPTIONS.output,
  json: OUTPUT_OPTIONS.json,
};

/**
 * Parses `argv` for `command` with `util.parseArgs` (strict). Values that start with `-` and look like
 * numbers are taken as values (`--sigma -2` is sigma = -2, which the command then rejects by name), and the
 * parser's multi-line messages are turned into one line.
 */
export function parseCommandLine(command: Command, argv: readonly string[]): Parsed {
  const options = command.options;
  const fixed: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const spec = optionFor(options, arg);
    if (spec?.type === 'string' && i + 1 < argv.length && /^-(\d|\.\d)/.test(argv[i + 1])) {
      fixed.push(`${arg}=${argv[i + 1]}`);
      i++;
    } else fixed.push(arg);
  }
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, spec] of Object.entries(options)) {
    config[name] = {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  try {
    const { values, positionals } = parseArgs({
      args: fixed,
      options: config,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed['values'], positionals };
  } catch (error) {
    throw new UsageError(rewordParseError(error as Error & { code?: string }));
  }
}

function optionFor(options: Record<string, OptionSpec>, arg: string): OptionSpec | undefined {
  if (arg.startsWith('--') && !arg.includes('=')) return options[arg.slice(2)];
  if (/^-[a-zA-Z]$/.test(arg)) return Object.values(options).find((o) => o.short === arg[1]);
  return undefined;
}

function rewordParseError(error: Error & { code?: string }): string {
  const m = error.message;
  let match: RegExpMatchArray | null;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && (match = m.match(/Unknown option '([^']+)'/)))
    return `unknown option '${match[1]}'`;
  if ((match = m.match(/^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/)))
    return `option ${match[1]} needs a value`;
  if ((match = m.match(/^Option '(?:-\w, )?(--[\w-]+)[^']*' argument is ambiguous/)))
    return `option ${match[1]} needs a value (write ${match[1]}=<value> for a value starting with '-')`;
  if ((match = m.match(/^Option '(?:-\w, )?(--[\w-]+)[^']*' does not take an argument/)))
    return `option ${match[1]} takes no value`;
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'unexpected argument';
  return m.split('\n')[0];
}

/** The long help of a command: usage, description, options table, examples. */
export function formatHelp(command: Command): string {
  const lines = [`rotsig ${command.name}: ${command.summary}`, '', `Usage: ${command.usage}`, ''];
  lines.push(`Inputs:  ${formatList(command.inputs)}`, `Outputs: ${formatList(command.outputs)}`, '');
  lines.push(...command.description.trim().split('\n'), '', 'Options:');
  const rows = Object.entries(command.options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` <${spec.value ?? 'value'}>` : ''}`;
    return [flag, spec.description] as const;
  });
  const width = Math.max(...rows.map(([f]) => f.length)) + 2;
  for (const [flag, description] of rows) lines.push(`  ${flag.padEnd(width)}${description}`);
  if (command.examples.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  lines.push('', 'Exit codes: 0 ok, 1 some files failed, 2 usage error.', '');
  return lines.join('\n');
}

/**
 * The domain of a numeric option. Every numeric option has one, with an upper bound: a value far beyond
 * any real use (a sigma of 1e9 frames, a rate of 1e9 Hz, a million threads) would otherwise reach the
 * library as a request for gigabytes or hours; here it is a usage error that names the bound.
 */
export interface NumberRange {
  /** Smallest value allowed (or, with `aboveMin`, the bound values must exceed). */
  min: number;
  max: number;
  /** Values must be greater than `min`, not equal to it. */
  aboveMin?: boolean;
  integer?: boolean;
  /** Positive values below this are refused too: too small to mean anything, and a risk of underflow. */
  tiny?: number;
  /** Unit named in messages (`frames`, `Hz`). */
  unit?: string;
}

/** Plain decimal notation: `2`, `-0.5`, `.5`, `1e3`; not hex, not `Infinity`, not blank. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * The number `text` spells in plain decimal notation, inside `range`, or a usage error naming `label`
 * (`--sigma`, `--smooth sigma`) and what is allowed. Blank text is an error, not the default; `undefined`
 * (the option not given) is `fallback`, or an error when there is none.
 *
 * @example
 * numberOption('2', '--sigma', { min: 0, aboveMin: true, max: 10000 }); // 2
 */
export function numberOption(
  text: string | undefined,
  label: string,
  range: NumberRange,
  fallback?: number,
): number {
  if (text === undefined) {
    if (fallback === undefined) throw new UsageError(`missing ${label}`);
    return fallback;
  }
  const unit = range.unit ? ` ${range.unit}` : '';
  if (range.integer) {
    const x = DECIMAL.test(text) ? Number(text) : Number.NaN;
    if (!Number.isInteger(x) || x < range.min || x > range.max)
      throw new UsageError(
        `${label} must be a whole number from ${range.min} to ${range.max}${unit}, got '${text}'`,
      );
    return x;
  }
  const x = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(x)) throw new UsageError(`${label} must be a number, got '${text}'`);
  if (range.aboveMin ? x <= range.min : x < range.min)
    throw new UsageError(
      range.aboveMin && range.min === 0
        ? `${label} must be greater than 0, got ${text}`
        : range.min === 0
          ? `${label} must not be negative, got ${text}`
          : `${label} must be at least ${range.min}${unit}, got ${text}`,
    );
  if (range.tiny !== undefined && x > 0 && x < range.tiny)
    throw new UsageError(`${label} must be at least ${range.tiny}${unit}, got ${text}`);
  if (x > range.max) throw new UsageError(`${label} must be at most ${range.max}${unit}, got ${text}`);
  return x;
}

/** A positive integer up to `max`, or a usage error naming the option. */
export function positiveInteger(
  value: string | undefined,
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  return numberOption(value, `--${name}`, { min: 1, max, integer: true }, fallback);
}

/** One of `choices`, or a usage error listing them. */
export function oneOf<T extends string>(
  value: string | undefined,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${choices.join(', ')}; got '${value}'`);
}
