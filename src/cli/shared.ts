// Option parsers shared by several commands.

import { WRITE_BVH_DEFAULTS } from '../io/bvh/write-options.js';
import { BVH_TO_GLTF_SCALE } from '../node/bvh-scale.js';
import { DETECT_LOOP_DEFAULTS, LOOP_MODES, type LoopMode } from '../ops/analysis/loop.js';
import { SEGMENT_POLICIES, type SegmentPolicy } from '../ops/analysis/segments.js';
import { SMOOTH_DEFAULTS, type WidthUnit } from '../ops/filter/smooth-defaults.js';
import type { KernelSpec, TableFormat } from '../pipeline/steps.js';
import {
  type NumberRange,
  numberOption,
  type OptionSpec,
  oneOf,
  type Parsed,
  UsageError,
} from './command.js';

/**
 * Gaussian sigma in frames (`--sigma 2f`). 10000 frames is 83 s at 120 Hz, more smoothing than any capture
 * wants; the kernel's cost grows with it. Below 0.001 frames the kernel is the identity (and its formula
 * underflows).
 */
export const SIGMA_RANGE: NumberRange = { min: 0, aboveMin: true, tiny: 0.001, max: 10000, unit: 'frames' };

/** Gaussian sigma in seconds (`--sigma 0.02`, `0.02s`, `20ms`): 1 µs to 100 s. */
export const SIGMA_SECONDS_RANGE: NumberRange = { min: 0, aboveMin: true, tiny: 1e-6, max: 100, unit: 's' };

/** Unsharp amount: 0 is no sharpening, 1000 far past any sensible (0.5 to 2). */
export const AMOUNT_RANGE: NumberRange = { min: 0, max: 1000 };

/** Frame rates in Hz: a keyframe every 1000 s at one end, 100 kHz at the other. */
export const RATE_RANGE: NumberRange = { min: 0, aboveMin: true, tiny: 0.001, max: 100000, unit: 'Hz' };

/** Worker threads: each holds a file and a copy of the library; more than this only costs memory. */
export const MAX_JOBS = 256;

/** Options of commands that write motion files (BVH, glTF, GLB: the input's format unless -o names another). */
export const bvhOutputOptions: Record<string, OptionSpec> = {
  precision: {
    type: 'string',
    value: 'digits',
    description: `decimal places of written BVH values, 0-15 (default ${WRITE_BVH_DEFAULTS.precision})`,
  },
  scale: {
    type: 'string',
    value: 'factor',
    description: `BVH to glTF: BVH units to metres (default ${BVH_TO_GLTF_SCALE}, centimetres to metres; AMASS .npz: 1, metres)`,
  },
};

/** `--precision`, checked. */
export function precisionOption(parsed: Parsed): number | undefined {
  const v = parsed.values.precision as string | undefined;
  if (v === undefined) return undefined;
  return numberOption(v, '--precision', { min: 0, max: 15, integer: true });
}

/** `--segments`: how smoothing and resampling treat real jumps (CLI default: split at them, except on a loop). */
export const segmentsOption: Record<string, OptionSpec> = {
  segments: {
    type: 'string',
    value: 'policy',
    description:
      'jumps or none: filter each stretch between real jumps (a T-pose first frame, a cut, a one-frame glitch: a step above 25 rad/s and 8x the median of its four neighbours, so fast motion such as a kick is not one) on its own, so no kernel mixes samples across them; --json lists every split (default jumps, none where the step wraps round a loop; never overrides --boundary)',
  },
};

/** `--segments`, checked; undefined when not given (the pipeline's default: jumps, none on a wrap). */
export function segmentsValue(parsed: Parsed): SegmentPolicy | undefined {
  const v = parsed.values.segments as string | undefined;
  return v === undefined ? undefined : oneOf<SegmentPolicy>(v, 'segments', SEGMENT_POLICIES, 'jumps');
}

/** `--loop`: how smoothing and resampling treat a clip whose last pose repeats its first. */
export const loopOption: Record<string, OptionSpec> = {
  loop: {
    type: 'string',
    value: 'mode',
    description: `auto, on or off: auto (default) wraps round the seam of a clip whose first and last poses agree (detectLoop: every joint within ${DETECT_LOOP_DEFAULTS.tolerance} of the pose's size and ${DETECT_LOOP_DEFAULTS.angleTolerance} rad), keeping the seam closed and the end time; on always wraps; off never by default (an explicit --boundary always holds)`,
  },
};

/** `--loop`, checked; undefined when not given (the pipeline's default, auto). */
export function loopValue(parsed: Parsed): LoopMode | undefined {
  const v = parsed.values.loop as string | undefined;
  return v === undefined ? undefined : oneOf<LoopMode>(v, 'loop', LOOP_MODES, 'auto');
}

/** `{ [key]: value }`, or nothing when the value is undefined. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Options naming a smoothing kernel. */
export const kernelOptions: Record<string, OptionSpec> = {
  kernel: { type: 'string', value: 'name', description: 'gaussian, unsharp or tent (default gaussian)' },
  sigma: {
    type: 'string',
    value: 'time',
    description: `gaussian width: seconds (0.02, 0.02s or 20ms; a bare number of 1 or more must say its unit) or frames with f (2f); default ${sigmaDefaultText()}`,
  },
  amount: {
    type: 'string',
    value: 'x',
    description: `unsharp strength, 0 to 1000 (default ${SMOOTH_DEFAULTS.amount})`,
  },
};

/** The default sigma as the help prints it. */
function sigmaDefaultText(): string {
  const s = SMOOTH_DEFAULTS.sigma;
  return `${Number(s.toPrecision(3))} s = ${Number((s * 1000).toPrecision(3))} ms (${Number((s * 120).toPrecision(3))} frames at 120 Hz, ${Number((s * 30).toPrecision(3))} at 30 Hz)`;
}

/** The kernel named by --kernel, --sigma and --amount. */
export function kernelSpecOption(parsed: Parsed, fallback: KernelSpec['name'] = 'gaussian'): KernelSpec {
  const v = parsed.values;
  const name = oneOf(
    v.kernel as string | undefined,
    'kernel',
    ['gaussian', 'unsharp', 'tent'] as const,
    fallback,
  );
  // An option the kernel does not take would be ignored without a word; say so instead.
  if (name === 'tent' && v.sigma !== undefined)
    throw new UsageError(`--sigma applies to --kernel gaussian or unsharp, not ${name}`);
  if (name !== 'unsharp' && v.amount !== undefined)
    throw new UsageError(`--amount applies to --kernel unsharp, not ${name}`);
  return kernelSpec(
    name,
    v.sigma as string | undefined,
    v.amount as string | undefined,
    '--sigma',
    '--amount',
  );
}

/**
 * Parses `gaussian:0.02`, `gaussian:2f`, `unsharp:20ms:0.5` or `tent` (the `--smooth` value of
 * `rotsig process`); the sigma takes the units of `--sigma` ({@link parseWidth}).
 */
export function parseKernelText(text: string, option: string): KernelSpec {
  const [name, sigma, amount, ...rest] = text.split(':');
  // Parts each kernel takes (a Map: a name like 'toString' must not find anything)
  const parts = new Map([
    ['gaussian', 2],
    ['unsharp', 3],
    ['tent', 1],
  ]).get(name);
  const given = 1 + (sigma === undefined ? 0 : 1) + (amount === undefined ? 0 : 1) + rest.length;
  if (parts === undefined || given > parts)
    throw new UsageError(
      `${option} must look like gaussian:0.02, gaussian:2f, unsharp:0.02:1 or tent; got '${text}'`,
    );
  return kernelSpec(name as KernelSpec['name'], sigma, amount, `${option} sigma`, `${option} amount`);
}

const WIDTH = /^(.*?)(ms|s|f)?$/i;

/**
 * A kernel width with its unit: `0.02`, `0.02s` or `20ms` are seconds, `2f` frames. Time is the default
 * unit (the same value smooths a 24 Hz and a 120 Hz file alike); frames stay available, and a bare number
 * of 1 or more is refused because it reads as the frame count the option took before (a sigma of a second
 * or more is no smoothing of motion; write `1s` if that is meant).
 *
 * @throws {UsageError} naming `label` when the text is no positive width in range.
 */
export function parseWidth(text: string, label: string): { sigma: number; unit: WidthUnit } {
  const m = WIDTH.exec(text.trim());
  const suffix = m?.[2]?.toLowerCase();
  const number = m?.[1] ?? text;
  if (suffix === 'f') return { sigma: numberOption(number, label, SIGMA_RANGE), unit: 'frames' };
  const seconds = numberOption(number, label, {
    ...SIGMA_SECONDS_RANGE,
    ...(suffix === 'ms' ? { tiny: 1e-3, max: 1e5, unit: 'ms' } : {}),
  });
  if (suffix === undefined && seconds >= 1)
    throw new UsageError(
      `${label} is in seconds; '${text}' would be ${seconds} s of smoothing: write ${number}f for ${number} frames or ${number}s if seconds are meant`,
    );
  return { sigma: suffix === 'ms' ? seconds / 1000 : seconds, unit: 'seconds' };
}

function kernelSpec(
  name: KernelSpec['name'],
  sigmaText: string | undefined,
  amountText: string | undefined,
  sigmaName: string,
  amountName: string,
): KernelSpec {
  if (name === 'tent') return { name };
  const width =
    sigmaText === undefined
      ? { sigma: SMOOTH_DEFAULTS.sigma, unit: SMOOTH_DEFAULTS.unit }
      : parseWidth(sigmaText, sigmaName);
  if (name === 'gaussian') return { name, ...width };
  const amount = numberOption(amountText, amountName, AMOUNT_RANGE, SMOOTH_DEFAULTS.amount);
  return { name, sigma: width.sigma, amount, unit: width.unit };
}

/** Options of commands that write tables (export, velocity). */
export const tableOptions: Record<string, OptionSpec> = {
  format: {
    type: 'string',
    value: 'fmt',
    description: 'npy, npz, csv or json (default: from the -o extension, else npy)',
  },
};

/** The table format: --format, else the extension of a single -o file, else npy. */
export function tableFormatOption(parsed: Parsed): TableFormat {
  const given = parsed.values.format as string | undefined;
  if (given !== undefined) return oneOf(given, 'format', ['npy', 'npz', 'csv', 'json'] as const, 'npy');
  const out = parsed.values.output as string | undefined;
  const m = out?.match(/\.(npy|npz|csv|json)$/i);
  return m ? (m[1].toLowerCase() as TableFormat) : 'npy';
}
