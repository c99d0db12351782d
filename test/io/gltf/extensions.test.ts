// glTF files round-trip whole: every extension glTF-Transform supports is registered (Draco through
// draco3dgltf, given as a dependency), and clips written into a copy of the document they were read from
// replace its animations instead of adding a second skeleton and animations of the same names.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Document, WebIO } from '@gltf-transform/core';
import {
  ALL_EXTENSIONS,
  KHRMaterialsUnlit,
  KHRTextureTransform,
  type Transform,
} from '@gltf-transform/extensions';
import { draco } from '@gltf-transform/functions';
import { beforeAll, describe, expect, test } from 'vitest';
import { GltfError } from '../../../src/io/gltf/errors.js';
import { readGltf, writeGltf } from '../../../src/io/index.js';
import { dracoModule } from '../../../src/node/draco.js';
import { readGltfFile } from '../../../src/node/gltf.js';
import type { KeyedClip } from '../../../src/series/clip.js';
import { FIXTURE_GLTF_DIR, glbJson, validatorErrors } from '../../support/gltf-data.js';

const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');
const GLTFPACK = join(__dirname, '..', '..', '..', 'node_modules', 'gltfpack', 'cli.js');
const fox = () => new Uint8Array(readFileSync(FOX));

let decoder: unknown;
let encoder: unknown;
beforeAll(async () => {
  decoder = await dracoModule('decoder');
  encoder = await dracoModule('encoder');
});

/** Reads bytes with glTF-Transform alone (every extension, Draco decoder), as the reference reader. */
async function referenceRead(glb: Uint8Array): Promise<Document> {
  return new WebIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'draco3d.decoder': decoder })
    .readBinary(glb);
}

/** Per primitive: vertex count, index count and attribute names; per skin: joint names. */
function meshShape(doc: Document) {
  const root = doc.getRoot();
  return {
    primitives: root.listMeshes().flatMap((m) =>
      m.listPrimitives().map((p) => ({
        vertices: p.getAttribute('POSITION')?.getCount(),
        indices: p.getIndices()?.getCount(),
        attributes: p.listSemantics().sort(),
      })),
    ),
    skins: root.listSkins().map((s) => s.listJoints().map((j) => j.getName())),
  };
}

/** Fox.glb (one skinned mesh, 24 joints) Draco-compressed by glTF-Transform's draco() transform. */
async function dracoFox(method: 'sequential' | 'edgebreaker'): Promise<Uint8Array> {
  const io = new WebIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'draco3d.encoder': encoder });
  const doc = await io.readBinary(fox());
  await doc.transform(draco({ method }));
  return io.writeBinary(doc);
}

const jsonOf = (glb: Uint8Array): { extensionsUsed?: string[]; extensionsRequired?: string[] } =>
  glbJson(glb);

describe('KHR_draco_mesh_compression', () => {
  for (const method of ['sequential', 'edgebreaker'] as const) {
    test(`a Draco (${method}) skinned Fox reads and writes with its mesh and skin intact, validator clean`, async () => {
      const packed = await dracoFox(method);
      expect(jsonOf(packed).extensionsRequired).toContain('KHR_draco_mesh_compression');
      const expected = meshShape(await referenceRead(packed));
      // the reference: Fox has one primitive of 1728 vertices and a skin of 24 joints
      expect(expected.primitives[0].vertices).toBeGreaterThan(0);
      expect(expected.skins[0]).toHaveLength(24);

      const read = await readGltf(packed, { dependencies: { 'draco3d.decoder': decoder } });
      expect(read.warnings).toEqual([]);
      expect(meshShape(read.document)).toEqual(expected);
      expect(read.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);

      const written = await writeGltf(read.document, read.clips, {
        dependencies: { 'draco3d.encoder': encoder },
      });
      const glb = written.glb!;
      expect(await validatorErrors(glb)).toEqual([]);
      expect(jsonOf(glb).extensionsRequired).toContain('KHR_draco_mesh_compression');
      expect(meshShape(await referenceRead(glb))).toEqual(expected);

      // compression 'none' writes the same meshes plain, with no encoder needed. The only validator errors
      // are the skin weights Draco quantized (sums like 1.00012, beyond the validator's tolerance even at
      // 16 bits): the data the Draco file carries, which the writer does not change
      const fine = await readGltf(packed, { dependencies: { 'draco3d.decoder': decoder } });
      const plain = (await writeGltf(fine.document, [], { compression: 'none' })).glb!;
      const codes = new Set((await validatorErrors(plain)).map((e) => e.code));
      expect([...codes].filter((c) => c !== 'ACCESSOR_WEIGHTS_NON_NORMALIZED')).toEqual([]);
      expect(jsonOf(plain).extensionsUsed ?? []).not.toContain('KHR_draco_mesh_compression');
      expect(meshShape(await referenceRead(plain))).toEqual(meshShape(fine.document));
    });
  }

  test('Draco keeps the triangles of the original (non-indexed) mesh: 1728 corners, 24 joints', async () => {
    const original = meshShape(await referenceRead(fox()));
    expect(original.primitives[0]).toMatchObject({ vertices: 1728, indices: undefined });
    for (const method of ['sequential', 'edgebreaker'] as const) {
      const read = await readGltf(await dracoFox(method), { dependencies: { 'draco3d.decoder': decoder } });
      const shape = meshShape(read.document);
      expect(shape.primitives[0].indices).toBe(1728);
      expect(shape.primitives[0].attributes).toEqual(original.primitives[0].attributes);
      expect(shape.skins).toEqual(original.skins);
    }
  });

  test('without a Draco module: a GltfError naming the dependency, never meshes without data', async () => {
    const packed = await dracoFox('edgebreaker');
    await expect(readGltf(packed)).rejects.toThrow(GltfError);
    await expect(readGltf(packed)).rejects.toThrow(/draco3d\.decoder/);
    const read = await readGltf(packed, { dependencies: { 'draco3d.decoder': decoder } });
    await expect(writeGltf(read.document, [])).rejects.toThrow(/draco3d\.encoder/);
  });

  test('readGltfFile and writeGltfFile load draco3dgltf themselves', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { writeGltfFile } = await import('../../../src/node/gltf.js');
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-draco-'));
    const input = join(dir, 'fox-draco.glb');
    writeFileSync(input, await dracoFox('edgebreaker'));
    const read = await readGltfFile(input);
    expect(meshShape(read.document).skins[0]).toHaveLength(24);
    const output = join(dir, 'out.glb');
    await writeGltfFile(output, read.document, read.clips);
    const glb = new Uint8Array(readFileSync(output));
    expect(await validatorErrors(glb)).toEqual([]);
    expect(meshShape(await referenceRead(glb))).toEqual(meshShape(read.document));
  });
});

describe('every Khronos extension glTF-Transform supports is read and written back', () => {
  test('KHR_materials_unlit and KHR_texture_transform survive readGltf and writeGltf, no warning', async () => {
    // a file made with glTF-Transform alone: Fox with an unlit material and a texture transform
    const io = new WebIO().registerExtensions([KHRMaterialsUnlit, KHRTextureTransform]);
    const doc = await io.readBinary(fox());
    const material = doc.getRoot().listMaterials()[0];
    material.setExtension('KHR_materials_unlit', doc.createExtension(KHRMaterialsUnlit).createUnlit());
    const transform = doc
      .createExtension(KHRTextureTransform)
      .setRequired(true)
      .createTransform()
      .setScale([2, 3])
      .setOffset([0.25, 0.5]);
    material.getBaseColorTextureInfo()!.setExtension('KHR_texture_transform', transform);
    const input = await io.writeBinary(doc);

    const read = await readGltf(input);
    expect(read.warnings).toEqual([]);
    const out = (await writeGltf(read.document, read.clips)).glb!;
    expect(await validatorErrors(out)).toEqual([]);
    const back = await referenceRead(out);
    const info = back.getRoot().listMaterials()[0].getBaseColorTextureInfo()!;
    const t = info.getExtension<typeof transform>('KHR_texture_transform')!;
    expect([t.getScale(), t.getOffset()]).toEqual([
      [2, 3],
      [0.25, 0.5],
    ]);
    expect(back.getRoot().listMaterials()[0].getExtension('KHR_materials_unlit')).not.toBeNull();
  });

  test('Fox packed by gltfpack -cc (KHR_texture_transform, KHR_mesh_quantization, EXT_meshopt_compression) keeps every extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-gltfpack-'));
    const packed = join(dir, 'fox-packed.glb');
    const run = spawnSync(process.execPath, [GLTFPACK, '-i', FOX, '-o', packed, '-cc'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const input = new Uint8Array(readFileSync(packed));
    for (const name of ['KHR_texture_transform', 'KHR_mesh_quantization', 'EXT_meshopt_compression'])
      expect(jsonOf(input).extensionsUsed).toContain(name);
    const read = await readGltf(input);
    expect(read.warnings.filter((w) => w.code === 'extension')).toEqual([]);
    const out = (await writeGltf(read.document, read.clips)).glb!;
    expect(await validatorErrors(out)).toEqual([]);
    expect(new Set(jsonOf(out).extensionsUsed)).toEqual(new Set(jsonOf(input).extensionsUsed));
    // the texture transform gltfpack put on the base colour texture is still there
    const def = (doc: Document) =>
      doc
        .getRoot()
        .listMaterials()[0]
        .getBaseColorTextureInfo()
        ?.getExtension<Transform>('KHR_texture_transform');
    const before = def(await readGltf(input).then((r) => r.document))!;
    const after = def((await readGltf(out)).document)!;
    expect(after.getScale()).toEqual(before.getScale());
    expect(after.getOffset()).toEqual(before.getOffset());
  });
});

/** The clip with every rotation key turned by a fixed rotation about y (a processed clip). */
function turned(clip: KeyedClip): KeyedClip {
  const s = Math.sin(0.05);
  const c = Math.cos(0.05);
  const tracks = clip.tracks.map((t) => {
    if (t.path !== 'rotation') return t;
    const v = Float64Array.from(t.values);
    for (let o = 0; o < v.length; o += 4) {
      const [x, y, z, w] = [v[o], v[o + 1], v[o + 2], v[o + 3]];
      // q' = q ⊗ (0, sin, 0, cos)
      v[o] = x * c - z * s;
      v[o + 1] = y * c + w * s;
      v[o + 2] = z * c + x * s;
      v[o + 3] = w * c - y * s;
    }
    return { ...t, values: v };
  });
  return { ...clip, tracks };
}

describe('clips written into the document they came from replace its animations', () => {
  test('writeGltf((await readGltf(same)).document, processed): 3 animations, not 6; nodes unchanged', async () => {
    const first = await readGltf(fox());
    const processed = first.clips.map(turned);
    const again = await readGltf(fox());
    const nodes = again.document.getRoot().listNodes().length;
    const out = await writeGltf(again.document, processed);
    expect(out.document).toBe(again.document);
    expect(await validatorErrors(out.glb!)).toEqual([]);
    const back = await readGltf(out.glb!);
    expect(back.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);
    expect(back.document.getRoot().listNodes()).toHaveLength(nodes);
    // the written keys are the processed ones (float32), channel for channel
    processed.forEach((p, i) => {
      expect(back.clips[i].tracks).toHaveLength(p.tracks.length);
      p.tracks.forEach((t, k) => {
        const b = back.clips[i].tracks[k];
        expect(Array.from(b.times)).toEqual(Array.from(Float32Array.from(t.times)));
        if (t.path !== 'rotation') {
          expect(Array.from(b.values)).toEqual(Array.from(Float32Array.from(t.values)));
          return;
        }
        let gap = 0;
        for (let j = 0; j < t.values.length; j += 4) {
          let d = 0;
          for (let m = 0; m < 4; m++) d += t.values[j + m] * b.values[j + m];
          gap = Math.max(gap, 1 - Math.abs(d));
        }
        expect(gap).toBeLessThan(1e-6);
      });
    });
  });

  test('a clip of another file into a document it does not match is a GltfError, not a second skeleton', async () => {
    const box = await readGltf(new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'BoxAnimated.glb'))));
    const { clips } = await readGltf(fox());
    await expect(writeGltf(box.document, [turned(clips[1])])).rejects.toThrow(GltfError);
    await expect(writeGltf(box.document, [turned(clips[1])])).rejects.toThrow(
      /read from another document, which this one does not match: it has no animation 1/,
    );
    expect(box.document.getRoot().listAnimations()).toHaveLength(box.clips.length);
  });
});
