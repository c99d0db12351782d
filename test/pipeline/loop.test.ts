// Looping clips through the pipeline, measured with the test's own kinematics: a planar chain turning about
// z, whose joint positions are sums of rotated unit offsets (no rotsig code in the measurement).
import { describe, expect, it } from 'vitest';
import { keysFromClip } from '../../src/ops/keys/keys-from-clip.js';
import { runKeyedSteps } from '../../src/pipeline/keyed.js';
import { runSteps } from '../../src/pipeline/steps.js';
import type { Clip } from '../../src/series/clip.js';
import { chainClip } from '../support/clips.js';

const J = 3;

/** Joint angle of the swing: 0.6 sin(2π t / period + j) + a fast wobble that smoothing changes. */
function angle(t: number, j: number, period: number): number {
  return 0.6 * Math.sin((2 * Math.PI * t) / period + j) + 0.2 * Math.sin((10 * Math.PI * t) / period + 2 * j);
}

function swing(duration: number, period: number, rate: number): Clip {
  const frames = Math.round(duration * rate) + 1;
  const rot = new Float64Array(frames * J * 4);
  const tra = new Float64Array(frames * J * 3);
  for (let f = 0; f < frames; f++)
    for (let j = 0; j < J; j++) {
      const a = angle(f / rate, j, period);
      rot.set([0, 0, Math.sin(a / 2), Math.cos(a / 2)], (f * J + j) * 4);
      tra.set([0, j === 0 ? 0 : 1, 0], (f * J + j) * 3);
    }
  return chainClip(rot, tra, J, rate);
}

/** Positions of the chain's joints at frame f, by hand: each joint turns its children's unit offsets. */
function positions(clip: Clip, f: number): number[][] {
  const out: number[][] = [];
  let x = 0;
  let y = 0;
  let turn = 0;
  for (let j = 0; j < J; j++) {
    if (j > 0) {
      x += -Math.sin(turn);
      y += Math.cos(turn);
    }
    out.push([x, y]);
    const q = clip.rotations.data.subarray((f * J + j) * 4, (f * J + j) * 4 + 4);
    turn += 2 * Math.atan2(q[2], q[3]);
  }
  return out;
}

function seamOf(clip: Clip): number {
  const a = positions(clip, 0);
  const b = positions(clip, clip.frames - 1);
  return Math.max(...a.map((p, j) => Math.hypot(p[0] - b[j][0], p[1] - b[j][1])));
}

describe('loops in the pipeline (a 1.25 s swing at 24 Hz whose last frame repeats its first)', () => {
  const loop = swing(1.25, 1.25, 24);

  it('the input is closed: seam 0', () => {
    expect(seamOf(loop)).toBeLessThan(1e-12);
  });

  it('smooth (loop auto) keeps the seam closed and keeps every frame time', () => {
    const out = runSteps(loop, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } }]);
    expect(out.frames).toBe(loop.frames);
    expect(seamOf(out)).toBeLessThan(1e-12);
    // and it smooths round the seam: frame 0 is the wrapped average, the same as the frame one period on
    // of a clip twice as long (its frame 30 has full neighbours on both sides)
    const long = runSteps(swing(2.5, 1.25, 24), [
      { op: 'smooth', kernel: { name: 'gaussian', sigma: 2 }, boundary: 'wrap', segments: 'none' },
    ]);
    const a = positions(out, 0);
    const b = positions(long, 30);
    for (let j = 0; j < J; j++) expect(Math.hypot(a[j][0] - b[j][0], a[j][1] - b[j][1])).toBeLessThan(1e-9);
  });

  it('leaves the clip it is given as it was: the open period is a view of it, never written', () => {
    const rotations = loop.rotations.data.slice();
    const translations = loop.translations.data.slice();
    const smooth = { op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } } as const;
    const steps = [smooth, { op: 'resample', rate: 30 }, { op: 'unroll' }, smooth] as const;
    // a fitted grid closes the loop again (30.4 Hz); the exact one keeps 30 Hz and ends at 1.2333 s
    const fit = runSteps(loop, steps, { loopGrid: 'fit' });
    expect(seamOf(fit)).toBeLessThan(1e-12);
    expect(runSteps(loop, steps, { loopGrid: 'exact' }).frames).toBe(38);
    expect(seamOf(runSteps(loop, [smooth, smooth]))).toBeLessThan(1e-12);
    expect(loop.rotations.data).toEqual(rotations);
    expect(loop.translations.data).toEqual(translations);
  });

  it("loop 'off' leaves the seam open", () => {
    const out = runSteps(loop, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 2 }, loop: 'off' }]);
    expect(seamOf(out)).toBeGreaterThan(1e-3);
  });

  it('resample to 30 Hz ends at 1.25 s (not 1.2333 s) with seam 0, within its own error of the motion', () => {
    const out = runSteps(loop, [{ op: 'resample', rate: 30 }]);
    const end = (out.frames - 1) / out.rate;
    expect(end).toBeCloseTo(1.25, 12);
    expect(seamOf(out)).toBeLessThan(1e-12);
    // the step's error: output against the motion itself at the output's times (the 5x wobble is well
    // below 15 Hz, so a good resampler follows it)
    let error = 0;
    for (let f = 0; f < out.frames; f++) {
      const p = positions(out, f);
      const t = f / out.rate;
      let x = 0;
      let y = 0;
      let turn = 0;
      for (let j = 0; j < J; j++) {
        if (j > 0) {
          x += -Math.sin(turn);
          y += Math.cos(turn);
        }
        error = Math.max(error, Math.hypot(p[j][0] - x, p[j][1] - y));
        turn += angle(t, j, 1.25);
      }
    }
    expect(error).toBeLessThan(0.05);
  });

  it('a keyed clip that does not loop keeps its end key when resampled: last key at its last time, its end pose', () => {
    const open = swing(1.25, 2.5, 24);
    const keyed = keysFromClip(open, { keys: 'all' });
    const out = runKeyedSteps(keyed, [{ op: 'resample', rate: 30 }]);
    for (const t of out.tracks) {
      const n = t.times.length;
      expect(t.times[n - 1]).toBe(1.25);
      expect(t.times[n - 2]).toBeCloseTo(37 / 30, 12);
      if (t.path !== 'rotation') continue;
      const q = t.values.subarray((n - 1) * 4, n * 4);
      const a = 2 * Math.atan2(q[2], q[3]);
      const want = angle(1.25, t.joint, 2.5);
      expect(Math.abs(Math.atan2(Math.sin(a - want), Math.cos(a - want)))).toBeLessThan(1e-12);
    }
  });

  it('a keyed clip resampled and then smoothed still ends at its last key time, on its end pose smoothed', () => {
    const open = swing(1.25, 2.5, 24);
    const keyed = keysFromClip(open, { keys: 'all' });
    const smooth = { op: 'smooth', kernel: { name: 'gaussian', sigma: 1 } } as const;
    const out = runKeyedSteps(keyed, [{ op: 'resample', rate: 30 }, smooth]);
    // the uniform clips: resampled (last frame 37/30 s) and then smoothed
    const resampled = runSteps(open, [{ op: 'resample', rate: 30 }]);
    const smoothed = runSteps(resampled, [smooth]);
    const turn = (c: Clip, f: number, j: number) =>
      2 * Math.atan2(c.rotations.data[(f * J + j) * 4 + 2], c.rotations.data[(f * J + j) * 4 + 3]);
    for (const t of out.tracks) {
      const n = t.times.length;
      expect(t.times[n - 1]).toBe(1.25);
      expect(t.times[n - 2]).toBeCloseTo(37 / 30, 12);
      if (t.path !== 'rotation') continue;
      const q = t.values.subarray((n - 1) * 4, n * 4);
      // the end pose turned by what the smoothing changed at the last frame (turns about z add)
      const want = angle(1.25, t.joint, 2.5) + turn(smoothed, 37, t.joint) - turn(resampled, 37, t.joint);
      const a = 2 * Math.atan2(q[2], q[3]);
      expect(Math.abs(Math.atan2(Math.sin(a - want), Math.cos(a - want)))).toBeLessThan(1e-9);
    }
  });

  it('a keyed loop resampled and then smoothed keeps 30 Hz and ends at 1.25 s on its first key, the seam 0', () => {
    const keyed = keysFromClip(loop, { keys: 'all' });
    const out = runKeyedSteps(keyed, [
      { op: 'resample', rate: 30 },
      { op: 'smooth', kernel: { name: 'gaussian', sigma: 1 } },
    ]);
    for (const t of out.tracks) {
      const n = t.times.length;
      expect(n).toBe(39);
      for (let k = 0; k < n - 1; k++) expect(t.times[k]).toBeCloseTo(k / 30, 12);
      expect(t.times[n - 1]).toBe(1.25);
      for (let c = 0; c < t.width; c++)
        expect(Math.abs(t.values[(n - 1) * t.width + c])).toBeCloseTo(Math.abs(t.values[c]), 12);
    }
  });

  it('a keyed loop resampled keeps the rate: keys i/30 to 1.2333 s, then its first pose at 1.25 s', () => {
    const keyed = keysFromClip(loop, { keys: 'all' });
    const out = runKeyedSteps(keyed, [{ op: 'resample', rate: 30 }]);
    for (const t of out.tracks) {
      const n = t.times.length;
      expect(n).toBe(39);
      for (let k = 0; k < n - 1; k++) expect(t.times[k]).toBeCloseTo(k / 30, 12);
      expect(t.times[n - 1]).toBe(1.25);
      const w = t.width;
      for (let c = 0; c < w; c++)
        expect(Math.abs(t.values[(n - 1) * w + c])).toBeCloseTo(Math.abs(t.values[c]), 12);
    }
  });
});
