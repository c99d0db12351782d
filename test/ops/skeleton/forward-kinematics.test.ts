import { describe, expect, test } from 'vitest';
import { ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import { forwardKinematics, forwardKinematicsFrame } from '../../../src/ops/skeleton/forward-kinematics.js';
import type { Clip } from '../../../src/series/clip.js';
import { ANIMATED_ROTATION } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';
import { readQuirk } from '../../io/quirks.js';
import { hasRealBvh, readFixture, readSharedBvh } from '../../support/shared-data.js';

interface FkFixture {
  file: string;
  positionMode: 'replace' | 'add';
  joints: number;
  frames: number;
  names: string[];
  parents: number[];
  samples: { frame: number; rotations: number[]; positions: number[] }[];
}

const FIXTURES = [
  'fk_01_01.json',
  'fk_005_11.json',
  'fk_005_11_add.json',
  'fk_dataset-1_dance-short_normal_001.json',
  'fk_dataset-2_walk-turn-left_normal_001.json',
  'fk_test.json',
  'fk_Boxing_Toes.json',
  'fk_AV_8Walk_Meredith_HVHA_Rep1.json',
  'fk_Geno_bind.json',
];

/** Largest rotation difference as a chord |q - ±p| (sign-invariant), per quaternion. */
function quatGap(a: ArrayLike<number>, aOff: number, b: ArrayLike<number>, bOff: number): number {
  let dm = 0;
  let dp = 0;
  for (let k = 0; k < 4; k++) {
    dm += (a[aOff + k] - b[bOff + k]) ** 2;
    dp += (a[aOff + k] + b[bOff + k]) ** 2;
  }
  return Math.sqrt(Math.min(dm, dp));
}

describe('forwardKinematics(clip) against SciPy on the shared files', () => {
  for (const name of FIXTURES) {
    const fx = readFixture<FkFixture>(`bvh/${name}`);
    // the files the repository carries run from a clone alone; the rest need ../shared
    test.skipIf(!hasRealBvh(fx.file))(
      `forwardKinematics(parseBvh(file)) matches scipy Rotation within 1e-9 (${name})`,
      () => {
        const clip = parseBvh(readSharedBvh(fx.file), { positionMode: fx.positionMode });
        expect(clip.skeleton.names).toEqual(fx.names);
        expect(Array.from(clip.skeleton.parents)).toEqual(fx.parents);
        expect(clip.frames).toBe(fx.frames);
        const { rotations, positions } = forwardKinematics(clip);
        const J = fx.joints;
        let worstPos = 0;
        let worstRot = 0;
        for (const s of fx.samples) {
          for (let i = 0; i < J * 3; i++) {
            worstPos = Math.max(worstPos, Math.abs(positions.data[s.frame * J * 3 + i] - s.positions[i]));
          }
          for (let j = 0; j < J; j++) {
            worstRot = Math.max(worstRot, quatGap(rotations.data, (s.frame * J + j) * 4, s.rotations, j * 4));
          }
        }
        expect(worstPos).toBeLessThan(1e-9);
        expect(worstRot).toBeLessThan(1e-12);
      },
    );
  }

  test('forwardKinematics(clip) with every joint read in a wrong order misses SciPy (the fixture pins the order)', () => {
    const fx = readFixture<FkFixture>('bvh/fk_AV_8Walk_Meredith_HVHA_Rep1.json');
    const text = readSharedBvh(fx.file).replace(
      /Xrotation Yrotation Zrotation/g,
      'Zrotation Yrotation Xrotation',
    );
    const clip = parseBvh(text);
    const { positions } = forwardKinematics(clip);
    const s = fx.samples[1];
    let worst = 0;
    for (let i = 0; i < fx.joints * 3; i++) {
      worst = Math.max(worst, Math.abs(positions.data[s.frame * fx.joints * 3 + i] - s.positions[i]));
    }
    expect(worst).toBeGreaterThan(1);
  });
});

describe('forwardKinematics(clip) against SciPy on the hand-written quirk files', () => {
  for (const [name, file] of [
    ['fk_quirk_orders.json', 'orders.bvh'],
    ['fk_quirk_channels.json', 'channels.bvh'],
    ['fk_quirk_channels_add.json', 'channels.bvh'],
    ['fk_quirk_multi-root.json', 'multi-root.bvh'],
  ]) {
    test(`forwardKinematics(parseBvh(${file})) matches scipy within 1e-12 (${name}: all six orders, 0-6 channels, two roots)`, () => {
      const fx = readFixture<FkFixture>(`bvh/${name}`);
      const clip = parseBvh(readQuirk(file), { positionMode: fx.positionMode });
      const { rotations, positions } = forwardKinematics(clip);
      const J = fx.joints;
      for (const s of fx.samples) {
        for (let i = 0; i < J * 3; i++) {
          expect(Math.abs(positions.data[s.frame * J * 3 + i] - s.positions[i])).toBeLessThan(1e-12);
        }
        for (let j = 0; j < J; j++) {
          expect(quatGap(rotations.data, (s.frame * J + j) * 4, s.rotations, j * 4)).toBeLessThan(1e-14);
        }
      }
    });
  }
});

function tinyClip(): Clip {
  // root at (1, 0, 0) turned 90° about z; child offset (0, 2, 0) turned 90° about x; grandchild (0, 0, 3)
  const s = Math.SQRT1_2;
  return {
    skeleton: makeSkeleton({
      names: ['root', 'child', 'tip'],
      parents: Int32Array.from([-1, 0, 1]),
      restTranslations: Float64Array.from([1, 0, 0, 0, 2, 0, 0, 0, 3]),
    }),
    frameTime: 0.1,
    rate: 10,
    frames: 1,
    rotations: { data: Float64Array.from([0, 0, s, s, s, 0, 0, s, 0, 0, 0, 1]), frames: 1, joints: 3 },
    translations: { data: Float64Array.from([1, 0, 0, 0, 2, 0, 0, 0, 3]), frames: 1, joints: 3 },
    orders: ['ZYX', 'ZYX', 'ZYX'],
    animated: new Uint8Array(3).fill(ANIMATED_ROTATION),
  };
}

describe('forwardKinematics(clip) on a hand-computed chain', () => {
  test('forwardKinematics(clip) composes R_parent ⊗ r_child and x_parent + R_parent·t', () => {
    const { positions, rotations } = forwardKinematics(tinyClip());
    // child: (1,0,0) + Rz90·(0,2,0) = (-1, 0, 0); tip: child + Rz90·Rx90·(0,0,3) = (-1,0,0) + Rz90·(0,-3,0) = (2, 0, 0)
    const expected = [1, 0, 0, -1, 0, 0, 2, 0, 0];
    for (let i = 0; i < 9; i++) expect(positions.data[i]).toBeCloseTo(expected[i], 14);
    // global rotation of the child = Rz90 ⊗ Rx90 = (0.5, 0.5, 0.5, 0.5)
    for (let k = 0; k < 4; k++) expect(rotations.data[4 + k]).toBeCloseTo(0.5, 14);
  });

  test('forwardKinematicsFrame(clip, f, rot, pos) equals forwardKinematics frame f, Float32 outputs too', () => {
    const clip = tinyClip();
    const all = forwardKinematics(clip);
    const rot = new Float32Array(12);
    const pos = new Float32Array(9);
    forwardKinematicsFrame(clip, 0, rot, pos);
    for (let i = 0; i < 9; i++) expect(pos[i]).toBeCloseTo(all.positions.data[i], 6);
    for (let i = 0; i < 12; i++) expect(rot[i]).toBeCloseTo(all.rotations.data[i], 6);
  });

  test('forwardKinematics(clip, { positions }) writes into the given series', () => {
    const clip = tinyClip();
    const positions = { data: new Float64Array(9), frames: 1, joints: 3 };
    const result = forwardKinematics(clip, { positions });
    expect(result.positions).toBe(positions);
    expect(positions.data[6]).toBeCloseTo(2, 14);
  });

  test('forwardKinematics(clip) throws ShapeError on a parent after its child', () => {
    const clip = tinyClip();
    clip.skeleton.parents = Int32Array.from([-1, 2, 0]);
    expect(() => forwardKinematics(clip)).toThrow(ShapeError);
  });

  test('forwardKinematicsFrame(clip, 5, ...) throws ShapeError for a frame out of range and short buffers', () => {
    const clip = tinyClip();
    expect(() => forwardKinematicsFrame(clip, 5, new Float64Array(12), new Float64Array(9))).toThrow(
      /frame 5/,
    );
    expect(() => forwardKinematicsFrame(clip, 0, new Float64Array(4), new Float64Array(9))).toThrow(
      ShapeError,
    );
  });
});

describe('forwardKinematicsFrame on malformed input', () => {
  test('forwardKinematicsFrame(clip, 0, null, null) throws ShapeError, not TypeError', () => {
    const clip = tinyClip();
    expect(() =>
      forwardKinematicsFrame(clip, 0, null as unknown as Float64Array, null as unknown as Float64Array),
    ).toThrow(ShapeError);
    expect(() =>
      forwardKinematicsFrame(
        { ...clip, rotations: undefined as unknown as Clip['rotations'] },
        0,
        new Float64Array(12),
        new Float64Array(9),
      ),
    ).toThrow(ShapeError);
    expect(() => forwardKinematics({} as Clip)).toThrow(ShapeError);
  });
});
