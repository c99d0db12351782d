// `reduce` on glTF holds its bound in scene units: the written file played by an evaluator written from
// the glTF specification (test/support/gltf-evaluator.ts), not by rotsig's reader or reducer.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import { runGltfTask } from '../../src/node/gltf-task.js';
import type { ReduceSummary } from '../../src/node/reduce-task.js';
import { runReduceTask } from '../../src/node/reduce-task.js';
import type { ReduceKeysOptions } from '../../src/ops/reduce/reduce-keys.js';
import {
  FIXTURE_GLTF_DIR,
  glbJson,
  HAS_SHARED_GLTF,
  meshoptDecoded as plain,
  sharedGltfPath,
  validatorErrors,
} from '../support/gltf-data.js';
import { Player, sceneObjectError } from '../support/gltf-evaluator.js';
import { mixamoRig, type RigOptions } from '../support/mixamo-rig.js';
import { hasRealBvh, sharedBvhPath } from '../support/shared-data.js';

/** Float32 keys in the written file: the evaluator may see the bound exceeded by this much. */
const FLOAT32_SLACK = 1 + 1e-3;

const fail = (e: unknown) => ({
  message: e instanceof Error ? e.message : String(e),
  code: e instanceof OptionError ? 'option' : '',
});

async function reduceRig(options: ReduceKeysOptions, rig: RigOptions = {}) {
  const input = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-')), 'rig.glb');
  writeFileSync(input, await mixamoRig(rig));
  return reduceFile(input, options);
}

async function reduceFile(input: string, options: ReduceKeysOptions, compression?: 'meshopt') {
  const output = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-')), 'reduced.glb');
  const r = await runReduceTask(
    { input, output, steps: [], emit: { kind: 'reduce', options, ...(compression ? { compression } : {}) } },
    fail,
  );
  expect(r.error?.message, 'the reduce task failed').toBeUndefined();
  const report = (r.data as ReduceSummary).animations[0].report;
  const written = new Uint8Array(readFileSync(output));
  const a = new Player(new Uint8Array(readFileSync(input)));
  const b = new Player(await plain(written));
  return { report, a, b, bytes: written.length };
}

describe('reduce in scene units', () => {
  it('Mixamo-style rig (Armature scaled 0.01, joints in cm): --preset acl holds 0.01 cm at a 3 cm shell in the scene', async () => {
    const { report, a, b } = await reduceRig({ preset: 'acl' });
    expect(report.tolerance).toBe(1e-4);
    expect(report.shellDistance).toBe(0.03);
    expect(b.keys).toBeLessThan(a.keys);
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    // the report is the file's error, measured apart
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
  });

  it('an explicit shell and tolerance are scene units too', async () => {
    const { report, a, b } = await reduceRig({ shellDistance: 0.1, tolerance: 5e-4 });
    const measured = sceneObjectError(a, b, 0.1);
    expect(measured.max).toBeLessThanOrEqual(5e-4 * FLOAT32_SLACK);
    expect(measured.max).toBeGreaterThan(1e-4); // it used the room it was given
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
  });

  it('a mesh node hung 0.4 m off an animated hand (a staff) is in the bound with its real offset', async () => {
    const rig: RigOptions = { attachment: { joint: 'LeftHand', offset: [10, 0, 39] } };
    const { report, a, b } = await reduceRig({ preset: 'acl' }, rig);
    const face = (a.json.nodes as { name?: string }[]).findIndex((n) => n.name === 'Attachment');
    expect(a.moving()).toContain(face);
    const onFace = sceneObjectError(a, b, 0.03, undefined, [face]);
    expect(onFace.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
    // the mesh, skins and node tree are written back: the attachment is still a node without a channel
    expect(b.json.nodes[face].name).toBe('Attachment');
    expect(b.channels.some((c) => c.node === face)).toBe(false);
  });

  it('--quantize int16 at 0.01 cm on the Mixamo-style rig: the rounded keys are measured, not refused a priori', async () => {
    const { report, a, b } = await reduceRig({ preset: 'acl', quantization: 'int16' });
    expect(report.quantization).toBe('int16');
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
    // stored as normalised SHORT: the evaluator decoded them
    const shorts = (b.json.accessors as { componentType: number; normalized?: boolean }[]).filter(
      (x) => x.componentType === 5122,
    );
    expect(shorts.length).toBeGreaterThan(0);
    expect(shorts.every((x) => x.normalized === true)).toBe(true);
  });

  it('--quantize variable at 0.01 cm on the Mixamo-style rig with a staff in the hand: a width per track, every key kept, report = evaluator, smaller than int16', async () => {
    const rig: RigOptions = { attachment: { joint: 'LeftHand', offset: [10, 0, 39] } };
    const input = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-')), 'rig.glb');
    writeFileSync(input, await mixamoRig(rig));
    const { report, a, b, bytes } = await reduceFile(input, { preset: 'acl', quantization: 'variable' });
    expect(report.quantization).toBe('variable');
    const widths = (report.rotationBits ?? []).filter((x) => x > 0);
    expect(widths.length).toBeGreaterThan(5);
    expect(widths.every((x) => x >= 4 && x <= 16)).toBe(true);
    expect(b.keys).toBe(a.keys);
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
    const face = (a.json.nodes as { name?: string }[]).findIndex((n) => n.name === 'Attachment');
    expect(sceneObjectError(a, b, 0.03, undefined, [face]).max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    const int16 = await reduceFile(input, { preset: 'acl', quantization: 'int16' }, 'meshopt');
    expect(bytes).toBeLessThan(int16.bytes);
  });

  for (const capture of [
    'cmu/01_01.bvh',
    'cmu-iclone/005_11.bvh',
    'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh',
  ])
    it.skipIf(!hasRealBvh(capture))(
      `--quantize int16 at 0.01 cm on ${capture} converted to GLB: within the bound, report = evaluator`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-'));
        const input = join(dir, 'capture.glb');
        const c = await runGltfTask(
          { input: sharedBvhPath(capture), output: input, steps: [], emit: { kind: 'bvh' } },
          fail,
        );
        expect(c.error?.message).toBeUndefined();
        const { report, a, b } = await reduceFile(input, { preset: 'acl', quantization: 'int16' });
        expect(b.keys).toBeLessThan(a.keys);
        // at most ~700 of the frames keep the evaluator's time short; keys fall on every frame of the grid
        const all = a.keyTimes();
        const every = Math.ceil(all.length / 700);
        const measured = sceneObjectError(
          a,
          b,
          0.03,
          all.filter((_, i) => i % every === 0),
        );
        expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
        expect(measured.max).toBeGreaterThan(0.5e-4);
        expect(measured.max).toBeLessThanOrEqual(report.maxError * 1.01);
        if (every === 1)
          expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
      },
      60_000,
    );
});

/**
 * `--quantize variable` on a glTF file: every animation's report, and per animation the written file's
 * error measured by the evaluator (meshopt decoded by meshoptimizer), with the raw JSON.
 */
async function variableFile(input: string) {
  const output = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-')), 'variable.glb');
  const r = await runReduceTask(
    {
      input,
      output,
      steps: [],
      emit: { kind: 'reduce', options: { preset: 'acl', quantization: 'variable' } },
    },
    fail,
  );
  expect(r.error?.message, 'the reduce task failed').toBeUndefined();
  const written = new Uint8Array(readFileSync(output));
  const decoded = await plain(written);
  const original = new Uint8Array(readFileSync(input));
  const animations = (r.data as ReduceSummary).animations.map((a, i) => {
    const before = new Player(original, i);
    const after = new Player(decoded, i);
    return { report: a.report, measured: sceneObjectError(before, after, 0.03).max, keys: after.keys };
  });
  return { animations, written, json: glbJson(written) };
}

describe('--quantize variable: a track no width holds stays float32', () => {
  it('Fox.glb at --preset acl: written (16-bit refuses it), the float tracks counted, each animation within 0.01 cm as the evaluator plays the file, report = evaluator, validator clean', async () => {
    const { animations, written, json } = await variableFile(join(FIXTURE_GLTF_DIR, 'Fox.glb'));
    expect(animations.length).toBe(3);
    let floats = 0;
    let filtered = 0;
    for (const { report, measured } of animations) {
      const bits = (report.rotationBits ?? []).filter((b) => b > 0);
      const float = bits.filter((b) => b === 32).length;
      expect(report.floatTracks).toBe(float);
      // some tracks need float32, not all: the others keep a width of 4 to 16
      expect(float).toBeGreaterThan(0);
      expect(float).toBeLessThan(bits.length);
      expect(bits.every((b) => b === 32 || (b >= 4 && b <= 16))).toBe(true);
      floats += float;
      filtered += bits.length - float;
      expect(measured).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
      expect(Math.abs(report.maxError - measured)).toBeLessThanOrEqual(0.01 * measured);
    }
    expect(await validatorErrors(written)).toEqual([]);
    // in the file: the float tracks as FLOAT outputs, the others as normalised SHORT under the quaternion filter
    const outputs = (
      json.animations as {
        channels: { sampler: number; target: { path: string } }[];
        samplers: { output: number }[];
      }[]
    ).flatMap((a) =>
      a.channels
        .filter((c) => c.target.path === 'rotation')
        .map((c) => json.accessors[a.samplers[c.sampler].output]),
    );
    expect(outputs.filter((x: { componentType: number }) => x.componentType === 5126).length).toBe(floats);
    const shorts = outputs.filter((x: { componentType: number }) => x.componentType === 5122);
    expect(shorts.length).toBe(filtered);
    for (const x of shorts)
      expect(json.bufferViews[x.bufferView].extensions.EXT_meshopt_compression.filter).toBe('QUATERNION');
  }, 60_000);

  it.skipIf(!HAS_SHARED_GLTF)(
    'RobotExpressive.glb (14 animations) at --preset acl: written, float tracks only where needed, every animation within the bound, report = evaluator',
    async () => {
      const { animations, written } = await variableFile(
        sharedGltfPath('robot-expressive/RobotExpressive.glb'),
      );
      expect(animations.length).toBe(14);
      const floats = animations.reduce((n, a) => n + (a.report.floatTracks ?? 0), 0);
      const tracks = animations.reduce(
        (n, a) => n + (a.report.rotationBits ?? []).filter((b) => b > 0).length,
        0,
      );
      expect(floats).toBeGreaterThan(0);
      expect(floats).toBeLessThan(tracks / 2);
      for (const { report, measured } of animations) {
        expect(measured).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
        expect(Math.abs(report.maxError - measured)).toBeLessThanOrEqual(0.01 * measured);
      }
      expect(await validatorErrors(written)).toEqual([]);
    },
    120_000,
  );
});

describe('reduce on gltfpack RobotExpressive: 16-bit rotations, meshes 3.3 m below leg bones scaled 0.999993', () => {
  it.each([
    ['float keys', {}],
    ['--quantize variable', { quantization: 'variable' as const }],
  ])(
    '%s at 0.1 mm: every animation within the bound as the evaluator plays the written file, report = evaluator',
    async (_, options) => {
      const input = join(FIXTURE_GLTF_DIR, 'gltfpack', 'RobotExpressive.gltfpack.glb');
      const output = join(mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-')), 'reduced.glb');
      const r = await runReduceTask(
        { input, output, steps: [], emit: { kind: 'reduce', options: { tolerance: 1e-4, ...options } } },
        fail,
      );
      expect(r.error?.message, 'the reduce task failed').toBeUndefined();
      const original = new Uint8Array(readFileSync(input));
      const written = await plain(new Uint8Array(readFileSync(output)));
      const animations = (r.data as ReduceSummary).animations;
      expect(animations.length).toBe(14);
      animations.forEach(({ report }, i) => {
        // before the writer kept near-default node scales, 'Jump' measured 9.6e-6 m against a report of 2.8e-7
        const measured = sceneObjectError(new Player(original, i), new Player(written, i), 0.03).max;
        expect(measured, `animation ${i}`).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
        expect(Math.abs(report.maxError - measured), `animation ${i}`).toBeLessThanOrEqual(0.01 * measured);
      });
      expect(await validatorErrors(new Uint8Array(readFileSync(output)))).toEqual([]);
      if (!('quantization' in options)) {
        // the kept 16-bit keys stay 16-bit, exactly as stored: the outputs take fewer bytes than the input's
        const before = sampledOutputs(glbJson(original));
        const after = sampledOutputs(glbJson(new Uint8Array(readFileSync(output))));
        const rotations = after.filter((o) => o.path === 'rotation');
        expect(rotations.length).toBeGreaterThan(100);
        for (const { accessor } of rotations)
          expect([accessor.componentType, accessor.normalized]).toEqual([5122, true]);
        expect(outputBytes(after)).toBeLessThan(outputBytes(before));
      }
    },
    120_000,
  );
});

interface OutputAccessor {
  count: number;
  componentType: number;
  type: string;
  normalized?: boolean;
}

/** Every animation channel's path and output accessor, from the raw JSON. */
function sampledOutputs(json: ReturnType<typeof glbJson>): { path: string; accessor: OutputAccessor }[] {
  const animations = json.animations as {
    channels: { sampler: number; target: { path: string } }[];
    samplers: { output: number }[];
  }[];
  return animations.flatMap((a) =>
    a.channels.map((c) => ({ path: c.target.path, accessor: json.accessors[a.samplers[c.sampler].output] })),
  );
}

/** Bytes of the output accessors' elements (FLOAT, SHORT or BYTE components). */
function outputBytes(list: { accessor: OutputAccessor }[]): number {
  const size: Record<number, number> = { 5126: 4, 5122: 2, 5123: 2, 5120: 1, 5121: 1 };
  const width: Record<string, number> = { SCALAR: 1, VEC3: 3, VEC4: 4 };
  return list.reduce((n, { accessor: x }) => n + x.count * size[x.componentType] * width[x.type], 0);
}
/** The BIN chunk of GLB bytes. */
function glbBin(glb: Uint8Array): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const json = view.getUint32(12, true);
  return glb.subarray(20 + json + 8, 20 + json + 8 + view.getUint32(20 + json, true));
}

describe('--quantize variable: translations under the exponential filter', () => {
  const CMU = join(FIXTURE_GLTF_DIR, '..', '..', '..', 'samples', '01_01.bvh');
  for (const tolerance of [0.02, 0.05])
    it(`CMU 01_01 (BVH, written in metres) at ${tolerance} cm: the root translation at its reported width, within the bound as the evaluator plays the file, report = evaluator, smaller than float32`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-'));
      const full = join(dir, 'full.glb');
      const c = await runGltfTask({ input: CMU, output: full, steps: [], emit: { kind: 'bvh' } }, fail);
      expect(c.error?.message).toBeUndefined();
      const output = join(dir, 'variable.glb');
      const options: ReduceKeysOptions = { preset: 'acl', tolerance, quantization: 'variable' };
      const r = await runReduceTask(
        { input: CMU, output, steps: [], emit: { kind: 'reduce', options } },
        fail,
      );
      expect(r.error?.message, 'the reduce task failed').toBeUndefined();
      const report = (r.data as ReduceSummary).animations[0].report;
      // the root (joint 0) is the only joint with a translation track
      const bits = report.translationBits ?? [];
      expect(bits.filter((b) => b > 0)).toEqual([bits[0]]);
      expect(bits[0]).toBeGreaterThanOrEqual(1);
      expect(bits[0]).toBeLessThanOrEqual(24);
      const written = new Uint8Array(readFileSync(output));
      expect(await validatorErrors(written)).toEqual([]);
      const json = glbJson(written);
      const channels = json.animations[0].channels as { sampler: number; target: { path: string } }[];
      const translations = channels.filter((ch) => ch.target.path === 'translation');
      expect(translations.length).toBe(1);
      const accessor = json.accessors[json.animations[0].samplers[translations[0].sampler].output];
      expect([accessor.componentType, accessor.type, accessor.normalized ?? false]).toEqual([
        5126,
        'VEC3',
        false,
      ]);
      const ext = json.bufferViews[accessor.bufferView].extensions.EXT_meshopt_compression;
      expect([ext.mode, ext.filter, ext.byteStride]).toEqual(['ATTRIBUTES', 'EXPONENTIAL', 12]);
      // the codes as stored (meshoptimizer's decoder without the filter): in each component the largest
      // mantissa fills the reported width (SharedComponent: 2^(bits-2) <= |m| <= 2^(bits-1))
      await MeshoptDecoder.ready;
      const source = glbBin(written).subarray(ext.byteOffset ?? 0, (ext.byteOffset ?? 0) + ext.byteLength);
      const stored = new Uint8Array(ext.count * 12);
      MeshoptDecoder.decodeGltfBuffer(stored, ext.count, 12, source, 'ATTRIBUTES', 'NONE');
      const codes = new Uint32Array(stored.buffer, accessor.byteOffset ?? 0, accessor.count * 3);
      for (let comp = 0; comp < 3; comp++) {
        let largest = 0;
        for (let k = 0; k < accessor.count; k++)
          largest = Math.max(largest, Math.abs((codes[k * 3 + comp] << 8) >> 8));
        expect(largest, `component ${comp}`).toBeGreaterThanOrEqual(2 ** (bits[0] - 2));
        expect(largest, `component ${comp}`).toBeLessThanOrEqual(2 ** (bits[0] - 1));
      }
      // the file as a player plays it at every frame: within the bound (0.01 scale: cm to m), and the
      // printed error is the file's
      const a = new Player(new Uint8Array(readFileSync(full)));
      const b = new Player(await plain(written));
      expect(b.keys).toBe(a.keys - 4 * 2752); // every key kept; 4 constant tracks at rest dropped
      const measured = sceneObjectError(a, b, 0.03).max;
      expect(measured).toBeLessThanOrEqual(tolerance * 0.01 * FLOAT32_SLACK);
      expect(Math.abs(report.maxError * 0.01 - measured)).toBeLessThanOrEqual(0.01 * measured);
      // smaller than the same track as float32 under the same codec (what the file held before)
      await MeshoptEncoder.ready;
      const before = (await new NodeIO().read(full))
        .getRoot()
        .listAnimations()[0]
        .listChannels()
        .find((ch) => ch.getTargetPath() === 'translation')!
        .getSampler()!
        .getOutput()!
        .getArray() as Float32Array;
      expect(before.length).toBe(accessor.count * 3);
      const floatBytes = MeshoptEncoder.encodeGltfBuffer(
        new Uint8Array(before.buffer, before.byteOffset, before.byteLength),
        accessor.count,
        12,
        'ATTRIBUTES',
        0,
      ).length;
      expect(ext.byteLength).toBeLessThan(0.8 * floatBytes);
    }, 120_000);
});
