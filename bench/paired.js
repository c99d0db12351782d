// The bench suites of this checkout against another checkout of rotsig (built: its dist/ and bench/),
// as paired ratios: each suite runs in a child process that loads both builds' suites, and every task
// that both have (same suite and task name) is timed in alternating rounds (this, baseline; baseline,
// this; ...), so that drift of a shared machine (a busy second core, costly first touches of memory)
// falls on both sides of each ratio. Single runs of `npm run bench` swing by tens of percent here;
// a ratio of paired samples does not.
//
// Usage: npm run bench:paired -- --baseline <checkout> [--rounds 11] [name-filter]
// Prints per task this build's and the baseline's median time and the median ratio (this / baseline,
// below 1 is faster) with its range over the rounds, and appends a record to bench/results/history.jsonl.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { childRows } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '11' },
    suite: { type: 'string' },
  },
  allowPositionals: true,
});
if (!values.baseline) {
  console.error('usage: node bench/paired.js --baseline <checkout> [--rounds 11] [name-filter]');
  process.exit(2);
}
const baseline = resolve(values.baseline);
const rounds = Number(values.rounds);
const filter = positionals[0] ?? '';
if (!(Number.isInteger(rounds) && rounds >= 3)) throw new Error(`--rounds ${values.rounds}: at least 3`);
for (const dir of [join(baseline, 'dist'), join(baseline, 'bench')])
  if (!existsSync(dir)) throw new Error(`${dir} is missing: the baseline must be a built checkout`);

/** Each timed sample lasts at least this long: calls are batched until it does. */
const SAMPLE_MS = 25;
/** Each side runs at least this long (and three calls) before the rounds. */
const WARM_MS = 400;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function timed(task, state, calls) {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await task.run(state);
  return (performance.now() - t0) / calls;
}

async function pairSuite(file) {
  const mine = (await import(pathToFileURL(join(here, file)).href)).default;
  const theirs = (await import(pathToFileURL(join(baseline, 'bench', file)).href)).default;
  const rows = [];
  for (const task of mine.tasks) {
    const label = `${mine.name}: ${task.name}`;
    if (filter && !label.includes(filter)) continue;
    const other = theirs.name === mine.name ? theirs.tasks.find((t) => t.name === task.name) : undefined;
    if (!other) {
      rows.push({ suite: mine.name, task: task.name, missing: true });
      continue;
    }
    const sides = [
      { task, state: task.setup ? await task.setup() : undefined, ms: [] },
      { task: other, state: other.setup ? await other.setup() : undefined, ms: [] },
    ];
    // warm both (their JIT tiers), then batch calls so that a sample lasts SAMPLE_MS on the slower side
    let once = 0;
    for (const s of sides) {
      const t0 = performance.now();
      for (let n = 0; n < 3 || performance.now() - t0 < WARM_MS; n++) await timed(s.task, s.state, 1);
      once = Math.max(once, await timed(s.task, s.state, 1));
    }
    const calls = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(once, 1e-3)));
    const ratios = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      const ms = [0, 0];
      for (const i of order) ms[i] = await timed(sides[i].task, sides[i].state, calls);
      sides[0].ms.push(ms[0]);
      sides[1].ms.push(ms[1]);
      ratios.push(ms[0] / ms[1]);
    }
    rows.push({
      suite: mine.name,
      task: task.name,
      calls,
      thisMs: Number(median(sides[0].ms).toFixed(4)),
      baselineMs: Number(median(sides[1].ms).toFixed(4)),
      medianRatio: Number(median(ratios).toFixed(4)),
      minRatio: Number(Math.min(...ratios).toFixed(4)),
      maxRatio: Number(Math.max(...ratios).toFixed(4)),
    });
  }
  return rows;
}

if (values.suite) {
  process.stdout.write(`${JSON.stringify(await pairSuite(values.suite))}\n`);
  process.exit(0);
}

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js') && existsSync(join(baseline, 'bench', f)))
  .sort();
const git = spawnSync('git', ['-C', baseline, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
const baselineCommit = git.status === 0 ? git.stdout.trim() : null;
console.log(
  `paired against ${baselineCommit ?? 'the baseline'}: ${rounds} alternating rounds per task, samples of at least ${SAMPLE_MS} ms; ratio = this / baseline`,
);
const results = [];
for (const file of files) {
  const rows = childRows(
    [
      fileURLToPath(import.meta.url),
      '--baseline',
      baseline,
      '--rounds',
      String(rounds),
      '--suite',
      file,
      filter,
    ],
    file,
  );
  if (rows === null) continue;
  for (const row of rows) {
    results.push(row);
    const label = `${row.suite}: ${row.task}`.padEnd(72);
    if (row.missing) {
      console.log(`${label} (no task of that name in the baseline)`);
      continue;
    }
    console.log(
      `${label} ${row.thisMs.toFixed(2).padStart(9)} ms vs ${row.baselineMs.toFixed(2).padStart(9)} ms  ${row.medianRatio.toFixed(2)}x (${row.minRatio.toFixed(2)}-${row.maxRatio.toFixed(2)})`,
    );
  }
}
const compared = results.filter((r) => !r.missing);
const slower = compared.filter((r) => r.medianRatio > 1.05);
console.log(
  `${compared.length} tasks compared, ${results.length - compared.length} without a counterpart; more than 5% slower than the baseline: ${slower.length ? slower.map((r) => `${r.suite}: ${r.task} (${r.medianRatio.toFixed(2)}x)`).join(', ') : 'none'}`,
);
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: Number(loadavg()[0].toFixed(2)), filter: 'paired', baseline: baselineCommit, rounds, nameFilter: filter || null, results })}\n`,
);
