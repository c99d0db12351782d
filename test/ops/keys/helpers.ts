import type { Interpolation, KeyedClip, Track, TrackPath } from '../../../src/series/clip.js';
import { makeSkeleton } from '../../../src/series/clip-create.js';

/** A three-joint chain (hips, spine, head) with non-trivial rest rotations and scales. */
export function chainSkeleton() {
  return makeSkeleton({
    names: ['hips', 'spine', 'head'],
    parents: [-1, 0, 1],
    restTranslations: [0, 1, 0, 0, 0.3, 0, 0, 0.25, 0],
    restRotations: [0, 0, 0, 1, 0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8), 0, 0, 0, 1],
    restScales: [1, 1, 1, 1, 1, 1, 2, 2, 2],
  });
}

/** Unit quaternion from an axis-angle (radians). */
export function axisAngle(x: number, y: number, z: number, angle: number): number[] {
  const n = Math.hypot(x, y, z);
  const s = Math.sin(angle / 2) / n;
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

export function track(
  joint: number,
  path: TrackPath,
  interpolation: Interpolation,
  times: number[],
  values: number[],
  f32 = false,
): Track {
  const A = f32 ? Float32Array : Float64Array;
  const width =
    path === 'rotation'
      ? 4
      : path === 'weights'
        ? values.length / times.length / (interpolation === 'cubicspline' ? 3 : 1)
        : 3;
  return { joint, path, interpolation, times: A.from(times), values: A.from(values), width };
}

/** A keyed clip on the chain: root translation (non-uniform), spine rotation, head scale (step). */
export function chainKeyed(extra: Track[] = []): KeyedClip {
  return {
    name: 'test',
    skeleton: chainSkeleton(),
    tracks: [
      track(0, 'translation', 'linear', [0.1, 0.4, 1.1], [0, 1, 0, 0.3, 1.1, 0, 0.9, 1, 0.2]),
      track(
        1,
        'rotation',
        'linear',
        [0, 0.5, 1],
        [...axisAngle(0, 1, 0, 0), ...axisAngle(0, 1, 0, 1), ...axisAngle(1, 1, 0, 2)],
      ),
      track(2, 'scale', 'step', [0.2, 0.6], [1, 1, 1, 1.5, 1.5, 1.5]),
      ...extra,
    ],
    orders: ['XYZ', 'XYZ', 'XYZ'],
    source: { format: 'test' },
  };
}

export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
