// `rotsig reduce` end to end: outputs are read back with glTF-Transform's NodeIO and evaluated with
// three.js (slerp/lerp between keys, as a player does), independently of rotsig's reader and reducer.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { Object3D, Quaternion, Vector3 } from 'three';
import { beforeAll, describe, expect, it } from 'vitest';
import { KHRMeshQuantizationMarker } from '../../src/io/gltf/source.js';
import { parseBvh, writeGltf } from '../../src/io/index.js';
import { readGltfFile } from '../../src/node/gltf.js';
import type { KeyedClip } from '../../src/series/clip.js';
import { makeSkeleton } from '../../src/series/clip-create.js';
import { FIXTURE_GLTF_DIR, glbJson, validatorErrors } from '../support/gltf-data.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

const CMU = join(ROOT, 'samples', '01_01.bvh');
const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');

async function readDoc(path: string): Promise<Document> {
  return new NodeIO().registerExtensions([KHRMeshQuantizationMarker]).read(path);
}

/** A sampler's keys as three.js sees them: times, and values decoded (normalised integers / 32767). */
interface Keys {
  times: Float32Array;
  values: Float32Array;
}

function decode(doc: Document): Map<string, Keys> {
  const out = new Map<string, Keys>();
  const animation = doc.getRoot().listAnimations()[0];
  for (const channel of animation.listChannels()) {
    const sampler = channel.getSampler();
    if (sampler === null) continue;
    const input = sampler.getInput()!.getArray() as Float32Array;
    const output = sampler.getOutput()!;
    const raw = output.getArray()!;
    const values = new Float32Array(raw.length);
    const norm = output.getNormalized() ? (raw instanceof Int16Array ? 32767 : 127) : 1;
    for (let i = 0; i < raw.length; i++) values[i] = Math.max(raw[i] / norm, -1);
    out.set(`${channel.getTargetNode()!.getName()}/${channel.getTargetPath()}`, { times: input, values });
  }
  return out;
}

/** Evaluates keys at time `t` (LINEAR: slerp for rotations, normalised after; lerp otherwise). */
function evaluate(k: Keys, t: number, width: number, out: number[]): void {
  const n = k.times.length;
  let i = 0;
  while (i < n - 1 && k.times[i + 1] <= t) i++;
  if (i >= n - 1 || t <= k.times[0]) {
    const at = t <= k.times[0] ? 0 : n - 1;
    for (let c = 0; c < width; c++) out[c] = k.values[at * width + c];
  } else {
    const u = (t - k.times[i]) / (k.times[i + 1] - k.times[i]);
    if (width === 4) {
      const a = new Quaternion().fromArray(k.values, i * 4).normalize();
      const b = new Quaternion().fromArray(k.values, (i + 1) * 4).normalize();
      const q = new Quaternion().slerpQuaternions(a, b, u).normalize();
      out.splice(0, 4, q.x, q.y, q.z, q.w);
    } else
      for (let c = 0; c < width; c++)
        out[c] = k.values[i * width + c] * (1 - u) + k.values[(i + 1) * width + c] * u;
  }
  if (width === 4) {
    const l = Math.hypot(out[0], out[1], out[2], out[3]);
    for (let c = 0; c < 4; c++) out[c] /= l;
  }
}

/** three.js scene of the document's nodes, and a function that poses it at time `t`. */
function rig(doc: Document) {
  const keys = decode(doc);
  const nodes = doc.getRoot().listNodes();
  const objects = nodes.map((n) => {
    const o = new Object3D();
    o.name = n.getName();
    o.position.fromArray(n.getTranslation());
    o.quaternion.fromArray(n.getRotation());
    o.scale.fromArray(n.getScale());
    return o;
  });
  const root = new Object3D();
  nodes.forEach((n, i) => {
    const parent = n.getParentNode();
    (parent ? objects[nodes.indexOf(parent)] : root).add(objects[i]);
  });
  const v: number[] = [0, 0, 0, 0];
  const pose = (t: number) => {
    for (const o of objects) {
      const r = keys.get(`${o.name}/rotation`);
      if (r) {
        evaluate(r, t, 4, v);
        o.quaternion.set(v[0], v[1], v[2], v[3]);
      }
      const p = keys.get(`${o.name}/translation`);
      if (p) {
        evaluate(p, t, 3, v);
        o.position.set(v[0], v[1], v[2]);
      }
    }
    root.updateMatrixWorld(true);
  };
  return { objects, pose, keys };
}

/** Largest displacement of six virtual vertices per joint (± each axis at `shell`) between two rigs, over `times`. */
function objectError(a: ReturnType<typeof rig>, b: ReturnType<typeof rig>, times: number[], shell: number) {
  let max = 0;
  const pa = new Vector3();
  const pb = new Vector3();
  for (const t of times) {
    a.pose(t);
    b.pose(t);
    for (let j = 0; j < a.objects.length; j++) {
      for (let k = 0; k < 6; k++) {
        const local = new Vector3().setComponent(k >> 1, k & 1 ? -shell : shell);
        pa.copy(local).applyMatrix4(a.objects[j].matrixWorld);
        pb.copy(local).applyMatrix4(b.objects[j].matrixWorld);
        max = Math.max(max, pa.distanceTo(pb));
      }
    }
  }
  return max;
}

describe('rotsig reduce', () => {
  it('BVH to GLB at the ACL shell, 0.05 cm, 16-bit rotations: validator clean, within the bound as three.js plays it', async () => {
    const dir = tempDir();
    const out = join(dir, 'reduced.glb');
    const full = join(dir, 'full.glb');
    const r = rotsig([
      'reduce',
      CMU,
      '-o',
      out,
      '--preset',
      'acl',
      '--tolerance',
      '0.05',
      '--quantize',
      'int16',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/88064 -> \d+ keys .*tolerance 0\.0500 BVH units\), 16-bit rotations/);
    expect(rotsig(['convert', CMU, '-o', full]).code).toBe(0);
    expect(await validatorErrors(new Uint8Array(readFileSync(out)))).toEqual([]);
    const doc = await readDoc(out);
    expect(
      doc
        .getRoot()
        .listExtensionsUsed()
        .map((e) => e.extensionName),
    ).toEqual(['KHR_mesh_quantization']);
    expect(doc.getRoot().listExtensionsUsed()[0].isRequired()).toBe(true);
    const reduced = rig(doc);
    const original = rig(await readDoc(full));
    let keys = 0;
    let fullKeys = 0;
    for (const [name, k] of reduced.keys) {
      keys += k.times.length;
      if (name.endsWith('/rotation')) {
        const output = doc
          .getRoot()
          .listAccessors()
          .find((a) => a.getArray() instanceof Int16Array);
        expect(output?.getNormalized()).toBe(true);
      }
    }
    for (const k of original.keys.values()) fullKeys += k.times.length;
    expect(keys).toBeLessThan(fullKeys / 2);
    // every 5th original frame (a 2752-frame file); 0.05 cm = 0.0005 m after the 0.01 scale, float32 slack
    const times = [...original.keys.values()][0].times.filter((_, i) => i % 5 === 0);
    const error = objectError(reduced, original, [...times], 0.03);
    expect(error).toBeLessThanOrEqual(0.0005 * (1 + 1e-3));
    expect(error).toBeGreaterThan(0.0001); // it used the room it was given
  });

  it('--effort best: fewer keys than the default at the ACL preset, within the bound as three.js plays it', async () => {
    const dir = tempDir();
    const fast = join(dir, 'fast.glb');
    const best = join(dir, 'best.glb');
    const full = join(dir, 'full.glb');
    expect(rotsig(['reduce', CMU, '-o', fast, '--preset', 'acl']).code).toBe(0);
    const r = rotsig(['reduce', CMU, '-o', best, '--preset', 'acl', '--effort', 'best']);
    expect(r.code, r.stderr).toBe(0);
    expect(rotsig(['convert', CMU, '-o', full]).code).toBe(0);
    const count = (doc: Document) => [...rig(doc).keys.values()].reduce((n, k) => n + k.times.length, 0);
    const bestDoc = await readDoc(best);
    expect(count(bestDoc)).toBeLessThan(count(await readDoc(fast)));
    const original = rig(await readDoc(full));
    const times = [...original.keys.values()][0].times.filter((_, i) => i % 5 === 0);
    // 0.01 cm = 1e-4 m after the 0.01 scale; float32 keys
    expect(objectError(rig(bestDoc), original, [...times], 0.03)).toBeLessThanOrEqual(1e-4 * (1 + 1e-3));
  });

  it('--meshopt: EXT_meshopt_compression, validator clean, smaller, the same keys as without it', async () => {
    const dir = tempDir();
    const args = ['--preset', 'acl', '--tolerance', '0.05', '--quantize', 'int16'];
    const plain = join(dir, 'plain.glb');
    const packed = join(dir, 'packed.glb');
    expect(rotsig(['reduce', CMU, '-o', plain, ...args]).code).toBe(0);
    const r = rotsig(['reduce', CMU, '-o', packed, ...args, '--meshopt']);
    expect(r.code, r.stderr).toBe(0);
    const bytes = new Uint8Array(readFileSync(packed));
    expect(await validatorErrors(bytes)).toEqual([]);
    const json = glbJson(bytes);
    expect(json.extensionsRequired).toContain('EXT_meshopt_compression');
    expect(bytes.length).toBeLessThan(0.8 * readFileSync(plain).length);
    const a = await readGltfFile(plain);
    const b = await readGltfFile(packed);
    expect(b.clips[0].tracks).toEqual(a.clips[0].tracks);
    const bvh = rotsig(['reduce', CMU, '-o', join(dir, 'x.bvh'), '--meshopt']);
    expect(bvh.code).toBe(1);
    expect(bvh.stderr).toMatch(/--meshopt compresses glTF buffers/);
  });

  it('a directory of glTF and BVH files: glTF written back as .gltf or .glb, BVH as .glb; --in-place on a .gltf', () => {
    // magnum's animation.gltf and animation.glb in one directory must not both become animation.glb
    const input = tempDir();
    for (const name of ['animation.gltf', 'animation.bin', 'animation.glb'])
      writeFileSync(join(input, name), readFileSync(join(FIXTURE_GLTF_DIR, 'magnum', name)));
    writeFileSync(join(input, 'walk.bvh'), readFileSync(CMU));
    const out = tempDir();
    const r = rotsig(['reduce', input, '-o', `${out}/`, '--jobs', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'animation.gltf'), 'utf8')).buffers[0].uri).toBe(
      'animation.bin',
    );
    expect(readFileSync(join(out, 'animation.glb')).subarray(0, 4).toString()).toBe('glTF');
    expect(readFileSync(join(out, 'walk.glb')).subarray(0, 4).toString()).toBe('glTF');
    const inPlace = rotsig(['reduce', join(input, 'animation.gltf'), '--in-place']);
    expect(inPlace.code, inPlace.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(input, 'animation.gltf'), 'utf8')).asset).toBeDefined();
  });

  it("--quantize variable: every key kept at its time, per-track bit widths in the quaternion filter, the printed error is the file's as three.js plays it with meshoptimizer's decoder", async () => {
    const dir = tempDir();
    const out = join(dir, 'variable.glb');
    const int16 = join(dir, 'int16.glb');
    const full = join(dir, 'full.glb');
    const args = ['--preset', 'acl', '--tolerance', '0.02'];
    const r = rotsig(['reduce', CMU, '-o', out, ...args, '--quantize', 'variable']);
    expect(r.code, r.stderr).toBe(0);
    // 31 joints, 4 of them (the fingers and toes' ends) constant at rest: dropped, as without --quantize
    const printed =
      /object error max ([\d.e+-]+).*, 27 rotation tracks at (\d+)-(\d+) bits \(mean [\d.]+\), 1 translation track at (\d+) bits; constant tracks: 0 as one key, 4 dropped/.exec(
        r.stderr,
      );
    expect(printed, r.stderr).not.toBeNull();
    const [lowest, highest] = [Number(printed![2]), Number(printed![3])];
    expect(lowest).toBeGreaterThanOrEqual(4);
    expect(highest).toBeLessThanOrEqual(16);
    expect(lowest).toBeLessThan(highest); // widths differ by track
    expect(rotsig(['reduce', CMU, '-o', int16, ...args, '--quantize', 'int16', '--meshopt']).code).toBe(0);
    expect(rotsig(['convert', CMU, '-o', full]).code).toBe(0);
    const bytes = new Uint8Array(readFileSync(out));
    expect(await validatorErrors(bytes)).toEqual([]);
    const json = glbJson(bytes);
    expect(json.extensionsRequired).toContain('EXT_meshopt_compression');
    const filtered = json.bufferViews.filter(
      (v: { extensions?: { EXT_meshopt_compression?: { filter?: string } } }) =>
        v.extensions?.EXT_meshopt_compression?.filter === 'QUATERNION',
    );
    expect(filtered.length).toBeGreaterThan(0);
    // the root's translation under the exponential filter, at the printed mantissa width
    expect(Number(printed![4])).toBeGreaterThanOrEqual(1);
    expect(Number(printed![4])).toBeLessThanOrEqual(24);
    const exponential = json.bufferViews.filter(
      (v: { extensions?: { EXT_meshopt_compression?: { filter?: string } } }) =>
        v.extensions?.EXT_meshopt_compression?.filter === 'EXPONENTIAL',
    );
    expect(exponential.length).toBe(1);
    // smaller than 16-bit rotations with the same compression, at the same tolerance
    expect(bytes.length).toBeLessThan(0.8 * readFileSync(int16).length);
    await MeshoptDecoder.ready;
    const doc = await new NodeIO()
      .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
      .read(out);
    const reduced = rig(doc);
    const original = rig(await readDoc(full));
    // every key of every track kept, at the original times bit for bit (the dropped tracks play the rest
    // value, and the error below is measured with them gone)
    let dropped = 0;
    for (const [name, k] of original.keys) {
      const kept = reduced.keys.get(name);
      if (kept === undefined) dropped++;
      else expect(kept.times, name).toEqual(k.times);
    }
    expect(dropped).toBe(4);
    const times = [...original.keys.values()][0].times;
    const error = objectError(reduced, original, [...times], 0.03);
    // 0.02 cm = 0.0002 m after the 0.01 scale; the printed figure (BVH units) is the file's to 1%
    expect(error).toBeLessThanOrEqual(0.0002 * (1 + 1e-3));
    expect(Math.abs(error - Number(printed![1]) * 0.01)).toBeLessThanOrEqual(0.01 * error);
  });

  it('--quantize variable: two animations of one node each keep their own codes; an animation with CUBICSPLINE rotations keeps them float, named', async () => {
    const dir = tempDir();
    const out = join(dir, 'patching.glb');
    const r = rotsig([
      'reduce',
      join(FIXTURE_GLTF_DIR, 'magnum', 'animation-patching.gltf'),
      '-o',
      out,
      '--quantize',
      'variable',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/'Quaternion shortest-path patching': 9 -> 9 keys/);
    expect(r.stderr).toMatch(/'Quaternion normalization patching': 3 -> 3 keys/);
    expect(await validatorErrors(new Uint8Array(readFileSync(out)))).toEqual([]);
    // an animation with a CUBICSPLINE rotation keeps float rotations, named; the file's others are
    // quantised (and an empty animation before them shifts no codes onto the wrong channel)
    for (const mode of ['int16', 'variable']) {
      const file = join(dir, `spline-${mode}.glb`);
      const spline = rotsig([
        'reduce',
        join(FIXTURE_GLTF_DIR, 'magnum', 'animation.glb'),
        '-o',
        file,
        '--quantize',
        mode,
      ]);
      expect(spline.code, spline.stderr).toBe(0);
      expect(spline.stderr).toMatch(
        new RegExp(
          `animation 'TRS animation, splines' keeps float rotations: --quantize ${mode} stores LINEAR and STEP rotations`,
        ),
      );
      const bytes = new Uint8Array(readFileSync(file));
      expect(await validatorErrors(bytes)).toEqual([]);
      const json = glbJson(bytes);
      const rotationOutput = (name: string) => {
        const a = json.animations.find((x: { name: string }) => x.name === name);
        const c = a.channels.find((x: { target: { path: string } }) => x.target.path === 'rotation');
        return json.accessors[a.samplers[c.sampler].output];
      };
      expect(rotationOutput('TRS animation')).toMatchObject({ componentType: 5122, normalized: true });
      expect(rotationOutput('TRS animation, splines').componentType).toBe(5126);
      if (mode === 'variable') {
        const view = json.bufferViews[rotationOutput('TRS animation').bufferView];
        expect(view.extensions.EXT_meshopt_compression.filter).toBe('QUATERNION');
      }
    }
  });

  it('an animation without keys: the reader says it is not read, and reduce and unroll say what the writer removed (the output has neither)', () => {
    // magnum's animation.glb: animation 0 has no channels, animation 1 three channels with empty samplers
    const source = join(FIXTURE_GLTF_DIR, 'magnum', 'animation.glb');
    const before = glbJson(new Uint8Array(readFileSync(source)));
    const empty = before.animations.slice(0, 2).map((a: { name: string }) => a.name);
    expect(empty).toEqual(['empty', 'empty TRS animation']);
    const dir = tempDir();
    for (const command of ['reduce', 'unroll']) {
      const out = join(dir, `${command}.glb`);
      const r = rotsig([command, source, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/kept in the document/);
      expect(r.stderr).toMatch(/animation 1, channel 0: channel has no keys; it is not read/);
      expect(r.stderr).toMatch(/animation 0: removed an animation without channels/);
      expect(r.stderr).toMatch(/animation 1: removed 3 channels without keys/);
      expect(r.stderr).toMatch(/animation 1: removed an animation without channels/);
      const names = glbJson(new Uint8Array(readFileSync(out))).animations.map(
        (a: { name: string }) => a.name,
      );
      expect(names).toEqual(before.animations.slice(2).map((a: { name: string }) => a.name));
    }
  });

  it('--quantize variable refuses BVH output, the local metric and a key budget', () => {
    const dir = tempDir();
    const bvh = rotsig(['reduce', CMU, '-o', join(dir, 'x.bvh'), '--quantize', 'variable']);
    expect(bvh.code).toBe(1);
    expect(bvh.stderr).toMatch(/quaternion filter; write \.glb or \.gltf/);
    const local = rotsig([
      'reduce',
      CMU,
      '-o',
      join(dir, 'x.glb'),
      '--quantize',
      'variable',
      '--metric',
      'local',
    ]);
    expect(local.stderr).toMatch(/--quantize variable bounds the object metric/);
    const budget = rotsig([
      'reduce',
      CMU,
      '-o',
      join(dir, 'x.glb'),
      '--quantize',
      'variable',
      '--max-keys',
      '9',
    ]);
    expect(budget.stderr).toMatch(/--max-keys does not apply/);
  });

  it('Fox.glb: every animation reduced in place, the mesh kept, keys read back equal through rotsig and NodeIO', async () => {
    const dir = tempDir();
    const out = join(dir, 'fox.glb');
    // Fox's units are large (a 3-unit shell, half a unit): 16-bit rounding must fit the bound
    const r = rotsig(['reduce', FOX, '-o', out, '--shell', '3', '--tolerance', '0.5', '--quantize', 'int16']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/'Survey': 1743 -> \d+ keys/);
    expect(await validatorErrors(new Uint8Array(readFileSync(out)))).toEqual([]);
    const doc = await readDoc(out);
    const before = await readDoc(FOX);
    expect(doc.getRoot().listMeshes().length).toBe(before.getRoot().listMeshes().length);
    expect(doc.getRoot().listSkins().length).toBe(1);
    expect(
      doc
        .getRoot()
        .listAnimations()
        .map((a) => a.getName()),
    ).toEqual(['Survey', 'Walk', 'Run']);
    const read = await readGltfFile(out);
    const nodes = doc.getRoot().listNodes();
    for (let a = 0; a < 3; a++) {
      const animation = doc.getRoot().listAnimations()[a];
      for (const channel of animation.listChannels()) {
        if (channel.getTargetPath() !== 'rotation') continue;
        const j = read.clips[a].skeleton.names.indexOf(channel.getTargetNode()!.getName());
        const track = read.clips[a].tracks.find((t) => t.joint === j && t.path === 'rotation')!;
        const raw = channel.getSampler()!.getOutput()!.getArray() as Int16Array;
        expect(raw).toBeInstanceOf(Int16Array);
        expect(track.times.length).toBe(raw.length / 4);
        for (let k = 0; k < raw.length / 4; k++) {
          const l = Math.hypot(raw[k * 4], raw[k * 4 + 1], raw[k * 4 + 2], raw[k * 4 + 3]);
          for (let c = 0; c < 4; c++)
            expect(Math.abs(track.values[k * 4 + c] - raw[k * 4 + c] / l)).toBeLessThan(1e-6);
        }
      }
    }
    expect(nodes.length).toBe(before.getRoot().listNodes().length);
  });

  it('a glTF whose key times are jittered (37.5 Hz printed to 0.1 ms, float32): kept keys are input keys bit for bit, the printed error is measured on the file', async () => {
    const dir = tempDir();
    const input = join(dir, 'jitter.glb');
    const out = join(dir, 'jitter-reduced.glb');
    // COLLADA2GLTF-style times: k/37.5 printed with 4 decimals, stored as float32 (intervals 0.0266 to 0.0267 s)
    const times = Array.from({ length: 120 }, (_, k) => Math.fround(Math.round((k / 37.5) * 1e4) / 1e4));
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeGreaterThan(9e-5);
    const swing = (t: number, j: number) => {
      const a = 0.7 * Math.sin(2 * Math.PI * 0.3 * t + j) + 0.004 * Math.sin(23 * t);
      return [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
    };
    const keyed: KeyedClip = {
      name: 'jitter',
      skeleton: makeSkeleton({
        names: ['hips', 'spine', 'head'],
        parents: [-1, 0, 1],
        restTranslations: [0, 1, 0, 0, 0.3, 0, 0, 0.25, 0],
      }),
      tracks: [
        {
          joint: 0,
          path: 'translation',
          interpolation: 'linear',
          times: Float32Array.from(times),
          values: Float32Array.from(times.flatMap((t) => [0.4 * t, 1 + 0.03 * Math.sin(4 * t), 0])),
          width: 3,
        },
        ...[0, 1, 2].map((j) => ({
          joint: j,
          path: 'rotation' as const,
          interpolation: 'linear' as const,
          times: Float32Array.from(times),
          values: Float32Array.from(times.flatMap((t) => swing(t, j))),
          width: 4,
        })),
      ],
      orders: ['XYZ', 'XYZ', 'XYZ'],
    };
    writeFileSync(input, (await writeGltf(null, [keyed], { format: 'glb' })).glb!);
    const r = rotsig(['reduce', input, '-o', out, '--shell', '0.03', '--tolerance', '0.001']);
    expect(r.code, r.stderr).toBe(0);
    const printed = Number(/error max ([-+.\de]+)/.exec(r.stderr)![1]);
    const before = await readDoc(input);
    const after = await readDoc(out);
    const a = decode(before);
    const b = decode(after);
    let kept = 0;
    for (const [name, k] of b) {
      const src = a.get(name)!;
      const width = k.values.length / k.times.length;
      let at = 0;
      for (let i = 0; i < k.times.length; i++) {
        while (at < src.times.length && src.times[at] !== k.times[i]) at++;
        expect(at, `${name} key ${i} at ${k.times[i]} s is an input key`).toBeLessThan(src.times.length);
        expect(Array.from(k.values.subarray(i * width, (i + 1) * width))).toEqual(
          Array.from(src.values.subarray(at * width, (at + 1) * width)),
        );
      }
      kept += k.times.length;
    }
    expect(kept).toBeLessThan(0.6 * 4 * times.length);
    // three.js plays both files at every input key time: the printed maximum is what it measures
    const error = objectError(rig(after), rig(before), [...a.values().next().value!.times], 0.03);
    expect(error).toBeLessThanOrEqual(0.001);
    expect(Math.abs(printed - error)).toBeLessThanOrEqual(0.005 * error);
  });

  it('a BVH whose kept keys are uniform is written as BVH at the kept frames; otherwise the user is told to write glTF', () => {
    const dir = tempDir();
    // one joint turning at a constant rate about Z: slerp between the ends reproduces every frame
    const frames = Array.from({ length: 9 }, (_, f) => `0 0 0 ${f * 10} 0 0`).join('\n');
    const bvh = `HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 10 0\n  }\n}\nMOTION\nFrames: 9\nFrame Time: 0.1\n${frames}\n`;
    writeFileSync(join(dir, 'turn.bvh'), bvh);
    const r = rotsig(['reduce', join(dir, 'turn.bvh'), '-o', join(dir, 'turn-keys.bvh')]);
    expect(r.code, r.stderr).toBe(0);
    const clip = parseBvh(readFileSync(join(dir, 'turn-keys.bvh'), 'utf8'));
    expect(clip.frames).toBe(2);
    expect(clip.frameTime).toBeCloseTo(0.8, 12);
    const cmu = rotsig(['reduce', CMU, '-o', join(dir, 'cmu.bvh'), '--preset', 'acl']);
    expect(cmu.code).toBe(1);
    expect(cmu.stderr).toMatch(/not the same uniformly spaced frames .* write \.glb or \.gltf/);
  });

  it('bad input: zero or negative tolerance, options of the other metric, 16-bit rounding above the bound', () => {
    const dir = tempDir();
    const out = join(dir, 'x.glb');
    for (const args of [
      ['--tolerance', '0'],
      ['--tolerance', '-1'],
      ['--tolerance', 'nan'],
      ['--metric', 'local', '--shell', '3'],
      ['--tolerance-angle', '0.1'],
      ['--metric', 'local', '--tolerance-angle', '0'],
      ['--quantize', 'int16', '--interpolation', 'cubicspline'],
      ['--max-keys', '1'],
      ['--preset', 'unreal'],
      ['--effort', 'max'],
    ]) {
      const r = rotsig(['reduce', CMU, '-o', out, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/^rotsig reduce: --/);
    }
    const tight = rotsig([
      'reduce',
      CMU,
      '-o',
      out,
      '--preset',
      'acl',
      '--tolerance',
      '1e-6',
      '--quantize',
      'int16',
    ]);
    expect(tight.code).toBe(1);
    expect(tight.stderr).toMatch(/16-bit rounding alone exceeds it/);
    const tiny = rotsig(['reduce', CMU, '-o', out, '--tolerance', '1e-14']);
    expect(tiny.code).toBe(1);
    expect(tiny.stderr).toMatch(/below what the clip's numbers resolve/);
  });
});
