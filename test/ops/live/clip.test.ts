import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { dampClip } from '../../../src/ops/live/damp-clip.js';
import { createDamper } from '../../../src/ops/live/damper.js';
import { createOneEuroFilter } from '../../../src/ops/live/one-euro.js';
import { oneEuroClip } from '../../../src/ops/live/one-euro-clip.js';
import * as quat from '../../../src/quat/index.js';
import type { Clip } from '../../../src/series/clip.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const clip: Clip = parseBvh(readFileSync(join(root, 'samples', '01_01.bvh'), 'utf8'));

function meanAngle(a: Clip, b: Clip): number {
  let s = 0;
  const n = a.rotations.frames * a.rotations.joints;
  for (let i = 0; i < n; i++)
    s += quat.angle(a.rotations.data.subarray(i * 4, i * 4 + 4), b.rotations.data.subarray(i * 4, i * 4 + 4));
  return s / n;
}

describe('oneEuroClip(clip, options) and dampClip(clip, options)', () => {
  const J = clip.rotations.joints;
  const F = clip.rotations.frames;

  it('oneEuroClip equals the streaming filter pushed frame by frame at f·frameTime (rotations and translations)', () => {
    const got = oneEuroClip(clip, { minCutoff: 1.5, beta: 0.3, translationBeta: 0.01 });
    const rot = createOneEuroFilter({ joints: J, minCutoff: 1.5, beta: 0.3 });
    const tra = createOneEuroFilter({ joints: J, kind: 'vector', minCutoff: 1.5, beta: 0.01 });
    const r = new Float64Array(J * 4);
    const t = new Float64Array(J * 3);
    for (let f = 0; f < F; f++) {
      rot.push(r, clip.rotations.data.subarray(f * J * 4, (f + 1) * J * 4), f * clip.frameTime);
      tra.push(t, clip.translations.data.subarray(f * J * 3, (f + 1) * J * 3), f * clip.frameTime);
      expect(Array.from(got.rotations.data.subarray(f * J * 4, (f + 1) * J * 4))).toEqual(Array.from(r));
      expect(Array.from(got.translations.data.subarray(f * J * 3, (f + 1) * J * 3))).toEqual(Array.from(t));
    }
    expect(got.skeleton).toBe(clip.skeleton);
    expect(got.frames).toBe(F);
  });

  it('dampClip equals the damper pushed frame by frame; forward-backward lags less than forward', () => {
    const got = dampClip(clip, { halfLife: 0.05, channels: 'rotations' });
    const d = createDamper({ joints: J, halfLife: 0.05 });
    const r = new Float64Array(J * 4);
    for (let f = 0; f < F; f += 1) {
      d.push(r, clip.rotations.data.subarray(f * J * 4, (f + 1) * J * 4), f * clip.frameTime);
      if (f % 97 === 0)
        expect(Array.from(got.rotations.data.subarray(f * J * 4, (f + 1) * J * 4))).toEqual(Array.from(r));
    }
    expect(Array.from(got.translations.data)).toEqual(Array.from(clip.translations.data));
    const both = dampClip(clip, { halfLife: 0.05, direction: 'forward-backward' });
    expect(meanAngle(both, clip)).toBeLessThan(meanAngle(got, clip));
    const oe = oneEuroClip(clip, { beta: 0.5 });
    const oeBoth = oneEuroClip(clip, { beta: 0.5, direction: 'forward-backward' });
    expect(meanAngle(oeBoth, clip)).toBeLessThan(meanAngle(oe, clip));
  });

  it('leaves joints that never move unchanged and the input clip untouched', () => {
    const before = Float64Array.from(clip.rotations.data);
    const got = oneEuroClip(clip, { beta: 1 });
    expect(Array.from(clip.rotations.data)).toEqual(Array.from(before));
    for (let j = 0; j < J; j++) {
      let moves = false;
      for (let f = 1; f < F && !moves; f++)
        for (let c = 0; c < 4; c++) if (before[(f * J + j) * 4 + c] !== before[j * 4 + c]) moves = true;
      if (moves) continue;
      for (let f = 0; f < F; f++) {
        expect(
          quat.angle(
            got.rotations.data.subarray((f * J + j) * 4, (f * J + j) * 4 + 4),
            before.subarray(j * 4, j * 4 + 4),
          ),
        ).toBeLessThan(1e-12);
      }
    }
  });

  it('rejects unknown and invalid options with OptionError', () => {
    expect(() => oneEuroClip(clip, { minCutoff: -1 })).toThrow(OptionError);
    expect(() => oneEuroClip(clip, { cutoff: 1 } as never)).toThrow(OptionError);
    expect(() => dampClip(clip, { halfLife: 0 })).toThrow(OptionError);
    expect(() => dampClip(clip, { direction: 'backward' as 'forward' })).toThrow(OptionError);
  });
});
