import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBvh } from '../../../src/io/index.js';
import { analyzeClip } from '../../../src/ops/analysis/analyze-clip.js';
import { jumpCuts } from '../../../src/ops/analysis/segments.js';
import { filterClip } from '../../../src/ops/filter/filter-clip.js';
import * as kernels from '../../../src/ops/filter/kernels.js';
import { resampleClip } from '../../../src/ops/resample/resample-clip.js';
import { unrollClip } from '../../../src/ops/unroll/unroll-clip.js';
import * as quat from '../../../src/quat/index.js';
import type { Clip } from '../../../src/series/clip.js';

const DEG = Math.PI / 180;

/** One joint: 10 frames at Z = 0°, then a 90° step and a slow turn from there (30 Hz). */
function stepClip(): Clip {
  const rows = Array.from({ length: 40 }, (_, f) => `${f < 10 ? 0 : 90 + 0.5 * (f - 10)} 0 0`);
  return parseBvh(
    `HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Yrotation Xrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 40\nFrame Time: 0.0333333\n${rows.join('\n')}\n`,
  );
}

const q = (c: Clip, f: number, j = 0) =>
  c.rotations.data.subarray((f * c.rotations.joints + j) * 4, (f * c.rotations.joints + j) * 4 + 4);

describe("filterClip and resampleClip with segments: 'jumps'", () => {
  it('jumpCuts splits at the 90° step (frame 10) only', () => {
    expect(jumpCuts(stepClip())).toEqual([[10]]);
  });

  it("filterClip(clip, gaussian(2), { segments: 'jumps' }) keeps the constant stretch exact; 'none' smears it", () => {
    const clip = stepClip();
    const split = filterClip(clip, kernels.gaussian(2), { segments: 'jumps' });
    const smeared = filterClip(clip, kernels.gaussian(2));
    for (let f = 0; f < 10; f++) expect(quat.angle(q(split, f), q(clip, f))).toBeLessThan(1e-12);
    expect(quat.angle(q(smeared, 9), q(clip, 9))).toBeGreaterThan(20 * DEG);
    // after the jump the segment is filtered on its own: a slow turn stays within its own values
    expect(quat.angle(q(split, 10), q(clip, 10))).toBeLessThan(1 * DEG);
  });

  it("resampleClip(clip, { targetRate: 10, segments: 'jumps' }) takes each output frame from its side of the jump", () => {
    const clip = stepClip();
    const split = resampleClip(clip, { targetRate: 10, kernel: 'lanczos3', segments: 'jumps' });
    const smeared = resampleClip(clip, { targetRate: 10, kernel: 'lanczos3' });
    expect(split.frames).toBe(smeared.frames);
    // output frame 3 sits at source frame 9, the last before the step
    expect(quat.angle(q(split, 3), q(clip, 9))).toBeLessThan(1e-9);
    expect(quat.angle(q(smeared, 3), q(clip, 9))).toBeGreaterThan(5 * DEG);
    expect(quat.angle(q(split, 4), q(clip, 12))).toBeLessThan(2 * DEG);
  });
});

describe('CMU 01_01 (T-pose at frame 0, then a 136° step): unroll, gaussian(2), resample to 30 Hz', () => {
  const clip = parseBvh(readFileSync(new URL('../../../samples/01_01.bvh', import.meta.url), 'utf8'));
  function worstAtFrame0(out: Clip): number {
    let worst = 0;
    for (let j = 0; j < clip.rotations.joints; j++)
      worst = Math.max(worst, quat.angle(q(out, 0, j), q(clip, 0, j)));
    return worst;
  }
  it("output frame 0 stays within 10° of the input's first frame with segments (101° without)", () => {
    const run = (segments: 'jumps' | 'none') =>
      resampleClip(filterClip(unrollClip(clip), kernels.gaussian(2), { segments }), {
        targetRate: 30,
        kernel: 'catmull-rom',
        space: 'log',
        segments,
      });
    expect(worstAtFrame0(run('none'))).toBeGreaterThan(90 * DEG);
    expect(worstAtFrame0(run('jumps'))).toBeLessThan(10 * DEG);
  });
  it('analyzeClip names the leading jump: frame 1, LeftForeArm 136°', () => {
    const lead = analyzeClip(clip).leadingJump;
    expect(lead?.frame).toBe(1);
    expect(lead?.joint).toBe('LeftForeArm');
    expect((lead?.angle ?? 0) / DEG).toBeCloseTo(136, 0);
  });
});
