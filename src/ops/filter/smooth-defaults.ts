// The smoothing step's shared defaults, apart from the pipeline so the command line can name them in
// its help without loading pipeline code.

/**
 * Unit of a kernel width: `'frames'` (steps of the clip's own rate, so the same number smooths a 24 Hz
 * clip five times longer in time than a 120 Hz one) or `'seconds'` (turned into frames at the rate of the
 * clip it runs on, so the same number gives the same physical smoothing at any rate).
 */
export type WidthUnit = 'frames' | 'seconds';

/**
 * Defaults of the smoothing step, one place for the command line (`smooth`, `process --smooth`,
 * `velocity`) and the studio: a gaussian of sigma 1/60 s (2 frames at 120 Hz capture, 0.4 frames at
 * 24 Hz), so the default moves a 24-30 Hz game clip as little as it moves a 120 Hz capture; unsharp
 * amount 1; `'linear'` ends (a local straight-line fit where the window is cut, so an end pose does not
 * lag a motion that moves through it, at any rate), the default of the filters too. A loop wraps instead.
 */
export const SMOOTH_DEFAULTS = Object.freeze({
  kernel: 'gaussian' as const,
  sigma: 1 / 60,
  unit: 'seconds' as const,
  amount: 1,
  boundary: 'linear' as const,
});
