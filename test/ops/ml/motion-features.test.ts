import { describe, expect, test } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { motionFeatures } from '../../../src/ops/ml/motion-features.js';
import { rootMotion } from '../../../src/ops/ml/root-motion.js';
import { axisAngle } from '../../support/average-random.js';
import { makeClip } from '../../support/clips.js';

/** Hips turning at 0.5 rad/s while moving in a circle, with a knee swinging and a foot below it. */
function walk(rate: number) {
  const frames = Math.round(4 * rate) + 1;
  const rotations = new Float64Array(frames * 3 * 4);
  const translations = new Float64Array(frames * 3 * 3);
  for (let f = 0; f < frames; f++) {
    const t = f / rate;
    rotations.set(axisAngle([0, 1, 0], 0.5 * t), f * 12);
    rotations.set(axisAngle([1, 0, 0], 0.4 * Math.sin(2 * Math.PI * t)), f * 12 + 4);
    rotations.set([0, 0, 0, 1], f * 12 + 8);
    translations.set([2 * Math.sin(0.5 * t), 0.9, 2 * Math.cos(0.5 * t)], f * 9);
    translations.set([0.1, -0.45, 0], f * 9 + 3);
    translations.set([0, -0.45, 0], f * 9 + 6);
  }
  return makeClip({
    names: ['Hips', 'LeftKnee', 'LeftFoot'],
    parents: [-1, 0, 1],
    rotations,
    translations,
    rate,
  });
}

describe('motionFeatures(clip, options)', () => {
  test('motionFeatures lays out root, positions, 6D rotations, velocities and contacts, naming every column', () => {
    const f = motionFeatures(walk(30));
    const J = 3;
    expect(f.columns.length).toBe(5 + J * 3 + J * 6 + J * 3 + 1);
    expect(f.data.length).toBe(f.frames * f.columns.length);
    expect(f.columns[0]).toEqual({ index: 0, name: 'root.angular_velocity', joint: 'Hips', unit: 'rad/s' });
    expect(f.columns.at(-1)).toEqual({
      index: f.columns.length - 1,
      name: 'contact',
      joint: 'LeftFoot',
      unit: 'bool',
    });
    const m = rootMotion(walk(30));
    for (let i = 0; i < f.frames; i++) {
      expect(f.data[i * f.columns.length]).toBe(m.angularVelocity[i]);
      expect(f.data[i * f.columns.length + 3]).toBe(m.velocity[i * 3 + 2]);
    }
  });

  test('motionFeatures at 30 and 120 Hz agree at shared instants (per-second units), to the differencing error', () => {
    const a = motionFeatures(walk(30));
    const b = motionFeatures(walk(120));
    const C = a.columns.length;
    let worst = 0;
    for (let i = 5; i < a.frames - 5; i++)
      for (let c = 0; c < C - 1; c++)
        worst = Math.max(worst, Math.abs(a.data[i * C + c] - b.data[4 * i * C + c]));
    // central differences at 30 Hz of a 1 Hz swing: error ≈ v·(ωdt)²/6 ≈ 0.01 units/s
    expect(worst).toBeLessThan(0.02);
    expect(worst).toBeGreaterThan(0);
  });

  test('motionFeatures rejects unknown options and a bad feet value', () => {
    expect(() => motionFeatures(walk(30), { foot: 'auto' } as never)).toThrow(OptionError);
    expect(() => motionFeatures(walk(30), { feet: 'LeftFoot' as never })).toThrow(OptionError);
    expect(motionFeatures(walk(30), { feet: 'none' }).columns.at(-1)?.name).toBe('velocity.z');
  });
});

describe("motionFeatures(clip, { sixd: 'rows' })", () => {
  test("names and fills the rotation columns with the matrix rows (PyTorch3D's 6D)", () => {
    const rate = 30;
    const rows = motionFeatures(walk(rate), { sixd: 'rows' });
    const names = rows.columns.filter((c) => c.joint === 'LeftKnee' && c.name.startsWith('rotation6d'));
    expect(names.map((c) => c.name.slice(11))).toEqual(['m00', 'm01', 'm02', 'm10', 'm11', 'm12']);
    const C = rows.columns.length;
    for (const f of [0, 7, 50]) {
      // the knee turns by a = 0.4 sin(2πt) about x: R = [[1, 0, 0], [0, cos a, −sin a], [0, sin a, cos a]]
      const a = 0.4 * Math.sin((2 * Math.PI * f) / rate);
      const row = Array.from(names, (c) => rows.data[f * C + c.index]);
      const expected = [1, 0, 0, 0, Math.cos(a), -Math.sin(a)];
      for (let k = 0; k < 6; k++) expect(row[k]).toBeCloseTo(expected[k], 14);
    }
  });
});

/** `walk(rate)` stepping in place (hips held at x = z = 0) with every length times `scale` (other units). */
function scaledWalk(rate: number, scale: number) {
  const c = walk(rate);
  const t = c.translations.data;
  for (let f = 0; f < c.frames; f++) {
    t[f * 9] = 0;
    t[f * 9 + 2] = 0;
  }
  for (let i = 0; i < t.length; i++) t[i] *= scale;
  const r = c.skeleton.restTranslations as Float64Array;
  for (let i = 0; i < r.length; i++) r[i] *= scale;
  return c;
}

describe('motionFeatures(clip) defaults come from the clip', () => {
  test('a skeleton in centimetres gets the same contacts as in metres (thresholds are physical)', () => {
    // the walk's 0.9 m rest pose: metres; ×100 it spans 90 units: centimetres
    const m = motionFeatures(scaledWalk(30, 1.3));
    const cm = motionFeatures(scaledWalk(30, 130));
    expect(m.unitsPerMeter).toBe(1);
    expect(cm.unitsPerMeter).toBe(100);
    const contact = (f: typeof m) => {
      const c = f.columns.findIndex((x) => x.name === 'contact');
      return Array.from({ length: f.frames }, (_, i) => f.data[i * f.columns.length + c]);
    };
    expect(contact(m).some((x) => x === 1)).toBe(true);
    expect(contact(cm)).toEqual(contact(m));
  });

  test("root 'auto' is the joint whose translation travels furthest, not a static first root", () => {
    // a static placeholder above the walk's hips: the hips turn at 0.5 rad/s for 4 s, so 2 rad in all
    const w = walk(30);
    const F = w.frames;
    const rotations = new Float64Array(F * 4 * 4);
    const translations = new Float64Array(F * 4 * 3);
    for (let f = 0; f < F; f++) {
      rotations.set([0, 0, 0, 1], f * 16);
      rotations.set(w.rotations.data.subarray(f * 12, f * 12 + 12), f * 16 + 4);
      translations.set(w.translations.data.subarray(f * 9, f * 9 + 9), f * 12 + 3);
    }
    const clip = makeClip({
      names: ['Root', 'Hips', 'LeftKnee', 'LeftFoot'],
      parents: [-1, 0, 1, 2],
      rotations,
      translations,
      rate: 30,
    });
    const f = motionFeatures(clip);
    expect(clip.skeleton.names[f.root]).toBe('Hips');
    expect(f.heading[F - 1] - f.heading[0]).toBeCloseTo(2, 9);
  });
});
