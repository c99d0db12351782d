// EXT_meshopt_compression: rotsig's writer compresses losslessly; the files pass the Khronos validator and
// read back equal through glTF-Transform's own EXTMeshoptCompression with meshoptimizer's decoder (kept
// apart from rotsig's extension) and through rotsig's reader.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression as ReferenceMeshopt } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';
import { describe, expect, test } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { KHRMeshQuantizationMarker, parseBvh, readGltf, writeGltf } from '../../../src/io/index.js';
import { readGltfFile } from '../../../src/node/index.js';
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
