// AMASS corpus resampling cost: a 1-hour SMPL+H clip at 120 Hz (432,000 frames x 52 joints, in memory as
// the .npz bytes `numpy.savez` would write) taken through the whole file pipeline of `rotsig resample`:
// parseNpz -> amassToClip -> resampleClip (30 Hz) -> clipToAmass -> writeNpz. Prints seconds per stage and
// extrapolates to a 40-hour corpus (AMASS's size) on 2 worker threads, assuming they scale linearly
// (bench:cli measures the pool's scaling on BVH batches). Issue target: under 10 minutes.
// Usage: npm run build && node bench/amass.js [--minutes 60] [--kernel lanczos3]
import { appendFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resampleClip } from '../dist/index.js';
import { amassToClip, clipToAmass, parseNpz, writeNpz } from '../dist/io/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '60' }, kernel: { type: 'string', default: 'lanczos3' } },
});
const minutes = Number(values.minutes);
const kernel = values.kernel;
const frames = Math.round(minutes * 60 * 120);

const poses = new Float64Array(frames * 156);
for (let f = 0; f < frames; f++) {
  const t = f / 120;
  for (let c = 0; c < 156; c++)
    poses[f * 156 + c] = 0.4 * Math.sin(2 * Math.PI * (0.3 + (c % 7) * 0.2) * t + c);
}
const trans = new Float64Array(frames * 3).map((_, i) => (i % 3 === 0 ? i / 360 : 0.9));
const bytes = writeNpz({
  poses: { data: poses, shape: [frames, 156], dtype: 'float64' },
  trans: { data: trans, shape: [frames, 3], dtype: 'float64' },
  betas: { data: new Float64Array(16), shape: [16], dtype: 'float64' },
  gender: { data: ['male'], shape: [], dtype: 'str' },
  mocap_framerate: { data: Float64Array.of(120), shape: [], dtype: 'float64' },
});

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
const arrays = time('parseNpz', () => parseNpz(bytes));
const clip = time('amassToClip', () => amassToClip(arrays));
const clip30 = time(`resampleClip 120 -> 30 Hz (${kernel})`, () =>
  resampleClip(clip, { targetRate: 30, kernel }),
);
const out = time('clipToAmass', () => clipToAmass(clip30));
const written = time('writeNpz', () => writeNpz(out));
const total = Object.values(stages).reduce((a, b) => a + b, 0);
const cpuTotal = Object.values(cpuStages).reduce((a, b) => a + b, 0);
const perHour = (total * 60) / minutes;
const corpusMinutes = (perHour * 40) / 2 / 60;
const cpuCorpusMinutes = (((cpuTotal * 60) / minutes) * 40) / 2 / 60;
for (const [name, s] of Object.entries(stages))
  console.log(`${name.padEnd(40)} ${s.toFixed(2)} s wall, ${cpuStages[name].toFixed(2)} s CPU`);
console.log(
  `${minutes} min SMPL+H at 120 Hz (${(bytes.length / 1e6).toFixed(0)} MB) -> ${clip30.frames} frames at 30 Hz (${(written.length / 1e6).toFixed(0)} MB): ${total.toFixed(2)} s`,
);
console.log(
  `40-hour corpus on 2 workers, extrapolated: ${corpusMinutes.toFixed(1)} min from wall time, ${cpuCorpusMinutes.toFixed(1)} min from CPU time (target < 10 min)`,
);
mkdirSync(join(here, 'results'), { recursive: true });
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    suite: 'amass-corpus',
    minutes,
    kernel,
    stages,
    cpuStages,
    seconds: total,
    cpuSeconds: cpuTotal,
    corpus40hOn2WorkersMinutes: corpusMinutes,
    corpus40hOn2WorkersMinutesFromCpu: cpuCorpusMinutes,
  })}\n`,
);
