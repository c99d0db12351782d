/**
 * Spikes in rotation series: single frames (or short runs) that leave the motion and come back, as
 * pose estimators produce when a limb is briefly mistaken. Found from the series' own statistics and
 * replaced from their neighbours.
 *
 * @module
 */
import { OptionError, ShapeError } from '../../errors.js';
import {
  frozenDefaults,
  NON_NEGATIVE_NUMBER,
  type OptionSpec,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { slerpFlat } from '../../quat/core.js';
import { sphereAngleRaw } from '../../quat/raw.js';
import { assertFiniteSeries, assertQuatSeries } from '../../series/create.js';
import type { QuatSeries } from '../../series/types.js';

/** Options of {@link findSpikes}. */
export interface FindSpikesOptions {
  /**
   * How far above the typical residual a frame must be to count as a spike, in robust standard deviations
   * (`1.4826 · MAD` of the joint's residuals). Default 6.
   */
  spread?: number;
  /** Residuals at or below this angle (radians) are never spikes, whatever the statistics. Default 0.035 (2°). */
  minAngle?: number;
}

/** Defaults of {@link FindSpikesOptions}. */
export const FIND_SPIKES_DEFAULTS: Required<FindSpikesOptions> = frozenDefaults({
  spread: 6,
  minAngle: 0.035,
});

const FIND_SPIKES_SPEC: OptionSpec = { spread: POSITIVE_NUMBER, minAngle: NON_NEGATIVE_NUMBER };

/** Result of {@link findSpikes}. */
export interface SpikeReport {
  /** `frames x joints`, 1 where the sample is a spike. */
  mask: Uint8Array;
  /** Number of spike samples. */
  count: number;
  /** Per joint, the residual angle (radians) above which a sample counted as a spike. */
  thresholds: Float64Array;
}

/** Median of `n` values of `a` from 0 (reorders them). */
function median(a: Float64Array, n: number): number {
  if (n === 0) return 0;
  const s = a.subarray(0, n).sort();
  return n % 2 === 1 ? s[n >> 1] : 0.5 * (s[(n >> 1) - 1] + s[n >> 1]);
}

/** Middle of the sorted four values (the median of four: the mean of the middle two). */
function median4(a: number, b: number, c: number, d: number): number {
  const lo1 = Math.min(a, b);
  const hi1 = Math.max(a, b);
  const lo2 = Math.min(c, d);
  const hi2 = Math.max(c, d);
  return 0.5 * (Math.max(lo1, lo2) + Math.min(hi1, hi2));
}

/**
 * Finds spikes in a hemisphere-continuous rotation series (run {@link unrollQuaternions} first): for every
 * joint and frame, the residual is the geodesic angle between the sample and a robust prediction from its
 * neighbours, the component-wise median of frames `f − 2, f − 1, f + 1, f + 2` (clamped at the ends),
 * normalised. A median of four ignores one outlier among them, so a spike neither hides itself nor marks its
 * neighbours. A sample is a spike when its residual exceeds `median + spread · 1.4826 · MAD` of that joint's
 * residuals (the MAD rescaled to a standard deviation for normal data) and `minAngle`: the threshold comes
 * from the clip's own statistics, per joint, so quiet joints and lively ones are judged each by their own
 * jitter.
 *
 * Edge cases: series of fewer than 5 frames have no spikes (too few neighbours to tell). A joint that
 * never moves has zero residuals and no spikes.
 *
 * Method: Hampel's outlier identifier (median ± k·MAD) on the residual of a median predictor; Hampel,
 * "The influence curve and its role in robust estimation", JASA 1974; Pearson, "Outliers in process
 * modeling and identification", IEEE TCST 2002.
 *
 * @throws {ShapeError} on a malformed series; {@link InvalidValueError} on non-finite values;
 *   {@link OptionError} on a negative `spread` or `minAngle`.
 * @example
 * const { mask, count } = findSpikes(unrollQuaternions(clip.rotations));
 */
export function findSpikes(series: QuatSeries, options: FindSpikesOptions = {}): SpikeReport {
  const where = 'findSpikes';
  options = resolveOptions(where, options, FIND_SPIKES_DEFAULTS, FIND_SPIKES_SPEC);
  const spread = options.spread ?? FIND_SPIKES_DEFAULTS.spread;
  const minAngle = options.minAngle ?? FIND_SPIKES_DEFAULTS.minAngle;
  if (!(spread >= 0 && spread < Infinity))
    throw new OptionError(`${where}: spread must be a finite number >= 0, got ${spread}`);
  if (!(minAngle >= 0 && minAngle < Infinity))
    throw new OptionError(`${where}: minAngle must be a finite number >= 0, got ${minAngle}`);
  assertQuatSeries(series, `${where}: series`);
  const { data, frames, joints } = series;
  assertFiniteSeries(data, joints, 4, `${where}: series`);
  const mask = new Uint8Array(frames * joints);
  const thresholds = new Float64Array(joints);
  if (frames < 5) return { mask, count: 0, thresholds };
  const residual = new Float64Array(frames);
  const work = new Float64Array(frames);
  let count = 0;
  const stride = joints * 4;
  for (let j = 0; j < joints; j++) {
    for (let f = 0; f < frames; f++) {
      const a = Math.max(f - 2, 0) * stride + j * 4;
      const b = Math.max(f - 1, 0) * stride + j * 4;
      const c = Math.min(f + 1, frames - 1) * stride + j * 4;
      const d = Math.min(f + 2, frames - 1) * stride + j * 4;
      const x = median4(data[a], data[b], data[c], data[d]);
      const y = median4(data[a + 1], data[b + 1], data[c + 1], data[d + 1]);
      const z = median4(data[a + 2], data[b + 2], data[c + 2], data[d + 2]);
      const w = median4(data[a + 3], data[b + 3], data[c + 3], data[d + 3]);
      const o = f * stride + j * 4;
      const qx = data[o];
      const qy = data[o + 1];
      const qz = data[o + 2];
      const qw = data[o + 3];
      const pn = Math.hypot(x, y, z, w);
      const qn = Math.hypot(qx, qy, qz, qw);
      // the geodesic angle, 4·atan2(|a − b|, |a + b|) of the unit quaternions on one hemisphere
      const s = qx * x + qy * y + qz * z + qw * w < 0 ? -1 : 1;
      residual[f] =
        pn === 0 || qn === 0
          ? 0
          : 2 *
            sphereAngleRaw(
              qx / qn,
              qy / qn,
              qz / qn,
              qw / qn,
              (s * x) / pn,
              (s * y) / pn,
              (s * z) / pn,
              (s * w) / pn,
            );
    }
    work.set(residual);
    const med = median(work, frames);
    for (let f = 0; f < frames; f++) work[f] = Math.abs(residual[f] - med);
    const mad = median(work, frames);
    const threshold = Math.max(med + spread * 1.4826 * mad, minAngle);
    thresholds[j] = threshold;
    for (let f = 0; f < frames; f++)
      if (residual[f] > threshold) {
        mask[f * joints + j] = 1;
        count++;
      }
  }
  return { mask, count, thresholds };
}

/**
 * Replaces the samples a mask marks (`frames x joints`, as {@link findSpikes} returns) in place: each run
 * of marked frames of a joint becomes the slerp between the unmarked frames on either side, at its share
 * of the gap; a run touching an end holds the nearest unmarked frame. A joint marked at every frame is
 * left as it is. Returns the series.
 *
 * @throws {ShapeError} when the mask does not have `frames · joints` entries.
 * @example
 * const rotations = clip.rotations;
 * replaceSpikes(rotations, findSpikes(rotations).mask);
 */
export function replaceSpikes<S extends QuatSeries>(series: S, mask: Uint8Array): S {
  const where = 'replaceSpikes';
  assertQuatSeries(series, `${where}: series`);
  const { data, frames, joints } = series;
  if (!(mask instanceof Uint8Array) || mask.length !== frames * joints)
    throw new ShapeError(`${where}: mask must be a Uint8Array of frames ${frames} x joints ${joints}`);
  const stride = joints * 4;
  for (let j = 0; j < joints; j++) {
    let f = 0;
    while (f < frames) {
      if (mask[f * joints + j] === 0) {
        f++;
        continue;
      }
      const start = f;
      while (f < frames && mask[f * joints + j] !== 0) f++;
      const before = start - 1;
      const after = f;
      if (before < 0 && after >= frames) break;
      for (let g = start; g < after; g++) {
        const o = g * stride + j * 4;
        if (before < 0) data.copyWithin(o, after * stride + j * 4, after * stride + j * 4 + 4);
        else if (after >= frames) data.copyWithin(o, before * stride + j * 4, before * stride + j * 4 + 4);
        else
          slerpFlat(
            data,
            o,
            data,
            before * stride + j * 4,
            data,
            after * stride + j * 4,
            (g - before) / (after - before),
          );
      }
    }
  }
  return series;
}
