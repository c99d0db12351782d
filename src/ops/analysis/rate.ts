/**
 * What rate a clip is at: one answer for uniform clips (the rate a written frame time stands for) and for
 * keyed clips (the grid their key times are meant to lie on, with the measured spread).
 *
 * @module
 */
import { InvalidValueError, OptionError } from '../../errors.js';
import type { Clip, KeyedClip } from '../../series/clip.js';

/** A frame rate as written and the simple rational it most likely stands for. */
export interface RateGuess {
  /** Seconds per frame as parsed. */
  frameTime: number;
  /** The frame time exactly as written in the file, when known. */
  frameTimeText?: string;
  /** `1 / frameTime`, Hz. */
  hz: number;
  /** The guessed rate as `numerator / denominator` Hz (`60/1`, `30000/1001`), or null if none fits. */
  numerator: number | null;
  denominator: number | null;
  /** The guessed rate in Hz (`numerator / denominator`), or null. */
  guessHz: number | null;
  /** How far the written frame time may be from the true one because of its printed digits, seconds. */
  tolerance: number;
}

/**
 * Guesses the frame rate a written frame time stands for: the simplest rational `p/q` Hz (whole numbers
 * first, then NTSC rates `n·1000/1001`, then halves, thirds, … up to twelfths) whose frame time `q/p` lies
 * within the rounding of the printed digits (one that equals the written value exactly wins) (±½ unit in the last written decimal; relative 1e-6 without
 * text). `0.016667` gives 60 (59.9988 Hz as written), `.0083333` gives 120, `0.0333667` gives 30000/1001.
 *
 * @example
 * guessRate(0.016667, '0.016667'); // { hz: 59.9988…, numerator: 60, denominator: 1, guessHz: 60, … }
 */
export function guessRate(frameTime: number, frameTimeText?: string): RateGuess {
  if (
    typeof frameTime !== 'number' ||
    !(frameTime > 0) ||
    !Number.isFinite(frameTime) ||
    !Number.isFinite(1 / frameTime)
  )
    throw new OptionError(
      `guessRate: frame time must be a positive finite number of seconds with a finite rate, got ${String(frameTime)}`,
    );
  if (frameTimeText !== undefined && typeof frameTimeText !== 'string')
    throw new OptionError(`guessRate: frameTimeText must be a string, got ${typeof frameTimeText}`);
  const hz = 1 / frameTime;
  let tolerance = frameTime * 1e-6;
  const m = frameTimeText?.trim().match(/^[+]?\d*\.(\d+)$/);
  if (m) tolerance = Math.max(tolerance, 0.5 * 10 ** -m[1].length);
  const fits = (p: number, q: number) => p > 0 && Math.abs(q / p - frameTime) <= tolerance * (1 + 1e-9);
  const found = (p: number, q: number): RateGuess => ({
    frameTime,
    ...(frameTimeText !== undefined ? { frameTimeText } : {}),
    hz,
    numerator: p,
    denominator: q,
    guessHz: p / q,
    tolerance,
  });
  const candidates: [number, number][] = [[Math.round(hz), 1]];
  const n = Math.round((hz * 1001) / 1000);
  candidates.push([n * 1000, 1001]);
  for (let q = 2; q <= 12; q++) candidates.push([Math.round(hz * q), q]);
  const usable = candidates.filter(([p, q]) => fits(p, q) && (q === 1 || q === 1001 || gcd(p, q) === 1));
  // With few printed digits several rates fit ('0.08' is 12.5 Hz or 13 Hz); one that the digits state
  // exactly wins, otherwise the simplest that fits.
  const exact = usable.find(([p, q]) => Math.abs(q / p - frameTime) <= frameTime * 1e-12);
  const pick = exact ?? usable[0];
  if (pick) return found(pick[0], pick[1]);
  return {
    frameTime,
    ...(frameTimeText !== undefined ? { frameTimeText } : {}),
    hz,
    numerator: null,
    denominator: null,
    guessHz: null,
    tolerance,
  };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Largest relative difference between a written frame time and the period of the standard rate it is
 * read as: `.0083333` (4e-5 from 1/120) and `0.033333` (1e-5 from 1/30) are 120 and 30 Hz, while `0.033`
 * (1 % from 1/30, and exactly 1/30.303) stays as written.
 */
export const STANDARD_RATE_TOLERANCE = 1e-4;

/**
 * The standard rate a written frame time stands for, or null when it stands for none: {@link guessRate}'s
 * rational rate (whole numbers, NTSC `n·1000/1001`, then simple fractions) when its period is within the
 * printed digits' rounding and within {@link STANDARD_RATE_TOLERANCE} (relative) of the written frame time.
 * A frame time that already is the period of its rate (`0.04`, 25 Hz) gives that rate.
 *
 * @example
 * standardRate(0.0083333, '.0083333'); // 120
 * standardRate(0.033, '0.033'); // null: 30.303 Hz as written, too far from 30 to be 30
 */
export function standardRate(frameTime: number, frameTimeText?: string): number | null {
  const g = guessRate(frameTime, frameTimeText);
  if (g.guessHz === null) return null;
  return Math.abs(1 / g.guessHz - frameTime) <= STANDARD_RATE_TOLERANCE * frameTime ? g.guessHz : null;
}

/** What {@link clipRate} found. */
export interface ClipRate {
  /** The rate, Hz: exact where the data means a standard rate (120, 30, 37.5, 30000/1001). */
  rate: number;
  /**
   * Where it comes from: `'frame-time'` (a uniform clip's own `1 / frameTime`), `'frame-time-text'` (the
   * standard rate its written frame time stands for), `'key-times'` (the grid the keys lie on), `'none'`
   * (a keyed clip without two keys in any track: 30 Hz, which no key contradicts).
   */
  from: 'frame-time' | 'frame-time-text' | 'key-times' | 'none';
  /** Whether every key lies on one grid at `rate` (within a twentieth of a frame); a uniform clip: true. */
  uniform: boolean;
  /** The rate before it was read as a standard one: `1 / frameTime`, or key intervals over span. */
  measured: number;
  /** Largest distance of a key time from the grid at `rate` started at the first key, seconds (0 for a uniform clip). */
  spread: number;
  /** Smallest and largest interval between consecutive keys of a track, seconds (a uniform clip: its frame time). */
  minInterval: number;
  maxInterval: number;
}

/** A key time further than this share of a frame from the grid makes the keys non-uniform. */
const ON_GRID = 0.05;

/**
 * The rate of a clip: the one answer the readers, the resampler, the bake and `info` use.
 *
 * - Uniform clip: the standard rate its written frame time stands for ({@link standardRate}; the BVH
 *   reader already sets it), else `clip.rate`.
 * - Keyed clip: from the key times of every track with two or more keys. The finest track's mean interval
 *   (span over intervals) gives the measured rate; it is read as a standard rate when that rate's period is
 *   within the measurement's uncertainty (the key times' spread about their line and float32 rounding, over
 *   the number of intervals), so a COLLADA2GLTF 37.5 Hz grid accumulated in float32 (intervals 0.02663 to
 *   0.02673 s) is 37.5 Hz. `uniform` when every key of every track is within a twentieth of a frame of the
 *   grid from the first key; `spread` is the largest distance. Keys that are not uniform: the rate of the
 *   finest track's median interval, `uniform: false` (the keys keep their own times wherever an
 *   operation allows). A track counts only when its grid over the whole clip makes no more frames than
 *   the clip has keys, or when it spans the clip, so one tiny track cannot set a rate that would bake a
 *   long clip into millions of frames.
 *
 * @throws {OptionError} when `clip` is neither a clip nor a keyed clip.
 * @example
 * clipRate(parseBvh(cmu0101Text)).rate; // 120 (Frame Time .0083333)
 * clipRate(keyed); // { rate: 37.5, uniform: true, spread: 4.9e-5, from: 'key-times', ... }
 */
export function clipRate(clip: Clip | KeyedClip): ClipRate {
  if (clip === null || typeof clip !== 'object')
    throw new OptionError('clipRate: clip must be a Clip or a KeyedClip');
  if ('tracks' in clip && Array.isArray(clip.tracks))
    return keyTimesRate(
      clip.tracks.map((t, i) => {
        if (t === null || typeof t !== 'object') throw new OptionError(`clipRate: track ${i} is not a track`);
        return t.times;
      }),
    );
  const c = clip as Clip;
  const measured = c.rate > 0 && Number.isFinite(c.rate) ? c.rate : 1 / c.frameTime;
  if (!(measured > 0) || !Number.isFinite(measured))
    throw new OptionError(`clipRate: the clip has no valid rate (${c.rate})`);
  const source = c.source as { format?: string; frameTimeText?: string; frameTime?: number } | undefined;
  const text =
    source?.format === 'bvh' &&
    source.frameTimeText !== undefined &&
    (Number(source.frameTimeText) === c.frameTime || source.frameTime === c.frameTime)
      ? source.frameTimeText
      : undefined;
  const standard = text === undefined ? null : standardRate(Number(text), text);
  const rate = standard ?? measured;
  const period = 1 / rate;
  return {
    rate,
    from: standard === null ? 'frame-time' : 'frame-time-text',
    uniform: true,
    measured: text === undefined ? measured : 1 / Number(text),
    spread: 0,
    minInterval: period,
    maxInterval: period,
  };
}

/**
 * {@link clipRate} of key times: each entry one track's increasing key times (seconds). Tracks with fewer
 * than two keys say nothing about the rate.
 *
 * @throws {OptionError} when `tracks` is not an array of arrays of numbers; {@link InvalidValueError}
 *   when a key time is not finite or a track's times decrease, naming the track and key.
 * @example
 * keyTimesRate([Float32Array.from([0, 0.5, 1])]).rate; // 2
 */
export function keyTimesRate(tracks: readonly ArrayLike<number>[]): ClipRate {
  checkKeyTimes(tracks);
  // A track's grid counts only when, over the whole clip, it makes no more frames than the clip has keys,
  // or when it spans the clip: one tiny track (1 ms of two keys beside a 2000 s track) never sets the rate.
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let keys = 0;
  for (const t of tracks) {
    if (t.length === 0) continue;
    first = Math.min(first, t[0]);
    last = Math.max(last, t[t.length - 1]);
    keys += t.length;
  }
  const clipSpan = last - first;
  let fine = -1;
  let fineStep = Number.POSITIVE_INFINITY;
  let minInterval = Number.POSITIVE_INFINITY;
  let maxInterval = 0;
  let maxAbs = 0;
  for (let i = 0; i < tracks.length; i++) {
    const t = tracks[i];
    const n = t.length;
    if (n < 2) continue;
    const step = (t[n - 1] - t[0]) / (n - 1);
    const counts = clipSpan / step <= keys || t[n - 1] - t[0] >= clipSpan;
    if (counts && (step < fineStep || (step === fineStep && n > tracks[fine].length))) {
      fine = i;
      fineStep = step;
    }
    for (let k = 1; k < n; k++) {
      const d = t[k] - t[k - 1];
      if (d < minInterval) minInterval = d;
      if (d > maxInterval) maxInterval = d;
    }
    maxAbs = Math.max(maxAbs, Math.abs(t[0]), Math.abs(t[n - 1]));
  }
  if (fine < 0 || !(fineStep > 0) || !Number.isFinite(fineStep))
    return {
      rate: FALLBACK_RATE,
      from: 'none',
      uniform: true,
      measured: FALLBACK_RATE,
      spread: 0,
      minInterval: 0,
      maxInterval: 0,
    };
  const t = tracks[fine];
  const n = t.length;
  // the finest track's scatter about its own line bounds how well its mean interval is known
  let scatter = 0;
  for (let k = 0; k < n; k++) scatter = Math.max(scatter, Math.abs(t[k] - (t[0] + k * fineStep)));
  const measured = 1 / fineStep;
  const uncertain = (2 * scatter + 2 * maxAbs * 2 ** -23) / (n - 1) + fineStep * 1e-9;
  const evenlyMeant = scatter <= ON_GRID * fineStep;
  const median = evenlyMeant ? fineStep : medianInterval(t);
  const rate = evenlyMeant ? snap(fineStep, uncertain) : snap(median, 2 * maxAbs * 2 ** -23 + median * 1e-9);
  // every key's distance from the grid at `rate` from the finest track's first key
  const t0 = t[0];
  let spread = 0;
  for (const times of tracks)
    for (let k = 0; k < times.length; k++) {
      const x = (times[k] - t0) * rate;
      spread = Math.max(spread, Math.abs(x - Math.round(x)) / rate);
    }
  return {
    rate,
    from: 'key-times',
    uniform: evenlyMeant && spread <= ON_GRID / rate,
    measured,
    spread,
    minInterval,
    maxInterval,
  };
}

/** The rate of a keyed clip without two keys in any track: the commonest animation rate, contradicted by no key. */
const FALLBACK_RATE = 30;

/** 1 / `period`, or the simplest standard rate (as {@link guessRate} ranks them) whose period is within `tolerance` of it. */
function snap(period: number, tolerance: number): number {
  const g = guessRate(period);
  const hz = 1 / period;
  const candidates: [number, number][] = [
    [Math.round(hz), 1],
    [Math.round((hz * 1001) / 1000) * 1000, 1001],
  ];
  for (let q = 2; q <= 12; q++) candidates.push([Math.round(hz * q), q]);
  for (const [p, q] of candidates)
    if (p > 0 && Math.abs(q / p - period) <= tolerance && (q === 1 || q === 1001 || gcd(p, q) === 1))
      return p / q;
  return g.guessHz ?? hz;
}

function medianInterval(t: ArrayLike<number>): number {
  const d: number[] = [];
  for (let k = 1; k < t.length; k++) d.push(t[k] - t[k - 1]);
  d.sort((a, b) => a - b);
  const m = d[d.length >> 1];
  return m > 0 ? m : (t[t.length - 1] - t[0]) / (t.length - 1);
}

function checkKeyTimes(tracks: readonly ArrayLike<number>[]): void {
  if (!Array.isArray(tracks))
    throw new OptionError('keyTimesRate: tracks must be an array of key-time arrays');
  for (let i = 0; i < tracks.length; i++) {
    const t = tracks[i];
    if (t === null || typeof t !== 'object' || typeof t.length !== 'number')
      throw new OptionError(`keyTimesRate: track ${i} must be an array of key times, got ${typeof t}`);
    for (let k = 0; k < t.length; k++) {
      const x = t[k];
      if (typeof x !== 'number' || !Number.isFinite(x))
        throw new InvalidValueError(
          `keyTimesRate: track ${i}, key ${k}: time ${String(x)} is not a finite number`,
          {
            index: k,
          },
        );
      if (k > 0 && x < t[k - 1])
        throw new InvalidValueError(
          `keyTimesRate: track ${i}, key ${k}: time ${x} is before the previous key's ${t[k - 1]}`,
          {
            index: k,
          },
        );
    }
  }
}
