import { describe, expect, it } from 'vitest';
import { InvalidValueError, OptionError, RotsigError } from '../../../src/errors.js';
import { DETECT_LOOP_DEFAULTS, detectLoop } from '../../../src/ops/analysis/loop.js';
import { chainClip } from '../../support/clips.js';

/** A 3-joint chain swinging about z with period `period` s, sampled at `rate` Hz over `duration` s. */
function swing(duration: number, period: number, rate: number, endShift = 0) {
  const frames = Math.round(duration * rate) + 1;
  const J = 3;
  const rot = new Float64Array(frames * J * 4);
  const tra = new Float64Array(frames * J * 3);
  for (let f = 0; f < frames; f++)
    for (let j = 0; j < J; j++) {
      const a = 0.6 * Math.sin((2 * Math.PI * f) / rate / period + j) + (f === frames - 1 ? endShift : 0);
      rot.set([0, 0, Math.sin(a / 2), Math.cos(a / 2)], (f * J + j) * 4);
      tra.set([0, j === 0 ? 0 : 1, 0], (f * J + j) * 3);
    }
  return chainClip(rot, tra, J, rate);
}

describe('detectLoop', () => {
  it('calls a clip whose last pose repeats its first a loop, with its measured seam', () => {
    const d = detectLoop(swing(1.25, 1.25, 24));
    expect(d.loop).toBe(true);
    expect(d.seam).toBeLessThan(1e-12);
    // size: diagonal of the joint box of the first frame, measured here by hand (joints at 0, 1 and 2 along
    // rotated unit offsets)
    expect(d.size).toBeGreaterThan(1);
    expect(d.limit).toBeCloseTo(DETECT_LOOP_DEFAULTS.tolerance * d.size, 15);
  });

  it('a clip that stops half way through its cycle is no loop', () => {
    const d = detectLoop(swing(1.25, 2.5, 24));
    expect(d.loop).toBe(false);
    expect(d.seam).toBeGreaterThan(0.1);
  });

  it('the threshold is the stated one: an end moved by 2x the tolerance is no loop, by 0.5x still one', () => {
    // a turn of the root by a small angle moves the tip (2 units out) by about 2 x angle
    const size = detectLoop(swing(1.25, 1.25, 24)).size;
    const limit = DETECT_LOOP_DEFAULTS.tolerance * size;
    const far = detectLoop(swing(1.25, 1.25, 24, limit), { angleTolerance: 1 });
    const near = detectLoop(swing(1.25, 1.25, 24, limit / 8), { angleTolerance: 1 });
    expect(far.loop).toBe(false);
    expect(near.loop).toBe(true);
    // the angle tolerance holds on its own: the same small turn is over 1e-4 rad
    expect(detectLoop(swing(1.25, 1.25, 24, limit / 8), { angleTolerance: 1e-5 }).loop).toBe(false);
  });

  it('refuses bad tolerances with a typed error, and a 2-frame clip is no loop', () => {
    const clip = swing(1.25, 1.25, 24);
    for (const tolerance of [Number.NaN, -1, Number.POSITIVE_INFINITY])
      expect(() => detectLoop(clip, { tolerance })).toThrow(OptionError);
    expect(() => detectLoop(clip, { tolerence: 1 } as never)).toThrow(OptionError);
    expect(() => detectLoop(null as never)).toThrow(RotsigError);
    expect(detectLoop(swing(1 / 24, 1, 24)).loop).toBe(false);
    const broken = swing(1.25, 1.25, 24);
    broken.rotations.data[broken.rotations.data.length - 1] = Number.NaN;
    expect(() => detectLoop(broken)).toThrow(InvalidValueError);
  });
});
