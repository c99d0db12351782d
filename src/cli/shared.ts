// Option parsers shared by several commands.
import { type OptionSpec, type Parsed, UsageError } from './command.js';

/** Options of commands that write BVH. */
export const bvhOutputOptions: Record<string, OptionSpec> = {
  precision: {
    type: 'string',
    value: 'digits',
    description: 'decimal places of written values, 0-15 (default 6)',
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
