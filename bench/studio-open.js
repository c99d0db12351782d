// Time to open a large keyed glTF file in the studio against the command line doing the same work.
// Generates a .glb of `--joints` nodes in a chain, each with a LINEAR rotation track of `--keys` keys at
// 30 Hz (default 1 x 1,000,000: the million-key file, 16 MB), in the system's temporary directory.
// The command line: `rotsig info` (read and bake, once) and `rotsig spectrum` (read, bake and the clip
// spectrum: what the studio computes on open), wall time. The studio: the built app (web/dist, from
// `npm run studio:build`) in Debian's Chromium, the file picked with the file input and the key-budget
// question accepted; times from the pick to the clip shown (frames > 0) and to idle (no work pending: the
// curves, spectra and first processing result drawn), the main thread's longest task while opening
// (PerformanceObserver 'longtask': how long the page stops answering), and where the time went (the page's
// and the worker's marks, `__studio.openMarks()`).
// The machine is shared, so `rotsig spectrum` and the studio run in pairs, --runs times, one right after the
// other (which goes first alternates): each pair's ratio is measured under the same load, and the record
// keeps every pair, the load average at each, and the median and range of the ratios.
// With --baseline <dir> (another build of the studio, its dist folder: an older commit's `vite build`), that
// build opens the same file too in each pair, and the record keeps both.
// Usage: npm run build && npm run studio:build && node bench/studio-open.js [--keys 1000000 --joints 1
// --runs 3 --baseline <dist> --record --note <text>]. With --record the result is added to
// bench/results/studio-open.json (the earlier records kept under `previousRuns`).
import { spawnSync } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Document, NodeIO } from '@gltf-transform/core';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '1000000' },
    joints: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    /** Older name of --runs. */
    repeat: { type: 'string' },
    record: { type: 'boolean', default: false },
    note: { type: 'string', default: '' },
    baseline: { type: 'string' },
  },
});
const keys = Number(values.keys);
const joints = Number(values.joints);
const runs = Number(values.repeat ?? values.runs);
const CHROMIUM = '/usr/bin/chromium';
const dist = join(root, 'web', 'dist');
if (!existsSync(join(dist, 'index.html')))
  throw new Error('web/dist is missing: run npm run studio:build first');
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (Debian's chromium package)`);

/** The .glb: `joints` nodes in a chain, one LINEAR rotation track of `keys` keys at 30 Hz each. */
async function manyKeysGlb() {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const times = new Float32Array(keys);
  for (let k = 0; k < keys; k++) times[k] = k / 30;
  const input = doc.createAccessor().setArray(times).setBuffer(buffer);
  const anim = doc.createAnimation('long');
  const scene = doc.createScene('scene');
  let parent = null;
  for (let j = 0; j < joints; j++) {
    const node = doc.createNode(`J${j}`).setTranslation([0, j === 0 ? 0 : 0.1, 0]);
    if (parent) parent.addChild(node);
    else scene.addChild(node);
    parent = node;
    const q = new Float32Array(keys * 4);
    for (let k = 0; k < keys; k++) {
      const half = 0.5 * 0.6 * Math.sin(k * 0.05 + j);
      q[k * 4 + 2] = Math.sin(half);
      q[k * 4 + 3] = Math.cos(half);
    }
    const output = doc.createAccessor().setType('VEC4').setArray(q).setBuffer(buffer);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    anim
      .addSampler(sampler)
      .addChannel(
        doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler),
      );
  }
  return new NodeIO().writeBinary(doc);
}

const work = mkdtempSync(join(tmpdir(), 'rotsig-bench-studio-'));
const file = join(work, 'million.glb');
writeFileSync(file, await manyKeysGlb());
const fileBytes = statSync(file).size;

/** Wall seconds of one `rotsig` command on the file. */
function cli(args) {
  const t0 = performance.now();
  const p = spawnSync(process.execPath, [join(root, 'bin', 'rotsig.js'), ...args, file], {
    encoding: 'utf8',
  });
  if (p.status !== 0) throw new Error(`rotsig ${args.join(' ')} failed: ${p.stderr}`);
  return (performance.now() - t0) / 1000;
}
const load = () => loadavg().map((l) => Number(l.toFixed(2)));

const loadAtStart = loadavg();
const info = cli(['info']);

const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
};
/** Serves a built studio on 127.0.0.1; resolves to its URL and server. */
async function serve(dir) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let f = normalize(join(dir, path));
    if (!f.startsWith(dir)) return void res.writeHead(403).end();
    if (existsSync(f) && statSync(f).isDirectory()) f = join(f, 'index.html');
    if (!existsSync(f)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES[extname(f)] ?? 'application/octet-stream' });
    createReadStream(f).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}/`, server };
}
const builds = { current: await serve(dist) };
if (values.baseline) builds.baseline = await serve(resolve(values.baseline));
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--enable-unsafe-swiftshader'],
});
/** Opens the file in one build of the studio; its times and marks. */
async function openIn(url) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('dialog', (d) => void d.accept());
  await page.goto(url);
  await page.waitForSelector('#sample-select[data-ready="true"]');
  await page.evaluate(() => {
    globalThis.__longTasks = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries())
        globalThis.__longTasks.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
    }).observe({ type: 'longtask' });
  });
  const t0 = performance.now();
  await page.setInputFiles('[data-testid=file-input]', file, { timeout: 600_000 });
  await page.waitForFunction(() => window.__studio.state().frames > 0, undefined, {
    timeout: 600_000,
    polling: 100,
  });
  const shown = (performance.now() - t0) / 1000;
  await page.waitForFunction(() => !window.__studio.state().busy, undefined, {
    timeout: 600_000,
    polling: 100,
  });
  const idle = (performance.now() - t0) / 1000;
  const s = await page.evaluate(() => ({
    frames: window.__studio.state().frames,
    parseMs: window.__studio.state().parseMs,
    longTasks: globalThis.__longTasks,
    // when the bench saw the open finished, on the marks' clock
    idleAt: performance.timeOrigin + performance.now(),
    spectrum: document.querySelector('[data-testid=spectrum-info]')?.textContent ?? '',
    marks: window.__studio.openMarks?.() ?? [],
  }));
  await page.close();
  return {
    shown,
    idle,
    frames: s.frames,
    workerReadMs: Math.round(s.parseMs),
    longestTaskMs: Math.round(Math.max(0, ...s.longTasks.map((t) => t.ms))),
    longTasksMs: Math.round(s.longTasks.reduce((a, t) => a + t.ms, 0)),
    spectrumInfo: s.spectrum,
    marks: Object.fromEntries(s.marks.map((m) => [m.label, m.ms])),
    // the page's tasks over 50 ms (start and length, ms on the marks' timeline) and when the bench saw idle
    longTasks: s.longTasks.map((t) => [Math.round(t.at - (s.marks[0]?.at ?? 0)), Math.round(t.ms)]),
    idleSeenMs: Math.round(s.idleAt - (s.marks[0]?.at ?? 0)),
  };
}

const pairs = [];
try {
  for (let r = 0; r < runs; r++) {
    const pair = { loadAverage: load(), cliSpectrumSeconds: 0, studio: {} };
    const studioSide = async () => {
      for (const [which, { url }] of Object.entries(builds)) pair.studio[which] = await openIn(url);
    };
    // which side goes first alternates, so neither always gets the quieter minute
    if (r % 2 === 0) {
      pair.cliSpectrumSeconds = cli(['spectrum']);
      await studioSide();
    } else {
      await studioSide();
      pair.cliSpectrumSeconds = cli(['spectrum']);
    }
    for (const st of Object.values(pair.studio))
      st.ratioIdleToCliSpectrum = st.idle / pair.cliSpectrumSeconds;
    pairs.push(pair);
    console.info(`pair ${r + 1}: ${JSON.stringify(pair)}`);
  }
} finally {
  await browser.close();
  for (const b of Object.values(builds)) b.server.close();
  rmSync(work, { recursive: true, force: true });
}
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Median and range of one figure over the pairs (null when no pair has it). */
const spread = (f) => {
  const v = pairs.map(f).filter((x) => x !== undefined);
  return v.length ? { median: median(v), min: Math.min(...v), max: Math.max(...v) } : null;
};
const record = {
  date: new Date().toISOString(),
  file: `${joints} joint(s), ${keys.toLocaleString('en')} LINEAR rotation keys per joint at 30 Hz (.glb, ${(fileBytes / 1e6).toFixed(1)} MB)`,
  machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}, at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
  runs,
  cliInfoSeconds: info,
  cliSpectrumSeconds: spread((p) => p.cliSpectrumSeconds),
  studioShownSeconds: spread((p) => p.studio.current.shown),
  studioIdleSeconds: spread((p) => p.studio.current.idle),
  ratioIdleToCliSpectrum: spread((p) => p.studio.current.ratioIdleToCliSpectrum),
  longestMainThreadTaskMs: spread((p) => p.studio.current.longestTaskMs),
  ...(values.baseline
    ? {
        baselineIdleSeconds: spread((p) => p.studio.baseline.idle),
        baselineRatioIdleToCliSpectrum: spread((p) => p.studio.baseline.ratioIdleToCliSpectrum),
        baselineLongestMainThreadTaskMs: spread((p) => p.studio.baseline.longestTaskMs),
      }
    : {}),
  pairs,
  note: values.note,
};
console.info(JSON.stringify(record, null, 2));
if (values.record) {
  // the earlier records are kept: the last one and its own earlier ones go under `previousRuns`, newest first
  const out = join(root, 'bench', 'results', 'studio-open.json');
  const previous = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
  const previousRuns = [];
  if (previous) {
    const { previousRuns: older = [], ...last } = previous;
    previousRuns.push(last, ...older);
  }
  writeFileSync(out, `${JSON.stringify({ ...record, previousRuns }, null, 2)}\n`);
}
