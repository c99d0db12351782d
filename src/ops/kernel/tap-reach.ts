/**
 * Bounds of the tap loops shared by the windowed operations: the support a kernel gets on a clip, and a
 * centre folded back near the clip, so every loop over taps is bounded by the data.
 *
 * @internal
 * @module
 */
import { InvalidValueError } from '../../errors.js';
import type { FloatArray } from '../../series/types.js';
import type { Boundary } from './tap-window.js';

/**
 * The support a kernel gets on a signal of `frames` frames: its radius, but at most `4·frames + 64` frames
 * each side. A wider kernel cannot see more of the clip; the cap keeps the cost of one output sample
 * bounded by the data (`gaussian(1e7)` on 12 frames reads 112 taps each side, not 3·10⁷). Kernels up to
 * that width (every practical one) are used whole; beyond it their far tails, which under `'clamp'` would
 * only add weight to the end frames, are cut.
 */
export function usableRadius(radius: number, frames: number): number {
  return Math.min(radius, 4 * frames + 64);
}

/**
 * A centre equivalent to `centre` for taps within `radius` on `frames` frames, never further than about
 * `radius` outside the signal, so tap loops stay short and exact at any magnitude (at 1e20 frames `i++`
 * no longer advances): `'wrap'` and `'reflect'` reduce by their period (exact); `'clamp'`,
 * `'renormalize'` and `'linear'` move a centre whose taps all lie beyond one end to just beyond it, keeping its
 * fractional part (every tap then reads, or drops, the same end frame as before).
 */
export function foldCentre(centre: number, frames: number, radius: number, boundary: Boundary): number {
  const reach = Math.ceil(radius) + 1;
  if (centre >= -reach && centre <= frames - 1 + reach) return centre;
  if (boundary === 'wrap' && frames > 0) {
    const m = centre % frames;
    return m < 0 ? m + frames : m;
  }
  if (boundary === 'reflect' && frames > 1) {
    const period = 2 * (frames - 1);
    const m = centre % period;
    return m < 0 ? m + period : m;
  }
  const frac = centre - Math.floor(centre);
  return centre < 0 ? -reach - 1 + frac : frames - 1 + reach + frac;
}

/** `mapBoundaryFrame` without the checks, for the tap loops (their arguments are valid by construction). @internal */
export function mapFrame(i: number, frames: number, boundary: Boundary): number {
  if (i >= 0 && i < frames) return i;
  switch (boundary) {
    case 'clamp':
      return i < 0 ? 0 : frames - 1;
    case 'wrap': {
      const m = i % frames;
      return m < 0 ? m + frames : m;
    }
    case 'reflect': {
      if (frames === 1) return 0;
      const period = 2 * (frames - 1);
      let m = i % period;
      if (m < 0) m += period;
      return m >= frames ? period - m : m;
    }
    default:
      return -1;
  }
}

/**
 * Throws when finite input gave a non-finite result (overflow: values or weights near the float64 limit, a
 * tiny `dt`), naming the row and channel. O(rows · channels), no allocation.
 *
 * @internal
 */
export function assertFiniteRows(dst: FloatArray, rows: number, channels: number, what: string): void {
  const n = rows * channels;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(dst[i])) {
      const row = Math.floor(i / channels);
      throw new InvalidValueError(`${what} overflow to ${dst[i]} at row ${row}, channel ${i % channels}`, {
        frame: row,
        joint: Math.floor((i % channels) / 3),
      });
    }
  }
}
