/**
 * The width of a Gaussian smoothing chosen from a clip's own spectrum: the signal's power against the
 * white noise floor read from the top of the band.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import {
  BOOLEAN_OPTION,
  frozenDefaults,
  numberIn,
  type OptionSpec,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { clipSpectrum } from '../spectrum/clip-spectrum.js';
import { spectrum } from '../spectrum/spectrum.js';
import { unrollQuaternions } from '../unroll/unroll-quaternions.js';

/** Options of {@link smoothingFromSpectrum}. */
export interface SmoothingFromSpectrumOptions {
  /**
   * The part of the band above this share of the Nyquist frequency is taken as noise only: its median
   * power per bin is the noise floor. Default 0.5 (the top half of the band).
   */
  noiseBand?: number;
  /** Largest Gaussian sigma considered, in frames. Default 64. */
  maxSigma?: number;
  /**
   * Also choose a width for every joint from its own spectrum and noise floor (`jointSigmas`). Default
   * true: joints that move slowly (the spine, the root's orientation) take more smoothing than fast ones.
   */
  perJoint?: boolean;
}

/** Defaults of {@link SmoothingFromSpectrumOptions}. */
export const SMOOTHING_FROM_SPECTRUM_DEFAULTS: Required<SmoothingFromSpectrumOptions> = frozenDefaults({
  noiseBand: 0.5,
  maxSigma: 64,
  perJoint: true,
});

const SMOOTHING_FROM_SPECTRUM_SPEC: OptionSpec = {
  noiseBand: numberIn(0, 1, true),
  maxSigma: POSITIVE_NUMBER,
  perJoint: BOOLEAN_OPTION,
};

/** Result of {@link smoothingFromSpectrum}. */
export interface SmoothingChoice {
  /** Gaussian standard deviation in frames; 0 when the clip is too short or shows no noise (no smoothing). */
  sigma: number;
  /** Frequency (Hz) where the chosen Gaussian passes half the power (−3 dB); the Nyquist frequency when `sigma` is 0. */
  cutoff: number;
  /** Noise power per bin (the median over the noise band), summed over channels, in the units of `clipSpectrum`'s `power`. */
  noiseFloor: number;
  /** The expected squared error of the chosen width divided by that of no smoothing (1 = no gain). */
  expectedGain: number;
  /**
   * Per joint, the width chosen from that joint's own spectrum (frames, 0 for a joint that never moves or
   * shows no noise); every entry `sigma` when `perJoint` is false.
   */
  jointSigmas: Float64Array;
}

/**
 * Gaussian sigma (frames) whose −3 dB frequency is `cutoff` Hz at `rate`: `σ = √(ln 2) · rate / (2π · cutoff)`,
 * from the response `exp(−2π²σ²(f / rate)²)` of a Gaussian of unit area.
 *
 * @throws {OptionError} when `cutoff` or `rate` is not a positive finite number.
 */
export function sigmaForCutoff(cutoff: number, rate: number): number {
  if (!(cutoff > 0 && cutoff < Infinity))
    throw new OptionError(`sigmaForCutoff: cutoff must be > 0 Hz, got ${cutoff}`);
  if (!(rate > 0 && rate < Infinity))
    throw new OptionError(`sigmaForCutoff: rate must be > 0 Hz, got ${rate}`);
  return (Math.sqrt(Math.LN2) * rate) / (2 * Math.PI * cutoff);
}

/**
 * {@link sigmaForCutoff} inverted: the −3 dB frequency (Hz) of a Gaussian of `sigma` frames at `rate`.
 *
 * @throws {OptionError} when `sigma` or `rate` is not a positive finite number.
 */
export function cutoffForSigma(sigma: number, rate: number): number {
  if (!(sigma > 0 && sigma < Infinity))
    throw new OptionError(`cutoffForSigma: sigma must be > 0 frames, got ${sigma}`);
  if (!(rate > 0 && rate < Infinity))
    throw new OptionError(`cutoffForSigma: rate must be > 0 Hz, got ${rate}`);
  return (Math.sqrt(Math.LN2) * rate) / (2 * Math.PI * sigma);
}

/**
 * Chooses the width of a zero-phase Gaussian smoothing for a clip from its spectrum. The power of every
 * rotation channel (hemisphere-continuous quaternion components, `clipSpectrum` with `channels:
 * 'quaternion'`) is summed per frequency bin; the median power of the bins in the top of the band
 * (`noiseBand`), divided by the median-to-mean ratio of white noise's periodogram, is the white-noise floor
 * `N`, and the signal power of bin k is `S_k = max(P̄_k − N, 0)` with `P̄_k` the power averaged over bins
 * `k ± 4` (a single bin's power scatters too widely to subtract the floor from). The
 * expected squared error of the smoothed channels is `E(σ) = Σ_k (1 − H_σ(f_k))² S_k + H_σ(f_k)² N`
 * (signal lost plus noise kept, `H_σ(f) = exp(−2π²σ²(f / rate)²)` the Gaussian's response), and that of
 * their second differences (accelerations) `A(σ)` the same sum with each bin weighted by `(2 sin(π f_k /
 * rate))⁴`. The sigma chosen minimises `E(σ) / E(0) + A(σ) / A(0)` over a geometric grid of widths from
 * 0.5 frames to `maxSigma` (5% steps): the Gaussian closest to the Wiener filter of the clip, leaned
 * towards smoothness as much as the position error allows (the Wiener choice alone minimises `E` and keeps
 * high-frequency jitter that dominates the acceleration error: on the bench's 30 Hz dance the balanced
 * choice cut the acceleration error by 13% and left the position error as it was).
 *
 * The clip should be free of sign flips and spikes first (they spread power over the whole band); the
 * assumption is that the motion itself has little power in the noise band (true of human motion, whose
 * power lies below 10 Hz, at rates of 30 Hz and more).
 *
 * Edge cases: fewer than 8 frames, or a clip whose noise floor is zero (exactly smooth), gives `sigma` 0.
 *
 * Method: Wiener, "Extrapolation, Interpolation, and Smoothing of Stationary Time Series" (1949), for the
 * error split into signal loss and noise gain; the spectrum as in Holden, "Filtering, Convolutions, and
 * Quaternions" (2025).
 *
 * @throws {OptionError} on bad options; the errors of `clipSpectrum` on a malformed clip.
 * @example
 * const { sigma, cutoff } = smoothingFromSpectrum(unrollClip(clip));
 * const smooth = filterClip(clip, kernels.gaussian(sigma), { space: 'log' });
 */
export function smoothingFromSpectrum(
  clip: Clip,
  options: SmoothingFromSpectrumOptions = {},
): SmoothingChoice {
  const where = 'smoothingFromSpectrum';
  options = resolveOptions(where, options, SMOOTHING_FROM_SPECTRUM_DEFAULTS, SMOOTHING_FROM_SPECTRUM_SPEC);
  const band = options.noiseBand ?? SMOOTHING_FROM_SPECTRUM_DEFAULTS.noiseBand;
  const maxSigma = options.maxSigma ?? SMOOTHING_FROM_SPECTRUM_DEFAULTS.maxSigma;
  const perJoint = options.perJoint ?? SMOOTHING_FROM_SPECTRUM_DEFAULTS.perJoint;
  if (typeof perJoint !== 'boolean') throw new OptionError(`${where}: perJoint must be true or false`);
  if (!(band > 0 && band < 1)) throw new OptionError(`${where}: noiseBand must be in (0, 1), got ${band}`);
  if (!(maxSigma >= 0.5 && maxSigma < Infinity))
    throw new OptionError(`${where}: maxSigma must be a finite number >= 0.5, got ${maxSigma}`);
  const s = clipSpectrum(clip, { channels: 'quaternion' });
  const nyquist = s.rate / 2;
  const none: SmoothingChoice = {
    sigma: 0,
    cutoff: nyquist,
    noiseFloor: 0,
    expectedGain: 1,
    jointSigmas: new Float64Array(clip.rotations.joints),
  };
  if (clip.frames < 8) return none;
  const bins = s.power.length;
  // degrees of freedom of the summed noise: 3 per moving joint's quaternion (a unit quaternion's noise
  // lies in the 3 directions tangent to it), 2 per frequency bin (real and imaginary parts)
  const moving = movingJoints(clip);
  const floor = noiseFloor(s.power, s.frequencies, band * nyquist, 6 * Math.max(moving, 1));
  if (!(floor > 0)) return none;
  const best = bestSigma(s.power, s.frequencies, s.rate, floor, maxSigma);
  const jointSigmas = new Float64Array(clip.rotations.joints);
  if (perJoint) {
    const { frames, joints } = clip.rotations;
    const q = unrollQuaternions(clip.rotations, {
      out: { data: new Float64Array(clip.rotations.data.length), frames, joints },
    }).data;
    const channels = [0, 1, 2, 3].map(() => new Float64Array(frames));
    const power = new Float64Array(bins);
    for (let j = 0; j < joints; j++) {
      for (let f = 0; f < frames; f++)
        for (let c = 0; c < 4; c++) channels[c][f] = q[(f * joints + j) * 4 + c];
      const js = spectrum(channels, s.rate);
      power.fill(0);
      for (const p of js.power) for (let k = 0; k < bins; k++) power[k] += p[k];
      const jointFloor = noiseFloor(power, js.frequencies, band * nyquist, 6);
      // never less than the clip-wide width: a joint's own spectrum is the noisier estimate, and a fast
      // joint's choice alone leaves the jitter its children inherit
      jointSigmas[j] =
        jointFloor > 0
          ? Math.max(best.sigma, bestSigma(power, js.frequencies, s.rate, jointFloor, maxSigma).sigma)
          : 0;
    }
  } else jointSigmas.fill(best.sigma);
  return { ...best, noiseFloor: floor, jointSigmas };
}

/**
 * The white-noise floor: the mean power per bin of the bins at or above `from` Hz (DC excluded), estimated
 * robustly as their median divided by the median-to-mean ratio of white noise's periodogram. The power of
 * a bin summed over `dof / 2` channels of white noise is chi-squared with `dof` degrees of freedom, whose
 * median lies below its mean by the factor `(1 − 2 / (9·dof))³` (Wilson and Hilferty, "The distribution
 * of chi-square", PNAS 1931): 0.89 for one joint's quaternion (noise in 3 of its 4 components, 6 degrees),
 * near 1 for a whole clip. Uncorrected, the median puts one joint's floor 11% low and undersmooths it.
 */
function noiseFloor(power: Float64Array, frequencies: Float64Array, from: number, dof: number): number {
  const noise: number[] = [];
  for (let k = 1; k < power.length; k++) if (frequencies[k] >= from) noise.push(power[k]);
  if (noise.length === 0) return 0;
  noise.sort((a, b) => a - b);
  const m = noise.length;
  const median = m % 2 === 1 ? noise[m >> 1] : 0.5 * (noise[(m >> 1) - 1] + noise[m >> 1]);
  return median / (1 - 2 / (9 * dof)) ** 3;
}

/**
 * The Gaussian width minimising the expected error for the given power and noise floor: with `balance`, the
 * sum of the position error and the acceleration error (each divided by its value without smoothing);
 * without, the position error alone.
 */
function bestSigma(
  power: Float64Array,
  frequencies: Float64Array,
  rate: number,
  floor: number,
  maxSigma: number,
  balance = BALANCE,
): { sigma: number; cutoff: number; expectedGain: number } {
  const bins = power.length;
  // acceleration: the second difference's response |1 − e^(−2πiν)|⁴ = (2 sin πν)⁴ weights each bin
  const accelWeight = new Float64Array(bins);
  let baseline = 0;
  let accelBaseline = 0;
  for (let k = 1; k < bins; k++) {
    accelWeight[k] = (2 * Math.sin((Math.PI * frequencies[k]) / rate)) ** 4;
    baseline += floor;
    accelBaseline += accelWeight[k] * floor;
  }
  let best = { sigma: 0, cutoff: rate / 2, expectedGain: 1 };
  if (!(baseline > 0 && accelBaseline > 0)) return best;
  // the signal power of each bin from the periodogram averaged over its neighbours (Daniell's smoother):
  // a single bin's power scatters about its mean (exponentially, for one channel), so max(P_k − N, 0)
  // credits every noise-only bin with phantom signal (half the floor on average for one channel) and
  // keeps the width too small, most on short clips
  const signal = new Float64Array(bins);
  for (let k = 1; k < bins; k++) {
    let sum = 0;
    let n = 0;
    for (let i = Math.max(1, k - DANIELL); i <= Math.min(bins - 1, k + DANIELL); i++) {
      sum += power[i];
      n++;
    }
    signal[k] = Math.max(sum / n - floor, 0);
  }
  let bestScore = balance ? 2 : 1;
  for (let sigma = 0.5; sigma <= maxSigma * (1 + 1e-12); sigma *= 1.05) {
    // the continuous Gaussian's response, exp(−2π²σ²ν²) at ν cycles per frame: the sampled kernel's to
    // within 1% from σ = 0.8 frames, and cheap for every bin and width
    const c = -2 * Math.PI * Math.PI * sigma * sigma;
    let error = 0;
    let accel = 0;
    for (let k = 1; k < bins; k++) {
      const nu = frequencies[k] / rate;
      const h = Math.exp(c * nu * nu);
      const sk = signal[k];
      const e = (1 - h) * (1 - h) * sk + h * h * floor;
      error += e;
      accel += accelWeight[k] * e;
    }
    const score = balance ? error / baseline + accel / accelBaseline : error / baseline;
    if (score < bestScore) {
      bestScore = score;
      best = { sigma, cutoff: cutoffForSigma(sigma, rate), expectedGain: error / baseline };
    }
  }
  return best;
}

const BALANCE = true;

/** Joints whose rotation changes over the clip. */
function movingJoints(clip: Clip): number {
  const { data, frames, joints } = clip.rotations;
  let n = 0;
  for (let j = 0; j < joints; j++)
    for (let f = 1; f < frames; f++) {
      const a = (f * joints + j) * 4;
      const b = j * 4;
      if (
        data[a] !== data[b] ||
        data[a + 1] !== data[b + 1] ||
        data[a + 2] !== data[b + 2] ||
        data[a + 3] !== data[b + 3]
      ) {
        n++;
        break;
      }
    }
  return n;
}
/** Half-width, in bins, of the Daniell average of the periodogram that estimates the signal power. */
const DANIELL = 4;
