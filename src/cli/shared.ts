// Option parsers shared by several commands.
import type { KernelSpec, TableFormat } from '../node/steps.js';
import { type OptionSpec, oneOf, type Parsed, UsageError } from './command.js';

/** Options of commands that write motion files (BVH, glTF, GLB: the input's format unless -o names another). */
export const bvhOutputOptions: Record<string, OptionSpec> = {
  precision: {
    type: 'string',
    value: 'digits',
    description: 'decimal places of written BVH values, 0-15 (default 6)',
  },
  scale: {
    type: 'string',
    value: 'factor',
    description: 'BVH to glTF: BVH units to metres (default 0.01, centimetres to metres)',
  },
};

/** `--precision`, checked. */
export function precisionOption(parsed: Parsed): number | undefined {
  const v = parsed.values.precision as string | undefined;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 15)
    throw new UsageError(`--precision must be a whole number from 0 to 15, got '${v}'`);
  return n;
}

/** Options naming a smoothing kernel. */
export const kernelOptions: Record<string, OptionSpec> = {
  kernel: { type: 'string', value: 'name', description: 'gaussian, unsharp or tent (default gaussian)' },
  sigma: { type: 'string', value: 'frames', description: 'gaussian width in frames, > 0 (default 2)' },
  amount: { type: 'string', value: 'x', description: 'unsharp strength, >= 0 (default 1)' },
};

/** The kernel named by --kernel, --sigma and --amount. */
export function kernelSpecOption(parsed: Parsed, fallback: KernelSpec['name'] = 'gaussian'): KernelSpec {
  const v = parsed.values;
  const name = oneOf(
    v.kernel as string | undefined,
    'kernel',
    ['gaussian', 'unsharp', 'tent'] as const,
    fallback,
  );
  return kernelSpec(
    name,
    v.sigma as string | undefined,
    v.amount as string | undefined,
    '--sigma',
    '--amount',
  );
}

/** Parses `gaussian:2`, `unsharp:2:0.5` or `tent` (the `--smooth` value of `rotsig process`). */
export function parseKernelText(text: string, option: string): KernelSpec {
  const [name, sigma, amount, ...rest] = text.split(':');
  if (rest.length || !['gaussian', 'unsharp', 'tent'].includes(name))
    throw new UsageError(`${option} must look like gaussian:2, unsharp:2:1 or tent; got '${text}'`);
  return kernelSpec(name as KernelSpec['name'], sigma, amount, `${option} sigma`, `${option} amount`);
}

function kernelSpec(
  name: KernelSpec['name'],
  sigmaText: string | undefined,
  amountText: string | undefined,
  sigmaName: string,
  amountName: string,
): KernelSpec {
  if (name === 'tent') return { name };
  const sigma = number(sigmaText, sigmaName, 2);
  if (!(sigma > 0)) throw new UsageError(`${sigmaName} must be greater than 0, got ${sigmaText}`);
  if (name === 'gaussian') return { name, sigma };
  const amount = number(amountText, amountName, 1);
  if (amount < 0) throw new UsageError(`${amountName} must not be negative, got ${amountText}`);
  return { name, sigma, amount };
}

function number(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const x = Number(text);
  if (!Number.isFinite(x)) throw new UsageError(`${name} must be a number, got '${text}'`);
  return x;
}

/** Options of commands that write tables (export, velocity). */
export const tableOptions: Record<string, OptionSpec> = {
  format: {
    type: 'string',
    value: 'fmt',
    description: 'npy, csv or json (default: from the -o extension, else npy)',
  },
};

/** The table format: --format, else the extension of a single -o file, else npy. */
export function tableFormatOption(parsed: Parsed): TableFormat {
  const given = parsed.values.format as string | undefined;
  if (given !== undefined) return oneOf(given, 'format', ['npy', 'csv', 'json'] as const, 'npy');
  const out = parsed.values.output as string | undefined;
  const m = out?.match(/\.(npy|csv|json)$/i);
  return m ? (m[1].toLowerCase() as TableFormat) : 'npy';
}
