import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBvh } from '../../../src/io/index.js';
import { analyzeClip } from '../../../src/ops/analysis/analyze-clip.js';
import { cutGroups, jumpCuts, jumpSplits, movingAmong } from '../../../src/ops/analysis/segments.js';
import { filterClip } from '../../../src/ops/filter/filter-clip.js';
import { filterRotations } from '../../../src/ops/filter/filter-rotations.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { resampleClip } from '../../../src/ops/resample/resample-clip.js';
import { resampleRotations } from '../../../src/ops/resample/resample-rotations.js';
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

/**
 * Two joints at 30 Hz: root A moves and steps by 90° at frame 10 (as in `stepClip`), joint B turns smoothly
 * with no jump; `single` keeps only A's channels (a one-joint clip of the same values).
 */
function twoJointClip(single = false): Clip {
  const rows = Array.from({ length: 40 }, (_, f) => {
    const a = `${0.1 * f} ${Math.sin(f / 7)} 0 ${f < 10 ? 0 : 90 + 0.5 * (f - 10)} ${0.3 * f} 0`;
    return single ? a : `${a} ${20 * Math.sin(f / 6)} ${0.7 * f} ${-0.2 * f}`;
  });
  const b = single
    ? ''
    : '  JOINT B\n  {\n    OFFSET 0 1 0\n    CHANNELS 3 Zrotation Yrotation Xrotation\n    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n';
  const end = single ? '  End Site\n  {\n    OFFSET 0 1 0\n  }\n' : '';
  return parseBvh(
    `HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n${b}${end}}\nMOTION\nFrames: 40\nFrame Time: 0.0333333\n${rows.join('\n')}\n`,
  );
}

/** Joint j's values (of `width`) in every frame of a frame-major series. */
function jointValues(
  s: { data: ArrayLike<number>; frames: number; joints: number },
  j: number,
  width: number,
) {
  const out: number[] = [];
  for (let f = 0; f < s.frames; f++)
    for (let c = 0; c < width; c++) out.push(s.data[(f * s.joints + j) * width + c]);
  return out;
}

describe("segments: 'jumps' in a clip where only some joints jump", () => {
  it('jumpCuts(twoJointClip()) cuts A at frame 10 and leaves B whole', () => {
    expect(jumpCuts(twoJointClip())).toEqual([[10], []]);
  });

  it("filterClip: the joint without jumps is filtered exactly as with 'none', the jumping joint as on its own", () => {
    const k = kernels.gaussian(2);
    for (const space of ['raw', 'log'] as const) {
      const split = filterClip(twoJointClip(), k, { segments: 'jumps', space });
      const whole = filterClip(twoJointClip(), k, { segments: 'none', space });
      const alone = filterClip(twoJointClip(true), k, { segments: 'jumps', space });
      const reused = filterClip(twoJointClip(), k, { segments: 'jumps', space, input: 'reuse' });
      expect(jointValues(split.rotations, 1, 4)).toEqual(jointValues(whole.rotations, 1, 4));
      expect(jointValues(split.rotations, 0, 4)).toEqual(jointValues(alone.rotations, 0, 4));
      expect(jointValues(split.translations, 0, 3)).toEqual(jointValues(alone.translations, 0, 3));
      expect(jointValues(split.translations, 1, 3)).toEqual(jointValues(whole.translations, 1, 3));
      expect(Array.from(reused.rotations.data)).toEqual(Array.from(split.rotations.data));
      expect(Array.from(reused.translations.data)).toEqual(Array.from(split.translations.data));
    }
  });

  it("resampleClip: the joint without jumps is resampled exactly as with 'none', the jumping joint as on its own", () => {
    for (const targetRate of [10, 12, 75]) {
      const split = resampleClip(twoJointClip(), { targetRate, segments: 'jumps' });
      const whole = resampleClip(twoJointClip(), { targetRate, segments: 'none' });
      const alone = resampleClip(twoJointClip(true), { targetRate, segments: 'jumps' });
      expect(split.frames).toBe(whole.frames);
      expect(jointValues(split.rotations, 1, 4)).toEqual(jointValues(whole.rotations, 1, 4));
      expect(jointValues(split.rotations, 0, 4)).toEqual(jointValues(alone.rotations, 0, 4));
      expect(jointValues(split.translations, 0, 3)).toEqual(jointValues(alone.translations, 0, 3));
      expect(jointValues(split.translations, 1, 3)).toEqual(jointValues(whole.translations, 1, 3));
    }
  });

  it('resampleClip with jumps refuses an oversized output as the plain call does', () => {
    expect(() => resampleClip(twoJointClip(), { targetRate: 1e12, segments: 'jumps' })).toThrow(
      /over the limit/,
    );
  });
});

/**
 * Roots A, B, C at 30 Hz, each moving and turning; A and B step by 90° at frame 10, C at frame 25 (so A
 * and B share their segments); `only` keeps one root (a clip of that joint alone, with the same values).
 */
function threeRootClip(only?: number): Clip {
  const stepAt = [10, 10, 25];
  const roots = [0, 1, 2].filter((r) => only === undefined || r === only);
  const text = roots
    .map(
      (r) =>
        `ROOT R${r}\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n`,
    )
    .join('');
  const rows = Array.from({ length: 40 }, (_, f) =>
    roots
      .map((r) => {
        const z = f < stepAt[r] ? 5 * r + 0.2 * f : 90 + 0.5 * (f - stepAt[r]);
        return `${0.1 * f + r} ${Math.sin(f / (5 + r))} ${r} ${z} ${0.3 * f * (r + 1)} ${Math.cos(f / 9)}`;
      })
      .join(' '),
  );
  return parseBvh(`HIERARCHY\n${text}MOTION\nFrames: 40\nFrame Time: 0.0333333\n${rows.join('\n')}\n`);
}

describe("segments: 'jumps' with joints that share their jumps (filtered and resampled together)", () => {
  it('jumpCuts(threeRootClip()) gives [[10], [10], [25]]', () => {
    expect(jumpCuts(threeRootClip())).toEqual([[10], [10], [25]]);
  });

  it('filterClip and resampleClip give every joint the numbers it gets alone', () => {
    const k = kernels.gaussian(2);
    const all = [
      filterClip(threeRootClip(), k, { segments: 'jumps', space: 'raw' }),
      filterClip(threeRootClip(), k, { segments: 'jumps', space: 'log', boundary: 'reflect' }),
      resampleClip(threeRootClip(), { targetRate: 12, segments: 'jumps' }),
      resampleClip(threeRootClip(), { targetRate: 75, segments: 'jumps', kernel: 'cubic6' }),
    ];
    for (let j = 0; j < 3; j++) {
      const alone = [
        filterClip(threeRootClip(j), k, { segments: 'jumps', space: 'raw' }),
        filterClip(threeRootClip(j), k, { segments: 'jumps', space: 'log', boundary: 'reflect' }),
        resampleClip(threeRootClip(j), { targetRate: 12, segments: 'jumps' }),
        resampleClip(threeRootClip(j), { targetRate: 75, segments: 'jumps', kernel: 'cubic6' }),
      ];
      for (let c = 0; c < all.length; c++) {
        expect(jointValues(all[c].rotations, j, 4), `case ${c}, joint ${j}`).toEqual(
          jointValues(alone[c].rotations, 0, 4),
        );
        expect(jointValues(all[c].translations, j, 3), `case ${c}, joint ${j}`).toEqual(
          jointValues(alone[c].translations, 0, 3),
        );
      }
    }
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
  it("output frame 0 stays within 10° of the input's first frame with segments (62° without)", () => {
    const run = (segments: 'jumps' | 'none') =>
      resampleClip(filterClip(unrollClip(clip), kernels.gaussian(2), { segments }), {
        targetRate: 30,
        kernel: 'catmull-rom',
        space: 'log',
        segments,
      });
    // without segments the 136° step is smeared into frame 0 (62° with the default 'linear' ends, 101°
    // with 'renormalize')
    expect(worstAtFrame0(run('none'))).toBeGreaterThan(45 * DEG);
    expect(worstAtFrame0(run('jumps'))).toBeLessThan(10 * DEG);
  });
  it('analyzeClip names the leading jump: frame 1, LeftForeArm 136°', () => {
    const lead = analyzeClip(clip).leadingJump;
    expect(lead?.frame).toBe(1);
    expect(lead?.joint).toBe('LeftForeArm');
    expect((lead?.angle ?? 0) / DEG).toBeCloseTo(136, 0);
  });
});

/**
 * Each segment `[s, e)` of each joint with jumps in `clip`, with whether it is the joint's first and last,
 * and that joint's rotations over the segment as a series of their own. With `wrap` the clip's ends are
 * joined: the segments run from jump to jump, the last through frame 0 (frames past the end are `f − frames`).
 */
function* jumpSegments(clip: Clip, cuts: readonly (readonly number[])[], wrap = false) {
  for (let j = 0; j < cuts.length; j++) {
    if (cuts[j].length === 0) continue;
    const bounds = wrap ? [...cuts[j], cuts[j][0] + clip.frames] : [0, ...cuts[j], clip.frames];
    const values = jointValues(clip.rotations, j, 4);
    for (let k = 0; k + 1 < bounds.length; k++) {
      const [s, e] = [bounds[k], bounds[k + 1]];
      const data = new Float64Array((e - s) * 4);
      for (let f = s; f < e; f++)
        data.set(values.slice((f % clip.frames) * 4, (f % clip.frames) * 4 + 4), (f - s) * 4);
      yield {
        j,
        s,
        e,
        first: k === 0,
        last: k + 2 === bounds.length,
        series: { data, frames: e - s, joints: 1 },
      };
    }
  }
}

describe('filterClip with jumps against each segment filtered on its own (CMU 01_01)', () => {
  const clip = unrollClip(
    parseBvh(readFileSync(new URL('../../../samples/01_01.bvh', import.meta.url), 'utf8')),
  );
  const cuts = jumpCuts(clip);
  // the frames near a cut are filtered per segment and the others come from the pass over the whole clip:
  // every frame must be what filtering its segment alone gives
  for (const [kernel, options] of [
    [kernels.gaussian(2), { space: 'raw' as const }],
    [kernels.gaussian(3), { space: 'log' as const, boundary: 'reflect' as const }],
    [kernels.gaussian(1), { space: 'raw' as const, boundary: 'wrap' as const }],
  ] as const) {
    it(`${kernel.name} ${JSON.stringify(options)}: each jumping joint's frames equal its segment's own filter`, () => {
      const out = filterClip(clip, kernel, { ...options, segments: 'jumps' });
      // under 'wrap' the loop's seam is no segment end and the jumps are ends under 'linear'
      const wrap = 'boundary' in options && options.boundary === 'wrap';
      let compared = 0;
      for (const { j, s, e, series } of jumpSegments(clip, cuts, wrap)) {
        const alone = filterRotations(series, kernel, wrap ? { ...options, boundary: 'linear' } : options);
        for (let f = s; f < e; f++) {
          const want = alone.data.subarray((f - s) * 4, (f - s) * 4 + 4);
          expect(
            quat.angle(q(out, f % clip.frames, j), want),
            `joint ${j}, frame ${f}, segment ${s}-${e}`,
          ).toBeLessThan(1e-12);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(10000);
    });
  }
});

/** `clip` with cuts put in: joints 3 to 8 turned by a further 80° about (1, 1, 0) on frames [500, 1200) and from 1900. */
function withCuts(clip: Clip): Clip {
  const turn = quat.fromAxisAngle(quat.create(), [Math.SQRT1_2, Math.SQRT1_2, 0], 80 * DEG);
  const J = clip.rotations.joints;
  for (let f = 0; f < clip.frames; f++) {
    if (!((f >= 500 && f < 1200) || f >= 1900)) continue;
    for (let j = 3; j <= 8; j++)
      quat.multiplyFlat(clip.rotations.data, (f * J + j) * 4, turn, 0, clip.rotations.data, (f * J + j) * 4);
  }
  return clip;
}

describe('resampleClip with jumps against each segment resampled on its own (CMU 01_01)', () => {
  const clip = filterClip(
    unrollClip(
      withCuts(parseBvh(readFileSync(new URL('../../../samples/01_01.bvh', import.meta.url), 'utf8'))),
    ),
    kernels.gaussian(2),
    { segments: 'jumps' },
  );
  const cuts = jumpCuts(clip);
  it('CMU 01_01 has joints with several jumps, and joints with none', () => {
    expect(cuts.filter((c) => c.length > 1).length).toBeGreaterThan(0);
    expect(cuts.filter((c) => c.length === 0).length).toBeGreaterThan(0);
  });
  // the output frames near a cut are evaluated per segment and the others come from the pass over the
  // whole clip: every frame must be what resampling its segment alone gives
  it("{targetRate: 24, boundary: 'wrap'}: refused with the joint and frame of a jump (a loop's seam is no segment end)", () => {
    expect(() => resampleClip(clip, { targetRate: 24, boundary: 'wrap', segments: 'jumps' })).toThrow(
      /segments 'jumps' with boundary 'wrap' is not supported.* at frame \d+/,
    );
  });
  for (const options of [
    { targetRate: 30 },
    { targetRate: 240, kernel: 'lanczos3' as const, boundary: 'reflect' as const },
    { targetRate: 40, space: 'raw' as const },
  ]) {
    it(`${JSON.stringify(options)}: each jumping joint's frames equal its segment's own resample`, () => {
      const out = resampleClip(clip, { ...options, segments: 'jumps' });
      const outRate = out.rate;
      let compared = 0;
      for (const { j, s, e, first, last, series } of jumpSegments(clip, cuts)) {
        // the output frames whose source position falls in this segment
        const frames: number[] = [];
        for (let i = 0; i < out.frames; i++) {
          const p = (i * clip.rate) / outRate;
          if ((first || p >= s - 0.5) && (last || p < e - 0.5)) frames.push(i);
        }
        if (frames.length === 0) continue;
        const alone = resampleRotations(series, {
          ...options,
          targetRate: undefined,
          sourceRate: 1,
          times: frames.map((i) => (i * clip.rate) / outRate - s),
        });
        frames.forEach((i, m) => {
          const want = alone.data.subarray(m * 4, m * 4 + 4);
          expect(quat.angle(q(out, i, j), want), `joint ${j}, frame ${i}, segment ${s}-${e}`).toBeLessThan(
            1e-12,
          );
          compared++;
        });
      }
      expect(compared).toBeGreaterThan(1000);
    });
  }
});

describe('segment helpers', () => {
  it('movingAmong(data, frames, joints, picked) lists the picked joints whose vector changes, in picked order', () => {
    // 4 frames x 3 joints: joint 0 constant, joint 1 changes at frame 1, joint 2 only at the last frame (NaN)
    const data = new Float64Array(4 * 3 * 3).fill(1);
    data[(1 * 3 + 1) * 3 + 2] = 2;
    data[(3 * 3 + 2) * 3] = Number.NaN;
    expect(movingAmong(data, 4, 3, [2, 0, 1])).toEqual([2, 1]);
    expect(movingAmong(data, 4, 3, [0])).toEqual([]);
    expect(movingAmong(data, 1, 3, [0, 1, 2])).toEqual([]);
  });

  it('cutGroups(cuts) groups the joints with equal cut lists, in order of their first joint', () => {
    expect(cutGroups([[], [5], [3, 9], [5], []])).toEqual([
      { joints: [1, 3], cuts: [5] },
      { joints: [2], cuts: [3, 9] },
    ]);
  });
});

/** Angle about x of a kick: 0 until t0, then 2 rad along a smoothstep over 0.08 s (peak 37.5 rad/s), held. */
function kickAngle(t: number): number {
  const u = Math.min(1, Math.max(0, (t - 0.5) / 0.08));
  return 2 * (3 * u * u - 2 * u * u * u);
}

/** One joint at 120 Hz turning about x by `angle(t)`, one second long, with a slow turn about y over it. */
function angleClip(angle: (t: number) => number, rate = 120, frames = 121): Clip {
  const rows = Array.from(
    { length: frames },
    (_, f) => `${(angle(f / rate) / DEG).toFixed(12)} ${(10 * f) / frames} 0`,
  );
  return parseBvh(
    `HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: ${frames}\nFrame Time: ${1 / rate}\n${rows.join('\n')}\n`,
  );
}

describe('jumpSplits(clip): cuts come from the clip, not from a fixed speed', () => {
  it('a kick at 37.5 rad/s (0.31 rad a frame at 120 Hz, above 25 rad/s) is motion: no split', () => {
    const clip = angleClip(kickAngle);
    // the fixed-speed rule alone (spikeRatio 0) cuts the kick into pieces
    expect(jumpSplits(clip, undefined, 25, 0).length).toBeGreaterThan(3);
    expect(jumpSplits(clip)).toEqual([]);
  });

  it("resampleClip(kick, { targetRate: 30, segments: 'jumps' }) equals the resample of the whole curve", () => {
    const clip = angleClip(kickAngle);
    const split = resampleClip(clip, { targetRate: 30, kernel: 'lanczos3', segments: 'jumps' });
    const whole = resampleClip(clip, { targetRate: 30, kernel: 'lanczos3', segments: 'none' });
    let worst = 0;
    for (let f = 0; f < whole.frames; f++) worst = Math.max(worst, quat.angle(q(split, f), q(whole, f)));
    // cut at the fixed 25 rad/s, the kick's pieces were resampled apart: 4.1° off the whole curve
    expect(worst).toBeLessThan(1e-12);
  });

  it('a cut (a 60° step in slow motion) and a one-frame glitch (out and back) still split, with their angles', () => {
    const cut = jumpSplits(angleClip((t) => 0.3 * t + (t >= 0.5 ? 60 * DEG : 0)));
    expect(cut.map((d) => d.frame)).toEqual([60]);
    // 60° and one frame of the 0.3 rad/s turn (0.14°)
    expect(Math.abs(cut[0].angle / DEG - 60.14)).toBeLessThan(0.01);
    const glitch = jumpSplits(angleClip((t) => 0.3 * t + (Math.abs(t - 0.5) < 1e-9 ? 40 * DEG : 0)));
    expect(glitch.map((d) => d.frame)).toEqual([60, 61]);
  });

  it('CMU 01_01: the T-pose first frame still splits every joint that jumps there', () => {
    const clip = parseBvh(readFileSync('samples/01_01.bvh', 'utf8'));
    const atFirst = jumpSplits(clip).filter((d) => d.frame === 1);
    expect(atFirst.map((d) => clip.skeleton.names[d.joint])).toEqual(
      expect.arrayContaining(['LeftArm', 'LeftForeArm', 'RightArm', 'RThumb']),
    );
  });
});
