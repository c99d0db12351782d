/**
 * Discrete Fourier transform of any length: iterative radix-2 for powers of two, Bluestein's chirp-z
 * algorithm (a radix-2 convolution of twice the length or more) for every other length, plus a helper
 * for real input. Dependency-free; O(n log n) for every n.
 *
 * Convention (the same as numpy.fft): forward `X[k] = Σₙ x[n] · exp(-2πi·k·n/N)`, inverse
 * `x[n] = (1/N) Σₖ X[k] · exp(+2πi·k·n/N)`. Data are split into real and imaginary Float64Arrays and
 * transformed in place.
 *
 * Sources: Cooley & Tukey (1965) for radix 2; L. Bluestein, "A linear filtering approach to the
 * computation of the discrete Fourier transform" (1970) for arbitrary lengths.
 *
 * @module
 */
import { OptionError, ShapeError } from '../errors.js';

/** Precomputed tables for transforms of one length; build once with {@link createFftPlan}, reuse freely. */
export interface FftPlan {
  /** Transform length. */
  readonly n: number;
  /** `'radix2'` when `n` is a power of two (or 0/1), `'bluestein'` otherwise. */
  readonly method: 'radix2' | 'bluestein';
  /** @internal */
  readonly radix: Radix2Tables | null;
  /** @internal */
  readonly chirp: BluesteinTables | null;
}

interface Radix2Tables {
  n: number;
  cos: Float64Array;
  sin: Float64Array;
  rev: Uint32Array;
}

interface BluesteinTables {
  m: number;
  inner: Radix2Tables;
  /** exp(-πi k²/n), k < n */
  wRe: Float64Array;
  wIm: Float64Array;
  /** FFT of the conjugate chirp filter, length m */
  bRe: Float64Array;
  bIm: Float64Array;
  /** scratch of length m */
  aRe: Float64Array;
  aIm: Float64Array;
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

function radix2Tables(n: number): Radix2Tables {
  const half = n >> 1;
  const cos = new Float64Array(half);
  const sin = new Float64Array(half);
  for (let k = 0; k < half; k++) {
    // exact values at the quarter points keep symmetric inputs symmetric
    const a = (2 * Math.PI * k) / n;
    cos[k] = Math.cos(a);
    sin[k] = Math.sin(a);
  }
  const rev = new Uint32Array(n);
  let bits = 0;
  while (1 << bits < n) bits++;
  for (let i = 0; i < n; i++) {
    let r = 0;
    for (let b = 0, v = i; b < bits; b++, v >>= 1) r = (r << 1) | (v & 1);
    rev[i] = r;
  }
  return { n, cos, sin, rev };
}

/** In-place radix-2 transform; `sign` -1 forward, +1 inverse (unscaled). */
function radix2(t: Radix2Tables, re: Float64Array, im: Float64Array, sign: number): void {
  const n = t.n;
  const rev = t.rev;
  for (let i = 0; i < n; i++) {
    const j = rev[i];
    if (j > i) {
      const tr = re[i];
      re[i] = re[j];
      re[j] = tr;
      const ti = im[i];
      im[i] = im[j];
      im[j] = ti;
    }
  }
  const cos = t.cos;
  const sin = t.sin;
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0, tw = 0; k < half; k++, tw += step) {
        const wr = cos[tw];
        const wi = sign * sin[tw];
        const a = start + k;
        const b = a + half;
        const xr = re[b] * wr - im[b] * wi;
        const xi = re[b] * wi + im[b] * wr;
        re[b] = re[a] - xr;
        im[b] = im[a] - xi;
        re[a] += xr;
        im[a] += xi;
      }
    }
  }
}

/**
 * Builds the tables for transforms of length `n` (any non-negative integer).
 *
 * @throws {ShapeError} when `n` is not a non-negative safe integer.
 * @example
 * const plan = createFftPlan(100); // Bluestein, internally radix 2 of length 256
 */
export function createFftPlan(n: number): FftPlan {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ShapeError(`createFftPlan: n must be a non-negative integer, got ${n}`);
  if (n <= 1 || isPowerOfTwo(n)) {
    return { n, method: 'radix2', radix: n <= 1 ? null : radix2Tables(n), chirp: null };
  }
  let m = 1;
  while (m < 2 * n - 1) m <<= 1;
  const inner = radix2Tables(m);
  const wRe = new Float64Array(n);
  const wIm = new Float64Array(n);
  // k² mod 2n keeps the angle argument small, so the chirp stays accurate for large n
  const twoN = 2 * n;
  for (let k = 0; k < n; k++) {
    const k2 = (k * k) % twoN;
    const a = (Math.PI * k2) / n;
    wRe[k] = Math.cos(a);
    wIm[k] = -Math.sin(a);
  }
  const bRe = new Float64Array(m);
  const bIm = new Float64Array(m);
  bRe[0] = wRe[0];
  bIm[0] = -wIm[0];
  for (let k = 1; k < n; k++) {
    bRe[k] = bRe[m - k] = wRe[k];
    bIm[k] = bIm[m - k] = -wIm[k];
  }
  radix2(inner, bRe, bIm, -1);
  return {
    n,
    method: 'bluestein',
    radix: null,
    chirp: { m, inner, wRe, wIm, bRe, bIm, aRe: new Float64Array(m), aIm: new Float64Array(m) },
  };
}

function checkPair(plan: FftPlan, re: Float64Array, im: Float64Array, where: string): void {
  if (!(re instanceof Float64Array) || !(im instanceof Float64Array)) {
    throw new ShapeError(`${where}: re and im must be Float64Arrays`);
  }
  if (re.length !== plan.n || im.length !== plan.n) {
    throw new ShapeError(
      `${where}: plan length ${plan.n} but re has ${re.length} and im has ${im.length} values`,
    );
  }
}

function transform(plan: FftPlan, re: Float64Array, im: Float64Array, sign: number): void {
  if (plan.radix) {
    radix2(plan.radix, re, im, sign);
    return;
  }
  const c = plan.chirp;
  if (!c) return; // n <= 1: the transform is the identity
  const n = plan.n;
  const { m, wRe, wIm, bRe, bIm, aRe, aIm } = c;
  // the inverse uses the conjugate chirp; conj(x) trick: DFT⁺(x) = conj(DFT⁻(conj x))
  for (let k = 0; k < n; k++) {
    const xr = re[k];
    const xi = sign < 0 ? im[k] : -im[k];
    aRe[k] = xr * wRe[k] - xi * wIm[k];
    aIm[k] = xr * wIm[k] + xi * wRe[k];
  }
  aRe.fill(0, n);
  aIm.fill(0, n);
  radix2(c.inner, aRe, aIm, -1);
  for (let k = 0; k < m; k++) {
    const ar = aRe[k];
    const ai = aIm[k];
    aRe[k] = ar * bRe[k] - ai * bIm[k];
    aIm[k] = ar * bIm[k] + ai * bRe[k];
  }
  radix2(c.inner, aRe, aIm, 1);
  const scale = 1 / m;
  for (let k = 0; k < n; k++) {
    const ar = aRe[k] * scale;
    const ai = aIm[k] * scale;
    const yr = ar * wRe[k] - ai * wIm[k];
    const yi = ar * wIm[k] + ai * wRe[k];
    re[k] = yr;
    im[k] = sign < 0 ? yi : -yi;
  }
}

/**
 * Forward DFT in place: `X[k] = Σₙ x[n] · exp(-2πi·k·n/N)`, unscaled, like `numpy.fft.fft`.
 * Not re-entrant for Bluestein plans (they hold scratch); use one plan per concurrent caller.
 *
 * @throws {ShapeError} when the arrays do not match the plan length.
 * @example
 * const re = Float64Array.of(1, 2, 3), im = new Float64Array(3);
 * fftInPlace(createFftPlan(3), re, im); // re[0] === 6
 */
export function fftInPlace(plan: FftPlan, re: Float64Array, im: Float64Array): void {
  checkPair(plan, re, im, 'fftInPlace');
  transform(plan, re, im, -1);
}

/**
 * Inverse DFT in place, scaled by `1/N` like `numpy.fft.ifft`, so `ifft(fft(x)) = x`.
 *
 * @throws {ShapeError} when the arrays do not match the plan length.
 * @example
 * const re = Float64Array.of(1, 2, 3, 4, 5);
 * const im = new Float64Array(5);
 * const plan = createFftPlan(5);
 * fftInPlace(plan, re, im);
 * ifftInPlace(plan, re, im); // re, im back to the input
 */
export function ifftInPlace(plan: FftPlan, re: Float64Array, im: Float64Array): void {
  checkPair(plan, re, im, 'ifftInPlace');
  transform(plan, re, im, 1);
  const n = plan.n;
  if (n > 1) {
    const s = 1 / n;
    for (let k = 0; k < n; k++) {
      re[k] *= s;
      im[k] *= s;
    }
  }
}

/** A complex spectrum split into parts. */
export interface ComplexArray {
  re: Float64Array;
  im: Float64Array;
}

/**
 * Allocating forward DFT of a complex (or, without `im`, real) sequence of any length.
 *
 * @example
 * const { re, im } = fft([1, 0, 0, 0, 0]); // all ones
 */
export function fft(re: ArrayLike<number>, im?: ArrayLike<number>): ComplexArray {
  const n = re.length;
  if (im && im.length !== n) throw new ShapeError(`fft: re has ${n} values, im has ${im.length}`);
  const r = Float64Array.from(re);
  const i = im ? Float64Array.from(im) : new Float64Array(n);
  transform(createFftPlan(n), r, i, -1);
  return { re: r, im: i };
}

/**
 * Allocating inverse DFT (scaled by `1/N`).
 *
 * @example
 * const x = ifft([1, 1, 1], [0, 0, 0]); // x.re = [1, 0, 0]
 */
export function ifft(re: ArrayLike<number>, im: ArrayLike<number>): ComplexArray {
  const n = re.length;
  if (im.length !== n) throw new ShapeError(`ifft: re has ${n} values, im has ${im.length}`);
  const r = Float64Array.from(re);
  const i = Float64Array.from(im);
  ifftInPlace(createFftPlan(n), r, i);
  return { re: r, im: i };
}

/**
 * DFT of a real sequence, returning the non-negative frequencies only: bins `0 … ⌊N/2⌋`, like
 * `numpy.fft.rfft`. Pass a `plan` of length N (and reuse it) when transforming many channels.
 *
 * @throws {ShapeError} when `plan` has another length. @throws {OptionError} on an empty input.
 * @example
 * const { re } = rfft([1, 1, 1, 1]); // re = [4, 0, 0]
 */
export function rfft(input: ArrayLike<number>, plan?: FftPlan): ComplexArray {
  const n = input.length;
  if (n === 0) throw new OptionError('rfft: input is empty');
  const p = plan ?? createFftPlan(n);
  if (p.n !== n) throw new ShapeError(`rfft: plan length ${p.n} but input has ${n} values`);
  const re = Float64Array.from(input);
  const im = new Float64Array(n);
  transform(p, re, im, -1);
  const bins = (n >> 1) + 1;
  return { re: re.slice(0, bins), im: im.slice(0, bins) };
}

/**
 * Frequencies in Hz of the `⌊N/2⌋ + 1` bins of {@link rfft} for N samples at `rate` Hz (`numpy.fft.rfftfreq`).
 *
 * @example
 * rfftFrequencies(4, 120); // [0, 30, 60]
 */
export function rfftFrequencies(n: number, rate: number): Float64Array {
  const bins = (n >> 1) + 1;
  const f = new Float64Array(bins);
  // rate / n first: k · rate overflows for rates near the float64 limit
  for (let k = 0; k < bins; k++) f[k] = k * (rate / n);
  return f;
}
