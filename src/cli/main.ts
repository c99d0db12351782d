import { VERSION } from '../version.js';
import { clean } from './clean.js';
import { type CliIo, type Command, formatHelp, parseCommandLine, UsageError } from './command.js';
import { convert } from './convert.js';
import { exportCommand } from './export.js';
import { info } from './info.js';
import { processCommand } from './process.js';
import { reduce } from './reduce.js';
import { resample } from './resample.js';
import { smooth } from './smooth.js';
import { spectrum } from './spectrum.js';
import { subclipCommand } from './subclip.js';
import { escapeControl, escapeLines } from './text.js';
import { unroll } from './unroll.js';
import { velocity } from './velocity.js';

/** Every registered command, in the order `rotsig --help` lists them. */
export const COMMANDS: readonly Command[] = [
  info,
  unroll,
  smooth,
  clean,
  resample,
  velocity,
  spectrum,
  exportCommand,
  processCommand,
  convert,
  reduce,
  subclipCommand,
];

function mainHelp(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `rotsig ${VERSION}: signal processing on rotations (BVH motion capture, glTF/GLB animation)

Usage: rotsig <command> [options] <files or directories...>

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(w)}${c.summary}`).join('\n')}

Run 'rotsig <command> --help' for a command's options and examples.

Options:
  -h, --help     show this help
  -v, --version  print the version

Inputs may be files or directories (searched recursively, --glob). Messages go to stderr; stdout carries
data only when asked (--json, -o -). Exit codes: 0 ok, 1 some files failed, 2 usage error.
`;
}

/**
 * Entry point of the `rotsig` command: dispatches to a command and returns the process exit code
 * (0 ok, 1 some files failed, 2 usage error).
 */
export async function main(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  // `rotsig export ... -o - | head`: the reader went away; stop quietly like other Unix tools.
  if (io.stdout === process.stdout && process.stdout.listenerCount('error') === 0) {
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
  const [first, ...rest] = argv;
  if (first === undefined || first === '-h' || first === '--help') {
    io.stdout.write(mainHelp());
    return 0;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === 'help') {
    const target = COMMANDS.find((c) => c.name === rest[0]);
    io.stdout.write(target ? formatHelp(target) : mainHelp());
    return target || rest.length === 0 ? 0 : 2;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    const name = escapeControl(first);
    const what = first.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`;
    io.stderr.write(
      `rotsig: ${what} (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see rotsig --help)\n`,
    );
    return 2;
  }
  try {
    const parsed = parseCommandLine(command, rest);
    if (parsed.values.help === true) {
      io.stdout.write(formatHelp(command));
      return 0;
    }
    return await command.run(parsed, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // Usage messages quote the arguments, which may hold anything (a pasted escape sequence, a newline).
      io.stderr.write(
        `rotsig ${command.name}: ${escapeControl(error.message)} (see rotsig ${command.name} --help)\n`,
      );
      return 2;
    }
    // Not a file's failure (those are reported per file) but the run's: one line, exit 1.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`rotsig ${command.name}: ${escapeControl(message)}\n`);
    if (rest.includes('--verbose') && error instanceof Error && error.stack)
      io.stderr.write(`${escapeLines(error.stack)}\n`);
    return 1;
  }
}
