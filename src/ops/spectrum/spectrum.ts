/**
 * Magnitude spectrum of scalar channels (Euler angles, quaternion components, positions), in dB.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
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
import { resolveOptions } from '../../options.js';

export { type DetrendPolicy, SPECTRUM_DEFAULTS, type SpectrumOptions } from '../../numeric/spectral.js';

/** Result of {@link spectrum}: one row per channel over the shared frequency bins. */
export interface SpectrumResult {
  /** Bin frequencies in Hz, `0 … rate/2` (`⌊length/2⌋ + 1` bins). */
  frequencies: Float64Array;
  /**
   * One-sided amplitude per channel and bin, window-gain corrected: a sinusoid of amplitude A whose
   * frequency sits on a bin reads A there.
   */
  amplitude: Float64Array[];
  /** `20·log10(amplitude / reference)` per channel and bin, floored at `floorDb`. */
  db: Float64Array[];
  /**
   * Mean-square power per channel and bin (`A²/2` for a sinusoid of amplitude A), the quantity whose
   * cumulative sum gives energy shares.
   */
  power: Float64Array[];
  /** Sample rate the frequencies refer to, Hz. */
  rate: number;
}

/**
 * Magnitude spectrum in dB of one or several uniformly sampled scalar channels.
 *
 * Each channel is detrended (mean removed by default), multiplied by a periodic Hann window (by
 * default), transformed with an FFT that handles any length, and scaled so that a sinusoid of
 * amplitude A on a bin reads A (`20·log10(A)` dB): `|X_k|·2/Σw` for 0 < k < N/2, `|X_k|/Σw` at DC and
 * Nyquist. Frequencies run from 0 to `rate / 2` Hz. For rotation data pass continuous channels
 * (unrolled Euler angles or hemisphere-continuous quaternion components), otherwise sign flips and
 * ±π wraps show up as broadband energy.
 *
 * Edge cases: a single channel may be passed directly (a typed array or number[]); all channels must
 * have the same length ≥ 1; values must be finite.
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025), section Frequency Analysis;
 * window gains after Harris (1978).
 *
 * @throws {ShapeError} on an empty input or channels of different lengths. @throws {OptionError} on a
 * bad option or rate. @throws {InvalidValueError} on non-finite samples.
 * @example
 * const x = Float64Array.from({ length: 120 }, (_, i) => Math.sin((2 * Math.PI * 10 * i) / 120));
 * const s = spectrum(x, 120);
 * // s.frequencies[10] === 10 and s.db[0][10] ≈ 0 dB (amplitude 1)
 */
export function spectrum(
  channels: ArrayLike<number> | readonly ArrayLike<number>[],
  rate: number,
  options?: SpectrumOptions,
): SpectrumResult {
  options = resolveOptions('spectrum', options, SPECTRUM_DEFAULTS, SPECTRUM_SPEC);
  if (channels === null || typeof channels !== 'object' || typeof channels.length !== 'number')
    throw new ShapeError('spectrum: channels must be an array of numbers or a list of such arrays');
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new OptionError(`spectrum: rate must be a positive finite number of Hz, got ${rate}`);
  const list: readonly ArrayLike<number>[] = isChannelList(channels)
    ? channels
    : [channels as ArrayLike<number>];
  if (list.length === 0) throw new ShapeError('spectrum: no channels');
  const n = list[0].length;
  if (n === 0) throw new ShapeError('spectrum: channels are empty');
  for (let c = 0; c < list.length; c++) {
    const ch = list[c];
    if (ch.length !== n)
      throw new ShapeError(`spectrum: channel ${c} has ${ch.length} samples, channel 0 has ${n}`);
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(ch[i])) {
        throw new InvalidValueError(`spectrum: channel ${c} has non-finite value ${ch[i]} at sample ${i}`, {
          index: i,
        });
      }
    }
  }
  const o = resolveSpectrumOptions(options, 'spectrum');
  const length = o.length ?? n;
  if (!Number.isSafeInteger(length) || length < n) {
    throw new OptionError(`spectrum: length must be an integer ≥ the channel length ${n}, got ${length}`);
  }
  const ws = createSpectrumWorkspace(n, length, o.window);
  const bins = (length >> 1) + 1;
  const amplitude: Float64Array[] = [];
  const db: Float64Array[] = [];
  const power: Float64Array[] = [];
  for (const ch of list) {
    const amp = new Float64Array(bins);
    amplitudeSpectrumInto(ws, ch, 0, 1, o.detrend, amp);
    const d = new Float64Array(bins);
    amplitudeToDb(amp, o.reference, o.floorDb, d);
    const p = new Float64Array(bins);
    amplitudeToPower(amp, length, p);
    for (let k = 0; k < bins; k++) {
      if (!(Number.isFinite(amp[k]) && Number.isFinite(d[k]) && Number.isFinite(p[k]))) {
        throw new InvalidValueError(
          `spectrum: channel ${amplitude.length} overflows at bin ${k} (values near the float64 limit)`,
          { index: amplitude.length },
        );
      }
    }
    amplitude.push(amp);
    db.push(d);
    power.push(p);
  }
  return { frequencies: rfftFrequencies(length, rate), amplitude, db, power, rate };
}

function isChannelList(channels: unknown): channels is readonly ArrayLike<number>[] {
  return (
    Array.isArray(channels) && channels.length > 0 && typeof channels[0] === 'object' && channels[0] !== null
  );
}
