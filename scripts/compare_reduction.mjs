#!/usr/bin/env node
// Keyframe reduction compared on the shared CMU BVH files, measured by one independent evaluator
// (scripts/gltf_object_error.py: six virtual vertices per node at a 3 cm shell, as a player evaluates).
//
//   npm run build && node scripts/compare_reduction.mjs [--out bench/results/reduction.md]
//
// Each BVH is converted to GLB with rotsig (centimetres to metres, every frame a LINEAR key: the original),
// then reduced by: rotsig reduce at the 'acl' preset (float32; 16-bit rotations at 0.05 cm, plain and
// with EXT_meshopt_compression), glTF-Transform resample() at its default tolerance (1e-4) and a sweep,
// and gltfpack (its npm package: defaults; 120 Hz with 16-bit rotations; defaults compressed with -c). At
// each resample() tolerance rotsig is also run with its tolerance set to the max error resample()
// reached, for keys at equal max error. Files with EXT_meshopt_compression are decoded for the evaluator
// by glTF-Transform's own EXTMeshoptCompression and meshoptimizer's decoder (not rotsig's reader); their
// bytes are counted compressed. Raw size follows ACL's convention: 10 float32 per bone per sample.
//
//   node scripts/compare_reduction.mjs [--out file.md] [--files cmu/01_01.bvh,cmu-iclone/005_11.bvh]
//   node scripts/compare_reduction.mjs --effort best --out file.md   (rotsig rows with --effort best; no gltfpack)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { resample } from '@gltf-transform/functions';
import { MeshoptDecoder } from 'meshoptimizer';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = resolve(ROOT, '..', 'shared', 'data', 'bvh');
const FILES = process.argv.includes('--files')
  ? process.argv[process.argv.indexOf('--files') + 1].split(',')
  : ['cmu/01_01.bvh', 'cmu-iclone/005_11.bvh'];
const SWEEP = [1e-5, 1e-4, 1e-3, 1e-2];
const EFFORT = process.argv.includes('--effort') ? process.argv[process.argv.indexOf('--effort') + 1] : null;
/** rotsig reduce's extra arguments and the label they add to a row. */
const effortArgs = EFFORT ? ['--effort', EFFORT] : [];
const effortLabel = EFFORT ? ` --effort ${EFFORT}` : '';
const out = process.argv.includes('--out')
  ? process.argv[process.argv.indexOf('--out') + 1]
  : join(ROOT, 'bench', 'results', 'reduction.md');
const work = join(tmpdir(), `rotsig-compare-${process.pid}`);
mkdirSync(work, { recursive: true });

const rotsig = (...args) =>
  execFileSync(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
const evaluate = (original, candidate) =>
  JSON.parse(
    execFileSync(
      'python3',
      [join(ROOT, 'scripts', 'gltf_object_error.py'), original, candidate, '--shell', '0.03'],
      {
        encoding: 'utf8',
      },
    ),
  );

/** Joints and frames of a BVH (hierarchy joints with CHANNELS; the MOTION header). */
function bvhShape(path) {
  const text = readFileSync(path, 'utf8');
  const joints = (text.match(/^\s*(ROOT|JOINT)\s/gm) ?? []).length;
  const frames = Number(/Frames:\s*(\d+)/.exec(text)[1]);
  return { joints, frames };
}

const io = new NodeIO().registerExtensions([KHRMeshQuantization]);
await MeshoptDecoder.ready;
const decoder = new NodeIO()
  .registerExtensions([KHRMeshQuantization, EXTMeshoptCompression])
  .registerDependencies({ 'meshopt.decoder': MeshoptDecoder });
/** A plain copy of a file that uses EXT_meshopt_compression (else the file itself), for the evaluator. */
async function plain(file) {
  const doc = await decoder.read(file);
  const ext = doc
    .getRoot()
    .listExtensionsUsed()
    .find((e) => e.extensionName === 'EXT_meshopt_compression');
  if (!ext) return file;
  ext.dispose();
  const copy = file.replace(/\.glb$/, '.decoded.glb');
  await io.write(copy, doc);
  return copy;
}
const t0 = performance.now();
const rows = [];
for (const rel of FILES) {
  const bvh = join(DATA, rel);
  if (!existsSync(bvh)) continue;
  const name = basename(rel, '.bvh');
  const { joints, frames } = bvhShape(bvh);
  const raw = 10 * 4 * joints * frames;
  const original = join(work, `${name}.glb`);
  rotsig('convert', bvh, '-o', original);
  const add = async (method, file, extra = {}) => {
    const decoded = await plain(file);
    let e;
    try {
      e = evaluate(original, decoded);
    } catch (error) {
      // e.g. an output whose nodes no longer match the original's by index
      const why = String(error.stderr ?? error.message)
        .trim()
        .split('\n')
        .pop();
      process.stderr.write(`${rel}: ${method}: not evaluated (${why})\n`);
      rows.push({ file: rel, method, glb: statSync(file).size, raw, note: `not evaluated: ${why}` });
      report();
      return null;
    }
    process.stderr.write(
      `${rel}: ${method}: ${e.keys.candidate} keys, max ${(e.maxError * 100).toPrecision(4)} cm (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
    );
    rows.push({
      file: rel,
      method,
      keys: e.keys.candidate,
      glb: statSync(file).size,
      samplerBytes: decoded === file ? e.samplerBytes.candidate : undefined,
      ratio: raw / statSync(file).size,
      maxCm: e.maxError * 100,
      p99Cm: e.p99Error * 100,
      raw,
      ...extra,
    });
    report();
    return e;
  };
  await add('original (every frame, float32)', original);
  const acl = join(work, `${name}-acl.glb`);
  rotsig('reduce', bvh, '-o', acl, '--preset', 'acl', ...effortArgs);
  await add(`rotsig reduce --preset acl${effortLabel} (0.01 cm)`, acl, { bound: 0.01 });
  const q = join(work, `${name}-acl-q.glb`);
  rotsig(
    'reduce',
    bvh,
    '-o',
    q,
    '--preset',
    'acl',
    '--tolerance',
    '0.05',
    '--quantize',
    'int16',
    ...effortArgs,
  );
  await add(`rotsig reduce --preset acl${effortLabel} --tolerance 0.05 cm --quantize int16`, q, {
    bound: 0.05,
    q16: true,
  });
  const qm = join(work, `${name}-acl-q-meshopt.glb`);
  rotsig(
    'reduce',
    bvh,
    '-o',
    qm,
    '--preset',
    'acl',
    '--tolerance',
    '0.05',
    '--quantize',
    'int16',
    '--meshopt',
    ...effortArgs,
  );
  await add(`rotsig reduce --preset acl${effortLabel} --tolerance 0.05 cm --quantize int16 --meshopt`, qm, {
    bound: 0.05,
    q16: true,
  });
  for (const tolerance of SWEEP) {
    const doc = await io.read(original);
    await doc.transform(resample({ tolerance }));
    const file = join(work, `${name}-resample-${tolerance}.glb`);
    await io.write(file, doc);
    const e = await add(
      `glTF-Transform resample({ tolerance: ${tolerance} })${tolerance === 1e-4 ? ' (default)' : ''}`,
      file,
      { sweep: tolerance },
    );
    // rotsig at the same max error (the evaluator's metres, as BVH centimetres)
    const same = join(work, `${name}-rotsig-at-${tolerance}.glb`);
    const bound = e === null ? 0 : e.maxError * 100;
    if (bound > 1e-6) {
      rotsig('reduce', bvh, '-o', same, '--preset', 'acl', '--tolerance', String(bound), ...effortArgs);
      await add(`rotsig reduce${effortLabel} at resample(${tolerance})'s max error`, same, {
        bound,
        at: tolerance,
      });
    }
  }
  const packs = [
    ['gltfpack defaults (30 Hz, 12-bit rotations, 16-bit translations)', []],
    // -kn keeps the nodes the defaults may drop, so the evaluator can match them by index
    ['gltfpack -kn (defaults, named nodes kept)', ['-kn']],
    ['gltfpack -kn -af 0 -ar 16 (every frame, 16-bit rotations)', ['-kn', '-af', '0', '-ar', '16']],
    ['gltfpack -kn -c (EXT_meshopt_compression)', ['-kn', '-c']],
    ['gltfpack -kn -cc (higher compression)', ['-kn', '-cc']],
  ];
  for (let i = 0; i < (EFFORT ? 0 : packs.length); i++) {
    const gp = join(work, `${name}-gltfpack-${i}.glb`);
    execFileSync(join(ROOT, 'node_modules', '.bin', 'gltfpack'), ['-i', original, '-o', gp, ...packs[i][1]], {
      stdio: 'ignore',
    });
    await add(packs[i][0], gp);
  }
  rows.push({
    file: rel,
    method: 'ACL 2.x (published, CMU corpus, variable bit rate)',
    ratio: 21.77,
    maxCm: 0.0495,
  });
}

/** One verdict line per file and target, from the rows. */
function verdicts(file) {
  const mine = rows.filter((r) => r.file === file);
  const lines = [`${file}:`];
  const bounded = mine.filter((r) => r.bound !== undefined && r.maxCm !== undefined);
  const over = bounded.filter((r) => r.maxCm > r.bound);
  lines.push(
    `- never above the bound: ${over.length ? `MISSED on ${over.map((r) => r.method).join('; ')}` : `held on all ${bounded.length} rotsig rows`} (largest max/bound ${Math.max(...bounded.map((r) => r.maxCm / r.bound)).toFixed(4)}).`,
  );
  const pairs = [];
  for (const tolerance of SWEEP) {
    const them = mine.find((r) => r.sweep === tolerance);
    const us = mine.find((r) => r.at === tolerance);
    if (them && us)
      pairs.push(`${tolerance}: ${them.keys} / ${us.keys} = ${(them.keys / us.keys).toFixed(2)}x`);
  }
  const factors = pairs.map((p) => Number(p.split('= ')[1].slice(0, -1)));
  lines.push(
    `- 2x fewer keys than resample() at equal max error: ${factors.every((x) => x >= 2) ? 'held' : `missed at ${factors.filter((x) => x < 2).length} of ${factors.length} points`} (resample keys / rotsig keys: ${pairs.join('; ')}).`,
  );
  const q = mine.filter((r) => r.q16);
  lines.push(
    `- 16-bit, max error <= 0.05 cm, raw : GLB >= 10:1: ${q.map((r) => `${r.method.includes('meshopt') ? 'with meshopt' : 'without meshopt'} ${r.ratio.toFixed(2)}:1 at ${r.maxCm.toPrecision(4)} cm (${r.ratio >= 10 && r.maxCm <= 0.05 ? 'held' : 'missed'})`).join('; ')}; ACL published 21.77:1.`,
  );
  return lines;
}

function f(x, d = 4) {
  return x === undefined ? '' : Number(x.toPrecision(d)).toString();
}
/** Writes the table so far (after every row, so a stopped run keeps what it measured). */
function report() {
  const lines = [
    '# Keyframe reduction compared (object-space error at a 3 cm shell)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} by \`scripts/compare_reduction.mjs\`; errors from the independent`,
    'evaluator `scripts/gltf_object_error.py` against the original (every frame keyed), at every original frame.',
    'Raw size: ACL convention, 10 float32 per bone per sample. Bound: the tolerance rotsig was given (cm).',
    '',
    '| file | method | keys | GLB bytes | sampler bytes | raw : GLB | max error (cm) | p99 error (cm) | bound (cm) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.file} | ${r.method}${r.note ? ` (${r.note})` : ''} | ${r.keys ?? ''} | ${r.glb ?? ''} | ${r.samplerBytes ?? ''} | ${r.ratio === undefined ? '' : `${f(r.ratio, 3)}:1`} | ${f(r.maxCm)} | ${f(r.p99Cm)} | ${f(r.bound)} |`,
    ),
    '',
    '## Verdicts',
    '',
    ...FILES.filter((rel) => rows.some((r) => r.file === rel)).flatMap((rel) => [...verdicts(rel), '']),
  ];
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, lines.join('\n'));
  writeFileSync(out.replace(/\.md$/, '.json'), `${JSON.stringify(rows, null, 2)}\n`);
}
report();
process.stdout.write(readFileSync(out, 'utf8'));
