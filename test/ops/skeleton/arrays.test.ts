import { describe, expect, test } from 'vitest';
import { OptionError, ShapeError } from '../../../src/errors.js';
import { parseBvh } from '../../../src/io/index.js';
import {
  type ArraysInput,
  fromArrays,
  ROTATION_WIDTH,
  type ToArraysOptions,
  toArrays,
} from '../../../src/ops/skeleton/arrays.js';
import { forwardKinematics } from '../../../src/ops/skeleton/forward-kinematics.js';
import type { Clip } from '../../../src/series/clip.js';
import { readQuirk } from '../../io/quirks.js';
import { HAS_SHARED_BVH, readFixture, readSharedBvh } from '../../support/shared-data.js';

function maxQuatGap(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i += 4) {
    let dm = 0;
    let dp = 0;
    for (let k = 0; k < 4; k++) {
      dm += (a[i + k] - b[i + k]) ** 2;
      dp += (a[i + k] + b[i + k]) ** 2;
    }
    worst = Math.max(worst, Math.sqrt(Math.min(dm, dp)));
  }
  return worst;
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

const orders = (): Clip => parseBvh(readQuirk('orders.bvh'));

describe('toArrays(clip, options)', () => {
  test('toArrays(clip) gives local quaternions as stored and global positions from forwardKinematics', () => {
    const clip = orders();
    const a = toArrays(clip);
    expect(a.rotationShape).toEqual([3, 6, 4]);
    expect(a.positionShape).toEqual([3, 6, 3]);
    expect(Array.from(a.rotations ?? [])).toEqual(Array.from(clip.rotations.data));
    expect(Array.from(a.positions ?? [])).toEqual(Array.from(forwardKinematics(clip).positions.data));
  });

  test("toArrays(clip, { dtype: 'float32', positions: 'local', rotation: 'none' }) gives Float32 local translations only", () => {
    const clip = orders();
    const a = toArrays(clip, { dtype: 'float32', positions: 'local', rotation: 'none' });
    expect(a.rotations).toBeNull();
    expect(a.positions).toBeInstanceOf(Float32Array);
    expect(maxAbs(a.positions ?? [], clip.translations.data)).toBeLessThan(1e-5);
  });

  test('toArrays(clip, { quaternionSign }) makes w >= 0 or keeps consecutive frames in one hemisphere', () => {
    const clip = orders();
    // flip some stored signs so both policies have work to do
    for (let i = 0; i < clip.rotations.data.length; i += 8)
      for (let k = 0; k < 4; k++) clip.rotations.data[i + k] *= -1;
    const pos = toArrays(clip, { quaternionSign: 'w-positive' }).rotations ?? new Float64Array();
    for (let i = 3; i < pos.length; i += 4) expect(pos[i]).toBeGreaterThanOrEqual(0);
    const cont = toArrays(clip, { quaternionSign: 'continuous' }).rotations ?? new Float64Array();
    const J = clip.rotations.joints;
    for (let f = 1; f < 3; f++) {
      for (let j = 0; j < J; j++) {
        const a = (f * J + j) * 4;
        const b = a - J * 4;
        const dot =
          cont[a] * cont[b] +
          cont[a + 1] * cont[b + 1] +
          cont[a + 2] * cont[b + 2] +
          cont[a + 3] * cont[b + 3];
        expect(dot).toBeGreaterThanOrEqual(0);
      }
    }
    expect(maxQuatGap(cont, clip.rotations.data)).toBeLessThan(1e-15);
  });

  test("toArrays(clip, { rotation: 'matrix' }) throws OptionError; a clip without skeleton throws ShapeError", () => {
    expect(() => toArrays(orders(), { rotation: 'matrix' as 'euler' })).toThrow(OptionError);
    expect(() => toArrays(orders(), { eulerOrder: 'ABC' as 'ZYX' })).toThrow(OptionError);
    expect(() => toArrays({} as Clip)).toThrow(ShapeError);
  });
});

interface ArraysFixture {
  file: string;
  joints: number;
  frames: number[];
  orders: string[];
  quaternion: number[][];
  '6d': number[][];
  'rotation-vector': number[][];
  euler: number[][];
}

describe.skipIf(!HAS_SHARED_BVH)('toArrays(clip) against SciPy on the walk-turn file', () => {
  const fx = HAS_SHARED_BVH ? readFixture<ArraysFixture>('bvh/arrays_walk.json') : undefined;
  for (const rotation of ['quaternion', '6d', 'rotation-vector', 'euler'] as const) {
    test(`toArrays(clip, { rotation: '${rotation}' }) matches scipy as_quat/as_matrix/as_rotvec/as_euler`, () => {
      if (fx === undefined) return;
      const clip = parseBvh(readSharedBvh(fx.file));
      expect(clip.orders).toEqual(fx.orders);
      const a = toArrays(clip, { rotation, positions: 'none' });
      const w = ROTATION_WIDTH[rotation];
      const J = fx.joints;
      fx.frames.forEach((frame, k) => {
        const ours = (a.rotations as Float64Array).subarray(frame * J * w, (frame + 1) * J * w);
        const ref = fx[rotation][k];
        if (rotation === 'quaternion') expect(maxQuatGap(ours, ref)).toBeLessThan(1e-14);
        else expect(maxAbs(ours, ref)).toBeLessThan(1e-13);
      });
    });
  }
});

describe('fromArrays(template, arrays, options) inverts toArrays', () => {
  const cases: ToArraysOptions[] = [];
  for (const rotation of ['quaternion', '6d', 'rotation-vector', 'euler'] as const) {
    for (const rotationSpace of ['local', 'global'] as const) {
      for (const positions of ['global', 'local'] as const)
        cases.push({ rotation, rotationSpace, positions });
    }
  }
  const clips: [string, () => Clip][] = [
    ['orders.bvh', orders],
    ['channels.bvh', () => parseBvh(readQuirk('channels.bvh'))],
    ['multi-root.bvh', () => parseBvh(readQuirk('multi-root.bvh'))],
  ];
  for (const [name, make] of clips) {
    for (const o of cases) {
      test(`fromArrays(clip, toArrays(clip, ${JSON.stringify(o)})) gives back ${name}`, () => {
        const clip = make();
        const a = toArrays(clip, o);
        const back = fromArrays(clip, a, o);
        expect(back.frames).toBe(clip.frames);
        expect(maxQuatGap(back.rotations.data, clip.rotations.data)).toBeLessThan(1e-12);
        expect(maxAbs(back.translations.data, clip.translations.data)).toBeLessThan(1e-11);
      });
    }
  }

  test("fromArrays(clip, { rotations }, { positions: 'none' }) puts every joint at its OFFSET", () => {
    const clip = orders();
    const back = fromArrays(clip, { rotations: toArrays(clip).rotations }, { positions: 'none' });
    expect(Array.from(back.translations.data.subarray(0, 18))).toEqual(
      Array.from(clip.skeleton.restTranslations),
    );
  });

  test('fromArrays(clip, arrays) throws ShapeError on lengths that do not fit', () => {
    const clip = orders();
    expect(() => fromArrays(clip, { rotations: new Float64Array(7) })).toThrow(ShapeError);
    expect(() =>
      fromArrays(clip, { rotations: new Float64Array(24), positions: new Float64Array(5) }),
    ).toThrow(/positions has 5 values, expected frames 1 x joints 6 x 3/);
    expect(() => fromArrays(clip, {}, { rotation: 'none' })).toThrow(OptionError);
  });
});

describe('toArrays/fromArrays on malformed input', () => {
  test('toArrays(clip) with missing or mismatched series throws ShapeError, not TypeError', () => {
    const clip = orders();
    expect(() => toArrays({ ...clip, rotations: undefined as unknown as Clip['rotations'] })).toThrow(
      ShapeError,
    );
    expect(() =>
      toArrays({ ...clip, translations: { data: new Float64Array(3), frames: 1, joints: 1 } }),
    ).toThrow(ShapeError);
    expect(() => fromArrays({} as Clip, {})).toThrow(ShapeError);
    expect(() => fromArrays(clip, null as unknown as ArraysInput)).toThrow(ShapeError);
  });
});

/** R = I + sin θ K + (1 − cos θ) K² for the unit axis k (Rodrigues), row-major: independent of rotsig's quat. */
function rodrigues(axis: [number, number, number], angle: number): number[] {
  const n = Math.hypot(...axis);
  const [x, y, z] = axis.map((c) => c / n);
  const K = [0, -z, y, z, 0, -x, -y, x, 0];
  const K2 = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => {
    const r = Math.floor(i / 3);
    const c = i % 3;
    return K[r * 3] * K[c] + K[r * 3 + 1] * K[3 + c] + K[r * 3 + 2] * K[6 + c];
  });
  return K.map((k, i) => (i % 4 === 0 ? 1 : 0) + Math.sin(angle) * k + (1 - Math.cos(angle)) * K2[i]);
}

describe("toArrays(clip, { rotation: '6d', sixd })", () => {
  const axis: [number, number, number] = [0.3, -0.5, 0.8];
  const angle = 2.1;
  const n = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / n;
  const clip = fromArrays(
    parseBvh(`HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 3 Zrotation Xrotation Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 1
Frame Time: 0.1
0 0 0
`),
    { rotations: [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)] },
    { positions: 'none' },
  );
  const R = rodrigues(axis, angle);

  test("'columns' (default) holds [m00 m10 m20 m01 m11 m21]; 'rows' holds PyTorch3D's [m00 m01 m02 m10 m11 m12]", () => {
    const columns = toArrays(clip, { rotation: '6d', positions: 'none' }).rotations!;
    const rows = toArrays(clip, { rotation: '6d', positions: 'none', sixd: 'rows' }).rotations!;
    expect(maxAbs(columns, [R[0], R[3], R[6], R[1], R[4], R[7]])).toBeLessThan(1e-15);
    // PyTorch3D matrix_to_rotation_6d: matrix[..., :2, :].reshape(..., 6)
    expect(maxAbs(rows, R.slice(0, 6))).toBeLessThan(1e-15);
  });

  test("fromArrays(…, { sixd: 'rows' }) decodes PyTorch3D's layout back to the rotation", () => {
    const back = fromArrays(
      clip,
      { rotations: R.slice(0, 6) },
      { rotation: '6d', positions: 'none', sixd: 'rows' },
    );
    expect(maxQuatGap(back.rotations.data, clip.rotations.data)).toBeLessThan(1e-15);
    expect(() => toArrays(clip, { rotation: '6d', sixd: 'row' as 'rows' })).toThrow(OptionError);
  });
});
