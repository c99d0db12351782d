// Variable bit rates on translations: each translation track's exponential filter codes, as reduceKeys
// returns them, decode through meshoptimizer's own decoder to the track's values (times the writer's
// scale) bit for bit, at the width the report gives; the widths are chosen with the rotations' under one
// bound, and the measured error is within it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { decodeExpFilter } from '../../../src/ops/reduce/exp-filter.js';
import { reduceKeys } from '../../../src/ops/reduce/reduce-keys.js';
import type { KeyedClip } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';

const cmu = () => parseBvh(readFileSync(join(__dirname, '..', '..', '..', 'samples', '01_01.bvh'), 'utf8'));

/** meshoptimizer's decoder on `codes` (three per element) through its glTF buffer codec, filter 3. */
function meshoptDecode(codes: Uint32Array): Float32Array {
  const n = codes.length / 3;
  const packed = MeshoptEncoder.encodeGltfBuffer(
    new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength),
    n,
    12,
    'ATTRIBUTES',
    0,
  );
  const out = new Uint8Array(n * 12);
  MeshoptDecoder.decodeGltfBuffer(out, n, 12, packed, 'ATTRIBUTES', 'EXPONENTIAL');
  return new Float32Array(out.buffer);
}

describe("quantization 'variable': translation tracks under the exponential filter", () => {
  it('CMU 01_01 in metres (translationScale 0.01): the root codes decode, in meshoptimizer and in rotsig, to the track times 0.01 in float32, at the reported width', async () => {
    await MeshoptEncoder.ready;
    await MeshoptDecoder.ready;
    const clip = cmu();
    const tolerance = 0.05;
    const {
      clip: keyed,
      report,
      translationCodes,
    } = reduceKeys(clip, {
      preset: 'acl',
      unitsPerMeter: 100,
      tolerance,
      quantization: 'variable',
      translationScale: 0.01,
    });
    expect(report.maxError).toBeLessThanOrEqual(tolerance);
    expect(report.translationBits?.length).toBe(clip.skeleton.names.length);
    expect(translationCodes?.map((c) => c.joint)).toEqual([0]);
    const [root] = translationCodes!;
    expect(report.translationBits?.[0]).toBe(root.bits);
    expect(root.bits).toBeGreaterThanOrEqual(1);
    expect(root.bits).toBeLessThan(24);
    const track = keyed.tracks.find((t) => t.path === 'translation' && t.joint === 0)!;
    expect(root.codes.length).toBe(track.values.length);
    expect(track.values.length).toBe(clip.frames * 3);
    const theirs = meshoptDecode(root.codes);
    const ours = new Float32Array(root.codes.length);
    decodeExpFilter(root.codes, ours);
    expect(ours).toEqual(theirs);
    // what a writer at scale 0.01 stores: the track's values times 0.01, in float32
    const stored = Float32Array.from(track.values, (v) => v * 0.01);
    expect(stored).toEqual(theirs);
  });

  it('at the default translationScale the codes decode to the values themselves; a looser tolerance takes fewer bits', async () => {
    await MeshoptEncoder.ready;
    await MeshoptDecoder.ready;
    const clip = cmu();
    const width = (tolerance: number) => {
      const r = reduceKeys(clip, { preset: 'acl', unitsPerMeter: 100, tolerance, quantization: 'variable' });
      expect(r.report.maxError).toBeLessThanOrEqual(tolerance);
      const [root] = r.translationCodes!;
      const track = r.clip.tracks.find((t) => t.path === 'translation' && t.joint === 0)!;
      expect(meshoptDecode(root.codes)).toEqual(Float32Array.from(track.values));
      expect(Float64Array.from(new Float32Array(track.values))).toEqual(track.values);
      return root.bits;
    };
    expect(width(0.2)).toBeLessThan(width(0.02));
  });

  it('a one-key translation stays float32; a CUBICSPLINE translation of a keyed clip stays float32; translationScale must be positive', () => {
    const skeleton = makeSkeleton({
      names: ['root', 'child'],
      parents: [-1, 0],
      restTranslations: [0, 0, 0, 0, 1, 0],
    });
    const times = Float64Array.from({ length: 30 }, (_, i) => i / 30);
    const rotation = new Float64Array(30 * 4);
    for (let i = 0; i < 30; i++) {
      const a = 0.3 * Math.sin(i / 5);
      rotation.set([0, Math.sin(a / 2), 0, Math.cos(a / 2)], i * 4);
    }
    const moving = new Float64Array(30 * 3);
    for (let i = 0; i < 30; i++) moving.set([Math.sin(i / 4), 1, 0.5 * i], i * 3);
    const cubic = new Float64Array(30 * 9);
    for (let i = 0; i < 30; i++) cubic.set([0, 0, 0, Math.cos(i / 4), 2, 0, 0, 0, 0], i * 9);
    const keyed: KeyedClip = {
      skeleton,
      orders: ['XYZ', 'XYZ'],
      tracks: [
        { joint: 0, path: 'translation', interpolation: 'linear', times, values: moving, width: 3 },
        { joint: 0, path: 'rotation', interpolation: 'linear', times, values: rotation, width: 4 },
        {
          joint: 1,
          path: 'translation',
          interpolation: 'cubicspline',
          times,
          values: cubic,
          width: 3,
        },
      ],
    };
    const r = reduceKeys(keyed, { tolerance: 1e-3, quantization: 'variable' });
    expect(r.report.maxError).toBeLessThanOrEqual(1e-3);
    expect(r.report.translationBits?.[0]).toBeLessThan(24);
    expect(r.report.translationBits?.[1]).toBe(32);
    expect(r.translationCodes?.map((c) => c.joint)).toEqual([0]);
    const constant: KeyedClip = {
      ...keyed,
      tracks: [
        keyed.tracks[1],
        {
          joint: 1,
          path: 'translation',
          interpolation: 'linear',
          times,
          values: new Float64Array(90).fill(0.25),
          width: 3,
        },
      ],
    };
    const one = reduceKeys(constant, { tolerance: 1e-3, quantization: 'variable', keepAtRest: 'all' });
    expect(one.report.translationBits?.[1]).toBe(32);
    expect(one.translationCodes).toEqual([]);
    for (const translationScale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => reduceKeys(keyed, { quantization: 'variable', translationScale })).toThrow(OptionError);
    // finite, but the stored translations would be infinite in float32: named, not a non-finite pose
    expect(() => reduceKeys(keyed, { quantization: 'variable', translationScale: 1e300 })).toThrow(
      /translationScale 1e\+300 puts joint \d+'s translation .* beyond float32/,
    );
  });
});
