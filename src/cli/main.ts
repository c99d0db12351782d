import { VERSION } from '../version.js';

const HELP = `rotsig ${VERSION}: signal processing on rotations

Usage: rotsig <command> [options]

Commands arrive with the command-line issue. Options:
  -h, --help     show this help
  -v, --version  print the version
`;

/** Entry point of the `rotsig` command; returns the process exit code (0 ok, 2 usage error). */
export async function main(argv: string[]): Promise<number> {
  if (argv.includes('-v') || argv.includes('--version')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  process.stdout.write(HELP);
  return argv.length === 0 || argv.includes('-h') || argv.includes('--help') ? 0 : 2;
}
