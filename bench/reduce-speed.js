// Key reduction time beside glTF-Transform's resample() on the same file (issue: reduction, item 4).
//
// The file: a 4,511-frame, 31-joint capture at 120 Hz, made from the bundled CMU 01_01 (2,752 frames)
// played forwards and then backwards from its second-last frame (a continuous motion with no jump),
// converted to GLB by the built `rotsig convert` (every frame a LINEAR key, as a capture exported to glTF).
//
// Two measurements, each in paired runs whose order alternates (A B, B A, ...), so drift of a shared machine
// falls on both sides:
// 1. the operations alone, in this process, on a document / clip already read:
//    glTF-Transform `document.transform(resample())` (its defaults: tolerance 1e-4, the JavaScript path)
//    against rotsig `reduceKeys(keyedClip, { effort })` (the defaults of `rotsig reduce`: preset, 1 mm);
// 2. the whole command a user runs, as a child process: read the GLB, reduce, write a GLB:
//    `rotsig reduce in.glb -o out.glb --effort fast` against a script doing NodeIO read + resample() + write.
//
// Usage: npm run bench:reduce-speed [-- --pairs 7 --effort fast]
// Prints the per-pair times and the median ratio (rotsig / glTF-Transform: at most 1 is "no slower"),
// appends a record to bench/results/history.jsonl.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NodeIO } from '@gltf-transform/core';
import { resample } from '@gltf-transform/functions';
import { reduceKeys } from '../dist/index.js';
import { readGltf } from '../dist/io/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const { values } = parseArgs({
  options: { pairs: { type: 'string', default: '7' }, effort: { type: 'string', default: 'fast' } },
});
const pairs = Number(values.pairs);
const effort = values.effort;
const FRAMES = 4511;

// ---- the file ----
const work = mkdtempSync(join(tmpdir(), 'rotsig-bench-reduce-'));
const text = readFileSync(join(root, 'samples', '01_01.bvh'), 'utf8');
const at = text.indexOf('MOTION');
const lines = text
  .slice(at)
  .split(/\r?\n/)
  .filter((l) => l.trim() !== '');
const frameTime = lines.find((l) => /^Frame Time:/i.test(l));
const rows = lines.slice(lines.findIndex((l) => /^Frame Time:/i.test(l)) + 1);
const back = rows.slice(0, -1).reverse();
const all = rows.concat(back).slice(0, FRAMES);
if (all.length !== FRAMES) throw new Error(`expected ${FRAMES} frames, made ${all.length}`);
const bvh = join(work, 'capture.bvh');
writeFileSync(bvh, `${text.slice(0, at)}MOTION\nFrames: ${FRAMES}\n${frameTime}\n${all.join('\n')}\n`);
const glb = join(work, 'capture.glb');
const bin = join(root, 'bin', 'rotsig.js');
const converted = spawnSync(process.execPath, [bin, 'convert', bvh, '-o', glb], { encoding: 'utf8' });
if (converted.status !== 0) throw new Error(`rotsig convert failed: ${converted.stderr}`);
const bytes = new Uint8Array(readFileSync(glb));

// ---- 1. the operations alone ----
const io = new NodeIO();
async function gltfTransformOnce() {
  const doc = await io.readBinary(bytes);
  const t0 = performance.now();
  await doc.transform(resample());
  const seconds = (performance.now() - t0) / 1000;
  let keys = 0;
  for (const a of doc.getRoot().listAnimations())
    for (const s of a.listSamplers()) keys += s.getInput()?.getCount() ?? 0;
  return { seconds, keys };
}
async function rotsigOnce() {
  const read = await readGltf(bytes);
  const clip = read.clips[0];
  const t0 = performance.now();
  const reduced = reduceKeys(clip, { unitsPerMeter: 1, effort });
  const seconds = (performance.now() - t0) / 1000;
  let keys = 0;
  for (const t of reduced.clip.tracks) keys += t.times.length;
  return { seconds, keys };
}

// ---- 2. the whole command ----
const script = join(work, 'gltf-transform-resample.mjs');
writeFileSync(
  script,
  `import { NodeIO } from '${import.meta.resolve('@gltf-transform/core')}';
import { resample } from '${import.meta.resolve('@gltf-transform/functions')}';
const io = new NodeIO();
const doc = await io.read(process.argv[2]);
await doc.transform(resample());
await io.write(process.argv[3], doc);
`,
);
let runs = 0;
function commandOnce(kind) {
  const out = join(work, `out-${kind}-${runs++}.glb`);
  const args = kind === 'rotsig' ? [bin, 'reduce', glb, '-o', out, '--effort', effort] : [script, glb, out];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: root });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${kind} failed (${r.status}): ${r.stderr}`);
  return { seconds, bytes: readFileSync(out).length };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const loadBefore = loadavg()[0];
console.log(
  `reduce beside glTF-Transform resample(): ${FRAMES} frames x 31 joints (01_01 forwards and back), effort '${effort}', ${pairs} pairs, load ${loadBefore.toFixed(2)}`,
);
// warm both paths once (JIT), not recorded
await gltfTransformOnce();
await rotsigOnce();
const op = [];
for (let i = 0; i < pairs; i++) {
  const order = i % 2 === 0 ? ['gt', 'rs'] : ['rs', 'gt'];
  const pair = {};
  for (const k of order) pair[k] = k === 'gt' ? await gltfTransformOnce() : await rotsigOnce();
  op.push(pair);
  console.log(
    `  operation pair ${i + 1}: resample() ${pair.gt.seconds.toFixed(3)} s (${pair.gt.keys} keys), reduceKeys ${pair.rs.seconds.toFixed(3)} s (${pair.rs.keys} keys): ${(pair.rs.seconds / pair.gt.seconds).toFixed(2)}x`,
  );
}
const cmd = [];
for (let i = 0; i < pairs; i++) {
  const order = i % 2 === 0 ? ['gt', 'rs'] : ['rs', 'gt'];
  const pair = {};
  for (const k of order) pair[k] = commandOnce(k === 'gt' ? 'gltf-transform' : 'rotsig');
  cmd.push(pair);
  console.log(
    `  command pair ${i + 1}: read+resample()+write ${pair.gt.seconds.toFixed(3)} s (${pair.gt.bytes} B), rotsig reduce ${pair.rs.seconds.toFixed(3)} s (${pair.rs.bytes} B): ${(pair.rs.seconds / pair.gt.seconds).toFixed(2)}x`,
  );
}
const opRatios = op.map((p) => p.rs.seconds / p.gt.seconds);
const cmdRatios = cmd.map((p) => p.rs.seconds / p.gt.seconds);
const summary = {
  operation: {
    medianRatio: median(opRatios),
    minRatio: Math.min(...opRatios),
    maxRatio: Math.max(...opRatios),
    resampleSeconds: median(op.map((p) => p.gt.seconds)),
    reduceSeconds: median(op.map((p) => p.rs.seconds)),
    resampleKeys: op[0].gt.keys,
    reduceKeys: op[0].rs.keys,
  },
  command: {
    medianRatio: median(cmdRatios),
    minRatio: Math.min(...cmdRatios),
    maxRatio: Math.max(...cmdRatios),
    resampleSeconds: median(cmd.map((p) => p.gt.seconds)),
    reduceSeconds: median(cmd.map((p) => p.rs.seconds)),
    resampleBytes: cmd[0].gt.bytes,
    reduceBytes: cmd[0].rs.bytes,
  },
};
console.log(
  `reduceKeys / resample(): median ${summary.operation.medianRatio.toFixed(2)}x (${summary.operation.minRatio.toFixed(2)}-${summary.operation.maxRatio.toFixed(2)}x); keys ${summary.operation.reduceKeys} against ${summary.operation.resampleKeys}`,
);
console.log(
  `rotsig reduce / read+resample()+write: median ${summary.command.medianRatio.toFixed(2)}x (${summary.command.minRatio.toFixed(2)}-${summary.command.maxRatio.toFixed(2)}x); target at most 1x`,
);
console.log(`load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`);
appendFileSync(
  join(here, 'results', 'history.jsonl'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: Number(loadBefore.toFixed(2)), filter: 'reduce-speed', frames: FRAMES, joints: 31, effort, pairs, ...summary })}\n`,
);
rmSync(work, { recursive: true, force: true });
