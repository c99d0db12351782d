// Every command's --help is made from the table its parser reads: each option the help lists is one the
// parser accepts, each option the parser accepts is listed, and the formats named are the readers'.
// Reads the help text as a user does (its `Options:` lines), not the table it comes from.
import { describe, expect, it } from 'vitest';
import { formatHelp, parseCommandLine, UsageError } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/main.js';

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
