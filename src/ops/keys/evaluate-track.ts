/**
 * Evaluating keyed tracks at any times, as glTF 2.0 defines it (Appendix C, "Animation Sampler
 * Interpolation Modes", and section 3.11 for the ends).
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_BUFFER, resolveOptions } from '../../options.js';
import type { Track } from '../../series/clip.js';
import type { FloatArray } from '../../series/types.js';
import { assertTrack } from './track-checks.js';

/** Below this slerp angle (radians on the 4-sphere) the weights are their limit `1 − t`, `t` (see {@link evaluateTrack}). */
const SLERP_LINEAR_BELOW = 1e-10;

/** Below this `1 − |dot|` the slerp angle comes from the arccos series (angle below about 0.045 rad). */
const SMALL_ONE_MINUS_COS = 1e-3;
/** Below this angle, sine and cosine come from their Taylor series (to x⁹ and x¹⁰: truncation below 1e-21). */
const SMALL_ANGLE = 0.046;

const STEP = 0;
const LERP = 1;
const SLERP = 2;
const CUBIC = 3;

/**
 * Evaluates one keyed track at arbitrary times, one sample at a time, with a cached interval seek:
 * query times that increase (or stay in the same interval) find their keys in amortised O(1), like
 * three.js's `Interpolant`; a time that goes back costs one binary search. No allocation per sample.
 *
 * The track is checked once, when the sampler is made ({@link assertTrack}); the sampler keeps
 * references to the track's arrays, so they must not change while it is in use. The semantics are
 * those of {@link evaluateTrack}.
 *
 * @example
 * const track = keyed.tracks[0];
 * const s = new TrackSampler(track);
 * const q = new Float64Array(4);
 * for (let f = 0; f < 120; f++) s.sample(q, 0, f / 60);
 */
export class TrackSampler {
  /** The track sampled. */
  readonly track: Track;
  /** Number of keys. */
  readonly keys: number;
  /** Values per sample. */
  readonly width: number;
  private readonly times: FloatArray;
  private readonly values: FloatArray;
  private readonly mode: number;
  /** CUBICSPLINE rotations are normalised after the Hermite step. */
  private readonly normalize: boolean;
  /** Stride of one key in `values` (3·width for cubicspline) and the offset of its value in it. */
  private readonly keyStride: number;
  private readonly valueOffset: number;
  private readonly first: number;
  private readonly last: number;
  private readonly name: string;
  /** Cached interval: `times[cursor] <= t < times[cursor + 1]` for the last interior query. */
  private cursor = 0;
  /**
   * Relative tolerance within which a query time counts as a key's time (`|t − tₖ| ≤ keySnap·|tₖ|`, then
   * the key is returned as stored). Default 0: only exact equality, as glTF says. `bakeClip` sets
   * `2⁻²²` (two Float32 roundings) so that grid times meet Float32 key times.
   */
  keySnap = 0;
  /** Slerp parameters of the interval `slerpKey` (angle, 1/sin, sign of the dot product). */
  private slerpKey = -1;
  private slerpAngle = 0;
  private slerpInvSin = 0;
  private slerpSin = 0;
  private slerpCos = 1;
  private slerpSign = 1;

  /**
   * @param track the track to sample (checked here).
   * @param name what messages call the track.
   * @param checked `true` when the caller has just run {@link assertTrack} on the track (skips a second scan).
   * @throws {ShapeError} or {@link InvalidValueError} from {@link assertTrack}.
   */
  constructor(track: Track, name = 'track', checked = false) {
    if (!checked) assertTrack(track, name);
    this.track = track;
    this.name = name;
    this.times = track.times;
    this.values = track.values;
    this.keys = track.times.length;
    this.width = track.width;
    const interpolation = track.interpolation;
    this.mode =
      interpolation === 'step'
        ? STEP
        : interpolation === 'cubicspline'
          ? CUBIC
          : track.path === 'rotation'
            ? SLERP
            : LERP;
    this.normalize = this.mode === CUBIC && track.path === 'rotation';
    this.keyStride = this.mode === CUBIC ? 3 * track.width : track.width;
    this.valueOffset = this.mode === CUBIC ? track.width : 0;
    this.first = this.times[0];
    this.last = this.times[this.keys - 1];
  }

  /**
   * Writes the track's value at `time` (seconds) into `out[offset … offset + width)`.
   *
   * @throws {InvalidValueError} when `time` is not finite, or a CUBICSPLINE rotation interpolates to zero.
   * @throws {ShapeError} when `out` is no array or `offset` leaves fewer than `width` values in it.
   */
  sample(out: FloatArray, offset: number, time: number): void {
    // x >>> 0 === x: a whole number from 0 to 2^32 − 1 (the checks of the quat kernels' spans)
    if (
      !(
        typeof out === 'object' &&
        out !== null &&
        typeof offset === 'number' &&
        offset >>> 0 === offset &&
        offset + this.width <= out.length
      )
    )
      throw this.outError(out, offset);
    if (typeof time !== 'number') {
      throw new InvalidValueError(`${this.name}: query time must be a number of seconds, got ${typeof time}`);
    }
    if (!(time > this.first)) {
      if (!(time >= -Number.MAX_VALUE)) {
        throw new InvalidValueError(`${this.name}: query time ${time} is not a finite number of seconds`);
      }
      this.copyKey(out, offset, 0);
      return;
    }
    if (time >= this.last) {
      if (time > Number.MAX_VALUE) {
        throw new InvalidValueError(`${this.name}: query time ${time} is not a finite number of seconds`);
      }
      this.copyKey(out, offset, this.keys - 1);
      return;
    }
    const k = this.seek(time);
    const tk = this.times[k];
    if (tk === time) {
      this.copyKey(out, offset, k);
      return;
    }
    const tk1 = this.times[k + 1];
    const snap = this.keySnap;
    if (snap > 0) {
      // a query a rounding away from a key is that key's instant
      if (time - tk <= snap * (tk < 0 ? -tk : tk)) {
        this.copyKey(out, offset, k);
        return;
      }
      if (tk1 - time <= snap * (tk1 < 0 ? -tk1 : tk1)) {
        this.copyKey(out, offset, k + 1);
        return;
      }
    }
    const td = tk1 - tk;
    const t = (time - tk) / td;
    switch (this.mode) {
      case STEP:
        this.copyKey(out, offset, k);
        return;
      case LERP:
        this.lerp(out, offset, k, t);
        return;
      case SLERP:
        this.slerp(out, offset, k, t);
        return;
      default:
        this.cubic(out, offset, k, t, td, time);
    }
  }

  private outError(out: unknown, offset: unknown): ShapeError {
    const length =
      typeof out === 'object' && out !== null && typeof (out as { length?: unknown }).length === 'number'
        ? `${(out as ArrayLike<number>).length} values`
        : out === null
          ? 'null'
          : typeof out;
    return new ShapeError(
      `${this.name}: sample writes ${this.width} values at offset ${String(offset)} of out, which has ${length}`,
    );
  }

  /** Resets the cached interval (only speed depends on it). */
  reset(): void {
    this.cursor = 0;
    this.slerpKey = -1;
  }

  /** Interval k with `times[k] <= t < times[k + 1]`, for `first < t < last`. */
  private seek(t: number): number {
    const times = this.times;
    let k = this.cursor;
    let lo: number;
    let hi: number;
    if (t >= times[k]) {
      if (t < times[k + 1]) return k;
      // forward: the next few intervals first (increasing queries), then bisection
      for (let step = 0; step < 3; step++) {
        k++;
        if (t < times[k + 1]) {
          this.cursor = k;
          return k;
        }
      }
      lo = k + 1;
      hi = this.keys - 1;
    } else {
      lo = 0;
      hi = k;
    }
    // times[lo] <= t < times[hi]
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid;
    }
    this.cursor = lo;
    return lo;
  }

  private copyKey(out: FloatArray, offset: number, k: number): void {
    const w = this.width;
    const o = k * this.keyStride + this.valueOffset;
    const v = this.values;
    if (this.normalize) {
      const x = v[o];
      const y = v[o + 1];
      const z = v[o + 2];
      const q = v[o + 3];
      this.writeNormalized(out, offset, x, y, z, q, this.times[k]);
      return;
    }
    for (let c = 0; c < w; c++) out[offset + c] = v[o + c];
  }

  private lerp(out: FloatArray, offset: number, k: number, t: number): void {
    const w = this.width;
    const v = this.values;
    const a = k * w;
    const b = a + w;
    const s = 1 - t;
    for (let c = 0; c < w; c++) out[offset + c] = s * v[a + c] + t * v[b + c];
  }

  private slerp(out: FloatArray, offset: number, k: number, t: number): void {
    const v = this.values;
    const a = k * 4;
    const b = a + 4;
    if (this.slerpKey !== k) this.slerpSetup(k);
    const angle = this.slerpAngle;
    let w0: number;
    let w1: number;
    if (angle < SLERP_LINEAR_BELOW) {
      w0 = 1 - t;
      w1 = this.slerpSign * t;
    } else {
      // sin(a·(1 − t)) and sin(a·t) from the sine and cosine of the shorter part only:
      // sin(a − x) = sin a · cos x − cos a · sin x. Near a key (Float32 key times are a rounding off
      // any grid) that part is tiny and its series is exact, so no libm call is made per sample.
      const short = t <= 0.5 ? t : 1 - t;
      const x = angle * short;
      let sx: number;
      let cx: number;
      if (x < SMALL_ANGLE) {
        const x2 = x * x;
        sx = x * (1 - (x2 / 6) * (1 - (x2 / 20) * (1 - (x2 / 42) * (1 - x2 / 72))));
        cx = 1 - (x2 / 2) * (1 - (x2 / 12) * (1 - (x2 / 30) * (1 - (x2 / 56) * (1 - x2 / 90))));
      } else {
        sx = Math.sin(x);
        cx = Math.cos(x);
      }
      const inv = this.slerpInvSin;
      const other = (this.slerpSin * cx - this.slerpCos * sx) * inv;
      if (t <= 0.5) {
        w0 = other;
        w1 = this.slerpSign * sx * inv;
      } else {
        w0 = sx * inv;
        w1 = this.slerpSign * other;
      }
    }
    out[offset] = w0 * v[a] + w1 * v[b];
    out[offset + 1] = w0 * v[a + 1] + w1 * v[b + 1];
    out[offset + 2] = w0 * v[a + 2] + w1 * v[b + 2];
    out[offset + 3] = w0 * v[a + 3] + w1 * v[b + 3];
  }

  /** Angle, its sine and cosine, 1/sine and the sign of the slerp between keys k and k + 1 (once per interval). */
  private slerpSetup(k: number): void {
    const v = this.values;
    const a = k * 4;
    const b = a + 4;
    const d = v[a] * v[b] + v[a + 1] * v[b + 1] + v[a + 2] * v[b + 2] + v[a + 3] * v[b + 3];
    // s = d / |d|; at d = 0 (90° apart, both ways equally long) the second key keeps its sign
    this.slerpSign = d < 0 ? -1 : 1;
    let ad = d < 0 ? -d : d;
    // keys stored in Float32 can have |d| a rounding above 1
    if (ad > 1) ad = 1;
    const x = 1 - ad; // exact (Sterbenz) for ad ≥ 1/2
    // arccos(1 − x) = √(2x)·Σ cₙ xⁿ below x = 1e-3 (full precision, no libm call); sin = √(x(1 + ad)) exactly
    const angle =
      x < SMALL_ONE_MINUS_COS
        ? Math.sqrt(2 * x) *
          (1 + x * (1 / 12 + x * (3 / 160 + x * (5 / 896 + x * (35 / 18432 + x * (63 / 90112))))))
        : Math.acos(ad);
    const sin = Math.sqrt(x * (1 + ad));
    this.slerpAngle = angle;
    this.slerpSin = sin;
    this.slerpCos = ad;
    this.slerpInvSin = angle < SLERP_LINEAR_BELOW ? 0 : 1 / sin;
    this.slerpKey = k;
  }

  private cubic(out: FloatArray, offset: number, k: number, t: number, td: number, time: number): void {
    const w = this.width;
    const v = this.values;
    const t2 = t * t;
    const t3 = t2 * t;
    const h00 = 2 * t3 - 3 * t2 + 1;
    const h10 = td * (t3 - 2 * t2 + t);
    const h01 = -2 * t3 + 3 * t2;
    const h11 = td * (t3 - t2);
    const o0 = k * 3 * w; // in-tangent of key k; its value at +w, out-tangent at +2w
    const o1 = o0 + 3 * w; // in-tangent of key k + 1
    if (this.normalize) {
      const x = h00 * v[o0 + 4] + h10 * v[o0 + 8] + h01 * v[o1 + 4] + h11 * v[o1];
      const y = h00 * v[o0 + 5] + h10 * v[o0 + 9] + h01 * v[o1 + 5] + h11 * v[o1 + 1];
      const z = h00 * v[o0 + 6] + h10 * v[o0 + 10] + h01 * v[o1 + 6] + h11 * v[o1 + 2];
      const q = h00 * v[o0 + 7] + h10 * v[o0 + 11] + h01 * v[o1 + 7] + h11 * v[o1 + 3];
      this.writeNormalized(out, offset, x, y, z, q, time);
      return;
    }
    for (let c = 0; c < w; c++) {
      out[offset + c] = h00 * v[o0 + w + c] + h10 * v[o0 + 2 * w + c] + h01 * v[o1 + w + c] + h11 * v[o1 + c];
    }
  }

  private writeNormalized(
    out: FloatArray,
    offset: number,
    x: number,
    y: number,
    z: number,
    w: number,
    time: number,
  ): void {
    const n = Math.sqrt(x * x + y * y + z * z + w * w);
    if (!(n > 0) || n === Number.POSITIVE_INFINITY) {
      throw new InvalidValueError(
        `${this.name}: the CUBICSPLINE rotation is ${n} long at ${time} s and cannot be normalised (keys v and -v in a row?)`,
      );
    }
    out[offset] = x / n;
    out[offset + 1] = y / n;
    out[offset + 2] = z / n;
    out[offset + 3] = w / n;
  }
}

/** Options of {@link evaluateTrack}. */
export interface EvaluateTrackOptions<T extends FloatArray = Float64Array> {
  /** Output, `times.length x width` (Float64 or Float32). May share memory with the track or `times`. Default: a new Float64Array. */
  out?: T;
}

/** Defaults of {@link EvaluateTrackOptions} (frozen): none, `out` is a new Float64Array when absent. */
export const EVALUATE_TRACK_DEFAULTS: Readonly<EvaluateTrackOptions> = frozenDefaults({});

const EVALUATE_TRACK_SPEC: OptionSpec = { out: OUT_BUFFER };

function overlaps(a: FloatArray, b: ArrayLike<number>): boolean {
  if (!ArrayBuffer.isView(b) || a.buffer !== (b as FloatArray).buffer) return false;
  const v = b as FloatArray;
  return a.byteOffset < v.byteOffset + v.byteLength && v.byteOffset < a.byteOffset + a.byteLength;
}

/**
 * Evaluates a keyed track at arbitrary times, exactly as glTF 2.0 defines animation samplers.
 *
 * With keys `t_k`, values `v_k`, a query `t_c` with `t_k < t_c < t_{k+1}`, `t_d = t_{k+1} − t_k` and
 * `t = (t_c − t_k) / t_d`:
 * - `'step'`: `v_k`.
 * - `'linear'`, not rotation: `(1 − t)·v_k + t·v_{k+1}`.
 * - `'linear'`, rotation (glTF's slerp): `a = arccos(|v_k·v_{k+1}|)`, `s = sign(v_k·v_{k+1})`,
 *   `v = sin(a(1 − t))/sin(a)·v_k + s·sin(a·t)/sin(a)·v_{k+1}`: the shortest arc, so `q` and `−q` keys give
 *   the same rotations. The result stays in `v_k`'s hemisphere (signs are not made continuous: see
 *   `unrollQuaternions`). At a dot product of exactly 0 (keys 180° apart as rotations, both arcs
 *   equally long; the specification's `s` is 0/0) the second key keeps its sign (`s = +1`), which is
 *   what three.js's `Quaternion.slerpFlat` does too (`dot < 0` flips). three.js also switches to
 *   normalised lerp when the dot exceeds 0.9995 (keys closer than 3.6°); here the slerp weights are
 *   used down to an angle of 1e-10 rad (below it, their limit `1 − t`, `t`), so results differ from
 *   three.js by up to 5e-7 (quaternion components) in that range and agree with the specification to
 *   rounding. The weights are evaluated as `sin(a − x) = sin a·cos x − cos a·sin x` from the shorter part
 *   `x` of the interval, with Taylor series where the angles are below 0.046 rad (exact to rounding; no
 *   libm call per sample near keys).
 * - `'cubicspline'`: `v = (2t³ − 3t² + 1)·v_k + t_d(t³ − 2t² + t)·b_k + (−2t³ + 3t²)·v_{k+1} + t_d(t³ − t²)·a_{k+1}`
 *   with `a`, `v`, `b` the in-tangent, value and out-tangent of a key (tangents are per second, hence
 *   the `t_d`); rotations are normalised afterwards (at key times and outside the range too).
 *
 * A query equal to a key time returns that key's value as it is stored (CUBICSPLINE rotations:
 * normalised). Before the first key the value is the first key's, after the last the last key's (glTF
 * clamps; no extrapolation). One key gives a constant. Key times need not be uniform. Non-unit
 * rotation keys are used as they are (glTF requires unit quaternions; Float32 keys are unit to about
 * 1e-7, and so are the results).
 *
 * Output `times.length x width`, key-major like the values; Float64 unless `options.out` is given
 * (Float32 accepted). Query times may come in any order; increasing times are found in amortised O(1)
 * (see {@link TrackSampler}), others by bisection. When `out` shares memory with the track or with
 * `times`, the result goes through a temporary buffer first, so aliasing is safe.
 *
 * Source: The Khronos Group, glTF 2.0 Specification, Appendix C (interpolation) and 3.11 (clamping);
 * slerp after Shoemake (1985).
 *
 * @param options - Defaults in {@link EVALUATE_TRACK_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} or {@link InvalidValueError} on a malformed track (see {@link assertTrack}), or
 *   when `out` has the wrong length. @throws {InvalidValueError} on a query time that is not finite
 *   (`location.index` = the query), or a CUBICSPLINE rotation that interpolates to zero.
 * @throws {OptionError} on an unknown option or an `out` that is no Float64Array or Float32Array.
 * @example
 * const track = { joint: 0, path: 'translation', interpolation: 'linear', width: 3,
 *   times: Float64Array.of(0, 2), values: Float64Array.of(0, 0, 0, 2, 4, 6) } as const;
 * evaluateTrack(track, [1, 5]); // Float64Array [1, 2, 3, 2, 4, 6]
 */
export function evaluateTrack<T extends FloatArray = Float64Array>(
  track: Track,
  times: ArrayLike<number>,
  options: EvaluateTrackOptions<T> = {},
): T {
  const where = 'evaluateTrack';
  const o = resolveOptions(where, options, EVALUATE_TRACK_DEFAULTS, EVALUATE_TRACK_SPEC);
  const sampler = new TrackSampler(track, `${where}: track`);
  if (times === null || typeof times !== 'object' || typeof times.length !== 'number') {
    throw new ShapeError(`${where}: times must be an array of numbers`);
  }
  const n = times.length;
  const w = sampler.width;
  const out = (o.out ?? new Float64Array(n * w)) as T;
  if (out.length !== n * w) {
    throw new ShapeError(`${where}: out has ${out.length} values, expected times x width = ${n * w}`);
  }
  for (let i = 0; i < n; i++) {
    const t = times[i];
    if (typeof t !== 'number' || !Number.isFinite(t)) {
      throw new InvalidValueError(`${where}: times[${i}] is ${String(t)}, not a finite number of seconds`, {
        index: i,
      });
    }
  }
  const aliased =
    o.out !== undefined &&
    (overlaps(out, track.times) || overlaps(out, track.values) || overlaps(out, times));
  const target: FloatArray = aliased ? new Float64Array(n * w) : out;
  for (let i = 0; i < n; i++) sampler.sample(target, i * w, times[i]);
  if (aliased) out.set(target);
  return out;
}
