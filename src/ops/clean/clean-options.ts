// The options of cleanClip and their defaults, apart from the cleaning code so that the command line can
// name them in its help without loading it.
import { frozenDefaults } from '../../options.js';

/** Options of `cleanClip`. */
export interface CleanClipOptions {
  /**
   * Smoothing cutoff in Hz (the −3 dB frequency), or `'auto'` (default): chosen from the clip's spectrum by
   * `smoothingFromSpectrum`.
   */
  cutoff?: number | 'auto';
  /**
   * `'gaussian'` (default): zero-phase Gaussian in log space over the whole clip (files). `'one-euro'`: the
   * One Euro filter run forward as a live stream would be (`oneEuroClip`), with the cutoff as its
   * `minCutoff`; for live use, where the future frames are not there.
   */
  filter?: 'gaussian' | 'one-euro';
  /** One Euro filter only: cutoff rise per rad/s of speed (see `createOneEuroFilter`). Default 0.5. */
  beta?: number;
  /** `'replace'` (default): spikes found by `findSpikes` are replaced from their neighbours; `'keep'`. */
  spikes?: 'replace' | 'keep';
  /** Spike threshold in robust standard deviations of the joint's residuals (see `findSpikes`). Default 6. */
  spikeSpread?: number;
  /**
   * With `cutoff: 'auto'`: every joint smoothed with the width chosen from its own spectrum (default true),
   * or all with the clip-wide width (false).
   */
  perJoint?: boolean;
  /**
   * With `cutoff: 'auto'` and the Gaussian: `'adaptive'` (default) smooths each joint's rotations with a
   * width chosen frame by frame (`adaptiveRotations`: wide where the joint moves slowly, narrow
   * through its fast bursts, at most twice the joint's width from the spectrum; joints whose width is above
   * 8 frames, slow or still, keep it); `'fixed'` smooths every
   * frame of a joint with its width from the spectrum. Translations always take the joint's fixed width.
   */
  widths?: 'adaptive' | 'fixed';
  /** `'all'` (default) smooths rotations and translations; `'rotations'` leaves translations as they are. */
  channels?: 'all' | 'rotations';
  /** Clip units per metre for the Accel figures of the report (100 for centimetres, 1 for metres). Default 100. */
  unitsPerMeter?: number;
}

/** Defaults of {@link CleanClipOptions}. */
export const CLEAN_CLIP_DEFAULTS: Required<CleanClipOptions> = frozenDefaults({
  cutoff: 'auto',
  filter: 'gaussian',
  beta: 0.5,
  spikes: 'replace',
  spikeSpread: 6,
  perJoint: true,
  widths: 'adaptive',
  channels: 'all',
  unitsPerMeter: 100,
});
