// Keyed clips kept exactly, checked by an evaluator of the test's own (test/support/gltf-reference.ts,
// written from the glTF 2.0 specification, no rotsig code): on every animated glTF/GLB of the shared
// data folder (copied into test/fixtures/gltf, see its README) and a jittered 37.5 Hz file made here,
// the operations that keep timing (unroll, smooth, reduce, convert, subclip) write the input's key times
// bit for bit, resample writes an exact grid that keeps the end time, and the error `reduce --json`
// reports is the error of the written file against the input at the input's key times (shells in scene
// units, as reduce documents them), on every file.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_GLTF_DIR, type SHARED_GLTF_FILES } from '../support/gltf-data.js';
import {
  animationsOf,
  loadGltf,
  parentsOf,
  type RefAnimation,
  type RefGltf,
  rotationAngle,
  sampleChannel,
  transformPoint,
  worldMatrices,
} from '../support/gltf-reference.js';
import { ensureBuilt, rotsig, tempDir } from './helpers.js';

/** Files above this size are left out of the fixtures (and of this test), each with a logged reason. */
const MAX_FIXTURE_BYTES = 300_000;

/** Shared files by their fixture path; `null`: not copied (over {@link MAX_FIXTURE_BYTES}). */
const FIXTURE_OF: Record<(typeof SHARED_GLTF_FILES)[number], string | null> = {
  'khronos-samples/Fox.glb': 'Fox.glb',
  'khronos-samples/rigged_figure.glb': 'rigged_figure.glb',
  'khronos-samples/BoxAnimated.glb': 'BoxAnimated.glb',
  'khronos-samples/AnimatedMorphCube.glb': 'AnimatedMorphCube.glb',
  'khronos-samples/cesium_man.gltf': null, // 687,931 bytes
  'khronos-samples/rigged_simple.gltf': 'rigged_simple.gltf',
  'khronos-samples/interpolation_test.gltf': 'interpolation_test.gltf',
  'robot-expressive/RobotExpressive.glb': null, // 463,988 bytes (its 30 Hz gltfpack version is in)
  'gltfpack/RobotExpressive.gltfpack.glb': 'gltfpack/RobotExpressive.gltfpack.glb',
  'gltfpack/AnimatedMorphCube.gltfpack.glb': 'gltfpack/AnimatedMorphCube.gltfpack.glb',
  'asset-generator/Animation_SamplerType_00.gltf': 'asset-generator/Animation_SamplerType_00.gltf',
  'asset-generator/Animation_SamplerType_01.gltf': 'asset-generator/Animation_SamplerType_01.gltf',
  'asset-generator/Animation_SamplerType_02.gltf': 'asset-generator/Animation_SamplerType_02.gltf',
  'magnum/animation.gltf': 'magnum/animation.gltf',
  'magnum/animation.glb': 'magnum/animation.glb',
  'magnum/animation-splines-sharing.gltf': 'magnum/animation-splines-sharing.gltf',
  'magnum/animation-patching.gltf': 'magnum/animation-patching.gltf',
  'blender-io/07_nla-anim.gltf': 'blender-io/07_nla-anim.gltf',
};

const SKIPPED = Object.entries(FIXTURE_OF).filter(([, f]) => f === null);
for (const [shared] of SKIPPED)
  console.log(`keyed-truth: ${shared} left out: over ${MAX_FIXTURE_BYTES} bytes, not in test/fixtures`);

/** Writes the jittered 37.5 Hz fixture: COLLADA2GLTF-style key times accumulated in float32. */
function writeJittered(path: string): void {
  const keys = 80;
  const times = new Float32Array(keys);
  let x = 12345;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  for (let k = 1; k < keys; k++)
    times[k] = Math.fround(times[k - 1] + Math.fround(1 / 37.5 + (rand() - 0.5) * 7e-5));
  // three nodes in a chain: root translation and rotation, two child rotations; smooth turns
  const rot = (j: number) => {
    const v = new Float32Array(keys * 4);
    for (let k = 0; k < keys; k++) {
      const t = times[k];
      const a = 0.8 * Math.sin(2 * Math.PI * (0.5 + 0.3 * j) * t + j);
      const axis = [Math.sin(j + 1), Math.cos(j + 1), 0.5];
      const l = Math.hypot(...axis);
      for (let c = 0; c < 3; c++) v[k * 4 + c] = (Math.sin(a / 2) * axis[c]) / l;
      v[k * 4 + 3] = Math.cos(a / 2);
    }
    return v;
  };
  const tra = new Float32Array(keys * 3);
  for (let k = 0; k < keys; k++) {
    tra[k * 3] = 0.3 * Math.sin(2 * Math.PI * 0.4 * times[k]);
    tra[k * 3 + 1] = 1;
    tra[k * 3 + 2] = 0.1 * times[k];
  }
  const parts = [times, tra, rot(0), rot(1), rot(2)];
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  const views = [];
  let at = 0;
  for (const p of parts) {
    bytes.set(new Uint8Array(p.buffer), at);
    views.push({ buffer: 0, byteOffset: at, byteLength: p.byteLength });
    at += p.byteLength;
  }
  const json = {
    asset: { version: '2.0', generator: 'rotsig test: jittered 37.5 Hz keys' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [
      { name: 'root', children: [1] },
      { name: 'spine', translation: [0, 0.5, 0], children: [2] },
      { name: 'head', translation: [0, 0.4, 0], children: [3] },
      { name: 'tip', translation: [0, 0.2, 0] },
    ],
    buffers: [
      {
        byteLength: bytes.length,
        uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`,
      },
    ],
    bufferViews: views,
    accessors: [
      {
        bufferView: 0,
        componentType: 5126,
        count: keys,
        type: 'SCALAR',
        min: [times[0]],
        max: [times[keys - 1]],
      },
      { bufferView: 1, componentType: 5126, count: keys, type: 'VEC3' },
      { bufferView: 2, componentType: 5126, count: keys, type: 'VEC4' },
      { bufferView: 3, componentType: 5126, count: keys, type: 'VEC4' },
      { bufferView: 4, componentType: 5126, count: keys, type: 'VEC4' },
    ],
    animations: [
      {
        name: 'jitter',
        samplers: [1, 2, 3, 4].map((output) => ({ input: 0, output, interpolation: 'LINEAR' })),
        channels: [
          { sampler: 0, target: { node: 0, path: 'translation' } },
          { sampler: 1, target: { node: 0, path: 'rotation' } },
          { sampler: 2, target: { node: 1, path: 'rotation' } },
          { sampler: 3, target: { node: 2, path: 'rotation' } },
        ],
      },
    ],
  };
  writeFileSync(path, JSON.stringify(json));
}

let work = '';
const INPUTS: { name: string; path: string }[] = [];

beforeAll(async () => {
  await ensureBuilt();
  work = tempDir();
  const jitter = join(work, 'in', 'jitter37.gltf');
  mkdirSync(join(work, 'in'), { recursive: true });
  writeJittered(jitter);
  for (const [, f] of Object.entries(FIXTURE_OF))
    if (f !== null) {
      const path = join(FIXTURE_GLTF_DIR, f);
      expect(statSync(path).size).toBeLessThanOrEqual(MAX_FIXTURE_BYTES);
      INPUTS.push({ name: f, path });
    }
  INPUTS.push({ name: 'jitter37.gltf', path: jitter });
}, 600_000);

/** The moving channels of each animation (morph weights are kept as they are, not checked here). */
function moving(doc: RefGltf): RefAnimation[] {
  // animations without channels (a file may hold empty ones) are not written back: matched in order without them
  return animationsOf(doc)
    .filter((a) => a.channels.length > 0)
    .map((a) => ({ ...a, channels: a.channels.filter((c) => c.path !== 'weights') }));
}

const same32 = (a: Float32Array, b: Float32Array) =>
  a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

interface Ran {
  json: {
    files: {
      input: string;
      output: string;
      ok: boolean;
      error?: { message: string };
      reduce?: { animations: { name: string; report: { maxError: number; shellDistance: number } }[] };
      smooth?: {
        animations: { name?: string; keys: number; rotation: number; translation: number; scale: number }[];
      };
    }[];
  };
  out: (input: string) => string;
}

/** Runs `rotsig <command> <every input> -o <dir>/ --json`, one output per input. */
const RUNS = new Map<string, Ran>();
function run(command: string, args: string[], ext?: string): Ran {
  const key = [command, ...args].join(' ');
  const done = RUNS.get(key);
  if (done) return done;
  const ran1 = runAll(command, args, ext);
  RUNS.set(key, ran1);
  return ran1;
}

function runAll(command: string, args: string[], ext?: string): Ran {
  const dir = join(work, command + args.join('').replace(/[^a-z0-9]/gi, ''));
  const ran: Ran['json']['files'] = [];
  // one call per input: the outputs of same-named inputs in different folders must not collide
  for (const input of INPUTS) {
    const out = join(dir, input.name.replace(/\//g, '_').replace(/\.(gltf|glb)$/, ext ?? '.$1'));
    mkdirSync(dir, { recursive: true });
    const r = rotsig([command, input.path, '-o', out, '--json', '--quiet', ...args]);
    const json = JSON.parse(r.stdout) as Ran['json'];
    ran.push({ ...json.files[0], output: out });
  }
  return {
    json: { files: ran },
    out: (input: string) => ran.find((f) => f.input === input)!.output,
  };
}

/** Every failing file of a run, with its message. */
function failures(r: Ran): string[] {
  return r.json.files.filter((f) => !f.ok).map((f) => `${basename(f.input)}: ${f.error?.message}`);
}

/** For each input channel, the output channel on the same node and path. */
function pairs(input: RefGltf, output: RefGltf) {
  const a = moving(input);
  const b = moving(output);
  expect(b.length).toBe(a.length);
  return a.flatMap((anim, i) =>
    anim.channels.map((ch) => ({
      anim: i,
      name: anim.name,
      input: ch,
      output: b[i].channels.find((c) => c.node === ch.node && c.path === ch.path),
    })),
  );
}

describe('keyed operations keep key times and report true errors (own glTF evaluator)', () => {
  it.each([
    ['unroll', []],
    ['smooth', []],
    ['convert', []],
  ] as const)('%s writes every track at the input key times, bit for bit (float32)', (command, args) => {
    const r = run(command, [...args], command === 'convert' ? '.glb' : undefined);
    expect(failures(r)).toEqual([]);
    const wrong: string[] = [];
    for (const input of INPUTS) {
      const a = loadGltf(input.path);
      const b = loadGltf(r.out(input.path));
      for (const p of pairs(a, b)) {
        if (p.output === undefined)
          wrong.push(`${input.name} '${p.name}' node ${p.input.node} ${p.input.path}: missing`);
        else if (!same32(p.input.times, p.output.times))
          wrong.push(
            `${input.name} '${p.name}' node ${p.input.node} ${p.input.path}: ${p.input.times.length} keys ${p.input.times[0]}..${p.input.times.at(-1)} -> ${p.output.times.length} keys ${p.output.times[0]}..${p.output.times.at(-1)}`,
          );
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(['unroll', 'convert'])(
    '%s changes no pose: the written file evaluates to the input at its keys and between them',
    (command) => {
      const r = run(command, [], command === 'convert' ? '.glb' : undefined);
      let worst = 0;
      for (const input of INPUTS) {
        const a = loadGltf(input.path);
        const b = loadGltf(r.out(input.path));
        // a CUBICSPLINE key negated with its tangents keeps its pose but not the curve to its neighbours
        for (const p of pairs(a, b))
          for (const t of keysAndBetween(p.input.times)) {
            const x = sampleChannel(p.input, t);
            const y = sampleChannel(p.output!, t);
            const d =
              p.input.path === 'rotation'
                ? rotationAngle(x, y)
                : Math.max(...x.map((v, c) => Math.abs(v - y[c]) / Math.max(1, Math.abs(v))));
            worst = Math.max(worst, d);
          }
      }
      // float32 keys written from float64 values: a few units of float32 rounding
      expect(worst).toBeLessThan(1e-6);
    },
  );

  it('smooth keeps every interpolation and reports the pose change the written file plays at the input keys', () => {
    const r = run('smooth', []);
    const wrong: string[] = [];
    const lines: string[] = [];
    for (const input of INPUTS) {
      const f = r.json.files.find((x) => x.input === input.path)!;
      const a = loadGltf(input.path);
      const b = loadGltf(r.out(input.path));
      const animsIn = moving(a);
      const animsOut = moving(b);
      const reports = f.smooth?.animations ?? [];
      if (reports.length !== animsIn.length)
        wrong.push(`${input.name}: ${reports.length} reports for ${animsIn.length} animations`);
      animsIn.forEach((anim, i) => {
        const measured = { rotation: 0, translation: 0, scale: 0 };
        // the size of the values: float32 rounds a translation of 100 units by 4e-6
        const size = { rotation: 1, translation: 1, scale: 1 };
        for (const ch of anim.channels) {
          const o = animsOut[i]?.channels.find((c) => c.node === ch.node && c.path === ch.path);
          if (o === undefined) continue;
          if (o.interpolation !== ch.interpolation)
            wrong.push(
              `${input.name} '${anim.name}' node ${ch.node} ${ch.path}: ${ch.interpolation} -> ${o.interpolation}`,
            );
          for (const t of ch.times) {
            const x = sampleChannel(ch, t);
            const y = sampleChannel(o, t);
            if (ch.path === 'translation' || ch.path === 'scale')
              size[ch.path] = Math.max(size[ch.path], ...x.map(Math.abs));
            if (ch.path === 'rotation') measured.rotation = Math.max(measured.rotation, rotationAngle(x, y));
            else if (ch.path === 'translation')
              measured.translation = Math.max(measured.translation, Math.hypot(...x.map((v, c) => v - y[c])));
            else measured.scale = Math.max(measured.scale, ...x.map((v, c) => Math.abs(v - y[c])));
          }
        }
        const report = reports[i];
        if (report === undefined) return;
        lines.push(
          `${input.name} '${anim.name}': rotation ${report.rotation.toExponential(3)} reported, ${measured.rotation.toExponential(3)} measured; translation ${report.translation.toExponential(3)}, ${measured.translation.toExponential(3)}`,
        );
        // float32 keys written from float64 values: a few units of float32 rounding of the values
        for (const k of ['rotation', 'translation', 'scale'] as const)
          if (Math.abs(report[k] - measured[k]) > 1e-6 * size[k])
            wrong.push(`${input.name} '${anim.name}' ${k}: reported ${report[k]}, measured ${measured[k]}`);
      });
    }
    for (const l of lines) console.log(`keyed-truth smooth change: ${l}`);
    expect(wrong).toEqual([]);
  });

  it('subclip (no rebase) keeps the input key times inside the cut, bit for bit', () => {
    const r = run('subclip', ['--start', '1']);
    expect(failures(r).filter((f) => !/are not in a clip/.test(f))).toEqual([]);
    const wrong: string[] = [];
    for (const input of INPUTS) {
      const f = r.json.files.find((x) => x.input === input.path)!;
      if (!f.ok) continue;
      const a = loadGltf(input.path);
      const b = loadGltf(r.out(input.path));
      for (const p of pairs(a, b)) {
        if (p.output === undefined) continue; // a track wholly before the cut
        const out = p.output.times;
        const inside = p.input.times.filter((t) => t >= out[0] && t <= out[out.length - 1]);
        // every key of the input inside the cut is written, and every written key inside is an input key
        const kept = Array.from(out).filter((t) => p.input.times.includes(t));
        if (kept.length < inside.length || out.length - kept.length > 2)
          wrong.push(
            `${input.name} '${p.name}' node ${p.input.node} ${p.input.path}: ${inside.length} input keys inside, ${kept.length} kept bit-equal of ${out.length}`,
          );
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reduce keeps a subset of the input key times, bit for bit, and reports the error the file has', () => {
    const r = run('reduce', []);
    expect(failures(r)).toEqual([]);
    const wrong: string[] = [];
    const errors: string[] = [];
    for (const input of INPUTS) {
      const f = r.json.files.find((x) => x.input === input.path)!;
      const a = loadGltf(input.path);
      const b = loadGltf(r.out(input.path));
      for (const p of pairs(a, b)) {
        if (p.output === undefined) {
          wrong.push(`${input.name} '${p.name}' node ${p.input.node} ${p.input.path}: missing`);
          continue;
        }
        const stray = Array.from(p.output.times).filter((t) => !p.input.times.includes(t));
        if (stray.length > 0)
          wrong.push(
            `${input.name} '${p.name}' node ${p.input.node} ${p.input.path}: ${stray.length} keys not at input key times (${stray.slice(0, 3).join(', ')})`,
          );
      }
      const animsIn = moving(a);
      const animsOut = moving(b);
      const reports = f.reduce?.animations ?? [];
      let n = 0;
      animsIn.forEach((anim, i) => {
        if (anim.channels.length === 0) return;
        const report = reports[n++]?.report;
        if (!report) {
          errors.push(`${input.name} '${anim.name}': no report`);
          return;
        }
        const measured = objectError(a, anim, animsOut[i], report.shellDistance);
        const tol = 1e-6 * Math.max(1, report.maxError) + 2e-7;
        if (Math.abs(measured - report.maxError) > tol)
          errors.push(`${input.name} '${anim.name}': reported ${report.maxError}, measured ${measured}`);
      });
    }
    expect([...wrong, ...errors]).toEqual([]);
  });

  it('resample --rate 30 writes an exact grid k/30 from the first key', () => {
    expect(resampleProblems().wrong).toEqual([]);
  });

  it('resample --rate 30 keeps the end time, bit for bit', () => {
    expect(resampleProblems().ends).toEqual([]);
  });
});

/** The key times and the quarter points between them. */
function keysAndBetween(times: Float32Array): number[] {
  const out = Array.from(times);
  for (let k = 0; k + 1 < times.length; k++)
    for (const q of [0.25, 0.5, 0.75]) out.push(times[k] + q * (times[k + 1] - times[k]));
  return out;
}

/** Key times off the grid (`wrong`) and end keys not at the input's end (`ends`) of resample --rate 30. */
function resampleProblems(): { wrong: string[]; ends: string[] } {
  const R = 30;
  const r = run('resample', ['--rate', String(R)]);
  expect(failures(r)).toEqual([]);
  const wrong: string[] = [];
  const ends: string[] = [];
  for (const input of INPUTS) {
    const a = moving(loadGltf(input.path));
    const b = moving(loadGltf(r.out(input.path)));
    a.forEach((anim, i) => {
      if (anim.channels.length === 0) return;
      let first = Number.POSITIVE_INFINITY;
      let last = Number.NEGATIVE_INFINITY;
      for (const c of anim.channels) {
        first = Math.min(first, c.times[0]);
        last = Math.max(last, c.times[c.times.length - 1]);
      }
      for (const c of b[i]?.channels ?? []) {
        const t = c.times;
        if (t.length === 1) continue;
        const off = Array.from(t.subarray(0, -1)).findIndex(
          (x, k) => Math.abs(x - (first + k / R)) > 2 ** -23 * Math.max(1, Math.abs(x)),
        );
        if (off >= 0)
          wrong.push(
            `${input.name} '${anim.name}' node ${c.node} ${c.path}: key ${off} at ${t[off]}, not ${first + off / R}`,
          );
        if (t[t.length - 1] !== Math.fround(last))
          ends.push(
            `${input.name} '${anim.name}' node ${c.node} ${c.path}: ends at ${t[t.length - 1]}, the input at ${last}`,
          );
      }
    });
  }
  return { wrong, ends };
}

/**
 * The object-space error of ACL's metric between two animations of one document: the largest
 * displacement, over the input's key times and the animated nodes (and their ancestors), of six virtual
 * vertices at ± each local axis at `shell` from the node.
 */
function objectError(doc: RefGltf, a: RefAnimation, b: RefAnimation, shell: number): number {
  const parents = parentsOf(doc);
  const nodes = new Set<number>();
  for (const c of a.channels) for (let n = c.node; n >= 0; n = parents[n]) nodes.add(n);
  for (const skin of doc.json.skins ?? []) for (const j of skin.joints as number[]) nodes.add(j);
  const times = new Set<number>();
  for (const c of a.channels) for (const t of c.times) times.add(t);
  let max = 0;
  // the shell in scene units, as reduce documents it: along each of the node's axes, the shell distance
  // divided by the node's rest world scale on that axis (RobotExpressive's armature is scaled 100)
  const rest = worldMatrices(doc, null, 0);
  const verticesOf = (n: number) =>
    [0, 1, 2].flatMap((axis) =>
      [shell, -shell].map((s) => {
        const v = [0, 0, 0];
        v[axis] = s / Math.hypot(rest[n][axis * 4], rest[n][axis * 4 + 1], rest[n][axis * 4 + 2]);
        return v;
      }),
    );
  const vertices = new Map([...nodes].map((n) => [n, verticesOf(n)]));
  for (const t of times) {
    const wa = worldMatrices(doc, a, t);
    const wb = worldMatrices(doc, b, t);
    for (const n of nodes)
      for (const v of vertices.get(n)!) {
        const p = transformPoint(wa[n], v);
        const q = transformPoint(wb[n], v);
        max = Math.max(max, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
      }
  }
  return max;
}

it('the jittered fixture steps by 0.02663 to 0.02673 s, float32 times meant as 37.5 Hz', () => {
  const times = animationsOf(loadGltf(INPUTS.at(-1)!.path))[0].channels[0].times;
  const steps = Array.from(times.subarray(1), (t, k) => t - times[k]);
  expect(Math.min(...steps)).toBeGreaterThanOrEqual(0.02663);
  expect(Math.max(...steps)).toBeLessThanOrEqual(0.02673);
  expect(new Set(steps).size).toBeGreaterThan(20);
});

it('every shared file is a fixture or left out for its size', () => {
  for (const [shared, f] of Object.entries(FIXTURE_OF)) {
    if (f === null) continue;
    expect(existsSync(join(FIXTURE_GLTF_DIR, f)), shared).toBe(true);
  }
  expect(SKIPPED.map(([s]) => s)).toEqual([
    'khronos-samples/cesium_man.gltf',
    'robot-expressive/RobotExpressive.glb',
  ]);
});
