// Every command's --help is made from the table its parser reads: each option the help lists is one the
// parser accepts, each option the parser accepts is listed, and the formats named are the readers'.
// Reads the help text as a user does (its `Options:` lines), not the table it comes from.
import { describe, expect, it } from 'vitest';
import { formatHelp, parseCommandLine, UsageError } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/main.js';
import { reduceOptions } from '../../src/cli/reduce.js';
import { WRITE_BVH_DEFAULTS } from '../../src/io/bvh/write.js';
import { BVH_TO_GLTF_SCALE } from '../../src/node/bvh-scale.js';
import { CLEAN_CLIP_DEFAULTS } from '../../src/ops/clean/clean-clip.js';
import { MOTION_FEATURES_DEFAULTS } from '../../src/ops/ml/motion-features.js';
import { REDUCE_KEYS_DEFAULTS } from '../../src/ops/reduce/reduce-options.js';

interface Listed {
  long: string;
  short?: string;
  takesValue: boolean;
}

/** The options a help text lists, read from its `Options:` section: `  -o, --output <path>  ...`. */
function listedOptions(help: string): Listed[] {
  const section = help.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  const out: Listed[] = [];
  for (const line of section.split('\n')) {
    const m = line.match(/^ {2}(?:-([a-zA-Z]), )? *--([a-z][a-z0-9-]*)( <[^>]+>)? {2,}\S/);
    if (m) out.push({ long: m[2], ...(m[1] ? { short: m[1] } : {}), takesValue: m[3] !== undefined });
  }
  return out;
}

/** How the parser answers one argument list: `ok`, `unknown` (option not accepted) or another usage error. */
function answer(name: string, argv: string[]): 'ok' | 'unknown' | 'other' {
  const command = COMMANDS.find((c) => c.name === name)!;
  try {
    parseCommandLine(command, argv);
    return 'ok';
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return /^unknown option/.test(error.message) ? 'unknown' : 'other';
  }
}

/** Whether the parser of `name` accepts `--option` at all: with a value if it needs one, or without. */
function accepts(name: string, option: string): boolean {
  return answer(name, [`--${option}`]) !== 'unknown' || answer(name, [`--${option}=1`]) !== 'unknown';
}

describe('rotsig <command> --help and the parser', () => {
  const names = COMMANDS.map((c) => c.name);
  // every option any command has, and names no command has: the candidates for what a parser accepts
  const candidates = new Set(['frobnicate', 'in-place-x', 'rates', 'output-dir']);
  for (const command of COMMANDS) for (const o of listedOptions(formatHelp(command))) candidates.add(o.long);

  it('lists options for every command', () => {
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const command of COMMANDS)
      expect(listedOptions(formatHelp(command)).length, command.name).toBeGreaterThan(2);
  });

  it.each(names)('%s: the parser accepts each option its help lists, in long and short form', (name) => {
    const command = COMMANDS.find((c) => c.name === name)!;
    for (const o of listedOptions(formatHelp(command))) {
      const argv = o.takesValue ? [`--${o.long}`, '1'] : [`--${o.long}`];
      expect(answer(name, argv), `${name} ${argv.join(' ')}`).toBe('ok');
      const parsed = parseCommandLine(command, argv);
      expect(parsed.values[o.long], `${name} --${o.long}`).toEqual(o.takesValue ? '1' : true);
      if (o.short) {
        const short = parseCommandLine(command, o.takesValue ? [`-${o.short}`, '1'] : [`-${o.short}`]);
        expect(short.values[o.long], `${name} -${o.short}`).toEqual(o.takesValue ? '1' : true);
      }
      // a value where none is taken, or none where one is needed, is a usage error, not silence
      if (o.takesValue) expect(answer(name, [`--${o.long}`]), `${name} --${o.long}`).toBe('other');
      else expect(answer(name, [`--${o.long}=1`]), `${name} --${o.long}=1`).toBe('other');
    }
  });

  it.each(names)('%s: every option the parser accepts is listed by its help', (name) => {
    const command = COMMANDS.find((c) => c.name === name)!;
    const listed = new Set(listedOptions(formatHelp(command)).map((o) => o.long));
    const acceptedNotListed = [...candidates].filter((o) => accepts(name, o) && !listed.has(o));
    expect(acceptedNotListed).toEqual([]);
    expect(accepts(name, 'frobnicate')).toBe(false);
  });

  it('resample --help lists glTF/GLB (.gltf, .glb) among its inputs and outputs, beside BVH and AMASS', () => {
    const help = formatHelp(COMMANDS.find((c) => c.name === 'resample')!);
    const inputs = help.match(/^Inputs: +(.*)$/m)?.[1] ?? '';
    const outputs = help.match(/^Outputs: +(.*)$/m)?.[1] ?? '';
    for (const line of [inputs, outputs]) {
      expect(line).toMatch(/glTF\/GLB \(\.gltf, \.glb/);
      expect(line).toMatch(/BVH \(\.bvh\)/);
      expect(line).toMatch(/AMASS \(\.npz/);
    }
    expect(help).not.toMatch(/Inputs are BVH or AMASS/);
  });

  it.each(names)('%s --help names its inputs and outputs', (name) => {
    const help = formatHelp(COMMANDS.find((c) => c.name === name)!);
    expect(help).toMatch(/^Inputs: +\S/m);
    expect(help).toMatch(/^Outputs: +\S/m);
  });
});

/** The default an option's help states, `(default X ...)`, read from the help text of `command`. */
function statedDefault(command: string, option: string): string {
  const help = formatHelp(COMMANDS.find((c) => c.name === command)!);
  const section = help.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  const lines = section.split('\n');
  const at = lines.findIndex((l) => new RegExp(`^ {2}(?:-[a-zA-Z], )? *--${option}\\b`).test(l));
  expect(at, `${command} --${option}`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > at && /^ {2}(?:-[a-zA-Z], )? *--[a-z]/.test(l));
  const text = lines
    .slice(at, end < 0 ? undefined : end)
    .join(' ')
    .replace(/\s+/g, ' ');
  const m = text.match(/\(default ([^\s),:;]+)/) ?? text.match(/(\S+) \(default\)/);
  expect(m, `${command} --${option}: ${text}`).not.toBeNull();
  return m![1];
}

describe('defaults the help states are the library constants', () => {
  it('reduce: --tolerance, --shell and --tolerance-angle (degrees) state REDUCE_KEYS_DEFAULTS', () => {
    expect(Number(statedDefault('reduce', 'tolerance'))).toBe(REDUCE_KEYS_DEFAULTS.tolerance);
    expect(Number(statedDefault('reduce', 'shell'))).toBe(REDUCE_KEYS_DEFAULTS.shellDistance);
    const degrees = Number(statedDefault('reduce', 'tolerance-angle'));
    // printed to 3 significant digits
    expect(Math.abs((degrees * Math.PI) / 180 / REDUCE_KEYS_DEFAULTS.toleranceAngle - 1)).toBeLessThan(1e-3);
  });

  it('reduce: --metric, --interpolation, --quantize and --effort state and apply REDUCE_KEYS_DEFAULTS', () => {
    const command = COMMANDS.find((c) => c.name === 'reduce')!;
    const applied = reduceOptions(parseCommandLine(command, ['a.glb', '-o', 'b.glb']));
    const cases = [
      ['metric', 'metric'],
      ['interpolation', 'interpolation'],
      ['quantize', 'quantization'],
      ['effort', 'effort'],
    ] as const;
    for (const [option, key] of cases) {
      expect(statedDefault('reduce', option), `--${option}`).toBe(REDUCE_KEYS_DEFAULTS[key]);
      expect(applied[key], `--${option}`).toBe(REDUCE_KEYS_DEFAULTS[key]);
    }
  });

  it('export: --contact-speed, --contact-height and --body-up state MOTION_FEATURES_DEFAULTS', () => {
    expect(Number(statedDefault('export', 'contact-speed'))).toBe(MOTION_FEATURES_DEFAULTS.contactSpeed);
    expect(Number(statedDefault('export', 'contact-height'))).toBe(MOTION_FEATURES_DEFAULTS.contactHeight);
    expect(statedDefault('export', 'body-up')).toBe(MOTION_FEATURES_DEFAULTS.bodyUp);
  });

  it('clean: --filter, --beta, --spikes, --spike-spread and --units-per-meter state CLEAN_CLIP_DEFAULTS', () => {
    expect(statedDefault('clean', 'filter')).toBe(CLEAN_CLIP_DEFAULTS.filter);
    expect(Number(statedDefault('clean', 'beta'))).toBe(CLEAN_CLIP_DEFAULTS.beta);
    expect(statedDefault('clean', 'spikes')).toBe(CLEAN_CLIP_DEFAULTS.spikes);
    expect(Number(statedDefault('clean', 'spike-spread'))).toBe(CLEAN_CLIP_DEFAULTS.spikeSpread);
    expect(Number(statedDefault('clean', 'units-per-meter'))).toBe(CLEAN_CLIP_DEFAULTS.unitsPerMeter);
  });

  it('--precision states WRITE_BVH_DEFAULTS and --scale BVH_TO_GLTF_SCALE, on every command that has them', () => {
    let seen = 0;
    for (const command of COMMANDS) {
      if (command.options.precision) {
        expect(Number(statedDefault(command.name, 'precision')), command.name).toBe(
          WRITE_BVH_DEFAULTS.precision,
        );
        seen++;
      }
      if (command.options.scale) {
        expect(Number(statedDefault(command.name, 'scale')), command.name).toBe(BVH_TO_GLTF_SCALE);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(4);
  });
});
