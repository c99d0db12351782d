/**
 * Taps: where a kernel placed at a (possibly fractional) centre on the frame axis reads a signal. The engine
 * shared by filtering, velocity filtering and resampling (and the streaming filter): {@link createTapWindow}
 * makes a window once per signal, {@link placeTaps} fills it for one output sample (the integer frames under
 * the kernel with their weights, after a boundary rule), and the blends read it for every joint:
 * {@link blendChannels} here for plain values, `blendRotations` (rotation-blend.ts) for quaternions.
 *
 * ```ts
 * const win = createTapWindow(kernel, series.frames, 'clamp');
 * for (let f = 0; f < outFrames; f++) {
 *   placeTaps(win, centreOf(f));                       // frames + weights, checked
 *   blendChannels(out, f * channels, data, channels, win);
 * }
 * ```
 *
 * Neither call allocates. The weight of source frame `i` for centre `t` is `kernel.evaluate(t - i)`
 * (convolution order), and every blend divides by the sum of the weights, so kernels need not be normalised.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import type { FloatArray } from '../../series/types.js';
import { isKernel, type Kernel } from './kernels.js';
import { assertFiniteRows, foldCentre, mapFrame, usableRadius } from './tap-reach.js';

/**
 * What taps outside `[0, frames - 1]` read: `'clamp'` the end frame, `'reflect'` the mirror image about the
 * end frame without repeating it (`… c b | a b c d | c b …`, SciPy `mode='mirror'`), `'wrap'` the clip as a
 * loop of period `frames` (`… c d | a b c d | a b …`, the last frame is followed by the first), and
 * `'renormalize'` nothing: such taps are dropped and the remaining weights are divided by their own sum.
 * `'linear'` drops them too, and where it did, turns the remaining weights into those of a weighted
 * straight-line fit through the taps evaluated at the centre (local-linear regression, the boundary
 * correction of Fan and Gijbels, "Local Polynomial Modelling and Its Applications", 1996, §3.2.5): a motion
 * that moves steadily through the end keeps its pose there, where `'renormalize'`'s one-sided mean lags it
 * by about `0.8·σ` of its velocity, which makes the end pose depend on the sampling rate. Inside the clip
 * (no tap dropped) it is `'renormalize'`.
 */
export type Boundary = 'clamp' | 'reflect' | 'wrap' | 'renormalize' | 'linear';

/** The valid {@link Boundary} names. */
export const BOUNDARIES: readonly Boundary[] = Object.freeze([
  'clamp',
  'reflect',
  'wrap',
  'renormalize',
  'linear',
]);

/**
 * The taps of one output sample, owned by the caller and refilled by {@link placeTaps}. Read `count`,
 * `tapFrames[0..count)`, `tapWeights[0..count)`, `weightSum` and `reference` after placing.
 */
export interface TapWindow {
  readonly kernel: Kernel;
  /** The support used, in frames each side: the kernel's radius capped at `4·frames + 64`, so a kernel far wider than the clip costs no more than the clip. */
  readonly radius: number;
  /** Length of the signal the taps index into. */
  readonly frames: number;
  readonly boundary: Boundary;
  /** Source frame of each tap, after the boundary rule (consecutive duplicates are merged). */
  readonly tapFrames: Int32Array;
  /** Weight of each tap (`kernel.evaluate(centre - frame)`, zero weights skipped). */
  readonly tapWeights: Float64Array;
  /** Scratch for per-call flat offsets; do not rely on its contents. */
  readonly tapOffsets: Int32Array;
  /** Number of taps in use. */
  count: number;
  /** Sum of the tap weights (never near zero after a successful {@link placeTaps}). */
  weightSum: number;
  /** The source frame nearest the centre (after the boundary rule): hemisphere and log reference. */
  reference: number;
  /** The centre last placed, in frames. */
  centre: number;
  /** Kernel values at the integer offsets `-tableRadius..tableRadius`, used for integer centres. */
  readonly table: Float64Array;
  readonly tableRadius: number;
}

/**
 * Kernel weights of recent fractional centres, by phase: `rows[slot·width + span + m]` holds
 * `kernel.evaluate(phase − m)` for the offsets `m` in `[from[slot], to[slot]]`. A centre `c ≥ 0` with
 * `n = floor(c)` and phase `φ = c − n` (exact) reads the weight of frame `i` at `m = i − n`: `φ − m` and
 * `c − i` are the same real number, so IEEE subtraction gives the same double and the weight is the one
 * `kernel.evaluate(c − i)` would return, bit for bit. A rate change by p/q puts its output frames at q phases
 * (per binade of the position, where the rounding of `i·p/q` repeats), so a few slots serve a whole grid.
 */
interface PhaseCache {
  readonly keys: Float64Array;
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly rows: Float64Array;
  readonly span: number;
  readonly width: number;
  next: number;
}

/** Phases remembered per window (a ring). */
const PHASE_SLOTS = 16;
/** Widest support, in frames each side, whose fractional weights are remembered. */
const PHASE_MAX_SPAN = 64;

/** A window from {@link createTapWindow}: with its phase cache (null until a fractional centre needs it). */
interface CachedTapWindow extends TapWindow {
  phases: PhaseCache | null;
}

function createPhaseCache(radius: number): PhaseCache {
  const span = Math.ceil(radius) + 1;
  const width = 2 * span + 1;
  return {
    keys: new Float64Array(PHASE_SLOTS).fill(Number.NaN),
    from: new Int32Array(PHASE_SLOTS),
    to: new Int32Array(PHASE_SLOTS),
    rows: new Float64Array(PHASE_SLOTS * width),
    span,
    width,
    next: 0,
  };
}

/**
 * The slot of `cache` holding the weights of phase `phase` for offsets `mLo..mHi`, filled now if no slot
 * has them (evaluating the kernel only there, as the tap loop would).
 */
function phaseSlot(cache: PhaseCache, kernel: Kernel, phase: number, mLo: number, mHi: number): number {
  const keys = cache.keys;
  for (let s = 0; s < PHASE_SLOTS; s++) {
    if (keys[s] === phase && cache.from[s] <= mLo && cache.to[s] >= mHi) return s;
  }
  const s = cache.next;
  cache.next = s + 1 === PHASE_SLOTS ? 0 : s + 1;
  keys[s] = phase;
  cache.from[s] = mLo;
  cache.to[s] = mHi;
  const base = s * cache.width + cache.span;
  for (let m = mLo; m <= mHi; m++) cache.rows[base + m] = kernel.evaluate(phase - m);
  return s;
}

/** Relative size below which a tap-weight sum counts as zero (`|Σw| <= ZERO_SUM·Σ|w|`). */
export const ZERO_SUM = 1e-12;

function checkBoundary(boundary: unknown, where: string): asserts boundary is Boundary {
  if (!BOUNDARIES.includes(boundary as Boundary)) {
    throw new OptionError(
      `${where}: boundary must be one of ${BOUNDARIES.join(', ')}, got ${String(boundary)}`,
    );
  }
}

/**
 * Allocates the tap buffers for `kernel` on a signal of `frames` frames with a boundary rule. Reuse it for
 * every output sample of that signal.
 *
 * @throws {OptionError} on a non-kernel or an unknown boundary; {@link ShapeError}-free: any `frames >= 0`.
 * @example
 * const win = createTapWindow(kernels.gaussian(2), 100, 'clamp');
 */
export function createTapWindow(kernel: Kernel, frames: number, boundary: Boundary = 'clamp'): TapWindow {
  if (!isKernel(kernel))
    throw new OptionError('createTapWindow: kernel must be a Kernel { name, radius, evaluate }');
  checkBoundary(boundary, 'createTapWindow');
  if (!Number.isSafeInteger(frames) || frames < 0) {
    throw new OptionError(`createTapWindow: frames must be a non-negative integer, got ${frames}`);
  }
  const radius = usableRadius(kernel.radius, frames);
  const capacity = 2 * Math.ceil(radius) + 2;
  const tableRadius = Math.floor(radius);
  const table = new Float64Array(2 * tableRadius + 1);
  for (let k = -tableRadius; k <= tableRadius; k++) {
    const v = kernel.evaluate(k);
    if (!Number.isFinite(v))
      throw new OptionError(`createTapWindow: kernel ${kernel.name} is not finite at ${k}`);
    table[k + tableRadius] = v;
  }
  const win: CachedTapWindow = {
    kernel,
    radius,
    frames,
    boundary,
    tapFrames: new Int32Array(capacity),
    tapWeights: new Float64Array(capacity),
    tapOffsets: new Int32Array(capacity),
    count: 0,
    weightSum: 0,
    reference: 0,
    centre: 0,
    table,
    tableRadius,
    phases: null,
  };
  return win;
}

/**
 * Maps an integer frame index through the boundary rule: indices inside `[0, frames - 1]` are returned as
 * they are; outside, `'clamp'`, `'reflect'` and `'wrap'` give the frame that is read and `'renormalize'`
 * and `'linear'` give -1 (the tap is dropped). `frames` must be ≥ 1.
 *
 * @example
 * mapBoundaryFrame(-2, 10, 'reflect'); // 2
 */
export function mapBoundaryFrame(i: number, frames: number, boundary: Boundary): number {
  if (!Number.isSafeInteger(i))
    throw new InvalidValueError(`mapBoundaryFrame: i must be a safe integer, got ${String(i)}`);
  if (!Number.isSafeInteger(frames) || frames < 1)
    throw new ShapeError(`mapBoundaryFrame: frames must be a positive integer, got ${String(frames)}`);
  checkBoundary(boundary, 'mapBoundaryFrame');
  return mapFrame(i, frames, boundary);
}

/**
 * Places the kernel at `centre` (in frames, any real number) and fills the window's taps: every integer frame
 * `i` with `|centre - i| <= radius` and a non-zero weight `kernel.evaluate(centre - i)`, mapped through the
 * boundary rule. Integer centres use a table computed once; a window from {@link createTapWindow} remembers
 * the weights of its last 16 fractional phases (kernels up to 64 frames each side), so a grid at a rational rate
 * ratio evaluates its kernel only for its first few frames. No allocation beyond that memory, made once.
 *
 * @throws {InvalidValueError} when the signal has no frames, when no tap survives (`'renormalize'` far outside
 *   the clip) or when the weights sum to zero (`|Σw| <= 1e-12·Σ|w|`, e.g. a zero-mean kernel at a clip end
 *   under `'renormalize'`); `location.frame` is the reference frame. Callers that want a fallback catch it.
 * @example
 * const win = createTapWindow(kernels.gaussian(2), 100);
 * placeTaps(win, 41.25); // win.count, win.tapFrames, win.tapWeights, win.weightSum, win.reference
 */
export function placeTaps(win: TapWindow, centre: number): TapWindow {
  checkWindow(win, 'placeTaps');
  const frames = win.frames;
  const boundary = win.boundary;
  if (frames === 0) throw new InvalidValueError('placeTaps: the signal has no frames');
  if (!Number.isFinite(centre))
    throw new InvalidValueError(`placeTaps: centre must be finite, got ${centre}`);
  const kernel = win.kernel;
  const radius = win.radius;
  centre = foldCentre(centre, frames, radius, boundary);
  const tapFrames = win.tapFrames;
  const tapWeights = win.tapWeights;
  const integral = Number.isInteger(centre);
  const table = win.table;
  const tr = win.tableRadius;
  // an integer centre reads exactly the table's offsets: `centre ± radius` rounds (25 + 24.999999999999996
  // is 50), which would reach one entry past the table
  const lo = integral ? centre - tr : Math.ceil(centre - radius);
  const hi = integral ? centre + tr : Math.floor(centre + radius);
  // a fractional centre of a window from createTapWindow reads its weights from the phase cache: the
  // same values (see PhaseCache), without a call to the kernel per tap
  let rows: Float64Array | null = null;
  let rowAt = 0;
  const cached = win as Partial<CachedTapWindow>;
  if (!integral && centre >= 0 && cached.phases !== undefined && radius < PHASE_MAX_SPAN) {
    const cache = cached.phases ?? (cached.phases = createPhaseCache(radius));
    const n = Math.floor(centre);
    if (lo - n >= -cache.span && hi - n <= cache.span) {
      const slot = phaseSlot(cache, kernel, centre - n, lo - n, hi - n);
      rows = cache.rows;
      rowAt = slot * cache.width + cache.span - n;
    }
  }
  let count = 0;
  let sum = 0;
  let absSum = 0;
  let last = -2;
  let dropped = false;
  for (let i = lo; i <= hi; i++) {
    const w = integral
      ? table[centre - i + tr]
      : rows !== null
        ? rows[rowAt + i]
        : kernel.evaluate(centre - i);
    if (w === 0) continue;
    const f = mapFrame(i, frames, boundary);
    if (f < 0) {
      dropped = true;
      continue;
    }
    if (f === last) {
      tapWeights[count - 1] += w;
    } else {
      tapFrames[count] = f;
      tapWeights[count] = w;
      count++;
      last = f;
    }
    sum += w;
    absSum += Math.abs(w);
  }
  if (dropped && boundary === 'linear' && count > 1 && Number.isFinite(absSum)) {
    const fitted = fitLine(tapFrames, tapWeights, count, centre);
    if (fitted !== 0) {
      sum = fitted;
      absSum = 0;
      for (let t = 0; t < count; t++) absSum += Math.abs(tapWeights[t]);
    }
  }
  let ref = mapFrame(Math.round(centre), frames, boundary);
  if (ref < 0) ref = centre < 0 ? 0 : frames - 1;
  if (!Number.isFinite(absSum)) {
    throw new InvalidValueError(`kernel ${kernel.name}: non-finite tap weights at centre ${centre}`, {
      frame: Math.max(0, Math.min(frames - 1, Math.round(centre))),
    });
  }
  win.count = count;
  win.weightSum = sum;
  win.reference = ref;
  win.centre = centre;
  if (count === 0 || !(Math.abs(sum) > ZERO_SUM * absSum)) {
    throw new InvalidValueError(
      `kernel ${kernel.name}: the tap weights at centre ${centre} sum to zero (boundary '${boundary}', ${frames} frames)`,
      { frame: ref },
    );
  }
  return win;
}

/**
 * Turns the weights `w` of taps at `frames` into the equivalent kernel of a weighted least-squares line
 * evaluated at `centre`: with `dₖ = frameₖ − centre` and `Sⱼ = Σ wₖ dₖʲ`, `wₖ ← wₖ (1 − dₖ S₁/S₂)`, whose
 * sum is `S₀ − S₁²/S₂` (the blends divide by it; the factor `1/S₂` of the textbook form `S₂ − S₁dₖ` keeps
 * the weights at the kernel's own scale, so a kernel whose tails are 1e-167 does not underflow). A blend
 * with these weights reproduces any linear signal exactly. Returns the new sum, or 0 (weights untouched)
 * when the fit is degenerate (every tap at one offset, or weights whose sum is not positive).
 */
function fitLine(frames: Int32Array, w: Float64Array, count: number, centre: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  for (let t = 0; t < count; t++) {
    const d = frames[t] - centre;
    const wd = w[t] * d;
    s0 += w[t];
    s1 += wd;
    s2 += wd * d;
  }
  if (!(s0 > 0 && s2 > 0)) return 0;
  const slope = s1 / s2;
  const sum = s0 - slope * s1;
  if (!(sum > 1e-9 * s0)) return 0;
  for (let t = 0; t < count; t++) w[t] *= 1 - slope * (frames[t] - centre);
  return sum;
}

/**
 * Blends `channels` interleaved values per frame (a `Vec3Series` has `joints·3`, a scalar channel 1) under the
 * placed taps: `out[outOffset + c] = Σ wₖ·data[frameₖ·channels + c] / Σ wₖ`. No allocation; `out` must not
 * overlap the frames the taps read.
 *
 * @example
 * const data = Float64Array.from({ length: 10 * 6 }, (_, i) => i); // 10 frames of 6 channels
 * const win = createTapWindow(kernels.tent, 10);
 * const out = new Float64Array(10 * 6);
 * placeTaps(win, 3);
 * blendChannels(out, 3 * 6, data, 6, win); // frame 3 of out, filtered
 */
export function blendChannels(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  channels: number,
  win: TapWindow,
): void {
  checkBlend(out, outOffset, data, channels, win, 'blendChannels');
  const count = win.count;
  const invW = 1 / win.weightSum;
  const offs = win.tapOffsets;
  const ws = win.tapWeights;
  for (let t = 0; t < count; t++) offs[t] = win.tapFrames[t] * channels;
  let c = 0;
  // three channels per pass over the taps (a Vec3 at a time): sums stay in registers
  for (; c + 2 < channels; c += 3) {
    let a = 0;
    let b = 0;
    let d = 0;
    for (let t = 0; t < count; t++) {
      const o = offs[t] + c;
      // normalised weights, so that a single tap (or weights summing to W exactly) copies values unchanged
      const w = ws[t] * invW;
      a += w * data[o];
      b += w * data[o + 1];
      d += w * data[o + 2];
    }
    out[outOffset + c] = a;
    out[outOffset + c + 1] = b;
    out[outOffset + c + 2] = d;
  }
  for (; c < channels; c++) {
    let a = 0;
    for (let t = 0; t < count; t++) a += ws[t] * invW * data[offs[t] + c];
    out[outOffset + c] = a;
  }
}

/**
 * Evaluates the kernel-filtered channels of `src` (`frames` rows of `channels`) at `count` centres
 * `centreAt(i)` (in frames, fractional allowed) into rows of `dst` (no aliasing). The engine behind
 * `filterVectors` and the velocity operations. Accumulates in Float64 even when `dst` is Float32.
 *
 * @internal
 */
export function sampleChannels(
  dst: FloatArray,
  src: FloatArray,
  frames: number,
  channels: number,
  kernel: Kernel,
  boundary: Boundary,
  count: number,
  centreAt: (i: number) => number,
): void {
  const win = createTapWindow(kernel, frames, boundary);
  if (count === 0 || channels === 0) return;
  const row = dst instanceof Float64Array ? null : new Float64Array(channels);
  for (let i = 0; i < count; i++) {
    placeTaps(win, centreAt(i));
    if (row === null) {
      blendChannels(dst, i * channels, src, channels, win);
    } else {
      blendChannels(row, 0, src, channels, win);
      dst.set(row, i * channels);
    }
  }
  assertFiniteRows(dst, count, channels, 'the filtered values');
}

/** A value made by {@link createTapWindow}, checked in O(1). */
function checkWindow(win: TapWindow, where: string): void {
  if (
    win === null ||
    typeof win !== 'object' ||
    !(win.tapFrames instanceof Int32Array) ||
    !(win.tapWeights instanceof Float64Array) ||
    !(win.table instanceof Float64Array) ||
    !Number.isSafeInteger(win.frames) ||
    typeof win.radius !== 'number' ||
    !Object.isExtensible(win)
  ) {
    throw new ShapeError(`${where}: win must be a TapWindow from createTapWindow()`);
  }
}

/**
 * The public blends' entry check, O(1): a placed window, typed arrays, a row width that the data holds for
 * every frame of the window, and an output row inside `out`.
 *
 * @internal
 */
export function checkBlend(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  width: number,
  win: TapWindow,
  where: string,
): void {
  checkWindow(win, where);
  if (
    !(out instanceof Float64Array || out instanceof Float32Array) ||
    !(data instanceof Float64Array || data instanceof Float32Array)
  )
    throw new ShapeError(`${where}: out and data must be Float64Array or Float32Array`);
  if (!Number.isSafeInteger(width) || width < 0 || data.length < win.frames * width)
    throw new ShapeError(
      `${where}: data has ${data.length} values, fewer than ${win.frames} frames x ${String(width)}`,
    );
  if (!Number.isSafeInteger(outOffset) || outOffset < 0 || outOffset + width > out.length)
    throw new ShapeError(
      `${where}: out has ${out.length} values, no row of ${width} at ${String(outOffset)}`,
    );
  if (!(win.count > 0 && win.count <= win.tapFrames.length))
    throw new InvalidValueError(`${where}: the window has no taps; call placeTaps first`);
}
