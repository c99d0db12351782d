import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import * as kernels from '../../../src/ops/kernel/kernels.js';
import { forwardKinematics } from '../../../src/ops/skeleton/forward-kinematics.js';
import { angularVelocity } from '../../../src/ops/velocity/angular-velocity.js';
import { clipVelocities } from '../../../src/ops/velocity/clip-velocities.js';
import { linearVelocity } from '../../../src/ops/velocity/linear-velocity.js';
import * as quat from '../../../src/quat/index.js';
import type { Clip } from '../../../src/series/clip.js';
import { ANIMATED_ROTATION } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';
import { createQuatSeries, createVec3Series } from '../../../src/series/create.js';
import { HAS_SHARED_BVH, readSharedBvh } from '../../support/shared-data.js';

/** A two-joint chain: the root spins about z at ω, the child sits 2 units along x. */
function spinningArm(frames: number, dt: number, omega: number): Clip {
  const rotations = createQuatSeries(frames, 2);
  const translations = createVec3Series(frames, 2);
  for (let f = 0; f < frames; f++) {
    quat.fromAxisAngle(rotations.data.subarray(f * 8, f * 8 + 4), [0, 0, 1], omega * f * dt);
    translations.data.set([0, 0, 0, 2, 0, 0], f * 6);
  }
  return {
    skeleton: makeSkeleton({
      names: ['root', 'hand'],
      parents: Int32Array.from([-1, 0]),
      restTranslations: Float64Array.from([0, 0, 0, 2, 0, 0]),
    }),
    frameTime: dt,
    rate: 1 / dt,
    frames,
    rotations,
    translations,
    orders: ['ZYX', 'ZYX'],
    animated: new Uint8Array(2).fill(ANIMATED_ROTATION),
  };
}

describe('clipVelocities(clip, options)', () => {
  it('clipVelocities of a spinning arm: global ω on both joints, hand speed ω·r, local child at rest', () => {
    const dt = 1 / 50;
    const omega = 3;
    // tent at the mid-points: the plain differences (a wider kernel would average chords of different directions)
    const v = clipVelocities(spinningArm(30, dt, omega), { at: 'midpoints' });
    for (let m = 0; m < 29; m++) {
      for (let j = 0; j < 2; j++) {
        expect(v.globalAngular!.data[(m * 2 + j) * 3 + 2]).toBeCloseTo(omega, 10);
      }
      expect(v.localAngular!.data[(m * 2 + 1) * 3 + 2]).toBeCloseTo(0, 12);
      const hv = v.globalLinear!.data.subarray((m * 2 + 1) * 3, (m * 2 + 1) * 3 + 3);
      // the chord of a circle: mid-point differences give 2·r·sin(ω·dt/2)/dt, not exactly ω·r
      expect(Math.hypot(hv[0], hv[1])).toBeCloseTo((2 * 2 * Math.sin((omega * dt) / 2)) / dt, 10);
      expect(Math.hypot(...v.localLinear!.data.subarray(m * 6 + 3, m * 6 + 6))).toBe(0);
    }
  });

  it("clipVelocities(..., { spaces: 'local' }) skips forward kinematics; bad spaces throw OptionError", () => {
    const clip = spinningArm(5, 0.1, 1);
    const v = clipVelocities(clip, { spaces: 'local' });
    expect(v.globalAngular).toBeUndefined();
    expect(v.localAngular!.frames).toBe(5);
    expect(() => clipVelocities(clip, { spaces: 'world' as never })).toThrow(OptionError);
  });
});

describe.skipIf(!HAS_SHARED_BVH)('clipVelocities on a shared BVH file', () => {
  it('clipVelocities(cmu 01_01) equals angular/linearVelocity of the clip and of forwardKinematics', () => {
    const clip = parseBvh(readSharedBvh('cmu/01_01.bvh'));
    const k = kernels.gaussian(2);
    const v = clipVelocities(clip, { kernel: k });
    const fk = forwardKinematics(clip);
    const ga = angularVelocity(fk.rotations, clip.frameTime, { kernel: k });
    const gl = linearVelocity(fk.positions, clip.frameTime, { kernel: k });
    const la = angularVelocity(clip.rotations, clip.frameTime, { kernel: k });
    expect(Array.from(v.globalAngular!.data)).toEqual(Array.from(ga.data));
    expect(Array.from(v.globalLinear!.data)).toEqual(Array.from(gl.data));
    expect(Array.from(v.localAngular!.data)).toEqual(Array.from(la.data));
    // a sanity range: no joint of a person jumping spins faster than 50 rad/s once smoothed (frame 0 is a T-pose)
    let peak = 0;
    const J = clip.rotations.joints;
    for (let f = 10; f < clip.frames; f++) {
      for (let j = 0; j < J; j++)
        peak = Math.max(
          peak,
          Math.hypot(...v.globalAngular!.data.subarray((f * J + j) * 3, (f * J + j) * 3 + 3)),
        );
    }
    expect(peak).toBeLessThan(50);
    expect(peak).toBeGreaterThan(1);
  });
});
