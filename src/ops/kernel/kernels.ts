/**
 * Continuous filter kernels as plain values, and their algebra (scaling, composition).
 *
 * A kernel is `{ name, radius, evaluate(x), derivative?(x) }`: `x` is measured in frames (sample
 * intervals) from the output position, `evaluate(x)` is zero for `|x| > radius`, and `derivative(x)` is
 * `d evaluate / dx` where the kernel is differentiable (kinks report one of the one-sided slopes).
 * Filters sample a kernel at the integer frames inside `[centre - radius, centre + radius]` and divide by
 * the sum of the sampled weights, so a kernel's overall scale never matters; only its shape does.
 *
 * Sources: D. Holden, "Filtering, Convolutions, and Quaternions" (2025) for the kernel set and the view of a
 * sampled signal as a train of Diracs that a kernel turns into a continuous signal; R. Keys, "Cubic
 * convolution interpolation for digital image processing" (1981) for Catmull-Rom (a = -0.5); C. Duchon,
 * "Lanczos filtering in one and two dimensions" (1979).
 *
 * @module
 */

import { InvalidValueError, OptionError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, POSITIVE_NUMBER, resolveOptions } from '../../options.js';

/** A continuous, real-valued filter kernel on the frame axis. */
export interface Kernel {
  /** Human-readable description, e.g. `'gaussian(2)'`. */
  readonly name: string;
  /** Support half-width in frames: `evaluate(x) === 0` for `|x| > radius`. */
  readonly radius: number;
  /** Kernel value at offset `x` (frames). */
  evaluate(x: number): number;
  /** Derivative `d evaluate / dx`, when the kernel has one. */
  derivative?(x: number): number;
}

const SQRT_2PI = Math.sqrt(2 * Math.PI);
/** Widest kernel built by radius here (sinc, lanczos) and widest first kernel {@link composeKernels} samples. */
const MAX_COMPOSE_RADIUS = 1e6;

/**
 * Checks the position a kernel's `evaluate` or `derivative` takes: a number of frames. NaN, and a value that
 * is no number, throw; ±∞ lie outside every support, where the kernels are 0.
 */
function position(x: number, kernel: string, method: string): void {
  if (typeof x !== 'number' || Number.isNaN(x)) {
    throw new InvalidValueError(
      `${kernel}.${method}: the position must be a number of frames, got ${typeof x === 'number' ? x : typeof x}`,
    );
  }
}

function checkPositive(value: number, what: string, where: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new OptionError(`${where}: ${what} must be a positive finite number, got ${String(value)}`);
  }
}

function checkKernel(k: Kernel, where: string): void {
  if (
    k === null ||
    typeof k !== 'object' ||
    typeof k.name !== 'string' ||
    typeof k.evaluate !== 'function' ||
    typeof k.radius !== 'number' ||
    !(k.radius >= 0) ||
    !Number.isFinite(k.radius) ||
    (k.derivative !== undefined && typeof k.derivative !== 'function')
  ) {
    throw new OptionError(`${where}: expected a Kernel { name, radius >= 0, evaluate(x) }`);
  }
}

/**
 * Box (nearest-neighbour) kernel: 1 on `[-0.5, 0.5)`, radius 0.5. Half-open, so exactly one frame is
 * picked even at half-integer centres (ties go to the later frame).
 *
 * @example
 * filterRotations(series, kernels.box); // returns the input unchanged
 */
export const box: Kernel = Object.freeze({
  name: 'box',
  radius: 0.5,
  evaluate(x: number): number {
    position(x, 'box', 'evaluate');
    return x >= -0.5 && x < 0.5 ? 1 : 0;
  },
  derivative(x: number): number {
    position(x, 'box', 'derivative');
    return 0;
  },
});

/**
 * Tent (linear interpolation) kernel `max(0, 1 - |x|)`, radius 1. In raw space it behaves like nlerp, in
 * log space like slerp.
 *
 * @example
 * kernels.tent.evaluate(0.25); // 0.75
 */
export const tent: Kernel = Object.freeze({
  name: 'tent',
  radius: 1,
  evaluate(x: number): number {
    position(x, 'tent', 'evaluate');
    const a = Math.abs(x);
    return a < 1 ? 1 - a : 0;
  },
  derivative(x: number): number {
    position(x, 'tent', 'derivative');
    if (x <= -1 || x >= 1) return 0;
    return x > 0 ? -1 : x < 0 ? 1 : 0;
  },
});

/** Options of {@link gaussian}. */
export interface GaussianOptions {
  /** Cut the kernel at `round(truncate * sigma)` frames, SciPy's `gaussian_filter1d` rule. Default 3. */
  truncate?: number;
}

/** Defaults of {@link GaussianOptions}: SciPy's truncation at 3 σ. */
export const GAUSSIAN_DEFAULTS: Readonly<Required<GaussianOptions>> = frozenDefaults({ truncate: 3 });

const GAUSSIAN_SPEC: OptionSpec = { truncate: POSITIVE_NUMBER };

/**
 * Gaussian kernel `exp(-x² / 2σ²) / (σ √(2π))` (unit area), cut at `radius = floor(truncate·σ + 0.5)`
 * frames like SciPy's `gaussian_filter1d` (σ = 2 → radius 6, 13 taps).
 *
 * @param sigma - standard deviation in frames, > 0.
 * @throws {OptionError} when `sigma` or `truncate` is not a positive finite number.
 * @example
 * const k = kernels.gaussian(2); // k.radius === 6
 */
export function gaussian(sigma: number, options: GaussianOptions = {}): Kernel {
  checkPositive(sigma, 'sigma', 'gaussian');
  const { truncate } = resolveOptions('gaussian', options, GAUSSIAN_DEFAULTS, GAUSSIAN_SPEC);
  checkPositive(truncate, 'truncate', 'gaussian');
  const radius = Math.max(1, Math.floor(truncate * sigma + 0.5));
  const c = 1 / (sigma * SQRT_2PI);
  const inv2s2 = 1 / (2 * sigma * sigma);
  const invS2 = 1 / (sigma * sigma);
  // σ below ~1e-154 overflows 1/σ², above ~1e308 / truncate the radius: neither is a kernel on frames
  if (!Number.isFinite(radius) || !Number.isFinite(c * invS2) || !Number.isFinite(inv2s2)) {
    throw new OptionError(
      `gaussian: sigma ${sigma} with truncate ${truncate} gives no finite kernel (radius ${radius}); use sigma in [1e-150, 1e300]`,
    );
  }
  const name = `gaussian(${sigma})`;
  return Object.freeze({
    name,
    radius,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      return Math.abs(x) > radius ? 0 : c * Math.exp(-x * x * inv2s2);
    },
    derivative(x: number): number {
      position(x, name, 'derivative');
      return Math.abs(x) > radius ? 0 : -x * invS2 * c * Math.exp(-x * x * inv2s2);
    },
  });
}

/**
 * Catmull-Rom cubic convolution kernel (Keys, a = -0.5), radius 2: `1.5|x|³ - 2.5|x|² + 1` on [0, 1),
 * `-0.5|x|³ + 2.5|x|² - 4|x| + 2` on [1, 2). Interpolating (1 at 0, 0 at the other integers).
 *
 * @example
 * kernels.catmullRom.evaluate(0.5); // 0.5625
 */
export const catmullRom: Kernel = Object.freeze({
  name: 'catmullRom',
  radius: 2,
  evaluate(x: number): number {
    position(x, 'catmullRom', 'evaluate');
    const a = Math.abs(x);
    if (a < 1) return (1.5 * a - 2.5) * a * a + 1;
    if (a < 2) return ((-0.5 * a + 2.5) * a - 4) * a + 2;
    return 0;
  },
  derivative(x: number): number {
    position(x, 'catmullRom', 'derivative');
    const a = Math.abs(x);
    const s = x < 0 ? -1 : 1;
    if (a < 1) return s * (4.5 * a - 5) * a;
    if (a < 2) return s * ((-1.5 * a + 5) * a - 4);
    return 0;
  },
});

/**
 * The smooth 6-tap cubic on [-3, 3] from Holden's article: `4/3|x|³ - 7/3|x|² + 1` on [0, 1),
 * `-7/12|x|³ + 3|x|² - 59/12|x| + 5/2` on [1, 2), `1/12|x|³ - 2/3|x|² + 7/4|x| - 3/2` on [2, 3].
 * Interpolating, smoother and wider than {@link catmullRom}.
 *
 * @example
 * kernels.cubic6.radius; // 3
 */
export const cubic6: Kernel = Object.freeze({
  name: 'cubic6',
  radius: 3,
  evaluate(x: number): number {
    position(x, 'cubic6', 'evaluate');
    const a = Math.abs(x);
    if (a < 1) return ((4 / 3) * a - 7 / 3) * a * a + 1;
    if (a < 2) return (((-7 / 12) * a + 3) * a - 59 / 12) * a + 5 / 2;
    if (a <= 3) return (((1 / 12) * a - 2 / 3) * a + 7 / 4) * a - 3 / 2;
    return 0;
  },
  derivative(x: number): number {
    position(x, 'cubic6', 'derivative');
    const a = Math.abs(x);
    const s = x < 0 ? -1 : 1;
    if (a < 1) return s * (4 * a - 14 / 3) * a;
    if (a < 2) return s * (((-7 / 4) * a + 6) * a - 59 / 12);
    if (a <= 3) return s * (((1 / 4) * a - 4 / 3) * a + 7 / 4);
    return 0;
  },
});

function sincValue(x: number): number {
  if (Math.abs(x) < 1e-8) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function sincSlope(x: number): number {
  if (Math.abs(x) < 1e-8) return 0;
  const px = Math.PI * x;
  return (px * Math.cos(px) - Math.sin(px)) / (px * x);
}

/** Options of {@link sinc}. */
export interface SincOptions {
  /** Where the (rectangular-windowed) sinc is cut, in frames. Default 6. */
  radius?: number;
}

/** Defaults of {@link SincOptions}. */
export const SINC_DEFAULTS: Readonly<Required<SincOptions>> = frozenDefaults({ radius: 6 });

const SINC_SPEC: OptionSpec = { radius: POSITIVE_NUMBER };

/**
 * Truncated sinc kernel `sin(πx) / (πx)` for `|x| <= radius` (default 6). The ideal low-pass cut with a
 * rectangular window: it rings; prefer {@link lanczos} unless you study the truncation itself.
 *
 * @throws {OptionError} when `radius` is not a positive finite number.
 * @example
 * const k = kernels.sinc({ radius: 8 });
 */
export function sinc(options: SincOptions = {}): Kernel {
  const { radius } = resolveOptions('sinc', options, SINC_DEFAULTS, SINC_SPEC);
  checkPositive(radius, 'radius', 'sinc');
  if (radius > MAX_COMPOSE_RADIUS)
    throw new OptionError(`sinc: radius must be at most ${MAX_COMPOSE_RADIUS} frames, got ${radius}`);
  const name = `sinc(${radius})`;
  return Object.freeze({
    name,
    radius,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      return Math.abs(x) > radius ? 0 : sincValue(x);
    },
    derivative(x: number): number {
      position(x, name, 'derivative');
      return Math.abs(x) > radius ? 0 : sincSlope(x);
    },
  });
}

/**
 * Lanczos kernel `sinc(x)·sinc(x / a)` for `|x| < a`, radius `a` (lanczos3 = `lanczos(3)`). Interpolating;
 * its sampled weights do not sum to one off the integers, which the filters' weight normalisation absorbs.
 *
 * @throws {OptionError} when `a` is not a positive finite number.
 * @example
 * const lanczos3 = kernels.lanczos(3);
 */
export function lanczos(a: number): Kernel {
  checkPositive(a, 'a', 'lanczos');
  if (a > MAX_COMPOSE_RADIUS || a < 1e-6)
    throw new OptionError(`lanczos: a must be from 1e-6 to ${MAX_COMPOSE_RADIUS} frames, got ${a}`);
  const name = `lanczos(${a})`;
  return Object.freeze({
    name,
    radius: a,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      return Math.abs(x) >= a ? 0 : sincValue(x) * sincValue(x / a);
    },
    derivative(x: number): number {
      position(x, name, 'derivative');
      if (Math.abs(x) >= a) return 0;
      return sincSlope(x) * sincValue(x / a) + (sincValue(x) * sincSlope(x / a)) / a;
    },
  });
}

/**
 * Unsharp mask `(1 + amount)·tent(x) - amount·base(x)`: at integer offsets this is the classic
 * `(1 + amount)·δ - amount·base`, i.e. the signal plus `amount` times its difference from the `base`-blurred
 * signal. It has negative lobes; filters handle them in every space. `base` should have unit area
 * (all kernels here do except {@link sampled}, {@link sinc}, {@link lanczos}, which are close to it).
 *
 * @param amount - sharpening strength (0 = identity).
 * @throws {OptionError} when `base` is not a kernel or `amount` is not a finite number within ±1e6.
 * @example
 * filterRotations(series, kernels.unsharp(kernels.gaussian(2), 1), { space: 'eigen' });
 */
export function unsharp(base: Kernel, amount: number): Kernel {
  checkKernel(base, 'unsharp');
  if (typeof amount !== 'number' || !Number.isFinite(amount) || Math.abs(amount) > 1e6) {
    throw new OptionError(`unsharp: amount must be a number within ±1e6, got ${String(amount)}`);
  }
  const k = 1 + amount;
  const baseDerivative = base.derivative;
  const name = `unsharp(${base.name}, ${amount})`;
  const out: Kernel = {
    name,
    radius: Math.max(1, base.radius),
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      return k * tent.evaluate(x) - amount * base.evaluate(x);
    },
  };
  if (baseDerivative) {
    (out as { derivative?: (x: number) => number }).derivative = (x: number) => {
      position(x, name, 'derivative');
      return k * tent.derivative!(x) - amount * baseDerivative.call(base, x);
    };
  }
  return Object.freeze(out);
}

/**
 * A user kernel from weights at unit spacing, centred: weight `i` sits at offset `i - (n - 1) / 2`
 * (for odd `n` the middle weight is at 0). Between samples the kernel is linear (tent reconstruction), so
 * filters at integer centres use exactly these weights; radius `(n + 1) / 2`.
 *
 * @throws {OptionError} when `weights` is empty or holds a non-finite value.
 * @example
 * const k = kernels.sampled([1, 2, 1]); // a binomial smoother
 */
export function sampled(weights: ArrayLike<number>): Kernel {
  const n = weights?.length ?? 0;
  if (!(n > 0)) throw new OptionError('sampled: weights must be a non-empty array of numbers');
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = weights[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new OptionError(`sampled: weight ${i} is not a finite number (${String(v)})`);
    }
    w[i] = v;
  }
  const half = (n - 1) / 2;
  const at = (i: number) => (i >= 0 && i < n ? w[i] : 0);
  const name = `sampled(${n})`;
  return Object.freeze({
    name,
    radius: half + 1,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      const u = x + half;
      const i = Math.floor(u);
      const f = u - i;
      if (i < -1 || i >= n) return 0;
      return (1 - f) * at(i) + f * at(i + 1);
    },
    derivative(x: number): number {
      position(x, name, 'derivative');
      const u = x + half;
      const i = Math.floor(u);
      if (i < -1 || i >= n) return 0;
      return at(i + 1) - at(i);
    },
  });
}

/**
 * Stretches a kernel by `factor` keeping its area: `k'(x) = k(x / factor) / factor`, radius
 * `factor·radius`. Down-sampling by `factor` uses the kernel scaled by `factor` (wider, flatter) to remove
 * the frequencies the coarser grid cannot hold.
 *
 * @throws {OptionError} when `factor` is not a positive finite number.
 * @example
 * const k = kernels.scaleKernel(kernels.tent, 2); // linear down-sampling by two
 */
export function scaleKernel(k: Kernel, factor: number): Kernel {
  checkKernel(k, 'scaleKernel');
  checkPositive(factor, 'factor', 'scaleKernel');
  const inv = 1 / factor;
  if (!Number.isFinite(inv * inv) || !Number.isFinite(k.radius * factor))
    throw new OptionError(
      `scaleKernel: factor ${factor} gives no finite kernel (radius ${k.radius * factor})`,
    );
  const d = k.derivative;
  const name = `scale(${k.name}, ${factor})`;
  const out: Kernel = {
    name,
    radius: k.radius * factor,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      return k.evaluate(x * inv) * inv;
    },
  };
  if (d)
    (out as { derivative?: (x: number) => number }).derivative = (x: number) => {
      position(x, name, 'derivative');
      return d.call(k, x * inv) * inv * inv;
    };
  return Object.freeze(out);
}

/**
 * The kernel of "filter by `a` at the frames, then by `b`" as one kernel:
 * `c(x) = Σₖ a(k)·b(x − k)` over the integers `k` in `a`'s support, radius `floor(a.radius) + b.radius`.
 *
 * Accuracy: because filters sample `a` at integer offsets, this semi-discrete convolution is the exact
 * composite. Filtering a vector signal once by `c` equals filtering by `a` and then by `b` (at the frames or
 * at any fractional centre) up to floating-point rounding (about 1e-15 relative) wherever neither pass
 * touches a clip end; at the ends the boundary rule is applied once instead of twice. It is associative
 * exactly. It equals the continuous convolution `∫ a(u) b(x − u) du` up to the error of a unit-step Riemann
 * sum, which is negligible for smooth kernels: for gaussians it is about `2·exp(−2π²σₑ²)` relative with
 * `σₑ = s1·s2 / √(s1² + s2²)` (Poisson summation), so `gaussian(s1) ∘ gaussian(s2) = gaussian(√(s1² + s2²))`
 * to 2e-6 for (1, 1.5) and to rounding for (2, 2), given a wide enough `truncate`; for kinked kernels
 * (tent ∘ tent) it is of order 1e-2. For rotations the composite matches the two passes only approximately
 * (each pass renormalises); the filter tests measure it on real data.
 *
 * @throws {OptionError} when either argument is not a kernel.
 * @example
 * const k = kernels.composeKernels(kernels.gaussian(2), kernels.tent);
 * filterVectors(positions, k); // == filterVectors(filterVectors(positions, gaussian(2)), tent)
 */
export function composeKernels(a: Kernel, b: Kernel): Kernel {
  checkKernel(a, 'composeKernels');
  checkKernel(b, 'composeKernels');
  const ra = Math.floor(a.radius);
  if (ra > MAX_COMPOSE_RADIUS) {
    throw new OptionError(
      `composeKernels: the first kernel's radius ${a.radius} exceeds ${MAX_COMPOSE_RADIUS} frames (its samples are stored)`,
    );
  }
  const n = 2 * ra + 1;
  const aw = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    aw[i] = a.evaluate(i - ra);
    if (!Number.isFinite(aw[i]))
      throw new OptionError(`composeKernels: kernel ${a.name} is ${aw[i]} at ${i - ra}`);
  }
  const bd = b.derivative;
  const rb = b.radius;
  const name = `compose(${a.name}, ${b.name})`;
  const out: Kernel = {
    name,
    radius: ra + rb,
    evaluate(x: number): number {
      position(x, name, 'evaluate');
      let s = 0;
      // only k with |x - k| <= rb contribute
      const lo = Math.max(-ra, Math.ceil(x - rb));
      const hi = Math.min(ra, Math.floor(x + rb));
      for (let k = lo; k <= hi; k++) s += aw[k + ra] * b.evaluate(x - k);
      return s;
    },
  };
  if (bd) {
    (out as { derivative?: (x: number) => number }).derivative = (x: number) => {
      position(x, name, 'derivative');
      let s = 0;
      const lo = Math.max(-ra, Math.ceil(x - rb));
      const hi = Math.min(ra, Math.floor(x + rb));
      for (let k = lo; k <= hi; k++) s += aw[k + ra] * bd.call(b, x - k);
      return s;
    };
  }
  return Object.freeze(out);
}

/** True when `k` looks like a {@link Kernel}; filters use it to reject bad arguments with a typed error. */
export function isKernel(k: unknown): k is Kernel {
  const c = k as Kernel;
  return (
    c !== null &&
    typeof c === 'object' &&
    typeof c.name === 'string' &&
    typeof c.evaluate === 'function' &&
    typeof c.radius === 'number' &&
    Number.isFinite(c.radius) &&
    c.radius >= 0 &&
    (c.derivative === undefined || typeof c.derivative === 'function')
  );
}
