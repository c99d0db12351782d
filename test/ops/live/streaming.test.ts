import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import { filterRotations } from '../../../src/ops/filter/filter-rotations.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { causalKernel, createStreamingFilter } from '../../../src/ops/live/streaming-filter.js';
import { createStreamingUnroll } from '../../../src/ops/live/streaming-unroll.js';
import { unrollEuler } from '../../../src/ops/unroll/unroll-euler.js';
import { unrollQuaternions } from '../../../src/ops/unroll/unroll-quaternions.js';
import type { EulerOrder } from '../../../src/quat/euler.js';
import * as quat from '../../../src/quat/index.js';
import { rng } from '../../support/random.js';

const here = dirname(fileURLToPath(import.meta.url));
const unrollFixture = JSON.parse(readFileSync(join(here, '..', '..', 'fixtures', 'unroll.json'), 'utf8')) as {
  cases: { order: EulerOrder; wrapped: number[]; truth: number[] }[];
};

/** Frames of `joints` rotations turning at different rates, every quaternion given a random sign. */
function scrambled(frames: number, joints: number, seed: number): Float64Array {
  const random = rng(seed);
  const data = new Float64Array(frames * joints * 4);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++)
    for (let j = 0; j < joints; j++) {
      quat.fromAxisAngle(q, [Math.sin(j), 1, 0.3 * j], 0.11 * (j + 1) * f + 0.2 * Math.sin(f));
      const s = random() < 0.5 ? -1 : 1;
      for (let c = 0; c < 4; c++) data[(f * joints + j) * 4 + c] = s * q[c];
    }
  return data;
}

describe('createStreamingUnroll(options)', () => {
  it('equals unrollQuaternions frame by frame, bit for bit (both first-sample policies)', () => {
    const frames = 200;
    const joints = 5;
    const data = scrambled(frames, joints, 1);
    for (const first of ['hemisphere', 'keep'] as const) {
      const offline = unrollQuaternions({ data: data.slice(), frames, joints }, { first }).data;
      const u = createStreamingUnroll({ joints, first });
      const out = new Float64Array(joints * 4);
      for (let f = 0; f < frames; f++) {
        u.push(out, data.subarray(f * joints * 4, (f + 1) * joints * 4), f / 30);
        expect(Array.from(out)).toEqual(Array.from(offline.subarray(f * joints * 4, (f + 1) * joints * 4)));
      }
    }
  });

  it('equals unrollEuler frame by frame, bit for bit, on the SciPy fixture (24 sequences, both modes, with initial)', () => {
    expect(unrollFixture.cases.length).toBe(24);
    for (const c of unrollFixture.cases) {
      const wrapped = Float64Array.from(c.wrapped);
      const frames = wrapped.length / 3;
      for (const mode of ['equivalent', 'wrap'] as const) {
        for (const initial of [undefined, c.truth.slice(0, 3)]) {
          const offline = unrollEuler(wrapped, { order: c.order, mode, ...(initial ? { initial } : {}) });
          const u = createStreamingUnroll({
            joints: 1,
            representation: 'euler',
            order: c.order,
            mode,
            initial,
          });
          const out = new Float64Array(3);
          for (let f = 0; f < frames; f++) {
            u.push(out, wrapped.subarray(f * 3, f * 3 + 3), f);
            expect(Array.from(out), `${c.order} ${mode} frame ${f}`).toEqual(
              Array.from(offline.subarray(f * 3, f * 3 + 3)),
            );
          }
        }
      }
    }
  });

  it('resumes from its state; rejects bad options and non-finite values', () => {
    const data = scrambled(50, 2, 2);
    const a = createStreamingUnroll({ joints: 2 });
    const out = new Float64Array(8);
    for (let f = 0; f < 25; f++) a.push(out, data.subarray(f * 8, f * 8 + 8), f);
    const b = createStreamingUnroll({ joints: 2 });
    b.setState(JSON.parse(JSON.stringify(a.getState())));
    const outB = new Float64Array(8);
    for (let f = 25; f < 50; f++) {
      a.push(out, data.subarray(f * 8, f * 8 + 8), f);
      b.push(outB, data.subarray(f * 8, f * 8 + 8), f);
      expect(Array.from(outB)).toEqual(Array.from(out));
    }
    expect(() => createStreamingUnroll({ joints: 1, representation: 'euler' })).toThrow(OptionError);
    expect(() => createStreamingUnroll({ joints: 1, order: 'ZYX' })).toThrow(OptionError);
    expect(() => b.push(outB, [0, 0, 0, 1, 0, Number.NaN, 0, 1], 100)).toThrow(InvalidValueError);
    expect(() => b.push(outB, [0, 0, 0, 1, 0, 0, 0, 1], 49)).toThrow(InvalidValueError);
  });
});

describe('createStreamingFilter(kernel, options)', () => {
  const frames = 90;
  const joints = 3;
  const data = scrambled(frames, joints, 3);
  const stride = joints * 4;

  function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
    let w = 0;
    for (let j = 0; j < a.length; j += 4)
      w = Math.max(w, quat.angle([a[j], a[j + 1], a[j + 2], a[j + 3]], [b[j], b[j + 1], b[j + 2], b[j + 3]]));
    return w;
  }

  it('equals filterRotations at frame n − latency once ready (raw, log, eigen; three kernels; three start boundaries)', () => {
    for (const kernel of [kernels.gaussian(2), kernels.tent, kernels.catmullRom]) {
      for (const space of ['raw', 'log', 'eigen'] as const) {
        for (const boundary of ['renormalize', 'clamp', 'reflect'] as const) {
          const offline = filterRotations({ data, frames, joints }, kernel, { space, boundary }).data;
          const fir = createStreamingFilter(kernel, { joints, space, boundary });
          expect(fir.latency).toBe(Math.floor(kernel.radius));
          const out = new Float64Array(stride);
          let worst = 0;
          for (let n = 0; n < frames; n++) {
            fir.push(out, data.subarray(n * stride, (n + 1) * stride), n / 60);
            const c = n - fir.latency;
            expect(fir.ready).toBe(c >= 0);
            if (c < 0) {
              expect(Array.from(out)).toEqual(Array.from(data.subarray(0, stride)));
              continue;
            }
            expect(fir.outputIndex).toBe(c);
            expect(fir.outputTime).toBe(c / 60);
            // the offline end boundary reaches the last `latency` frames; earlier frames must agree
            if (c + fir.latency < frames)
              worst = Math.max(worst, maxDiff(out, offline.subarray(c * stride, (c + 1) * stride)));
          }
          expect(worst, `${kernel.name} ${space} ${boundary}`).toBeLessThan(1e-12);
        }
      }
    }
  });

  it("alignment: 'causal' has no latency and equals filterRotations(series, causalKernel(kernel))", () => {
    const kernel = kernels.gaussian(1.5);
    expect(causalKernel(kernel).evaluate(-1)).toBe(0);
    expect(causalKernel(kernel).evaluate(1)).toBe(kernel.evaluate(1));
    for (const space of ['raw', 'log'] as const) {
      // the streaming filter drops the taps before its first sample: 'renormalize'
      const offline = filterRotations({ data, frames, joints }, causalKernel(kernel), {
        space,
        boundary: 'renormalize',
      }).data;
      const fir = createStreamingFilter(kernel, { joints, space, alignment: 'causal' });
      expect(fir.latency).toBe(0);
      const out = new Float64Array(stride);
      for (let n = 0; n < frames; n++) {
        fir.push(out, data.subarray(n * stride, (n + 1) * stride), n);
        expect(maxDiff(out, offline.subarray(n * stride, (n + 1) * stride))).toBeLessThan(1e-12);
      }
    }
  });

  it('resumes from its state bit for bit; stale samples follow the policy', () => {
    const kernel = kernels.gaussian(2);
    const a = createStreamingFilter(kernel, { joints, space: 'log' });
    const out = new Float64Array(stride);
    for (let n = 0; n < 40; n++) a.push(out, data.subarray(n * stride, (n + 1) * stride), n);
    const b = createStreamingFilter(kernel, { joints, space: 'log' });
    b.setState(JSON.parse(JSON.stringify(a.getState())));
    expect(b.outputIndex).toBe(a.outputIndex);
    const outB = new Float64Array(stride);
    for (let n = 40; n < frames; n++) {
      a.push(out, data.subarray(n * stride, (n + 1) * stride), n);
      b.push(outB, data.subarray(n * stride, (n + 1) * stride), n);
      expect(Array.from(outB)).toEqual(Array.from(out));
    }
    const held = createStreamingFilter(kernel, { joints, staleSample: 'hold' });
    for (let n = 0; n < 10; n++) held.push(out, data.subarray(n * stride, (n + 1) * stride), n);
    const before = Array.from(out);
    held.push(out, data.subarray(0, stride), 9);
    expect(Array.from(out)).toEqual(before);
    expect(() => createStreamingFilter(kernel, { joints, boundary: 'wrap' as 'clamp' })).toThrow(OptionError);
    expect(() => createStreamingFilter({} as never, { joints })).toThrow(OptionError);
    expect(() => b.setState({ ...a.getState(), kernel: 'tent' })).toThrow(OptionError);
  });
});
