import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ShapeError } from '../../../src/errors.js';
import { type AnimationPointer, GltfError, readGltf, writeGltf } from '../../../src/io/index.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';
import { createQuatSeries } from '../../../src/series/create.js';
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
    const e = await failure(readGltf(bytes, { file: 'box.glb' }));
    expect(e.code).toBe('gltf-glb');
    expect(e.file).toBe('box.glb');
    expect(e.message).toMatch(/47 6c 54 46/);
  });

  test('readGltf(.gltf without its .bin) is a GltfError naming the resource', async () => {
    const e = await failure(readGltf({ json: samplerJson() }, { file: 'a.gltf' }));
    expect(e.code).toBe('gltf-resource');
    expect(e.file).toBe('a.gltf');
    expect(e.message).toMatch(/Animation_SamplerType_00\.bin/);
  });

  test('readGltf(accessor past its buffer view) names the file, animation, channel and first key past it', async () => {
    let keys = 0;
    const input = edited((json) => {
      const output = json.accessors[json.animations[0].samplers[0].output];
      // the view holds this many VEC4 float keys; key `keys` is the first that does not fit
      keys = Math.floor((json.bufferViews[output.bufferView].byteLength - (output.byteOffset ?? 0)) / 16);
      output.count = 1000;
    });
    const e = await failure(readGltf(input, { file: 'x.gltf' }));
    expect(e.code).toBe('gltf-accessor');
    expect([e.file, e.animation, e.channel, e.key]).toEqual(['x.gltf', 0, 0, keys]);
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
    const e = await failure(readGltf(input, { file: 'x.gltf' }));
    expect(e.code).toBe('gltf-values');
    expect([e.file, e.animation, e.channel, e.key]).toEqual(['x.gltf', 0, 0, 2]);
  });

  test('readGltf(channel pointing at a missing node) names the channel', async () => {
    const input = edited((json) => {
      json.animations[0].channels[0].target.node = 7;
    });
    const e = await failure(readGltf(input, { file: 'x.gltf' }));
    expect(e.code).toBe('gltf-target');
    expect([e.file, e.animation, e.channel]).toEqual(['x.gltf', 0, 0]);
    expect(e.message).toMatch(/node 7/);
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

  test('writeGltf(clip whose skeleton lists a parent after its child, or out of range) is a ShapeError, no TypeError', async () => {
    const skeleton0 = makeSkeleton({
      names: ['hips', 'spine', 'head'],
      parents: [-1, 0, 1],
      restTranslations: [0, 1, 0, 0, 0.2, 0, 0, 0.3, 0],
    });
    const clip = makeClip({ skeleton: skeleton0, frameTime: 1 / 30, rotations: createQuatSeries(3, 3) });
    const keyed = { ...(await readGltf(box())).clips[0] };
    for (const parents of [Int32Array.of(-1, 2, 0), Int32Array.of(-1, 0, 7), Int32Array.of(0, 0, 1)]) {
      const skeleton = { ...clip.skeleton, parents };
      for (const bad of [
        { ...clip, skeleton },
        { ...keyed, skeleton },
      ]) {
        const error = await writeGltf(null, [bad as never]).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ShapeError);
        expect(String((error as Error).message)).toMatch(/writeGltf: clips\[0\]/);
      }
    }
  });
});

describe('readGltf and writeGltf on KHR_animation_pointer channels', () => {
  test('readGltf(file with a pointer channel sharing a sampler) warns; writeGltf keeps the channel with its pointer', async () => {
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
    // the track changes (key 1 becomes 45 degrees about y), so its sampler, shared with the pointer
    // channel, splits
    const t = clips[0].tracks[0];
    const values = Float64Array.from(t.values);
    values.set([0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)], 4);
    const out = await writeGltf(document, [{ ...clips[0], tracks: [{ ...t, values }] }]);
    expect(out.warnings.some((w) => /KHR_animation_pointer/.test(w.message))).toBe(true);
    const again = await readGltf(out.glb!);
    expect(again.clips[0].tracks.length).toBe(1);
    const channels = again.document.getRoot().listAnimations()[0].listChannels();
    expect(channels.length).toBe(2);
    expect(channels[0].getSampler()).not.toBe(channels[1].getSampler());
    expect(again.clips[0].tracks[0].values[5]).toBeCloseTo(Math.sin(Math.PI / 8), 7);
    const pointer = channels[1].getExtension<AnimationPointer>('KHR_animation_pointer');
    expect(pointer?.getPointer()).toBe('/nodes/0/rotation');
    // the pointer channel still plays the stored keys
    const stored = Array.from(channels[1].getSampler()!.getOutput()!.getArray()!);
    expect(stored).toEqual(Array.from(t.values, (v) => Math.fround(v)));
  });
});

describe('writeGltf(document, clips) rewrites an output accessor in place only when nothing else reads it', () => {
  test('writeGltf(clip with one of two tracks changed) leaves the output accessor both samplers share alone', async () => {
    const input = edited((json) => {
      json.nodes.push({ name: 'twin' });
      json.scenes[0].nodes.push(json.nodes.length - 1);
      const s = json.animations[0].samplers[0];
      json.animations[0].samplers.push({ input: s.input, output: s.output, interpolation: s.interpolation });
      json.animations[0].channels.push({
        sampler: 1,
        target: { node: json.nodes.length - 1, path: 'rotation' },
      });
    });
    const { document, clips } = await readGltf(input);
    expect(clips[0].tracks.length).toBe(2);
    const [t, twin] = clips[0].tracks;
    const values = Float64Array.from(t.values);
    values.set([0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)], 4);
    const { glb } = await writeGltf(document, [{ ...clips[0], tracks: [{ ...t, values }, twin] }]);
    const again = await readGltf(glb!);
    expect(again.clips[0].tracks[0].values[5]).toBeCloseTo(Math.sin(Math.PI / 8), 7);
    expect(Array.from(again.clips[0].tracks[1].values)).toEqual(Array.from(twin.values));
  });
});
