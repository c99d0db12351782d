/**
 * Frequency content of a whole clip: the maximum magnitude spectrum over all joints and degrees of
 * freedom, the frequency below which a given share of the energy lies, and the sample rate that keeps it.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import { rfftFrequencies } from '../../numeric/fft.js';
import {
  amplitudeSpectrumInto,
  amplitudeToDb,
  amplitudeToPower,
  createSpectrumWorkspace,
  resolveSpectrumOptions,
  SPECTRUM_DEFAULTS,
  SPECTRUM_SPEC,
  type SpectrumOptions,
} from '../../numeric/spectral.js';
import {
  BOOLEAN_OPTION,
  frozenDefaults,
  numberIn,
  type OptionSpec,
  oneOf,
  resolveOptions,
} from '../../options.js';
import type { Clip } from '../../series/clip.js';
import { checkClip } from '../skeleton/clip-check.js';
import { eulerFromQuatSeries } from '../unroll/euler-from-quat-series.js';
import { unrollQuaternions } from '../unroll/unroll-quaternions.js';

/** Options of {@link clipSpectrum}: those of `spectrum` plus the channel choice and the energy share. */
export interface ClipSpectrumOptions extends SpectrumOptions {
  /** Share of the total energy (0 < share ≤ 1) whose upper frequency is reported. Default 0.99. */
  energyShare?: number;
  /**
   * Rotation channels: `'euler'` (default) the clip's Euler angles per joint in its own order, made
   * continuous (`eulerFromQuatSeries`, equivalent-triple unrolling), radians; `'quaternion'` the four
   * components after hemisphere continuity (`unrollQuaternions`).
   */
  channels?: 'euler' | 'quaternion';
  /** `'rotations'` (default) only rotation channels; `'all'` adds the three translation channels of every joint (clip units). */
  include?: 'rotations' | 'all';
  /**
   * Keep every channel's own spectrum (dB) in the result's `channelDb`, so a caller that shows one joint's
   * channels does not transform them again. Default false (only the maxima and the power are kept).
   */
  channelSpectra?: boolean;
}

/** Defaults of {@link ClipSpectrumOptions} (the spectrum options default as in `SPECTRUM_DEFAULTS`). */
export const CLIP_SPECTRUM_DEFAULTS = frozenDefaults({
  ...SPECTRUM_DEFAULTS,
  energyShare: 0.99,
  channels: 'euler' as 'euler' | 'quaternion',
  include: 'rotations' as 'rotations' | 'all',
  channelSpectra: false,
});

const CLIP_SPECTRUM_SPEC: OptionSpec = {
  ...SPECTRUM_SPEC,
  energyShare: numberIn(0, 1, true),
  channels: oneOf(['euler', 'quaternion']),
  include: oneOf(['rotations', 'all']),
  channelSpectra: BOOLEAN_OPTION,
};

/** Result of {@link clipSpectrum}. */
export interface ClipSpectrumResult {
  /** Bin frequencies in Hz, 0 … rate/2. */
  frequencies: Float64Array;
  /** Per bin, the maximum over all joints and channels of the amplitude in dB (re 1 rad, or 1 for quaternion components). */
  maxDb: Float64Array;
  /** Per joint, the maximum over its channels, dB. */
  jointMaxDb: Float64Array[];
  /** Per bin, the power summed over all channels (mean-square units). */
  power: Float64Array;
  /**
   * The smallest bin frequency below which (inclusive) `energyShare` of the summed power lies, Hz.
   * Resolution: one bin (`rate / length`) plus the window's leakage (Hann moves a bin-centred line's
   * 99% point one bin up; `window: 'rectangular'` does not, but leaks far for off-bin lines).
   */
  energyFrequency: number;
  /** The share used. */
  energyShare: number;
  /** `2 · energyFrequency` (Nyquist): the lowest sample rate that keeps that share without aliasing, Hz. */
  recommendedRate: number;
  /** The clip's rate, Hz. */
  rate: number;
  /** Number of scalar channels analysed. */
  channels: number;
  /**
   * With `channelSpectra: true`: per joint, each channel's amplitude in dB on `frequencies`, in the order
   * analysed (the rotation channels: Euler angles in the joint's own order, or the quaternion components
   * w x y z; then x y z translation with `include: 'all'`). Absent otherwise.
   */
  channelDb?: Float64Array[][];
}

/**
 * Clip-wide spectrum: every joint's rotation channels (continuous Euler curves by default, or unrolled
 * quaternion components), optionally the translation channels, each through the same windowed FFT as
 * `spectrum` (Hann and mean removal by default, any length). Reports the per-bin maximum over joints and
 * degrees of freedom in dB (the curve to read like a histogram of what frequencies the motion uses), the
 * frequency below which `energyShare` (default 99%) of the total power lies (summed over channels, DC
 * excluded by the detrend), and twice that frequency as the recommended sample rate.
 *
 * Channels must be continuous for the spectrum to mean anything: sign flips or ±π wraps would put
 * broadband energy everywhere; hence the unrolling.
 *
 * Edge cases: a clip of 0 frames is rejected; 1 frame gives a single DC bin (energy frequency 0).
 * A channel that never moves contributes nothing.
 *
 * With `channelSpectra: true` every channel's own dB spectrum is kept (`channelDb[joint][channel]`), the
 * same transform `spectrum` gives for that channel: a viewer showing one joint's channels beside the clip
 * maximum needs no second transform. It costs `bins` float64 per channel (about 12 bytes per joint-frame).
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025), section Frequency Analysis
 * (maximum frequency response across all joints and degrees of freedom).
 *
 * @throws {OptionError} on bad options or a clip without frames/rate. @throws {InvalidValueError} on
 * non-finite rotations.
 * @example
 * const s = clipSpectrum(parseBvh(text));
 * s.energyFrequency; // e.g. 6 Hz for a walk at 120 Hz, s.recommendedRate 12 Hz
 * const hips = clipSpectrum(parseBvh(text), { channelSpectra: true }).channelDb?.[0]; // 3 Euler channels, dB
 */
export function clipSpectrum(clip: Clip, options: ClipSpectrumOptions = {}): ClipSpectrumResult {
  const where = 'clipSpectrum';
  if (clip === null || typeof clip !== 'object' || !clip.rotations)
    throw new OptionError(`${where}: clip must be a Clip`);
  checkClip(clip, where);
  options = resolveOptions(where, options, CLIP_SPECTRUM_DEFAULTS, CLIP_SPECTRUM_SPEC);
  const o = resolveSpectrumOptions(options, where);
  const share = options.energyShare ?? CLIP_SPECTRUM_DEFAULTS.energyShare;
  if (!(share > 0 && share <= 1))
    throw new OptionError(`${where}: energyShare must be in (0, 1], got ${share}`);
  const kind = options.channels ?? CLIP_SPECTRUM_DEFAULTS.channels;
  if (kind !== 'euler' && kind !== 'quaternion') {
    throw new OptionError(`${where}: channels must be 'euler' or 'quaternion', got '${String(kind)}'`);
  }
  const include = options.include ?? CLIP_SPECTRUM_DEFAULTS.include;
  if (include !== 'rotations' && include !== 'all') {
    throw new OptionError(`${where}: include must be 'rotations' or 'all', got '${String(include)}'`);
  }
  const keep = options.channelSpectra ?? CLIP_SPECTRUM_DEFAULTS.channelSpectra;
  if (typeof keep !== 'boolean')
    throw new OptionError(`${where}: channelSpectra must be true or false, got '${String(keep)}'`);
  const rate = clip.rate > 0 && Number.isFinite(clip.rate) ? clip.rate : 1 / clip.frameTime;
  if (!(rate > 0) || !Number.isFinite(rate)) throw new OptionError(`${where}: the clip has no valid rate`);
  const { frames, joints } = clip.rotations;
  if (frames < 1) throw new OptionError(`${where}: the clip has no frames`);
  const length = o.length ?? frames;
  if (!Number.isSafeInteger(length) || length < frames) {
    throw new OptionError(`${where}: length must be an integer ≥ the frame count ${frames}, got ${length}`);
  }

  let rot: Float64Array;
  let width: number;
  if (kind === 'euler') {
    rot = eulerFromQuatSeries(clip.rotations, clip.orders, { unroll: 'equivalent' }).data;
    width = 3;
  } else {
    rot = unrollQuaternions<Float64Array>(clip.rotations, {
      out: { data: new Float64Array(clip.rotations.data.length), frames, joints },
    }).data;
    width = 4;
  }
  const ws = createSpectrumWorkspace(frames, length, o.window);
  const bins = (length >> 1) + 1;
  const amp = new Float64Array(bins);
  const pw = new Float64Array(bins);
  const scratchDb = new Float64Array(bins);
  const maxDb = new Float64Array(bins).fill(o.floorDb);
  const power = new Float64Array(bins);
  const jointMaxDb: Float64Array[] = [];
  const channelDb: Float64Array[][] | undefined = keep ? [] : undefined;
  let channels = 0;
  const take = (jointMax: Float64Array, src: Float64Array, offset: number, stride: number) => {
    amplitudeSpectrumInto(ws, src, offset, stride, o.detrend, amp);
    // kept channels get their own array (one per channel, not per element); else one scratch for all
    const db = channelDb ? new Float64Array(bins) : scratchDb;
    if (channelDb) channelDb[channelDb.length - 1].push(db);
    amplitudeToDb(amp, o.reference, o.floorDb, db);
    amplitudeToPower(amp, length, pw);
    for (let k = 0; k < bins; k++) {
      if (db[k] > jointMax[k]) jointMax[k] = db[k];
      if (db[k] > maxDb[k]) maxDb[k] = db[k];
      power[k] += pw[k];
    }
    channels++;
  };
  const trans = clip.translations;
  for (let j = 0; j < joints; j++) {
    const jointMax = new Float64Array(bins).fill(o.floorDb);
    channelDb?.push([]);
    for (let c = 0; c < width; c++) take(jointMax, rot, j * width + c, joints * width);
    if (include === 'all' && trans && trans.frames === frames && trans.joints === joints) {
      const t = trans.data instanceof Float64Array ? trans.data : Float64Array.from(trans.data);
      for (let c = 0; c < 3; c++) take(jointMax, t, j * 3 + c, joints * 3);
    }
    jointMaxDb.push(jointMax);
  }
  let total = 0;
  for (let k = 0; k < bins; k++) total += power[k];
  const frequencies = rfftFrequencies(length, rate);
  let energyFrequency = 0;
  if (total > 0) {
    let cum = 0;
    for (let k = 0; k < bins; k++) {
      cum += power[k];
      if (cum >= share * total * (1 - 1e-12)) {
        energyFrequency = frequencies[k];
        break;
      }
    }
  }
  return {
    frequencies,
    maxDb,
    jointMaxDb,
    power,
    energyFrequency,
    energyShare: share,
    recommendedRate: 2 * energyFrequency,
    rate,
    channels,
    ...(channelDb ? { channelDb } : {}),
  };
}
