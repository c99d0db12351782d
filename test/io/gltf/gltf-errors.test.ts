import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { GltfError, readGltf, writeGltf } from '../../../src/io/index.js';
import { FIXTURE_GLTF_DIR } from '../../support/gltf-data.js';

const box = () => new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'BoxAnimated.glb')));
const samplerJson = () =>
  JSON.parse(
    readFileSync(join(FIXTURE_GLTF_DIR, 'asset-generator', 'Animation_SamplerType_00.gltf'), 'utf8'),
  );
const samplerBin = () =>
  new Uint8Array(readFileSync(join(FIXTURE_GLTF_DIR, 'asset-generator', 'Animation_SamplerType_00.bin')));

/** The error readGltf rejects with, checked to be a GltfError (never a TypeError). */
async function failure(promise: Promise<unknown>): Promise<GltfError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GltfError);
  return error as GltfError;
}

/** The .gltf with its buffer where `edit` changed the JSON and `bin` the bytes. */
function edited(edit: (json: ReturnType<typeof samplerJson>, bin: Uint8Array) => void) {
  const json = samplerJson();
  const bin = samplerBin();
  edit(json, bin);
  return {
    json,
    resources: { 'Animation_SamplerType_00.bin': bin, 'Textures/BaseColor_Cube.png': new Uint8Array(0) },
  };
}

/** The float32 view of the sampler's input (times) and output (rotations) in the .bin. */
function animationData(
  json: ReturnType<typeof samplerJson>,
  bin: Uint8Array,
  which: 'input' | 'output',
): Float32Array {
  const accessor = json.accessors[json.animations[0].samplers[0][which]];
  const view = json.bufferViews[accessor.bufferView];
  const offset = (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0);
  return new Float32Array(bin.buffer, bin.byteOffset + offset, accessor.count * (which === 'input' ? 1 : 4));
}

describe('readGltf(input) on bad input throws a GltfError naming file, animation, channel and key', () => {
  test('readGltf(truncated GLB) is a GltfError, code gltf-glb', async () => {
    const bytes = box();
    for (const length of [3, 19, 100, bytes.length - 1]) {
      const e = await failure(readGltf(bytes.subarray(0, length), { file: 'box.glb' }));
      expect(e.code).toBe('gltf-glb');
      expect(e.file).toBe('box.glb');
    }
  });

  test('readGltf(bytes with a wrong magic) is a GltfError that shows the bytes', async () => {
    const bytes = box();
    bytes[0] = 0x47;
    const e = await failure(readGltf(bytes));
    expect(e.code).toBe('gltf-glb');
    expect(e.message).toMatch(/47 6c 54 46/);
  });

  test('readGltf(.gltf without its .bin) is a GltfError naming the resource', async () => {
    const e = await failure(readGltf({ json: samplerJson() }, { file: 'a.gltf' }));
    expect(e.code).toBe('gltf-resource');
    expect(e.message).toMatch(/Animation_SamplerType_00\.bin/);
  });

  test('readGltf(accessor past its buffer view) is a GltfError, code gltf-accessor', async () => {
    const input = edited((json) => {
      json.accessors[json.animations[0].samplers[0].output].count = 1000;
    });
    expect((await failure(readGltf(input))).code).toBe('gltf-accessor');
  });

  test('readGltf(key times that do not increase) names animation 0, channel 0 and the key', async () => {
    const input = edited((json, bin) => {
      const times = animationData(json, bin, 'input');
      times[3] = times[2];
    });
    const e = await failure(readGltf(input, { file: 'x.gltf' }));
    expect(e.code).toBe('gltf-times');
    expect([e.file, e.animation, e.channel, e.key]).toEqual(['x.gltf', 0, 0, 3]);
  });

  test('readGltf(NaN in an output) names the key', async () => {
    const input = edited((json, bin) => {
      animationData(json, bin, 'output')[2 * 4 + 1] = Number.NaN;
    });
    const e = await failure(readGltf(input));
    expect(e.code).toBe('gltf-values');
    expect([e.animation, e.channel, e.key]).toEqual([0, 0, 2]);
  });

  test('readGltf(channel pointing at a missing node) names the channel', async () => {
    const input = edited((json) => {
      json.animations[0].channels[0].target.node = 7;
    });
    const e = await failure(readGltf(input));
    expect(e.code).toBe('gltf-target');
    expect([e.animation, e.channel]).toEqual([0, 0]);
  });

  test('readGltf(rotations of length 2) normalizes them with a warning, or throws with quaternions: error', async () => {
    const input = edited((json, bin) => {
      const out = animationData(json, bin, 'output');
      for (let i = 4; i < 8; i++) out[i] *= 2;
    });
    const { clips, warnings } = await readGltf(input);
    expect(warnings.map((w) => w.code)).toContain('quaternion');
    const v = clips[0].tracks[0].values;
    expect(Math.hypot(v[4], v[5], v[6], v[7])).toBeCloseTo(1, 12);
    const e = await failure(readGltf(input, { quaternions: 'error' }));
    expect(e.key).toBe(1);
  });
});

describe('writeGltf(doc, clips) refuses what its reader rejects, before writing anything', () => {
  test('writeGltf(clip with key times that collapse in float32) is a GltfError, code gltf-write', async () => {
    const { document, clips } = await readGltf(box());
    const t = clips[0].tracks[0];
    const times = Float64Array.from(t.times);
    times[1] = times[0] + 1e-12;
    const bad = { ...clips[0], tracks: [{ ...t, times }, ...clips[0].tracks.slice(1)] };
    const e = await failure(writeGltf(document, [bad]));
    expect(e.code).toBe('gltf-write');
    expect(e.key).toBe(1);
  });

  test('writeGltf(clip with a NaN value) is a GltfError naming the key', async () => {
    const { document, clips } = await readGltf(box());
    const t = clips[0].tracks[0];
    const values = Float64Array.from(t.values);
    values[values.length - 1] = Number.NaN;
    const bad = { ...clips[0], tracks: [{ ...t, values }] };
    const e = await failure(writeGltf(document, [bad]));
    expect(e.key).toBe(t.times.length - 1);
  });
});

describe('readGltf and writeGltf on KHR_animation_pointer channels', () => {
  test('readGltf(file with a pointer channel) warns and reads the rest; writeGltf drops it with a warning', async () => {
    const input = edited((json) => {
      json.extensionsUsed = ['KHR_animation_pointer'];
      json.animations[0].channels.push({
        sampler: 0,
        target: { path: 'pointer', extensions: { KHR_animation_pointer: { pointer: '/nodes/0/rotation' } } },
      });
    });
    const { document, clips, warnings } = await readGltf(input);
    expect(clips[0].tracks.length).toBe(1);
    expect(warnings.some((w) => w.code === 'unsupported' && w.channel === 1)).toBe(true);
    const out = await writeGltf(document, clips);
    expect(out.warnings.some((w) => /pointer/.test(w.message))).toBe(true);
    const again = await readGltf(out.glb!);
    expect(again.warnings).toEqual([]);
    expect(again.clips[0].tracks.length).toBe(1);
  });
});
