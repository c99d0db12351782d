/**
 * C² rotation splines: rotations through keys at uneven times with angular rate and angular acceleration
 * continuous through the keys, as SciPy's `scipy.spatial.transform.RotationSpline`.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_BUFFER, oneOf, resolveOptions } from '../../options.js';
import { relativeRaw } from '../../quat/raw.js';
import type { Track } from '../../series/clip.js';
import { assertTrack } from './track-checks.js';

/**
 * A rotation spline made by {@link createRotationSpline}. Between keys `i` and `i + 1` the rotation is
 * `R(t) = Rᵢ · exp(v(τ))`, `τ = t − tᵢ`, with the rotation vector a cubic `v(τ) = a·τ³ + b·τ² + c·τ`.
 */
export interface RotationSpline {
  /** Key times (seconds), strictly increasing, `N ≥ 2`. */
  readonly times: Float64Array;
  /** Key quaternions (x, y, z, w), unit length, `N × 4`. */
  readonly keys: Float64Array;
  /** Per interval `a`, `b`, `c` (3 numbers each), `(N − 1) × 9`. */
  readonly coefficients: Float64Array;
}

/** Options of {@link evaluateRotationSpline}. */
export interface EvaluateRotationSplineOptions {
  /**
   * `0`: rotations (4 numbers per time, x, y, z, w); `1`: angular rate (rad/s, 3 numbers); `2`: angular
   * acceleration (rad/s², 3 numbers). Rates and accelerations are in the body frame of the rotation
   * (`R(t)⁻¹·Ṙ(t) = [ω]×`), as SciPy gives them.
   */
  order?: 0 | 1 | 2;
  /** Output of `times.length × 4` (order 0) or `× 3` numbers; a new Float64Array without it. */
  out?: Float64Array | Float32Array;
}

/** Defaults of {@link EvaluateRotationSplineOptions} (frozen; `out` has none). */
export const EVALUATE_ROTATION_SPLINE_DEFAULTS: Readonly<
  Required<Omit<EvaluateRotationSplineOptions, 'out'>>
> = frozenDefaults({ order: 0 });

const EVALUATE_ROTATION_SPLINE_SPEC: OptionSpec = { order: oneOf([0, 1, 2]), out: OUT_BUFFER };

// SciPy's solver for the key rates: at most this many fixed-point passes, stopping when every rate
// changes by less than TOL·(1 + |rate|).
const MAX_ITER = 10;
const TOL = 1e-9;
// below this rotation-vector norm the matrices use SciPy's series
const SMALL = 1e-4;

/**
 * Makes a C² rotation spline through keyed rotations at uneven times: SciPy's `RotationSpline`
 * (scipy.spatial.transform, after "Smooth Attitude Interpolation", N. Mayorov), reproduced step for
 * step so its rotations, angular rates and accelerations agree with SciPy's to 1e-10.
 *
 * Between keys the rotation vector from the interval's first key is a cubic in time. The rate at the
 * first key is the first interval's mean rate and the rate at the last key the last interval's; the
 * rates at the interior keys make the angular acceleration continuous, found as SciPy finds them: a
 * block-tridiagonal linear system with the non-linear term of the acceleration moved to the right-hand
 * side and iterated (at most 10 passes, until the rates change by less than 1e-9 relative). Each
 * interval turns by the shorter way (at most π) from one key to the next, so `q` and `-q` give the
 * same spline. Two keys give one cubic with the mean rate at both ends.
 *
 * @param times key times in seconds, strictly increasing and finite, at least 2.
 * @param rotations key quaternions (x, y, z, w), `times.length × 4` numbers, any non-zero length
 * (normalised).
 * @throws {ShapeError} on fewer than 2 keys or a length mismatch.
 * @throws {InvalidValueError} on times that are not finite and strictly increasing, or a quaternion
 * that is zero or not finite (naming the key).
 * @example
 * const keys = randomQuatSeries(3, 1, { seed: 1 }).data; // 3 rotations: 12 numbers
 * const spline = createRotationSpline([0, 0.4, 1.1], keys);
 * const frames = evaluateRotationSpline(spline, [0, 0.5, 1]); // 4 numbers per time
 */
export function createRotationSpline(times: ArrayLike<number>, rotations: ArrayLike<number>): RotationSpline {
  if (times === null || typeof times !== 'object' || typeof times.length !== 'number')
    throw new ShapeError('createRotationSpline: times must be an array of numbers');
  if (rotations === null || typeof rotations !== 'object' || typeof rotations.length !== 'number')
    throw new ShapeError('createRotationSpline: rotations must be an array of numbers');
  const n = times.length;
  if (n < 2) throw new ShapeError(`createRotationSpline: needs at least 2 keys, got ${n}`);
  if (rotations.length !== n * 4)
    throw new ShapeError(
      `createRotationSpline: rotations has ${rotations.length} numbers, expected ${n * 4} (4 per key time)`,
    );
  const t = Float64Array.from(times);
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(t[i]) || (i > 0 && !(t[i] > t[i - 1])))
      throw new InvalidValueError(
        `createRotationSpline: key time ${i} is ${t[i]}; times must be finite and strictly increasing`,
        { index: i },
      );
  }
  const keys = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const x = rotations[o];
    const y = rotations[o + 1];
    const z = rotations[o + 2];
    const w = rotations[o + 3];
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 0 && Number.isFinite(len)))
      throw new InvalidValueError(
        `createRotationSpline: key ${i} quaternion [${x}, ${y}, ${z}, ${w}] is zero or not finite`,
        { index: i },
      );
    keys[o] = x / len;
    keys[o + 1] = y / len;
    keys[o + 2] = z / len;
    keys[o + 3] = w / len;
  }
  const m = n - 1; // intervals
  const dt = new Float64Array(m);
  const rv = new Float64Array(m * 3); // rotation vector of each interval: Rᵢ⁻¹·Rᵢ₊₁
  for (let i = 0; i < m; i++) {
    dt[i] = t[i + 1] - t[i];
    relativeRotvec(rv, i * 3, keys, i * 4, (i + 1) * 4);
  }
  // rates[i]: while solving, the rate at key i + 1 (the last row stays the last interval's mean rate)
  const rates = new Float64Array(m * 3);
  for (let i = 0; i < m * 3; i++) rates[i] = rv[i] / dt[Math.floor(i / 3)];
  const first = rates.slice(0, 3);
  const rvDot = new Float64Array(m * 3);
  if (n === 2) rvDot.set(rates);
  else solveRates(dt, rv, rates, rvDot);
  // rate at the start key of each interval: the first, then the solved interior ones
  const startRates = new Float64Array(m * 3);
  startRates.set(first, 0);
  startRates.set(rates.subarray(0, (m - 1) * 3), 3);
  const coefficients = new Float64Array(m * 9);
  for (let i = 0; i < m; i++) {
    const h = dt[i];
    for (let k = 0; k < 3; k++) {
      const v = rv[i * 3 + k];
      const w0 = startRates[i * 3 + k];
      const w1 = rvDot[i * 3 + k];
      coefficients[i * 9 + k] = (-2 * v + h * w0 + h * w1) / h ** 3;
      coefficients[i * 9 + 3 + k] = (3 * v - 2 * h * w0 - h * w1) / h ** 2;
      coefficients[i * 9 + 6 + k] = w0;
    }
  }
  return { times: t, keys, coefficients };
}

/**
 * Evaluates a {@link RotationSpline} at any times: rotations (`order: 0`), body-frame angular rates
 * (`1`, rad/s) or angular accelerations (`2`, rad/s²), as SciPy's `RotationSpline.__call__`.
 *
 * Times outside the keys extrapolate the first or last interval's cubic, as SciPy does (clamp them
 * first to hold the end keys). A rotation's sign is that of `Rᵢ ⊗ exp(v)` with the stored key `Rᵢ`.
 * Times that increase find their interval in amortised O(1); nothing is allocated per time.
 *
 * @param options - Defaults in {@link EVALUATE_ROTATION_SPLINE_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} when `out` has the wrong length or `spline` is not one.
 * @throws {InvalidValueError} on a time that is not finite (naming its index).
 * @throws {OptionError} on an unknown option or an order other than 0, 1, 2.
 * @example
 * const spline = createRotationSpline([0, 0.4, 1.1], randomQuatSeries(3, 1, { seed: 1 }).data);
 * const rates = evaluateRotationSpline(spline, [0.25, 0.5], { order: 1 }); // 6 numbers, rad/s
 */
export function evaluateRotationSpline(
  spline: RotationSpline,
  times: ArrayLike<number>,
  options: EvaluateRotationSplineOptions = {},
): Float64Array | Float32Array {
  const o = resolveOptions(
    'evaluateRotationSpline',
    options,
    EVALUATE_ROTATION_SPLINE_DEFAULTS,
    EVALUATE_ROTATION_SPLINE_SPEC,
  );
  const order = o.order;
  if (
    spline === null ||
    typeof spline !== 'object' ||
    !(spline.times instanceof Float64Array) ||
    !(spline.keys instanceof Float64Array) ||
    !(spline.coefficients instanceof Float64Array) ||
    spline.times.length < 2 ||
    spline.keys.length !== spline.times.length * 4 ||
    spline.coefficients.length !== (spline.times.length - 1) * 9
  )
    throw new ShapeError('evaluateRotationSpline: spline must come from createRotationSpline');
  if (times === null || typeof times !== 'object' || typeof times.length !== 'number')
    throw new ShapeError('evaluateRotationSpline: times must be an array of numbers');
  const width = order === 0 ? 4 : 3;
  const count = times.length;
  const out = o.out ?? new Float64Array(count * width);
  if (out.length !== count * width)
    throw new ShapeError(
      `evaluateRotationSpline: out must be a Float64Array or Float32Array of ${count * width} numbers (${width} per time)`,
    );
  const { times: kt, keys, coefficients: c } = spline;
  const last = kt.length - 2;
  const s = new Float64Array(13); // v, v', v'', a quaternion or vector result
  let i = 0;
  for (let p = 0; p < count; p++) {
    const time = times[p];
    if (!Number.isFinite(time))
      throw new InvalidValueError(`evaluateRotationSpline: time ${p} is ${time}`, { index: p });
    // interval: kt[i] <= time < kt[i + 1], clamped to the first and last (PPoly's rule)
    while (i < last && time >= kt[i + 1]) i++;
    while (i > 0 && time < kt[i]) i--;
    const tau = time - kt[i];
    const o = i * 9;
    for (let k = 0; k < 3; k++) {
      const a = c[o + k];
      const b = c[o + 3 + k];
      const r = c[o + 6 + k];
      s[k] = ((a * tau + b) * tau + r) * tau;
      s[3 + k] = (3 * a * tau + 2 * b) * tau + r;
      s[6 + k] = 6 * a * tau + 2 * b;
    }
    if (order === 0) {
      rotvecToQuat(s, 9, s, 0);
      const q = i * 4;
      const ax = keys[q];
      const ay = keys[q + 1];
      const az = keys[q + 2];
      const aw = keys[q + 3];
      const bx = s[9];
      const by = s[10];
      const bz = s[11];
      const bw = s[12];
      out[p * 4] = aw * bx + ax * bw + ay * bz - az * by;
      out[p * 4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
      out[p * 4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
      out[p * 4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
    } else if (order === 1) {
      rotvecDotToRate(out, p * 3, s, 0, s, 3);
    } else {
      rotvecDotToRate(out, p * 3, s, 0, s, 6);
      nonlinearTerm(s, 9, s, 0, s, 3);
      out[p * 3] += s[9];
      out[p * 3 + 1] += s[10];
      out[p * 3 + 2] += s[11];
    }
  }
  return out;
}

/**
 * Evaluates a keyed rotation track with a C² {@link createRotationSpline} through its keys instead of
 * its own interpolation: an up-sampler for keyed clips whose keys are sparse, with angular rate and
 * acceleration continuous through the keys. The track's key values are used (for `'cubicspline'`, each
 * key's value, not its tangents); times before the first key or after the last hold the end key (as
 * glTF players do). A track of one key gives that key at every time.
 *
 * @param track a `'rotation'` track (any interpolation).
 * @param times evaluation times in seconds.
 * @returns `times.length × 4` numbers (x, y, z, w), in `out` when given.
 * @throws {ShapeError} when the track is not a valid rotation track or `out` has the wrong length.
 * @throws {InvalidValueError} on a non-finite time.
 * @example
 * const grid = Float64Array.from({ length: 121 }, (_, f) => f / 120);
 * const q = rotationSplineTrack(keyed.tracks[0], grid); // 120 Hz from sparse keys
 */
export function rotationSplineTrack(
  track: Track,
  times: ArrayLike<number>,
  out?: Float64Array | Float32Array,
): Float64Array | Float32Array {
  assertTrack(track, 'rotationSplineTrack: track');
  if (track.path !== 'rotation')
    throw new ShapeError(`rotationSplineTrack: track path is '${track.path}', not 'rotation'`);
  if (times === null || typeof times !== 'object' || typeof times.length !== 'number')
    throw new ShapeError('rotationSplineTrack: times must be an array of numbers');
  const n = track.times.length;
  const perKey = track.interpolation === 'cubicspline' ? 3 : 1;
  const values = new Float64Array(n * 4);
  for (let k = 0; k < n; k++)
    for (let j = 0; j < 4; j++)
      values[k * 4 + j] = track.values[(k * perKey + (perKey === 3 ? 1 : 0)) * 4 + j];
  const first = track.times[0];
  const end = track.times[n - 1];
  const clamped = new Float64Array(times.length);
  for (let p = 0; p < times.length; p++) {
    const x = times[p];
    if (!Number.isFinite(x))
      throw new InvalidValueError(`rotationSplineTrack: time ${p} is ${x}`, { index: p });
    clamped[p] = x < first ? first : x > end ? end : x;
  }
  if (n === 1) {
    const result = out ?? new Float64Array(times.length * 4);
    if (result.length !== times.length * 4)
      throw new ShapeError(`rotationSplineTrack: out must hold ${times.length * 4} numbers`);
    const len = Math.hypot(values[0], values[1], values[2], values[3]);
    for (let p = 0; p < times.length; p++) for (let j = 0; j < 4; j++) result[p * 4 + j] = values[j] / len;
    return result;
  }
  return evaluateRotationSpline(createRotationSpline(track.times, values), clamped, out ? { out } : {});
}

/** Where {@link relativeRotvec} keeps the relative rotation. */
const RELATIVE = new Float64Array(4);

/** Rotation vector (SciPy's `as_rotvec`, angle in [0, π]) of `conj(qa) ⊗ qb`, written at `dst[o]`. */
function relativeRotvec(dst: Float64Array, o: number, q: Float64Array, a: number, b: number): void {
  relativeRaw(RELATIVE, 0, q, a, q, b);
  const x = RELATIVE[0];
  const y = RELATIVE[1];
  const z = RELATIVE[2];
  const w = RELATIVE[3];
  const s = Math.sqrt(x * x + y * y + z * z);
  const angle = 2 * Math.atan2(s, w);
  // SciPy's scale: angle / sin(angle / 2), by its series below 1e-3
  const scale =
    angle <= 1e-3 ? 2 + (angle * angle) / 12 + (7 * angle ** 4) / 2880 : angle / Math.sin(angle / 2);
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  dst[o] = (scale * x) / len;
  dst[o + 1] = (scale * y) / len;
  dst[o + 2] = (scale * z) / len;
}

/** Quaternion of a rotation vector (SciPy's `from_rotvec`), written at `dst[o]`. */
function rotvecToQuat(dst: Float64Array, o: number, v: Float64Array, vo: number): void {
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  const angle = Math.sqrt(x * x + y * y + z * z);
  const scale = angle <= 1e-3 ? 0.5 - (angle * angle) / 48 + angle ** 4 / 3840 : Math.sin(angle / 2) / angle;
  dst[o] = scale * x;
  dst[o + 1] = scale * y;
  dst[o + 2] = scale * z;
  dst[o + 3] = Math.cos(angle / 2);
}

/**
 * `(I − k₁[v]× + k₂[v]×²)·u`: a rotation-vector derivative to the body angular rate (SciPy's
 * `_rotvec_dot_to_angular_rate_matrix`), into `dst[o]`.
 */
function rotvecDotToRate(
  dst: Float64Array | Float32Array,
  o: number,
  v: Float64Array,
  vo: number,
  u: Float64Array,
  uo: number,
): void {
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  const n = Math.sqrt(x * x + y * y + z * z);
  let k1: number;
  let k2: number;
  if (n > SMALL) {
    k1 = (1 - Math.cos(n)) / n ** 2;
    k2 = (n - Math.sin(n)) / n ** 3;
  } else {
    k1 = 0.5 - n ** 2 / 24;
    k2 = 1 / 6 - n ** 2 / 120;
  }
  const u0 = u[uo];
  const u1 = u[uo + 1];
  const u2 = u[uo + 2];
  // c = v × u, cc = v × (v × u)
  const c0 = y * u2 - z * u1;
  const c1 = z * u0 - x * u2;
  const c2 = x * u1 - y * u0;
  const cc0 = y * c2 - z * c1;
  const cc1 = z * c0 - x * c2;
  const cc2 = x * c1 - y * c0;
  dst[o] = u0 - k1 * c0 + k2 * cc0;
  dst[o + 1] = u1 - k1 * c1 + k2 * cc1;
  dst[o + 2] = u2 - k1 * c2 + k2 * cc2;
}

/**
 * The 3×3 matrices of an interval's rotation vector `v`: `A = I + ½[v]× + k[v]×²` (angular rate to
 * rotation-vector derivative) and its inverse `A⁻¹ = I − k₁[v]× + k₂[v]×²`, row-major, as SciPy forms them.
 */
function rateMatrices(
  a: Float64Array,
  ao: number,
  ainv: Float64Array,
  io: number,
  x: number,
  y: number,
  z: number,
): void {
  const n = Math.sqrt(x * x + y * y + z * z);
  let k: number;
  let k1: number;
  let k2: number;
  if (n > SMALL) {
    k = (1 - (0.5 * n) / Math.tan(0.5 * n)) / n ** 2;
    k1 = (1 - Math.cos(n)) / n ** 2;
    k2 = (n - Math.sin(n)) / n ** 3;
  } else {
    k = 1 / 12 + (1 / 720) * n ** 2;
    k1 = 0.5 - n ** 2 / 24;
    k2 = 1 / 6 - n ** 2 / 120;
  }
  // [v]× and [v]×² (row-major)
  const S = [0, -z, y, z, 0, -x, -y, x, 0];
  const S2 = [-(y * y + z * z), x * y, x * z, x * y, -(x * x + z * z), y * z, x * z, y * z, -(x * x + y * y)];
  for (let e = 0; e < 9; e++) {
    const id = e % 4 === 0 ? 1 : 0;
    a[ao + e] = id + 0.5 * S[e] + k * S2[e];
    ainv[io + e] = id - k1 * S[e] + k2 * S2[e];
  }
}

/** SciPy's `_angular_acceleration_nonlinear_term(v, u)` into `dst[o]`. */
function nonlinearTerm(
  dst: Float64Array,
  o: number,
  v: Float64Array,
  vo: number,
  u: Float64Array,
  uo: number,
): void {
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  const u0 = u[uo];
  const u1 = u[uo + 1];
  const u2 = u[uo + 2];
  const n = Math.sqrt(x * x + y * y + z * z);
  const dp = x * u0 + y * u1 + z * u2;
  const cp0 = y * u2 - z * u1;
  const cp1 = z * u0 - x * u2;
  const cp2 = x * u1 - y * u0;
  const ccp0 = y * cp2 - z * cp1;
  const ccp1 = z * cp0 - x * cp2;
  const ccp2 = x * cp1 - y * cp0;
  const dccp0 = u1 * cp2 - u2 * cp1;
  const dccp1 = u2 * cp0 - u0 * cp2;
  const dccp2 = u0 * cp1 - u1 * cp0;
  let k1: number;
  let k2: number;
  let k3: number;
  if (n > SMALL) {
    const s = Math.sin(n);
    const c = Math.cos(n);
    k1 = (-n * s - 2 * (c - 1)) / n ** 4;
    k2 = (-2 * n + 3 * s - n * c) / n ** 5;
    k3 = (n - s) / n ** 3;
  } else {
    // SciPy's series, its constants kept as they are (12604, not 1260, for k2)
    k1 = 1 / 12 - n ** 2 / 180;
    k2 = -1 / 60 + n ** 2 / 12604;
    k3 = 1 / 6 - n ** 2 / 120;
  }
  dst[o] = dp * (k1 * cp0 + k2 * ccp0) + k3 * dccp0;
  dst[o + 1] = dp * (k1 * cp1 + k2 * ccp1) + k3 * dccp1;
  dst[o + 2] = dp * (k1 * cp2 + k2 * ccp2) + k3 * dccp2;
}

/**
 * SciPy's `_solve_for_angular_rates`: the rates at the interior keys (written into `rates[0 .. m−2]`,
 * row i the rate at key i + 1) and each interval's rotation-vector derivative at its end (`rvDot`).
 */
function solveRates(dt: Float64Array, rv: Float64Array, rates: Float64Array, rvDot: Float64Array): void {
  const m = dt.length; // intervals; unknown blocks: m − 1
  const u = m - 1;
  const A = new Float64Array(m * 9);
  const Ainv = new Float64Array(m * 9);
  for (let i = 0; i < m; i++) rateMatrices(A, i * 9, Ainv, i * 9, rv[i * 3], rv[i * 3 + 1], rv[i * 3 + 2]);
  const first = [rates[0], rates[1], rates[2]];
  const b0 = new Float64Array(u * 3);
  for (let k = 0; k < u; k++)
    for (let j = 0; j < 3; j++)
      b0[k * 3 + j] = 6 * (rv[k * 3 + j] * dt[k] ** -2 + rv[(k + 1) * 3 + j] * dt[k + 1] ** -2);
  for (let j = 0; j < 3; j++) {
    let s = 0;
    for (let l = 0; l < 3; l++) s += Ainv[j * 3 + l] * first[l];
    b0[j] -= (2 / dt[0]) * s;
  }
  for (let j = 0; j < 3; j++) {
    let s = 0;
    for (let l = 0; l < 3; l++) s += A[(m - 1) * 9 + j * 3 + l] * rates[(m - 1) * 3 + l];
    b0[(u - 1) * 3 + j] -= (2 / dt[m - 1]) * s;
  }
  const b = new Float64Array(u * 3);
  const x = new Float64Array(u * 3);
  const beta = new Float64Array(3);
  const solver = new BlockTridiagonal(u);
  for (let k = 0; k < u; k++) {
    const d = 4 * (1 / dt[k] + 1 / dt[k + 1]);
    solver.setDiagonal(k, d);
    // block (k + 1, k): 2 A⁻¹[k + 1] / dt[k + 1]; block (k, k + 1): 2 A[k + 1] / dt[k + 1]
    if (k + 1 < u) solver.setOffDiagonal(k, Ainv, A, (k + 1) * 9, 2 / dt[k + 1]);
  }
  solver.factor();
  for (let iteration = 0; iteration < MAX_ITER; iteration++) {
    for (let k = 0; k < u; k++) {
      matVec(rvDot, k * 3, A, k * 9, rates, k * 3);
      nonlinearTerm(beta, 0, rv, k * 3, rvDot, k * 3);
      for (let j = 0; j < 3; j++) b[k * 3 + j] = b0[k * 3 + j] - beta[j];
    }
    solver.solve(x, b);
    let done = true;
    for (let e = 0; e < u * 3; e++) {
      const delta = Math.abs(x[e] - rates[e]);
      if (!(delta < TOL * (1 + Math.abs(x[e])))) done = false;
      rates[e] = x[e];
    }
    if (done) break;
  }
  for (let i = 0; i < m; i++) matVec(rvDot, i * 3, A, i * 9, rates, i * 3);
}

function matVec(
  dst: Float64Array,
  o: number,
  M: Float64Array,
  mo: number,
  v: Float64Array,
  vo: number,
): void {
  const v0 = v[vo];
  const v1 = v[vo + 1];
  const v2 = v[vo + 2];
  dst[o] = M[mo] * v0 + M[mo + 1] * v1 + M[mo + 2] * v2;
  dst[o + 1] = M[mo + 3] * v0 + M[mo + 4] * v1 + M[mo + 5] * v2;
  dst[o + 2] = M[mo + 6] * v0 + M[mo + 7] * v1 + M[mo + 8] * v2;
}

/**
 * A block-tridiagonal system of 3×3 blocks, `d·I` on the diagonal, factored once (block LU, each pivot
 * block inverted by Gaussian elimination with partial pivoting) and solved for several right-hand sides.
 */
class BlockTridiagonal {
  private readonly diag: Float64Array;
  private readonly lower: Float64Array; // block (k + 1, k)
  private readonly upper: Float64Array; // block (k, k + 1)
  private readonly pivotInv: Float64Array; // inverse of each pivot block
  private readonly y: Float64Array;
  constructor(private readonly n: number) {
    this.diag = new Float64Array(n);
    this.lower = new Float64Array(n * 9);
    this.upper = new Float64Array(n * 9);
    this.pivotInv = new Float64Array(n * 9);
    this.y = new Float64Array(n * 3);
  }
  setDiagonal(k: number, d: number): void {
    this.diag[k] = d;
  }
  setOffDiagonal(k: number, lower: Float64Array, upper: Float64Array, o: number, scale: number): void {
    for (let e = 0; e < 9; e++) {
      this.lower[k * 9 + e] = scale * lower[o + e];
      this.upper[k * 9 + e] = scale * upper[o + e];
    }
  }
  factor(): void {
    const P = new Float64Array(9);
    const T = new Float64Array(9);
    for (let k = 0; k < this.n; k++) {
      P.fill(0);
      P[0] = P[4] = P[8] = this.diag[k];
      if (k > 0) {
        // P = D_k − L_{k−1}·(P_{k−1}⁻¹·U_{k−1})
        mul3(T, this.pivotInv, (k - 1) * 9, this.upper, (k - 1) * 9);
        const L = (k - 1) * 9;
        for (let r = 0; r < 3; r++)
          for (let c = 0; c < 3; c++) {
            let s = 0;
            for (let l = 0; l < 3; l++) s += this.lower[L + r * 3 + l] * T[l * 3 + c];
            P[r * 3 + c] -= s;
          }
      }
      invert3(this.pivotInv, k * 9, P);
    }
  }
  solve(x: Float64Array, b: Float64Array): void {
    const y = this.y;
    const r = [0, 0, 0];
    for (let k = 0; k < this.n; k++) {
      for (let j = 0; j < 3; j++) r[j] = b[k * 3 + j];
      if (k > 0) {
        const L = (k - 1) * 9;
        for (let j = 0; j < 3; j++)
          r[j] -=
            this.lower[L + j * 3] * y[(k - 1) * 3] +
            this.lower[L + j * 3 + 1] * y[(k - 1) * 3 + 1] +
            this.lower[L + j * 3 + 2] * y[(k - 1) * 3 + 2];
      }
      // y_k = P_k⁻¹·r (the forward sweep keeps P⁻¹ r; the back sweep subtracts P⁻¹ U x)
      for (let j = 0; j < 3; j++)
        y[k * 3 + j] =
          this.pivotInv[k * 9 + j * 3] * r[0] +
          this.pivotInv[k * 9 + j * 3 + 1] * r[1] +
          this.pivotInv[k * 9 + j * 3 + 2] * r[2];
    }
    const t = [0, 0, 0];
    for (let k = this.n - 1; k >= 0; k--) {
      if (k === this.n - 1) {
        for (let j = 0; j < 3; j++) x[k * 3 + j] = y[k * 3 + j];
        continue;
      }
      const U = k * 9;
      for (let j = 0; j < 3; j++)
        t[j] =
          this.upper[U + j * 3] * x[(k + 1) * 3] +
          this.upper[U + j * 3 + 1] * x[(k + 1) * 3 + 1] +
          this.upper[U + j * 3 + 2] * x[(k + 1) * 3 + 2];
      for (let j = 0; j < 3; j++)
        x[k * 3 + j] =
          y[k * 3 + j] -
          (this.pivotInv[k * 9 + j * 3] * t[0] +
            this.pivotInv[k * 9 + j * 3 + 1] * t[1] +
            this.pivotInv[k * 9 + j * 3 + 2] * t[2]);
    }
  }
}

/** `dst = A[ao]·B[bo]` (3×3, row-major). */
function mul3(dst: Float64Array, A: Float64Array, ao: number, B: Float64Array, bo: number): void {
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++)
      dst[r * 3 + c] =
        A[ao + r * 3] * B[bo + c] + A[ao + r * 3 + 1] * B[bo + 3 + c] + A[ao + r * 3 + 2] * B[bo + 6 + c];
}

/** Inverse of a 3×3 matrix by Gauss-Jordan elimination with partial pivoting, into `dst[o]`. */
function invert3(dst: Float64Array, o: number, M: Float64Array): void {
  const a = Array.from(M);
  const inv = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let col = 0; col < 3; col++) {
    let p = col;
    for (let r = col + 1; r < 3; r++) if (Math.abs(a[r * 3 + col]) > Math.abs(a[p * 3 + col])) p = r;
    if (a[p * 3 + col] === 0)
      throw new InvalidValueError('createRotationSpline: the system for the key rates is singular');
    if (p !== col)
      for (let c = 0; c < 3; c++) {
        [a[p * 3 + c], a[col * 3 + c]] = [a[col * 3 + c], a[p * 3 + c]];
        [inv[p * 3 + c], inv[col * 3 + c]] = [inv[col * 3 + c], inv[p * 3 + c]];
      }
    const d = a[col * 3 + col];
    for (let c = 0; c < 3; c++) {
      a[col * 3 + c] /= d;
      inv[col * 3 + c] /= d;
    }
    for (let r = 0; r < 3; r++) {
      if (r === col) continue;
      const f = a[r * 3 + col];
      if (f === 0) continue;
      for (let c = 0; c < 3; c++) {
        a[r * 3 + c] -= f * a[col * 3 + c];
        inv[r * 3 + c] -= f * inv[col * 3 + c];
      }
    }
  }
  for (let e = 0; e < 9; e++) dst[o + e] = inv[e];
}
