/**
 * Smoothing whose width follows the motion: wide where a joint moves slowly, narrow through its fast
 * bursts, chosen frame by frame by the intersection of confidence intervals of Gaussian estimates of
 * growing width.
 *
 * @module
 */
import { relativeRaw } from '../../quat/raw.js';
import type { Clip } from '../../series/clip.js';
import { makeClip, makeSkeleton } from '../../series/clip-create.js';
import { filterClip } from '../filter/filter-clip.js';
import { gaussian } from '../kernel/kernels.js';

/**
 * Half-width of the confidence intervals, in standard deviations of each estimate's noise. Chosen on the
 * bench (`bench/clean.js`: seven shared captures at 30-125 Hz, three noise seeds each) between the values
 * 1 (undersmooths: the intervals part on noise alone) and 2 (oversmooths fast bursts).
 */
export const ADAPTIVE_GAMMA = 1.4;
/** Widest width a joint's rotations may take, as a multiple of its width from the spectrum. */
export const ADAPTIVE_CAP = 2;
/**
 * Joints whose width from the spectrum is above this (frames) keep that one width: their spectrum shows
 * slow motion or none (a finger that never moves), where one wide Gaussian is what the frame-by-frame
 * choice would pick anyway, and the ladder of estimates up to twice that width would cost most of the time.
 */
export const ADAPTIVE_MAX_SIGMA = 8;
/** Sigma (frames) of the Gaussian that smooths the chosen ladder index along time. */
export const ADAPTIVE_INDEX_SIGMA = 2;
/** Narrowest Gaussian width (frames) of the ladder of estimates. */
export const ADAPTIVE_SIGMA_BASE = 0.5;
/** Ratio of consecutive widths of the ladder. */
export const ADAPTIVE_SIGMA_STEP = 1.25;

/**
 * Per-component standard deviation (radians) of a joint's white rotation noise, from its own samples:
 * the residual of every frame against the geodesic midpoint of its two neighbours is `e_f − (e_{f−1} +
 * e_{f+1}) / 2` for white noise `e` (variance 1.5 s² per component), and its components' median absolute
 * value over the clip, divided by 0.6745 (a normal's), is robust to the frames where the motion itself
 * bends (fast bursts) and to spikes. `q` is a hemisphere-continuous `frames x joints` quaternion array.
 */
export function jointNoise(q: Float64Array, frames: number, joints: number, j: number): number {
  if (frames < 3) return 0;
  const values = new Float64Array((frames - 2) * 3);
  const r = new Float64Array(3);
  const mid = new Float64Array(4);
  for (let f = 1; f < frames - 1; f++) {
    const a = ((f - 1) * joints + j) * 4;
    const b = ((f + 1) * joints + j) * 4;
    // the normalised sum is the geodesic midpoint of two quaternions in one hemisphere
    let x = q[a] + q[b];
    let y = q[a + 1] + q[b + 1];
    let z = q[a + 2] + q[b + 2];
    let w = q[a + 3] + q[b + 3];
    const n = Math.hypot(x, y, z, w);
    if (n === 0) continue;
    x /= n;
    y /= n;
    z /= n;
    w /= n;
    mid[0] = x;
    mid[1] = y;
    mid[2] = z;
    mid[3] = w;
    relativeLog(mid, 0, q, (f * joints + j) * 4, r, 0);
    const o = (f - 1) * 3;
    values[o] = Math.abs(r[0]);
    values[o + 1] = Math.abs(r[1]);
    values[o + 2] = Math.abs(r[2]);
  }
  values.sort();
  const m = values.length;
  const median = m % 2 === 1 ? values[m >> 1] : 0.5 * (values[(m >> 1) - 1] + values[m >> 1]);
  return median / 0.6745 / Math.sqrt(1.5);
}

/** Where {@link relativeLog} keeps the relative rotation. */
const RELATIVE = new Float64Array(4);

/**
 * Rotation vector (radians) of `a⁻¹ b` for unit quaternions at `ao`, `bo` (x, y, z, w), the shorter way,
 * written to `out` at `oo`.
 */
export function relativeLog(
  a: ArrayLike<number>,
  ao: number,
  b: ArrayLike<number>,
  bo: number,
  out: Float64Array,
  oo: number,
): void {
  relativeRaw(RELATIVE, 0, a, ao, b, bo);
  const x = RELATIVE[0];
  const y = RELATIVE[1];
  const z = RELATIVE[2];
  const w = RELATIVE[3];
  const s = Math.hypot(x, y, z);
  const k = s === 0 ? 2 : (2 * Math.atan2(s, w)) / s;
  out[oo] = k * x;
  out[oo + 1] = k * y;
  out[oo + 2] = k * z;
}

/** `a ⊗ exp(v)` for a unit quaternion `a` at `ao` and a rotation vector `v`, written to `out` at `oo`. */
function rotateByVector(
  a: ArrayLike<number>,
  ao: number,
  vx: number,
  vy: number,
  vz: number,
  out: Float64Array,
  oo: number,
): void {
  const angle = Math.hypot(vx, vy, vz);
  const s = angle === 0 ? 0.5 : Math.sin(angle / 2) / angle;
  const bx = vx * s;
  const by = vy * s;
  const bz = vz * s;
  const bw = Math.cos(angle / 2);
  const ax = a[ao];
  const ay = a[ao + 1];
  const az = a[ao + 2];
  const aw = a[ao + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Root-sum-square of the sampled, unit-sum Gaussian's taps: the noise gain of the estimate. */
function noiseGain(sigma: number): number {
  const k = gaussian(sigma);
  let sum = 0;
  let sq = 0;
  for (let i = -k.radius; i <= k.radius; i++) {
    const v = k.evaluate(i);
    sum += v;
    sq += v * v;
  }
  return Math.sqrt(sq) / sum;
}

/** The joints `picked` of a clip as a clip of their own, each a root (filters treat every joint on its own). */
export function jointsAsRoots(clip: Clip, picked: readonly number[]): Clip {
  const { frames, joints } = clip.rotations;
  const m = picked.length;
  const s = clip.skeleton;
  const take = (src: ArrayLike<number>, width: number, count: number): Float64Array => {
    const out = new Float64Array(count * m * width);
    for (let t = 0; t < count; t++)
      for (let i = 0; i < m; i++) {
        const from = (t * joints + picked[i]) * width;
        const to = (t * m + i) * width;
        for (let k = 0; k < width; k++) out[to + k] = src[from + k];
      }
    return out;
  };
  const part = makeClip({
    skeleton: makeSkeleton({
      names: picked.map((j) => s.names[j]),
      parents: picked.map(() => -1),
      restTranslations: take(s.restTranslations, 3, 1),
      restRotations: take(s.restRotations, 4, 1),
      restScales: take(s.restScales, 3, 1),
    }),
    frameTime: clip.frameTime,
    rotations: { data: take(clip.rotations.data, 4, frames), frames, joints: m },
    translations: { data: take(clip.translations.data, 3, frames), frames, joints: m },
    ...(clip.scales === undefined
      ? {}
      : { scales: { data: take(clip.scales.data, 3, frames), frames, joints: m } }),
    animated: Uint8Array.from(picked, (j) => clip.animated[j]),
  });
  part.rate = clip.rate;
  return part;
}

/** Result of {@link adaptiveRotations}. */
export interface AdaptiveResult {
  /** The smoothed rotations, `frames x joints` (joints not smoothed copied as they were). */
  rotations: Float64Array;
  /** Per joint, the mean width applied over the frames (frames; 0 for a joint not smoothed). */
  meanSigmas: Float64Array;
  /** Per joint, the per-component noise standard deviation (radians) the intervals were built from. */
  noise: Float64Array;
}

/**
 * Log-space Gaussian smoothing of each joint's rotations with a width chosen frame by frame, so a joint is
 * smoothed hard where it moves slowly and lightly through its fast bursts (a kick, a spin, a foot that
 * snaps), where one width for the whole clip either leaves the quiet parts noisy or bends the bursts.
 *
 * For every joint `j` with `maxSigmas[j] > 0`: the estimates are the log-space zero-phase Gaussians
 * ({@link filterClip}, `space: 'log'`, `segments: 'jumps'`) of widths 0.5, 0.625, … frames (25% steps) up
 * to `maxSigmas[j]`, with the raw sample as the estimate of width 0. Each estimate's noise, per
 * rotation-vector component, is `s · ‖w‖₂` (`s` the joint's noise from {@link jointNoise}, `w` the
 * kernel's taps); its confidence interval is the estimate ± {@link ADAPTIVE_GAMMA} times that, per
 * component, in the tangent space at the sample. The width chosen for a frame is the widest whose interval
 * still meets the intersection of all narrower ones (the intersection-of-confidence-intervals rule): as
 * long as the wider estimates differ from the narrower ones by no more than their noise, the bias is
 * small and widening pays; when the motion bends away the intervals part. The chosen ladder index is
 * smoothed along time (a Gaussian of {@link ADAPTIVE_INDEX_SIGMA} frames) and each frame is the blend, in
 * the tangent space at the sample, of the two estimates around its index, so the width never jumps.
 *
 * Edge cases: joints with `maxSigmas[j] = 0` are copied from `others` (default: the clip's own rotations); a joint whose noise estimate is 0
 * (exactly smooth on most frames) keeps its raw samples. The input should be hemisphere-continuous and
 * free of spikes (see {@link cleanClipWithReport}).
 *
 * Method: Goldenshluger and Nemirovski, "On spatially adaptive estimation of nonparametric regression",
 * Mathematical Methods of Statistics 6 (1997); Katkovnik, "A new method for varying adaptive bandwidth
 * selection", IEEE Transactions on Signal Processing 47(9) (1999).
 *
 * @example
 * const { rotations } = adaptiveRotations(unrollClip(clip), new Float64Array(clip.rotations.joints).fill(4));
 */
export function adaptiveRotations(
  clip: Clip,
  maxSigmas: Float64Array,
  others: ArrayLike<number> = clip.rotations.data,
): AdaptiveResult {
  const gamma = ADAPTIVE_GAMMA;
  const smoothIndex = ADAPTIVE_INDEX_SIGMA;
  const { frames, joints } = clip.rotations;
  const rotations = Float64Array.from(others);
  const meanSigmas = new Float64Array(joints);
  const noiseOut = new Float64Array(joints);
  const picked: number[] = [];
  for (let j = 0; j < joints; j++) if (maxSigmas[j] > 0) picked.push(j);
  const m = picked.length;
  if (m === 0) return { rotations, meanSigmas, noise: noiseOut };
  const part = jointsAsRoots(clip, picked);
  const q = Float64Array.from(part.rotations.data);
  let top = 0;
  for (const j of picked) top = Math.max(top, maxSigmas[j]);
  const widths: number[] = [];
  for (let s = ADAPTIVE_SIGMA_BASE; s <= top * (1 + 1e-9); s *= ADAPTIVE_SIGMA_STEP) widths.push(s);
  const K = widths.length;
  const noise = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    noise[i] = jointNoise(q, frames, m, i);
    noiseOut[picked[i]] = noise[i];
  }
  // pass 1: per sample, the widest estimate whose confidence box still meets those of all narrower ones
  // (the raw sample, width 0 and gain 1, first); intervals per rotation-vector component about the sample
  const n3 = frames * m * 3;
  const lo = new Float64Array(n3);
  const hi = new Float64Array(n3);
  const chosen = new Float64Array(frames * m);
  const open = new Uint8Array(frames * m).fill(1);
  for (let f = 0; f < frames; f++)
    for (let i = 0; i < m; i++) {
      const o = (f * m + i) * 3;
      for (let c = 0; c < 3; c++) {
        lo[o + c] = -gamma * noise[i];
        hi[o + c] = gamma * noise[i];
      }
    }
  const v = new Float64Array(3);
  for (let k = 0; k < K; k++) {
    const est = filterClip(part, gaussian(widths[k]), {
      space: 'log',
      channels: 'rotations',
      segments: 'jumps',
    }).rotations.data;
    const gain = noiseGain(widths[k]);
    for (let f = 0; f < frames; f++)
      for (let i = 0; i < m; i++) {
        const s = f * m + i;
        if (open[s] === 0) continue;
        if (widths[k] > maxSigmas[picked[i]] * (1 + 1e-9)) {
          open[s] = 0;
          continue;
        }
        relativeLog(q, s * 4, est, s * 4, v, 0);
        const half = gamma * noise[i] * gain;
        const o = s * 3;
        let meets = true;
        for (let c = 0; c < 3; c++) {
          const l = Math.max(lo[o + c], v[c] - half);
          const h = Math.min(hi[o + c], v[c] + half);
          if (l > h) meets = false;
          lo[o + c] = l;
          hi[o + c] = h;
        }
        if (meets) chosen[s] = k + 1;
        else open[s] = 0;
      }
  }
  // the chosen ladder index smoothed along time, so the width does not jump from frame to frame
  if (smoothIndex > 0) {
    const kern = gaussian(smoothIndex);
    const r = kern.radius;
    const w: number[] = [];
    for (let d = -r; d <= r; d++) w.push(kern.evaluate(d));
    const col = new Float64Array(frames);
    for (let i = 0; i < m; i++) {
      for (let f = 0; f < frames; f++) col[f] = chosen[f * m + i];
      for (let f = 0; f < frames; f++) {
        let sum = 0;
        let wsum = 0;
        for (let d = -r; d <= r; d++) {
          const g = f + d;
          if (g < 0 || g >= frames) continue;
          sum += w[d + r] * col[g];
          wsum += w[d + r];
        }
        chosen[f * m + i] = sum / wsum;
      }
    }
  }
  // pass 2: each sample the blend (in the tangent space at the sample) of the two estimates around its index
  const acc = new Float64Array(n3);
  for (let k = 0; k < K; k++) {
    let needed = false;
    for (let s = 0; s < frames * m && !needed; s++) if (Math.abs(chosen[s] - (k + 1)) < 1) needed = true;
    if (!needed) continue;
    const est = filterClip(part, gaussian(widths[k]), {
      space: 'log',
      channels: 'rotations',
      segments: 'jumps',
    }).rotations.data;
    for (let s = 0; s < frames * m; s++) {
      const wk = 1 - Math.abs(chosen[s] - (k + 1));
      if (wk <= 0) continue;
      relativeLog(q, s * 4, est, s * 4, v, 0);
      acc[s * 3] += wk * v[0];
      acc[s * 3 + 1] += wk * v[1];
      acc[s * 3 + 2] += wk * v[2];
    }
  }
  const outQ = new Float64Array(4);
  for (let f = 0; f < frames; f++)
    for (let i = 0; i < m; i++) {
      const s = f * m + i;
      rotateByVector(q, s * 4, acc[s * 3], acc[s * 3 + 1], acc[s * 3 + 2], outQ, 0);
      rotations.set(outQ, (f * joints + picked[i]) * 4);
      const c = chosen[s];
      meanSigmas[picked[i]] +=
        c <= 0 ? 0 : c >= K ? widths[K - 1] : c < 1 ? c * widths[0] : widths[Math.floor(c) - 1];
    }
  for (const j of picked) meanSigmas[j] /= frames;
  return { rotations, meanSigmas, noise: noiseOut };
}
