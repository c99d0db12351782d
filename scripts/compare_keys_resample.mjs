#!/usr/bin/env node
// Keys of rotsig reduce against glTF-Transform resample() at equal measured error, on every shared file.
//
//   npm run bench:keys-resample          (npm run build && node scripts/compare_keys_resample.mjs)
//   node scripts/compare_keys_resample.mjs [--out bench/results/keys-vs-resample.md] [--files gltf/Fox.glb,bvh/cmu/01_01.bvh]
//     [--effort best|fast]   (rotsig's search effort, default best)
//
// Inputs: every BVH under ../shared/data/bvh (converted to GLB by `rotsig convert`: centimetres to metres,
// every frame a LINEAR key) and every glTF/GLB under ../shared/data/gltf; files without animations or that
// cannot be opened are listed with the reason. For each input and each resample() tolerance:
//   1. glTF-Transform resample({ tolerance }) on the input document (NodeIO with KHRONOS_EXTENSIONS, the
//      meshopt and Draco decoders; compression extensions are dropped on write so the output is plain);
//   2. rotsig reduce on the same input with --tolerance set to the max error resample() reached (metres,
//      the evaluator's scene units; with the relative slack SLACK that "equal measured error" allows),
//      --shell 0.03 and --effort best;
// both measured against the input by the independent evaluator scripts/gltf_object_error.py (six virtual
// vertices per node at a 0.03 shell in scene units, every animated node and its descendants, at every
// original key time),
// per animation, the file's max error being the max over its animations. Keys: the sum over animations of
// their samplers' input accessor counts.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { KHRONOS_EXTENSIONS } from '@gltf-transform/extensions';
import { resample } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = resolve(ROOT, '..', 'shared', 'data');
const TOLERANCES = [1e-5, 1e-4, 1e-3];
const SHELL = 0.03;
const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
const out = arg('--out') ?? join(ROOT, 'bench', 'results', 'keys-vs-resample.md');
const EFFORT = arg('--effort') ?? 'best';
/**
 * Relative slack of "equal measured error". Keys are float32: a track that is constant up to float32
 * round-off (rigged_simple's translation jitters by 1e-14 m in x and one ulp in y) is held by one key in
 * rotsig's output and by its end keys in resample()'s, which moves a 2.6e-5 m error by 1.3e-6 of itself.
 * Differences that small are the files' round-off, not the reductions'.
 */
const SLACK = 1e-5;
const work = join(tmpdir(), `rotsig-keys-resample-${process.pid}`);
mkdirSync(work, { recursive: true });

/** Files under dir (relative to DATA) whose names end in one of exts, sorted. */
function list(dir, exts) {
  const found = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (exts.some((x) => e.name.toLowerCase().endsWith(x))) found.push(relative(DATA, p));
    }
  };
  walk(join(DATA, dir));
  return found.sort();
}
const FILES = arg('--files')?.split(',') ?? [...list('bvh', ['.bvh']), ...list('gltf', ['.gltf', '.glb'])];

const rotsig = (...args) =>
  execFileSync(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
/** The reason of a failure: its error line (else its last line), with machine paths made relative. */
function why(error) {
  const lines = String(error.stderr || error.message)
    .trim()
    .split('\n');
  const line = lines.find((l) => /^error: /i.test(l)) ?? lines.pop();
  return line
    .replace(/^error: /i, '')
    .replaceAll(`${DATA}/`, '')
    .replaceAll(`${work}/`, '')
    .replaceAll(`${ROOT}/`, '')
    .replaceAll('../shared/data/', '');
}

await MeshoptDecoder.ready;
const io = new NodeIO().registerExtensions(KHRONOS_EXTENSIONS).registerDependencies({
  'meshopt.decoder': MeshoptDecoder,
  'draco3d.decoder': await draco3d.createDecoderModule(),
});
/** Compression extensions have no encoder here: their data is decoded on read, so drop them on write. */
function plainDoc(doc) {
  for (const ext of doc.getRoot().listExtensionsUsed()) {
    if (ext.extensionName === 'EXT_meshopt_compression' || ext.extensionName === 'KHR_draco_mesh_compression')
      ext.dispose();
  }
  return doc;
}
/** Animation keys: the sum of the samplers' input accessor counts. */
const keysOf = (doc) =>
  doc
    .getRoot()
    .listAnimations()
    .reduce((n, a) => n + a.listSamplers().reduce((m, s) => m + (s.getInput()?.getCount() ?? 0), 0), 0);

/** Max object-space error of candidate against original over every animation (the evaluator, per animation). */
function measure(original, candidate, animations) {
  let maxError = 0;
  let nodes = 0;
  for (let a = 0; a < animations; a++) {
    const e = JSON.parse(
      execFileSync(
        'python3',
        [
          join(ROOT, 'scripts', 'gltf_object_error.py'),
          original,
          candidate,
          '--shell',
          String(SHELL),
          '--animation',
          String(a),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );
    maxError = Math.max(maxError, e.maxError);
    nodes += e.nodes;
  }
  return { maxError, nodes };
}

const t0 = performance.now();
// --from-json file.json: write the table again from measured numbers, without measuring
const saved = arg('--from-json') ? JSON.parse(readFileSync(arg('--from-json'), 'utf8')) : null;
const seconds = () => saved?.seconds ?? Number(((performance.now() - t0) / 1000).toFixed(0));
const rows = saved?.rows ?? [];
const skipped = saved?.skipped ?? [];
for (const rel of saved ? [] : FILES) {
  const name = rel.replace(/[\\/]/g, '_').replace(/\.(bvh|gltf|glb)$/i, '');
  let input = join(DATA, rel);
  if (!existsSync(input)) {
    skipped.push({ file: rel, reason: 'not found' });
    continue;
  }
  if (rel.toLowerCase().endsWith('.bvh')) {
    const glb = join(work, `${name}.glb`);
    try {
      rotsig('convert', input, '-o', glb);
    } catch (error) {
      skipped.push({ file: rel, reason: `rotsig convert failed: ${why(error)}` });
      continue;
    }
    input = glb;
  }
  let doc;
  let fileNote;
  try {
    doc = await io.read(input);
  } catch (error) {
    // a .gltf whose image files are missing from the shared data: a copy with empty placeholders (no animation
    // data lives in images), else the file is listed as not compared
    const missing = rel.endsWith('.gltf') && error.code === 'ENOENT' ? placeholders(input, name) : null;
    if (missing) {
      input = missing.copy;
      fileNote = `missing ${missing.files.join(', ')} replaced by empty placeholders in a copy`;
      doc = await io.read(input);
    } else {
      skipped.push({ file: rel, reason: `glTF-Transform cannot open it: ${why(error)}` });
      continue;
    }
  }
  const animations = doc.getRoot().listAnimations().length;
  if (animations === 0) {
    skipped.push({ file: rel, reason: 'no animations' });
    continue;
  }
  // the evaluator reads plain glTF: a decoded copy for files with compression extensions
  let original = input;
  const used = doc
    .getRoot()
    .listExtensionsUsed()
    .map((e) => e.extensionName);
  if (used.includes('EXT_meshopt_compression') || used.includes('KHR_draco_mesh_compression')) {
    original = join(work, `${name}.plain.glb`);
    await io.write(original, plainDoc(await io.read(input)));
  }
  const inputKeys = keysOf(doc);
  for (const tolerance of TOLERANCES) {
    const row = { file: rel, tolerance, animations, inputKeys, ...(fileNote ? { fileNote } : {}) };
    rows.push(row);
    try {
      const r = plainDoc(await io.read(input));
      await r.transform(resample({ tolerance }));
      row.resampleKeys = keysOf(r);
      const file = join(work, `${name}-resample-${tolerance}.glb`);
      await io.write(file, r);
      const e = measure(original, file, animations);
      row.resampleMaxError = e.maxError;
      row.nodes = e.nodes;
    } catch (error) {
      row.note = `resample() failed: ${why(error)}`;
      process.stderr.write(`${rel} @ ${tolerance}: ${row.note}\n`);
      continue;
    }
    if (!(row.resampleMaxError > 1e-12)) {
      row.note =
        row.nodes === 0
          ? 'no node moves (the evaluator measures node transforms only, e.g. morph weights only): rotsig not run'
          : row.resampleMaxError > 0
            ? `resample()'s max error is round-off (${g(row.resampleMaxError)} m): it kept the motion exactly; no tolerance to give rotsig`
            : "resample()'s max error is 0: no tolerance to give rotsig";
      process.stderr.write(`${rel} @ ${tolerance}: ${row.note}\n`);
      continue;
    }
    try {
      const file = join(work, `${name}-rotsig-at-${tolerance}.glb`);
      const json = JSON.parse(
        rotsig(
          'reduce',
          input,
          '-o',
          file,
          '--tolerance',
          String(row.resampleMaxError * (1 + SLACK)),
          '--shell',
          String(SHELL),
          '--effort',
          EFFORT,
          '--json',
          '--verbose',
        ),
      );
      row.rotsigReportedError = reportedError(json);
      row.rotsigKeys = keysOf(await io.read(file));
      const decoded = join(work, `${name}-rotsig-at-${tolerance}.plain.glb`);
      await io.write(decoded, plainDoc(await io.read(file)));
      row.rotsigMaxError = measure(original, decoded, animations).maxError;
      row.ratio = row.rotsigKeys / row.resampleKeys;
      row.rotsigAtMost = row.rotsigKeys <= row.resampleKeys;
    } catch (error) {
      row.note = `rotsig reduce failed: ${why(error)}`;
    }
    process.stderr.write(
      `${rel} @ ${tolerance}: resample ${row.resampleKeys} keys (max ${row.resampleMaxError.toPrecision(4)}), rotsig ${row.rotsigKeys} keys (max ${row.rotsigMaxError?.toPrecision(4)})${row.note ? ` ${row.note}` : ''} (${seconds()} s)\n`,
    );
    report();
  }
}

/** A copy of a .gltf and its resources in the work directory, missing images as empty files (null if a buffer is missing). */
function placeholders(path, name) {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const dir = join(work, `${name}-copy`);
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (const [kind, list] of [
    ['buffer', json.buffers ?? []],
    ['image', json.images ?? []],
  ]) {
    for (const { uri } of list) {
      if (!uri || uri.startsWith('data:')) continue;
      const from = join(dirname(path), decodeURIComponent(uri));
      const to = join(dir, decodeURIComponent(uri));
      mkdirSync(dirname(to), { recursive: true });
      if (existsSync(from)) copyFileSync(from, to);
      else if (kind === 'image') {
        writeFileSync(to, new Uint8Array());
        files.push(uri);
      } else return null;
    }
  }
  const copy = join(dir, basename(path));
  writeFileSync(copy, JSON.stringify(json));
  return { copy, files };
}

/** The largest error rotsig reports in its --json summary (over files and animations). */
function reportedError(json) {
  let max;
  const visit = (v) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      if (typeof v.maxError === 'number') max = Math.max(max ?? 0, v.maxError);
      for (const x of Object.values(v)) if (x && typeof x === 'object') visit(x);
    }
  };
  visit(json);
  return max;
}

function g(x, d = 4) {
  return x === undefined ? '' : Number(x.toPrecision(d)).toString();
}
function report() {
  const compared = rows.filter((r) => r.ratio !== undefined);
  const atMost = compared.filter((r) => r.rotsigAtMost);
  const worst = compared.reduce((w, r) => (w === null || r.ratio > w.ratio ? r : w), null);
  // equal measured error: rotsig's max error within resample()'s (SLACK relative, float32 round-off)
  const over = compared.filter((r) => r.rotsigMaxError > r.resampleMaxError * (1 + SLACK));
  const fair = compared.filter((r) => !over.includes(r));
  const fairAtMost = fair.filter((r) => r.rotsigAtMost);
  const fairWorst = fair.reduce((w, r) => (w === null || r.ratio > w.ratio ? r : w), null);
  const elapsed = seconds();
  const lines = [
    '# Keys of rotsig reduce against glTF-Transform resample() at equal measured error',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:keys-resample\` (\`scripts/compare_keys_resample.mjs\`, ${elapsed} s).`,
    'Inputs: every BVH under `../shared/data/bvh` (converted by `rotsig convert`, centimetres to metres, every frame',
    'a LINEAR key) and every glTF/GLB under `../shared/data/gltf` with animations (paths below are relative to',
    '`../shared/data`). For each tolerance, glTF-Transform `resample({ tolerance })` (4.5.1) reduces the input; its max',
    `error is measured; then \`rotsig reduce <input> --tolerance <that error x (1 + ${SLACK})> --shell 0.03 --effort ${EFFORT} --json\` reduces the same`,
    'input. Both are measured against the input by `scripts/gltf_object_error.py --shell 0.03` (six virtual vertices',
    "per node at ±3 cm in scene units, at each node's rest world scale as rotsig states its bound; every animated node",
    "and its descendants, at every original key time; spec interpolation and FK; max over all animations, metres). Keys: sum of the samplers' input",
    'accessor counts over all animations. Ratio: rotsig keys / resample keys. "rotsig error ≤": rotsig\'s measured max',
    `error within resample()'s (${SLACK} relative slack: float32 round-off of keys that are constant up to an ulp moves errors by about 1e-6 of themselves), i.e. the keys are compared at equal measured error.`,
    '',
    '| file | tolerance | input keys | resample keys | resample max error (m) | rotsig keys | rotsig max error (m) | rotsig reported (m) | ratio | rotsig ≤ resample (keys) | rotsig error ≤ | note |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :---: | :---: | --- |',
    ...rows.map(
      (r) =>
        `| ${r.file} | ${r.tolerance} | ${r.inputKeys} | ${r.resampleKeys ?? ''} | ${g(r.resampleMaxError)} | ${r.rotsigKeys ?? ''} | ${g(r.rotsigMaxError)} | ${g(r.rotsigReportedError)} | ${r.ratio === undefined ? '' : r.ratio.toFixed(3)} | ${r.rotsigAtMost === undefined ? '' : r.rotsigAtMost ? 'yes' : '**no**'} | ${r.rotsigMaxError === undefined ? '' : over.includes(r) ? '**no**' : 'yes'} | ${[r.fileNote, r.note].filter(Boolean).join('; ')} |`,
    ),
    '',
    ...(skipped.length ? ['Not compared:', '', ...skipped.map((s) => `- ${s.file}: ${s.reason}`), ''] : []),
    '## Summary',
    '',
    `rotsig has ≤ keys than resample() on ${atMost.length} of ${compared.length} compared (file, tolerance) rows` +
      (worst
        ? `; the worst ratio is ${worst.ratio.toFixed(3)} (${worst.rotsigKeys} vs ${worst.resampleKeys} keys) on ${worst.file} at tolerance ${worst.tolerance}`
        : '') +
      `. ${rows.length - compared.length} rows were not compared (reason in the note column) and ${skipped.length ? `${skipped.length} files not at all (listed above)` : 'every file was opened'}. ` +
      `rotsig's measured max error exceeded resample()'s on ${over.length} compared rows${over.length ? ` (${over.map((r) => `${r.file} @ ${r.tolerance}`).join('; ')})` : ''}, so keys are at equal measured error on ${fair.length} rows: ` +
      `there rotsig has ≤ keys on ${fairAtMost.length} of ${fair.length}` +
      (fairWorst
        ? `, worst ratio ${fairWorst.ratio.toFixed(3)} on ${fairWorst.file} at tolerance ${fairWorst.tolerance}`
        : '') +
      '.',
    '',
  ];
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, lines.join('\n'));
  writeFileSync(
    out.replace(/\.md$/, '.json'),
    `${JSON.stringify({ tolerances: TOLERANCES, shell: SHELL, seconds: elapsed, rows, skipped }, null, 2)}\n`,
  );
}
report();
if (!process.argv.includes('--keep')) rmSync(work, { recursive: true, force: true });
process.stdout.write(`${basename(out)} written (${seconds()} s)\n`);
