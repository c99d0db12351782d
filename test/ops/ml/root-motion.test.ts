import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InvalidValueError, OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { footContacts } from '../../../src/ops/ml/foot-contacts.js';
import { rootMotion } from '../../../src/ops/ml/root-motion.js';
import { axisAngle, mul } from '../../support/average-random.js';
import { makeClip } from '../../support/clips.js';
import { HAS_SHARED_BVH, readFixture, readSharedBvh } from '../../support/shared-data.js';

const DEG = Math.PI / 180;

/**
 * A body walking once counter-clockwise (seen from +y) around a circle of `radius`, facing along its path,
 * with pitch and roll sway and a yaw wobble at the step rate, in a y-up world; `world` turns and shifts it.
 */
function circleWalk(rate: number, seconds: number, radius: number, world = { yaw: 0, dx: 0, dz: 0 }) {
  const frames = Math.round(seconds * rate) + 1;
  const names = ['Hips', 'Head', 'LeftFoot'];
  const rotations = new Float64Array(frames * 3 * 4);
  const translations = new Float64Array(frames * 3 * 3);
  const W = axisAngle([0, 1, 0], world.yaw);
  for (let f = 0; f < frames; f++) {
    const t = f / rate;
    const theta = (2 * Math.PI * t) / seconds;
    // yaw wobble at 2 steps per second, zero at both ends (a whole number of cycles)
    const yaw = theta + 8 * DEG * Math.sin(2 * Math.PI * 2 * t);
    let q = mul(axisAngle([0, 1, 0], yaw), axisAngle([1, 0, 0], 6 * DEG * Math.sin(2 * Math.PI * 2 * t)));
    q = mul(q, axisAngle([0, 0, 1], 4 * DEG * Math.cos(2 * Math.PI * 2 * t)));
    q = mul(W, q);
    rotations.set(q, f * 12);
    rotations.set([0, 0, 0, 1], f * 12 + 4);
    rotations.set(axisAngle([1, 0, 0], 20 * DEG * Math.sin(2 * Math.PI * t)), f * 12 + 8);
    const px = -radius * Math.cos(theta);
    const pz = radius * Math.sin(theta);
    const c = Math.cos(world.yaw);
    const s = Math.sin(world.yaw);
    translations.set(
      [c * px + s * pz + world.dx, 1 + 0.02 * Math.sin(4 * Math.PI * t), -s * px + c * pz + world.dz],
      f * 9,
    );
    translations.set([0, 0.6, 0.05], f * 9 + 3);
    translations.set([0.1, -0.9, 0], f * 9 + 6);
  }
  return makeClip({ names, parents: [-1, 0, 0], rotations, translations, rate });
}

/** The same clip in a z-up world: every world quantity turned by +90° about x (y → z). */
function toZUp(clip: ReturnType<typeof circleWalk>) {
  const Q = axisAngle([1, 0, 0], Math.PI / 2);
  const rot = clip.rotations.data.slice();
  const tr = clip.translations.data.slice();
  const J = clip.skeleton.names.length;
  for (let f = 0; f < clip.frames; f++) {
    rot.set(mul(Q, rot.subarray(f * J * 4, f * J * 4 + 4)), f * J * 4);
    const [x, y, z] = tr.subarray(f * J * 3, f * J * 3 + 3);
    tr.set([x, -z, y], f * J * 3);
  }
  return makeClip({
    names: clip.skeleton.names,
    parents: Array.from(clip.skeleton.parents),
    rotations: rot as Float64Array,
    translations: tr as Float64Array,
    rate: clip.rate,
  });
}

describe('rootMotion(clip, { up })', () => {
  test('rootMotion(circle walk).heading turns +360° over one circle, exact to 0.5°, at 30, 60 and 120 Hz', () => {
    for (const rate of [30, 60, 120]) {
      const m = rootMotion(circleWalk(rate, 8, 2));
      const turn = (m.heading[m.frames - 1] - m.heading[0]) / DEG;
      expect(Math.abs(turn - 360)).toBeLessThan(0.5);
      expect(m.heading[0]).toBeCloseTo(0, 12);
    }
  });

  test('rootMotion(circle walk) gives speed R·ω forward, no sideways drift and ω about up, in per-second units', () => {
    const R = 2;
    const T = 8;
    const omega = (2 * Math.PI) / T;
    for (const rate of [30, 120]) {
      const m = rootMotion(circleWalk(rate, T, R));
      // mid-clip frames: central differences of a circle shrink by sin(ωdt)/(ωdt); the yaw wobble is in the heading
      const shrink = Math.sin(omega / rate) / (omega / rate);
      let maxForwardError = 0;
      for (let f = 1; f < m.frames - 1; f++) {
        const h = m.heading[f];
        // velocity in the heading frame: world tangent (sin θ, 0, cos θ)·Rω turned by −h
        const theta = (2 * Math.PI * f) / rate / T;
        const wobble = h - theta;
        maxForwardError = Math.max(
          maxForwardError,
          Math.abs(m.velocity[f * 3 + 2] - R * omega * shrink * Math.cos(wobble)),
        );
        expect(m.velocity[f * 3]).toBeCloseTo(-R * omega * shrink * Math.sin(wobble), 9);
      }
      expect(maxForwardError).toBeLessThan(1e-9);
    }
  });

  test('rootMotion(steady spin).angularVelocity is ω rad/s at every frame, whatever the rate', () => {
    for (const rate of [24, 59.94, 250]) {
      const omega = 1.7;
      const frames = Math.round(3 * rate);
      const rotations = new Float64Array(frames * 4);
      for (let f = 0; f < frames; f++) rotations.set(axisAngle([0, 1, 0], (omega * f) / rate), f * 4);
      const clip = makeClip({
        names: ['root'],
        parents: [-1],
        rotations,
        translations: new Float64Array(frames * 3),
        rate,
      });
      const m = rootMotion(clip);
      for (let f = 0; f < frames; f++) expect(m.angularVelocity[f]).toBeCloseTo(omega, 9);
    }
  });

  test('rootMotion on a z-up copy of a y-up body with up: z, bodyUp: y gives the same heading, trajectory and root-relative features', () => {
    const y = circleWalk(60, 8, 2);
    const my = rootMotion(y, { up: 'y' });
    const mz = rootMotion(toZUp(y), { up: 'z', bodyUp: 'y' });
    for (let f = 0; f < my.frames; f++) {
      expect(mz.heading[f]).toBeCloseTo(my.heading[f], 12);
      // y-up ground plane (x, z) is (x, −y) in the z-up world
      expect(mz.trajectory[f * 2]).toBeCloseTo(my.trajectory[f * 2], 12);
      expect(mz.trajectory[f * 2 + 1]).toBeCloseTo(-my.trajectory[f * 2 + 1], 12);
      expect(mz.height[f]).toBeCloseTo(my.height[f], 12);
      expect(mz.angularVelocity[f]).toBeCloseTo(my.angularVelocity[f], 9);
    }
  });

  test('rootMotion features do not change when the whole capture is turned about up and moved on the ground (property)', () => {
    const base = rootMotion(circleWalk(30, 4, 1.5));
    fc.assert(
      fc.property(
        fc.double({ min: -3 * Math.PI, max: 3 * Math.PI, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (yaw, dx, dz) => {
          const m = rootMotion(circleWalk(30, 4, 1.5, { yaw, dx, dz }));
          // the heading moves by the yaw, up to whole turns
          const shift = m.heading[0] - base.heading[0];
          const turns = (shift - yaw) / (2 * Math.PI);
          expect(Math.abs(turns - Math.round(turns))).toBeLessThan(1e-9);
          for (let f = 0; f < m.frames; f++) expect(m.heading[f] - base.heading[f]).toBeCloseTo(shift, 9);
          const same = (a: Float64Array, b: Float64Array) => {
            let worst = 0;
            for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
            return worst;
          };
          expect(same(m.positions, base.positions)).toBeLessThan(1e-9);
          expect(same(m.velocity, base.velocity)).toBeLessThan(1e-9);
          expect(same(m.angularVelocity, base.angularVelocity)).toBeLessThan(1e-9);
          // rotations are quaternions: compare up to sign, frame by frame
          for (let i = 0; i < m.rotations.length; i += 4) {
            let d = 0;
            for (let k = 0; k < 4; k++) d += m.rotations[i + k] * base.rotations[i + k];
            expect(Math.abs(d)).toBeGreaterThan(1 - 1e-12);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  test('rootMotion positions put the root above the origin at its own height, facing heading 0', () => {
    const m = rootMotion(circleWalk(30, 4, 1.5));
    for (let f = 0; f < m.frames; f++) {
      expect(m.positions[f * 9]).toBeCloseTo(0, 12);
      expect(m.positions[f * 9 + 1]).toBeCloseTo(m.height[f], 12);
      expect(m.positions[f * 9 + 2]).toBeCloseTo(0, 12);
      // the root rotation with heading removed has no twist left about up
      expect(m.rootRotation[f * 4 + 1]).toBeCloseTo(0, 12);
    }
  });

  test('rootMotion rejects unknown options, a bad up axis and an unknown root joint with OptionError', () => {
    const clip = circleWalk(30, 1, 1);
    expect(() => rootMotion(clip, { upAxis: 'y' } as never)).toThrow(OptionError);
    expect(() => rootMotion(clip, { up: 'x' as never })).toThrow(
      /option 'up' must be one of 'y', 'z', got "x"/,
    );
    expect(() => rootMotion(clip, { root: 'Pelvis' })).toThrow(/no joint named 'Pelvis'/);
    expect(() => rootMotion(clip, { root: 7 })).toThrow(OptionError);
  });

  test('rootMotion and footContacts throw InvalidValueError naming the frame and joint of a NaN, never return NaN', () => {
    const clip = circleWalk(30, 1, 1);
    clip.translations.data[(5 * 3 + 2) * 3 + 1] = Number.NaN;
    expect(() => rootMotion(clip)).toThrow(/clip.translations: non-finite value NaN at frame 5, joint 2/);
    expect(() => footContacts(clip)).toThrow(InvalidValueError);
  });

  test('rootMotion on 0 and 1 frames returns empty and zero-velocity features', () => {
    const one = makeClip({
      names: ['a'],
      parents: [-1],
      rotations: Float64Array.of(0, 0.6, 0, 0.8),
      translations: Float64Array.of(1, 2, 3),
      rate: 30,
    });
    const m = rootMotion(one);
    expect(m.frames).toBe(1);
    expect(Array.from(m.velocity)).toEqual([0, 0, 0]);
    const none = makeClip({
      names: ['a'],
      parents: [-1],
      rotations: new Float64Array(0),
      translations: new Float64Array(0),
      rate: 30,
    });
    expect(rootMotion(none).heading.length).toBe(0);
  });
});

interface HeadingFixture {
  files: { file: string; root: number; up: 'y'; frames: number; heading: number[] }[];
}

describe.skipIf(!HAS_SHARED_BVH)('rootMotion on the shared BVH files', () => {
  const { files } = readFixture<HeadingFixture>('bvh/heading.json');
  for (const ref of files) {
    test(`rootMotion(${ref.file}).heading equals SciPy's unwrapped twist about y to 1e-9`, () => {
      const clip = parseBvh(readSharedBvh(ref.file));
      const m = rootMotion(clip, { up: ref.up, root: ref.root });
      expect(m.frames).toBe(ref.frames);
      let worst = 0;
      for (let f = 0; f < m.frames; f++) worst = Math.max(worst, Math.abs(m.heading[f] - ref.heading[f]));
      expect(worst).toBeLessThan(1e-9);
    });
  }
});
