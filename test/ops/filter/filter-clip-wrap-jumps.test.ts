// boundary 'wrap' with segments 'jumps': the jumps bound the segments, the loop's seam does not.
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { jumpCuts } from '../../../src/ops/analysis/segments.js';
import { filterClip } from '../../../src/ops/filter/filter-clip.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { resampleClip } from '../../../src/ops/resample/resample-clip.js';
import { chainClip } from '../../support/clips.js';

const PERIOD = 48;

/** A 2-joint chain at 24 Hz, periodic over 48 frames, the root stepping up by 1.5 rad over frames 20-29. */
function clip(frames: number) {
  const rot = new Float64Array(frames * 2 * 4);
  const tra = new Float64Array(frames * 2 * 3);
  for (let f = 0; f < frames; f++) {
    const p = f % PERIOD;
    const a = 0.3 * Math.sin((2 * Math.PI * p) / PERIOD) + (p >= 20 && p < 30 ? 1.5 : 0);
    const b = 0.2 * Math.cos((2 * Math.PI * p) / PERIOD);
    rot.set([0, 0, Math.sin(a / 2), Math.cos(a / 2)], f * 8);
    rot.set([0, 0, Math.sin(b / 2), Math.cos(b / 2)], f * 8 + 4);
    tra.set([0, 1, 0], f * 6 + 3);
  }
  return chainClip(rot, tra, 2, 24);
}

describe("filterClip with boundary 'wrap' and segments 'jumps'", () => {
  it('smooths across the seam as across any frame, and never across a jump', () => {
    const one = clip(PERIOD);
    // the step at 20 and back at 30 are the root's only cuts
    expect(jumpCuts(one)[0]).toEqual([20, 30]);
    const g = kernels.gaussian(2);
    const wrapped = filterClip(one, g, { boundary: 'wrap', segments: 'jumps' });
    // two periods filtered with jumps (cuts at 20, 30, 68, 78) and ordinary ends: its frames 48 to 88 have
    // the seam inside with all their neighbours, as a loop has them
    const two = filterClip(clip(2 * PERIOD), g, { segments: 'jumps' });
    let worst = 0;
    for (let f = 0; f <= 40; f++)
      for (let c = 0; c < 8; c++)
        worst = Math.max(
          worst,
          Math.abs(wrapped.rotations.data[f * 8 + c] - two.rotations.data[(f + PERIOD) * 8 + c]),
        );
    expect(worst).toBeLessThan(1e-12);
  });

  it('resampleClip says it does not split a wrapped clip at its jumps, naming the joint and frame', () => {
    expect(() => resampleClip(clip(PERIOD), { targetRate: 30, boundary: 'wrap', segments: 'jumps' })).toThrow(
      /segments 'jumps' with boundary 'wrap'.*j0 at frame 20/,
    );
    expect(() => resampleClip(clip(PERIOD), { targetRate: 30, boundary: 'wrap', segments: 'jumps' })).toThrow(
      OptionError,
    );
    // without jumps, or without the split, it wraps
    expect(resampleClip(clip(PERIOD), { targetRate: 30, boundary: 'wrap', segments: 'none' }).frames).toBe(
      60,
    );
  });
});
