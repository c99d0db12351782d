/**
 * Spectral-analysis windows, periodic ("DFT-even") form as `scipy.signal.get_window(name, n)`:
 * `w[k] = f(k / n)` for `k < n`, so the window tiles with period `n`.
 *
 * Source: F. J. Harris, "On the use of windows for harmonic analysis with the discrete Fourier
 * transform", Proc. IEEE 66(1), 1978.
 *
 * @module
 */
import { OptionError, ShapeError } from '../errors.js';

/** Names of the supported windows. `'rectangular'` (alias `'boxcar'`) applies no taper. */
export type WindowName = 'hann' | 'hamming' | 'blackman' | 'rectangular' | 'boxcar';

/** Every accepted {@link WindowName}. */
export const WINDOW_NAMES: readonly WindowName[] = ['hann', 'hamming', 'blackman', 'rectangular', 'boxcar'];

/**
 * Fills (or allocates) a periodic window of length `n`.
 *
 * - hann: `0.5 − 0.5·cos(2πk/n)`
 * - hamming: `0.54 − 0.46·cos(2πk/n)`
 * - blackman: `0.42 − 0.5·cos(2πk/n) + 0.08·cos(4πk/n)`
 * - rectangular / boxcar: `1`
 *
 * @throws {OptionError} on an unknown name. @throws {ShapeError} when `out` has another length.
 * @example
 * windowFunction('hann', 4); // [0, 0.5, 1, 0.5]
 */
export function windowFunction(name: WindowName, n: number, out?: Float64Array): Float64Array {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ShapeError(`windowFunction: n must be a non-negative integer, got ${n}`);
  const w = out ?? new Float64Array(n);
  if (w.length !== n) throw new ShapeError(`windowFunction: out has ${w.length} values, expected ${n}`);
  const step = n > 0 ? (2 * Math.PI) / n : 0;
  switch (name) {
    case 'hann':
      for (let k = 0; k < n; k++) w[k] = 0.5 - 0.5 * Math.cos(step * k);
      break;
    case 'hamming':
      for (let k = 0; k < n; k++) w[k] = 0.54 - 0.46 * Math.cos(step * k);
      break;
    case 'blackman':
      for (let k = 0; k < n; k++) w[k] = 0.42 - 0.5 * Math.cos(step * k) + 0.08 * Math.cos(2 * step * k);
      break;
    case 'rectangular':
    case 'boxcar':
      w.fill(1);
      break;
    default:
      throw new OptionError(
        `windowFunction: unknown window '${String(name)}', expected one of ${WINDOW_NAMES.join(', ')}`,
      );
  }
  // n = 1: scipy returns [1] for every window
  if (n === 1) w[0] = 1;
  return w;
}
