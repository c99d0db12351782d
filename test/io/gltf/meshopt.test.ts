// EXT_meshopt_compression: rotsig's writer compresses losslessly; the files pass the Khronos validator and
// read back equal through glTF-Transform's own EXTMeshoptCompression with meshoptimizer's decoder (kept
// apart from rotsig's extension) and through rotsig's reader.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression as ReferenceMeshopt } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { describe, expect, test } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { GltfError } from '../../../src/io/gltf/errors.js';
import {
  KHRMeshQuantizationMarker,
  parseBvh,
  readGltf,
  setExponentialFilterCodes,
  writeGltf,
} from '../../../src/io/index.js';
import { readGltfFile } from '../../../src/node/index.js';
import { decodeExpFilter } from '../../../src/ops/reduce/exp-filter.js';
import { FIXTURE_GLTF_DIR, glbJson, validatorErrors } from '../../support/gltf-data.js';

const fox = () => new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'Fox.glb')));
const cmu = () => parseBvh(readFileSync(join(__dirname, '..', '..', '..', 'samples', '01_01.bvh'), 'utf8'));

async function referenceRead(glb: Uint8Array): Promise<Document> {
  await MeshoptDecoder.ready;
  return new WebIO()
    .registerExtensions([ReferenceMeshopt, KHRMeshQuantizationMarker])
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
    .readBinary(glb);
}

/** Every accessor's array, in document order. */
function arrays(doc: Document) {
  return doc
    .getRoot()
    .listAccessors()
    .map((a) => ({ type: a.getType(), normalized: a.getNormalized(), array: a.getArray() }));
}

describe('EXT_meshopt_compression', () => {
  test('Fox.glb (mesh, skin, three animations) compressed: validator clean, smaller, every accessor read back equal', async () => {
    const { document } = await readGltf(fox());
    const plain = await writeGltf(document, [], { compression: 'none' });
    const packed = await writeGltf(document, [], { compression: 'meshopt' });
    expect(await validatorErrors(packed.glb!)).toEqual([]);
    expect(packed.glb!.length).toBeLessThan(plain.glb!.length);
    const before = arrays(await referenceRead(plain.glb!));
    const after = await referenceRead(packed.glb!);
    expect(
      after
        .getRoot()
        .listExtensionsUsed()
        .map((e) => [e.extensionName, e.isRequired()]),
    ).toContainEqual(['EXT_meshopt_compression', true]);
    expect(arrays(after)).toEqual(before);
    // rotsig's reader decodes it too, to the same keys
    const a = await readGltf(plain.glb!);
    const b = await readGltf(packed.glb!);
    expect(b.warnings).toEqual([]);
    expect(b.clips.map((c) => c.tracks)).toEqual(a.clips.map((c) => c.tracks));
  });

  test('a BVH clip with 16-bit rotations: the normalised SHORT keys survive bit for bit', async () => {
    const clip = cmu();
    const { document } = await writeGltf(null, [clip], { scale: 0.01 });
    const { quantizeRotations } = await import('../../../src/io/gltf/quantize.js');
    quantizeRotations(document, document.getRoot().listAnimations());
    const plain = await writeGltf(document, [], { compression: 'none' });
    const packed = await writeGltf(document, [], { compression: 'meshopt' });
    expect(await validatorErrors(packed.glb!)).toEqual([]);
    const shorts = arrays(await referenceRead(packed.glb!)).filter((a) => a.array instanceof Int16Array);
    expect(shorts.length).toBe(clip.skeleton.names.length);
    expect(arrays(await referenceRead(packed.glb!))).toEqual(arrays(await referenceRead(plain.glb!)));
    // every frame keyed on a 120 Hz grid: the byte codec finds the structure
    expect(packed.glb!.length).toBeLessThan(0.8 * plain.glb!.length);
  });

  test('a translation output with exponential filter codes: stored under the EXPONENTIAL filter (stride 12), validator clean, read back bit for bit by glTF-Transform with meshoptimizer; codes that decode otherwise are refused', async () => {
    const clip = cmu();
    const { document } = await writeGltf(null, [clip], { scale: 0.01 });
    const channel = document
      .getRoot()
      .listAnimations()[0]
      .listChannels()
      .find((c) => c.getTargetPath() === 'translation')!;
    const output = channel.getSampler()!.getOutput()!;
    const values = output.getArray() as Float32Array;
    const n = output.getCount();
    await MeshoptEncoder.ready;
    const codes = new Uint32Array(
      MeshoptEncoder.encodeFilterExp(values, n, 12, 14, 'SharedComponent').buffer,
    );
    const decoded = new Float32Array(codes.length);
    decodeExpFilter(codes, decoded);
    // the codes decode to other values than the accessor's float32 translations: refused, nothing set
    expect(() => setExponentialFilterCodes(output, codes)).toThrow(GltfError);
    expect(() => setExponentialFilterCodes(output, codes)).toThrow(/key \d+ decode to/);
    output.setArray(decoded);
    setExponentialFilterCodes(output, codes);
    const packed = (await writeGltf(document, [], { compression: 'meshopt' })).glb!;
    expect(await validatorErrors(packed)).toEqual([]);
    const json = glbJson(packed);
    const filtered = (
      json.bufferViews as {
        extensions?: Record<string, { filter?: string; byteStride: number; mode: string }>;
      }[]
    )
      .map((v) => v.extensions?.EXT_meshopt_compression)
      .filter((e) => e?.filter === 'EXPONENTIAL');
    expect(filtered).toHaveLength(1);
    expect([filtered[0]!.mode, filtered[0]!.byteStride]).toEqual(['ATTRIBUTES', 12]);
    const read = await referenceRead(packed);
    const back = read
      .getRoot()
      .listAnimations()[0]
      .listChannels()
      .find((c) => c.getTargetPath() === 'translation')!
      .getSampler()!
      .getOutput()!;
    expect([back.getType(), back.getComponentType(), back.getNormalized()]).toEqual(['VEC3', 5126, false]);
    expect(back.getArray()).toEqual(decoded);
    // rotsig's reader decodes it too
    const ours = await readGltf(packed);
    const track = ours.clips[0].tracks.find((t) => t.path === 'translation')!;
    expect(Float32Array.from(track.values)).toEqual(decoded);
  });

  test('setExponentialFilterCodes refuses what is not a FLOAT VEC3 accessor with three codes per element', async () => {
    const { Document } = await import('@gltf-transform/core');
    const doc = new Document();
    const vec4 = doc.createAccessor().setType('VEC4').setArray(new Float32Array(4));
    const vec3 = doc.createAccessor().setType('VEC3').setArray(new Float32Array(3));
    const shorts = doc.createAccessor().setType('VEC3').setArray(new Int16Array(3));
    const zero = new Uint32Array([(-100 << 24) >>> 0, (-100 << 24) >>> 0, (-100 << 24) >>> 0]);
    expect(() => setExponentialFilterCodes(vec4, new Uint32Array(4))).toThrow(GltfError);
    expect(() => setExponentialFilterCodes(shorts, zero)).toThrow(GltfError);
    expect(() => setExponentialFilterCodes(vec3, new Uint32Array(6))).toThrow(GltfError);
    expect(() => setExponentialFilterCodes(vec3, new Int32Array(3) as unknown as Uint32Array)).toThrow(
      GltfError,
    );
    expect(() => setExponentialFilterCodes({} as never, zero)).toThrow(GltfError);
    setExponentialFilterCodes(vec3, zero);
    // -0 is another value than the +0 the codes decode to
    vec3.setArray(new Float32Array([0, -0, 0]));
    expect(() => setExponentialFilterCodes(vec3, zero)).toThrow(GltfError);
  });

  test("'keep' compresses again what was read compressed; 'none' writes it plain", async () => {
    const { document } = await readGltf(fox());
    const packed = (await writeGltf(document, [], { compression: 'meshopt' })).glb!;
    const again = await readGltf(packed);
    const kept = (await writeGltf(again.document, [], {})).glb!;
    expect(kept.length).toBe(packed.length);
    const plain = (await writeGltf((await readGltf(packed)).document, [], { compression: 'none' })).glb!;
    expect(await validatorErrors(plain)).toEqual([]);
    expect(plain.length).toBeGreaterThan(packed.length);
    expect(new TextDecoder().decode(plain)).not.toContain('EXT_meshopt_compression');
  });

  test('bad option and a corrupt compressed view: typed errors', async () => {
    const { document } = await readGltf(fox());
    await expect(writeGltf(document, [], { compression: 'zip' as 'none' })).rejects.toThrow(OptionError);
    const packed = (await writeGltf(document, [], { compression: 'meshopt' })).glb!;
    // the compressed animation data sits at the end of the BIN chunk: overwrite its tail
    const broken = packed.slice();
    broken.fill(0xff, broken.length - 4000);
    await expect(readGltf(broken)).rejects.toMatchObject({ name: 'GltfError' });
  });

  test('8-bit indices (blender-io 07_nla-anim) stay uncompressed; the rest compresses and reads back equal', async () => {
    // meshoptimizer's index codec takes 16- and 32-bit indices only
    const { document } = await readGltfFile(join(FIXTURE_GLTF_DIR, 'blender-io', '07_nla-anim.gltf'));
    const plain = await writeGltf(document, [], { compression: 'none' });
    const packed = await writeGltf(document, [], { compression: 'meshopt' });
    expect(await validatorErrors(packed.glb!)).toEqual([]);
    const read = await referenceRead(packed.glb!);
    // uncompressed accessors are written before the compressed ones: compare as sorted lists
    const key = (a: ReturnType<typeof arrays>[number]) => JSON.stringify([a.type, Array.from(a.array ?? [])]);
    const sorted = (doc: Document) => arrays(doc).map(key).sort();
    expect(sorted(read)).toEqual(sorted(await referenceRead(plain.glb!)));
    expect(arrays(read).filter((a) => a.array instanceof Uint8Array).length).toBe(3);
  });

  test('an index list shared by a TRIANGLES and a LINES primitive is stored in order (INDICES mode)', async () => {
    // TRIANGLES mode may rotate a triangle's corners; a line list read from the same accessor must not move
    const { Document: Doc, Primitive } = await import('@gltf-transform/core');
    const doc = new Doc();
    const buffer = doc.createBuffer();
    const position = doc
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0]))
      .setBuffer(buffer);
    const order = new Uint16Array([1, 2, 0, 3, 4, 5, 5, 1, 3, 2, 4, 0]);
    const indices = doc.createAccessor().setType('SCALAR').setArray(order).setBuffer(buffer);
    const tris = doc.createPrimitive().setAttribute('POSITION', position).setIndices(indices);
    const lines = doc
      .createPrimitive()
      .setAttribute('POSITION', position)
      .setIndices(indices)
      .setMode(Primitive.Mode.LINES);
    const mesh = doc.createMesh().addPrimitive(tris).addPrimitive(lines);
    doc.createScene().addChild(doc.createNode().setMesh(mesh));
    const packed = await writeGltf(doc, [], { compression: 'meshopt' });
    expect(await validatorErrors(packed.glb!)).toEqual([]);
    const json = glbJson(packed.glb!);
    const modes = json.bufferViews.map(
      (v: { extensions?: Record<string, { mode: string }> }) => v.extensions?.EXT_meshopt_compression?.mode,
    );
    expect(modes).toContain('INDICES');
    expect(modes).not.toContain('TRIANGLES');
    const back = (await referenceRead(packed.glb!))
      .getRoot()
      .listAccessors()
      .map((a) => Array.from(a.getArray()!));
    expect(back).toContainEqual(Array.from(order));
  });
});
