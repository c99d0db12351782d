// `reduce` on glTF: constant tracks (every key equal) keep one key, and none when that key is the node's
// rest value, unless another animation of the file animates the same node and path; `--shell mesh` takes
// each joint's shell from the skinned mesh. Checked against the raw accessors and an evaluator written
// from the glTF specification (test/support/gltf-reference.ts), not rotsig's reader.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { skinShells } from '../../src/io/gltf/skin-shells.js';
import { readGltfFile } from '../../src/node/gltf.js';
import type { ReduceSummary } from '../../src/node/reduce-task.js';
import { runReduceTask } from '../../src/node/reduce-task.js';
import { type ReduceKeysOptions, reduceKeys } from '../../src/ops/reduce/reduce-keys.js';
import { type ConstantRigOptions, constantRig } from '../support/constant-rig.js';
import { meshoptDecoded } from '../support/gltf-data.js';
import {
  animationsOf,
  loadGltf,
  type RefGltf,
  readAccessor,
  transformPoint,
  worldMatrices,
} from '../support/gltf-reference.js';

/** Float32 keys in the written file: the evaluator may see the bound exceeded by this much. */
const FLOAT32_SLACK = 1 + 1e-3;

async function reduceRig(rig: ConstantRigOptions, options: ReduceKeysOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'rotsig-reduce-constant-'));
  const input = join(dir, 'rig.glb');
  const output = join(dir, 'reduced.glb');
  writeFileSync(input, await constantRig(rig));
  const r = await runReduceTask(
    { input, output, steps: [], emit: { kind: 'reduce', options } },
    (e: unknown) => ({ message: e instanceof Error ? e.message : String(e), code: '' }),
  );
  expect(r.error?.message, 'the reduce task failed').toBeUndefined();
  const report = (r.data as ReduceSummary).animations[0].report;
  // variable bit rates are written with EXT_meshopt_compression: the evaluator reads the decoded file
  const decoded = join(dir, 'decoded.glb');
  writeFileSync(decoded, await meshoptDecoded(new Uint8Array(readFileSync(output))));
  return { report, input, a: loadGltf(input), b: loadGltf(decoded) };
}

const DEFAULTS: Record<string, number[]> = {
  translation: [0, 0, 0],
  rotation: [0, 0, 0, 1],
  scale: [1, 1, 1],
};

/** From the raw accessors: animation 0's constant channels, and those at the node's rest value that no other animation targets. */
function constantChannels(doc: RefGltf): { constant: number; atRest: number; kept: string[] } {
  const [first, ...others] = animationsOf(doc);
  const elsewhere = new Set(others.flatMap((a) => a.channels.map((c) => `${c.node} ${c.path}`)));
  let constant = 0;
  let atRest = 0;
  const kept: string[] = [];
  for (const ch of first.channels) {
    const w = ch.width;
    const key = (k: number) => Array.from(ch.values.subarray(k * w, k * w + w));
    const same = (x: number[], y: number[]) =>
      x.every((v, c) => v === y[c]) || (ch.path === 'rotation' && x.every((v, c) => v === -y[c]));
    if (!ch.times.every((_, k) => same(key(k), key(0)))) continue;
    constant++;
    const rest = doc.json.nodes[ch.node][ch.path] ?? DEFAULTS[ch.path];
    if (!same(key(0), rest)) continue;
    if (elsewhere.has(`${ch.node} ${ch.path}`)) kept.push(`${ch.node} ${ch.path}`);
    else atRest++;
  }
  return { constant, atRest, kept };
}

/** Every key time of animation 0 of `doc`. */
function keyTimes(doc: RefGltf): number[] {
  const s = new Set<number>();
  for (const c of animationsOf(doc)[0].channels) for (const t of c.times) s.add(t);
  return [...s].sort((x, y) => x - y);
}

describe('reduce: constant tracks', () => {
  // 16-bit keys keep A's rotation at rest as one key: the search checked its rounded value (not
  // representable in 16 bits), and B and C below were placed against that
  it.each([
    ['float', {}, 0],
    ['16-bit', { quantization: 'int16' as const }, 1],
    ['variable bit rates', { quantization: 'variable' as const }, 0],
  ])(
    '%s: drops constant channels at the rest value, keeps the others as one key, and the pose stays within the bound',
    async (_, quantize, keptAtRest) => {
      const { report, a, b } = await reduceRig({}, { tolerance: 1e-4, ...quantize });
      const counted = constantChannels(a);
      expect(counted).toEqual({ constant: 5, atRest: 4, kept: [] });
      expect(report.constantTracks).toBe(counted.constant);
      expect(report.droppedTracks).toBe(counted.atRest - keptAtRest);
      const before = animationsOf(a)[0].channels;
      const after = animationsOf(b)[0].channels;
      expect(after.length).toBe(before.length - counted.atRest + keptAtRest);
      if (keptAtRest) expect(after.find((c) => c.node === 1 && c.path === 'rotation')?.times.length).toBe(1);
      expect(report.tracks).toBe(after.length);
      // the constant channel not at rest (B's rotation) is one key
      const bRotation = after.find((c) => c.node === 2 && c.path === 'rotation');
      expect(bRotation?.times.length).toBe(1);
      // played by the reference evaluator (a missing channel is the node's own TRS): every node within the
      // tolerance at every key time, at six points 0.03 from it along its local axes
      let max = 0;
      const [A, B] = [animationsOf(a)[0], animationsOf(b)[0]];
      for (const t of keyTimes(a)) {
        const wa = worldMatrices(a, A, t);
        const wb = worldMatrices(b, B, t);
        for (let i = 0; i < 4; i++)
          for (const p of [
            [0.03, 0, 0],
            [-0.03, 0, 0],
            [0, 0.03, 0],
            [0, -0.03, 0],
            [0, 0, 0.03],
            [0, 0, -0.03],
          ]) {
            const x = transformPoint(wa[i], p);
            const y = transformPoint(wb[i], p);
            max = Math.max(max, Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
          }
      }
      expect(max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
      // the report is that measurement (the dropped channels change nothing: their rest value is the key)
      expect(Math.abs(report.maxError - max)).toBeLessThanOrEqual(1e-9 + 1e-3 * max);
    },
  );

  it('keeps a constant channel at rest that another animation of the file animates', async () => {
    const { report, a, b } = await reduceRig({ second: true }, { tolerance: 1e-4 });
    const counted = constantChannels(a);
    expect(counted).toEqual({ constant: 5, atRest: 3, kept: ['3 translation'] });
    expect(report.constantTracks).toBe(5);
    expect(report.droppedTracks).toBe(3);
    const kept = animationsOf(b)[0].channels.find((c) => c.node === 3 && c.path === 'translation');
    expect(kept?.times.length).toBe(1);
    expect(Array.from(kept!.values)).toEqual([...a.json.nodes[3].translation]);
    // the other animation still animates it
    expect(animationsOf(b)[1].channels.map((c) => `${c.node} ${c.path}`)).toEqual(['3 translation']);
  });
});

/** From the raw accessors: per node, the farthest vertex with weight > 0 on it, through its inverse bind matrix. */
function meshShells(doc: RefGltf): Map<number, number> {
  const out = new Map<number, number>();
  for (const node of doc.json.nodes) {
    if (node.skin === undefined) continue;
    const skin = doc.json.skins[node.skin];
    const ibm = readAccessor(doc, skin.inverseBindMatrices).data;
    for (const prim of doc.json.meshes[node.mesh].primitives) {
      const pos = readAccessor(doc, prim.attributes.POSITION).data;
      const jn = readAccessor(doc, prim.attributes.JOINTS_0).data;
      const wt = readAccessor(doc, prim.attributes.WEIGHTS_0).data;
      for (let v = 0; v < pos.length / 3; v++)
        for (let c = 0; c < 4; c++) {
          if (!(wt[v * 4 + c] > 0)) continue;
          const s = jn[v * 4 + c];
          const y = transformPoint(
            ibm.subarray(s * 16, s * 16 + 16),
            Array.from(pos.subarray(v * 3, v * 3 + 3)),
          );
          const n = skin.joints[s];
          out.set(n, Math.max(out.get(n) ?? 0, Math.hypot(...y)));
        }
    }
  }
  return out;
}

/** Largest displacement of the skinned vertices (linear blend skinning) between the two files, at every key time. */
function skinnedError(a: RefGltf, b: RefGltf): number {
  const node = a.json.nodes.findIndex((n: { skin?: number }) => n.skin !== undefined);
  const skin = a.json.skins[a.json.nodes[node].skin];
  const ibm = readAccessor(a, skin.inverseBindMatrices).data;
  const prim = a.json.meshes[a.json.nodes[node].mesh].primitives[0];
  const pos = readAccessor(a, prim.attributes.POSITION).data;
  const jn = readAccessor(a, prim.attributes.JOINTS_0).data;
  const wt = readAccessor(a, prim.attributes.WEIGHTS_0).data;
  const skinned = (world: Float64Array[], v: number) => {
    const out = [0, 0, 0];
    for (let c = 0; c < 4; c++) {
      const w = wt[v * 4 + c];
      if (w === 0) continue;
      const s = jn[v * 4 + c];
      const local = transformPoint(
        ibm.subarray(s * 16, s * 16 + 16),
        Array.from(pos.subarray(v * 3, v * 3 + 3)),
      );
      const p = transformPoint(world[skin.joints[s]], local);
      for (let k = 0; k < 3; k++) out[k] += w * p[k];
    }
    return out;
  };
  let max = 0;
  for (const t of keyTimes(a)) {
    const wa = worldMatrices(a, animationsOf(a)[0], t);
    const wb = worldMatrices(b, animationsOf(b)[0], t);
    for (let v = 0; v < pos.length / 3; v++) {
      const x = skinned(wa, v);
      const y = skinned(wb, v);
      max = Math.max(max, Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
    }
  }
  return max;
}

describe('reduce --shell mesh', () => {
  const rig = { skin: { reach: 1.5 } };

  it("skinShells: each joint's farthest weighted vertex in its own space, from the raw accessors", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-reduce-constant-'));
    const input = join(dir, 'rig.glb');
    writeFileSync(input, await constantRig(rig));
    const read = await readGltfFile(input, { animation: 0 });
    const clip = read.clips[0];
    const shells = skinShells(clip);
    const expected = meshShells(loadGltf(input));
    expect(expected.size).toBe(4);
    const source = clip.source as unknown as { nodes: Int32Array };
    for (let j = 0; j < clip.skeleton.names.length; j++) {
      const e = expected.get(source.nodes[j]);
      if (e === undefined) expect(shells[j]).toBe(-1);
      else expect(Math.abs(shells[j] - e)).toBeLessThanOrEqual(1e-6 * e);
    }
  });

  it('holds the tolerance at the skinned vertices, which the default 3 cm shell does not', async () => {
    const mesh = await reduceRig(rig, { tolerance: 1e-4, shellDistance: 'mesh' });
    expect(mesh.report.meshShellJoints).toBe(4);
    const onMesh = skinnedError(mesh.a, mesh.b);
    expect(onMesh).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    // the report is the evaluator's error at six points per joint, ± each local axis at that joint's
    // mesh shell: not at the vertices themselves, which may sit in directions where the error is larger
    const shells = meshShells(mesh.a);
    let virtual = 0;
    for (const t of keyTimes(mesh.a)) {
      const wa = worldMatrices(mesh.a, animationsOf(mesh.a)[0], t);
      const wb = worldMatrices(mesh.b, animationsOf(mesh.b)[0], t);
      for (const [node, r] of shells)
        for (let k = 0; k < 6; k++) {
          const p = [0, 0, 0];
          p[k >> 1] = k & 1 ? -r : r;
          const x = transformPoint(wa[node], p);
          const y = transformPoint(wb[node], p);
          virtual = Math.max(virtual, Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]));
        }
    }
    expect(Math.abs(mesh.report.maxError - virtual)).toBeLessThanOrEqual(1e-3 * virtual);
    const plain = await reduceRig(rig, { tolerance: 1e-4 });
    expect(skinnedError(plain.a, plain.b)).toBeGreaterThan(1e-4 * FLOAT32_SLACK);
    expect(animationsOf(mesh.b)[0].channels.reduce((n, c) => n + c.times.length, 0)).toBeGreaterThan(
      animationsOf(plain.b)[0].channels.reduce((n, c) => n + c.times.length, 0),
    );
  });

  it('refuses --shell mesh on a BVH input (no mesh), and shellDistance mesh without meshShells', async () => {
    const input = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'samples', '01_01.bvh');
    const output = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-constant-')), 'out.glb');
    const r = await runReduceTask(
      { input, output, steps: [], emit: { kind: 'reduce', options: { shellDistance: 'mesh' } } },
      (e: unknown) => ({ message: e instanceof Error ? e.message : String(e), code: '' }),
    );
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/--shell mesh/);
    const read = await readGltfFile(input.replace(/samples.*$/, 'test/fixtures/gltf/Fox.glb'), {
      animation: 0,
    });
    expect(() => reduceKeys(read.clips[0], { shellDistance: 'mesh' })).toThrow(OptionError);
  });
});
