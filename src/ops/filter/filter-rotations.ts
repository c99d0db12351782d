import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_SERIES, oneOf, resolveOptions } from '../../options.js';
import { assertQuatSeries, createQuatSeries } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { isKernel, type Kernel } from '../kernel/kernels.js';
import {
  blendRotations,
  checkRotationSpace,
  createWindowScratch,
  ROTATION_SPACES,
  type RotationSpace,
} from '../kernel/rotation-blend.js';
import { BOUNDARIES, type Boundary, createTapWindow, placeTaps } from '../kernel/tap-window.js';
import { createSimdRaw13 } from './raw13-simd.js';
import { SMOOTH_DEFAULTS } from './smooth-defaults.js';

/** Options of {@link filterRotations}. */
export interface FilterRotationsOptions<T extends FloatArray = FloatArray> {
  /** Where the weighted sums are taken: `'raw'` (nlerp-like, fastest), `'log'` (slerp-like), `'eigen'` (robust). */
  space?: RotationSpace;
  /** What taps beyond the clip ends read; see {@link Boundary}. */
  boundary?: Boundary;
  /** Receives the result (same shape as the input, must not share its buffer); allocated (Float64) if absent. */
  out?: QuatSeries<T>;
}

/**
 * Defaults of {@link FilterRotationsOptions}: raw space, `'linear'` ends (taps past the ends are dropped and
 * the rest fit a line there, so a steady motion through an end is not pulled back).
 */
export const FILTER_ROTATIONS_DEFAULTS: Required<Omit<FilterRotationsOptions, 'out'>> = frozenDefaults({
  space: 'raw',
  boundary: SMOOTH_DEFAULTS.boundary,
});

const FILTER_ROTATIONS_SPEC: OptionSpec = {
  space: oneOf(ROTATION_SPACES),
  boundary: oneOf(BOUNDARIES),
  out: OUT_SERIES,
};

/**
 * Filters every joint's rotation signal along time with `kernel`: output frame `f` is the weighted sum of the
 * input frames `i` with weights `kernel.evaluate(f - i)`, taken in `space` and divided by the weight sum
 * (see `ops/kernel/rotation-blend.ts` for the three spaces). The output quaternions are unit length and each lies in
 * the hemisphere of the input sample at the same frame, so unrolled input gives unrolled output.
 *
 * Properties: a constant rotation comes back unchanged (to rounding); the filter commutes with a fixed
 * rotation applied to every input (left or right) in all spaces; `'raw'` does not need unrolled input
 * (every sample is aligned to the window centre); kernels with negative lobes (unsharp, lanczos) work in all
 * three spaces. Tap weights are computed once per output frame and reused for all joints; no allocation
 * inside the frame loop. In raw space, frames whose window lies inside the clip take a block fast path (each
 * block unrolled once; a chord-length bound proves the centre-aligned signs) with the same sums as the
 * generic engine; for symmetric non-negative 13-tap kernels (gaussian σ = 2) the path slides each joint's
 * window along time and adds symmetric tap pairs first, which changes the sums by rounding only (< 1e-15).
 *
 * Edge cases: 0 frames give an empty series; 1 frame gives the (normalised) input; windows longer than the
 * clip follow the boundary rule (`'wrap'` revisits frames). When the tap weights at a frame sum to zero (a
 * zero-mean kernel cut by `'renormalize'` at an end) an {@link InvalidValueError} names the frame; choose
 * another boundary then.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025): raw, relative-log and eigen weighted
 * sums; Lee and Shin (1995) for the relative log form; Markley et al. (2007) for the eigen average.
 *
 * @param series - input rotations, `x, y, z, w`, unit (raw space weighs samples by their norm).
 * @param kernel - a {@link Kernel} from `kernels`, in frames.
 * @throws {ShapeError} on a malformed series or `out`; {@link OptionError} on a bad kernel, space, boundary
 *   or an `out` aliasing the input; {@link InvalidValueError} on non-finite input or vanishing weight sums,
 *   with `location.frame` and `location.joint`.
 * @example
 * const smooth = filterRotations(clip.rotations, kernels.gaussian(2), { space: 'log' });
 */
export function filterRotations<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  kernel: Kernel,
  options: FilterRotationsOptions<T> = {},
): QuatSeries<T> {
  assertQuatSeries(series, 'filterRotations: series');
  options = resolveOptions('filterRotations', options, FILTER_ROTATIONS_DEFAULTS, FILTER_ROTATIONS_SPEC);
  if (!isKernel(kernel)) throw new OptionError('filterRotations: kernel must be a Kernel (see kernels)');
  const space = options.space ?? FILTER_ROTATIONS_DEFAULTS.space;
  checkRotationSpace(space, 'filterRotations');
  const boundary = options.boundary ?? FILTER_ROTATIONS_DEFAULTS.boundary;
  const { frames, joints } = series;
  const out = (options.out ?? createQuatSeries(frames, joints)) as QuatSeries<T>;
  if (options.out !== undefined) {
    assertQuatSeries(out, 'filterRotations: out');
    if (out.frames !== frames || out.joints !== joints) {
      throw new ShapeError(
        `filterRotations: out is ${out.frames} x ${out.joints}, series is ${frames} x ${joints}`,
      );
    }
    if (out.data.buffer === series.data.buffer && frames * joints > 0) {
      throw new OptionError('filterRotations: out must not share the input buffer');
    }
  }
  const win = createTapWindow(kernel, frames, boundary);
  if (frames === 0 || joints === 0) return out;
  const scratch = createWindowScratch();
  const stride = joints * 4;
  const src = series.data;
  const dst = out.data;
  const R = win.tableRadius;
  // raw space, frames whose window lies inside the clip: the block fast path (same sums, fewer operations)
  const fastFrom = space === 'raw' && frames >= 2 * R + 1 + FAST_MIN_FRAMES ? R : frames;
  const fastTo = fastFrom < frames ? frames - R : frames;
  for (let f = 0; f < frames; f++) {
    if (f === fastFrom) {
      placeTaps(win, f); // validates the interior weight sum once
      if (isSymmetric13(win.table)) filterRawSymmetric13(dst, src, joints, win.table, fastFrom, fastTo);
      else filterRawInterior(dst, src, joints, win.table, R, fastFrom, fastTo);
      f = fastTo - 1;
      continue;
    }
    placeTaps(win, f);
    blendRotations(dst, f * stride, src, joints, win, space, scratch);
  }
  return out;
}

/** Below this many interior frames the block fast path is not worth its set-up. */
const FAST_MIN_FRAMES = 16;
/** Output frames per block of the raw fast path (the block's unrolled copy stays in cache). */
const BLOCK = 64;
/**
 * Bound on the summed consecutive chord lengths |uᵢ₊₁ − uᵢ| (each over-estimated by its L1 length) under which
 * every pair of a window is within 90° in quaternion space (chord < √2 ⇔ dot > 0 for unit quaternions), with
 * margin for inputs that are unit only to ~1e-6.
 */
const SAFE_CHORDS = 1.3;

/**
 * Raw-space filtering of the frames `[from, to)` whose taps `f − R .. f + R` all lie inside the clip, with the
 * integer-offset weights `table` (index `R + f − i` for source frame `i`). Identical sums to the generic engine,
 * computed faster: each block of source frames is first unrolled along time (one dot product per sample instead
 * of one per tap) with the running chord length; a window whose chords add up to less than {@link SAFE_CHORDS}
 * has every sample within 90° of its centre, so the engine's align-to-centre signs equal the unrolled signs up
 * to one overall sign and the taps need no dot products. Other windows (spins of more than 90° inside one
 * window, non-unit or non-finite samples) take the generic per-tap path.
 */
function filterRawInterior(
  dst: FloatArray,
  src: FloatArray,
  joints: number,
  table: Float64Array,
  R: number,
  from: number,
  to: number,
): void {
  const stride = joints * 4;
  const span = BLOCK + 2 * R;
  // rows of the unrolled copy are padded by one cache line: a power-of-two row stride (64 joints = 2 KiB) would
  // map all taps of a window onto the same few L1 sets
  const ustride = stride + 8;
  const u = new Float64Array(span * ustride);
  const chords = new Float64Array(span * joints);
  const unsafe = new Uint8Array(joints);
  const taps = 2 * R + 1;
  for (let b0 = from; b0 < to; b0 += BLOCK) {
    const b1 = Math.min(to, b0 + BLOCK);
    const m = b1 - b0 + 2 * R;
    const s0 = b0 - R;
    unsafe.fill(0);
    // unroll the block along time and accumulate chord lengths per joint
    for (let k = 0, so = s0 * stride; k < stride; k++) u[k] = src[so + k];
    for (let j = 0; j < joints; j++) chords[j] = 0;
    for (let i = 0; i < m; i++) {
      const so = (s0 + i) * stride;
      const uo = i * ustride;
      for (let j = 0, jb = 0; j < joints; j++, jb += 4) {
        const qx = src[so + jb];
        const qy = src[so + jb + 1];
        const qz = src[so + jb + 2];
        const qw = src[so + jb + 3];
        const n2 = qx * qx + qy * qy + qz * qz + qw * qw;
        if (!(Math.abs(n2 - 1) <= 1e-6)) unsafe[j] = 1;
        if (i === 0) continue; // row 0 is copied below
        const po = uo - ustride + jb;
        const px = u[po];
        const py = u[po + 1];
        const pz = u[po + 2];
        const pw = u[po + 3];
        const sg = +(px * qx + py * qy + pz * qz + pw * qw >= 0) * 2 - 1;
        const x = sg * qx;
        const y = sg * qy;
        const z = sg * qz;
        const w = sg * qw;
        u[uo + jb] = x;
        u[uo + jb + 1] = y;
        u[uo + jb + 2] = z;
        u[uo + jb + 3] = w;
        // the L1 length bounds the chord from above and needs no square root
        chords[i * joints + j] =
          chords[(i - 1) * joints + j] +
          Math.abs(x - px) +
          Math.abs(y - py) +
          Math.abs(z - pz) +
          Math.abs(w - pw);
      }
    }
    for (let f = b0; f < b1; f++) {
      const c = f - s0; // centre index inside the block
      const lo = c - R;
      const hiRow = (c + R) * joints;
      const loRow = lo * joints;
      const ro = f * stride;
      let j = 0;
      while (j < joints) {
        const jb = j * 4;
        const safeA = unsafe[j] === 0 && chords[hiRow + j] - chords[loRow + j] < SAFE_CHORDS;
        if (
          safeA &&
          j + 1 < joints &&
          unsafe[j + 1] === 0 &&
          chords[hiRow + j + 1] - chords[loRow + j + 1] < SAFE_CHORDS
        ) {
          // two joints per pass over the taps: independent accumulator chains, shared weight loads
          let ax = 0;
          let ay = 0;
          let az = 0;
          let aw = 0;
          let bx = 0;
          let by = 0;
          let bz = 0;
          let bw = 0;
          // source frame i = f - R + t has weight table[R + f - i] = table[2R - t]
          for (let t = 0, o = lo * ustride + jb; t < taps; t++, o += ustride) {
            const w = table[taps - 1 - t];
            ax += w * u[o];
            ay += w * u[o + 1];
            az += w * u[o + 2];
            aw += w * u[o + 3];
            bx += w * u[o + 4];
            by += w * u[o + 5];
            bz += w * u[o + 6];
            bw += w * u[o + 7];
          }
          storeRaw(dst, src, ro + jb, ax, ay, az, aw, f, R, joints, j);
          storeRaw(dst, src, ro + jb + 4, bx, by, bz, bw, f, R, joints, j + 1);
          j += 2;
          continue;
        }
        let ax = 0;
        let ay = 0;
        let az = 0;
        let aw = 0;
        if (safeA) {
          for (let t = 0, o = lo * ustride + jb; t < taps; t++, o += ustride) {
            const w = table[taps - 1 - t];
            ax += w * u[o];
            ay += w * u[o + 1];
            az += w * u[o + 2];
            aw += w * u[o + 3];
          }
        } else {
          const rx = src[ro + jb];
          const ry = src[ro + jb + 1];
          const rz = src[ro + jb + 2];
          const rw = src[ro + jb + 3];
          for (let t = 0, o = (f - R) * stride + jb; t < taps; t++, o += stride) {
            const qx = src[o];
            const qy = src[o + 1];
            const qz = src[o + 2];
            const qw = src[o + 3];
            const w = table[taps - 1 - t] * (+(rx * qx + ry * qy + rz * qz + rw * qw >= 0) * 2 - 1);
            ax += w * qx;
            ay += w * qy;
            az += w * qz;
            aw += w * qw;
          }
        }
        storeRaw(dst, src, ro + jb, ax, ay, az, aw, f, R, joints, j);
        j++;
      }
    }
  }
}

/**
 * Whether the raw fast path may use {@link filterRawSymmetric13}: 13 integer taps (radius 6: gaussian σ = 2
 * with the default truncation), an exactly symmetric table and no negative weight.
 */
function isSymmetric13(table: Float64Array): boolean {
  if (table.length !== 13) return false;
  for (let k = 0; k < 13; k++) if (!(table[k] >= 0) || table[k] !== table[12 - k]) return false;
  return true;
}

/**
 * Raw-space filtering of the interior frames `[from, to)` for a symmetric, non-negative 13-tap table (see
 * {@link isSymmetric13}). Same method as {@link filterRawInterior} (each block unrolled once, a chord bound
 * proves the centre-aligned signs), organised so that every sample is loaded once per output component:
 * 1. {@link unrollBlock13}: a row-major pass over the block's source frames writes each joint's unrolled
 *    curve contiguously, the running chord length and the sign each sample was multiplied by;
 * 2. {@link slideBlock13}: per joint and component, {@link slide13} slides a window of 13 locals along the
 *    curve, summing the symmetric pairs first (7 multiplications instead of 13);
 * 3. {@link normaliseBlock13}: a row-major pass normalises the sums into the output.
 * The sums differ from the generic engine's tap-ordered sums by rounding only (measured below 6e-16 per
 * component; the fast-path test bounds it by 1e-15). Windows the chord bound cannot clear take the generic
 * per-tap path with centre-aligned signs. Where the engine has WebAssembly SIMD, the three phases run on
 * the `raw13` kernel ({@link createSimdRaw13}), two joints per instruction with the same operations in the
 * same order, so the bits are the same: on the eight shared captures, filtering takes about a third less
 * time.
 */
function filterRawSymmetric13(
  dst: FloatArray,
  src: FloatArray,
  joints: number,
  table: Float64Array,
  from: number,
  to: number,
): void {
  // on the SIMD kernel where there is one (the same bits); a block it leaves, and every block without it,
  // through the JavaScript phases
  const simd = createSimdRaw13(joints, table, to - from, SAFE_CHORDS);
  if (simd === null) {
    raw13Blocks(new Raw13Scratch(joints), dst, src, joints, table, from, to);
    return;
  }
  let scratch: Raw13Scratch | null = null;
  for (let b0 = from; b0 < to; b0 += simd.block) {
    const b1 = Math.min(to, b0 + simd.block);
    const left = simd.run(dst, src, b0, b1);
    if (left < 0) {
      scratch ??= new Raw13Scratch(joints);
      raw13Blocks(scratch, dst, src, joints, table, b0, b1);
      continue;
    }
    // the windows the chord bound cannot clear, as the JavaScript phases take them
    unsafeWindows(dst, src, joints, table, b0, simd.unsafe, left);
  }
}

/**
 * The windows of a block starting at output frame `b0` that the chord bound cannot clear (`unsafe[0..count)`,
 * `(f − b0) · joints + joint` in row-major order), on the generic per-tap path with centre-aligned signs.
 */
function unsafeWindows(
  dst: FloatArray,
  src: FloatArray,
  joints: number,
  table: Float64Array,
  b0: number,
  unsafe: Int32Array,
  count: number,
): void {
  const stride = joints * 4;
  for (let k = 0; k < count; k++) {
    const f = b0 + Math.floor(unsafe[k] / joints);
    const j = unsafe[k] - (f - b0) * joints;
    rawAlignedToCentre(dst, src, f * stride + j * 4, stride, table, 6, f, joints, j);
  }
}

/** The arrays of {@link raw13Blocks}, for blocks of {@link BLOCK13} output frames. */
class Raw13Scratch {
  /** Joint-major unrolled rows, one spare: u[j · jspan + row · 4 + c]. */
  readonly u: Float64Array;
  readonly jspan: number;
  /** Row-major running chord lengths and unroll signs: chords[row · joints + j]. */
  readonly chords: Float64Array;
  readonly signs: Float64Array;
  /** Row-major sums of the block's output frames, one spare row. */
  readonly acc: Float64Array;
  /** (frame − b0) · joints + joint of each window left to the per-tap path. */
  readonly unsafe: Int32Array;
  constructor(joints: number) {
    const R = 6;
    // one spare row in `u` and `acc`: slide13 computes outputs in pairs, the spare takes an odd block's last
    this.jspan = (BLOCK13 + 2 * R + 1) * 4;
    this.u = new Float64Array(joints * this.jspan);
    this.chords = new Float64Array((BLOCK13 + 2 * R) * joints);
    this.signs = new Float64Array((BLOCK13 + 2 * R) * joints);
    this.acc = new Float64Array((BLOCK13 + 1) * joints * 4);
    this.unsafe = new Int32Array(BLOCK13 * joints);
  }
}

/** The JavaScript phases of {@link filterRawSymmetric13} over output frames `[from, to)`. */
function raw13Blocks(
  scratch: Raw13Scratch,
  dst: FloatArray,
  src: FloatArray,
  joints: number,
  table: Float64Array,
  from: number,
  to: number,
): void {
  const R = 6;
  const stride = joints * 4;
  const { u, jspan, chords, signs, acc, unsafe } = scratch;
  // The block loop only hands over: each phase is a function called once per block, so the optimising compiler
  // compiles small functions early instead of replacing one long-running activation several times, and the
  // rare generic path runs from here rather than inside an optimised loop that has never seen it.
  for (let b0 = from; b0 < to; b0 += BLOCK13) {
    const b1 = Math.min(to, b0 + BLOCK13);
    unrollBlock13(u, chords, signs, src, joints, b0 - R, b1 - b0 + 2 * R, jspan);
    slideBlock13(acc, u, joints, (b1 - b0) * stride, jspan, table);
    const left = normaliseBlock13(dst, src, acc, chords, signs, joints, b0, b1, unsafe);
    unsafeWindows(dst, src, joints, table, b0, unsafe, left);
  }
}

/** Output frames per block of {@link filterRawSymmetric13}. */
const BLOCK13 = 128;

/**
 * Phase 1 of {@link filterRawSymmetric13}: copies the `m` source frames from `s0` into `u` joint by joint,
 * unrolled along time, with the running L1 chord length (plus infinity after a sample whose norm is not
 * 1 ± 1e-6) and the sign each sample was multiplied by.
 */
function unrollBlock13(
  u: Float64Array,
  chords: Float64Array,
  signs: Float64Array,
  src: FloatArray,
  joints: number,
  s0: number,
  m: number,
  jspan: number,
): void {
  const stride = joints * 4;
  for (let j = 0, so = s0 * stride, uo = 0; j < joints; j++, so += 4, uo += jspan) {
    const qx = src[so];
    const qy = src[so + 1];
    const qz = src[so + 2];
    const qw = src[so + 3];
    u[uo] = qx;
    u[uo + 1] = qy;
    u[uo + 2] = qz;
    u[uo + 3] = qw;
    chords[j] = Math.abs(qx * qx + qy * qy + qz * qz + qw * qw - 1) <= 1e-6 ? 0 : Number.POSITIVE_INFINITY;
    signs[j] = 1;
  }
  for (let i = 1; i < m; i++) {
    const so = (s0 + i) * stride;
    for (let j = 0, jb = 0, uo = i * 4, co = i * joints; j < joints; j++, jb += 4, uo += jspan, co++) {
      const qx = src[so + jb];
      const qy = src[so + jb + 1];
      const qz = src[so + jb + 2];
      const qw = src[so + jb + 3];
      const bad = Math.abs(qx * qx + qy * qy + qz * qz + qw * qw - 1) <= 1e-6 ? 0 : Number.POSITIVE_INFINITY;
      const px = u[uo - 4];
      const py = u[uo - 3];
      const pz = u[uo - 2];
      const pw = u[uo - 1];
      const sg = +(px * qx + py * qy + pz * qz + pw * qw >= 0) * 2 - 1;
      const x = sg * qx;
      const y = sg * qy;
      const z = sg * qz;
      const w = sg * qw;
      u[uo] = x;
      u[uo + 1] = y;
      u[uo + 2] = z;
      u[uo + 3] = w;
      signs[co] = sg;
      // the L1 length bounds the chord from above and needs no square root; NaN input stays NaN (unsafe)
      chords[co] =
        chords[co - joints] + Math.abs(x - px) + Math.abs(y - py) + Math.abs(z - pz) + Math.abs(w - pw) + bad;
    }
  }
}

/** Phase 2 of {@link filterRawSymmetric13}: {@link slide13} for every joint and component of the block. */
function slideBlock13(
  acc: Float64Array,
  u: Float64Array,
  joints: number,
  end: number,
  jspan: number,
  table: Float64Array,
): void {
  const stride = joints * 4;
  for (let j = 0; j < joints; j++) {
    for (let c = 0; c < 4; c++) slide13(acc, j * 4 + c, end, stride, u, j * jspan + c, table);
  }
}

/**
 * Phase 3 of {@link filterRawSymmetric13}: normalises the sums of output frames `[b0, b1)` into `dst`. With
 * non-negative weights and every pair of a window within 90°, the sum lies in the hemisphere of the unrolled
 * centre sample, so the output sign is that sample's unroll sign (no dot product). Windows the chord bound
 * cannot clear are not written: their `(f − b0) · joints + joint` go to `unsafe`, and the count is returned.
 */
function normaliseBlock13(
  dst: FloatArray,
  src: FloatArray,
  acc: Float64Array,
  chords: Float64Array,
  signs: Float64Array,
  joints: number,
  b0: number,
  b1: number,
  unsafe: Int32Array,
): number {
  const R = 6;
  const stride = joints * 4;
  let left = 0;
  for (let f = b0, i = 0; f < b1; f++) {
    const c = f - b0 + R;
    const hiRow = (c + R) * joints;
    const loRow = (c - R) * joints;
    const cRow = c * joints;
    for (let j = 0; j < joints; j++, i += 4) {
      if (chords[hiRow + j] - chords[loRow + j] < SAFE_CHORDS) {
        const ax = acc[i];
        const ay = acc[i + 1];
        const az = acc[i + 2];
        const aw = acc[i + 3];
        const n2 = ax * ax + ay * ay + az * az + aw * aw;
        if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY)) throwRawFailure(src, f, R, joints, j);
        const sc = signs[cRow + j] / Math.sqrt(n2);
        const d = f * stride + j * 4;
        dst[d] = ax * sc;
        dst[d + 1] = ay * sc;
        dst[d + 2] = az * sc;
        dst[d + 3] = aw * sc;
      } else {
        // rare on real data: the first one costs a deoptimisation of this small function only
        unsafe[left++] = (f - b0) * joints + j;
      }
    }
  }
  return left;
}

/**
 * One component of one joint's windowed sums over a block: `acc[a] = Σₖ table[k]·(u[k] + u[12 − k]) + …`
 * for `a = first, first + step, … < end`, the window (13 rows of `u`, 4 apart, from `uo`) held in locals and
 * slid along the rows. When the count is odd it also writes `acc[end + …]` from one row past the last window,
 * so both arrays need a spare row.
 */
function slide13(
  acc: Float64Array,
  first: number,
  end: number,
  step: number,
  u: Float64Array,
  uo: number,
  table: Float64Array,
): void {
  const w0 = table[0];
  const w1 = table[1];
  const w2 = table[2];
  const w3 = table[3];
  const w4 = table[4];
  const w5 = table[5];
  const w6 = table[6];
  let o = uo;
  let a0 = u[o];
  o += 4;
  let a1 = u[o];
  o += 4;
  let a2 = u[o];
  o += 4;
  let a3 = u[o];
  o += 4;
  let a4 = u[o];
  o += 4;
  let a5 = u[o];
  o += 4;
  let a6 = u[o];
  o += 4;
  let a7 = u[o];
  o += 4;
  let a8 = u[o];
  o += 4;
  let a9 = u[o];
  o += 4;
  let a10 = u[o];
  o += 4;
  let a11 = u[o];
  o += 4;
  // two outputs per iteration: the window moves by two rows, half the register moves per output. An odd
  // count computes one output past `end` from one row past the window (both spare rows, see the caller)
  // instead of taking a tail branch that would run only on some blocks.
  for (let a = first; a < end; a += 2 * step, o += 8) {
    const a12 = u[o];
    const a13 = u[o + 4];
    acc[a] =
      w0 * (a0 + a12) +
      w1 * (a1 + a11) +
      w2 * (a2 + a10) +
      w3 * (a3 + a9) +
      w4 * (a4 + a8) +
      w5 * (a5 + a7) +
      w6 * a6;
    acc[a + step] =
      w0 * (a1 + a13) +
      w1 * (a2 + a12) +
      w2 * (a3 + a11) +
      w3 * (a4 + a10) +
      w4 * (a5 + a9) +
      w5 * (a6 + a8) +
      w6 * a7;
    a0 = a2;
    a1 = a3;
    a2 = a4;
    a3 = a5;
    a4 = a6;
    a5 = a7;
    a6 = a8;
    a7 = a9;
    a8 = a10;
    a9 = a11;
    a10 = a12;
    a11 = a13;
  }
}

/** The generic engine's raw blend of one joint at frame `f` (taps aligned to the centre sample), stored. */
function rawAlignedToCentre(
  dst: FloatArray,
  src: FloatArray,
  d: number,
  stride: number,
  table: Float64Array,
  R: number,
  f: number,
  joints: number,
  joint: number,
): void {
  const rx = src[d];
  const ry = src[d + 1];
  const rz = src[d + 2];
  const rw = src[d + 3];
  const taps = 2 * R + 1;
  let ax = 0;
  let ay = 0;
  let az = 0;
  let aw = 0;
  for (let t = 0, o = d - R * stride; t < taps; t++, o += stride) {
    const qx = src[o];
    const qy = src[o + 1];
    const qz = src[o + 2];
    const qw = src[o + 3];
    const w = table[taps - 1 - t] * (+(rx * qx + ry * qy + rz * qz + rw * qw >= 0) * 2 - 1);
    ax += w * qx;
    ay += w * qy;
    az += w * qz;
    aw += w * qw;
  }
  storeRaw(dst, src, d, ax, ay, az, aw, f, R, joints, joint);
}

/** Normalises a raw sum into the hemisphere of the input sample at the same place and stores it. */
function storeRaw(
  dst: FloatArray,
  src: FloatArray,
  d: number,
  ax: number,
  ay: number,
  az: number,
  aw: number,
  f: number,
  R: number,
  joints: number,
  joint: number,
): void {
  const n2 = ax * ax + ay * ay + az * az + aw * aw;
  if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY)) throwRawFailure(src, f, R, joints, joint);
  let sc = 1 / Math.sqrt(n2);
  if (src[d] * ax + src[d + 1] * ay + src[d + 2] * az + src[d + 3] * aw < 0) sc = -sc;
  dst[d] = ax * sc;
  dst[d + 1] = ay * sc;
  dst[d + 2] = az * sc;
  dst[d + 3] = aw * sc;
}

function throwRawFailure(src: FloatArray, f: number, R: number, joints: number, joint: number): never {
  for (let i = f - R; i <= f + R; i++) {
    const o = (i * joints + joint) * 4;
    for (let c = 0; c < 4; c++) {
      if (!Number.isFinite(src[o + c])) {
        throw new InvalidValueError(
          `filterRotations: non-finite input at frame ${i}, joint ${joint} (${src[o + c]})`,
          {
            frame: i,
            joint,
          },
        );
      }
    }
  }
  throw new InvalidValueError(
    `filterRotations: the weighted sum of rotations vanished at frame ${f}, joint ${joint}; ` +
      'the samples under a kernel with negative lobes cancel',
    { frame: f, joint },
  );
}
