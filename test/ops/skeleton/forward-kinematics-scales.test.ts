import fc from 'fast-check';
import { Object3D, Vector3 } from 'three';
import { describe, expect, test } from 'vitest';
import { forwardKinematics, forwardKinematicsFrame } from '../../../src/ops/skeleton/forward-kinematics.js';
import type { Clip } from '../../../src/series/clip.js';
import { ANIMATED_ROTATION, ANIMATED_SCALE } from '../../../src/series/clip.js';
import { makeClip, makeSkeleton } from '../../../src/series/clip-create.js';
import { TOL } from '../../support/tolerances.js';

const S = Math.SQRT1_2;

/** Two joints: a root scaled (2, 1, 1) and turned 90 deg about z, a child 1 along x. */
function twoJoints(scales?: number[]): Clip {
  const skeleton = makeSkeleton({
    names: ['root', 'child', 'tip'],
    parents: [-1, 0, 1],
    restTranslations: [1, 2, 3, 1, 0, 0, 0, 1, 0],
    restScales: [2, 1, 1, 1, 3, 1, 1, 1, 1],
  });
  return makeClip({
    skeleton,
    frameTime: 1 / 30,
    rotations: { data: new Float64Array([0, 0, S, S, 0, 0, 0, 1, 0, 0, 0, 1]), frames: 1, joints: 3 },
    ...(scales ? { scales: { data: new Float64Array(scales), frames: 1, joints: 3 } } : {}),
    animated: new Uint8Array([ANIMATED_ROTATION | (scales ? ANIMATED_SCALE : 0), ANIMATED_ROTATION, 0]),
  });
}

describe('forwardKinematics(clip) with scales', () => {
  test('forwardKinematics(clip) composes T · R · S like glTF nodes (hand computation)', () => {
    // root: x0 = (1,2,3), A0 = Rz(90) · diag(2,1,1); child: x1 = x0 + A0 · (1,0,0) = (1,2,3) + Rz(90)·(2,0,0) = (1,4,3)
    // A1 = A0 · diag(1,3,1); tip: x2 = x1 + A1 · (0,1,0) = (1,4,3) + Rz(90)·(0,3,0) = (-2,4,3)
    const { positions } = forwardKinematics(twoJoints());
    const expected = [1, 2, 3, 1, 4, 3, -2, 4, 3];
    for (let i = 0; i < 9; i++) expect(positions.data[i]).toBeCloseTo(expected[i], 12);
  });

  test('forwardKinematics(clip) takes the scales series over the rest scales when present', () => {
    // scales (1,1,1), (1,1,1), (1,1,1): the plain rotation chain. x1 = (1,2,3) + (0,1,0), x2 = x1 + (-1,0,0)
    const { positions } = forwardKinematics(twoJoints([1, 1, 1, 1, 1, 1, 1, 1, 1]));
    // rest scales still say (2,1,1) and (1,3,1), but the series wins: unit everywhere
    const expected = [1, 2, 3, 1, 3, 3, 0, 3, 3];
    for (let i = 0; i < 9; i++) expect(positions.data[i]).toBeCloseTo(expected[i], 12);
  });

  test('forwardKinematicsFrame(clip, f, ...) agrees with forwardKinematics(clip) on a scaled clip', () => {
    const clip = twoJoints();
    const rot = new Float64Array(12);
    const pos = new Float64Array(9);
    forwardKinematicsFrame(clip, 0, rot, pos);
    const all = forwardKinematics(clip);
    for (let i = 0; i < 9; i++) expect(pos[i]).toBe(all.positions.data[i]);
  });

  test('a clip whose frames mix unit and other scales: each frame of forwardKinematicsFrame is forwardKinematics, bit for bit', () => {
    const skeleton = makeSkeleton({
      names: ['root', 'child', 'tip'],
      parents: [-1, 0, 1],
      restTranslations: [1, 2, 3, 1, 0, 0, 0, 1, 0],
    });
    const one = [0, 0, S, S, 0, 0, 0.6, 0.8, 0, 0, 0, 1];
    const unit = [1, 1, 1, 1, 1, 1, 1, 1, 1];
    const clip = makeClip({
      skeleton,
      frameTime: 1 / 30,
      rotations: { data: new Float64Array([...one, ...one, ...one]), frames: 3, joints: 3 },
      scales: { data: new Float64Array([...unit, 2, 1, 1, 1, 3, 1, 1, 1, 1, ...unit]), frames: 3, joints: 3 },
      animated: new Uint8Array([ANIMATED_ROTATION | ANIMATED_SCALE, ANIMATED_ROTATION | ANIMATED_SCALE, 0]),
    });
    const all = forwardKinematics(clip);
    const rot = new Float64Array(12);
    const pos = new Float64Array(9);
    for (let f = 0; f < 3; f++) {
      forwardKinematicsFrame(clip, f, rot, pos);
      for (let i = 0; i < 9; i++) expect(pos[i]).toBe(all.positions.data[f * 9 + i]);
      for (let i = 0; i < 12; i++) expect(rot[i]).toBe(all.rotations.data[f * 12 + i]);
    }
    // the child at x0 + A0 · (1, 0, 0), A0 = Rz(90°) · diag(scale): (1, 3, 3) at unit scale, (1, 4, 3) with
    // the root scaled (2, 1, 1) in frame 1
    const child = (f: number) => Array.from(all.positions.data.subarray(f * 9 + 3, f * 9 + 6));
    for (const [f, want] of [
      [0, [1, 3, 3]],
      [1, [1, 4, 3]],
      [2, [1, 3, 3]],
    ] as const)
      for (let c = 0; c < 3; c++) expect(child(f)[c]).toBeCloseTo(want[c], 12);
  });

  test('forwardKinematics(clip) matches three.js Object3D.updateMatrixWorld on random scaled chains', () => {
    const unit = fc.float({ min: -1, max: 1, noNaN: true });
    const quat = fc.tuple(unit, unit, unit, unit).filter((q) => Math.hypot(...q) > 0.1);
    const scale = fc.float({ min: Math.fround(0.2), max: 3, noNaN: true });
    const joint = fc.record({
      t: fc.tuple(unit, unit, unit),
      q: quat,
      s: fc.tuple(scale, scale, scale),
      parent: fc.nat(),
    });
    fc.assert(
      fc.property(fc.array(joint, { minLength: 1, maxLength: 8 }), (joints) => {
        const J = joints.length;
        const parents = joints.map((j, i) => (i === 0 ? -1 : (j.parent % (i + 1)) - 1));
        const rot = new Float64Array(J * 4);
        const tra: number[] = [];
        const sca = new Float64Array(J * 3);
        joints.forEach((j, i) => {
          const n = Math.hypot(...j.q);
          rot.set(
            j.q.map((c) => c / n),
            i * 4,
          );
          tra.push(...j.t);
          sca.set(j.s, i * 3);
        });
        const skeleton = makeSkeleton({
          names: joints.map((_, i) => `j${i}`),
          parents,
          restTranslations: tra,
        });
        const clip = makeClip({
          skeleton,
          frameTime: 1,
          rotations: { data: rot, frames: 1, joints: J },
          scales: { data: sca, frames: 1, joints: J },
        });
        const { positions } = forwardKinematics(clip);
        const objects = joints.map((_, i) => {
          const o = new Object3D();
          o.position.set(tra[i * 3], tra[i * 3 + 1], tra[i * 3 + 2]);
          o.quaternion.set(rot[i * 4], rot[i * 4 + 1], rot[i * 4 + 2], rot[i * 4 + 3]);
          o.scale.set(sca[i * 3], sca[i * 3 + 1], sca[i * 3 + 2]);
          return o;
        });
        objects.forEach((o, i) => {
          if (parents[i] >= 0) objects[parents[i]].add(o);
        });
        objects[0].updateMatrixWorld(true);
        for (let i = 0; i < J; i++) {
          if (parents[i] < 0 && i > 0) objects[i].updateMatrixWorld(true);
          const w = objects[i].getWorldPosition(new Vector3());
          const scaleOfTree = 1 + Math.abs(w.x) + Math.abs(w.y) + Math.abs(w.z);
          expect(Math.abs(positions.data[i * 3] - w.x)).toBeLessThan(TOL.f32 * scaleOfTree);
          expect(Math.abs(positions.data[i * 3 + 1] - w.y)).toBeLessThan(TOL.f32 * scaleOfTree);
          expect(Math.abs(positions.data[i * 3 + 2] - w.z)).toBeLessThan(TOL.f32 * scaleOfTree);
        }
      }),
      { numRuns: 200 },
    );
  });
});
