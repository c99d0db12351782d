// Batch throughput of the built command line: `rotsig process` over the shared BVH files duplicated to
// about 200 files, with 1 and 2 worker threads. Usage: npm run bench:cli [-- --copies 25 --repeat 2]
// [--baseline <checkout>] [--numpy <pairs>]. Prints files/s and frames x joints per second, and appends a record to
// bench/results/history.jsonl. With --baseline (another checkout of rotsig, built: its bin/rotsig.js and
// dist/), that build runs the same batch at one job, alternating with this one, and the record keeps both
// and the ratio, CPU time included (a figure that a busy machine disturbs less than wall time).
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '25' },
    repeat: { type: 'string', default: '2' },
    baseline: { type: 'string' },
    numpy: { type: 'string' },
  },
});
const copies = Number(values.copies);
const repeat = Number(values.repeat);
const shared = join(root, '..', 'shared', 'data', 'bvh');
const sources = existsSync(shared)
  ? readdirSync(shared, { recursive: true })
      .filter((f) => String(f).endsWith('.bvh'))
      .map((f) => join(shared, String(f)))
  : readdirSync(join(root, 'samples'))
      .filter((f) => f.endsWith('.bvh'))
      .map((f) => join(root, 'samples', f));

const work = mkdtempSync(join(tmpdir(), 'rotsig-bench-cli-'));
const input = join(work, 'in');
for (let c = 0; c < copies; c++) {
  const dir = join(input, `copy${String(c).padStart(3, '0')}`);
  mkdirSync(dir, { recursive: true });
  for (const src of sources) {
    const dst = join(dir, src.split(/[\\/]/).pop());
    // Real copies, not hard links: the command takes a file reached by two paths once (same device and
    // inode), so linked copies would measure 8 files, not 200.
    copyFileSync(src, dst);
  }
}
const fileCount = copies * sources.length;
const CPU_LOOP =
  "let x = 0; for (let i = 0; i < 2e8; i++) x += Math.sqrt(i); require('node:worker_threads').parentPort.postMessage(x);";

const args = ['--unroll', '--smooth', 'gaussian:2f', '--resample', '30'];

function run(jobs, checkout = root) {
  const out = join(work, `out${jobs}`);
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      join(checkout, 'bin', 'rotsig.js'),
      'process',
      input,
      '-o',
      out,
      ...args,
      '--jobs',
      String(jobs),
      '--json',
      '--quiet',
    ],
    { maxBuffer: 1 << 28 },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`rotsig process failed (${r.status}): ${r.stderr}`);
  const summary = JSON.parse(r.stdout.toString());
  const frameJoints = summary.files.reduce((s, f) => s + f.frames * f.joints, 0);
  return { jobs, seconds, files: summary.ok, frames: summary.frames, frameJoints };
}

// issue 17's target for this batch at one job: 1.6x the 44.5 files/s it measured, at least 71 files/s
const ONE_JOB_TARGET = 71;
const results = [];
console.log(
  `rotsig process ${args.join(' ')} on ${fileCount} files (${sources.length} sources x ${copies}), ${availableParallelism()} cores`,
);
// Alternate 1 and 2 jobs and keep the best of each, so a burst of load elsewhere hits both alike.
const best = {};
for (let i = 0; i < repeat; i++) {
  for (const jobs of [1, 2]) {
    const r = run(jobs);
    if (!best[jobs] || r.seconds < best[jobs].seconds) best[jobs] = r;
  }
}
for (const jobs of [1, 2]) {
  const b = best[jobs];
  const row = {
    suite: 'cli',
    task: `process ${args.join(' ')}, ${jobs} job${jobs > 1 ? 's' : ''}`,
    unit: 'files',
    items: b.files,
    medianMs: Number((b.seconds * 1000).toFixed(1)),
    perSecond: Math.round(b.files / b.seconds),
    target: jobs === 1 ? ONE_JOB_TARGET : null,
    framesPerSecond: Math.round(b.frames / b.seconds),
    frameJointsPerSecond: Math.round(b.frameJoints / b.seconds),
  };
  results.push(row);
  console.log(
    `${row.task.padEnd(60)} ${(b.files / b.seconds).toFixed(1).padStart(7)} files/s  ${(row.frameJointsPerSecond / 1e6).toFixed(2)}M frames x joints/s  ${b.seconds.toFixed(2)} s`,
  );
}
// the baseline build against this one at one job, alternating, best of each: wall and CPU seconds
let baseline = null;
if (values.baseline) {
  const pair = {};
  for (let i = 0; i < Math.max(2, repeat); i++) {
    for (const [key, checkout] of [
      ['baseline', values.baseline],
      ['current', root],
    ]) {
      const r = timedRun(checkout);
      const b = pair[key] ?? { seconds: Number.POSITIVE_INFINITY, cpuSeconds: Number.POSITIVE_INFINITY };
      pair[key] = {
        seconds: Math.min(b.seconds, r.seconds),
        cpuSeconds: Math.min(b.cpuSeconds, r.cpuSeconds),
      };
    }
  }
  baseline = {
    // the baseline's commit, not its path (records stay free of machine paths)
    checkout: commitOf(values.baseline),
    baselineSeconds: pair.baseline.seconds,
    currentSeconds: pair.current.seconds,
    baselineCpuSeconds: pair.baseline.cpuSeconds,
    currentCpuSeconds: pair.current.cpuSeconds,
    speedup: pair.baseline.seconds / pair.current.seconds,
    cpuSpeedup: pair.baseline.cpuSeconds / pair.current.cpuSeconds,
  };
  console.log(
    `1 job against ${values.baseline}: ${baseline.speedup.toFixed(2)}x wall (${baseline.baselineSeconds.toFixed(2)} s -> ${baseline.currentSeconds.toFixed(2)} s), ${baseline.cpuSpeedup.toFixed(2)}x CPU (${baseline.baselineCpuSeconds.toFixed(2)} s -> ${baseline.currentCpuSeconds.toFixed(2)} s); target 1.6x`,
  );
}
// the same job as a NumPy + SciPy script (bench/numpy/job.py), one process, against this build at one
// job: pairs in alternating order, the ratio of each pair, the median of the ratios
let numpy = null;
if (values.numpy) {
  const ratios = [];
  const cpuRatios = [];
  const faults = { numpy: [], rotsig: [] };
  for (let i = 0; i < Number(values.numpy); i++) {
    const order = i % 2 === 0 ? ['numpy', 'rotsig'] : ['rotsig', 'numpy'];
    const pair = {};
    for (const key of order) pair[key] = key === 'numpy' ? numpyRun() : timedRun(root);
    ratios.push(pair.numpy.seconds / pair.rotsig.seconds);
    cpuRatios.push(pair.numpy.cpuSeconds / pair.rotsig.cpuSeconds);
    faults.numpy.push(pair.numpy.faults);
    faults.rotsig.push(pair.rotsig.faults);
    console.log(
      `pair ${i + 1}: numpy ${pair.numpy.seconds.toFixed(2)} s (CPU ${pair.numpy.cpuSeconds.toFixed(2)} s, ${pair.numpy.faults} page faults), rotsig ${pair.rotsig.seconds.toFixed(2)} s (CPU ${pair.rotsig.cpuSeconds.toFixed(2)} s, ${pair.rotsig.faults} page faults): ${ratios.at(-1).toFixed(2)}x`,
    );
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  numpy = {
    pairs: ratios.length,
    medianSpeedup: median(ratios),
    minSpeedup: Math.min(...ratios),
    maxSpeedup: Math.max(...ratios),
    medianCpuSpeedup: median(cpuRatios),
    // minor page faults of each process (first touches of fresh memory), median over the pairs, and what
    // one costs on this machine now: the part of each side's time that is the memory it touches
    numpyFaults: median(faults.numpy),
    rotsigFaults: median(faults.rotsig),
    faultMicroseconds: faultCost(),
  };
  console.log(
    `page faults: numpy ${numpy.numpyFaults}, rotsig ${numpy.rotsigFaults}; one costs ${numpy.faultMicroseconds.toFixed(1)} µs here (about ${((numpy.numpyFaults * numpy.faultMicroseconds) / 1e6).toFixed(2)} s and ${((numpy.rotsigFaults * numpy.faultMicroseconds) / 1e6).toFixed(2)} s of each)`,
  );
  console.log(
    `1 job against the numpy+scipy script: median ${numpy.medianSpeedup.toFixed(2)}x wall (${numpy.minSpeedup.toFixed(2)}-${numpy.maxSpeedup.toFixed(2)}x over ${numpy.pairs} pairs), ${numpy.medianCpuSpeedup.toFixed(2)}x CPU; target 8x`,
  );
}
const oneJob = best[1].files / best[1].seconds;
console.log(
  `1 job: ${oneJob.toFixed(1)} files/s (target ${ONE_JOB_TARGET} files/s)${oneJob >= ONE_JOB_TARGET ? '' : '  BELOW TARGET'}`,
);
const speedup = results[0].medianMs / results[1].medianMs;
console.log(`2 jobs vs 1: ${speedup.toFixed(2)}x (target at least 1.6x on 2 cores)`);
// What the machine gives right now: the same fixed pure-CPU work on 1 and on 2 worker threads. On an idle
// 2-core machine 2 threads do twice the work in the same time (2.0x); a busy machine gives less, and the
// batch speed-up above cannot exceed it.
const calibration = await cpuParallelism(CPU_LOOP);
console.log(`machine parallelism now (pure CPU loop, 2 threads vs 1): ${calibration.toFixed(2)}x`);
// The batch streams megabytes per file (text in, arrays, text out), more than a core's cache holds; the
// same digit scan over a cache-sized and over a 4 MB string shows what sharing the memory system costs.
const scanSmall = await cpuParallelism(scanLoop(2_000));
const scanLarge = await cpuParallelism(scanLoop(4_000_000));
console.log(
  `machine parallelism now (digit scan, 2 threads vs 1): ${scanSmall.toFixed(2)}x over 2 kB, ${scanLarge.toFixed(2)}x over 4 MB`,
);
rmSync(work, { recursive: true, force: true });
mkdirSync(join(here, 'results'), { recursive: true });
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: Number(loadavg()[0].toFixed(2)), filter: 'cli', results, speedup, ...(baseline ? { baseline } : {}), ...(numpy ? { numpy } : {}), machineParallelism: calibration, scanParallelism: { cacheSized: scanSmall, fourMegabytes: scanLarge } })}\n`,
);

/**
 * The batch at one job with the command line of `checkout`, run inside a small wrapper that reports the
 * process's CPU time (all its threads) as it exits: wall and CPU seconds.
 */
function timedRun(checkout) {
  const out = join(work, 'out-timed');
  rmSync(out, { recursive: true, force: true });
  // a file rather than --eval, whose flags the worker threads would inherit; it takes its own place in
  // argv away, so the command line sees the arguments it expects
  const wrapper = join(work, 'cpu-wrapper.mjs');
  writeFileSync(
    wrapper,
    "process.on('exit', () => { const u = process.cpuUsage(); const r = process.resourceUsage(); process.stderr.write('\\nrotsig-cpu ' + (u.user + u.system) / 1e6 + ' faults ' + r.minorPageFault + '\\n'); });\nprocess.argv.splice(1, 1);\nawait import(process.argv[1]);\n",
  );
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      wrapper,
      join(checkout, 'bin', 'rotsig.js'),
      'process',
      input,
      '-o',
      out,
      ...args,
      '--jobs',
      '1',
      '--quiet',
    ],
    { maxBuffer: 1 << 28 },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`rotsig process (${checkout}) failed (${r.status}): ${r.stderr}`);
  const cpu = /rotsig-cpu ([\d.]+) faults (\d+)/.exec(r.stderr.toString());
  return {
    seconds,
    cpuSeconds: cpu ? Number(cpu[1]) : Number.NaN,
    faults: cpu ? Number(cpu[2]) : Number.NaN,
  };
}

/**
 * Microseconds one minor page fault costs now: a child process touches each 4 KiB page of 256 MiB of fresh
 * memory once (the kernel maps and zeroes it; in a virtual machine the host may have to back it too),
 * the median of three, divided by the faults it counted.
 */
function faultCost() {
  const script =
    'const f0 = process.resourceUsage().minorPageFault; const t0 = performance.now(); const a = new Uint8Array(256 << 20); for (let i = 0; i < a.length; i += 4096) a[i] = 1; const ms = performance.now() - t0; process.stdout.write(String((ms * 1000) / (process.resourceUsage().minorPageFault - f0)));';
  const runs = [0, 1, 2].map(() => Number(spawnSync(process.execPath, ['-e', script]).stdout.toString()));
  return runs.sort((a, b) => a - b)[1];
}

/** The job as bench/numpy/job.py on one thread: wall seconds, and the CPU seconds the script reports. */
function numpyRun() {
  const out = join(work, 'out-numpy');
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = spawnSync('python3', [join(here, 'numpy', 'job.py'), input, out], {
    env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' },
    maxBuffer: 1 << 24,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`bench/numpy/job.py failed (${r.status}): ${r.stderr}`);
  const cpu = /numpy-cpu ([\d.]+) faults (\d+)/.exec(r.stderr.toString());
  return {
    seconds,
    cpuSeconds: cpu ? Number(cpu[1]) : Number.NaN,
    faults: cpu ? Number(cpu[2]) : Number.NaN,
  };
}

/** Worker code that parses the integers of a `length`-character string of numbers, 4e7 characters in all. */
function scanLoop(length) {
  return `let s = ''; let seed = 1;
while (s.length < ${length}) { seed = (seed * 16807) % 2147483647; s += (seed % 2000 - 1000) / 7 + ' '; }
let total = 0;
for (let r = 0; r < Math.round(4e7 / ${length}); r++) {
  let v = 0;
  for (let i = 0; i < s.length; i++) { const d = s.charCodeAt(i) - 48; if (d >= 0 && d <= 9) v = v * 10 + d; else { total += v; v = 0; } }
}
require('node:worker_threads').parentPort.postMessage(total);`;
}

async function cpuParallelism(code) {
  const time = async (n) => {
    const t0 = performance.now();
    await Promise.all(
      Array.from(
        { length: n },
        () => new Promise((resolve) => new Worker(code, { eval: true }).on('message', resolve)),
      ),
    );
    return performance.now() - t0;
  };
  let one = Number.POSITIVE_INFINITY;
  let two = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 2; i++) {
    one = Math.min(one, await time(1));
    two = Math.min(two, await time(2));
  }
  return (2 * one) / two;
}

/** The short commit of a checkout (`git rev-parse`), or `'unknown'` outside git. */
function commitOf(checkout) {
  const r = spawnSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}
