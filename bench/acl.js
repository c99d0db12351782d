#!/usr/bin/env node
// ACL (the Animation Compression Library, github.com/nfrechette/acl) beside rotsig's glTF reduction on
// the shared captures, both measured by one evaluator (scripts/gltf_object_error.py: six virtual
// vertices per node at a 3 cm shell, at every original frame).
//
//   npm run build && ACL_SRC=<acl checkout with external/rtm and external/sjson-cpp> node bench/acl.js
//     [--files cmu/01_01.bvh,...] [--out bench/results/reduction-acl.md]
//
// ACL is built from its sources here (g++, its headers only; not a dependency of rotsig, not run in CI):
// bench/acl/acl_roundtrip.cpp compresses a raw clip with ACL's default settings as its acl_compressor
// does, and decodes every sample. Each capture is converted by `rotsig convert` to a GLB (metres, every
// frame a key: the original); that GLB's local poses become ACL's raw clip (.acl.sjson, in centimetres,
// ACL's unit for its default 0.01 cm precision, virtual vertices at 3 cm); ACL's decoded poses are
// written back into a copy of the GLB (same key times, float32 values as decoded) and measured against
// the original. rotsig is then run at the error ACL reached (`reduce --preset acl --tolerance E`, with
// and without 16-bit rotations and EXT_meshopt_compression) and measured the same way. Bytes of
// animation data: ACL's compressed clip (compressed_tracks::get_size()); for glTF, the buffer views the
// animation samplers' accessors use (compressed size under EXT_meshopt_compression).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';
import { glbBytes } from '../dist/io/gltf/glb-json.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DATA = resolve(ROOT, '..', 'shared', 'data', 'bvh');
const arg = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const FILES = arg(
  '--files',
  [
    'cmu/01_01.bvh',
    'cmu-iclone/005_11.bvh',
    'assimp/Boxing_Toes.bvh',
    'axis-neuron/test.bvh',
    'bandai-namco/dataset-1_dance-short_normal_001.bvh',
    'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh',
    'lafan1-resolved/Geno_bind.bvh',
    'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh',
  ].join(','),
).split(',');
const OUT = arg('--out', join(ROOT, 'bench', 'results', 'reduction-acl.md'));
const ACL_SRC = process.env.ACL_SRC;
if (!ACL_SRC || !existsSync(join(ACL_SRC, 'includes', 'acl'))) {
  process.stderr.write('bench/acl.js: set ACL_SRC to a checkout of nfrechette/acl with its submodules\n');
  process.exit(2);
}
const work = join(tmpdir(), `rotsig-acl-${process.pid}`);
mkdirSync(work, { recursive: true });

// build the round-trip tool against ACL's headers
const tool = join(work, 'acl_roundtrip');
execFileSync('g++', [
  '-O2',
  '-std=c++11',
  '-DACL_USE_SJSON',
  '-I',
  join(ACL_SRC, 'includes'),
  '-I',
  join(ACL_SRC, 'external', 'rtm', 'includes'),
  '-I',
  join(ACL_SRC, 'external', 'sjson-cpp', 'includes'),
  join(ROOT, 'bench', 'acl', 'acl_roundtrip.cpp'),
  '-o',
  tool,
]);
const aclCommit = (() => {
  try {
    return execFileSync('git', ['-C', ACL_SRC, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();

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

await MeshoptDecoder.ready;
const io = new NodeIO()
  .registerExtensions([KHRMeshQuantization, EXTMeshoptCompression])
  .registerDependencies({ 'meshopt.decoder': MeshoptDecoder });

/** Bytes of the buffer views the animation samplers' accessors use (compressed under meshopt). */
function animationBytes(file) {
  const data = readFileSync(file);
  const jsonLength = data.readUInt32LE(12);
  const gltf = JSON.parse(data.subarray(20, 20 + jsonLength).toString('utf8'));
  const views = new Set();
  for (const a of gltf.animations ?? [])
    for (const s of a.samplers) for (const i of [s.input, s.output]) views.add(gltf.accessors[i].bufferView);
  let bytes = 0;
  for (const v of views) {
    const view = gltf.bufferViews[v];
    const meshopt = view.extensions?.EXT_meshopt_compression;
    bytes += meshopt ? meshopt.byteLength : view.byteLength;
  }
  return bytes;
}

/** A plain copy of a file that uses EXT_meshopt_compression (else the file itself), for the evaluator. */
async function plain(file) {
  const doc = await io.read(file);
  const ext = doc
    .getRoot()
    .listExtensionsUsed()
    .find((e) => e.extensionName === 'EXT_meshopt_compression');
  if (!ext) return file;
  ext.dispose();
  const copy = file.replace(/\.glb$/, '.decoded.glb');
  await new NodeIO().registerExtensions([KHRMeshQuantization]).write(copy, doc);
  // the nodes' transforms as the file holds them: glTF-Transform's writer leaves out any within 1e-5 of
  // the default (a BVH offset of 0.001 cm is 1e-5 m), which would add its own error to the measurement
  const source = glbJson(readFileSync(file));
  const bytes = readFileSync(copy);
  const json = glbJson(bytes);
  (source.nodes ?? []).forEach((node, i) => {
    for (const k of ['translation', 'rotation', 'scale'])
      if (node[k] !== undefined) json.nodes[i][k] = node[k];
  });
  // the BIN chunk as it is, in the writer's own GLB container
  const end = 20 + bytes.readUInt32LE(12);
  const bin = end < bytes.length ? bytes.subarray(end + 8, end + 8 + bytes.readUInt32LE(end)) : undefined;
  writeFileSync(copy, glbBytes(json, bin));
  return copy;
}

/** The JSON chunk of GLB bytes, parsed. */
function glbJson(glb) {
  return JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8'));
}

/** The GLB's nodes in parent-first order with their local pose at every key (all channels share keys). */
async function poses(file) {
  const doc = await io.read(file);
  const root = doc.getRoot();
  const order = [];
  const visit = (node, parent) => {
    order.push({ node, parent });
    for (const c of node.listChildren()) visit(c, node);
  };
  for (const n of root.listScenes()[0].listChildren()) visit(n, null);
  const anim = root.listAnimations()[0];
  const channels = new Map();
  let times = null;
  for (const c of anim.listChannels()) {
    channels.set(`${root.listNodes().indexOf(c.getTargetNode())}/${c.getTargetPath()}`, c.getSampler());
    const input = c.getSampler().getInput().getArray();
    if (times === null || input.length > times.length) times = input;
  }
  return { doc, root, order, channels, times };
}

const fmt = (x) => (Object.is(x, -0) ? '0' : Number(x.toPrecision(9)).toString());

/** ACL's raw clip of the GLB's poses: centimetres, 3 cm virtual vertices. */
function aclClip({ root, order, channels, times }, rate) {
  const n = times.length;
  const lines = [
    'version = 5',
    'clip =',
    '{',
    '\tname = "clip"',
    `\tnum_samples = ${n}`,
    `\tsample_rate = ${rate}`,
    '}',
  ];
  lines.push('bones =', '[');
  const names = order.map((_, i) => `b${i}`);
  order.forEach(({ parent }, i) => {
    const p = parent === null ? '' : names[order.findIndex((o) => o.node === parent)];
    lines.push('\t{', `\t\tname = "${names[i]}"`, `\t\tparent = "${p}"`, '\t\tvertex_distance = 3.0', '\t}');
  });
  lines.push(']', 'tracks =', '[');
  order.forEach(({ node }, i) => {
    const index = root.listNodes().indexOf(node);
    const track = (path, width, fallback, scale) => {
      const sampler = channels.get(`${index}/${path}`);
      const out = [];
      const values = sampler ? sampler.getOutput().getArray() : null;
      for (let k = 0; k < n; k++) {
        const v = [];
        for (let c = 0; c < width; c++) v.push(fmt((values ? values[k * width + c] : fallback[c]) * scale));
        out.push(`\t\t\t[ ${v.join(', ')} ]`);
      }
      return out;
    };
    lines.push('\t{', `\t\tname = "${names[i]}"`);
    lines.push('\t\trotations =', '\t\t[', ...track('rotation', 4, node.getRotation(), 1), '\t\t]');
    lines.push(
      '\t\ttranslations =',
      '\t\t[',
      ...track('translation', 3, node.getTranslation(), 100),
      '\t\t]',
    );
    lines.push('\t\tscales =', '\t\t[', ...track('scale', 3, node.getScale(), 1), '\t\t]');
    lines.push('\t}');
  });
  lines.push(']', '');
  return lines.join('\n');
}

/** ACL's decoded poses written into a copy of the original GLB: every node keyed at the original times. */
async function decodedGlb(original, decodedText, target) {
  const p = await poses(original);
  const { doc, root, order, channels, times } = p;
  const rows = decodedText.trim().split('\n');
  const [samples, tracks] = rows[0].split(' ').map(Number);
  const values = new Float32Array(samples * tracks * 10);
  for (let r = 1; r < rows.length; r++) {
    const parts = rows[r].split(' ');
    for (let c = 0; c < 10; c++) values[(r - 1) * 10 + c] = Number(parts[c]);
  }
  const anim = root.listAnimations()[0];
  const buffer = root.listBuffers()[0];
  order.forEach(({ node }, t) => {
    const index = root.listNodes().indexOf(node);
    for (const [path, width, offset, scale] of [
      ['rotation', 4, 0, 1],
      ['translation', 3, 4, 0.01],
      ['scale', 3, 7, 1],
    ]) {
      const out = new Float32Array(samples * width);
      for (let s = 0; s < samples; s++)
        for (let c = 0; c < width; c++)
          out[s * width + c] = values[(s * tracks + t) * 10 + offset + c] * scale;
      let sampler = channels.get(`${index}/${path}`);
      if (!sampler) {
        sampler = doc
          .createAnimationSampler()
          .setInput(doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer))
          .setOutput(doc.createAccessor().setBuffer(buffer))
          .setInterpolation('LINEAR');
        anim.addSampler(sampler);
        anim.addChannel(
          doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler),
        );
      }
      sampler
        .getOutput()
        .setType(width === 4 ? 'VEC4' : 'VEC3')
        .setArray(out);
    }
  });
  await new NodeIO().write(target, doc);
}

const rows = [];
for (const rel of FILES) {
  const bvh = join(DATA, rel);
  if (!existsSync(bvh)) continue;
  const name = basename(rel, '.bvh');
  const original = join(work, `${name}.glb`);
  rotsig('convert', bvh, '-o', original);
  const p = await poses(original);
  const rate = Math.round(1 / (p.times[1] - p.times[0]));
  const rateExact = (p.times.length - 1) / (p.times[p.times.length - 1] - p.times[0]);
  const sjson = join(work, `${name}.acl.sjson`);
  writeFileSync(sjson, aclClip(p, rateExact));
  const decodedTxt = join(work, `${name}.decoded.txt`);
  const acl = JSON.parse(execFileSync(tool, [sjson, decodedTxt], { encoding: 'utf8' }));
  const aclGlb = join(work, `${name}-acl-decoded.glb`);
  await decodedGlb(original, readFileSync(decodedTxt, 'utf8'), aclGlb);
  const e = evaluate(original, aclGlb);
  const errorCm = e.maxError * 100;
  const row = {
    file: rel,
    frames: p.times.length,
    nodes: p.order.length,
    rate,
    raw: 10 * 4 * p.order.length * p.times.length,
    acl: { bytes: acl.bytes, maxCm: errorCm, p99Cm: e.p99Error * 100, ownMetricCm: acl.aclMaxError },
    rotsig: [],
  };
  process.stderr.write(`${rel}: ACL ${acl.bytes} B, max ${errorCm.toPrecision(4)} cm\n`);
  const variants = [
    ['float32', []],
    ['float32 --meshopt', ['--meshopt']],
    ['int16', ['--quantize', 'int16']],
    ['int16 --meshopt', ['--quantize', 'int16', '--meshopt']],
    ['variable (meshopt)', ['--quantize', 'variable']],
  ];
  for (const [label, extra] of variants) {
    const file = join(work, `${name}-rotsig-${label.replace(/\W+/g, '-')}.glb`);
    try {
      rotsig('reduce', bvh, '-o', file, '--preset', 'acl', '--tolerance', String(errorCm), ...extra);
    } catch (error) {
      const why = String(error.stderr ?? error.message)
        .trim()
        .split('\n')
        .pop();
      row.rotsig.push({ label, note: why });
      continue;
    }
    const r = evaluate(original, await plain(file));
    const bytes = animationBytes(file);
    row.rotsig.push({
      label,
      bytes,
      maxCm: r.maxError * 100,
      keys: r.keys.candidate,
      vsAcl: bytes / acl.bytes,
    });
    process.stderr.write(
      `${rel}: rotsig ${label}: ${bytes} B (${(bytes / acl.bytes).toFixed(2)}x ACL), max ${(r.maxError * 100).toPrecision(4)} cm\n`,
    );
  }
  rows.push(row);
}

const f = (x, d = 4) => (x === undefined ? '' : Number(x).toPrecision(d));
const md = [
  '# Key reduction: ACL beside rotsig, one evaluator',
  '',
  `Made by \`bench/acl.js\` (ACL ${aclCommit}, default compression settings, built with g++ from its headers).`,
  'Each capture is converted to a GLB by `rotsig convert` (every frame a key); ACL compresses those local poses',
  '(centimetres, 3 cm virtual vertices) and its decoded poses are measured by `scripts/gltf_object_error.py`',
  "(six virtual vertices per node at 3 cm, every original frame), as are rotsig's outputs made with",
  "`rotsig reduce --preset acl --tolerance <ACL's measured max error>`. Bytes: ACL's compressed clip; for glTF the",
  'buffer views of the animation accessors (compressed bytes under EXT_meshopt_compression).',
  'Variant `variable (meshopt)` is `--quantize variable`: every key kept, each rotation track at its own bit width',
  "(4 to 16) in EXT_meshopt_compression's quaternion filter and each translation track at its own mantissa width",
  "(1 to 24) in its exponential filter; the evaluator reads it decoded by glTF-Transform's EXTMeshoptCompression",
  "with meshoptimizer's decoder, as every meshopt row.",
  '',
  '| file | frames x nodes | raw bytes | ACL bytes | ACL max (cm) | rotsig variant | rotsig bytes | x ACL | rotsig max (cm) | keys |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const r of rows)
  for (const v of r.rotsig)
    md.push(
      `| ${r.file} | ${r.frames} x ${r.nodes} | ${r.raw} | ${r.acl.bytes} | ${f(r.acl.maxCm)} | ${v.label} | ${v.bytes ?? v.note} | ${v.vsAcl === undefined ? '' : v.vsAcl.toFixed(2)} | ${f(v.maxCm)} | ${v.keys ?? ''} |`,
    );
md.push('');
const best = rows.map((r) => Math.min(...r.rotsig.filter((v) => v.bytes).map((v) => v.vsAcl)));
md.push(
  `Smallest rotsig glTF against ACL per file: ${best.map((b, i) => `${basename(rows[i].file, '.bvh')} ${b.toFixed(2)}x`).join(', ')}.`,
);
md.push(
  `At most 1.0x on ${best.filter((b) => b <= 1).length} of ${best.length} files; at most 1.3x on ${best.filter((b) => b <= 1.3).length} of ${best.length}.`,
  '',
);
writeFileSync(OUT, md.join('\n'));
writeFileSync(OUT.replace(/\.md$/, '.json'), `${JSON.stringify({ acl: aclCommit, rows }, null, 1)}\n`);
process.stderr.write(`wrote ${OUT}\n`);
