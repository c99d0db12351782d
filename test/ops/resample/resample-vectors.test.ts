import { describe, expect, it } from 'vitest';
import { InvalidValueError, ShapeError } from '../../../src/errors.js';
import { resampleRotations } from '../../../src/ops/resample/resample-rotations.js';
import { resampleVectors } from '../../../src/ops/resample/resample-vectors.js';
import { readFixture } from '../../support/shared-data.js';
import { TOL } from '../../support/tolerances.js';

interface VectorCase {
  sourceRate: number;
  targetRate: number;
  kernel: 'lanczos3' | 'catmull-rom';
  frames: number;
  x: number[];
  outFrames: number;
  y: number[];
}

function ramp(frames: number, joints: number) {
  const data = new Float64Array(frames * joints * 3);
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < joints; j++) {
      const o = (f * joints + j) * 3;
      data[o] = f;
      data[o + 1] = Math.sin(0.3 * f + j);
      data[o + 2] = j;
    }
  }
  return { data, frames, joints };
}

describe('resampleVectors(series, options)', () => {
  const cases = readFixture<{ cases: VectorCase[] }>('resample-vectors.json').cases;
  it.each(cases.map((c) => [`${c.kernel} ${c.sourceRate} -> ${c.targetRate} Hz`, c] as const))(
    'matches a direct numpy evaluation of the normalised kernel sum (%s)',
    (_, c) => {
      const r = resampleVectors(
        { data: Float64Array.from(c.x), frames: c.frames, joints: 1 },
        { sourceRate: c.sourceRate, targetRate: c.targetRate, kernel: c.kernel },
      );
      expect(r.frames).toBe(c.outFrames);
      for (let i = 0; i < c.y.length; i++) expect(Math.abs(r.data[i] - c.y[i])).toBeLessThan(1e-12);
    },
  );

  it('60 -> 120 Hz with interpolating kernels keeps the samples and puts a ramp on the ramp', () => {
    const src = ramp(61, 2);
    for (const kernel of ['linear', 'catmull-rom', 'cubic6', 'lanczos2', 'lanczos3'] as const) {
      const r = resampleVectors(src, { sourceRate: 60, targetRate: 120, kernel });
      expect(r.frames).toBe(121);
      for (let f = 0; f < 61; f++) {
        for (let c = 0; c < 6; c++)
          expect(Math.abs(r.data[2 * f * 6 + c] - src.data[f * 6 + c])).toBeLessThan(TOL.f64);
      }
    }
    // linear and catmull-rom reproduce a linear ramp exactly between samples, away from the ends
    for (const kernel of ['linear', 'catmull-rom'] as const) {
      const r = resampleVectors(src, { sourceRate: 60, targetRate: 120, kernel });
      for (let f = 4; f < 116; f++) expect(r.data[f * 6]).toBeCloseTo(f / 2, 12);
    }
  });

  it('uses the same time grid as resampleRotations for the same options', () => {
    const src = ramp(100, 1);
    const rot = {
      data: new Float64Array(100 * 4).map((_, i) => (i % 4 === 3 ? 1 : 0)),
      frames: 100,
      joints: 1,
    };
    const options = {
      sourceRate: 29.97,
      targetRate: 24,
      kernel: 'lanczos3' as const,
      duration: 'keep-end' as const,
    };
    const v = resampleVectors(src, options);
    const r = resampleRotations(rot, options);
    expect(v.frames).toBe(r.frames);
    expect(Array.from(v.times)).toEqual(Array.from(r.times));
    expect(v.rate).toBe(r.rate);
  });

  it('down-sampling with anti-aliasing removes a wobble the target rate cannot hold', () => {
    const frames = 1200;
    const data = new Float64Array(frames * 3);
    for (let f = 0; f < frames; f++) data[f * 3] = Math.sin((2 * Math.PI * 25 * f) / 120);
    const src = { data, frames, joints: 1 };
    const dec = resampleVectors(src, {
      sourceRate: 120,
      targetRate: 30,
      kernel: 'nearest',
      antialias: false,
    });
    const aa = resampleVectors(src, { sourceRate: 120, targetRate: 30, kernel: 'lanczos3' });
    const rms = (s: { data: Float64Array; frames: number }) => {
      let e = 0;
      for (let f = 10; f < s.frames - 10; f++) e += s.data[f * 3] ** 2;
      return Math.sqrt(e / (s.frames - 20));
    };
    expect(rms(dec)).toBeGreaterThan(0.6);
    expect(rms(aa)).toBeLessThan(0.03);
  });

  it('joints that never move come out exactly constant; the moving ones as if resampled alone', () => {
    // five joints: 0, 2 and 3 are constant offsets (as in a clip's translations), 1 and 4 move
    const frames = 400;
    const joints = 5;
    const data = new Float64Array(frames * joints * 3);
    for (let f = 0; f < frames; f++)
      for (let j = 0; j < joints; j++)
        for (let k = 0; k < 3; k++)
          data[(f * joints + j) * 3 + k] =
            j === 1 || j === 4
              ? Math.sin(0.05 * f * (k + 1) + j) + 0.01 * f
              : 0.1 * (j + 1) * (k - 1) + 1 / 3;
    for (const options of [
      { sourceRate: 120, targetRate: 30 },
      { sourceRate: 100, targetRate: 30, kernel: 'catmull-rom' as const, boundary: 'reflect' as const },
      { sourceRate: 30, targetRate: 90 },
    ]) {
      const all = resampleVectors({ data, frames, joints }, options);
      for (let j = 0; j < joints; j++) {
        const alone = new Float64Array(frames * 3);
        for (let f = 0; f < frames; f++)
          alone.set(data.subarray((f * joints + j) * 3, (f * joints + j) * 3 + 3), f * 3);
        const one = resampleVectors({ data: alone, frames, joints: 1 }, options);
        expect(one.frames).toBe(all.frames);
        for (let f = 0; f < all.frames; f++)
          for (let k = 0; k < 3; k++) {
            const got = all.data[(f * joints + j) * 3 + k];
            if (j === 1 || j === 4) expect(Math.abs(got - one.data[f * 3 + k])).toBeLessThan(1e-15);
            else expect(got).toBe(data[j * 3 + k]);
          }
      }
    }
  });

  it('rejects non-finite input and a mis-shaped out', () => {
    const src = ramp(5, 1);
    src.data[4] = Number.POSITIVE_INFINITY;
    expect(() => resampleVectors(src, { sourceRate: 10, targetRate: 20 })).toThrow(InvalidValueError);
    expect(() =>
      resampleVectors(ramp(5, 1), {
        sourceRate: 10,
        targetRate: 20,
        out: { data: new Float64Array(3), frames: 1, joints: 1 },
      }),
    ).toThrow(ShapeError);
  });
});
