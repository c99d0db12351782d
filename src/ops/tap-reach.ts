/**
 * Bounds of the tap loops shared by the windowed operations: the support a kernel gets on a clip, and a
 * centre folded back near the clip, so every loop over taps is bounded by the data.
 *
 * @internal
 * @module
 */
import type { Boundary } from './rotation-window.js';

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
 * no longer advances): `'wrap'` and `'reflect'` reduce by their period (exact); `'clamp'` and
 * `'renormalize'` move a centre whose taps all lie beyond one end to just beyond it, keeping its
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
