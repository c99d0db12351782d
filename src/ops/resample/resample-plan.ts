/**
 * Options, kernels by name and grid planning shared by the resamplers (`resampleRotations`,
 * `resampleVectors`, `resampleClip`); not a public operation itself.
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import {
  anyOf,
  BOOLEAN_OPTION,
  customRule,
  frozenDefaults,
  type OptionSpec,
  OUT_SERIES,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import { MAX_SERIES_VALUES } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
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
} from '../kernel/kernels.js';
import { checkRotationSpace, ROTATION_SPACES, type RotationSpace } from '../kernel/rotation-blend.js';
import { BOUNDARIES, type Boundary } from '../kernel/tap-window.js';
import { DURATION_POLICIES, type DurationPolicy, type TimeGrid, timeGrid } from './time-grid.js';

/** Widest anti-aliasing kernel accepted, in source frames each side. */
const MAX_RADIUS = 1e6;

/** @internal */
export function checkRate(rate: unknown, what: string, where: string): asserts rate is number {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) {
    throw new OptionError(`${where}: ${what} must be a positive finite number of Hz, got ${String(rate)}`);
  }
}

/**
 * Kernels available by name for resampling (see {@link resampleKernel} for the kernel behind each). All
 * but `'nearest'` interpolate: they return the source sample where an output time meets a source time.
 */
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
 * @example
 * resampleKernel('lanczos3').radius; // 3
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
  /**
   * Kernel by name or value, for up-sampling and down-sampling alike. Default: `'catmull-rom'` when
   * up-sampling (or with `antialias: false`), `downsampleKernel` when down-sampling.
   */
  kernel?: Kernel | ResampleKernelName;
  /**
   * Kernel used when down-sampling with anti-aliasing and no `kernel` is given (widened by the rate ratio
   * like any kernel). Default `'lanczos3'`: its stop band is deeper than catmull-rom's, so content above
   * the new Nyquist that decimation would fold back is removed by at least 40 dB where catmull-rom
   * reaches about 36 dB (a 25 Hz wobble taken from 120 to 30 Hz: 46 dB against 36 dB).
   */
  downsampleKernel?: Kernel | ResampleKernelName;
  /** Space of the weighted sum (see `ops/kernel/rotation-blend.ts`). Default `'log'`. */
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

/**
 * Defaults of {@link ResampleOptions} (frozen). `kernel` is the up-sampling kernel: left out, down-sampling
 * uses `downsampleKernel`; `duration` is `'loop'` when left out with `boundary: 'wrap'`.
 */
export const RESAMPLE_DEFAULTS = frozenDefaults({
  kernel: 'catmull-rom' as Kernel | ResampleKernelName,
  downsampleKernel: 'lanczos3' as Kernel | ResampleKernelName,
  space: 'log' as RotationSpace,
  boundary: 'clamp' as Boundary,
  antialias: true,
  duration: 'floor' as DurationPolicy,
});

const KERNEL_OR_NAME = anyOf(oneOf(RESAMPLE_KERNEL_NAMES), customRule('a Kernel (see kernels)', isKernel));
const SECONDS = customRule(
  'an array of seconds',
  (v) => v !== null && typeof v === 'object' && typeof (v as ArrayLike<number>).length === 'number',
);

/** The rules of {@link ResampleOptions} and `out`. @internal */
export const RESAMPLE_SPEC: OptionSpec = {
  sourceRate: POSITIVE_NUMBER,
  sourceTimes: SECONDS,
  targetRate: POSITIVE_NUMBER,
  times: SECONDS,
  kernel: KERNEL_OR_NAME,
  downsampleKernel: KERNEL_OR_NAME,
  space: oneOf(ROTATION_SPACES),
  boundary: oneOf(BOUNDARIES),
  antialias: BOOLEAN_OPTION,
  duration: oneOf(DURATION_POLICIES),
  out: OUT_SERIES,
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
export function planResample(
  frames: number,
  options: ResampleOptions,
  where: string,
  valuesPerFrame = 0,
): ResamplePlan {
  if (options === null || typeof options !== 'object')
    throw new OptionError(`${where}: options with sourceRate are required`);
  // checked here; read below from `options` itself, where an absent kernel or duration has its own meaning
  resolveOptions(where, options, RESAMPLE_DEFAULTS, RESAMPLE_SPEC);
  let sourceRate = options.sourceRate;
  if (options.sourceTimes !== undefined) {
    const st = options.sourceTimes;
    if (st === null || typeof st !== 'object' || typeof st.length !== 'number')
      throw new OptionError(`${where}: sourceTimes must be an array of seconds`);
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
    // refuse an output too large to hold before its time grid is allocated
    const estimate = Math.ceil((frames * options.targetRate) / sourceRate) + 2;
    if (valuesPerFrame > 0 && estimate * valuesPerFrame > MAX_SERIES_VALUES) {
      throw new OptionError(
        `${where}: targetRate ${options.targetRate} Hz would give about ${estimate} frames x ${valuesPerFrame} values, over the limit of ${MAX_SERIES_VALUES}`,
      );
    }
    const duration = options.duration ?? (boundary === 'wrap' ? 'loop' : RESAMPLE_DEFAULTS.duration);
    grid = timeGrid(frames, sourceRate, options.targetRate, { duration });
    factor = sourceRate / grid.rate;
  }
  const downsampling = antialias && factor > 1 + 1e-12;
  // the down-sampling kernel is checked even when unused, so a bad value is refused whatever the rates
  const downKernel = resampleKernel(options.downsampleKernel ?? RESAMPLE_DEFAULTS.downsampleKernel, where);
  const kernel0 =
    options.kernel !== undefined
      ? resampleKernel(options.kernel, where)
      : downsampling
        ? downKernel
        : resampleKernel(RESAMPLE_DEFAULTS.kernel, where);
  if (antialias && factor * kernel0.radius > MAX_RADIUS) {
    throw new OptionError(
      `${where}: the anti-aliasing kernel would span ${Math.ceil(factor * kernel0.radius)} source frames each side ` +
        `(ratio ${factor}); use a higher target rate or antialias: false`,
    );
  }
  const kernel = downsampling ? scaleKernel(kernel0 === box ? SYMMETRIC_BOX : kernel0, factor) : kernel0;
  return { kernel, space, boundary, grid, sourceRate };
}

/**
 * The box with its two edges at half weight, `(box(x) + box(−x)) / 2`. `kernels.box` is half-open so that
 * at an exact half-frame tie nearest-neighbour picks one frame; widened for down-sampling by an even
 * ratio, that one-sided edge would average `ratio` frames that sit half a source frame off the output
 * time (the pooling shift). Symmetric edges keep the average centred.
 */
const SYMMETRIC_BOX: Kernel = Object.freeze({
  name: 'box(symmetric)',
  radius: 0.5,
  evaluate(x: number): number {
    return 0.5 * (box.evaluate(x) + box.evaluate(-x));
  },
});
