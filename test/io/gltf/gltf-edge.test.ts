import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GLTF } from '@gltf-transform/core';
import { describe, expect, test } from 'vitest';
import { type AnimationPointer, GltfError, readGltf, writeGltf } from '../../../src/io/index.js';
import { FIXTURE_GLTF_DIR, glbJson as rawGlbJson, validatorIssues } from '../../support/gltf-data.js';

// Fixtures made by scripts/gltf_edge_fixtures.py (buffers embedded as data URIs).
const EDGE = join(FIXTURE_GLTF_DIR, 'edge');
const fixtureJson = (name: string): GLTF.IGLTF => JSON.parse(readFileSync(join(EDGE, name), 'utf8'));
const fixtureBytes = (name: string) => new Uint8Array(readFileSync(join(EDGE, name)));

const glbJson = (glb: Uint8Array): GLTF.IGLTF => rawGlbJson(glb);

/** Float32 elements of a dense accessor of a .gltf whose one buffer is a data URI, read with Buffer. */
function denseFloats(json: GLTF.IGLTF, accessor: number): number[] {
  const a = json.accessors![accessor];
  const view = json.bufferViews![a.bufferView!];
  const uri = json.buffers![view.buffer].uri!;
  const bin = Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
  const width = { SCALAR: 1, VEC3: 3, VEC4: 4 }[a.type as 'SCALAR'];
  const out: number[] = [];
  const start = (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
  for (let i = 0; i < a.count * width; i++) out.push(bin.readFloatLE(start + i * 4));
  return out;
}

describe('readGltf and writeGltf keep KHR_animation_pointer channels', () => {
  test('readGltf(pointer.gltf) reads the node channel and reports the pointer channel', async () => {
    const { clips, warnings, document } = await readGltf(fixtureBytes('pointer.gltf'), {
      file: 'pointer.gltf',
    });
    expect(clips[0].tracks.map((t) => t.path)).toEqual(['rotation']);
    const w = warnings.filter((x) => x.code === 'unsupported');
    expect(w.length).toBe(1);
    expect([w[0].file, w[0].animation, w[0].channel]).toEqual(['pointer.gltf', 0, 1]);
    expect(w[0].message).toMatch(/\/nodes\/1\/translation/);
    const ch = document.getRoot().listAnimations()[0].listChannels()[1];
    expect(ch.getExtension<AnimationPointer>('KHR_animation_pointer')?.getPointer()).toBe(
      '/nodes/1/translation',
    );
  });

  test('writeGltf(document, clips) after an operation writes the pointer channel back intact, with a warning', async () => {
    const source = fixtureJson('pointer.gltf');
    const { document, clips } = await readGltf(fixtureBytes('pointer.gltf'));
    // an operation changed the rotation track: its channel gets new accessors, the pointer channel must not
    const t = clips[0].tracks[0];
    const values = Float64Array.from(t.values);
    values.set([0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)], 4);
    const changed = [{ ...clips[0], tracks: [{ ...t, values }] }];
    const out = await writeGltf(document, changed);
    expect(
      out.warnings.some((x) => x.code === 'unsupported' && /KHR_animation_pointer/.test(x.message)),
    ).toBe(true);
    const json = glbJson(out.glb!);
    expect(json.extensionsUsed).toContain('KHR_animation_pointer');
    const channel = json.animations![0].channels[1];
    expect(channel.target).toEqual({
      path: 'pointer',
      extensions: { KHR_animation_pointer: { pointer: '/nodes/1/translation' } },
    });
    // the pointer channel's keys are the file's own (read independently from the source JSON)
    const again = await readGltf(out.glb!);
    const sampler = again.document.getRoot().listAnimations()[0].listChannels()[1].getSampler()!;
    const srcSampler = source.animations![0].samplers[1];
    expect(Array.from(sampler.getInput()!.getArray()!)).toEqual(denseFloats(source, srcSampler.input));
    expect(Array.from(sampler.getOutput()!.getArray()!)).toEqual(denseFloats(source, srcSampler.output));
    // and the rotation track is the changed one
    expect(again.clips[0].tracks[0].values[5]).toBeCloseTo(Math.sin(Math.PI / 8), 7);
    const issues = await validatorIssues(out.glb!);
    expect(issues.filter((m) => m.severity === 0)).toEqual([]);
    // the validator does not check the pointer's target: an info, not an error
    expect(
      issues.filter((m) => m.pointer?.includes('KHR_animation_pointer')).map((m) => [m.code, m.severity]),
    ).toEqual([['INCOMPLETE_EXTENSION_SUPPORT', 2]]);
  });

  test('writeGltf(document, clips, { format: "gltf" }) keeps the pointer in .gltf output too', async () => {
    const { document, clips } = await readGltf(fixtureBytes('pointer.gltf'));
    const out = await writeGltf(document, clips, { format: 'gltf' });
    expect(out.json!.animations![0].channels[1].target).toEqual({
      path: 'pointer',
      extensions: { KHR_animation_pointer: { pointer: '/nodes/1/translation' } },
    });
  });
});

describe('readGltf decodes sparse sampler accessors', () => {
  // expected dense outputs written by scripts/gltf_edge_fixtures.py from the specification's rule
  const expected = JSON.parse(readFileSync(join(EDGE, 'sparse-expected.json'), 'utf8')) as {
    times: number[];
    rotation: number[];
    translation: number[];
  };

  test('readGltf(sparse.gltf) gives the dense values, also with an accessor byteOffset and no base view', async () => {
    const { clips, warnings } = await readGltf(fixtureBytes('sparse.gltf'));
    expect(warnings).toEqual([]);
    const [rotation, translation] = clips[0].tracks;
    expect(Array.from(rotation.times)).toEqual(expected.times);
    // unit float32 quaternions are kept as stored: exact
    expect(Array.from(rotation.values)).toEqual(expected.rotation);
    expect(Array.from(translation.values)).toEqual(expected.translation);
  });

  test('writeGltf(readGltf(sparse.gltf)) round trips the values and passes the validator', async () => {
    const { document, clips } = await readGltf(fixtureBytes('sparse.gltf'));
    const out = await writeGltf(document, clips);
    expect((await validatorIssues(out.glb!)).filter((m) => m.severity === 0)).toEqual([]);
    const again = await readGltf(out.glb!);
    expect(Array.from(again.clips[0].tracks[0].values)).toEqual(expected.rotation);
    expect(Array.from(again.clips[0].tracks[1].values)).toEqual(expected.translation);
  });

  /** sparse.gltf with `edit` applied to its JSON and to the bytes of its buffer. */
  function editedSparse(edit: (json: GLTF.IGLTF, bin: Buffer) => void): Uint8Array {
    const json = fixtureJson('sparse.gltf');
    const uri = json.buffers![0].uri!;
    const bin = Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64');
    edit(json, bin);
    json.buffers![0].uri = `data:application/octet-stream;base64,${bin.toString('base64')}`;
    return new TextEncoder().encode(JSON.stringify(json));
  }

  const cases: [string, (json: GLTF.IGLTF, bin: Buffer) => void, RegExp][] = [
    [
      'indices that do not increase',
      (json, bin) => {
        bin[json.bufferViews![2].byteOffset! + 1] = 1;
      },
      /indices must increase strictly/,
    ],
    [
      'an index past the count',
      (json, bin) => {
        bin[json.bufferViews![2].byteOffset! + 1] = 9;
      },
      /index 1 is 9/,
    ],
    [
      'values past their view',
      (json) => {
        json.accessors![1].sparse!.values.byteOffset = 24;
      },
      /values need 32 bytes at offset 24/,
    ],
    [
      'a sparse count larger than the accessor',
      (json) => {
        json.accessors![2].sparse!.count = 6;
      },
      /count 6/,
    ],
    [
      'float indices',
      (json) => {
        json.accessors![2].sparse!.indices.componentType = 5126;
      },
      /not an unsigned integer type/,
    ],
  ];
  for (const [what, edit, message] of cases) {
    test(`readGltf(sparse accessor with ${what}) is a GltfError naming the file, animation and channel`, async () => {
      const error = await readGltf(editedSparse(edit), { file: 's.gltf' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GltfError);
      const e = error as GltfError;
      expect(e.code).toBe('gltf-accessor');
      expect(e.message).toMatch(message);
      expect(e.file).toBe('s.gltf');
      expect(e.animation).toBe(0);
      expect([0, 1]).toContain(e.channel);
    });
  }
});

describe('writeGltf keeps what it did not write', () => {
  test('a sampler no channel uses in the file stays, with its keys; the file still validates', async () => {
    // sparse.gltf with a third sampler on the first sampler's accessors and no channel (valid glTF)
    const json = fixtureJson('sparse.gltf');
    const anim = json.animations![0];
    expect(anim.samplers).toHaveLength(2);
    anim.samplers.push({ ...anim.samplers[0], interpolation: 'STEP' });
    const { document, clips } = await readGltf(new TextEncoder().encode(JSON.stringify(json)));
    // a processed translation track (every value doubled), so the writer replaces keys
    const tracks = clips[0].tracks.map((t) =>
      t.path === 'translation' ? { ...t, values: Float64Array.from(t.values, (v) => 2 * v) } : t,
    );
    const out = await writeGltf(document, [{ ...clips[0], tracks }]);
    expect((await validatorIssues(out.glb!)).filter((m) => m.severity === 0)).toEqual([]);
    const written = glbJson(out.glb!).animations![0];
    expect(written.channels).toHaveLength(2);
    expect(written.samplers).toHaveLength(3);
    const used = new Set(written.channels.map((c) => c.sampler));
    const kept = written.samplers.filter((_, i) => !used.has(i));
    expect(kept).toHaveLength(1);
    expect(kept[0].interpolation).toBe('STEP');
    const accessors = glbJson(out.glb!).accessors!;
    expect(accessors[kept[0].input].count).toBe(json.accessors![anim.samplers[0].input].count);
  });
});
