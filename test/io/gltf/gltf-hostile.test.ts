// Hostile glTF structure, sizes and counts (issue 37): each file is the smallest that shows the problem.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Root } from '@gltf-transform/core';
import { describe, expect, test, vi } from 'vitest';
import { GltfError, readGltf, writeGltf } from '../../../src/io/index.js';
import { subclip } from '../../../src/ops/keys/subclip.js';
import { FIXTURE_GLTF_DIR, validatorErrors } from '../../support/gltf-data.js';

/** Key times 0 and 1 s and two identity rotations, as a data URI buffer of 40 bytes. */
const DATA = `data:application/octet-stream;base64,${Buffer.from(new Float32Array([0, 1, 0, 0, 0, 1, 0, 0, 0, 1]).buffer).toString('base64')}`;

/** A valid .gltf: a chain of `depth` nodes whose last node's rotation is animated (2 keys). */
// biome-ignore lint/suspicious/noExplicitAny: hostile JSON is edited freely
function tiny(depth = 2): any {
  const nodes = Array.from({ length: depth }, (_, i) => ({
    name: `n${i}`,
    ...(i + 1 < depth ? { children: [i + 1] } : {}),
  }));
  return {
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes,
    buffers: [{ uri: DATA, byteLength: 40 }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 8 },
      { buffer: 0, byteOffset: 8, byteLength: 32 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC4' },
    ],
    animations: [
      {
        samplers: [{ input: 0, output: 1 }],
        channels: [{ sampler: 0, target: { node: depth - 1, path: 'rotation' } }],
      },
    ],
  };
}

/** The GltfError readGltf rejects with (never a TypeError or a RangeError). */
async function refused(json: unknown, options = {}): Promise<GltfError> {
  const error = await readGltf({ json: json as never }, { file: 'x.gltf', ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GltfError);
  return error as GltfError;
}

describe('readGltf(input) refuses data the file cannot justify, before allocating it', () => {
  test('readGltf(accessor {count: 2e8} without a bufferView) is a GltfError naming accessors[i].count', async () => {
    const json = tiny();
    json.accessors.push({ componentType: 5126, count: 2e8, type: 'VEC4' }); // unused: read all the same
    const e = await refused(json);
    expect(e.code).toBe('gltf-accessor');
    expect(e.jsonPath).toBe('accessors[2].count');
    // 2e8 x 4 floats, stored (4 bytes) and decoded to float64 (8 bytes)
    expect(e.message).toMatch(/9600000000 bytes.*maxBytes/);
  });

  test('readGltf(zero-filled accessors that together pass maxBytes) is refused; a raised maxBytes reads them', async () => {
    const json = tiny();
    // 2.5e6 x 4 floats at 12 bytes each: 120 MB apiece, the third passes 256 MiB
    for (let i = 0; i < 8; i++) json.accessors.push({ componentType: 5126, count: 2.5e6, type: 'VEC4' });
    const e = await refused(json);
    expect(e.jsonPath).toBe('accessors[4].count');
    const small = tiny();
    small.accessors.push({ componentType: 5126, count: 1000, type: 'VEC4' });
    expect((await refused(small, { maxBytes: 47999 })).jsonPath).toBe('accessors[2].count');
    const read = await readGltf({ json: small }, { maxBytes: 48000 });
    expect(read.clips).toHaveLength(1);
  });

  test('readGltf(channels sharing one sampler) charges each decoding after the first to maxBytes', async () => {
    const json = tiny(5);
    json.animations[0].channels = [0, 1, 2, 3, 4].map((node) => ({
      sampler: 0,
      target: { node, path: 'rotation' },
    }));
    // each further channel decodes 2 times (8 bytes) and 2 rotations (32 bytes) again as float64: 4 x 80
    const e = await refused(json, { maxBytes: 319 });
    expect([e.code, e.animation, e.channel]).toEqual(['gltf-accessor', 0, 4]);
    expect(e.message).toMatch(/decode 320 bytes again/);
    expect((await readGltf({ json }, { maxBytes: 320 })).clips[0].tracks).toHaveLength(5);
  });

  test('readGltf(EXT_meshopt_compression view of count 5e8) is refused before decoding', async () => {
    const json = tiny();
    json.extensionsUsed = ['EXT_meshopt_compression'];
    json.bufferViews.push({
      buffer: 0,
      byteLength: 8,
      extensions: {
        EXT_meshopt_compression: { buffer: 0, byteLength: 8, byteStride: 8, count: 5e8, mode: 'ATTRIBUTES' },
      },
    });
    const e = await refused(json);
    expect(e.jsonPath).toBe('bufferViews[2].extensions.EXT_meshopt_compression.count');
    expect(e.message).toMatch(/4000000000 bytes/);
  });
});

describe('readGltf(input) on invalid structure is a GltfError naming the JSON path', () => {
  const cases: [string, (json: ReturnType<typeof tiny>) => void, string][] = [
    ['animations not an array', (j) => (j.animations = { 0: 1 }), 'animations'],
    ['samplers not an array', (j) => (j.animations[0].samplers = 5), 'animations[0].samplers'],
    ['channels not an array', (j) => (j.animations[0].channels = 'x'), 'animations[0].channels'],
    ['channels missing', (j) => delete j.animations[0].channels, 'animations[0].channels'],
    ['a channel null', (j) => (j.animations[0].channels = [null]), 'animations[0].channels[0]'],
    ['a translation null', (j) => (j.nodes[1].translation = null), 'nodes[1].translation'],
    ['a rotation of 3 numbers', (j) => (j.nodes[1].rotation = [0, 0, 1]), 'nodes[1].rotation'],
    ['a scale with a string', (j) => (j.nodes[0].scale = [1, '1', 1]), 'nodes[0].scale[1]'],
    ['children not an array', (j) => (j.nodes[0].children = 1), 'nodes[0].children'],
    ['a child out of range', (j) => (j.nodes[0].children = [9]), 'nodes[0].children[0]'],
    [
      'a negative bufferView byteOffset',
      (j) => (j.bufferViews[1].byteOffset = -12),
      'bufferViews[1].byteOffset',
    ],
    ['a negative accessor byteOffset', (j) => (j.accessors[1].byteOffset = -4), 'accessors[1].byteOffset'],
    [
      'a bufferView byteOffset past 2^53',
      (j) => (j.bufferViews[0].byteOffset = 1e300),
      'bufferViews[0].byteOffset',
    ],
    ['a fractional count', (j) => (j.accessors[0].count = 1.5), 'accessors[0].count'],
    [
      'a sampler input out of range',
      (j) => (j.animations[0].samplers[0].input = -1),
      'animations[0].samplers[0].input',
    ],
    ['a node that is its own child', (j) => (j.nodes[1].children = [1]), 'nodes[1].children[0]'],
    ['a node with two parents', (j) => j.nodes.push({ children: [1] }), 'nodes[2].children[0]'],
  ];
  for (const [what, edit, path] of cases)
    test(`readGltf(${what}) names ${path}`, async () => {
      const json = tiny();
      edit(json);
      const e = await refused(json);
      expect(e.jsonPath).toBe(path);
      expect(e.message.startsWith(`x.gltf: ${path} `) || e.message.includes(`: ${path} `)).toBe(true);
    });

  test('readGltf({ asset: null }) and readGltf({ buffers: {} }) as JSON objects are GltfErrors', async () => {
    expect((await refused({ asset: null })).message).toMatch(/not glTF 2.0/);
    expect((await refused({ asset: { version: '2.0' }, buffers: {} })).jsonPath).toBe('buffers');
    expect((await refused({ asset: { version: '2.0' }, images: 5 })).jsonPath).toBe('images');
  });

  test('readGltf(2-node and 3-node cycles) is a GltfError listing the cycle', async () => {
    const two = tiny();
    two.nodes[1].children = [0]; // 0 -> 1 -> 0
    two.scenes[0].nodes = [];
    expect((await refused(two)).message).toMatch(/cycle: nodes (0 -> 1 -> 0|1 -> 0 -> 1)/);
    const three = tiny(3);
    three.nodes[2].children = [0];
    three.scenes[0].nodes = [];
    const e = await refused(three);
    expect(e.code).toBe('gltf-target');
    expect(e.message).toMatch(/cycle: nodes \d -> \d -> \d -> \d/);
  });

  test('readGltf(12000-deep hierarchy) reads the chain in order (no recursion)', async () => {
    const json = tiny(12000);
    const read = await readGltf({ json });
    const sk = read.clips[0].skeleton;
    expect(sk.names).toHaveLength(12000);
    expect(sk.names[11999]).toBe('n11999');
    for (let j = 0; j < 12000; j++) expect(sk.parents[j]).toBe(j - 1);
  });

  test('GltfError.reason is the message without the file name', async () => {
    const json = tiny();
    json.animations[0].channels = 5;
    const e = await refused(json);
    expect(e.message).toBe(`x.gltf, ${e.reason}`);
    expect(e.reason).not.toMatch(/x\.gltf/);
  });
});

describe('writeGltf(doc, clips) writes only what gltf-validator accepts', () => {
  test('writeGltf(nodes-only document) is a GLB with no buffer, which validates and reads back', async () => {
    const json = { asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }], nodes: [{ name: 'a' }] };
    const read = await readGltf({ json });
    const { glb } = await writeGltf(read.document, read.clips);
    expect(await validatorErrors(glb!)).toEqual([]);
    const back = await readGltf(glb!);
    expect(back.document.getRoot().listNodes()).toHaveLength(1);
    const gltf = await writeGltf((await readGltf({ json })).document, [], { format: 'gltf' });
    expect(gltf.json?.buffers ?? []).toEqual([]);
  });

  test('writeGltf(subclip of CUBICSPLINE rotations) validates: boundary keys at unit length', async () => {
    const path = join(FIXTURE_GLTF_DIR, 'interpolation_test.gltf');
    const read = await readGltf(
      { json: readFileSync(path, 'utf8') },
      {
        resources: {
          'interpolation_test.bin': readFileSync(join(FIXTURE_GLTF_DIR, 'interpolation_test.bin')),
        },
      },
    );
    const cubic = read.clips.filter((c) =>
      c.tracks.some((t) => t.interpolation === 'cubicspline' && t.path === 'rotation'),
    );
    expect(cubic.length).toBeGreaterThan(0);
    const cut = cubic.map((c) => {
      const t = c.tracks.find((x) => x.interpolation === 'cubicspline' && x.path === 'rotation')!;
      const a = t.times[0];
      const b = t.times[t.times.length - 1];
      // boundaries strictly inside a key interval, where the spline's value is off unit length
      return subclip(c, { start: a + 0.37 * (b - a), end: a + 0.81 * (b - a) });
    });
    const { glb } = await writeGltf(read.document, cut);
    // the texture image the fixture names is not committed: only its reference is reported
    const errors = (await validatorErrors(glb!)).filter((m) => m.code !== 'IO_ERROR');
    expect(errors).toEqual([]);
  });

  test('writeGltf(n clips) lists the document animations once, not once per clip', async () => {
    const json = tiny();
    json.animations = Array.from({ length: 50 }, () => structuredClone(json.animations[0]));
    const read = await readGltf({ json });
    // every clip changed, so each is written back into its animation
    const clips = read.clips.map((c) => ({
      ...c,
      tracks: c.tracks.map((t) => ({ ...t, values: Float64Array.from([0, 0, 0, 1, 0, 0, 1, 0]) })),
    }));
    const spy = vi.spyOn(Root.prototype, 'listAnimations');
    try {
      await writeGltf(read.document, clips);
      expect(spy.mock.calls.length).toBeLessThan(10);
    } finally {
      spy.mockRestore();
    }
  });
});
