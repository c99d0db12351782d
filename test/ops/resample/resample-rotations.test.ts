import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, ShapeError } from '../../../src/errors.js';
import { lanczos, tent } from '../../../src/ops/kernel/kernels.js';
import { blendRotations, createWindowScratch } from '../../../src/ops/kernel/rotation-blend.js';
import { createTapWindow, placeTaps } from '../../../src/ops/kernel/tap-window.js';
import { planResample } from '../../../src/ops/resample/resample-plan.js';
import {
  RESAMPLE_KERNEL_NAMES,
  type ResampleKernelName,
  resampleRotations,
} from '../../../src/ops/resample/resample-rotations.js';
import { spectrum } from '../../../src/ops/spectrum/spectrum.js';
import * as quat from '../../../src/quat/index.js';
import type { QuatSeries } from '../../../src/series/types.js';
import { TOL } from '../../support/tolerances.js';

interface Component {
  axis: [number, number, number];
  amp: number;
  freq: number;
  phase: number;
}

function unit(v: [number, number, number]): [number, number, number] {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}

/** Product of rotations about fixed axes with sinusoidal angles: a band-limited rotation signal. */
function synth(rate: number, frames: number, comps: Component[], offset = 0): QuatSeries<Float64Array> {
  const data = new Float64Array(frames * 4);
  const q = new Float64Array(4);
  const t1 = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    const t = offset + f / rate;
    quat.identity(q);
    for (const c of comps) {
      quat.fromAxisAngle(t1, c.axis, c.amp * Math.sin(2 * Math.PI * c.freq * t + c.phase));
      quat.multiply(q, q, t1);
    }
    data.set(q, f * 4);
  }
  return { data, frames, joints: 1 };
}

/** Four rotations about different axes, the fastest at `8·scale` Hz. */
function ladderComponents(scale: number): Component[] {
  return [
    { axis: unit([1, 0.2, 0]), amp: 0.6, freq: 1.3 * scale, phase: 0.3 },
    { axis: unit([0, 1, 0.3]), amp: 0.4, freq: 3.7 * scale, phase: 1.1 },
    { axis: unit([0.2, 0, 1]), amp: 0.25, freq: 5.9 * scale, phase: 2.0 },
    { axis: unit([1, 1, 1]), amp: 0.15, freq: 8.0 * scale, phase: 0.7 },
  ];
}

function at(s: QuatSeries, f: number, j = 0): Float64Array {
  const o = (f * s.joints + j) * 4;
  return Float64Array.from(s.data.subarray(o, o + 4));
}

/** Mean geodesic error of a 30 -> 120 Hz up-sampling against the continuous signal, 1 s margins skipped. */
function ladderError(kernel: ResampleKernelName, scale: number): number {
  const comps = ladderComponents(scale);
  const src = synth(30, 301, comps);
  const truth = synth(120, 1201, comps);
  const r = resampleRotations(src, { sourceRate: 30, targetRate: 120, kernel, space: 'log' });
  expect(r.frames).toBe(1201);
  let e = 0;
  let n = 0;
  for (let f = 120; f < r.frames - 120; f++) {
    e += quat.angle(at(r, f), at(truth, f));
    n++;
  }
  return e / n;
}

function randomSeries(frames: number, joints: number, seed: number, step: number): QuatSeries<Float64Array> {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const data = new Float64Array(frames * joints * 4);
  const q = new Float64Array(4);
  const d = new Float64Array(4);
  for (let j = 0; j < joints; j++) {
    quat.normalize(q, [rnd(), rnd(), rnd(), rnd()]);
    for (let f = 0; f < frames; f++) {
      quat.fromRotationVector(d, [step * rnd(), step * rnd(), step * rnd()]);
      quat.multiply(q, q, d);
      data.set(q, (f * joints + j) * 4);
    }
  }
  return { data, frames, joints };
}

const INTERPOLATING: ResampleKernelName[] = [
  'linear',
  'catmull-rom',
  'cubic6',
  'lanczos2',
  'lanczos3',
  'sinc',
];

describe('resampleRotations(series, options): exactness', () => {
  const src = randomSeries(121, 3, 7, 0.3);
  for (const space of ['log', 'raw', 'eigen'] as const) {
    it.each(INTERPOLATING)(
      `60 -> 120 Hz with %s (${space}) keeps the source samples at shared times`,
      (kernel) => {
        const r = resampleRotations(src, { sourceRate: 60, targetRate: 120, kernel, space });
        expect(r.frames).toBe(241);
        let worst = 0;
        for (let f = 0; f < src.frames; f++) {
          for (let j = 0; j < 3; j++) {
            const a = at(r, 2 * f, j);
            const b = at(src, f, j);
            for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(a[c] - b[c]));
          }
        }
        expect(worst).toBeLessThan(TOL.f64);
      },
    );
  }

  it.each([...INTERPOLATING, 'nearest' as const])(
    '120 -> 60 Hz with %s and antialias: false returns every second source sample',
    (kernel) => {
      const r = resampleRotations(src, { sourceRate: 120, targetRate: 60, kernel, antialias: false });
      expect(r.frames).toBe(61);
      let worst = 0;
      for (let f = 0; f < r.frames; f++) {
        for (let j = 0; j < 3; j++) {
          const a = at(r, f, j);
          const b = at(src, 2 * f, j);
          for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(a[c] - b[c]));
        }
      }
      expect(worst).toBeLessThan(TOL.f64);
    },
  );

  it('a 10-minute 29.97 -> 60 Hz grid has no drift: every time is index / rate exactly', () => {
    const frames = 17982; // 10 minutes at 29.97 Hz
    const series = randomSeries(frames, 1, 3, 0.05);
    const r = resampleRotations(series, { sourceRate: 29.97, targetRate: 60, kernel: 'linear' });
    // ⌊(17981 / 29.97) · 60⌋ + 1 frames; the last on or before the source end (599.966 s)
    expect(r.frames).toBe(35998);
    const last = r.frames - 1;
    expect(r.times[last]).toBe(last / 60);
    expect(r.times[last]).toBeLessThanOrEqual((frames - 1) / 29.97);
    for (let i = 0; i < r.frames; i += 997) expect(r.times[i]).toBe(i / 60);
    // accumulating a step instead drifts measurably: the reason times come from indices
    let acc = 0;
    for (let i = 0; i < last; i++) acc += 1 / 60;
    expect(Math.abs(acc - last / 60)).toBeGreaterThan(1e-11);
    // the output at the last time is the linear interpolation at the exact source position
    const u = (last * 2997) / 6000;
    const i0 = Math.floor(u);
    const expected = quat.slerp(new Float64Array(4), at(series, i0), at(series, i0 + 1), u - i0);
    expect(quat.angle(at(r, last), expected)).toBeLessThan(1e-9);
  });
});

describe('resampleRotations(series, options): accuracy', () => {
  // measured on this signal: nearest 8.645e-2, linear 3.029e-2, catmull-rom 1.148e-2, lanczos3 3.946e-3 rad
  it('30 -> 120 Hz of band-limited rotations (up to 8 Hz): nearest > linear > catmull-rom > lanczos3', () => {
    const e = {
      nearest: ladderError('nearest', 1),
      linear: ladderError('linear', 1),
      catmullRom: ladderError('catmull-rom', 1),
      lanczos3: ladderError('lanczos3', 1),
    };
    expect(e.nearest).toBeGreaterThan(e.linear);
    expect(e.linear).toBeGreaterThan(e.catmullRom);
    expect(e.catmullRom).toBeGreaterThan(e.lanczos3);
    expect(e.nearest).toBeCloseTo(8.645e-2, 4);
    expect(e.linear).toBeCloseTo(3.029e-2, 4);
    expect(e.catmullRom).toBeCloseTo(1.148e-2, 4);
    expect(e.lanczos3).toBeCloseTo(3.946e-3, 5);
    // each step of the ladder gains at least a factor 2.5
    expect(e.linear / e.lanczos3).toBeGreaterThan(7);
  });

  // measured: max frequency 4.0 Hz: catmull-rom 1.070e-3 < lanczos3 1.369e-3;
  //           4.4 Hz: 1.473e-3 vs 1.501e-3; 4.8 Hz: 1.985e-3 > 1.657e-3. Cross-over ≈ 4.5 Hz = 0.15 × 30 Hz.
  it('for slower signals catmull-rom beats lanczos3; the cross-over lies between 4.4 and 4.8 Hz at 30 Hz', () => {
    expect(ladderError('catmull-rom', 0.5)).toBeLessThan(ladderError('lanczos3', 0.5));
    expect(ladderError('catmull-rom', 0.55)).toBeLessThan(ladderError('lanczos3', 0.55));
    expect(ladderError('catmull-rom', 0.6)).toBeGreaterThan(ladderError('lanczos3', 0.6));
    const slow = ladderError('lanczos3', 0.25);
    expect(ladderError('catmull-rom', 0.25)).toBeLessThan(slow / 5);
  });

  it('25 Hz wobble at 120 -> 30 Hz: decimation leaves a 5 Hz alias, lanczos3 anti-aliasing removes ≥ 20 dB', () => {
    const comps: Component[] = [{ axis: [1, 0, 0], amp: 0.1, freq: 25, phase: 0.4 }];
    const src = synth(120, 1200, comps);
    const channel = (s: QuatSeries) => Float64Array.from({ length: s.frames }, (_, f) => s.data[f * 4]);
    const decimated = resampleRotations(src, {
      sourceRate: 120,
      targetRate: 30,
      kernel: 'nearest',
      antialias: false,
    });
    const filtered = resampleRotations(src, { sourceRate: 120, targetRate: 30, kernel: 'lanczos3' });
    expect(decimated.frames).toBe(300);
    const sd = spectrum(channel(decimated), 30);
    const sf = spectrum(channel(filtered), 30);
    const bin = 50; // 5 Hz with 0.1 Hz bins
    expect(sd.frequencies[bin]).toBeCloseTo(5, 12);
    // the alias carries the wobble's full amplitude (sin(0.05) ≈ 0.05 in the x component): -26 dB
    expect(sd.db[0][bin]).toBeGreaterThan(-27);
    const peak = sd.db[0].indexOf(Math.max(...sd.db[0]));
    expect(sd.frequencies[peak]).toBeCloseTo(5, 12);
    const attenuation = sd.db[0][bin] - sf.db[0][bin];
    expect(attenuation).toBeGreaterThanOrEqual(20);
    // measured: 46.3 dB
    expect(attenuation).toBeCloseTo(46.3, 0);
  });

  it('no half-frame shift: a symmetric pulse keeps its centre time up and down', () => {
    const pulse = (rate: number, frames: number) => {
      const data = new Float64Array(frames * 4);
      for (let f = 0; f < frames; f++) {
        const t = f / rate - 2;
        quat.fromAxisAngle(
          data.subarray(f * 4, f * 4 + 4),
          [0, 0, 1],
          0.8 * Math.exp(-(t * t) / (2 * 0.08 ** 2)),
        );
      }
      return { data, frames, joints: 1 };
    };
    const centre = (s: QuatSeries, times: ArrayLike<number>) => {
      let sw = 0;
      let st = 0;
      for (let f = 0; f < s.frames; f++) {
        const a = 2 * Math.atan2(s.data[f * 4 + 2], s.data[f * 4 + 3]);
        sw += a;
        st += a * times[f];
      }
      return st / sw;
    };
    for (const kernel of ['nearest', 'linear', 'catmull-rom', 'lanczos3', 'cubic6'] as const) {
      // down-sampling widens the kernel; the box gets symmetric edges so even ratios stay centred
      const down = resampleRotations(pulse(120, 481), { sourceRate: 120, targetRate: 30, kernel });
      expect(Math.abs(centre(down, down.times) - 2)).toBeLessThan(1e-9);
      // nearest up-sampling breaks exact half-frame ties towards the later frame, so only the others here
      if (kernel === 'nearest') continue;
      const up = resampleRotations(pulse(30, 121), { sourceRate: 30, targetRate: 100, kernel });
      expect(Math.abs(centre(up, up.times) - 2)).toBeLessThan(1e-9);
    }
  });
});

describe('resampleRotations(series, options): grids, boundaries, options', () => {
  it("boundary 'wrap' keeps a looping clip seamless (the seam step equals the others)", () => {
    // one loop of 2 s at 30 Hz: 60 frames, frame 60 would be frame 0 again
    const comps: Component[] = [
      { axis: unit([1, 0.3, 0]), amp: 0.7, freq: 0.5, phase: 0.2 },
      { axis: unit([0, 1, 0]), amp: 0.4, freq: 1.5, phase: 1 },
    ];
    const src = synth(30, 60, comps);
    const truth = synth(50, 100, comps);
    const r = resampleRotations(src, {
      sourceRate: 30,
      targetRate: 50,
      kernel: 'lanczos3',
      boundary: 'wrap',
    });
    expect(r.frames).toBe(100); // duration 'loop': 2 s at 50 Hz, no repeated frame
    expect(r.rate).toBe(50);
    let worst = 0;
    for (let f = 0; f < 100; f++) worst = Math.max(worst, quat.angle(at(r, f), at(truth, f)));
    const seam = quat.angle(at(r, 99), at(r, 0));
    const trueSeam = quat.angle(at(truth, 99), at(truth, 0));
    expect(Math.abs(seam - trueSeam)).toBeLessThan(2e-3);
    expect(worst).toBeLessThan(5e-3);
    // clamping instead breaks the loop near the ends
    const clamped = resampleRotations(src, {
      sourceRate: 30,
      targetRate: 50,
      kernel: 'lanczos3',
      duration: 'loop',
    });
    let worstClamped = 0;
    for (let f = 0; f < 100; f++)
      worstClamped = Math.max(worstClamped, quat.angle(at(clamped, f), at(truth, f)));
    expect(worstClamped).toBeGreaterThan(5 * worst);
  });

  it("duration 'keep-end' ends exactly on the source's last time", () => {
    const src = randomSeries(101, 2, 5, 0.1); // 100 frames of 1/30 s = 3.333 s
    const r = resampleRotations(src, {
      sourceRate: 30,
      targetRate: 24,
      kernel: 'catmull-rom',
      duration: 'keep-end',
    });
    expect(r.frames).toBe(81);
    expect(r.times[80]).toBe(100 / 30);
    expect(r.rate).toBe(24);
    const odd = resampleRotations(src, {
      sourceRate: 30,
      targetRate: 25,
      kernel: 'linear',
      duration: 'keep-end',
      antialias: false,
    });
    // 3.333 s · 25 = 83.33 → 84 frames at 83 / 3.333 = 24.9 Hz
    expect(odd.frames).toBe(84);
    expect(odd.times[83]).toBe(100 / 30);
    expect(odd.rate).toBeCloseTo(24.9, 12);
    for (let j = 0; j < 2; j++) expect(quat.angle(at(odd, 83, j), at(src, 100, j))).toBeLessThan(TOL.f64);
  });

  it('explicit times sample the continuous signal anywhere, in any order', () => {
    const src = randomSeries(31, 1, 9, 0.2);
    const r = resampleRotations(src, { sourceRate: 30, times: [0.5, 0.1, 1 / 30], kernel: 'linear' });
    expect(r.frames).toBe(3);
    expect(quat.angle(at(r, 2), at(src, 1))).toBeLessThan(TOL.f64);
    const mid = quat.slerp(new Float64Array(4), at(src, 15), at(src, 15), 0);
    expect(quat.angle(at(r, 0), mid)).toBeLessThan(TOL.f64);
    const p = quat.slerp(new Float64Array(4), at(src, 3), at(src, 4), 0);
    expect(quat.angle(at(r, 1), p)).toBeLessThan(1e-9);
  });

  it('linear in log space is slerp, in raw space nlerp', () => {
    const src = randomSeries(11, 2, 1, 0.8);
    const log = resampleRotations(src, { sourceRate: 10, targetRate: 40, kernel: 'linear', space: 'log' });
    const raw = resampleRotations(src, { sourceRate: 10, targetRate: 40, kernel: 'linear', space: 'raw' });
    const tmp = new Float64Array(4);
    for (let f = 0; f < log.frames; f++) {
      const u = f / 4;
      const i = Math.min(9, Math.floor(u));
      for (let j = 0; j < 2; j++) {
        expect(
          quat.angle(at(log, f, j), quat.slerp(tmp, at(src, i, j), at(src, i + 1, j), u - i)),
        ).toBeLessThan(1e-12);
        expect(
          quat.angle(at(raw, f, j), quat.nlerp(tmp, at(src, i, j), at(src, i + 1, j), u - i)),
        ).toBeLessThan(1e-12);
      }
    }
  });

  it('the log-space grid path equals the shared engine blendRotations(…, "log") frame by frame', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        fc.constantFrom(...INTERPOLATING, 'nearest' as const),
        fc.constantFrom('clamp', 'reflect', 'wrap', 'renormalize' as const),
        fc.constantFrom([30, 120], [120, 30], [29.97, 60], [60, 59.94], [100, 33]),
        fc.constantFrom(0.05, 0.6, 2.5),
        (seed, kernel, boundary, [sr, tr], step) => {
          const src = randomSeries(40, 2, seed, step);
          const r = resampleRotations(src, {
            sourceRate: sr,
            targetRate: tr,
            kernel,
            boundary,
            duration: 'floor',
          });
          const options = { sourceRate: sr, targetRate: tr, kernel, boundary, duration: 'floor' as const };
          const win = createTapWindow(planResample(src.frames, options, 'test').kernel, src.frames, boundary);
          const scratch = createWindowScratch();
          const ref = new Float64Array(8);
          for (let f = 0; f < r.frames; f++) {
            placeTaps(win, (f * sr) / tr);
            blendRotations(ref, 0, src.data, 2, win, 'log', scratch);
            for (let c = 0; c < 8; c++) expect(Math.abs(r.data[f * 8 + c] - ref[c])).toBeLessThan(1e-13);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('accepts Float32 input and writes into a caller series', () => {
    const src = randomSeries(21, 2, 4, 0.2);
    const f32 = { data: Float32Array.from(src.data), frames: 21, joints: 2 };
    const out = { data: new Float32Array(41 * 2 * 4), frames: 41, joints: 2 };
    const r = resampleRotations(f32, { sourceRate: 20, targetRate: 40, kernel: 'lanczos3', out });
    expect(r.data).toBe(out.data);
    const ref = resampleRotations(src, { sourceRate: 20, targetRate: 40, kernel: 'lanczos3' });
    for (let i = 0; i < ref.data.length; i++) expect(Math.abs(r.data[i] - ref.data[i])).toBeLessThan(TOL.f32);
  });

  it('takes kernels by value: lanczos(3) and kernels.tent equal their names', () => {
    const src = randomSeries(15, 1, 2, 0.3);
    const a = resampleRotations(src, { sourceRate: 30, targetRate: 47, kernel: lanczos(3) });
    const b = resampleRotations(src, { sourceRate: 30, targetRate: 47, kernel: 'lanczos3' });
    expect(Array.from(a.data)).toEqual(Array.from(b.data));
    const c = resampleRotations(src, { sourceRate: 30, targetRate: 47, kernel: tent });
    const d = resampleRotations(src, { sourceRate: 30, targetRate: 47, kernel: 'linear' });
    expect(Array.from(c.data)).toEqual(Array.from(d.data));
    expect(RESAMPLE_KERNEL_NAMES.length).toBe(7);
  });

  it('handles 0 and 1 source frames', () => {
    expect(
      resampleRotations(
        { data: new Float64Array(0), frames: 0, joints: 2 },
        { sourceRate: 30, targetRate: 60 },
      ).frames,
    ).toBe(0);
    const one = resampleRotations(randomSeries(1, 1, 3, 0), { sourceRate: 30, targetRate: 60 });
    expect(one.frames).toBe(1);
  });

  it('rejects non-uniform sources and bad options with typed errors', () => {
    const src = randomSeries(5, 1, 3, 0.1);
    expect(() => resampleRotations(src, { sourceTimes: [0, 0.1, 0.2, 0.31, 0.4], targetRate: 20 })).toThrow(
      InvalidValueError,
    );
    expect(
      () => resampleRotations(src, { sourceTimes: [0, 0.1, 0.2, 0.3, 0.4], targetRate: 20 }).frames,
    ).not.toThrow();
    expect(() => resampleRotations(src, { sourceTimes: [0, 0.1, 0.2], targetRate: 20 })).toThrow(ShapeError);
    expect(() => resampleRotations(src, { sourceRate: 0, targetRate: 20 })).toThrow(OptionError);
    expect(() => resampleRotations(src, { sourceRate: 10 })).toThrow(OptionError);
    expect(() =>
      resampleRotations(src, { sourceRate: 10, targetRate: 20, kernel: 'cubic' as ResampleKernelName }),
    ).toThrow(OptionError);
    expect(() => resampleRotations(src, { sourceRate: 10, targetRate: 20, space: 'euler' as 'log' })).toThrow(
      OptionError,
    );
    expect(() => resampleRotations(src, { sourceRate: 10, times: [0, Number.NaN] })).toThrow(
      InvalidValueError,
    );
    // absurd ratios are options errors, not allocation failures
    expect(() => resampleRotations(src, { sourceRate: 10, targetRate: 1e-9 })).toThrow(OptionError);
    expect(() => resampleRotations(src, { sourceRate: 10, targetRate: 1e12 })).toThrow(OptionError);
    const bad = randomSeries(5, 1, 3, 0.1);
    bad.data[9] = Number.NaN;
    expect(() => resampleRotations(bad, { sourceRate: 10, targetRate: 20 })).toThrow(InvalidValueError);
    try {
      resampleRotations(bad, { sourceRate: 10, targetRate: 20 });
    } catch (e) {
      expect((e as InvalidValueError).location.frame).toBe(2);
    }
  });
});

describe('resampleRotations(series, options): the default kernel by direction', () => {
  it('catmull-rom when up-sampling or decimating, downsampleKernel (lanczos3) when down-sampling with anti-aliasing', () => {
    const name = (options: Parameters<typeof planResample>[1]) =>
      planResample(100, options, 'test').kernel.name;
    expect(name({ sourceRate: 30, targetRate: 120 })).toBe('catmullRom');
    expect(name({ sourceRate: 120, targetRate: 30 })).toBe(
      name({ sourceRate: 120, targetRate: 30, kernel: 'lanczos3' }),
    );
    expect(name({ sourceRate: 120, targetRate: 30 })).toMatch(/^scale\(lanczos\(3\), 4\)$/);
    expect(name({ sourceRate: 120, targetRate: 30, antialias: false })).toBe('catmullRom');
    expect(name({ sourceRate: 120, targetRate: 30, downsampleKernel: 'cubic6' })).toMatch(/^scale\(cubic6/);
    // an explicit kernel wins in both directions; downsampleKernel is ignored when up-sampling
    expect(name({ sourceRate: 120, targetRate: 30, kernel: 'linear', downsampleKernel: 'cubic6' })).toMatch(
      /^scale\(tent/,
    );
    expect(name({ sourceRate: 30, targetRate: 120, downsampleKernel: 'cubic6' })).toBe('catmullRom');
  });

  it('rejects an unknown downsampleKernel with OptionError, in either direction', () => {
    for (const [sourceRate, targetRate] of [
      [120, 30],
      [30, 120],
    ])
      expect(() =>
        planResample(100, { sourceRate, targetRate, downsampleKernel: 'gauss' as never }, 'test'),
      ).toThrow(OptionError);
  });
});

describe('resampleRotations: taps equal to the reference', () => {
  it('a joint that holds still gives r / |r| exactly, up- and down-sampled, in log space', () => {
    // the relative log of a tap equal to the reference is exactly 0, so the blend is r ⊗ exp(0) = r
    // normalised; a residue of rounding in conj(r) ⊗ r must not leak into it
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom(12, 30, 50, 240),
        (q, targetRate) => {
          const n = Math.hypot(q[0], q[1], q[2], q[3]);
          fc.pre(n > 0.1);
          const frames = 40;
          const data = new Float64Array(frames * 8);
          for (let f = 0; f < frames; f++) {
            data.set(q, f * 8);
            // a second joint that turns, so the frames are not all alike
            data[f * 8 + 6] = Math.sin(0.025 * f);
            data[f * 8 + 7] = Math.cos(0.025 * f);
          }
          const out = resampleRotations({ data, frames, joints: 2 }, { sourceRate: 60, targetRate });
          const sn = 1 / Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
          // (+ 0: r ⊗ (0, 0, 0, 1) may turn a -0 component into +0)
          for (let f = 0; f < out.frames; f++) {
            for (let c = 0; c < 4; c++) expect(out.data[f * 8 + c] + 0).toBe(q[c] * sn + 0);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
