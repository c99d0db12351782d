import { InvalidValueError, OptionError, ShapeError } from '../errors.js';
import { assertQuatSeries, createQuatSeries } from '../series/create.js';
import type { FloatArray, QuatSeries } from '../series/types.js';
import { isKernel, type Kernel } from './kernels.js';
import {
  type Boundary,
  blendRotations,
  checkRotationSpace,
  createTapWindow,
  createWindowScratch,
  placeTaps,
  type RotationSpace,
} from './rotation-window.js';

/** Options of {@link filterRotations}. */
export interface FilterRotationsOptions<T extends FloatArray = FloatArray> {
  /** Where the weighted sums are taken: `'raw'` (nlerp-like, fastest), `'log'` (slerp-like), `'eigen'` (robust). */
  space?: RotationSpace;
  /** What taps beyond the clip ends read; see {@link Boundary}. */
  boundary?: Boundary;
  /** Receives the result (same shape as the input, must not share its buffer); allocated (Float64) if absent. */
  out?: QuatSeries<T>;
}

/** Defaults of {@link FilterRotationsOptions}: raw space, `'renormalize'` ends (taps past the ends are dropped). */
export const FILTER_ROTATIONS_DEFAULTS: Required<Omit<FilterRotationsOptions, 'out'>> = {
  space: 'raw',
  boundary: 'renormalize',
};

/**
 * Filters every joint's rotation signal along time with `kernel`: output frame `f` is the weighted sum of the
 * input frames `i` with weights `kernel.evaluate(f - i)`, taken in `space` and divided by the weight sum
 * (see `rotation-window.ts` for the three spaces). The output quaternions are unit length and each lies in
 * the hemisphere of the input sample at the same frame, so unrolled input gives unrolled output.
 *
 * Properties: a constant rotation comes back unchanged (to rounding); the filter commutes with a fixed
 * rotation applied to every input (left or right) in all spaces; `'raw'` does not need unrolled input
 * (every sample is aligned to the window centre); kernels with negative lobes (unsharp, lanczos) work in all
 * three spaces. Tap weights are computed once per output frame and reused for all joints; no allocation
 * inside the frame loop. In raw space, frames whose window lies inside the clip take a block fast path (each
 * block unrolled once; a chord-length bound proves the centre-aligned signs) with the same sums as the
 * generic engine.
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
      filterRawInterior(dst, src, joints, win.table, R, fastFrom, fastTo);
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
