/**
 * glTF files generated from the glTF 2.0 JSON grammar (nodes, buffers, views, accessors, animations with
 * samplers and channels), with random sizes, interpolations and hierarchies, then spoiled: hostile
 * structure (wrong types, null, missing lists, cycles, two parents), hostile counts and offsets (2e8
 * elements without a view, negative byteOffset, 2^53), data URIs (malformed base64, other media types;
 * in memory only, no file is read), other URIs, extensions (EXT_meshopt_compression with bomb counts,
 * KHR_animation_pointer, unknown required ones), and GLB containers cut or with lying chunk lengths.
 *
 * Each file must read as clips whose tracks hold finite keys in the documented shapes (and write back
 * to a GLB that reads again), or throw a `RotsigError`; nothing may take longer than the time bound or
 * grow the process by more than 1 GB.
 */
import { describe, expect, test } from 'vitest';
import { RotsigError } from '../../src/errors.js';
import { glbBytes } from '../../src/io/gltf/glb-json.js';
import { readGltf, writeGltf } from '../../src/io/index.js';
import type { KeyedClip } from '../../src/series/clip.js';
import { generator, int, pick, type Rand } from '../support/fuzz.js';

const CASES = Number(process.env.FUZZ_CASES ?? 40) * 10;
const SEED = Number(process.env.FUZZ_SEED ?? 17);
const HANG_MS = 10_000;
const GROWTH_BYTES = 2 ** 30;

// biome-ignore lint/suspicious/noExplicitAny: generated JSON is edited freely
type Json = any;

const HOSTILE: unknown[] = [
  null,
  -1,
  -12,
  0,
  1.5,
  2e8,
  5e8,
  2 ** 32,
  2 ** 53,
  1e300,
  'x',
  '',
  [],
  [null],
  {},
  true,
];

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** A valid .gltf with one buffer (data URI), random nodes, and animations over them. */
function generate(rand: Rand): Json {
  const N = 1 + int(rand, 6);
  const nodes: Json[] = Array.from({ length: N }, (_, i) => ({ name: `n${i}` }));
  const roots: number[] = [];
  for (let i = 0; i < N; i++) {
    const p = i === 0 || rand() < 0.3 ? -1 : int(rand, i);
    if (p < 0) roots.push(i);
    else (nodes[p].children ??= []).push(i);
    if (rand() < 0.3) nodes[i].translation = [rand(), rand(), rand()];
    if (rand() < 0.3) nodes[i].rotation = [0, 0, Math.sin(0.3), Math.cos(0.3)];
  }
  const floats: number[] = [];
  const views: Json[] = [];
  const accessors: Json[] = [];
  const add = (values: number[], type: string) => {
    views.push({ buffer: 0, byteOffset: floats.length * 4, byteLength: values.length * 4 });
    const width = type === 'SCALAR' ? 1 : type === 'VEC3' ? 3 : 4;
    accessors.push({ bufferView: views.length - 1, componentType: 5126, count: values.length / width, type });
    floats.push(...values);
    return accessors.length - 1;
  };
  const animations: Json[] = [];
  for (let a = 0, A = int(rand, 3) + (rand() < 0.1 ? 20 : 0); a < A; a++) {
    const samplers: Json[] = [];
    const channels: Json[] = [];
    for (let c = 0, C = 1 + int(rand, 4); c < C; c++) {
      const keys = 1 + int(rand, 6);
      const times = Array.from({ length: keys }, (_, k) => k * (rand() < 0.2 ? 0.001 : 1 / 30));
      const path = pick(rand, ['translation', 'rotation', 'scale'] as const);
      const interpolation = pick(rand, ['LINEAR', 'STEP', 'CUBICSPLINE']);
      const per = interpolation === 'CUBICSPLINE' ? 3 : 1;
      const values: number[] = [];
      for (let k = 0; k < keys * per; k++)
        values.push(...(path === 'rotation' ? [0, 0, 0, 1] : [rand(), rand(), rand()]));
      samplers.push({
        input: add(times, 'SCALAR'),
        output: add(values, path === 'rotation' ? 'VEC4' : 'VEC3'),
        interpolation,
      });
      channels.push({ sampler: samplers.length - 1, target: { node: int(rand, N), path } });
    }
    // one channel per node and path, as glTF requires
    const seen = new Set<string>();
    animations.push({
      name: `A${a}`,
      samplers,
      channels: channels.filter((c) => {
        const key = `${c.target.node}:${c.target.path}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      }),
    });
  }
  const bytes = new Uint8Array(Float32Array.from(floats).buffer);
  return {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: roots }],
    nodes,
    buffers: [{ uri: `data:application/octet-stream;base64,${base64(bytes)}`, byteLength: bytes.length }],
    bufferViews: views,
    accessors,
    ...(animations.length ? { animations } : {}),
  };
}

/** A random object or array inside `json`, with the path to it. */
function somewhere(rand: Rand, json: Json): Json {
  let at = json;
  for (let depth = 0; depth < 4; depth++) {
    const keys = Object.keys(at).filter((k) => at[k] !== null && typeof at[k] === 'object');
    if (keys.length === 0 || (depth > 0 && rand() < 0.3)) break;
    at = at[pick(rand, keys)];
  }
  return at;
}

/** Spoils the JSON in one of many ways glTF files go wrong or are made to. */
function spoil(rand: Rand, json: Json, kinds: number[]): void {
  const kind = int(rand, 14);
  kinds.push(kind);
  if (kind === 0) {
    // any field of any object: a hostile value
    const at = somewhere(rand, json);
    const keys = Object.keys(at);
    if (keys.length) at[pick(rand, keys)] = pick(rand, HOSTILE);
  } else if (kind === 1) {
    // a top-level list or an animation's lists of the wrong type, or missing
    const key = pick(rand, ['animations', 'nodes', 'accessors', 'bufferViews', 'buffers', 'scenes']);
    if (rand() < 0.5) json[key] = pick(rand, HOSTILE);
    else if (json.animations?.[0])
      json.animations[0][pick(rand, ['samplers', 'channels'])] = pick(rand, HOSTILE);
  } else if (kind === 2) {
    // hierarchies that are no tree
    const N = json.nodes.length;
    const a = int(rand, N);
    const b = int(rand, N);
    (json.nodes[a].children ??= []).push(rand() < 0.3 ? a : b);
  } else if (kind === 3) {
    // a deep chain
    const depth = 200 + int(rand, 800);
    const first = json.nodes.length;
    for (let i = 0; i < depth; i++) json.nodes.push(i + 1 < depth ? { children: [first + i + 1] } : {});
    json.scenes[0].nodes.push(first);
  } else if (kind === 4) {
    // a bomb: an accessor without a view, maybe used by a sampler
    json.accessors.push({
      componentType: pick(rand, [5126, 5121]),
      count: pick(rand, [2e8, 5e7, 2 ** 31, 1e6]),
      type: pick(rand, ['VEC4', 'MAT4', 'SCALAR']),
    });
    if (json.animations?.[0]?.samplers?.[0] && rand() < 0.5)
      json.animations[0].samplers[0][pick(rand, ['input', 'output'])] = json.accessors.length - 1;
  } else if (kind === 5) {
    // offsets and counts that leave the data
    const list = rand() < 0.5 ? json.accessors : json.bufferViews;
    if (list.length) {
      const item: Json = pick(rand, list as Json[]);
      item[pick(rand, ['byteOffset', 'count', 'byteLength', 'byteStride'])] = pick(rand, [
        -12,
        -1,
        2 ** 32,
        2 ** 53,
        1e9,
        3,
        7,
      ]);
    }
  } else if (kind === 6) {
    // URIs: malformed data URIs, other media types, paths and remote addresses (never read)
    json.buffers[0].uri = pick(rand, [
      'data:application/octet-stream;base64,@@@',
      'data:application/gltf-buffer;base64,',
      'data:text/plain,hello',
      'data:;base64,AAAA',
      '../../../../etc/passwd',
      'http://127.0.0.1:1/x.bin',
      '/dev/zero',
      'file:///dev/zero',
      '',
    ]);
  } else if (kind === 7) {
    // EXT_meshopt_compression views with bomb or nonsense counts
    json.extensionsUsed = ['EXT_meshopt_compression'];
    if (rand() < 0.5) json.extensionsRequired = ['EXT_meshopt_compression'];
    const view = pick(rand, json.bufferViews as Json[]);
    view.extensions = {
      EXT_meshopt_compression: {
        buffer: 0,
        byteLength: pick(rand, [8, 0, -1, 1e9]),
        byteStride: pick(rand, [4, 8, 16, 0, 300]),
        count: pick(rand, [5e8, 2, 1e6, -1, 1.5]),
        mode: pick(rand, ['ATTRIBUTES', 'TRIANGLES', 'INDICES', 'NONE']),
        ...(rand() < 0.3 ? { filter: pick(rand, ['OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL', 'X']) } : {}),
      },
    };
  } else if (kind === 8) {
    // KHR_animation_pointer channels and unknown extensions
    json.extensionsUsed = ['KHR_animation_pointer', 'EXT_unknown'];
    if (rand() < 0.5) json.extensionsRequired = ['EXT_unknown'];
    const ch = json.animations?.[0]?.channels?.[0];
    if (ch)
      ch.target = {
        path: 'pointer',
        extensions: { KHR_animation_pointer: { pointer: pick(rand, ['/nodes/0/rotation', '/x', '', 5]) } },
      };
  } else if (kind === 9) {
    // sparse accessors with hostile parts
    const a = pick(rand, json.accessors as Json[]);
    a.sparse = {
      count: pick(rand, [1, 2, 2e8, 0]),
      indices: {
        bufferView: 0,
        componentType: pick(rand, [5121, 5123, 5125, 5126]),
        byteOffset: pick(rand, [0, -4, 4]),
      },
      values: { bufferView: pick(rand, [0, 1, 99]) },
    };
    if (rand() < 0.5) delete a.bufferView;
  } else if (kind === 10) {
    // many animations sharing one sampler's accessors
    const anim = json.animations?.[0];
    if (anim) json.animations = Array.from({ length: 100 + int(rand, 400) }, () => anim);
  } else if (kind === 11) {
    // a node transform that is no transform
    const n = pick(rand, json.nodes as Json[]);
    n[pick(rand, ['translation', 'rotation', 'scale', 'matrix', 'weights'])] = pick(rand, [
      null,
      [1, 2],
      [0, 0, 0, 0],
      ['1', 0, 0],
      5,
      [1e308, -1e308, 0],
    ]);
  } else if (kind === 12) {
    json.asset = pick(rand, [null, {}, { version: '1.0' }, { version: 2 }, []]);
  } else {
    // key times that go backwards or repeat
    const a = pick(rand, json.accessors as Json[]);
    a.count = Math.max(0, (a.count ?? 1) + pick(rand, [-1, 1, 1000]));
  }
}

/** GLB bytes of the JSON (its data URI buffer moved into the BIN chunk), maybe with lying lengths. */
function glb(rand: Rand, json: Json): Uint8Array {
  const uri: string | undefined = json.buffers?.[0]?.uri;
  let bin = new Uint8Array(0);
  if (typeof uri === 'string' && uri.startsWith('data:application/octet-stream;base64,')) {
    bin = new Uint8Array(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
    delete json.buffers[0].uri;
  }
  // the writer's own container code, then lengths made to lie
  const out = glbBytes(json, bin);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const total = out.length;
  const jsonLength = view.getUint32(12, true);
  const binLength = (bin.length + 3) & ~3;
  const lie = int(rand, 6);
  if (lie === 0) return out.subarray(0, int(rand, out.length));
  if (lie === 1) view.setUint32(8, pick(rand, [0, 12, 2 ** 32 - 1, total + 1]), true);
  if (lie === 2) view.setUint32(12, pick(rand, [0, 2 ** 32 - 1, jsonLength + 4]), true);
  if (lie === 3 && binLength) view.setUint32(20 + jsonLength, 2 ** 32 - 8, true);
  return out;
}

/** Why a clip read from a file is not what the reader documents, or null. */
function checkClip(clip: KeyedClip): string | null {
  const J = clip.skeleton.names.length;
  for (let j = 0; j < J; j++) if (!(clip.skeleton.parents[j] < j)) return `parent of joint ${j}`;
  for (const t of clip.tracks) {
    if (!(t.joint >= 0 && t.joint < J)) return `track joint ${t.joint}`;
    const per = t.interpolation === 'cubicspline' ? 3 : 1;
    if (t.values.length !== t.times.length * per * t.width) return 'track values do not fit keys x width';
    for (let k = 0; k < t.times.length; k++) {
      if (!Number.isFinite(t.times[k])) return 'non-finite key time';
      if (k > 0 && !(t.times[k] > t.times[k - 1])) return 'key times do not increase';
    }
    for (const v of t.values) if (!Number.isFinite(v)) return 'non-finite value';
  }
  return null;
}

describe('glTF grammar fuzz', () => {
  test(`generated and spoiled glTF/GLB files read as valid clips or throw a RotsigError (${CASES} files, seed ${SEED})`, async () => {
    const rand = generator(SEED);
    const tally = { ok: 0, typed: 0, defects: [] as string[], hangs: [] as string[], grew: [] as string[] };
    for (let c = 0; c < CASES; c++) {
      const json = generate(rand);
      const spoils = int(rand, 3);
      const kinds: number[] = [];
      for (let s = 0; s < spoils; s++) {
        try {
          spoil(rand, json, kinds);
        } catch {
          // an earlier spoil removed what this one edits: the file stays as it is
        }
      }
      const asGlb = rand() < 0.3;
      const rss = process.memoryUsage().rss;
      const t0 = performance.now();
      try {
        const input = asGlb ? glb(rand, structuredClone(json)) : { json: structuredClone(json) };
        // FUZZ_ONLY=<case>,<case> replays those cases (the others are generated, not read)
        if (process.env.FUZZ_ONLY && !process.env.FUZZ_ONLY.split(',').map(Number).includes(c)) continue;
        const read = await readGltf(input, { file: `case${c}.gltf` });
        for (const clip of read.clips) {
          const why = checkClip(clip);
          if (why) throw new Error(`reader: ${why}`);
        }
        if (read.clips.length < 50) {
          const written = await writeGltf(read.document, read.clips, { compression: 'none' });
          const back = await readGltf(written.glb!);
          if (back.clips.length > read.clips.length) throw new Error('writer: more clips read back');
        }
        tally.ok++;
      } catch (error) {
        if (error instanceof RotsigError) tally.typed++;
        else
          tally.defects.push(
            `case ${c}: ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`,
          );
      }
      const ms = performance.now() - t0;
      const label = `case ${c} (spoils ${kinds.join(',') || 'none'}${asGlb ? ', GLB' : ''})`;
      if (ms > HANG_MS) tally.hangs.push(`${label}: ${ms.toFixed(0)} ms`);
      if (process.env.FUZZ_REPORT && ms > 500) console.log(`${label}: ${ms.toFixed(0)} ms`);
      const grew = process.memoryUsage().rss - rss;
      if (grew > GROWTH_BYTES) tally.grew.push(`case ${c}: ${(grew / 2 ** 20).toFixed(0)} MiB`);
    }
    if (process.env.FUZZ_REPORT)
      console.log(`glTF grammar fuzz: ${CASES} files`, { ...tally, defects: tally.defects.length });
    expect(tally.defects).toEqual([]);
    expect(tally.hangs).toEqual([]);
    expect(tally.grew).toEqual([]);
    expect(tally.ok).toBeGreaterThan(CASES / 10);
    expect(tally.typed).toBeGreaterThan(CASES / 10);
  }, 600_000);
});
