/**
 * The windowed weighted-sum engine shared by filtering, velocity filtering and resampling: place a kernel at
 * an arbitrary (possibly fractional) centre on the frame axis, collect the integer frames under it with their
 * weights (applying a boundary rule), then blend every joint's samples under those taps.
 *
 * Two steps, so that the tap weights are computed once per output sample and reused for all joints:
 *
 * ```ts
 * const win = createTapWindow(kernel, series.frames, 'clamp');
 * const scratch = createWindowScratch();
 * for (let f = 0; f < outFrames; f++) {
 *   placeTaps(win, centreOf(f));                       // frames + weights, checked
 *   blendRotations(out, f * joints * 4, series.data, joints, win, 'log', scratch);
 * }
 * ```
 *
 * Neither call allocates. Conventions: quaternions `x, y, z, w`, frame-major series
 * (`(frame * joints + joint) * 4`); the weight of source frame `i` for centre `t` is `kernel.evaluate(t - i)`
 * (convolution order), and every blend divides by the sum of the weights, so kernels need not be normalised.
 *
 * Spaces (Holden, "Filtering, Convolutions, and Quaternions", 2025; Lee and Shin, "A general construction
 * scheme for unit quaternion curves with simple high order derivatives", 1995, for the relative log form):
 * - `'raw'`: each sample's sign is aligned to the reference (the tap nearest the centre), the weighted sum
 *   is normalised. nlerp-like, fastest, correct on data that was never unrolled.
 * - `'log'`: `r ⊗ exp(Σ wₖ log(r⁻¹ ⊗ qₖ) / Σ wₖ)` with `r` the reference and `log` taken on the `w ≥ 0`
 *   representative. slerp-like.
 * - `'eigen'`: the dominant eigenvector of `M = Σ wₖ qₖ qₖᵀ` (Markley et al. 2007), sign-free and robust; with
 *   negative weights the eigenvector of the largest (algebraic) eigenvalue.
 *
 * Every output quaternion is unit length and lies in the reference sample's hemisphere (`dot ≥ 0`), so an
 * unrolled input gives an unrolled output.
 *
 * @module
 */

import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { EIGEN4_SCRATCH_LENGTH } from '../../numeric/eigen4.js';
import { eigenAverageFlat } from '../../numeric/eigen4-average.js';
import type { FloatArray } from '../../series/types.js';
import { isKernel, type Kernel } from '../kernel/kernels.js';
import { foldCentre, mapFrame, usableRadius } from './tap-reach.js';

/** Where a weighted sum of rotations is taken. */
export type RotationSpace = 'raw' | 'log' | 'eigen';

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

/** The valid {@link RotationSpace} names. */
export const ROTATION_SPACES: readonly RotationSpace[] = Object.freeze(['raw', 'log', 'eigen']);
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

/** Throws an {@link OptionError} unless `space` is a {@link RotationSpace}. */
export function checkRotationSpace(space: unknown, where: string): asserts space is RotationSpace {
  if (!ROTATION_SPACES.includes(space as RotationSpace)) {
    throw new OptionError(
      `${where}: space must be one of ${ROTATION_SPACES.join(', ')}, got ${String(space)}`,
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

/** Scratch for {@link blendRotations} (eigen space); one per thread of work. */
export interface WindowScratch {
  /** Eigen-solver scratch (`EIGEN4_SCRATCH_LENGTH`). */
  readonly eigen: Float64Array;
  /** Small vector scratch. */
  readonly v: Float64Array;
}

/** Allocates the scratch used by {@link blendRotations}. */
export function createWindowScratch(): WindowScratch {
  return { eigen: new Float64Array(EIGEN4_SCRATCH_LENGTH), v: new Float64Array(8) };
}

function fail(data: FloatArray, win: TapWindow, stride: number, joint: number, what: string): never {
  for (let t = 0; t < win.count; t++) {
    const o = win.tapFrames[t] * stride + joint * 4;
    for (let c = 0; c < 4; c++) {
      if (!Number.isFinite(data[o + c])) {
        throw new InvalidValueError(
          `${what}: non-finite input at frame ${win.tapFrames[t]}, joint ${joint} (${data[o + c]})`,
          { frame: win.tapFrames[t], joint },
        );
      }
    }
  }
  throw new InvalidValueError(
    `${what}: the weighted sum of rotations vanished at centre ${win.centre} (frame ${win.reference}), joint ${joint}; ` +
      'the samples under a kernel with negative lobes cancel',
    { frame: win.reference, joint },
  );
}

function blendRaw(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  joints: number,
  win: TapWindow,
): void {
  const stride = joints * 4;
  const count = win.count;
  const offs = win.tapOffsets;
  const ws = win.tapWeights;
  for (let t = 0; t < count; t++) offs[t] = win.tapFrames[t] * stride;
  const refBase = win.reference * stride;
  let j = 0;
  let b = 0;
  // two joints per pass over the taps: independent accumulator chains and shared tap loads (about 20% faster).
  // The last one or two joints take the single-joint loop below, so that loop has always run before this
  // function is optimised: an odd joint count met later would otherwise deoptimise it.
  for (; j + 2 < joints; j += 2, b += 8) {
    const r = refBase + b;
    const rx = data[r];
    const ry = data[r + 1];
    const rz = data[r + 2];
    const rw = data[r + 3];
    const sx = data[r + 4];
    const sy = data[r + 5];
    const sz = data[r + 6];
    const sw = data[r + 7];
    let ax = 0;
    let ay = 0;
    let az = 0;
    let aw = 0;
    let bx = 0;
    let by = 0;
    let bz = 0;
    let bw = 0;
    for (let t = 0; t < count; t++) {
      const o = offs[t] + b;
      const w0 = ws[t];
      const qx = data[o];
      const qy = data[o + 1];
      const qz = data[o + 2];
      const qw = data[o + 3];
      const px = data[o + 4];
      const py = data[o + 5];
      const pz = data[o + 6];
      const pw = data[o + 7];
      // branch-free sign (+1 when dot >= 0, else -1): never-unrolled data flips unpredictably
      const w = w0 * (+(rx * qx + ry * qy + rz * qz + rw * qw >= 0) * 2 - 1);
      const v = w0 * (+(sx * px + sy * py + sz * pz + sw * pw >= 0) * 2 - 1);
      ax += w * qx;
      ay += w * qy;
      az += w * qz;
      aw += w * qw;
      bx += v * px;
      by += v * py;
      bz += v * pz;
      bw += v * pw;
    }
    writeRaw(out, outOffset + b, ax, ay, az, aw, rx, ry, rz, rw, data, win, stride, j);
    writeRaw(out, outOffset + b + 4, bx, by, bz, bw, sx, sy, sz, sw, data, win, stride, j + 1);
  }
  for (; j < joints; j++, b += 4) {
    const r = refBase + b;
    const rx = data[r];
    const ry = data[r + 1];
    const rz = data[r + 2];
    const rw = data[r + 3];
    let ax = 0;
    let ay = 0;
    let az = 0;
    let aw = 0;
    for (let t = 0; t < count; t++) {
      const o = offs[t] + b;
      const qx = data[o];
      const qy = data[o + 1];
      const qz = data[o + 2];
      const qw = data[o + 3];
      const w = ws[t] * (+(rx * qx + ry * qy + rz * qz + rw * qw >= 0) * 2 - 1);
      ax += w * qx;
      ay += w * qy;
      az += w * qz;
      aw += w * qw;
    }
    writeRaw(out, outOffset + b, ax, ay, az, aw, rx, ry, rz, rw, data, win, stride, j);
  }
}

/** Normalises an accumulated raw sum into the reference's hemisphere and stores it (or reports why not). */
function writeRaw(
  out: FloatArray,
  d: number,
  ax: number,
  ay: number,
  az: number,
  aw: number,
  rx: number,
  ry: number,
  rz: number,
  rw: number,
  data: FloatArray,
  win: TapWindow,
  stride: number,
  joint: number,
): void {
  const n2 = ax * ax + ay * ay + az * az + aw * aw;
  if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY))
    fail(data, win, stride, joint, "blendRotations('raw')");
  let s = 1 / Math.sqrt(n2);
  if (rx * ax + ry * ay + rz * az + rw * aw < 0) s = -s;
  out[d] = ax * s;
  out[d + 1] = ay * s;
  out[d + 2] = az * s;
  out[d + 3] = aw * s;
}

function blendLog(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  joints: number,
  win: TapWindow,
  v: Float64Array,
): void {
  const stride = joints * 4;
  const count = win.count;
  const offs = win.tapOffsets;
  const ws = win.tapWeights;
  const ref = win.reference;
  for (let t = 0; t < count; t++) offs[t] = win.tapFrames[t] === ref ? -1 : win.tapFrames[t] * stride;
  const invW = 1 / win.weightSum;
  const refBase = ref * stride;
  // two joints per pass over the taps (independent dependency chains for the out-of-order core, shared tap
  // loads); an odd last joint runs in both lanes and is stored once
  for (let j = 0, b = 0; j < joints; j += 2, b += 8) {
    const k = j + 1 < joints ? 4 : 0;
    const r = refBase + b;
    const rx = data[r];
    const ry = data[r + 1];
    const rz = data[r + 2];
    const rw = data[r + 3];
    const sx = data[r + k];
    const sy = data[r + k + 1];
    const sz = data[r + k + 2];
    const sw = data[r + k + 3];
    let vx = 0;
    let vy = 0;
    let vz = 0;
    let ux = 0;
    let uy = 0;
    let uz = 0;
    for (let t = 0; t < count; t++) {
      const off = offs[t];
      if (off < 0) continue; // the reference itself: log(identity) = 0
      const o = off + b;
      const wt = ws[t];
      const qx = data[o];
      const qy = data[o + 1];
      const qz = data[o + 2];
      const qw = data[o + 3];
      // p = conj(r) ⊗ q; log of its w >= 0 representative = p.xyz · sign(pw) · atan2(s, |pw|) / s
      const px = rw * qx - rx * qw - ry * qz + rz * qy;
      const py = rw * qy + rx * qz - ry * qw - rz * qx;
      const pz = rw * qz - rx * qy + ry * qx - rz * qw;
      const pw = rw * qw + rx * qx + ry * qy + rz * qz;
      const f = relativeLogFactor(wt, px * px + py * py + pz * pz, pw);
      vx += f * px;
      vy += f * py;
      vz += f * pz;
      const o2 = o + k;
      const mx = data[o2];
      const my = data[o2 + 1];
      const mz = data[o2 + 2];
      const mw = data[o2 + 3];
      const nx = sw * mx - sx * mw - sy * mz + sz * my;
      const ny = sw * my + sx * mz - sy * mw - sz * mx;
      const nz = sw * mz - sx * my + sy * mx - sz * mw;
      const nw = sw * mw + sx * mx + sy * my + sz * mz;
      const g = relativeLogFactor(wt, nx * nx + ny * ny + nz * nz, nw);
      ux += g * nx;
      uy += g * ny;
      uz += g * nz;
    }
    // the mean logs go through scratch so that no double crosses a call boundary (no boxing if not inlined)
    const d = outOffset + b;
    v[0] = vx * invW;
    v[1] = vy * invW;
    v[2] = vz * invW;
    storeLog(out, d, v, data, r, win, stride, j);
    if (k !== 0) {
      v[0] = ux * invW;
      v[1] = uy * invW;
      v[2] = uz * invW;
      storeLog(out, d + 4, v, data, r + 4, win, stride, j + 1);
    }
  }
}

/**
 * `w · sign(pw) · atan2(s, |pw|) / s` for the relative quaternion `(p.xyz, pw)` with `s² = |p.xyz|²`: the weighted
 * factor that turns `p.xyz` into the log of the `w >= 0` representative.
 */
function relativeLogFactor(w: number, s2: number, pw: number): number {
  // For t = s/|pw| <= 0.2 (half-angles below 11°, the common case inside a window) atan(t)/t is its Taylor
  // series in u = t², 11 terms, error < 2e-17; 1/pw carries the sign of pw, so no branch on the hemisphere.
  if (s2 <= 0.04 * pw * pw) {
    const ip = 1 / pw;
    const u = s2 * ip * ip;
    // Estrin's scheme: a short dependency chain instead of 11 nested multiply-adds
    const u2 = u * u;
    const u4 = u2 * u2;
    // (multiplications by folded reciprocals: `u / 7` would be a real division)
    const poly =
      1 -
      u * (1 / 3) +
      u2 * (1 / 5 - u * (1 / 7)) +
      u4 * (1 / 9 - u * (1 / 11) + u2 * (1 / 13 - u * (1 / 15))) +
      u4 * u4 * (1 / 17 - u * (1 / 19) + u2 * (1 / 21));
    return w * ip * poly;
  }
  const s = Math.sqrt(s2);
  return pw < 0 ? (-w * Math.atan2(s, -pw)) / s : (w * Math.atan2(s, pw)) / s;
}

/**
 * Maps the mean relative log `v[0..3)` back (`r ⊗ exp(v)` with `r = data[r..r+4)`), normalises into `r`'s
 * hemisphere and stores the result at `out[d..d+4)`.
 */
function storeLog(
  out: FloatArray,
  d: number,
  v: Float64Array,
  data: FloatArray,
  r: number,
  win: TapWindow,
  stride: number,
  j: number,
): void {
  const vx = v[0];
  const vy = v[1];
  const vz = v[2];
  const rx = data[r];
  const ry = data[r + 1];
  const rz = data[r + 2];
  const rw = data[r + 3];
  const th2 = vx * vx + vy * vy + vz * vz;
  let sc: number;
  let ew: number;
  if (th2 <= 0.04) {
    // |v| <= 0.2 (the usual size of a window's mean relative half-angle): Taylor series of sin(θ)/θ and
    // cos(θ) to θ¹² (truncation error below 3e-21), instead of two libm calls
    const a = th2;
    const a2 = a * a;
    const a4 = a2 * a2;
    sc =
      1 -
      a * (1 / 6) +
      a2 * (1 / 120 - a * (1 / 5040)) +
      a4 * (1 / 362880 - a * (1 / 39916800) + a2 * (1 / 6227020800));
    ew =
      1 -
      a * (1 / 2) +
      a2 * (1 / 24 - a * (1 / 720)) +
      a4 * (1 / 40320 - a * (1 / 3628800) + a2 * (1 / 479001600));
  } else {
    const th = Math.sqrt(th2);
    sc = Math.sin(th) / th;
    ew = Math.cos(th);
  }
  const ex = sc * vx;
  const ey = sc * vy;
  const ez = sc * vz;
  // out = r ⊗ e
  const ox = rw * ex + rx * ew + ry * ez - rz * ey;
  const oy = rw * ey - rx * ez + ry * ew + rz * ex;
  const oz = rw * ez + rx * ey - ry * ex + rz * ew;
  const ow = rw * ew - rx * ex - ry * ey - rz * ez;
  const n2 = ox * ox + oy * oy + oz * oz + ow * ow;
  if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY)) fail(data, win, stride, j, "blendRotations('log')");
  let sn = 1 / Math.sqrt(n2);
  if (rx * ox + ry * oy + rz * oz + rw * ow < 0) sn = -sn;
  out[d] = ox * sn;
  out[d + 1] = oy * sn;
  out[d + 2] = oz * sn;
  out[d + 3] = ow * sn;
}

/**
 * Blends every joint's samples under the placed taps and writes `joints` unit quaternions at
 * `out[outOffset + 4·joint]`. `data` is a frame-major quaternion buffer of `win.frames` frames x `joints`.
 * `out` must not overlap the frames the taps read. No allocation.
 *
 * @throws {InvalidValueError} naming frame and joint when a sample under the taps is non-finite or the
 *   weighted sum vanishes (negative lobes cancelling); {@link OptionError} on an unknown space.
 * @example
 * const win = createTapWindow(kernels.gaussian(2), series.frames);
 * const out = new Float64Array(series.joints * 4);
 * const scratch = createWindowScratch();
 * placeTaps(win, 10.5);
 * blendRotations(out, 0, series.data, series.joints, win, 'raw', scratch); // every joint between frames 10 and 11
 */
export function blendRotations(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  joints: number,
  win: TapWindow,
  space: RotationSpace,
  scratch: WindowScratch,
): void {
  checkBlend(out, outOffset, data, joints * 4, win, 'blendRotations');
  if (space === 'eigen' && !(scratch?.eigen instanceof Float64Array && scratch.v instanceof Float64Array))
    throw new OptionError('blendRotations: scratch must come from createWindowScratch()');
  if (space === 'raw') blendRaw(out, outOffset, data, joints, win);
  else if (space === 'log') blendLog(out, outOffset, data, joints, win, scratch.v);
  else if (space === 'eigen') blendEigen(out, outOffset, data, joints, win, scratch);
  else checkRotationSpace(space, 'blendRotations');
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

function blendEigen(
  out: FloatArray,
  outOffset: number,
  data: FloatArray,
  joints: number,
  win: TapWindow,
  scratch: WindowScratch,
): void {
  const stride = joints * 4;
  const count = win.count;
  const offs = win.tapOffsets;
  const frames = win.tapFrames;
  const ws = win.tapWeights;
  const v = scratch.v;
  const es = scratch.eigen;
  const refBase = win.reference * stride;
  for (let j = 0, b = 0; j < joints; j++, b += 4) {
    for (let t = 0; t < count; t++) offs[t] = frames[t] * stride + b;
    const r = refBase + b;
    try {
      // the reference sample starts the certified power iteration (Davis–Kahan stop, Jacobi fallback)
      eigenAverageFlat(v, 0, data, offs, ws, count, es, undefined, data, r);
    } catch (e) {
      if (e instanceof InvalidValueError) fail(data, win, stride, j, "blendRotations('eigen')");
      throw e;
    }
    const x = v[0];
    const y = v[1];
    const z = v[2];
    const w = v[3];
    const s = data[r] * x + data[r + 1] * y + data[r + 2] * z + data[r + 3] * w < 0 ? -1 : 1;
    const d = outOffset + b;
    out[d] = s * x;
    out[d + 1] = s * y;
    out[d + 2] = s * z;
    out[d + 3] = s * w;
  }
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
 */
function checkBlend(
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
