// The down-sampling log blend runs on the WebAssembly SIMD kernel (blendLog in numeric/simd.wat) where the
// engine has one, and on the scalar loop otherwise. The kernel does the scalar loop's operations in the
// same order, so the two paths must agree to the bit, on every input the resampler takes.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../../src/errors.js';
import { setSimdEnabled, simdAvailable, simdScratch } from '../../../src/numeric/simd.js';
import {
  type ResampleKernelName,
  type ResampleRotationsOptions,
  resampleRotations,
} from '../../../src/ops/resample/resample-rotations.js';
import type { FloatArray, QuatSeries } from '../../../src/series/types.js';
import { gauss, rng } from '../../support/random.js';

afterEach(() => {
  setSimdEnabled(true);
});

/**
 * A random walk of unit quaternions, `step` radians of noise per frame, every other sign flipped; joints
 * listed in `still` hold their first rotation (the kernel's "tap equals the reference" case).
 */
function walk(
  seed: number,
  frames: number,
  joints: number,
  step: number,
  still: readonly number[] = [],
  float32 = false,
): QuatSeries<FloatArray> {
  const random = rng(seed);
  const data = float32 ? new Float32Array(frames * joints * 4) : new Float64Array(frames * joints * 4);
  const q = new Float64Array(joints * 4);
  for (let j = 0; j < joints; j++) {
    for (let c = 0; c < 4; c++) q[j * 4 + c] = gauss(random);
  }
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < joints; j++) {
      const o = j * 4;
      if (f > 0 && !still.includes(j)) for (let c = 0; c < 4; c++) q[o + c] += step * gauss(random);
      const n = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
      const sign = random() < 0.3 ? -1 : 1;
      for (let c = 0; c < 4; c++) data[(f * joints + j) * 4 + c] = (sign * q[o + c]) / n;
    }
  }
  return { data, frames, joints };
}

/** The resampled data on the kernel and on the scalar loop. */
function bothPaths(
  series: QuatSeries<FloatArray>,
  options: ResampleRotationsOptions,
): [FloatArray, FloatArray] {
  setSimdEnabled(true);
  const simd = resampleRotations(series, options).data;
  setSimdEnabled(false);
  const scalar = resampleRotations(series, options).data;
  setSimdEnabled(true);
  return [simd, scalar];
}

const DOWN_KERNELS: ResampleKernelName[] = [
  'lanczos3',
  'lanczos2',
  'catmull-rom',
  'linear',
  'cubic6',
  'sinc',
];

describe.skipIf(!simdAvailable())('down-sampling log blend: WebAssembly kernel and scalar loop', () => {
  it('agree to the bit on random walks: joint counts 1-9, rates, kernels, boundaries, Float32, signs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 2, max: 400 }),
        fc.constantFrom(0.002, 0.05, 0.4),
        fc.constantFrom(...DOWN_KERNELS),
        fc.constantFrom('reflect', 'clamp', 'wrap'),
        fc.constantFrom([120, 30], [100, 30], [250, 24], [60, 59]),
        fc.boolean(),
        fc.nat(),
        (joints, frames, step, kernel, boundary, [from, to], float32, seed) => {
          const series = walk(seed, frames, joints, step, [0], float32);
          const options = { sourceRate: from, targetRate: to, kernel, boundary } as ResampleRotationsOptions;
          const [simd, scalar] = bothPaths(series, options);
          expect(simd.length).toBe(scalar.length);
          expect(Array.from(simd)).toEqual(Array.from(scalar));
        },
      ),
      { numRuns: 150, seed: 20261124 },
    );
  });

  it('agree where lanes leave the polynomials (large steps between taps) and the scalar code finishes the pair', () => {
    // 1.5 rad of noise per frame: relative rotations far beyond 7/16 in the logarithm and π/4 in the exponential
    // 6 joints, and 7, whose last joint the scalar loop computes after the kernel's pairs
    for (const joints of [6, 7]) {
      const series = walk(7, 300, joints, 1.5);
      const [simd, scalar] = bothPaths(series, { sourceRate: 120, targetRate: 30 });
      expect(Array.from(simd)).toEqual(Array.from(scalar));
    }
  });

  it('agree on a source larger than the kernel memory block (frames copied in several blocks)', () => {
    // 40 joints x 8,000 frames = 10 MB of float64 quaternions, over the 4 MB block; and 41 joints, whose
    // last joint the scalar loop computes
    for (const joints of [40, 41]) {
      const series = walk(11, 8_000, joints, 0.01, [3, 17]);
      const [simd, scalar] = bothPaths(series, { sourceRate: 120, targetRate: 30 });
      expect(Array.from(simd)).toEqual(Array.from(scalar));
    }
  });

  it('agree with explicit times, out given, and a joint that holds still', () => {
    const series = walk(3, 500, 5, 0.05, [1, 4]);
    const times = Float64Array.from({ length: 40 }, (_, i) => (i * 12.3) / 120);
    const [simd, scalar] = bothPaths(series, { sourceRate: 120, times, kernel: 'lanczos3' });
    expect(Array.from(simd)).toEqual(Array.from(scalar));
    const out = { data: new Float32Array(40 * 5 * 4), frames: 40, joints: 5 };
    resampleRotations(series, { sourceRate: 120, times, kernel: 'lanczos3', out });
    expect(Array.from(out.data)).toEqual(Array.from(Float32Array.from(simd)));
    // a still joint keeps its rotation exactly
    for (let f = 0; f < 40; f++) {
      for (let c = 0; c < 4; c++)
        expect(Math.abs(simd[(f * 5 + 1) * 4 + c])).toBe(Math.abs(series.data[4 + c]));
    }
  });

  it('report a non-finite sample with the same error on both paths', () => {
    const series = walk(5, 200, 4, 0.05);
    series.data[(90 * 4 + 2) * 4 + 1] = Number.NaN;
    const messages: string[] = [];
    for (const on of [true, false]) {
      setSimdEnabled(on);
      try {
        resampleRotations(series, { sourceRate: 120, targetRate: 30 });
        messages.push('no error');
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidValueError);
        messages.push((error as Error).message);
      }
    }
    expect(messages[0]).toMatch(/frame 90, joint 2/);
    expect(messages[1]).toBe(messages[0]);
  });

  it('never detaches a buffer: a larger request gets a new memory, earlier views stay valid', () => {
    const small = simdScratch(1 << 20);
    expect(small).not.toBeNull();
    const view = new Float64Array(small!.buffer, 0, 8);
    const large = simdScratch(64 << 20);
    expect(large).not.toBeNull();
    expect(large!.buffer.byteLength).toBeGreaterThanOrEqual(64 << 20);
    expect(small!.buffer.byteLength).toBeGreaterThan(0);
    expect(view.length).toBe(8);
    // over the 256 MiB cap: no kernel, the caller's scalar loop
    expect(simdScratch(300 << 20)).toBeNull();
  });
});
