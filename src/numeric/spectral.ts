/**
 * One-sided amplitude spectra of strided scalar channels with detrending, windows and FFT plans reused
 * across channels: the engine behind the `spectrum` and `clipSpectrum` operations.
 *
 * Source: window gain correction after Harris, "On the use of windows for harmonic analysis with the
 * discrete Fourier transform" (1978).
 *
 * @module
 */
import { OptionError } from '../errors.js';
import { frozenDefaults, integerIn, numberIn, type OptionSpec, oneOf, POSITIVE_NUMBER } from '../options.js';
import { createFftPlan, type FftPlan, fftInPlace } from './fft.js';
import { WINDOW_NAMES, type WindowName, windowFunction } from './window.js';

/** What to subtract from each channel before windowing. */
export type DetrendPolicy = 'none' | 'mean' | 'linear';

/** Options of the `spectrum` operation (and `clipSpectrum`). */
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
export const SPECTRUM_DEFAULTS: Required<Omit<SpectrumOptions, 'length'>> & { length: number | undefined } =
  frozenDefaults({
    window: 'hann',
    detrend: 'mean',
    length: undefined,
    reference: 1,
    floorDb: -300,
  });

/** The rules of {@link SpectrumOptions} for the option resolver. @internal */
export const SPECTRUM_SPEC: OptionSpec = {
  window: oneOf(WINDOW_NAMES),
  detrend: oneOf(['none', 'mean', 'linear']),
  length: integerIn(1),
  reference: POSITIVE_NUMBER,
  floorDb: numberIn(),
};

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
  if (typeof o.floorDb !== 'number' || Number.isNaN(o.floorDb))
    throw new OptionError(`${where}: floorDb must be a number`);
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

/** @internal mean-square power per bin from one-sided amplitudes */
export function amplitudeToPower(amplitude: Float64Array, length: number, out: Float64Array): void {
  const last = amplitude.length - 1;
  const evenLength = (length & 1) === 0;
  for (let k = 0; k <= last; k++) {
    const a = amplitude[k];
    out[k] = k === 0 || (evenLength && k === last) ? a * a : 0.5 * a * a;
  }
}
