// Continuous test motions for the live filters, sampled on regular and jittered clocks.
import * as quat from '../../../src/quat/index.js';
import { rng } from '../../support/random.js';

/** A smooth rotation of time: exp(v(t)/2) with a rotation vector that wanders and keeps turning. */
export function wander(out: Float64Array, o: number, t: number): void {
  const v = [
    1.1 * Math.sin(2 * Math.PI * 0.45 * t) + 0.3 * Math.sin(2 * Math.PI * 1.3 * t + 0.4),
    0.8 * Math.sin(2 * Math.PI * 0.7 * t + 1),
    1.4 * t,
  ];
  quat.fromRotationVectorFlat(out, o, v, 0);
}

/** Sample times: `rate` Hz for `duration` s, or with `jitter` (fraction of the period) plus the `keep` times. */
export function clock(rate: number, duration: number, jitter = 0, keep: number[] = [], seed = 1): number[] {
  const n = Math.floor(duration * rate + 1e-9);
  if (jitter === 0) return Array.from({ length: n + 1 }, (_, k) => k / rate);
  const random = rng(seed);
  const times: number[] = [0];
  for (let k = 1; k <= n; k++) {
    const t = (k + jitter * (2 * random() - 1)) / rate;
    // keep jittered samples clear of the kept times, so no step is tiny
    if (t < duration && keep.every((c) => Math.abs(t - c) > 0.2 / rate)) times.push(t);
  }
  for (const c of keep) if (c > 0 && c <= duration) times.push(c);
  return times.sort((a, b) => a - b);
}

/** The motion sampled at `times`, one joint, frame-major. */
export function sampleMotion(times: number[], motion = wander): Float64Array {
  const data = new Float64Array(times.length * 4);
  for (let k = 0; k < times.length; k++) motion(data, k * 4, times[k]);
  return data;
}
