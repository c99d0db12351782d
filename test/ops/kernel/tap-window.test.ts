import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import {
  blendRotations,
  createWindowScratch,
  type RotationSpace,
} from '../../../src/ops/kernel/rotation-blend.js';
import {
  blendChannels,
  createTapWindow,
  placeTaps,
  type TapWindow,
} from '../../../src/ops/kernel/tap-window.js';
import * as quat from '../../../src/quat/index.js';
import { quatDistance, unitQuat } from '../../support/arbitraries.js';
import { TOL } from '../../support/tolerances.js';

function taps(win: ReturnType<typeof createTapWindow>): [number, number][] {
  const r: [number, number][] = [];
  for (let t = 0; t < win.count; t++) r.push([win.tapFrames[t], win.tapWeights[t]]);
  return r;
}

describe('placeTaps(win, centre)', () => {
  const k = kernels.sampled([1, 2, 3, 4, 5]); // weight at offset d is 3 + d (convolution order: k(centre - i))
  it('placeTaps(win, 2) inside the clip uses kernel.evaluate(centre - i)', () => {
    const win = placeTaps(createTapWindow(k, 10, 'clamp'), 2);
    expect(taps(win)).toEqual([
      [0, 5],
      [1, 4],
      [2, 3],
      [3, 2],
      [4, 1],
    ]);
    expect(win.weightSum).toBe(15);
    expect(win.reference).toBe(2);
  });
  it("placeTaps(win, 0) with 'clamp' merges the taps that read frame 0", () => {
    expect(taps(placeTaps(createTapWindow(k, 10, 'clamp'), 0))).toEqual([
      [0, 5 + 4 + 3],
      [1, 2],
      [2, 1],
    ]);
  });
  it("placeTaps(win, 0) with 'reflect' mirrors about frame 0 (SciPy mirror)", () => {
    expect(taps(placeTaps(createTapWindow(k, 10, 'reflect'), 0))).toEqual([
      [2, 5],
      [1, 4],
      [0, 3],
      [1, 2],
      [2, 1],
    ]);
    // last frame: … 8 9 | 8 7
    expect(taps(placeTaps(createTapWindow(k, 10, 'reflect'), 9)).map((t) => t[0])).toEqual([7, 8, 9, 8, 7]);
  });
  it("placeTaps(win, 0) with 'wrap' reads the end of the loop", () => {
    expect(taps(placeTaps(createTapWindow(k, 10, 'wrap'), 0)).map((t) => t[0])).toEqual([8, 9, 0, 1, 2]);
  });
  it("placeTaps(win, 0) with 'renormalize' drops the taps before the clip", () => {
    const win = placeTaps(createTapWindow(k, 10, 'renormalize'), 0);
    expect(taps(win)).toEqual([
      [0, 3],
      [1, 2],
      [2, 1],
    ]);
    expect(win.weightSum).toBe(6);
  });
  it("placeTaps(win, 0) with 'linear' drops those taps and weighs the rest as a least-squares line at 0", () => {
    // taps 0, 1, 2 with weights 3, 2, 1 at offsets d = 0, 1, 2: S0 = 6, S1 = 4, S2 = 6, and each weight
    // becomes w (1 - d S1/S2): 3, 2/3, -1/3 (sum S0 - S1²/S2 = 10/3), the weighted line's value at d = 0
    const win = placeTaps(createTapWindow(k, 10, 'linear'), 0);
    const w = taps(win);
    expect(w.map((t) => t[0])).toEqual([0, 1, 2]);
    expect(w[0][1]).toBeCloseTo(3, 14);
    expect(w[1][1]).toBeCloseTo(2 / 3, 14);
    expect(w[2][1]).toBeCloseTo(-1 / 3, 14);
    expect(win.weightSum).toBeCloseTo(10 / 3, 14);
  });
  it("placeTaps(win, 0) with 'linear' and a kernel far narrower than a frame keeps frame 0 (no underflow)", () => {
    // a sigma of 0.036 frames (1/60 s on a 2.18 Hz key grid): the next tap weighs 1e-167, its square underflows
    const win = placeTaps(createTapWindow(kernels.gaussian(0.036), 5, 'linear'), 0);
    const data = Float64Array.from(
      [
        [0, 0, 0, 1],
        [0, 0, -0.38268343, 0.92387953],
        [0, 0, -Math.SQRT1_2, Math.SQRT1_2],
        [0, 0, 0, 1],
        [0, 0, 0, 1],
      ].flat(),
    );
    const out = new Float64Array(4);
    blendRotations(out, 0, data, 1, win, 'raw', createWindowScratch());
    expect(Array.from(out)).toEqual([0, 0, 0, 1]);
  });
  it("placeTaps(win, c) with 'linear' gives 'renormalize''s taps wherever no tap is dropped", () => {
    const g = kernels.gaussian(1.7);
    const a = createTapWindow(g, 40, 'linear');
    const b = createTapWindow(g, 40, 'renormalize');
    for (const c of [7, 12.25, 20.5, 31.75]) expect(taps(placeTaps(a, c))).toEqual(taps(placeTaps(b, c)));
  });
  it('placeTaps(win, 2.25) with tent gives the linear-interpolation weights', () => {
    const win = placeTaps(createTapWindow(kernels.tent, 5, 'clamp'), 2.25);
    expect(taps(win)).toEqual([
      [2, 0.75],
      [3, 0.25],
    ]);
    expect(win.reference).toBe(2);
  });
  it('placeTaps(win, t) on a window longer than the clip stays inside the clip', () => {
    for (const b of ['clamp', 'reflect', 'wrap'] as const) {
      const win = placeTaps(createTapWindow(kernels.gaussian(4), 3, b), 1);
      for (const [f] of taps(win)) expect(f >= 0 && f < 3).toBe(true);
    }
    const one = placeTaps(createTapWindow(kernels.gaussian(2), 1, 'reflect'), 0);
    expect(taps(one).every(([f]) => f === 0)).toBe(true);
  });
  it('placeTaps(win, c) throws a typed error when the taps sum to zero', () => {
    // zero-mean kernel [-1, 0, 1] at frame 0 with renormalize: only weights 0 and -1 ... sum -1; use [1,-1] pair
    const zeroMean = kernels.sampled([-1, 2, -1]);
    const win = createTapWindow(zeroMean, 10, 'clamp');
    expect(() => placeTaps(win, 0)).toThrow(InvalidValueError);
    try {
      placeTaps(win, 4);
    } catch (e) {
      expect((e as InvalidValueError).location.frame).toBe(4);
    }
    expect(() => placeTaps(createTapWindow(kernels.tent, 4, 'renormalize'), -3)).toThrow(InvalidValueError);
    expect(() => placeTaps(createTapWindow(kernels.tent, 0, 'clamp'), 0)).toThrow(InvalidValueError);
  });
  it('placeTaps(win, 25) with a radius just under an integer (lanczos3 widened by 250 / 30) takes the same taps as kernel.evaluate', () => {
    // radius 3 · 8.333333333333332 = 24.999999999999996, and 25 + 24.999999999999996 rounds to 50: the
    // integer centre once read one entry past its weight table (a NaN weight)
    // the anti-aliasing factor of 60 output times at 30 Hz from 250 Hz: their mean step in source frames
    const wide = kernels.scaleKernel(kernels.lanczos(3), ((59 / 30) * 250) / 59);
    expect(wide.radius).toBeLessThan(25);
    const win = placeTaps(createTapWindow(wide, 200, 'clamp'), 25);
    const expected: [number, number][] = [];
    for (let i = 1; i <= 49; i++) expected.push([i, wide.evaluate(25 - i)]);
    expect(taps(win).filter(([, w]) => w !== 0)).toEqual(expected.filter(([, w]) => w !== 0));
    expect(Number.isFinite(win.weightSum)).toBe(true);
  });

  it('createTapWindow(kernel, frames, boundary) rejects an unknown boundary and a non-kernel', () => {
    expect(() => createTapWindow(kernels.tent, 4, 'mirror' as never)).toThrow(OptionError);
    expect(() => createTapWindow({} as never, 4, 'clamp')).toThrow(OptionError);
  });
});

describe('placeTaps(win, centre) at fractional centres (weights remembered by phase)', () => {
  /** A window of the same fields without the phase memory: every weight from `kernel.evaluate(centre − i)`. */
  function plainCopy(win: TapWindow): TapWindow {
    const { phases: _phases, ...rest } = win as TapWindow & { phases?: unknown };
    return {
      ...rest,
      tapFrames: new Int32Array(win.tapFrames.length),
      tapWeights: new Float64Array(win.tapWeights.length),
      tapOffsets: new Int32Array(win.tapOffsets.length),
    };
  }
  const placed = (win: TapWindow) => ({
    count: win.count,
    frames: Array.from(win.tapFrames.subarray(0, win.count)),
    weights: Array.from(win.tapWeights.subarray(0, win.count)),
    sum: win.weightSum,
    reference: win.reference,
  });

  it('gives the weights of kernel.evaluate(centre − i) bit for bit, phases repeated across binades or not', () => {
    const cases: [kernels.Kernel, number][] = [
      [kernels.scaleKernel(kernels.lanczos(3), 100 / 30), 100 / 30], // 100 Hz to 30 Hz
      [kernels.scaleKernel(kernels.lanczos(3), 125 / 30), 125 / 30], // 125 Hz to 30 Hz
      [kernels.catmullRom, 30 / 120], // up-sampling 30 Hz to 120 Hz
      [kernels.gaussian(2.7), 0.37],
    ];
    for (const [kernel, step] of cases) {
      for (const boundary of ['clamp', 'reflect', 'wrap', 'renormalize'] as const) {
        const frames = 3000;
        const win = createTapWindow(kernel, frames, boundary);
        const plain = plainCopy(win);
        // the grid, then centres near 0 (taps far from the centre in relative terms), then the grid again
        // after the ring of remembered phases has turned over
        const centres: number[] = [];
        for (let i = 0; i * step < frames - 1; i++) centres.push((i * step * 3) / 3);
        for (let i = 0; i < 50; i++) centres.push(0.013 * i + 1e-9 * i * i);
        for (let i = 0; i * step < frames - 1; i += 7) centres.push((i * step * 3) / 3);
        for (const c of centres) {
          if (Number.isInteger(c)) continue;
          expect(placed(placeTaps(win, c)), `${kernel.name} ${boundary} centre ${c}`).toEqual(
            placed(placeTaps(plain, c)),
          );
        }
      }
    }
  });
});

describe('blendRotations(out, o, data, joints, win, space, scratch)', () => {
  const scratch = createWindowScratch();
  it("blendRotations with tent at fractional centres is nlerp in 'raw' and slerp in 'log'", () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, t) => {
        if (Math.abs(quat.dot(a, b)) < 0.05) return; // near 180° the short arc is ill-defined
        const data = new Float64Array([...a, ...b]);
        const win = placeTaps(createTapWindow(kernels.tent, 2, 'clamp'), t);
        const out = new Float64Array(4);
        blendRotations(out, 0, data, 1, win, 'raw', scratch);
        const ref = win.reference === 0 ? a : b;
        const expected = quat.nlerp(new Float64Array(4), a, b, t);
        expect(quatDistance(out, expected)).toBeLessThan(TOL.f64);
        expect(quat.dot(out, ref)).toBeGreaterThanOrEqual(0);
        blendRotations(out, 0, data, 1, win, 'log', scratch);
        const s = quat.slerp(new Float64Array(4), a, b, t);
        expect(quatDistance(out, s)).toBeLessThan(1e-10);
        expect(quat.dot(out, ref)).toBeGreaterThanOrEqual(0);
      }),
    );
  });
  it("blendRotations in 'eigen' with two taps gives the chordal midpoint family (symmetric weights → slerp(a, b, ½))", () => {
    fc.assert(
      fc.property(unitQuat, unitQuat, (a, b) => {
        if (Math.abs(quat.dot(a, b)) < 0.05) return;
        const data = new Float64Array([...a, ...b]);
        const win = placeTaps(createTapWindow(kernels.tent, 2, 'clamp'), 0.5);
        const out = new Float64Array(4);
        blendRotations(out, 0, data, 1, win, 'eigen', scratch);
        expect(quatDistance(out, quat.slerp(new Float64Array(4), a, b, 0.5))).toBeLessThan(1e-9);
      }),
    );
  });
  it('blendRotations on an odd number of joints equals blending each joint alone (every space)', () => {
    // the raw and log blends take two joints per tap pass; the odd last joint and the lanes must not mix
    fc.assert(
      fc.property(
        fc.array(unitQuat, { minLength: 15, maxLength: 15 }),
        fc.double({ min: 1, max: 3, noNaN: true }),
        (qs, c) => {
          const frames = 5;
          const joints = 3;
          const data = new Float64Array(qs.flatMap((q) => [...q]));
          const win = placeTaps(createTapWindow(kernels.gaussian(1), frames, 'clamp'), c);
          for (const space of ['raw', 'log', 'eigen'] as RotationSpace[]) {
            const all = new Float64Array(joints * 4);
            blendRotations(all, 0, data, joints, win, space, scratch);
            for (let j = 0; j < joints; j++) {
              const alone = new Float64Array(frames * 4);
              for (let f = 0; f < frames; f++)
                alone.set(data.subarray((f * joints + j) * 4, (f * joints + j) * 4 + 4), f * 4);
              const one = new Float64Array(4);
              blendRotations(one, 0, alone, 1, win, space, scratch);
              expect([...all.subarray(j * 4, j * 4 + 4)], `${space} joint ${j}`).toEqual([...one]);
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  });
  it('blendRotations reports a non-finite sample with its frame and joint', () => {
    const data = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, Number.NaN, 0, 0, 0, 1]); // 2 frames x 2 joints
    const win = placeTaps(createTapWindow(kernels.tent, 2, 'clamp'), 0.5);
    for (const space of ['raw', 'log', 'eigen'] as RotationSpace[]) {
      try {
        blendRotations(new Float64Array(8), 0, data, 2, win, space, scratch);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidValueError);
        expect((e as InvalidValueError).location).toEqual({ frame: 1, joint: 0 });
      }
    }
  });
  it('blendRotations rejects an unknown space with OptionError', () => {
    const win = placeTaps(createTapWindow(kernels.tent, 1, 'clamp'), 0);
    expect(() =>
      blendRotations(
        new Float64Array(4),
        0,
        new Float64Array([0, 0, 0, 1]),
        1,
        win,
        'nlerp' as never,
        scratch,
      ),
    ).toThrow(OptionError);
  });
});

describe('blendChannels(out, o, data, channels, win)', () => {
  it('blendChannels divides by the weight sum (a constant is preserved exactly)', () => {
    const data = new Float64Array([2, -1, 2, -1, 2, -1, 2, -1]);
    const win = placeTaps(createTapWindow(kernels.gaussian(1.3), 4, 'renormalize'), 1.7);
    const out = new Float64Array(2);
    blendChannels(out, 0, data, 2, win);
    expect(out[0]).toBeCloseTo(2, 14);
    expect(out[1]).toBeCloseTo(-1, 14);
  });
});

describe("the 'linear' boundary: a steady motion keeps its pose at the ends", () => {
  const frames = 30;
  const g = kernels.gaussian(3);
  const centres = [0, 0.4, 1, 2.5, 5, 24.5, 27, 28.6, 29];
  it('blendChannels reproduces a straight line at every centre, where renormalize lags it', () => {
    // x(i) = 2 - 0.5 i, y(i) = 0.25 i
    const data = new Float64Array(frames * 2);
    for (let i = 0; i < frames; i++) data.set([2 - 0.5 * i, 0.25 * i], 2 * i);
    const out = new Float64Array(2);
    for (const c of centres) {
      blendChannels(out, 0, data, 2, placeTaps(createTapWindow(g, frames, 'linear'), c));
      expect(out[0]).toBeCloseTo(2 - 0.5 * c, 12);
      expect(out[1]).toBeCloseTo(0.25 * c, 12);
    }
    // a one-sided mean at frame 0 lies about 0.8 sigma inside the clip (2.3 frames for sigma 3)
    blendChannels(out, 0, data, 2, placeTaps(createTapWindow(g, frames, 'renormalize'), 0));
    expect(out[1] / 0.25).toBeGreaterThan(2);
  });
  it("blendRotations in 'log' reproduces a rotation at constant angular velocity at every centre; 'raw' and 'eigen' within 1e-2", () => {
    // q(i) = rotation of 0.15 i rad about a fixed axis: its log is linear in i
    const axis = [2 / 3, -1 / 3, 2 / 3];
    const at = (t: number) => {
      const h = 0.075 * t;
      return [axis[0] * Math.sin(h), axis[1] * Math.sin(h), axis[2] * Math.sin(h), Math.cos(h)];
    };
    const data = new Float64Array(frames * 4);
    for (let i = 0; i < frames; i++) data.set(at(i), 4 * i);
    const scratch = createWindowScratch();
    const out = new Float64Array(4);
    // 'raw' and 'eigen' fit the chord in R⁴, not the arc: a second-order error over taps that span 1.4 rad
    const bound: Record<RotationSpace, number> = { log: 1e-12, raw: 1e-2, eigen: 1e-2 };
    for (const space of ['log', 'raw', 'eigen'] as const) {
      for (const c of centres) {
        blendRotations(out, 0, data, 1, placeTaps(createTapWindow(g, frames, 'linear'), c), space, scratch);
        expect(Math.hypot(...out)).toBeCloseTo(1, 14);
        expect(quatDistance(out, at(c)), `${space} at ${c}`).toBeLessThan(bound[space]);
      }
    }
    // renormalize's one-sided mean at the last frame trails by about 2.3 frames of turn (0.35 rad, a
    // quaternion 0.13 away), more than ten times the linear fit's error in any space
    blendRotations(out, 0, data, 1, placeTaps(createTapWindow(g, frames, 'renormalize'), 29), 'log', scratch);
    expect(quatDistance(out, at(29))).toBeGreaterThan(0.1);
  });
  it('every space gives unit quaternions in the reference hemisphere for any rotations (property)', () => {
    fc.assert(
      fc.property(
        fc.array(unitQuat, { minLength: 2, maxLength: 12 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom<RotationSpace>('raw', 'log', 'eigen'),
        (qs, at, space) => {
          const n = qs.length;
          const data = Float64Array.from(qs.flatMap((q) => Array.from(q)));
          const win = placeTaps(createTapWindow(kernels.gaussian(1.5), n, 'linear'), at * (n - 1));
          const out = new Float64Array(4);
          try {
            blendRotations(out, 0, data, 1, win, space, createWindowScratch());
          } catch (e) {
            // negative weights may cancel the raw sum exactly: a typed error, never a wrong number
            expect(e).toBeInstanceOf(InvalidValueError);
            return;
          }
          expect(Math.hypot(...out)).toBeCloseTo(1, 12);
          const r = 4 * win.reference;
          expect(
            out[0] * data[r] + out[1] * data[r + 1] + out[2] * data[r + 2] + out[3] * data[r + 3],
          ).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
