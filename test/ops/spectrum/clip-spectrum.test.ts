import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { clipSpectrum } from '../../../src/ops/spectrum/clip-spectrum.js';
import * as quat from '../../../src/quat/index.js';
import type { Clip } from '../../../src/series/clip.js';
import { ANIMATED_ROTATION } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

/** Two joints at 100 Hz for 4 s: joint 0 rocks about Z at 5 Hz (0.3 rad), joint 1 about X at 12 Hz (0.01 rad). */
function synthClip(): Clip {
  const frames = 400;
  const rate = 100;
  const rot = new Float64Array(frames * 2 * 4);
  for (let f = 0; f < frames; f++) {
    const t = f / rate;
    quat.fromAxisAngle(rot.subarray(f * 8, f * 8 + 4), [0, 0, 1], 0.3 * Math.sin(2 * Math.PI * 5 * t));
    quat.fromAxisAngle(rot.subarray(f * 8 + 4, f * 8 + 8), [1, 0, 0], 0.01 * Math.sin(2 * Math.PI * 12 * t));
    // a sign flip that unrolling must remove
    if (f % 7 === 3) for (let c = 0; c < 4; c++) rot[f * 8 + c] = -rot[f * 8 + c];
  }
  return {
    skeleton: makeSkeleton({
      names: ['root', 'child'],
      parents: Int32Array.of(-1, 0),
      restTranslations: Float64Array.of(0, 0, 0, 0, 1, 0),
    }),
    frameTime: 1 / rate,
    rate,
    frames,
    rotations: { data: rot, frames, joints: 2 },
    translations: { data: new Float64Array(frames * 2 * 3), frames, joints: 2 },
    orders: ['ZYX', 'ZYX'],
    animated: new Uint8Array(2).fill(ANIMATED_ROTATION),
  };
}

describe('clipSpectrum(clip, options)', () => {
  it('finds the motion frequencies, their amplitudes and the 99% energy frequency', () => {
    const s = clipSpectrum(synthClip());
    expect(s.channels).toBe(6);
    expect(s.frequencies[20]).toBe(5);
    // the Z angle of joint 0 is 0.3·sin(2π·5t): 20·log10(0.3) = -10.46 dB
    expect(s.maxDb[20]).toBeCloseTo(20 * Math.log10(0.3), 6);
    expect(s.jointMaxDb[1][48]).toBeCloseTo(20 * Math.log10(0.01), 6);
    // joint 0 holds 99.89% of the power, at 5 Hz; the Hann main lobe puts a sixteenth of a bin-centred
    // line's power in each neighbour bin, so the 99% frequency is the next bin up (resolution ±1 bin)
    expect(s.energyFrequency).toBe(5.25);
    expect(s.recommendedRate).toBe(10.5);
    expect(clipSpectrum(synthClip(), { energyShare: 0.99995 }).energyFrequency).toBe(12.25);
    expect(clipSpectrum(synthClip(), { window: 'rectangular' }).energyFrequency).toBe(5);
    // without unrolling the sign flips would spread energy everywhere; with it the floor is far down
    expect(s.maxDb[150]).toBeLessThan(-200);
  });

  it('channelSpectra keeps each channel’s spectrum: a direct DFT of the known angle curves', () => {
    // the reference: the angles synthClip was built from (not recovered from the quaternions), a periodic
    // Hann window, the mean removed and a direct O(N²) DFT; one-sided amplitude 2|X_k| / Σw, in dB
    const frames = 400;
    const direct = (x: (f: number) => number): Float64Array => {
      const w = new Float64Array(frames);
      let sw = 0;
      let mean = 0;
      for (let f = 0; f < frames; f++) {
        w[f] = 0.5 - 0.5 * Math.cos((2 * Math.PI * f) / frames);
        sw += w[f];
        mean += x(f) / frames;
      }
      const out = new Float64Array(frames / 2 + 1);
      for (let k = 0; k <= frames / 2; k++) {
        let re = 0;
        let im = 0;
        for (let f = 0; f < frames; f++) {
          const v = (x(f) - mean) * w[f];
          re += v * Math.cos((2 * Math.PI * k * f) / frames);
          im -= v * Math.sin((2 * Math.PI * k * f) / frames);
        }
        const a = ((k === 0 || k === frames / 2 ? 1 : 2) * Math.hypot(re, im)) / sw;
        out[k] = 20 * Math.log10(a);
      }
      return out;
    };
    const z0 = direct((f) => 0.3 * Math.sin((2 * Math.PI * 5 * f) / 100));
    const x1 = direct((f) => 0.01 * Math.sin((2 * Math.PI * 12 * f) / 100));
    const s = clipSpectrum(synthClip(), { channelSpectra: true });
    const kept = s.channelDb!;
    // per joint its channels in its order (ZYX): joint 0 moves in Z (channel 0), joint 1 in X (channel 2)
    expect(kept.map((j) => j.length)).toEqual([3, 3]);
    for (const [got, ref] of [
      [kept[0][0], z0],
      [kept[1][2], x1],
    ]) {
      expect(got.length).toBe(201);
      for (let k = 0; k < ref.length; k++) {
        // where the direct DFT sees the line, the dB agree; elsewhere both are rounding noise
        if (ref[k] > -150) expect(Math.abs(got[k] - ref[k])).toBeLessThan(1e-6);
        else expect(got[k]).toBeLessThan(-150);
      }
    }
    // the still channels are far down, and the maxima are those of the kept channels
    for (const c of [kept[0][1], kept[0][2], kept[1][0], kept[1][1]])
      expect(Math.max(...c)).toBeLessThan(-150);
    for (let k = 0; k < 201; k++) expect(s.maxDb[k]).toBe(Math.max(...kept.flat().map((c) => c[k])));
    // off by default, and the option is checked
    expect(clipSpectrum(synthClip()).channelDb).toBeUndefined();
    expect(() => clipSpectrum(synthClip(), { channelSpectra: 'yes' as unknown as boolean })).toThrow(
      OptionError,
    );
  });

  it("channels 'quaternion' analyses hemisphere-continuous components", () => {
    const s = clipSpectrum(synthClip(), { channels: 'quaternion' });
    expect(s.channels).toBe(8);
    // z component sin(0.15·sin(ωt)) ≈ 0.15·sin(ωt): -16.5 dB at 5 Hz
    expect(s.maxDb[20]).toBeCloseTo(20 * Math.log10(0.15), 1);
    expect(s.energyFrequency).toBe(5.25);
    expect(s.maxDb[150]).toBeLessThan(-100);
  });

  it("include 'all' adds translation channels; bad options are rejected", () => {
    const clip = synthClip();
    for (let f = 0; f < clip.frames; f++)
      clip.translations.data[f * 6] = Math.sin((2 * Math.PI * 20 * f) / 100);
    const s = clipSpectrum(clip, { include: 'all' });
    expect(s.channels).toBe(12);
    expect(s.maxDb[80]).toBeCloseTo(0, 6);
    expect(() => clipSpectrum(clip, { energyShare: 0 })).toThrow(OptionError);
    expect(() => clipSpectrum(clip, { channels: 'matrix' as 'euler' })).toThrow(OptionError);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('clipSpectrum on the shared BVH files', () => {
  it('CMU 01_01 (120 Hz): 99% of the energy lies below 2.7 Hz, far below the 60 Hz Nyquist limit', () => {
    const clip = parseBvh(readSharedBvh('cmu/01_01.bvh'));
    const s = clipSpectrum(clip);
    expect(s.rate).toBeCloseTo(120, 3); // Frame Time .0083333
    expect(s.frequencies[s.frequencies.length - 1]).toBeCloseTo(60, 3);
    // measured: 2.660 Hz (99%), 7.37 Hz (99.9%); share of power above 30 Hz 1.1e-4
    expect(s.energyFrequency).toBeCloseTo(2.66, 2);
    expect(s.energyFrequency).toBeLessThan(60 / 10);
    expect(s.recommendedRate).toBeLessThan(10);
    let above = 0;
    let total = 0;
    for (let k = 0; k < s.power.length; k++) {
      total += s.power[k];
      if (s.frequencies[k] > 30) above += s.power[k];
    }
    expect(above / total).toBeLessThan(5e-4);
    expect(clipSpectrum(clip, { energyShare: 0.999 }).energyFrequency).toBeCloseTo(7.37, 1);
    // the maximum spectrum falls by more than 40 dB from 1 Hz to 30 Hz
    const at = (hz: number) => s.maxDb[Math.round((hz * clip.frames) / clip.rate)];
    expect(at(1) - at(30)).toBeGreaterThan(40);
  });
});
