/**
 * Resampling of rotation series to any rate on an exact time grid, with any kernel, anti-aliased when
 * down-sampling.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../errors.js';
import { atan2OverSFromSquares, cosOfTheta, sinOverTheta } from '../numeric/fast-trig.js';
import { assertQuatSeries } from '../series/create.js';
import type { FloatArray, QuatSeries } from '../series/types.js';
import {
  box,
  catmullRom,
  cubic6,
  isKernel,
  type Kernel,
  lanczos,
  scaleKernel,
  sinc,
  tent,
} from './kernels.js';
import {
  BOUNDARIES,
  type Boundary,
  blendRotations,
  checkRotationSpace,
  createTapWindow,
  createWindowScratch,
  placeTaps,
  type RotationSpace,
  type TapWindow,
} from './rotation-window.js';
import { checkRate, type DurationPolicy, type TimeGrid, timeGrid } from './time-grid.js';

/** Kernels available by name for resampling. All but `'nearest'` and `'sinc'`… see {@link resampleKernel}. */
export type ResampleKernelName =
  | 'nearest'
  | 'linear'
  | 'catmull-rom'
  | 'cubic6'
  | 'lanczos2'
  | 'lanczos3'
  | 'sinc';

/** Every {@link ResampleKernelName}. */
export const RESAMPLE_KERNEL_NAMES: readonly ResampleKernelName[] = [
  'nearest',
  'linear',
  'catmull-rom',
  'cubic6',
  'lanczos2',
  'lanczos3',
  'sinc',
];

/**
 * The kernel behind a resampling kernel name: `'nearest'` = `kernels.box`, `'linear'` = `kernels.tent`,
 * `'catmull-rom'` = `kernels.catmullRom`, `'cubic6'` = `kernels.cubic6`, `'lanczos2'`/`'lanczos3'` =
 * `kernels.lanczos(2 | 3)`, `'sinc'` = `kernels.sinc()` (cut at 6 frames). A {@link Kernel} passes through.
 * Interpolating (1 at 0, 0 at the other integers): linear, catmull-rom, cubic6, lanczos2, lanczos3, sinc.
 *
 * @throws {OptionError} on an unknown name or a value that is not a kernel.
 */
export function resampleKernel(kernel: Kernel | ResampleKernelName, where = 'resampleKernel'): Kernel {
  if (typeof kernel === 'string') {
    switch (kernel) {
      case 'nearest':
        return box;
      case 'linear':
        return tent;
      case 'catmull-rom':
        return catmullRom;
      case 'cubic6':
        return cubic6;
      case 'lanczos2':
        return LANCZOS2;
      case 'lanczos3':
        return LANCZOS3;
      case 'sinc':
        return SINC;
    }
    throw new OptionError(
      `${where}: kernel must be one of ${RESAMPLE_KERNEL_NAMES.join(', ')} or a Kernel, got '${kernel}'`,
    );
  }
  if (!isKernel(kernel))
    throw new OptionError(`${where}: kernel must be a kernel name or a Kernel { name, radius, evaluate }`);
  return kernel;
}

const LANCZOS2 = lanczos(2);
const LANCZOS3 = lanczos(3);
const SINC = sinc();

/** Options shared by {@link resampleRotations} and `resampleVectors`. */
export interface ResampleOptions {
  /** Rate of the source in Hz (any positive real: 29.97, 59.94, 125). Required unless `sourceTimes` is given. */
  sourceRate?: number;
  /**
   * Source sample times in seconds, as an alternative to `sourceRate`: they must be uniform (equal steps
   * within 1e-6 relative), otherwise an {@link InvalidValueError} names the first uneven step. The grid
   * then starts at `sourceTimes[0]`; output times are still reported from 0.
   */
  sourceTimes?: ArrayLike<number>;
  /** Output rate in Hz. Give this or `times`. */
  targetRate?: number;
  /**
   * Explicit output times in seconds from the source's first frame (any order, any spacing). Overrides
   * `targetRate` and `duration`; when the times increase, anti-aliasing widens the kernel by `sourceRate`
   * times their mean step if that is more than one source frame (unordered times are not widened).
   */
  times?: ArrayLike<number>;
  /** Kernel by name or value. Default `'catmull-rom'`. */
  kernel?: Kernel | ResampleKernelName;
  /** Space of the weighted sum (see `rotation-window`). Default `'log'`. */
  space?: RotationSpace;
  /** What taps outside the clip read. Default `'clamp'`; `'wrap'` for loops. */
  boundary?: Boundary;
  /**
   * Down-sampling (target rate below source rate) widens the kernel by `sourceRate / targetRate` so it
   * removes what the coarser grid cannot hold. `false` samples the unwidened kernel (decimation with
   * `'nearest'`). Default `true`. Has no effect when up-sampling.
   */
  antialias?: boolean;
  /**
   * Frame count and end policy; see `DurationPolicy` in `time-grid`. Default `'floor'`, or `'loop'` when
   * `boundary` is `'wrap'`.
   */
  duration?: DurationPolicy;
}

/** Defaults of {@link ResampleOptions}. */
export const RESAMPLE_DEFAULTS = {
  kernel: 'catmull-rom' as Kernel | ResampleKernelName,
  space: 'log' as RotationSpace,
  boundary: 'clamp' as Boundary,
  antialias: true,
  duration: 'floor' as DurationPolicy,
};

/** Options of {@link resampleRotations}. */
export interface ResampleRotationsOptions<T extends FloatArray = Float64Array> extends ResampleOptions {
  /** Where to write (`frames x joints` of the output grid, Float64 or Float32). Default: a new Float64 series. */
  out?: QuatSeries<T>;
}

/** A resampled series: the data plus the grid it lives on. */
export interface ResampledGrid {
  /** Output rate in Hz (see `DurationPolicy` for when it differs from `targetRate`); NaN for explicit `times`. */
  rate: number;
  /** Output times in seconds from the source's first frame. */
  times: Float64Array;
}

/** @internal resolved options and grid shared by the resamplers */
export interface ResamplePlan {
  kernel: Kernel;
  space: RotationSpace;
  boundary: Boundary;
  grid: TimeGrid;
  sourceRate: number;
}

/** @internal */
export function checkUniformTimes(times: ArrayLike<number>, where: string): number {
  const n = times.length;
  if (n < 2) throw new OptionError(`${where}: sourceTimes needs at least two times to define a rate`);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(times[i]))
      throw new InvalidValueError(`${where}: sourceTimes[${i}] is not finite (${times[i]})`, { index: i });
  }
  const step = (times[n - 1] - times[0]) / (n - 1);
  if (!(step > 0)) throw new InvalidValueError(`${where}: sourceTimes must increase`, { index: n - 1 });
  for (let i = 1; i < n; i++) {
    const d = times[i] - times[i - 1];
    if (Math.abs(d - step) > 1e-6 * step) {
      throw new InvalidValueError(
        `${where}: source is not uniformly sampled: step ${i - 1}→${i} is ${d} s but the mean step is ${step} s; ` +
          'this API takes a uniform source rate (resample non-uniform keys with an interpolation first)',
        { index: i },
      );
    }
  }
  return 1 / step;
}

/** @internal */
export function planResample(frames: number, options: ResampleOptions, where: string): ResamplePlan {
  if (options === null || typeof options !== 'object')
    throw new OptionError(`${where}: options with sourceRate are required`);
  let sourceRate = options.sourceRate;
  if (options.sourceTimes !== undefined) {
    const st = options.sourceTimes;
    if (st.length !== frames) {
      throw new ShapeError(
        `${where}: sourceTimes has ${st.length} times but the series has ${frames} frames`,
      );
    }
    const r = checkUniformTimes(st, where);
    if (sourceRate !== undefined && Math.abs(sourceRate - r) > 1e-6 * r) {
      throw new OptionError(`${where}: sourceRate ${sourceRate} disagrees with sourceTimes (${r} Hz)`);
    }
    sourceRate ??= r;
  }
  checkRate(sourceRate, 'sourceRate', where);
  const kernel0 = resampleKernel(options.kernel ?? RESAMPLE_DEFAULTS.kernel, where);
  const space = options.space ?? RESAMPLE_DEFAULTS.space;
  checkRotationSpace(space, where);
  const boundary = options.boundary ?? RESAMPLE_DEFAULTS.boundary;
  if (!BOUNDARIES.includes(boundary)) {
    throw new OptionError(
      `${where}: boundary must be one of ${BOUNDARIES.join(', ')}, got ${String(boundary)}`,
    );
  }
  const antialias = options.antialias ?? RESAMPLE_DEFAULTS.antialias;
  if (typeof antialias !== 'boolean') throw new OptionError(`${where}: antialias must be true or false`);

  let grid: TimeGrid;
  let factor = 1;
  if (options.times !== undefined) {
    const t = options.times;
    const m = t.length;
    const times = new Float64Array(m);
    const positions = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const v = t[i];
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new InvalidValueError(`${where}: times[${i}] is not a finite number (${String(v)})`, {
          index: i,
        });
      }
      times[i] = v;
      positions[i] = v * sourceRate;
    }
    grid = { frames: m, rate: Number.NaN, times, positions };
    let increasing = m > 1;
    for (let i = 1; i < m && increasing; i++) increasing = times[i] > times[i - 1];
    if (increasing) factor = ((times[m - 1] - times[0]) * sourceRate) / (m - 1);
  } else {
    if (options.targetRate === undefined) throw new OptionError(`${where}: give targetRate or times`);
    checkRate(options.targetRate, 'targetRate', where);
    const duration = options.duration ?? (boundary === 'wrap' ? 'loop' : RESAMPLE_DEFAULTS.duration);
    grid = timeGrid(frames, sourceRate, options.targetRate, { duration });
    factor = sourceRate / grid.rate;
  }
  const kernel = antialias && factor > 1 + 1e-12 ? scaleKernel(kernel0, factor) : kernel0;
  return { kernel, space, boundary, grid, sourceRate };
}

/**
 * Resamples a rotation series from `sourceRate` to `targetRate` (or to explicit `times`) with a kernel.
 *
 * The source is a train of samples at `i / sourceRate` s. Output frame i sits at `times[i]` (from
 * `timeGrid`: `i / targetRate`, computed from the index, so no drift), i.e. at the fractional source
 * position `u = times[i] · sourceRate`; its rotation is the weighted sum of the source rotations under the
 * kernel placed at `u` (weights `kernel(u − k)`, divided by their sum), taken in `space` by the shared
 * rotation-window engine: `'log'` (slerp-like, default), `'raw'` (nlerp-like) or `'eigen'`.
 * Up-sampling evaluates the kernel at fractional positions; down-sampling (target below source) widens
 * the kernel by the ratio (`scaleKernel`), which anti-aliases, unless `antialias: false`. Interpolating
 * kernels (linear, catmull-rom, cubic6, lanczos2/3, sinc) return the source sample exactly where an output
 * time coincides with a source time; symmetric kernels add no time shift.
 *
 * Time grid: output frame 0 is at the source's first frame; with the default `duration: 'floor'` the last
 * output time is on or before the source's last time; `'keep-end'` ends exactly on it (rate adjusted to
 * fit, reported in `rate`), `'ceil'` covers it, `'loop'` (the default with `boundary: 'wrap'`) keeps a
 * looping clip's period so it stays seamless. Output rotations are unit, in the hemisphere of the nearest
 * source sample (an unrolled input gives an unrolled output).
 *
 * Edge cases: 0 source frames give 0 output frames; 1 source frame gives constant output. Only uniformly
 * sampled sources are accepted (`sourceTimes` is checked).
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025): up-sampling as convolution with an
 * interpolation kernel, down-sampling with the kernel scaled to the target interval.
 *
 * @throws {ShapeError} on a malformed series or `out`. @throws {OptionError} on bad options.
 * @throws {InvalidValueError} on non-finite samples or non-uniform `sourceTimes`, naming where.
 * @example
 * const up = resampleRotations(series, { sourceRate: 30, targetRate: 120, kernel: 'lanczos3' });
 * up.frames; // 4 · (series.frames − 1) + 1, up.times[i] === i / 120
 */
export function resampleRotations<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  options: ResampleRotationsOptions<T>,
): QuatSeries<T> & ResampledGrid {
  const where = 'resampleRotations';
  assertQuatSeries(series, `${where}: series`);
  const plan = planResample(series.frames, options, where);
  const { grid } = plan;
  const joints = series.joints;
  const size = grid.frames * joints * 4;
  let out: QuatSeries<T>;
  if (options.out !== undefined) {
    assertQuatSeries(options.out, `${where}: out`);
    if (options.out.frames !== grid.frames || options.out.joints !== joints) {
      throw new ShapeError(
        `${where}: out is ${options.out.frames} x ${options.out.joints}, the output grid is ${grid.frames} x ${joints}`,
      );
    }
    out = options.out;
  } else {
    out = { data: new Float64Array(size) as T, frames: grid.frames, joints };
  }
  if (grid.frames > 0 && joints > 0) {
    const win = createTapWindow(plan.kernel, series.frames, plan.boundary);
    const scratch = createWindowScratch();
    const pos = grid.positions;
    const data = series.data;
    const od = out.data;
    if (plan.space === 'log') {
      blendLogCached(od, data, joints, pos, win);
    } else {
      for (let f = 0; f < grid.frames; f++) {
        placeTaps(win, pos[f]);
        blendRotations(od, f * joints * 4, data, joints, win, plan.space, scratch);
      }
    }
  }
  return { data: out.data, frames: grid.frames, joints, rate: grid.rate, times: grid.times };
}

/**
 * The log-space blend of the shared rotation-window engine, `r ⊗ exp(Σ wₖ log(r⁻¹ ⊗ qₖ) / Σ wₖ)` with the
 * reference r and the taps from `placeTaps`, computed for a whole output grid at once: the relative logs
 * `log(r⁻¹ ⊗ qₖ)` depend only on (reference, tap frame), so when consecutive output frames share a
 * reference (up-sampling: `ratio` outputs per source frame) they are computed once and reused, and the
 * small-angle atan/sin/cos use ulp-accurate polynomials (`numeric/fast-trig`). Equal to
 * `blendRotations(…, 'log', …)` frame by frame up to rounding (the tests check 1e-14).
 */
function blendLogCached(
  out: FloatArray,
  data: FloatArray,
  joints: number,
  positions: Float64Array,
  win: TapWindow,
): void {
  const stride = joints * 4;
  const reach = Math.ceil(win.kernel.radius) + 1;
  const slots = 2 * reach + 1;
  // cache[(slot * joints + j) * 3]: relative log of tap frame (reference + slot − reach) for joint j
  const cache = new Float64Array(slots * joints * 3);
  const slotRef = new Int32Array(slots).fill(-1);
  const slotOf = new Int32Array(win.tapFrames.length);
  const cached = new Uint8Array(win.tapFrames.length);
  const ws = win.tapWeights;
  const tf = win.tapFrames;
  for (let f = 0; f < positions.length; f++) {
    placeTaps(win, positions[f]);
    const ref = win.reference;
    const count = win.count;
    // taps whose weight is below rounding of the sum (lanczos and sinc at their zero crossings give
    // ~1e-17 instead of 0) contribute nothing representable and are skipped
    const negligible = 1e-14 * Math.abs(win.weightSum);
    for (let t = 0; t < count; t++) {
      const d = tf[t] - ref;
      // taps that wrapped round a loop fall outside the slot range: computed, not cached
      const slot = d >= -reach && d <= reach ? d + reach : -1;
      slotOf[t] = tf[t] === ref || Math.abs(ws[t]) <= negligible ? -2 : slot;
      cached[t] = slot >= 0 && slotRef[slot] === ref ? 1 : 0;
    }
    const invW = 1 / win.weightSum;
    const refBase = ref * stride;
    const outBase = f * stride;
    for (let j = 0, b = 0; j < joints; j++, b += 4) {
      const r = refBase + b;
      const rx = data[r];
      const ry = data[r + 1];
      const rz = data[r + 2];
      const rw = data[r + 3];
      let vx = 0;
      let vy = 0;
      let vz = 0;
      for (let t = 0; t < count; t++) {
        const slot = slotOf[t];
        if (slot === -2) continue; // the reference itself: log(identity) = 0
        const w = ws[t];
        if (cached[t] === 1) {
          const c = (slot * joints + j) * 3;
          vx += w * cache[c];
          vy += w * cache[c + 1];
          vz += w * cache[c + 2];
          continue;
        }
        const o = tf[t] * stride + b;
        const qx = data[o];
        const qy = data[o + 1];
        const qz = data[o + 2];
        const qw = data[o + 3];
        // p = conj(r) ⊗ q, on the w ≥ 0 side
        let px = rw * qx - rx * qw - ry * qz + rz * qy;
        let py = rw * qy + rx * qz - ry * qw - rz * qx;
        let pz = rw * qz - rx * qy + ry * qx - rz * qw;
        let pw = rw * qw + rx * qx + ry * qy + rz * qz;
        if (pw < 0) {
          px = -px;
          py = -py;
          pz = -pz;
          pw = -pw;
        }
        const s2 = px * px + py * py + pz * pz;
        const k = pw > 0 ? atan2OverSFromSquares(s2, 1 / pw) : Math.PI / (2 * Math.sqrt(s2));
        const lx = k * px;
        const ly = k * py;
        const lz = k * pz;
        if (slot >= 0) {
          const c = (slot * joints + j) * 3;
          cache[c] = lx;
          cache[c + 1] = ly;
          cache[c + 2] = lz;
        }
        vx += w * lx;
        vy += w * ly;
        vz += w * lz;
      }
      vx *= invW;
      vy *= invW;
      vz *= invW;
      const th2 = vx * vx + vy * vy + vz * vz;
      const sc = sinOverTheta(th2);
      const ew = cosOfTheta(th2);
      const ex = sc * vx;
      const ey = sc * vy;
      const ez = sc * vz;
      // out = r ⊗ e
      const ox = rw * ex + rx * ew + ry * ez - rz * ey;
      const oy = rw * ey - rx * ez + ry * ew + rz * ex;
      const oz = rw * ez + rx * ey - ry * ex + rz * ew;
      const ow = rw * ew - rx * ex - ry * ey - rz * ez;
      const n2 = ox * ox + oy * oy + oz * oz + ow * ow;
      if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY)) failAt(data, joints, win, j);
      let sn = 1 / Math.sqrt(n2);
      if (rx * ox + ry * oy + rz * oz + rw * ow < 0) sn = -sn;
      const d = outBase + b;
      out[d] = ox * sn;
      out[d + 1] = oy * sn;
      out[d + 2] = oz * sn;
      out[d + 3] = ow * sn;
    }
    for (let t = 0; t < count; t++) {
      const slot = slotOf[t];
      if (slot >= 0) slotRef[slot] = ref;
    }
  }
}

function failAt(data: FloatArray, joints: number, win: TapWindow, joint: number): never {
  const stride = joints * 4;
  for (let t = 0; t < win.count; t++) {
    const o = win.tapFrames[t] * stride + joint * 4;
    for (let c = 0; c < 4; c++) {
      if (!Number.isFinite(data[o + c])) {
        throw new InvalidValueError(
          `resampleRotations: non-finite input at frame ${win.tapFrames[t]}, joint ${joint} (${data[o + c]})`,
          { frame: win.tapFrames[t], joint },
        );
      }
    }
  }
  throw new InvalidValueError(
    `resampleRotations: the weighted sum of rotations vanished at position ${win.centre} (frame ${win.reference}), joint ${joint}`,
    { frame: win.reference, joint },
  );
}
