#!/usr/bin/env node
// Keyframe reduction compared on the shared CMU BVH files, measured by one independent evaluator
// (scripts/gltf_object_error.py: six virtual vertices per node at a 3 cm shell, as a player evaluates).
//
//   npm run build && node scripts/compare_reduction.mjs [--out bench/results/reduction.md]
//
// Each BVH is converted to GLB with rotsig (centimetres to metres, every frame a LINEAR key: the original),
// then reduced by: rotsig reduce at the 'acl' preset (float32 and 16-bit rotations at 0.05 cm),
// glTF-Transform resample() at its default tolerance (1e-4) and a sweep, and gltfpack (its npm package,
// default settings plus -kn so the skeleton's nodes stay). At each resample() tolerance rotsig is also
// run with its tolerance set to the max error resample() reached, for keys at equal max error.
// Raw size follows ACL's convention: 10 float32 per bone per sample.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { resample } from '@gltf-transform/functions';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = resolve(ROOT, '..', 'shared', 'data', 'bvh');
const FILES = ['cmu/01_01.bvh', 'cmu-iclone/005_11.bvh'];
const SWEEP = [1e-5, 1e-4, 1e-3, 1e-2];
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
const rows = [];
for (const rel of FILES) {
  const bvh = join(DATA, rel);
  if (!existsSync(bvh)) continue;
  const name = basename(rel, '.bvh');
  const { joints, frames } = bvhShape(bvh);
  const raw = 10 * 4 * joints * frames;
  const original = join(work, `${name}.glb`);
  rotsig('convert', bvh, '-o', original);
  const add = (method, file, extra = {}) => {
    const e = evaluate(original, file);
    rows.push({
      file: rel,
      method,
      keys: e.keys.candidate,
      glb: statSync(file).size,
      samplerBytes: e.samplerBytes.candidate,
      ratio: raw / statSync(file).size,
      maxCm: e.maxError * 100,
      p99Cm: e.p99Error * 100,
      raw,
      ...extra,
    });
    return e;
  };
  add('original (every frame, float32)', original);
  const acl = join(work, `${name}-acl.glb`);
  rotsig('reduce', bvh, '-o', acl, '--preset', 'acl');
  add('rotsig reduce --preset acl (0.01 cm)', acl, { bound: 0.01 });
  const q = join(work, `${name}-acl-q.glb`);
  rotsig('reduce', bvh, '-o', q, '--preset', 'acl', '--tolerance', '0.05', '--quantize', 'int16');
  add('rotsig reduce --preset acl --tolerance 0.05 cm --quantize int16', q, { bound: 0.05 });
  for (const tolerance of SWEEP) {
    const doc = await io.read(original);
    await doc.transform(resample({ tolerance }));
    const file = join(work, `${name}-resample-${tolerance}.glb`);
    await io.write(file, doc);
    const e = add(
      `glTF-Transform resample({ tolerance: ${tolerance} })${tolerance === 1e-4 ? ' (default)' : ''}`,
      file,
    );
    // rotsig at the same max error (the evaluator's metres, as BVH centimetres)
    const same = join(work, `${name}-rotsig-at-${tolerance}.glb`);
    const bound = e.maxError * 100;
    if (bound > 1e-6) {
      rotsig('reduce', bvh, '-o', same, '--preset', 'acl', '--tolerance', String(bound));
      add(`rotsig reduce at resample(${tolerance})'s max error`, same, { bound });
    }
  }
  const gp = join(work, `${name}-gltfpack.glb`);
  execFileSync(join(ROOT, 'node_modules', '.bin', 'gltfpack'), ['-i', original, '-o', gp, '-kn'], {
    stdio: 'ignore',
  });
  add('gltfpack -kn (30 Hz, quantised)', gp);
  rows.push({
    file: rel,
    method: 'ACL 2.x (published, CMU corpus, variable bit rate)',
    ratio: 21.77,
    maxCm: 0.0495,
  });
}

const f = (x, d = 4) => (x === undefined ? '' : Number(x.toPrecision(d)).toString());
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
      `| ${r.file} | ${r.method} | ${r.keys ?? ''} | ${r.glb ?? ''} | ${r.samplerBytes ?? ''} | ${f(r.ratio, 3)}:1 | ${f(r.maxCm)} | ${f(r.p99Cm)} | ${f(r.bound)} |`,
  ),
  '',
];
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, lines.join('\n'));
writeFileSync(out.replace(/\.md$/, '.json'), `${JSON.stringify(rows, null, 2)}\n`);
process.stdout.write(lines.join('\n'));
