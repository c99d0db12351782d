import { OptionError } from '../../errors.js';
import {
  anyOf,
  BOOLEAN_OPTION,
  NON_NEGATIVE_NUMBER,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { findDiscontinuities } from '../analysis/find-discontinuities.js';
import { filterClip } from '../filter/filter-clip.js';
import { gaussian } from '../kernel/kernels.js';
import { oneEuroClip } from '../live/one-euro-clip.js';
import { checkClip } from '../skeleton/clip-check.js';
import { unrollClip } from '../unroll/unroll-clip.js';
import { ADAPTIVE_CAP, ADAPTIVE_MAX_SIGMA, adaptiveRotations, jointsAsRoots } from './adaptive-width.js';
import { CLEAN_CLIP_DEFAULTS, type CleanClipOptions } from './clean-options.js';
import { meanAcceleration } from './mean-acceleration.js';
import { sigmaForCutoff, smoothingFromSpectrum } from './smoothing-from-spectrum.js';
import { findSpikes, replaceSpikes } from './spikes.js';

export { CLEAN_CLIP_DEFAULTS, type CleanClipOptions } from './clean-options.js';

const CLEAN_CLIP_SPEC: OptionSpec = {
  cutoff: anyOf(oneOf(['auto']), POSITIVE_NUMBER),
  filter: oneOf(['gaussian', 'one-euro']),
  beta: NON_NEGATIVE_NUMBER,
  spikes: oneOf(['replace', 'keep']),
  spikeSpread: POSITIVE_NUMBER,
  perJoint: BOOLEAN_OPTION,
  channels: oneOf(['all', 'rotations']),
  unitsPerMeter: POSITIVE_NUMBER,
  widths: oneOf(['adaptive', 'fixed']),
};

/**
 * Fewest frames {@link cleanClip} estimates anything from: below it the clip has too few frames for the
 * spike statistics (5) and the spectrum that chooses the smoothing (8).
 */
export const CLEAN_MIN_FRAMES = 8;

/** A warning of {@link cleanClipWithReport}: `code` for programs, `message` for people. */
export interface CleanWarning {
  /**
   * `'too-short'`: fewer than {@link CLEAN_MIN_FRAMES} frames, too few to tell noise from motion; only the
   * sign flips were removed (no spikes replaced, no smoothing), the clip is otherwise returned as it was.
   */
  code: 'too-short';
  message: string;
}

/** What {@link cleanClipWithReport} did. */
export interface CleanReport {
  /** Quaternion sign flips found in the input (each removed; a 2π shell of axis-angle data is one too). */
  signFlips: number;
  /** Samples (frame, joint) replaced as spikes. */
  spikes: number;
  /** Clip-wide Gaussian sigma in frames (`'gaussian'`), 0 when no smoothing was applied. */
  sigma: number;
  /**
   * Per joint, the Gaussian sigma (frames) chosen from the spectrum or the cutoff, applied to its
   * translations, and to its rotations with `widths: 'fixed'` (0: not smoothed).
   */
  jointSigmas: Float64Array;
  /**
   * Per joint, the mean over the frames of the Gaussian sigma (frames) applied to its rotations: with
   * `widths: 'adaptive'` the mean of the widths chosen frame by frame, otherwise `jointSigmas` (0: not
   * smoothed).
   */
  rotationSigmas: Float64Array;
  /** Smoothing cutoff in Hz (−3 dB of the clip-wide Gaussian `sigma`, or the One Euro `minCutoff`). */
  cutoff: number;
  /** Whether the cutoff came from the spectrum (`'auto'`) or was given. */
  cutoffSource: 'spectrum' | 'given';
  /** Mean joint acceleration of the input and of the output, mm/frame² ({@link meanAcceleration}). */
  accelBefore: number;
  accelAfter: number;
  /** Quaternion sign flips left in the output (0: the output never flips). */
  outputFlips: number;
  /** What could not be done, and why (empty when the clip was cleaned in full). */
  warnings: CleanWarning[];
}

/**
 * Cleans jittery motion (pose-estimator output, noisy captures) in four steps, each a library operation:
 *
 * 1. sign flips (and 2π shells of axis-angle data, which are sign flips as quaternions) removed by
 *    {@link unrollClip};
 * 2. spikes found from the clip's own statistics and replaced from their neighbours ({@link findSpikes},
 *    {@link replaceSpikes});
 * 3. smoothing in log space ({@link filterClip} with `space: 'log'`, `segments: 'jumps'` so real cuts are
 *    not smeared) by a zero-phase Gaussian whose width is chosen from the clip's spectrum
 *    ({@link smoothingFromSpectrum}) or from a given cutoff; with the width from the spectrum, each joint's
 *    rotations then take a width chosen frame by frame (`widths: 'adaptive'`, {@link adaptiveRotations});
 *    or, with `filter: 'one-euro'`, the One Euro filter ({@link oneEuroClip}) for live use;
 * 4. the result made hemisphere-continuous again, so the output never flips.
 *
 * Smoothing in the log space (relative to each window's centre) is what makes it safe for global
 * orientation: a per-component filter of quaternions shrinks and bends rotations near a flip, and one on
 * axis-angle vectors averages across 2π shells. The spike step looks two frames ahead, so it is not causal
 * even with the One Euro filter (a live stream would delay its output by two frames).
 *
 * Returns the cleaned clip (a new clip on the same skeleton; the input is not modified) and a report: the
 * flips and spikes found, the smoothing chosen, and the mean joint acceleration ({@link meanAcceleration},
 * mm/frame²) before and after.
 *
 * Edge cases: a clip of fewer than {@link CLEAN_MIN_FRAMES} (8) frames is too short to tell noise from
 * motion (a bind pose, a clip cut to a few frames): only its sign flips are removed (whatever the options:
 * no spikes replaced, no smoothing, as a given cutoff on so few frames would smooth the noise into the
 * pose rather than out of it), and the report says so with a `'too-short'` warning. Joints that never
 * move are kept bit for bit.
 *
 * @throws {OptionError} on unknown or out-of-range options; {@link ShapeError} or
 *   {@link InvalidValueError} on a malformed clip or non-finite values (naming frame and joint).
 * @example
 * const { clip: clean, report } = cleanClipWithReport(parseBvh(text));
 * console.log(`${report.spikes} spikes, cutoff ${report.cutoff.toFixed(1)} Hz, Accel ${report.accelBefore} -> ${report.accelAfter}`);
 */
export function cleanClipWithReport(
  clip: Clip,
  options: CleanClipOptions = {},
): { clip: Clip; report: CleanReport } {
  const where = 'cleanClip';
  checkClip(clip, where, { finite: true });
  options = resolveOptions(where, options, CLEAN_CLIP_DEFAULTS, CLEAN_CLIP_SPEC);
  const o = { ...CLEAN_CLIP_DEFAULTS };
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  if (o.cutoff !== 'auto' && !(typeof o.cutoff === 'number' && o.cutoff > 0 && o.cutoff < Infinity))
    throw new OptionError(
      `${where}: cutoff must be 'auto' or a positive number of Hz, got ${String(o.cutoff)}`,
    );
  if (o.filter !== 'gaussian' && o.filter !== 'one-euro')
    throw new OptionError(`${where}: filter must be 'gaussian' or 'one-euro', got ${String(o.filter)}`);
  if (o.spikes !== 'replace' && o.spikes !== 'keep')
    throw new OptionError(`${where}: spikes must be 'replace' or 'keep', got ${String(o.spikes)}`);
  if (o.channels !== 'all' && o.channels !== 'rotations')
    throw new OptionError(`${where}: channels must be 'all' or 'rotations', got ${String(o.channels)}`);
  if (o.widths !== 'adaptive' && o.widths !== 'fixed')
    throw new OptionError(`${where}: widths must be 'adaptive' or 'fixed', got ${String(o.widths)}`);
  if (typeof o.perJoint !== 'boolean') throw new OptionError(`${where}: perJoint must be true or false`);
  if (!(o.beta >= 0 && o.beta < Infinity))
    throw new OptionError(`${where}: beta must be a finite number >= 0, got ${String(o.beta)}`);
  const accelOptions = { unitsPerMeter: o.unitsPerMeter };
  const accelBefore = meanAcceleration(clip, accelOptions);

  const signFlips = findDiscontinuities(clip.rotations, { rate: clip.rate }).filter(
    (d) => d.kind === 'sign-flip',
  ).length;
  const cutoffSource = o.cutoff === 'auto' ? 'spectrum' : 'given';
  let work = unrollClip(clip);
  if (clip.frames < CLEAN_MIN_FRAMES) {
    const report: CleanReport = {
      signFlips,
      spikes: 0,
      sigma: 0,
      jointSigmas: new Float64Array(work.rotations.joints),
      rotationSigmas: new Float64Array(work.rotations.joints),
      cutoff: clip.rate / 2,
      cutoffSource,
      accelBefore,
      accelAfter: meanAcceleration(work, accelOptions),
      outputFlips: 0,
      warnings: [
        {
          code: 'too-short',
          message: `${where}: ${clip.frames} frame${clip.frames === 1 ? '' : 's'}, fewer than the ${CLEAN_MIN_FRAMES} needed to tell noise from motion: only sign flips removed, no spikes replaced, not smoothed`,
        },
      ],
    };
    return { clip: work, report };
  }
  let spikes = 0;
  if (o.spikes === 'replace') {
    const found = findSpikes(work.rotations, { spread: o.spikeSpread });
    spikes = found.count;
    if (spikes > 0) replaceSpikes(work.rotations, found.mask);
  }

  let sigma = 0;
  let cutoff: number;
  let jointSigmas: Float64Array;
  let rotationSigmas: Float64Array = new Float64Array(clip.rotations.joints);
  if (o.cutoff === 'auto') {
    const choice = smoothingFromSpectrum(work, { perJoint: o.perJoint && o.filter === 'gaussian' });
    sigma = choice.sigma;
    cutoff = choice.cutoff;
    jointSigmas = choice.jointSigmas;
  } else {
    cutoff = o.cutoff;
    sigma = sigmaForCutoff(cutoff, clip.rate);
    jointSigmas = new Float64Array(work.rotations.joints).fill(sigma);
  }
  if (o.filter === 'one-euro') {
    work = oneEuroClip(work, { minCutoff: cutoff, beta: o.beta, channels: o.channels });
    sigma = 0;
    jointSigmas.fill(0);
  } else {
    const before = work;
    work = smoothJoints(work, jointSigmas, o.channels);
    if (o.widths === 'adaptive' && cutoffSource === 'spectrum') {
      const caps = jointSigmas.map((s) => (s <= ADAPTIVE_MAX_SIGMA ? ADAPTIVE_CAP * s : 0));
      const adaptive = adaptiveRotations(before, caps, work.rotations.data);
      work = { ...work, rotations: { ...work.rotations, data: adaptive.rotations } };
      rotationSigmas = adaptive.meanSigmas.map((s, j) => (caps[j] > 0 ? s : jointSigmas[j]));
    } else rotationSigmas = Float64Array.from(jointSigmas);
  }
  unrollClip(work, { target: 'in-place' });
  const outputFlips = findDiscontinuities(work.rotations, { rate: clip.rate }).filter(
    (d) => d.kind === 'sign-flip',
  ).length;
  const report: CleanReport = {
    signFlips,
    spikes,
    sigma,
    jointSigmas,
    rotationSigmas,
    cutoff,
    cutoffSource,
    accelBefore,
    accelAfter: meanAcceleration(work, accelOptions),
    outputFlips,
    warnings: [],
  };
  return { clip: work, report };
}

const SIGMA_BASE = 0.5;
const SIGMA_STEP = 1.25;

/**
 * Each joint filtered with its own Gaussian width: one `filterClip` pass per distinct width over the joints
 * of that width. Joints of width 0 are kept as they are. `chosen` is updated to the widths applied.
 */
function smoothJoints(clip: Clip, chosen: Float64Array, channels: 'all' | 'rotations'): Clip {
  // widths rounded to steps of 25%, so a clip takes a few passes of filterClip
  const sigmas = chosen.map((s) =>
    s > 0 ? SIGMA_BASE * SIGMA_STEP ** Math.round(Math.log(s / SIGMA_BASE) / Math.log(SIGMA_STEP)) : 0,
  );
  chosen.set(sigmas);
  const widths = [...new Set(sigmas)].filter((s) => s > 0);
  if (widths.length === 0) return clip;
  const { frames, joints } = clip.rotations;
  const rotations = Float64Array.from(clip.rotations.data);
  const translations = Float64Array.from(clip.translations.data);
  const scales = clip.scales === undefined ? undefined : Float64Array.from(clip.scales.data);
  for (const sigma of widths) {
    // the joints of this width as a clip of their own (each a root: filterClip filters every joint on its
    // own, so the hierarchy does not matter), so each joint is filtered once whatever the number of widths
    const picked: number[] = [];
    for (let j = 0; j < joints; j++) if (sigmas[j] === sigma) picked.push(j);
    const m = picked.length;
    const part = jointsAsRoots(clip, picked);
    const f = filterClip(part, gaussian(sigma), { space: 'log', channels, segments: 'jumps' });
    for (let t = 0; t < frames; t++)
      picked.forEach((j, i) => {
        const r = (t * joints + j) * 4;
        const pr = (t * m + i) * 4;
        for (let k = 0; k < 4; k++) rotations[r + k] = f.rotations.data[pr + k];
        const v = (t * joints + j) * 3;
        const pv = (t * m + i) * 3;
        for (let k = 0; k < 3; k++) translations[v + k] = f.translations.data[pv + k];
        if (scales !== undefined && f.scales !== undefined)
          for (let k = 0; k < 3; k++) scales[v + k] = f.scales.data[pv + k];
      });
  }
  return {
    ...clip,
    rotations: { data: rotations, frames, joints },
    translations: { data: translations, frames, joints },
    ...(scales === undefined ? {} : { scales: { data: scales, frames, joints } }),
  };
}

/**
 * {@link cleanClipWithReport} without the report: spikes replaced, flips removed, smoothed in log space
 * with the cutoff from the clip's spectrum (or given).
 *
 * @example
 * const clean = cleanClip(amassToClip(parseNpz(bytes)), { unitsPerMeter: 1 });
 */
export function cleanClip(clip: Clip, options: CleanClipOptions = {}): Clip {
  return cleanClipWithReport(clip, options).clip;
}
