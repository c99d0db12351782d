/**
 * Weighted sums of rotations under a placed tap window (tap-window.ts): the rotation half of the windowed
 * engine shared by filtering, resampling and the streaming filter. A kernel is placed at an arbitrary (possibly
 * fractional) centre on the frame axis, which collects the integer frames under it with their weights (after a
 * boundary rule); then every joint's samples under those taps are blended.
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

import { InvalidValueError, OptionError } from '../../errors.js';
import { EIGEN4_SCRATCH_LENGTH } from '../../numeric/eigen4.js';
import { eigenAverageFlat, eigenAverageStrided } from '../../numeric/eigen4-average.js';
import type { FloatArray } from '../../series/types.js';
import { checkBlend, type TapWindow } from './tap-window.js';

/** Where a weighted sum of rotations is taken. */
export type RotationSpace = 'raw' | 'log' | 'eigen';

/** The valid {@link RotationSpace} names. */
export const ROTATION_SPACES: readonly RotationSpace[] = Object.freeze(['raw', 'log', 'eigen']);

/** Throws an {@link OptionError} unless `space` is a {@link RotationSpace}. */
export function checkRotationSpace(space: unknown, where: string): asserts space is RotationSpace {
  if (!ROTATION_SPACES.includes(space as RotationSpace)) {
    throw new OptionError(
      `${where}: space must be one of ${ROTATION_SPACES.join(', ')}, got ${String(space)}`,
    );
  }
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
  // taps on consecutive frames (away from the ends) are one joint's samples at a constant stride: read in
  // place, without an offsets list (which the kernel would gather first)
  const f0 = frames[0];
  let consecutive = true;
  for (let t = 1; t < count; t++) if (frames[t] !== f0 + t) consecutive = false;
  for (let j = 0, b = 0; j < joints; j++, b += 4) {
    const r = refBase + b;
    try {
      // the reference sample starts the certified power iteration (Davis–Kahan stop, Jacobi fallback)
      if (consecutive)
        eigenAverageStrided(v, 0, data, f0 * stride + b, stride, ws, count, es, undefined, data, r);
      else {
        for (let t = 0; t < count; t++) offs[t] = frames[t] * stride + b;
        eigenAverageFlat(v, 0, data, offs, ws, count, es, undefined, data, r);
      }
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
