import { describe, expect, test } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { footContacts } from '../../../src/ops/ml/foot-contacts.js';
import { makeClip } from '../../support/clips.js';

/**
 * A foot stepping at 1 Hz, in metres, y-up: planted for 0.6 s, then a 0.4 s swing 0.8 m forward with a
 * 0.15 m arc (smooth in time). Stance k lasts from t = k to k + 0.6.
 */
function footAt(t: number): [number, number, number] {
  const k = Math.floor(t);
  const s = t - k;
  if (s < 0.6) return [0.8 * k, 0.08, 0];
  const u = (s - 0.6) / 0.4;
  const ease = u * u * (3 - 2 * u);
  return [0.8 * (k + ease), 0.08 + 0.15 * Math.sin(Math.PI * u) ** 2, 0];
}

function stepping(rate: number, seconds = 4) {
  const frames = Math.round(seconds * rate);
  const rotations = new Float64Array(frames * 2 * 4);
  const translations = new Float64Array(frames * 2 * 3);
  for (let f = 0; f < frames; f++) {
    rotations.set([0, 0, 0, 1, 0, 0, 0, 1], f * 8);
    const [x, y, z] = footAt(f / rate);
    translations.set([x * 0.5, 0.9, 0, x - x * 0.5, y - 0.9, z], f * 6);
  }
  return makeClip({ names: ['Hips', 'LeftFoot'], parents: [-1, 0], rotations, translations, rate });
}

describe('footContacts(clip, options)', () => {
  test('footContacts finds one contact per stance, starting and ending within a frame of the truth', () => {
    const c = footContacts(stepping(60));
    expect(c.names).toEqual(['LeftFoot']);
    expect(c.intervals.length).toBe(4);
    c.intervals.forEach((iv, k) => {
      expect(Math.abs(iv.startTime - (k === 0 ? 0 : k))).toBeLessThanOrEqual(1 / 60 + 1e-12);
      // the foot leaves at k + 0.6 and rises slowly at first: the speed threshold ends the contact soon after
      expect(iv.endTime).toBeGreaterThanOrEqual(k + 0.6 - 1e-9);
      expect(iv.endTime).toBeLessThan(k + 0.75);
    });
  });

  test('footContacts gives the same intervals at 30, 60 and 120 Hz, within one frame of each rate', () => {
    const ref = footContacts(stepping(120)).intervals;
    for (const rate of [30, 60]) {
      const got = footContacts(stepping(rate)).intervals;
      expect(got.length).toBe(ref.length);
      got.forEach((iv, i) => {
        expect(Math.abs(iv.startTime - ref[i].startTime)).toBeLessThanOrEqual(1 / rate + 1e-12);
        expect(Math.abs(iv.endTime - ref[i].endTime)).toBeLessThanOrEqual(1 / rate + 1e-12);
      });
    }
  });

  test('footContacts speeds are in units per second: a planted foot reads 0, a swing its true peak speed', () => {
    for (const rate of [30, 120]) {
      const c = footContacts(stepping(rate));
      expect(c.speed[Math.round(0.3 * rate)]).toBe(0);
      // the swing's peak speed is 0.8 m × 1.5 / 0.4 s = 3 m/s at its middle
      expect(c.speed[Math.round(0.8 * rate)]).toBeCloseTo(3, 1);
    }
  });

  test('footContacts hysteresis: a foot hovering around the thresholds does not flicker', () => {
    const rate = 100;
    const frames = 200;
    const rotations = new Float64Array(frames * 4);
    const translations = new Float64Array(frames * 3);
    for (let f = 0; f < frames; f++) {
      rotations[f * 4 + 3] = 1;
      // slides at 0.4 m/s with a ±0.15 m/s ripple at 10 Hz: speed between 0.25 and 0.55 m/s
      translations[f * 3] =
        (0.4 * f) / rate + (0.15 / (2 * Math.PI * 10)) * Math.sin((2 * Math.PI * 10 * f) / rate);
    }
    const clip = makeClip({ names: ['foot'], parents: [-1], rotations, translations, rate });
    // the first dip under 0.3 m/s starts a contact; it never exceeds the release speed 0.6, so it holds
    const held = footContacts(clip).intervals;
    expect(held.length).toBe(1);
    expect(held[0].end).toBe(frames - 1);
    // without hysteresis (release at the start threshold) the same foot flickers at the ripple rate
    expect(footContacts(clip, { releaseSpeed: 0.3 }).intervals.length).toBeGreaterThanOrEqual(15);
  });

  test('footContacts rejects unknown options, release thresholds below start thresholds and no foot joints', () => {
    const clip = stepping(30, 1);
    expect(() => footContacts(clip, { velocity: 1 } as never)).toThrow(OptionError);
    expect(() => footContacts(clip, { speed: 1, releaseSpeed: 0.5 })).toThrow(/releaseSpeed/);
    expect(() => footContacts(clip, { height: Number.NaN })).toThrow(OptionError);
    expect(() => footContacts(clip, { joints: ['RightFoot'] })).toThrow(/no joint named 'RightFoot'/);
    const noFeet = makeClip({
      names: ['a'],
      parents: [-1],
      rotations: Float64Array.of(0, 0, 0, 1),
      translations: new Float64Array(3),
      rate: 30,
    });
    expect(() => footContacts(noFeet)).toThrow(/pass the foot joints/);
  });
});
