// Runs every bench/*.bench.js suite against the built library (dist/) and records items per second.
// Usage: npm run bench [-- name-filter]. Results: bench/results/latest.json (overwritten) and one line per
// run appended to bench/results/history.jsonl, so later changes can be compared.
//
// A suite file exports `default { name, tasks: [{ name, items, unit, target?, setup?, run }] }`:
// `items` is how many units (rotations, frames, sets) one call of `run` processes; `target` is the
// issue's floor in units per second, printed beside the figure; `perItem: 'ns'` also prints and records the
// median cost per unit in nanoseconds (`nsPerItem`), for targets stated as a cost;
// `report(state)`, when given, returns
// lines of text (figures the task measured itself) printed below it and kept in the record.
import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { childRows } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const suiteArg = process.argv.indexOf('--suite');
const filter = suiteArg >= 0 ? (process.argv[suiteArg + 2] ?? '') : (process.argv[2] ?? '');
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .sort();

// Each suite runs in its own process, so one operation's measurement is not slowed by the type
// feedback and heap that other suites left behind in a shared JIT.
if (suiteArg >= 0) {
  const rows = await runSuite(process.argv[suiteArg + 1]);
  process.stdout.write(`${JSON.stringify(rows)}\n`);
  process.exit(0);
}

const results = [];
for (const file of files) {
  const rows = childRows([fileURLToPath(import.meta.url), '--suite', file, filter], file);
  if (rows === null) continue;
  for (const row of rows) {
    results.push(row);
    const target = row.target
      ? `  (target ${fmt(row.target)})${row.perSecond >= row.target ? '' : '  BELOW TARGET'}`
      : '';
    const label = `${row.suite}: ${row.task}`;
    // suites whose targets are a cost per item (perItem: 'ns') also print that cost and its target
    const cost =
      row.nsPerItem != null
        ? `  ${row.nsPerItem.toFixed(1)} ns/${row.unit.replace(/s$/, '')}${row.target ? ` (target <= ${(1e9 / row.target).toFixed(0)} ns)` : ''}`
        : '';
    console.log(
      `${label.padEnd(72)} ${fmt(row.perSecond).padStart(10)} ${row.unit}/s  ${row.medianMs.toFixed(2)} ms${target}${cost}`,
    );
    for (const note of row.notes ?? []) console.log(`    ${note}`);
  }
}

async function runSuite(file) {
  const rows = [];
  const suite = (await import(join(here, file))).default;
  for (const task of suite.tasks) {
    const label = `${suite.name}: ${task.name}`;
    if (filter && !label.includes(filter)) continue;
    const state = task.setup ? await task.setup() : undefined;
    const bench = new Bench({
      time: task.time ?? 1500,
      iterations: task.iterations ?? 5,
      warmupIterations: 2,
    });
    bench.add(label, () => task.run(state));
    await bench.run();
    const t = bench.tasks[0];
    if (t.result?.state !== 'completed') {
      console.error(`${label}: ${t.result?.error ?? 'did not complete'}`);
      process.exitCode = 1;
      continue;
    }
    const ms = t.result.latency.p50;
    // a task may add figures of its own (e.g. an overhead measured A/B inside run) as lines of text
    const notes = task.report ? task.report(state) : [];
    rows.push({
      suite: suite.name,
      task: task.name,
      unit: task.unit,
      items: task.items,
      medianMs: Number(ms.toFixed(4)),
      perSecond: Math.round(task.items / (ms / 1000)),
      nsPerItem: task.perItem === 'ns' ? Number(((ms * 1e6) / task.items).toFixed(2)) : undefined,
      target: task.target ?? null,
      samples: t.result.latency.samplesCount ?? null,
      ...(notes.length ? { notes } : {}),
    });
  }
  return rows;
}

function fmt(x) {
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)}M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)}k`;
  return x.toFixed(1);
}

const record = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  // the 1-minute load average when the run ended: on a shared machine, above the core count every
  // wall-clock figure here is slowed by the other processes
  loadAverage: Number(loadavg()[0].toFixed(2)),
  filter: filter || null,
  results,
};
mkdirSync(join(here, 'results'), { recursive: true });
if (!filter) writeFileSync(join(here, 'results', 'latest.json'), `${JSON.stringify(record, null, 2)}\n`);
appendFileSync(join(here, 'results', 'history.jsonl'), `${JSON.stringify(record)}\n`);
