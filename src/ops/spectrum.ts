/**
 * Magnitude spectrum of scalar channels (Euler angles, quaternion components, positions), in dB.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../errors.js';
import { createFftPlan, type FftPlan, fftInPlace, rfftFrequencies } from '../numeric/fft.js';
import { WINDOW_NAMES, type WindowName, windowFunction } from '../numeric/window.js';

/** What to subtract from each channel before windowing. */
export type DetrendPolicy = 'none' | 'mean' | 'linear';

/** Options of {@link spectrum}. */
export interface SpectrumOptions {
  /** Taper applied before the transform (periodic form, as `scipy.signal.get_window`). Default `'hann'`. */
  window?: WindowName;
  /** `'mean'` removes the constant part (default), `'linear'` the least-squares line, `'none'` nothing. */
  detrend?: DetrendPolicy;
  /** Transform length; longer than the channel zero-pads (finer bins). Default: the channel length. */
  length?: number;
  /** Amplitude that reads 0 dB. Default 1 (radians for angle channels). */
  reference?: number;
  /** Lowest dB value reported; an exactly zero bin reads this instead of -Infinity. Default -300. */
  floorDb?: number;
}

/** Defaults of {@link SpectrumOptions}. */
export const SPECTRUM_DEFAULTS: Required<Omit<SpectrumOptions, 'length'>> & { length: number | undefined } = {
  window: 'hann',
  detrend: 'mean',
  length: undefined,
  reference: 1,
  floorDb: -300,
};

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
 * Reusable state for {@link amplitudeSpectrumInto}: the FFT plan, window and scratch of one length.
 * @internal
 */
export interface SpectrumWorkspace {
  n: number;
  length: number;
  plan: FftPlan;
  window: Float64Array;
  windowSum: number;
  re: Float64Array;
  im: Float64Array;
}

/** @internal */
export function createSpectrumWorkspace(n: number, length: number, window: WindowName): SpectrumWorkspace {
  const w = windowFunction(window, n);
  let windowSum = 0;
  for (let i = 0; i < n; i++) windowSum += w[i];
  return {
    n,
    length,
    plan: createFftPlan(length),
    window: w,
    windowSum,
    re: new Float64Array(length),
    im: new Float64Array(length),
  };
}

/**
 * Amplitude spectrum of the `n` values `src[offset + i·stride]` into `amplitude` (⌊length/2⌋ + 1 bins).
 * No allocation. @internal
 */
export function amplitudeSpectrumInto(
  ws: SpectrumWorkspace,
  src: ArrayLike<number>,
  offset: number,
  stride: number,
  detrend: DetrendPolicy,
  amplitude: Float64Array,
): void {
  const { n, length, re, im, window } = ws;
  let a = 0;
  let b = 0;
  if (detrend !== 'none' && n > 0) {
    let sy = 0;
    for (let i = 0; i < n; i++) sy += src[offset + i * stride];
    a = sy / n;
    if (detrend === 'linear' && n > 1) {
      // y ≈ a + b·(i − c), c the mean index, so the slope and the mean decouple
      const c = (n - 1) / 2;
      let sxy = 0;
      let sxx = 0;
      for (let i = 0; i < n; i++) {
        const x = i - c;
        sxy += x * src[offset + i * stride];
        sxx += x * x;
      }
      b = sxy / sxx;
    }
  }
  const c = (n - 1) / 2;
  for (let i = 0; i < n; i++) re[i] = (src[offset + i * stride] - a - b * (i - c)) * window[i];
  re.fill(0, n);
  im.fill(0);
  fftInPlace(ws.plan, re, im);
  const bins = (length >> 1) + 1;
  const scale = ws.windowSum !== 0 ? 1 / ws.windowSum : 0;
  for (let k = 0; k < bins; k++) {
    const m = Math.hypot(re[k], im[k]) * scale;
    const nyquist = (length & 1) === 0 && k === length >> 1;
    amplitude[k] = k === 0 || nyquist ? m : 2 * m;
  }
}

/** @internal shared by spectrum and clipSpectrum */
export function resolveSpectrumOptions(options: SpectrumOptions | undefined, where: string) {
  const o = { ...SPECTRUM_DEFAULTS, ...stripUndefined(options ?? {}) };
  if (!WINDOW_NAMES.includes(o.window)) {
    throw new OptionError(
      `${where}: window must be one of ${WINDOW_NAMES.join(', ')}, got '${String(o.window)}'`,
    );
  }
  if (o.detrend !== 'none' && o.detrend !== 'mean' && o.detrend !== 'linear') {
    throw new OptionError(`${where}: detrend must be 'none', 'mean' or 'linear', got '${String(o.detrend)}'`);
  }
  if (!(o.reference > 0) || !Number.isFinite(o.reference)) {
    throw new OptionError(`${where}: reference must be a positive finite amplitude, got ${o.reference}`);
  }
  if (Number.isNaN(o.floorDb)) throw new OptionError(`${where}: floorDb must be a number`);
  return o;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const r: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (r as Record<string, unknown>)[k] = v;
  return r;
}

/** @internal */
export function amplitudeToDb(
  amplitude: Float64Array,
  reference: number,
  floorDb: number,
  out: Float64Array,
): void {
  for (let k = 0; k < amplitude.length; k++) {
    const d = 20 * Math.log10(amplitude[k] / reference);
    out[k] = Math.max(d, floorDb);
  }
}

function isChannelList(channels: unknown): channels is readonly ArrayLike<number>[] {
  return (
    Array.isArray(channels) && channels.length > 0 && typeof channels[0] === 'object' && channels[0] !== null
  );
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
    amplitude.push(amp);
    db.push(d);
    power.push(p);
  }
  return { frequencies: rfftFrequencies(length, rate), amplitude, db, power, rate };
}

/** @internal mean-square power per bin from one-sided amplitudes */
export function amplitudeToPower(amplitude: Float64Array, length: number, out: Float64Array): void {
  const last = amplitude.length - 1;
  const evenLength = (length & 1) === 0;
  for (let k = 0; k <= last; k++) {
    const a = amplitude[k];
    out[k] = k === 0 || (evenLength && k === last) ? a * a : 0.5 * a * a;
  }
}
