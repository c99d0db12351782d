import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Accessor, Document } from '@gltf-transform/core';
import { describe, expect, test } from 'vitest';
import { type GltfReadResult, readGltf, writeGltf } from '../../../src/io/index.js';
import { readGltfFile } from '../../../src/node/gltf.js';
import type { KeyedClip, Track } from '../../../src/series/clip.js';
import {
  FIXTURE_GLTF_DIR,
  glbJson,
  HAS_SHARED_GLTF,
  resourcesBeside,
  SHARED_GLTF_FILES,
  sharedGltfPath,
  validatorErrors,
} from '../../support/gltf-data.js';

if (!HAS_SHARED_GLTF)
  console.log('skipping the shared glTF files: ../shared/data/gltf is not beside the repository');

/** The accessors of meshes (indices, attributes, morph targets) and skins, in document order, with their bytes. */
function staticAccessors(
  doc: Document,
): { type: string; componentType: number; normalized: boolean; bytes: Uint8Array }[] {
  const list: (Accessor | null)[] = [];
  for (const mesh of doc.getRoot().listMeshes())
    for (const prim of mesh.listPrimitives()) {
      list.push(prim.getIndices());
      for (const semantic of prim.listSemantics().sort()) list.push(prim.getAttribute(semantic));
      for (const target of prim.listTargets())
        for (const semantic of target.listSemantics().sort()) list.push(target.getAttribute(semantic));
    }
  for (const skin of doc.getRoot().listSkins()) list.push(skin.getInverseBindMatrices());
  return list
    .filter((a): a is Accessor => a !== null)
    .map((a) => {
      const array = a.getArray();
      return {
        type: a.getType(),
        componentType: a.getComponentType(),
        normalized: a.getNormalized(),
        bytes: array ? new Uint8Array(array.buffer, array.byteOffset, array.byteLength) : new Uint8Array(0),
      };
    });
}

function sameBytes(a: ReturnType<typeof staticAccessors>, b: ReturnType<typeof staticAccessors>): boolean {
  return (
    a.length === b.length &&
    a.every(
      (x, i) =>
        x.type === b[i].type &&
        x.componentType === b[i].componentType &&
        x.normalized === b[i].normalized &&
        Buffer.compare(x.bytes, b[i].bytes) === 0,
    )
  );
}

function sameImages(a: Uint8Array[], b: Uint8Array[]): boolean {
  return a.length === b.length && a.every((x, i) => Buffer.compare(x, b[i]) === 0);
}

function images(doc: Document): Uint8Array[] {
  return doc
    .getRoot()
    .listTextures()
    .map((t) => t.getImage() ?? new Uint8Array(0));
}

/** Largest rotation angle (rad) and translation/scale/weight gap between two tracks' keys, signs of rotations ignored. */
function trackGap(a: Track, b: Track): { angle: number; value: number } {
  expect(b.interpolation).toBe(a.interpolation);
  expect(Array.from(b.times)).toEqual(Array.from(a.times));
  expect(b.values.length).toBe(a.values.length);
  let angle = 0;
  let value = 0;
  if (a.path === 'rotation') {
    const perKey = a.interpolation === 'cubicspline' ? 3 : 1;
    for (let k = 0; k < a.times.length; k++) {
      const o = (k * perKey + (perKey === 3 ? 1 : 0)) * 4;
      let d = 0;
      for (let i = 0; i < 4; i++) d += a.values[o + i] * b.values[o + i];
      const sign = d < 0 ? -1 : 1;
      // angle between the rotations, well conditioned near 0: 2 atan2(|a - b|, |a + b|)
      let minus = 0;
      let plus = 0;
      for (let i = 0; i < 4; i++) {
        minus += (a.values[o + i] - sign * b.values[o + i]) ** 2;
        plus += (a.values[o + i] + sign * b.values[o + i]) ** 2;
      }
      angle = Math.max(angle, 2 * Math.atan2(Math.sqrt(minus), Math.sqrt(plus)));
      for (let i = k * perKey * 4; i < (k + 1) * perKey * 4; i++)
        value = Math.max(value, Math.abs(a.values[i] - sign * b.values[i]));
    }
  } else {
    for (let i = 0; i < a.values.length; i++) value = Math.max(value, Math.abs(a.values[i] - b.values[i]));
  }
  return { angle, value };
}

function compareClips(before: KeyedClip[], after: KeyedClip[]): { angle: number; value: number } {
  let angle = 0;
  let value = 0;
  const nonEmpty = before.filter((c) => c.tracks.length > 0);
  expect(after.map((c) => c.name)).toEqual(nonEmpty.map((c) => c.name));
  nonEmpty.forEach((c, i) => {
    const d = after[i];
    expect(d.skeleton.names).toEqual(c.skeleton.names);
    expect(Array.from(d.skeleton.restTranslations)).toEqual(Array.from(c.skeleton.restTranslations));
    expect(d.tracks.length).toBe(c.tracks.length);
    c.tracks.forEach((t, k) => {
      const g = trackGap(t, d.tracks[k]);
      angle = Math.max(angle, g.angle);
      value = Math.max(value, g.value);
    });
  });
  return { angle, value };
}

async function roundTrip(read: GltfReadResult, format: 'glb' | 'gltf'): Promise<GltfReadResult> {
  const out = await writeGltf(read.document, read.clips, { format, basename: 'out' });
  if (format === 'glb') return readGltf(out.glb!);
  return readGltf({ json: out.json!, resources: out.resources! });
}

describe.skipIf(!HAS_SHARED_GLTF)('readGltf and writeGltf on every shared file', () => {
  for (const file of SHARED_GLTF_FILES) {
    test(`readGltf(${file}) then writeGltf(document, clips) keeps every key and every non-animation byte`, async () => {
      const path = sharedGltfPath(file);
      const read = await readGltfFile(path);
      const reference = await readGltfFile(path);
      expect(read.clips.length).toBeGreaterThan(0);
      for (const c of read.clips) for (const t of c.tracks) expect(t.times.length).toBeGreaterThan(0);
      const staticBefore = staticAccessors(read.document);
      const imagesBefore = images(read.document);
      const glb = await roundTrip(read, 'glb');
      // written into the same document: it still holds the same mesh, skin and image data
      expect(sameBytes(staticAccessors(glb.document), staticBefore)).toBe(true);
      expect(sameImages(images(glb.document), imagesBefore)).toBe(true);
      const gap = compareClips(reference.clips, glb.clips);
      // keys are written back as read (float32 in, float32 out); only the sign of a quaternion may change,
      // and keys the reader normalized (length off 1 by more than 1e-3) are rounded to float32 again
      const repaired = read.warnings.some((w) => w.code === 'quaternion');
      expect(gap.angle).toBeLessThan(1e-6);
      if (repaired) expect(gap.value).toBeLessThan(1e-7);
      else expect(gap.value).toBe(0);
      const gltf = await roundTrip(await readGltfFile(path), 'gltf');
      expect(compareClips(reference.clips, gltf.clips).value).toBeLessThan(repaired ? 1e-7 : 1e-300);
    });

    test(`writeGltf(readGltf(${file})) adds no validator error, and none in animations`, async () => {
      const path = sharedGltfPath(file);
      const before = await validatorErrors(new Uint8Array(readFileSync(path)), resourcesBeside(path));
      const read = await readGltfFile(path);
      const { glb } = await writeGltf(read.document, read.clips);
      const after = await validatorErrors(glb!, resourcesBeside(path));
      expect(after.filter((m) => m.pointer?.startsWith('/animations'))).toEqual([]);
      // errors the input already has in its meshes (non-normalized skin weights) or a missing image stay
      const inputCodes = new Set(before.map((m) => m.code));
      expect(after.filter((m) => !inputCodes.has(m.code))).toEqual([]);
      expect(after.length).toBeLessThanOrEqual(before.length);
    });
  }
});

describe('writeGltf keeps the nodes as the file holds them', () => {
  test('gltfpack RobotExpressive: every node translation, rotation and scale written back exactly, those within 1e-5 of the default too', async () => {
    const input = new Uint8Array(
      readFileSync(join(FIXTURE_GLTF_DIR, 'gltfpack', 'RobotExpressive.gltfpack.glb')),
    );
    const read = await readGltf(input);
    const { glb } = await writeGltf(read.document, read.clips);
    const before = glbJson(input).nodes as Record<string, number[] | undefined>[];
    const after = glbJson(glb as Uint8Array).nodes as Record<string, number[] | undefined>[];
    expect(after.length).toBe(before.length);
    const defaults: Record<string, number[]> = {
      translation: [0, 0, 0],
      rotation: [0, 0, 0, 1],
      scale: [1, 1, 1],
    };
    let nearDefault = 0;
    for (let i = 0; i < before.length; i++)
      for (const [k, d] of Object.entries(defaults)) {
        const b = before[i][k] ?? d;
        const a = after[i][k] ?? d;
        // float32 in the file: the value read back is the same float32
        expect(a.map(Math.fround), `node ${i} ${k}`).toEqual(b.map(Math.fround));
        if (b.some((x, c) => x !== d[c]) && b.every((x, c) => Math.abs(x - d[c]) <= 1e-5)) nearDefault++;
      }
    // the file has such values (leg bones scaled 0.999993 above meshes hung 3.3 m off): the test means something
    expect(nearDefault).toBeGreaterThan(40);
  });
});

describe('readGltf on the committed fixtures', () => {
  test('readGltf(Fox.glb) reads three animations of 24 skinned joints with their key counts', async () => {
    const { clips, warnings } = await readGltfFile(join(FIXTURE_GLTF_DIR, 'Fox.glb'));
    expect(warnings).toEqual([]);
    expect(clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);
    for (const c of clips) {
      // the skin's 24 joints plus the root node above them
      expect(c.skeleton.names.length).toBe(25);
      expect(c.tracks.length).toBe(21);
      expect(c.tracks.filter((t) => t.path === 'translation').length).toBe(1);
    }
    expect(clips.map((c) => c.tracks[0].times.length)).toEqual([83, 18, 25]);
  });

  test('readGltf(Animation_SamplerType_01/02) decodes normalized BYTE and SHORT rotations to the float file', async () => {
    const dir = join(FIXTURE_GLTF_DIR, 'asset-generator');
    const float = (await readGltfFile(join(dir, 'Animation_SamplerType_00.gltf'))).clips[0].tracks[0];
    const i8 = (await readGltfFile(join(dir, 'Animation_SamplerType_01.gltf'))).clips[0].tracks[0];
    const i16 = (await readGltfFile(join(dir, 'Animation_SamplerType_02.gltf'))).clips[0].tracks[0];
    // +90 deg about y, identity, -90 deg, identity, +90 deg
    const s = Math.SQRT1_2;
    const expected = [0, s, 0, s, 0, 0, 0, 1, 0, -s, 0, s, 0, 0, 0, 1, 0, s, 0, s];
    for (let i = 0; i < 20; i++) {
      expect(float.values[i]).toBeCloseTo(expected[i], 6);
      // quantization steps: 1/127 for BYTE, 1/32767 for SHORT, normalized afterwards
      expect(Math.abs(i8.values[i] - expected[i])).toBeLessThan(1 / 127);
      expect(Math.abs(i16.values[i] - expected[i])).toBeLessThan(1 / 32767);
    }
  });

  test('readGltf(interpolation_test.gltf) keeps STEP, LINEAR and CUBICSPLINE tracks with their tangents', async () => {
    const { clips, warnings } = await readGltfFile(join(FIXTURE_GLTF_DIR, 'interpolation_test.gltf'));
    expect(clips.length).toBe(9);
    const modes = clips.map((c) => c.tracks[0].interpolation);
    expect(modes.filter((m) => m === 'step').length).toBe(3);
    expect(modes.filter((m) => m === 'linear').length).toBe(2);
    expect(modes.filter((m) => m === 'cubicspline').length).toBe(4);
    for (const c of clips) {
      const t = c.tracks[0];
      expect(t.values.length).toBe(t.times.length * t.width * (t.interpolation === 'cubicspline' ? 3 : 1));
    }
    // the image l.jpg is not there: a warning, not a failure
    expect(warnings.map((w) => w.code)).toEqual(['resource']);
  });

  test('readGltf(AnimatedMorphCube.glb) carries the weights track (2 targets) untouched', async () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'AnimatedMorphCube.glb')));
    const { document, clips } = await readGltf(bytes);
    const t = clips[0].tracks[0];
    expect(t.path).toBe('weights');
    expect(t.width).toBe(2);
    expect(t.times.length).toBe(127);
    const { glb } = await writeGltf(document, clips);
    const again = await readGltf(glb!);
    expect(Array.from(again.clips[0].tracks[0].values)).toEqual(Array.from(t.values));
  });

  test('readGltf(bytes, { animation }) picks one animation by index or by name', async () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'Fox.glb')));
    expect((await readGltf(bytes, { animation: 1 })).clips.map((c) => c.name)).toEqual(['Walk']);
    expect((await readGltf(bytes, { animation: 'Run' })).clips.map((c) => c.name)).toEqual(['Run']);
    await expect(readGltf(bytes, { animation: 'Fly' })).rejects.toThrow(/no animation named 'Fly'/);
    await expect(readGltf(bytes, { animation: 3 })).rejects.toThrow(/animation 3 is not in the file/);
  });

  test('writeGltf(document, clips) writes rotation tracks sign-continuous and shares equal input times', async () => {
    const bytes = new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'Fox.glb')));
    const { document, clips } = await readGltf(bytes);
    // negate every other key of one track: the same rotations, a flip at every key
    const t = clips[1].tracks.find((x) => x.path === 'rotation')!;
    const flipped = Float64Array.from(t.values);
    for (let k = 1; k < t.times.length; k += 2) for (let i = 0; i < 4; i++) flipped[k * 4 + i] *= -1;
    clips[1] = { ...clips[1], tracks: clips[1].tracks.map((x) => (x === t ? { ...x, values: flipped } : x)) };
    const { glb } = await writeGltf(document, clips);
    const again = await readGltf(glb!);
    for (const c of again.clips)
      for (const x of c.tracks.filter((y) => y.path === 'rotation'))
        for (let k = 1; k < x.times.length; k++) {
          let d = 0;
          for (let i = 0; i < 4; i++) d += x.values[k * 4 + i] * x.values[(k - 1) * 4 + i];
          expect(d).toBeGreaterThanOrEqual(0);
        }
    const samplers = again.document.getRoot().listAnimations()[1].listSamplers();
    // Walk: 21 channels on one time track
    expect(new Set(samplers.map((s) => s.getInput())).size).toBe(1);
    expect(samplers[0].getInput()!.getMin([])[0]).toBe(again.clips[1].tracks[0].times[0]);
  });
});
