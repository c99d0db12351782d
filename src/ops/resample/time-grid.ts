/**
 * Exact output time grids for resampling: every output time and source position is computed from its
 * index in one step (`i / rate`, `i · sourceRate / targetRate`), never by accumulating a step, so a
 * 10-minute clip at 29.97 Hz lands its last frame where `index / rate` says, to the last bit.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import { fillPositions } from '../../numeric/rational.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';

/**
 * How many output frames to make and where the last one lands, for a source of N frames spanning
 * `T = (N − 1) / sourceRate` seconds:
 *
 * - `'floor'` (default): `M = ⌊T · targetRate⌋ + 1` frames at exactly `targetRate`; the last output
 *   time is on or before the source's last time (equal when `T · targetRate` is a whole number).
 * - `'keep-end'`: `M = round(T · targetRate) + 1` frames spread over exactly `[0, T]`; the rate becomes
 *   `(M − 1) / T` (equal to `targetRate` when `T · targetRate` is whole, otherwise the nearest rate
 *   that fits). The last output time equals the source's end time.
 * - `'ceil'`: `M = ⌈T · targetRate⌉ + 1` frames at exactly `targetRate`; the last output time is on or
 *   after the source's last time (evaluated with the boundary policy).
 * - `'loop'`: for looping clips (use with `boundary: 'wrap'`): the source is periodic with period
 *   `N / sourceRate` (frame N is frame 0 again, so do not repeat the first frame at the end);
 *   `M = max(1, round(N · targetRate / sourceRate))` frames, rate `M · sourceRate / N`, so the output
 *   loops with the same period and stays seamless.
 */
export type DurationPolicy = 'floor' | 'keep-end' | 'ceil' | 'loop';

/** Every {@link DurationPolicy}. */
export const DURATION_POLICIES: readonly DurationPolicy[] = ['floor', 'keep-end', 'ceil', 'loop'];

/** Options of {@link timeGrid}. */
export interface TimeGridOptions {
  /** Frame-count and end policy; see {@link DurationPolicy}. Default `'floor'`. */
  duration?: DurationPolicy;
}

/** Defaults of {@link TimeGridOptions}. */
export const TIME_GRID_DEFAULTS: Required<TimeGridOptions> = frozenDefaults({ duration: 'floor' });

const TIME_GRID_SPEC: OptionSpec = { duration: oneOf(DURATION_POLICIES) };

/** An output grid: times in seconds and the same instants as fractional source frame positions. */
export interface TimeGrid {
  /** Number of output frames. */
  frames: number;
  /** Output rate in Hz (equal to the requested rate except for `'keep-end'` and `'loop'` when the ratio does not fit). */
  rate: number;
  /** Output time of frame i in seconds, `i / rate` (`'keep-end'`: `i·(N−1) / ((M−1)·sourceRate)`). */
  times: Float64Array;
  /**
   * Source frame position of output frame i, `i · sourceRate / rate`, computed from i in one rounding
   * (as `i·p / q` when the rate ratio is a simple fraction p/q), so shared instants are exact integers.
   */
  positions: Float64Array;
}

/** Largest output frame count (a typed-array length limit, far beyond any clip). */
const MAX_FRAMES = 2 ** 26;

/** Relative tolerance under which `T · targetRate` counts as a whole number (absorbs decimal rates like 29.97). */
const WHOLE_TOLERANCE = 1e-9;

function snap(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - r) <= WHOLE_TOLERANCE * Math.max(1, Math.abs(x)) ? r : x;
}

function checkRate(rate: unknown, what: string, where: string): asserts rate is number {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) {
    throw new OptionError(`${where}: ${what} must be a positive finite number of Hz, got ${String(rate)}`);
  }
}

/**
 * Output time grid for resampling `sourceFrames` frames at `sourceRate` Hz to `targetRate` Hz.
 *
 * Output frame i is at `i / rate` seconds from the source's first frame, and at source position
 * `i · sourceRate / rate` frames, both computed from i directly, so there is no drift however long the
 * clip is. Where the two grids share an instant (60 → 120 Hz: every second output frame) the position
 * is the exact integer source index, which interpolating kernels then reproduce exactly.
 *
 * Edge cases: 0 source frames give 0 output frames; 1 source frame gives 1 output frame (`'loop'`: the
 * rounded count).
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025), up- and down-sampling as sampling a
 * continuous signal at new instants.
 *
 * @throws {OptionError} on a non-positive rate, a bad frame count or an unknown duration policy.
 * @example
 * const g = timeGrid(17982, 29.97, 60); // 10 minutes of NTSC video rate
 * g.times[g.frames - 1] === (g.frames - 1) / 60; // true
 */
export function timeGrid(
  sourceFrames: number,
  sourceRate: number,
  targetRate: number,
  options: TimeGridOptions = {},
): TimeGrid {
  const where = 'timeGrid';
  if (!Number.isSafeInteger(sourceFrames) || sourceFrames < 0) {
    throw new OptionError(`${where}: sourceFrames must be a non-negative integer, got ${sourceFrames}`);
  }
  checkRate(sourceRate, 'sourceRate', where);
  checkRate(targetRate, 'targetRate', where);
  options = resolveOptions(where, options, TIME_GRID_DEFAULTS, TIME_GRID_SPEC);
  const duration = options.duration ?? TIME_GRID_DEFAULTS.duration;
  if (!DURATION_POLICIES.includes(duration)) {
    throw new OptionError(
      `${where}: duration must be one of ${DURATION_POLICIES.join(', ')}, got '${String(duration)}'`,
    );
  }
  const n = sourceFrames;
  if (n === 0)
    return { frames: 0, rate: targetRate, times: new Float64Array(0), positions: new Float64Array(0) };

  if (duration === 'loop') {
    const x = snap((n * targetRate) / sourceRate);
    if (!(x < MAX_FRAMES)) {
      throw new OptionError(
        `${where}: ${n} frames at ${sourceRate} Hz would give ${Math.round(x)} frames at ${targetRate} Hz`,
      );
    }
    const m = Math.max(1, Math.round(x));
    const exact = Number.isInteger(x);
    const rate = exact ? targetRate : (m * sourceRate) / n;
    const times = new Float64Array(m);
    const positions = new Float64Array(m);
    if (exact) {
      for (let i = 0; i < m; i++) times[i] = i / rate;
      fillPositions(positions, sourceRate, rate);
    } else {
      for (let i = 0; i < m; i++) {
        positions[i] = (i * n) / m;
        times[i] = positions[i] / sourceRate;
      }
    }
    return { frames: m, rate, times, positions };
  }

  const span = snap(((n - 1) * targetRate) / sourceRate);
  if (!(span < MAX_FRAMES)) {
    throw new OptionError(
      `${where}: ${n} frames at ${sourceRate} Hz would give ${Math.ceil(span) + 1} frames at ${targetRate} Hz`,
    );
  }
  let m: number;
  if (duration === 'floor') m = Math.floor(span) + 1;
  else if (duration === 'ceil') m = Math.ceil(span) + 1;
  else m = Math.round(span) + 1;
  const times = new Float64Array(m);
  const positions = new Float64Array(m);
  if (duration === 'keep-end' && !Number.isInteger(span) && m > 1) {
    // rate adjusted so that M − 1 intervals span the source exactly; positions i·(N−1)/(M−1)
    const rate = ((m - 1) * sourceRate) / (n - 1);
    for (let i = 0; i < m; i++) {
      positions[i] = (i * (n - 1)) / (m - 1);
      times[i] = positions[i] / sourceRate;
    }
    return { frames: m, rate, times, positions };
  }
  for (let i = 0; i < m; i++) times[i] = i / targetRate;
  fillPositions(positions, sourceRate, targetRate);
  return { frames: m, rate: targetRate, times, positions };
}
