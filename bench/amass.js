// AMASS corpus resampling cost, two measurements:
//
// 1. One clip, in memory: a 1-hour SMPL+H clip at 120 Hz (432,000 frames x 52 joints, as the .npz bytes
//    `numpy.savez` would write) taken through the pipeline of `rotsig resample`, stage by stage:
//    parseNpz -> amassToClip -> resampleClip (30 Hz, default kernel) -> clipToAmass -> writeNpz.
//    The issue's bench figure "a 1-hour SMPL-H clip at 120 Hz resampled to 30 Hz (seconds)".
// 2. A corpus, on disk, the way a user runs it: a directory tree of synthetic AMASS-layout SMPL+H files
//    (stored .npz, clips of 4 to 40 s at a mix of rates) resampled to 30 Hz by the built command line,
//    `rotsig resample <dir> -o <dir> --rate 30 --jobs 2` (read + resample + write, the worker pool,
//    atomic writes). The wall time per hour of motion is extrapolated to a 40-hour corpus (AMASS's size).
//    Issue target: under 10 minutes on this 2-core machine.
//
// Usage: npm run bench:amass [-- --minutes 60 --corpus-minutes 20 --jobs 2 --kernel lanczos3]
// Appends a record to bench/results/history.jsonl. Wall times are only meaningful on a quiet machine:
// the load average is printed before and after.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resampleClip } from '../dist/index.js';
import { amassToClip, clipToAmass, parseNpz, writeNpz } from '../dist/io/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'corpus-minutes': { type: 'string', default: '20' },
    jobs: { type: 'string', default: '2' },
    kernel: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const corpusMinutes = Number(values['corpus-minutes']);
const jobs = Number(values.jobs);
const kernel = values.kernel;
const CORPUS_HOURS = 40;
const TARGET_MINUTES = 10;
const load = () => loadavg()[0].toFixed(2);
const loadBefore = load();

/** An SMPL+H file in the AMASS layout: `frames` at `rate` Hz of smooth made-up motion, stored like numpy.savez. */
function amassFile(frames, rate, seed) {
  const poses = new Float64Array(frames * 156);
  for (let f = 0; f < frames; f++) {
    const t = f / rate;
    for (let c = 0; c < 156; c++)
      poses[f * 156 + c] = 0.4 * Math.sin(2 * Math.PI * (0.3 + ((c + seed) % 7) * 0.2) * t + c);
  }
  const trans = new Float64Array(frames * 3);
  for (let f = 0; f < frames; f++) {
    trans[f * 3] = f / rate;
    trans[f * 3 + 1] = 0.1 * Math.sin(f / rate);
    trans[f * 3 + 2] = 0.9;
  }
  const dmpls = new Float64Array(frames * 8).map((_, i) => 0.1 * Math.cos(i * 0.01));
  return writeNpz({
    trans: { data: trans, shape: [frames, 3], dtype: 'float64' },
    gender: { data: ['female'], shape: [], dtype: 'str' },
    mocap_framerate: { data: Float64Array.of(rate), shape: [], dtype: 'float64' },
    betas: { data: new Float64Array(16), shape: [16], dtype: 'float64' },
    dmpls: { data: dmpls, shape: [frames, 8], dtype: 'float64' },
    poses: { data: poses, shape: [frames, 156], dtype: 'float64' },
  });
}

// ---- 1. one 1-hour clip in memory, stage by stage ----
const frames = Math.round(minutes * 60 * 120);
const bytes = amassFile(frames, 120, 0);
// wall seconds, and CPU seconds of this process (on a shared machine the wall time includes waiting for a core)
const stages = {};
const cpuStages = {};
const time = (name, fn) => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const out = fn();
  const c = process.cpuUsage(c0);
  stages[name] = (performance.now() - t0) / 1000;
  cpuStages[name] = (c.user + c.system) / 1e6;
  return out;
};
const kernelName = kernel ?? 'default kernel, lanczos3';
const arrays = time('parseNpz', () => parseNpz(bytes));
const clip = time('amassToClip', () => amassToClip(arrays));
const clip30 = time(`resampleClip 120 -> 30 Hz (${kernelName})`, () =>
  resampleClip(clip, { targetRate: 30, ...(kernel ? { kernel } : {}) }),
);
const out = time('clipToAmass', () => clipToAmass(clip30));
const written = time('writeNpz', () => writeNpz(out));
const clipSeconds = Object.values(stages).reduce((a, b) => a + b, 0);
const clipCpu = Object.values(cpuStages).reduce((a, b) => a + b, 0);
console.log(`1. one ${minutes}-minute SMPL+H clip at 120 Hz, in memory (load average ${loadBefore})`);
for (const [name, s] of Object.entries(stages))
  console.log(`   ${name.padEnd(56)} ${s.toFixed(2)} s wall, ${cpuStages[name].toFixed(2)} s CPU`);
console.log(
  `   ${(bytes.length / 1e6).toFixed(0)} MB -> ${clip30.frames} frames at 30 Hz (${(written.length / 1e6).toFixed(0)} MB): ${clipSeconds.toFixed(2)} s wall, ${clipCpu.toFixed(2)} s CPU`,
);

// ---- 2. a corpus on disk through the command line ----
// Rate mix (an assumption, stated in the output): most AMASS subsets are 120 Hz; KIT and EKUT are 100 Hz,
// TotalCapture and DFaust 60 Hz, a few 59.94 Hz; some SMPL-X releases and a few captures 250 Hz.
const MIX = [
  { rate: 120, share: 0.6, dir: 'CMU' },
  { rate: 100, share: 0.2, dir: 'KIT' },
  { rate: 60, share: 0.1, dir: 'TotalCapture' },
  { rate: 59.94, share: 0.05, dir: 'BMLmovi' },
  { rate: 250, share: 0.05, dir: 'MoSh' },
];
const work = mkdtempSync(join(tmpdir(), 'rotsig-bench-amass-'));
const input = join(work, 'amass');
let seed = 1;
const next = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const built = [];
for (const m of MIX) {
  let seconds = 0;
  let n = 0;
  while (seconds < m.share * corpusMinutes * 60) {
    // clip lengths 4 to 40 s, mean about 13 s (AMASS: about 11,000 motions in 40 hours)
    const length = 4 + 36 * next() ** 2.2;
    const fr = Math.floor(length * m.rate) + 1;
    const dir = join(input, m.dir, `subject${String(n % 7).padStart(2, '0')}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `take${String(n).padStart(3, '0')}_poses.npz`);
    writeFileSync(file, amassFile(fr, m.rate, n));
    built.push({ rate: m.rate, frames: fr, seconds: (fr - 1) / m.rate, bytes: statSync(file).size });
    seconds += (fr - 1) / m.rate;
    n++;
  }
}
const motionHours = built.reduce((s, f) => s + f.seconds, 0) / 3600;
const inputBytes = built.reduce((s, f) => s + f.bytes, 0);
const output = join(work, 'amass30');
const args = [
  join(root, 'bin', 'rotsig.js'),
  'resample',
  input,
  '-o',
  output,
  '--rate',
  '30',
  '--jobs',
  String(jobs),
  '--json',
  '--quiet',
  ...(kernel ? ['--kernel', kernel] : []),
];
// /usr/bin/time (where there is one) reports the CPU time of the command and its worker threads: the
// figure to trust on a busy machine, where the wall time includes waiting for a core
const timeTool = existsSync('/usr/bin/time');
const cpuFile = join(work, 'cpu.txt');
const t0 = performance.now();
const run = timeTool
  ? spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], {
      maxBuffer: 1 << 28,
    })
  : spawnSync(process.execPath, args, { maxBuffer: 1 << 28 });
const wall = (performance.now() - t0) / 1000;
const cpu = timeTool
  ? readFileSync(cpuFile, 'utf8')
      .trim()
      .split('\n')
      .pop()
      .split(' ')
      .reduce((a, b) => a + Number(b), 0)
  : Number.NaN;
if (run.status !== 0) {
  rmSync(work, { recursive: true, force: true });
  throw new Error(`rotsig resample failed (${run.status}): ${run.stderr}`);
}
const summary = JSON.parse(run.stdout.toString());
const taskSeconds = summary.files.reduce((s, f) => s + f.ms, 0) / 1000;
const byRate = new Map();
for (const f of summary.files) {
  const r = byRate.get(f.rate) ?? { files: 0, frames: 0 };
  r.files += 1;
  r.frames += f.frames;
  byRate.set(f.rate, r);
}
rmSync(work, { recursive: true, force: true });
const perHour = wall / motionHours;
const extrapolated = (perHour * CORPUS_HOURS) / 60;
// the CPU time spread over `jobs` cores: the wall time on an idle machine if the pool scales perfectly
const extrapolatedCpu = (cpu / motionHours / Math.min(jobs, cpus().length)) * (CORPUS_HOURS / 60);
const loadAfter = load();
console.log(
  `2. rotsig resample <dir> -o <dir> --rate 30 --jobs ${jobs}${kernel ? ` --kernel ${kernel}` : ''} over ${summary.ok} files`,
);
console.log(
  `   ${(motionHours * 60).toFixed(1)} min of motion, ${(inputBytes / 1e6).toFixed(0)} MB of stored .npz: ${wall.toFixed(2)} s wall, ${cpu.toFixed(2)} s CPU (${taskSeconds.toFixed(2)} s of file tasks summed over the workers)`,
);
console.log(
  `   input rates: ${[...byRate]
    .sort((a, b) => b[0] - a[0])
    .map(([rate, r]) => `${rate} Hz x ${r.files} (${(r.frames / rate / 60).toFixed(1)} min)`)
    .join(', ')}`,
);
console.log(
  `   40-hour corpus, extrapolated from the wall time: ${extrapolated.toFixed(1)} min (target < ${TARGET_MINUTES} min)`,
);
if (timeTool)
  console.log(
    `   40-hour corpus, extrapolated from the CPU time over ${Math.min(jobs, cpus().length)} cores: ${extrapolatedCpu.toFixed(1)} min (the wall time of an idle machine if the pool scales perfectly)`,
  );
console.log(
  '   assumptions: the cost grows linearly with hours of motion at the same mix of rates and clip lengths;',
);
console.log(
  `   mix ${MIX.map((m) => `${m.rate} Hz ${Math.round(m.share * 100)}%`).join(', ')}; SMPL+H (52 joints, poses, trans, dmpls, betas,`,
);
console.log(
  '   gender, mocap_framerate), stored as numpy.savez writes it; clips 4 to 40 s (mean about 13 s); input and output',
);
console.log(
  '   on the local disk, input in the page cache (a cold read of the full corpus, about 20 GB, needs about 35 MB/s',
);
console.log(`   to keep up); ${cpus().length} cores; load average ${loadBefore} before, ${loadAfter} after`);

mkdirSync(join(here, 'results'), { recursive: true });
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    loadAverage: Number(loadBefore),
    suite: 'amass-corpus',
    kernel: kernel ?? 'default',
    clip: { minutes, stages, cpuStages, seconds: clipSeconds, cpuSeconds: clipCpu },
    corpus: {
      jobs,
      files: summary.ok,
      motionMinutes: motionHours * 60,
      inputMB: inputBytes / 1e6,
      wallSeconds: wall,
      cpuSeconds: cpu,
      taskSeconds,
      corpus40hMinutes: extrapolated,
      corpus40hMinutesFromCpu: extrapolatedCpu,
      mix: MIX,
    },
  })}\n`,
);
