import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import {
  analyzeClip,
  guessPositionSemantics,
  guessRate,
  peakAngularSpeeds,
} from '../../../src/ops/analysis/analyze-clip.js';

/** A two-joint BVH: root with `rootChannels`, a child with Zrotation Xrotation Yrotation. */
function bvh(
  frameTime: string,
  rows: number[][],
  rootOffset = '0 0 0',
  rootChannels = 'Xposition Yposition Zposition Zrotation Xrotation Yrotation',
): string {
  const n = rootChannels.split(' ').length;
  return [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    `  OFFSET ${rootOffset}`,
    `  CHANNELS ${n} ${rootChannels}`,
    '  JOINT Chest',
    '  {',
    '    OFFSET 0 10 0',
    '    CHANNELS 3 Zrotation Xrotation Yrotation',
    '    End Site',
    '    {',
    '      OFFSET 0 5 0',
    '    }',
    '  }',
    '}',
    'MOTION',
    `Frames: ${rows.length}`,
    `Frame Time: ${frameTime}`,
    ...rows.map((r) => r.join(' ')),
    '',
  ].join('\n');
}

describe('guessRate(frameTime, text)', () => {
  it.each([
    ['0.016667', 60, 1],
    ['.0083333', 120, 1],
    ['0.008333', 120, 1],
    ['0.0333333', 30, 1],
    ['0.010000', 100, 1],
    ['0.008', 125, 1],
    ['0.04', 25, 1],
    ['0.08', 25, 2],
    ['0.0333667', 30000, 1001],
    ['0.041708', 24000, 1001],
  ])('guessRate(%s) is %i/%i', (text, p, q) => {
    const g = guessRate(Number(text), text);
    expect(g.numerator).toBe(p);
    expect(g.denominator).toBe(q);
    expect(g.guessHz).toBe(p / q);
    expect(g.hz).toBe(1 / Number(text));
    // The guess lies within the rounding of the printed digits.
    expect(Math.abs(q / p - Number(text))).toBeLessThanOrEqual(g.tolerance * (1 + 1e-9));
  });

  it('guessRate(0.0318310) finds no simple rate (31.4159 Hz)', () => {
    const g = guessRate(0.031831, '0.0318310');
    expect(g.guessHz).toBeNull();
    expect(g.numerator).toBeNull();
  });

  it('guessRate without text uses a relative tolerance of 1e-6', () => {
    expect(guessRate(1 / 60).guessHz).toBe(60);
    expect(guessRate(0.016667).guessHz).toBeNull();
  });

  it('guessRate(0) and guessRate(NaN) throw OptionError', () => {
    expect(() => guessRate(0)).toThrow(OptionError);
    expect(() => guessRate(Number.NaN)).toThrow(OptionError);
  });
});

describe('guessPositionSemantics(clip)', () => {
  const rows = (y: number) =>
    Array.from({ length: 10 }, (_, f) => [0.1 * f, y + 0.05 * f, 0, 0, 0, 0, 0, 0, 0]);

  it('root channels near a large OFFSET suggest replace', () => {
    expect(guessPositionSemantics(parseBvh(bvh('0.033333', rows(100), '0 100 0'))).guess).toBe('replace');
  });

  it('root channels near zero beside a large OFFSET suggest add', () => {
    const g = guessPositionSemantics(parseBvh(bvh('0.033333', rows(0.5), '0 100 0')));
    expect(g.guess).toBe('add');
    expect(g.reason).toMatch(/Hips Yposition/);
  });

  it('a zero OFFSET reads the same either way; no position channels is none', () => {
    expect(guessPositionSemantics(parseBvh(bvh('0.033333', rows(3)))).guess).toBe('either');
    const noPos = Array.from({ length: 4 }, () => [0, 0, 0, 0, 0, 0]);
    expect(
      guessPositionSemantics(parseBvh(bvh('0.033333', noPos, '0 0 0', 'Zrotation Xrotation Yrotation')))
        .guess,
    ).toBe('none');
  });
});

describe('peakAngularSpeeds(clip) and analyzeClip(clip)', () => {
  // Chest spins about Z at 3 rad/s, sampled at 30 Hz, for 2 s; the root stands still.
  const omega = 3;
  const spin = Array.from({ length: 61 }, (_, f) => [
    0,
    0,
    0,
    0,
    0,
    0,
    (((omega * f) / 30) * 180) / Math.PI,
    0,
    0,
  ]);

  it('peakAngularSpeeds of a constant spin is the spin rate, sign flips included', () => {
    const clip = parseBvh(bvh('0.0333333', spin));
    // Flip the sign of every other quaternion of the chest: the same rotations.
    const d = clip.rotations.data;
    for (let f = 1; f < clip.frames; f += 2) for (let k = 0; k < 4; k++) d[(f * 2 + 1) * 4 + k] *= -1;
    const { speed } = peakAngularSpeeds(clip);
    expect(speed[0]).toBe(0);
    // 0.0333333 is read as 30 Hz exactly
    expect(speed[1]).toBeCloseTo(omega, 6);
  });

  it('analyzeClip reports a 90 degree step as a jump at its frame and counts sign flips', () => {
    // Written wrapped to (-180, 180], as many exporters do: one wrap, hence one quaternion sign flip.
    const rows = spin.map((r) => [...r]);
    for (const r of rows) if (r[6] > 180) r[6] -= 360;
    for (let f = 40; f < rows.length; f++) rows[f][7] = 90; // Chest Xrotation jumps by 90 degrees at frame 40
    const clip = parseBvh(bvh('0.0333333', rows));
    const a = analyzeClip(clip);
    expect(a.frames).toBe(61);
    expect(a.duration).toBeCloseTo(60 / 30, 12);
    expect(a.rate.guessHz).toBe(30);
    expect(a.perJoint[1].jumps).toBe(1);
    expect(a.perJoint[1].worst[0]).toMatchObject({ frame: 40, kind: 'jump' });
    expect(a.perJoint[1].worst[0].angle).toBeGreaterThan(Math.PI / 2 - 0.2);
    expect(a.discontinuities.jumps).toBe(1);
    // The jump is the peak of all steps; without jumps the peak is the 3 rad/s spin.
    expect(a.perJoint[1].peakFrame).toBe(40);
    expect(a.perJoint[1].motionPeakSpeed).toBeCloseTo(omega, 6); // 0.0333333 read as 30 Hz
    expect(a.perJoint[1].signFlips).toBe(1);
    expect(a.perJoint[1].worst.map((w) => w.kind)).toEqual(['jump', 'sign-flip']);
  });

  it('analyzeClip finds the energy frequency of a 2 Hz sway and a safe rate of twice that', () => {
    const rows = Array.from({ length: 240 }, (_, f) => [
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      20 * Math.sin((2 * Math.PI * 2 * f) / 60),
      0,
    ]);
    const a = analyzeClip(parseBvh(bvh('0.016667', rows)));
    expect(a.spectrum).not.toBeNull();
    expect(a.spectrum!.energyFrequency).toBeGreaterThanOrEqual(2);
    expect(a.spectrum!.energyFrequency).toBeLessThanOrEqual(2.75);
    expect(a.spectrum!.safeRate).toBe(2 * a.spectrum!.energyFrequency);
  });

  it('analyzeClip of a 1-frame clip has no spectrum and no discontinuities; share outside (0, 1) throws', () => {
    const clip = parseBvh(bvh('0.0333333', [spin[0]]));
    const a = analyzeClip(clip);
    expect(a.spectrum).toBeNull();
    expect(a.discontinuities).toMatchObject({ signFlips: 0, jumps: 0 });
    expect(() => analyzeClip(clip, { share: 1 })).toThrow(OptionError);
  });
});
