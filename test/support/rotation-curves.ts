import * as quat from '../../src/quat/index.js';
import { createQuatSeries } from '../../src/series/create.js';
import type { QuatSeries } from '../../src/series/types.js';
import { quatDistance } from './arbitraries.js';

/** Largest quaternion distance (up to sign) between two series, per rotation. */
export function maxQuatDistance(a: QuatSeries, b: QuatSeries | ArrayLike<number>): number {
  const bd = 'data' in b ? b.data : b;
  let m = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    m = Math.max(m, quatDistance(a.data.subarray(i, i + 4), Array.prototype.slice.call(bd, i, i + 4)));
  }
  return m;
}

/** A smooth random rotation curve, n frames x joints, not unrolled (random signs). */
export function randomCurve(
  frames: number,
  joints: number,
  seed: number,
  step = 0.1,
): QuatSeries<Float64Array> {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
  const out = createQuatSeries(frames, joints);
  const v = new Float64Array(3 * joints).map(() => rnd() * 2);
  const q = new Float64Array(4);
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < joints; j++) {
      for (let c = 0; c < 3; c++) v[3 * j + c] += rnd() * step;
      quat.fromRotationVector(q, v.subarray(3 * j, 3 * j + 3));
      const sign = rnd() < 0 ? -1 : 1;
      for (let c = 0; c < 4; c++) out.data[(f * joints + j) * 4 + c] = sign * q[c];
    }
  }
  return out;
}
