// `npm start`: the main job on the bundled sample capture, from a fresh clone. Runs `rotsig info`, then a
// `rotsig process` pipeline and a spectrum plot, writing into ./out/, and says what to open next.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sample = 'samples/AV_8Walk_Meredith_HVHA_Rep1.bvh';
const out = 'out';
mkdirSync(join(root, out), { recursive: true });

function rotsig(...args) {
  console.log(`\n$ rotsig ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [join(root, 'bin', 'rotsig.js'), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    console.error(`rotsig ${args[0]} failed with exit code ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

rotsig('info', sample);
rotsig(
  'process',
  sample,
  '-o',
  `${out}/`,
  '--unroll',
  '--smooth',
  'gaussian:1.5f',
  '--resample',
  '30',
  '--kernel',
  'lanczos3',
);
rotsig('spectrum', sample, '-o', `${out}/spectrum.svg`);

const here = relative(process.cwd(), root) || '.';
console.log(`
Done. In ${join(here, out)}/:
  AV_8Walk_Meredith_HVHA_Rep1.bvh   the walk unrolled, smoothed (gaussian, sigma 1.5 frames) and resampled
                                    from 120 to 30 Hz (lanczos3, log space)
  spectrum.svg                      its frequency content: open it in a browser

Next:
  open ${join(here, out, 'spectrum.svg')}${' '.repeat(Math.max(1, 34 - join(here, out, 'spectrum.svg').length - 5))}the spectrum plot, with the 99% energy line
  npm run studio                    see the capture, its curves, flips and spectrum in the browser
  node bin/rotsig.js --help         every command; 'rotsig <command> --help' for options and examples
`);
