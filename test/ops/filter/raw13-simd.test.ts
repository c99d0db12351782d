// The raw-space 13-tap fast path of filterRotations (gaussian σ = 2) runs on the WebAssembly SIMD kernel
// (raw13 in numeric/simd.wat) where the engine has one, and on the JavaScript phases otherwise. The kernel
// does the JavaScript's operations in the same order, so the two paths must agree to the bit, and report
// the same errors.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../../src/errors.js';
import { parseBvhBytes } from '../../../src/io/index.js';
import { setSimdEnabled, simdAvailable } from '../../../src/numeric/simd.js';
import { filterRotations } from '../../../src/ops/filter/filter-rotations.js';
import { createSimdRaw13 } from '../../../src/ops/filter/raw13-simd.js';
import { gaussian } from '../../../src/ops/kernel/kernels.js';
import { unrollQuaternions } from '../../../src/ops/unroll/unroll-quaternions.js';
import type { FloatArray, QuatSeries } from '../../../src/series/types.js';
import { gauss, rng } from '../../support/random.js';

afterEach(() => {
  setSimdEnabled(true);
});

const sigma2 = gaussian(2);

/** Whether two arrays hold the same bits (a byte comparison; both of one element type). */
const sameBits = (a: FloatArray, b: FloatArray) =>
  a.constructor === b.constructor &&
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The filtered data on the kernel and on the JavaScript phases. */
function bothPaths(series: QuatSeries<FloatArray>, float32Out = false): [FloatArray, FloatArray] {
  const run = () =>
    filterRotations(
      series,
      sigma2,
      float32Out
        ? {
            out: {
              data: new Float32Array(series.data.length),
              frames: series.frames,
              joints: series.joints,
            },
          }
        : {},
    ).data;
  setSimdEnabled(true);
  const simd = run();
  setSimdEnabled(false);
  const scalar = run();
  setSimdEnabled(true);
  return [simd, scalar];
}

/** A random walk of unit quaternions, `step` radians of noise per frame, some signs flipped. */
function walk(seed: number, frames: number, joints: number, step: number, float32 = false) {
  const random = rng(seed);
  const data = float32 ? new Float32Array(frames * joints * 4) : new Float64Array(frames * joints * 4);
  const q = new Float64Array(joints * 4);
  for (let i = 0; i < q.length; i++) q[i] = gauss(random);
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < joints; j++) {
      const o = j * 4;
      if (f > 0) for (let c = 0; c < 4; c++) q[o + c] += step * gauss(random);
      const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
      const sign = random() < 0.3 ? -1 : 1;
      for (let c = 0; c < 4; c++) data[(f * joints + j) * 4 + c] = (sign * q[o + c]) / n;
    }
  }
  return { data, frames, joints };
}

const capture = (name: string) =>
  parseBvhBytes(new Uint8Array(readFileSync(new URL(`../../../samples/${name}`, import.meta.url)))).clip;

describe.skipIf(!simdAvailable())('raw13 kernel: the same bits as the JavaScript phases', () => {
  it('on two real captures, as read and unrolled, with odd and even joint counts', () => {
    for (const name of ['01_01.bvh', 'AV_8Walk_Meredith_HVHA_Rep1.bvh']) {
      const clip = capture(name);
      for (const series of [clip.rotations, unrollQuaternions(clip.rotations)]) {
        // 31 and 23 joints (odd): the last joint fills both lanes of its pair; one joint fewer is even
        for (const joints of [series.joints, series.joints - 1]) {
          const data = new Float64Array(series.frames * joints * 4);
          for (let f = 0; f < series.frames; f++)
            data.set(
              series.data.subarray(f * series.joints * 4, (f * series.joints + joints) * 4),
              f * joints * 4,
            );
          const [simd, scalar] = bothPaths({ data, frames: series.frames, joints });
          expect(sameBits(simd, scalar)).toBe(true);
        }
      }
    }
  });

  it('on random walks: block ends, Float32 input and output, wide skeletons, windows over a half turn', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 29, max: 700 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(0.01, 0.1, 0.6),
        fc.boolean(),
        fc.boolean(),
        (seed, frames, joints, step, f32in, f32out) => {
          const [simd, scalar] = bothPaths(walk(seed, frames, joints, step, f32in), f32out);
          return sameBits(simd, scalar);
        },
      ),
      { numRuns: 60, seed: 1313 },
    );
    // steps of 0.6 rad leave many windows to the per-tap path; 3000 joints make blocks of 31 frames, and
    // 20,000 joints blocks too short for the kernel (the JavaScript runs them)
    for (const [frames, joints] of [
      [300, 3000],
      [40, 20000],
    ]) {
      const [simd, scalar] = bothPaths(walk(7, frames, joints, 0.05));
      expect(sameBits(simd, scalar)).toBe(true);
    }
  });

  it('a half-turn jump: the windows across it take the per-tap path, as in the JavaScript', () => {
    const series = walk(3, 400, 5, 0.01);
    // joints 1 and 4 turn by about 180° at frame 200 (x ↔ w swapped: a different rotation, not a sign flip)
    for (let f = 200; f < 400; f++) {
      for (const j of [1, 4]) {
        const o = (f * 5 + j) * 4;
        const [x, y, z, w] = series.data.subarray(o, o + 4);
        series.data.set([w, z, -y, -x], o);
      }
    }
    const [simd, scalar] = bothPaths(series);
    expect(sameBits(simd, scalar)).toBe(true);
    // the kernel itself lists those windows: frames 194..205 of joints 1 and 4, each once, row by row
    const runner = createSimdRaw13(5, kernelTable(), 388, 1.3)!;
    const out = new Float64Array(series.data.length);
    const left = runner.run(out, series.data, 6, 6 + runner.block);
    const listed = Array.from(runner.unsafe.subarray(0, left));
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    const frames = new Set(listed.map((k) => 6 + Math.floor(k / 5)));
    expect(new Set(listed.map((k) => k % 5))).toEqual(new Set([1, 4]));
    expect(Math.min(...frames)).toBeGreaterThanOrEqual(194);
    expect(Math.max(...frames)).toBeLessThanOrEqual(205);
    expect(frames.has(199) && frames.has(200)).toBe(true);
  });

  it('non-finite input: the same error on both paths', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const series = walk(11, 300, 3, 0.02);
      series.data[(150 * 3 + 2) * 4 + 1] = bad;
      const messages = [true, false].map((on) => {
        setSimdEnabled(on);
        try {
          filterRotations(series, sigma2);
          return 'no error';
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidValueError);
          return (error as Error).message;
        }
      });
      expect(messages[0]).toBe(messages[1]);
      expect(messages[0]).toMatch(/non-finite input at frame 150, joint 2/);
    }
  });

  it('a window that passes the chord test but sums to zero stops the kernel with −1, writing nothing', () => {
    const series = walk(5, 100, 4, 0.01);
    const zeros = new Float64Array(13);
    const runner = createSimdRaw13(4, zeros, 88, 1.3)!;
    const out = new Float64Array(series.data.length).fill(7);
    expect(runner.run(out, series.data, 6, 6 + runner.block)).toBe(-1);
    expect(out.every((v) => v === 7)).toBe(true);
  });
});

/** The 13 weights of gaussian σ = 2, normalised (the listing of windows depends on the chords alone). */
function kernelTable(): Float64Array {
  const table = new Float64Array(13);
  let sum = 0;
  for (let k = 0; k < 13; k++) sum += table[k] = sigma2.evaluate(k - 6);
  return table.map((w) => w / sum);
}
