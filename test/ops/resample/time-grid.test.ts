import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { type DurationPolicy, timeGrid } from '../../../src/ops/resample/time-grid.js';

describe('timeGrid(sourceFrames, sourceRate, targetRate, options)', () => {
  it("'floor' ends on or before the source end, at exactly the target rate", () => {
    const g = timeGrid(101, 30, 24); // 3.333 s → 80 intervals exactly
    expect(g.frames).toBe(81);
    expect(g.rate).toBe(24);
    expect(g.times[80]).toBe(80 / 24);
    expect(g.positions[80]).toBe(100);
    const h = timeGrid(101, 30, 25); // 83.33 intervals → 83
    expect(h.frames).toBe(84);
    expect(h.times[83]).toBeLessThan(100 / 30);
  });

  it("'ceil' covers the source end, 'keep-end' lands on it with the rate stated", () => {
    expect(timeGrid(101, 30, 25, { duration: 'ceil' }).frames).toBe(85);
    const k = timeGrid(101, 30, 25, { duration: 'keep-end' });
    expect(k.frames).toBe(84);
    expect(k.rate).toBeCloseTo(83 / (100 / 30), 12);
    expect(k.times[83]).toBe(100 / 30);
    expect(k.positions[83]).toBe(100);
    // when the ratio fits, keep-end is the exact-rate grid
    const e = timeGrid(121, 120, 60, { duration: 'keep-end' });
    expect(e.rate).toBe(60);
    expect(e.frames).toBe(61);
  });

  it('shared instants are exact integer source positions (60 -> 120, 120 -> 30, 29.97 -> 59.94)', () => {
    const up = timeGrid(61, 60, 120);
    for (let i = 0; i < up.frames; i += 2) expect(up.positions[i]).toBe(i / 2);
    const down = timeGrid(1201, 120, 30);
    for (let i = 0; i < down.frames; i++) expect(down.positions[i]).toBe(4 * i);
    const ntsc = timeGrid(1000, 29.97, 59.94);
    for (let i = 0; i < ntsc.frames; i += 2) expect(ntsc.positions[i]).toBe(i / 2);
    expect(ntsc.frames).toBe(1999);
  });

  it('a 10-minute clip at 29.97 -> 60 Hz has no drift', () => {
    const g = timeGrid(17982, 29.97, 60);
    expect(g.frames).toBe(35998);
    for (let i = 0; i < g.frames; i++) {
      if (g.times[i] !== i / 60) throw new Error(`time ${i} drifted`);
    }
    // positions are the correctly rounded i · 999 / 2000 (29.97 / 60 = 999 / 2000)
    for (let i = 0; i < g.frames; i++) {
      if (g.positions[i] !== (i * 999) / 2000) throw new Error(`position ${i} is ${g.positions[i]}`);
    }
    expect(g.positions[2000]).toBe(999);
  });

  it("'loop' keeps the period of a looping clip", () => {
    const g = timeGrid(60, 30, 50, { duration: 'loop' });
    expect(g.frames).toBe(100);
    expect(g.rate).toBe(50);
    const odd = timeGrid(60, 30, 45.5, { duration: 'loop' }); // 91 frames at exactly 45.5
    expect(odd.frames).toBe(91);
    const fit = timeGrid(61, 30, 47, { duration: 'loop' }); // 95.57 → 96 frames, rate 47.2
    expect(fit.frames).toBe(96);
    expect(fit.rate * (61 / 30)).toBeCloseTo(96, 12);
    expect(fit.positions[48]).toBe(30.5);
  });

  it('handles 0 and 1 source frames and rejects bad arguments', () => {
    expect(timeGrid(0, 30, 60).frames).toBe(0);
    expect(timeGrid(1, 30, 60).frames).toBe(1);
    expect(() => timeGrid(10, 0, 60)).toThrow(OptionError);
    expect(() => timeGrid(10, 30, -1)).toThrow(OptionError);
    expect(() => timeGrid(1.5, 30, 60)).toThrow(OptionError);
    expect(() => timeGrid(10, 30, 60, { duration: 'round' as DurationPolicy })).toThrow(OptionError);
  });
});
