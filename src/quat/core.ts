import { InvalidValueError } from '../errors.js';
import { checkLength, checkNorm, checkSpan, checkSpans3, finite4, notFinite } from './check.js';
import { multiplyRaw, sphereAngleRaw } from './raw.js';
import type { QuatLike, QuatOut } from './types.js';

/** Argument names for the shape messages of the three-span kernels. */
const DST_A_B = ['dst', 'a', 'b'] as const;

/** Allocates a Float64 identity quaternion `(0, 0, 0, 1)`. */
export function create(): Float64Array {
  const out = new Float64Array(4);
  out[3] = 1;
  return out;
}

/**
 * Sets `out` to the identity rotation `(0, 0, 0, 1)`.
 *
 * @throws {ShapeError} when `out` does not hold 4 numbers.
 */
export function identity<T extends QuatOut>(out: T): T {
  checkLength('identity', 'out', out, 4);
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 1;
  return out;
}

/**
 * Sets the components of `out` (x, y, z, w order). The numbers are stored as given (a zero or non-unit
 * quaternion too); they must be finite numbers.
 *
 * @throws {ShapeError} when `out` does not hold 4 numbers.
 * @throws {InvalidValueError} when a component is not a finite number.
 */
export function set<T extends QuatOut>(out: T, x: number, y: number, z: number, w: number): T {
  checkLength('set', 'out', out, 4);
  if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z) && Number.isFinite(w))) {
    throw new InvalidValueError(
      `set: the components must be finite numbers, got ${[x, y, z, w].map((v) => String(v)).join(', ')}`,
    );
  }
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
  return out;
}

/**
 * Copies `a` into `out` (a zero or non-unit quaternion too).
 *
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 * @throws {InvalidValueError} when `a` holds a value that is not a finite number.
 */
export function copy<T extends QuatOut>(out: T, a: QuatLike): T {
  return reorder('copy', 'a', out, a, 0, 1, 2, 3);
}

/**
 * Writes `out[k] = a[ik]` for k = 0..3 after checking both lengths and that `a` is finite; reads all of `a`
 * before writing, so `out` may be `a`. The one body of {@link copy}, {@link fromWxyz} and {@link toWxyz}.
 */
function reorder<T extends QuatOut>(
  fn: string,
  name: string,
  out: T,
  a: QuatLike,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
): T {
  checkLength(fn, 'out', out, 4);
  checkLength(fn, name, a, 4);
  const v0 = a[i0];
  const v1 = a[i1];
  const v2 = a[i2];
  const v3 = a[i3];
  if (!finite4(v0, v1, v2, v3)) throw notFinite(fn, name, a, 0, 4);
  out[0] = v0;
  out[1] = v1;
  out[2] = v2;
  out[3] = v3;
  return out;
}

/** Where the checked kernels compute before they test and write (so nothing is written when they throw). */
const RESULT = new Float64Array(4);

/** The Hamilton product for {@link multiplyFlat} and {@link multiply} (`fn` names the caller in errors). */
function product(
  fn: string,
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
): void {
  multiplyRaw(RESULT, 0, a, aOffset, b, bOffset);
  const x = RESULT[0];
  const y = RESULT[1];
  const z = RESULT[2];
  const w = RESULT[3];
  // v − v is 0 for a finite v and NaN otherwise: one test for the four components, before any write
  if (x - x + (y - y) + (z - z) + (w - w) !== 0) throw notFinite(fn, 'a', a, aOffset, 4, 'b', b, bOffset, 4);
  dst[dstOffset] = x;
  dst[dstOffset + 1] = y;
  dst[dstOffset + 2] = z;
  dst[dstOffset + 3] = w;
}

/**
 * Hamilton product `a ⊗ b` on flat arrays: the rotation that applies `b` first, then `a`
 * (`R(a ⊗ b) = R(a)·R(b)`). Reads all inputs before writing, so `dst` may overlap either input. A zero
 * input gives zero (the formula's value; no rotation is checked, this is a hot path).
 *
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 * @throws {InvalidValueError} when an input is not finite or the product overflows (nothing is written).
 */
export function multiplyFlat(
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
): void {
  checkSpans3('multiplyFlat', dst, dstOffset, 4, a, aOffset, 4, b, bOffset, 4, DST_A_B);
  product('multiplyFlat', dst, dstOffset, a, aOffset, b, bOffset);
}

/**
 * Hamilton product `out = a ⊗ b`: rotating by the result equals rotating by `b`, then by `a`.
 * `out` may be `a` or `b`. A zero input gives zero.
 *
 * @throws {ShapeError} when `out`, `a` or `b` does not hold 4 numbers.
 * @throws {InvalidValueError} when an input is not finite or the product overflows (nothing is written).
 *
 * @example
 * const q = quat.multiply(quat.create(), a, b); // R(q) = R(a)·R(b)
 */
export function multiply<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike): T {
  checkLength('multiply', 'out', out, 4);
  checkLength('multiply', 'a', a, 4);
  checkLength('multiply', 'b', b, 4);
  product('multiply', out, 0, a, 0, b, 0);
  return out;
}

/** The conjugate for {@link conjugateFlat} and {@link conjugate} (`fn` names the caller in errors). */
function conjugateInto(fn: string, dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  const x = a[aOffset];
  const y = a[aOffset + 1];
  const z = a[aOffset + 2];
  const w = a[aOffset + 3];
  if (!finite4(x, y, z, w)) throw notFinite(fn, 'a', a, aOffset, 4);
  dst[dstOffset] = -x;
  dst[dstOffset + 1] = -y;
  dst[dstOffset + 2] = -z;
  dst[dstOffset + 3] = w;
}

/**
 * Conjugate `(-x, -y, -z, w)` on flat arrays; the inverse rotation of a unit quaternion.
 *
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 * @throws {InvalidValueError} when `a` holds a value that is not a finite number (nothing is written).
 */
export function conjugateFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  checkSpan('conjugateFlat', 'dst', dst, dstOffset, 4);
  checkSpan('conjugateFlat', 'a', a, aOffset, 4);
  conjugateInto('conjugateFlat', dst, dstOffset, a, aOffset);
}

/**
 * Conjugate `(-x, -y, -z, w)`: the inverse rotation of a unit quaternion. `out` may be `a`.
 *
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 * @throws {InvalidValueError} when `a` holds a value that is not a finite number (nothing is written).
 */
export function conjugate<T extends QuatOut>(out: T, a: QuatLike): T {
  checkLength('conjugate', 'out', out, 4);
  checkLength('conjugate', 'a', a, 4);
  conjugateInto('conjugate', out, 0, a, 0);
  return out;
}

/**
 * Inverse `conj(a) / |a|²` on flat arrays, so that `a ⊗ a⁻¹ = 1` also for non-unit `a`.
 *
 * @throws {InvalidValueError} when `a` is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 */
export function invertFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  checkSpan('invertFlat', 'dst', dst, dstOffset, 4);
  checkSpan('invertFlat', 'a', a, aOffset, 4);
  const x = a[aOffset];
  const y = a[aOffset + 1];
  const z = a[aOffset + 2];
  const w = a[aOffset + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 0) || !Number.isFinite(n2)) {
    throw new InvalidValueError(
      `cannot invert quaternion (${x}, ${y}, ${z}, ${w}): it is zero or not finite`,
    );
  }
  const s = 1 / n2;
  dst[dstOffset] = -x * s;
  dst[dstOffset + 1] = -y * s;
  dst[dstOffset + 2] = -z * s;
  dst[dstOffset + 3] = w * s;
}

/**
 * Inverse rotation. For a unit quaternion this is the conjugate; non-unit inputs are divided by `|a|²`.
 *
 * @throws {InvalidValueError} when `a` is zero or not finite.
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 */
export function invert<T extends QuatOut>(out: T, a: QuatLike): T {
  checkLength('invert', 'out', out, 4);
  checkLength('invert', 'a', a, 4);
  invertFlat(out, 0, a, 0);
  return out;
}

/**
 * Scales a quaternion to unit length on flat arrays.
 *
 * @throws {InvalidValueError} when the quaternion is zero, not finite, or its norm overflows: there is
 * no rotation to return, and a silent NaN would travel far before anyone noticed.
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 */
export function normalizeFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  checkSpan('normalizeFlat', 'dst', dst, dstOffset, 4);
  checkSpan('normalizeFlat', 'a', a, aOffset, 4);
  let x = a[aOffset];
  let y = a[aOffset + 1];
  let z = a[aOffset + 2];
  let w = a[aOffset + 3];
  let n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 1e-280 && n2 < 1e280)) {
    // Rescale by the largest component first so tiny or huge (but finite) inputs neither underflow nor
    // overflow; only a true zero or a non-finite value is an error.
    const m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z), Math.abs(w));
    if (!(m > 0) || m === Number.POSITIVE_INFINITY) {
      throw new InvalidValueError(
        `cannot normalize quaternion (${x}, ${y}, ${z}, ${w}): it is zero or not finite`,
        { index: aOffset >> 2 },
      );
    }
    x /= m;
    y /= m;
    z /= m;
    w /= m;
    n2 = x * x + y * y + z * z + w * w;
  }
  const s = 1 / Math.sqrt(n2);
  dst[dstOffset] = x * s;
  dst[dstOffset + 1] = y * s;
  dst[dstOffset + 2] = z * s;
  dst[dstOffset + 3] = w * s;
}

/**
 * Scales `a` to unit length. The sign is kept (no hemisphere change).
 *
 * @throws {InvalidValueError} when `a` is zero or not finite (never returns NaN).
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 */
export function normalize<T extends QuatOut>(out: T, a: QuatLike): T {
  checkLength('normalize', 'out', out, 4);
  checkLength('normalize', 'a', a, 4);
  normalizeFlat(out, 0, a, 0);
  return out;
}

/** The dot product for {@link dotFlat} and {@link dot} (`fn` names the caller in errors). */
function dotOf(fn: string, a: QuatLike, aOffset: number, b: QuatLike, bOffset: number): number {
  const d =
    a[aOffset] * b[bOffset] +
    a[aOffset + 1] * b[bOffset + 1] +
    a[aOffset + 2] * b[bOffset + 2] +
    a[aOffset + 3] * b[bOffset + 3];
  if (d - d !== 0) {
    throw notFinite(fn, 'a', a, aOffset, 4, 'b', b, bOffset, 4);
  }
  return d;
}

/**
 * Four-dimensional dot product on flat arrays.
 *
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 * @throws {InvalidValueError} when an input is not finite or the sum overflows.
 */
export function dotFlat(a: QuatLike, aOffset: number, b: QuatLike, bOffset: number): number {
  checkSpan('dotFlat', 'a', a, aOffset, 4);
  checkSpan('dotFlat', 'b', b, bOffset, 4);
  return dotOf('dotFlat', a, aOffset, b, bOffset);
}

/**
 * Four-dimensional dot product. For unit quaternions `|dot| = cos(θ/2)` where θ is the angle between the
 * rotations; its sign says whether they lie in the same hemisphere.
 *
 * @throws {ShapeError} when `a` or `b` does not hold 4 numbers.
 * @throws {InvalidValueError} when an input is not finite or the sum overflows.
 */
export function dot(a: QuatLike, b: QuatLike): number {
  checkLength('dot', 'a', a, 4);
  checkLength('dot', 'b', b, 4);
  return dotOf('dot', a, 0, b, 0);
}

/**
 * The representative with `w >= 0` (the same rotation): flips the sign when `w < 0`. At `w = 0` the
 * input is kept as it is. `out` may be `a`.
 *
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 * @throws {InvalidValueError} when `a` holds a value that is not a finite number (nothing is written).
 */
export function abs<T extends QuatOut>(out: T, a: QuatLike): T {
  checkLength('abs', 'out', out, 4);
  checkLength('abs', 'a', a, 4);
  const x = a[0];
  const y = a[1];
  const z = a[2];
  const w = a[3];
  if (!finite4(x, y, z, w)) throw notFinite('abs', 'a', a, 0, 4);
  const s = w < 0 ? -1 : 1;
  out[0] = s * x;
  out[1] = s * y;
  out[2] = s * z;
  out[3] = s * w;
  return out;
}

/**
 * Geodesic angle between two rotations in radians, in `[0, π]`; the same for `b` and `-b`.
 *
 * Computed as `4·atan2(|a − b|, |a + b|)` after aligning hemispheres (with unit inputs this equals
 * `2·acos(|a·b|)`), which stays accurate for tiny angles where `acos` of a dot just below 1 loses half
 * its digits, and never sees a dot above 1. The norms are divided out, so non-unit inputs give the angle
 * between the rotations they represent.
 *
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite.
 * @throws {ShapeError} when `a` or `b` does not hold 4 numbers.
 */
export function angle(a: QuatLike, b: QuatLike): number {
  checkLength('angle', 'a', a, 4);
  checkLength('angle', 'b', b, 4);
  const ax = a[0];
  const ay = a[1];
  const az = a[2];
  const aw = a[3];
  const bx = b[0];
  const by = b[1];
  const bz = b[2];
  const bw = b[3];
  const na2 = ax * ax + ay * ay + az * az + aw * aw;
  const nb2 = bx * bx + by * by + bz * bz + bw * bw;
  checkNorm('angle', 'a', na2, a, 0);
  checkNorm('angle', 'b', nb2, b, 0);
  // Unit inputs (the common case) skip the division; others are scaled onto the sphere first.
  const ka = na2 === 1 ? 1 : 1 / Math.sqrt(na2);
  const kb = (ax * bx + ay * by + az * bz + aw * bw < 0 ? -1 : 1) * (nb2 === 1 ? 1 : 1 / Math.sqrt(nb2));
  const mx = ka * ax - kb * bx;
  const my = ka * ay - kb * by;
  const mz = ka * az - kb * bz;
  const mw = ka * aw - kb * bw;
  const px = ka * ax + kb * bx;
  const py = ka * ay + kb * by;
  const pz = ka * az + kb * bz;
  const pw = ka * aw + kb * bw;
  return (
    4 *
    Math.atan2(
      Math.sqrt(mx * mx + my * my + mz * mz + mw * mw),
      Math.sqrt(px * px + py * py + pz * pz + pw * pw),
    )
  );
}

/**
 * Chordal distance between two rotations: `sin(θ/2)` where θ is their geodesic angle; in `[0, 1]`,
 * sign-invariant. It is the objective the eigen average minimises (squared and weighted), and relates
 * to the Frobenius distance of the rotation matrices by `‖R(a) − R(b)‖_F = 2·√2·sin(θ/2)`.
 * Source: Hartley et al., "Rotation Averaging" (IJCV 2013), chordal L2 mean.
 *
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite.
 * @throws {ShapeError} when `a` or `b` does not hold 4 numbers.
 */
export function chordalDistance(a: QuatLike, b: QuatLike): number {
  return Math.sin(0.5 * angle(a, b));
}

/**
 * Spherical linear interpolation along the shortest arc on flat arrays: `b` is flipped into `a`'s
 * hemisphere first, so the path is the shorter rotation. Exact at the endpoints: `t = 0` writes `a` and
 * `t = 1` writes `b` or `-b`, bit for bit. For inputs closer than about 1e-10 rad, linear interpolation
 * plus normalisation is used, which is exact to rounding there and never divides 0 by 0.
 * Inputs are assumed unit; `t` outside `[0, 1]` extrapolates along the same great circle.
 *
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite, or `t` is not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 */
export function slerpFlat(
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
  t: number,
): void {
  checkSpan('slerpFlat', 'dst', dst, dstOffset, 4);
  checkSpan('slerpFlat', 'a', a, aOffset, 4);
  checkSpan('slerpFlat', 'b', b, bOffset, 4);
  const ax = a[aOffset];
  const ay = a[aOffset + 1];
  const az = a[aOffset + 2];
  const aw = a[aOffset + 3];
  let bx = b[bOffset];
  let by = b[bOffset + 1];
  let bz = b[bOffset + 2];
  let bw = b[bOffset + 3];
  checkNorm('slerp', 'a', ax * ax + ay * ay + az * az + aw * aw, a, aOffset);
  checkNorm('slerp', 'b', bx * bx + by * by + bz * bz + bw * bw, b, bOffset);
  if (!Number.isFinite(t)) throw new InvalidValueError(`slerp: t = ${t} is not finite`);
  if (ax * bx + ay * by + az * bz + aw * bw < 0) {
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (t === 0) {
    // sin(θ)·(1/sin θ) is 1 only to rounding: the endpoints are written, not computed.
    x = ax;
    y = ay;
    z = az;
    w = aw;
  } else if (t === 1) {
    x = bx;
    y = by;
    z = bz;
    w = bw;
  } else {
    // θ is the angle between a and b on the 4-sphere (half the rotation angle).
    const theta = sphereAngleRaw(ax, ay, az, aw, bx, by, bz, bw);
    if (theta < 1e-10) {
      const s0 = 1 - t;
      x = s0 * ax + t * bx;
      y = s0 * ay + t * by;
      z = s0 * az + t * bz;
      w = s0 * aw + t * bw;
      const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
      x *= n;
      y *= n;
      z *= n;
      w *= n;
    } else {
      const inv = 1 / Math.sin(theta);
      const s0 = Math.sin((1 - t) * theta) * inv;
      const s1 = Math.sin(t * theta) * inv;
      x = s0 * ax + s1 * bx;
      y = s0 * ay + s1 * by;
      z = s0 * az + s1 * bz;
      w = s0 * aw + s1 * bw;
    }
  }
  dst[dstOffset] = x;
  dst[dstOffset + 1] = y;
  dst[dstOffset + 2] = z;
  dst[dstOffset + 3] = w;
}

/**
 * Spherical linear interpolation along the shortest arc: constant angular speed on the great circle
 * from `a` (t = 0) to `b` (t = 1). `q` and `-q` as inputs give the same rotations. `out` may alias.
 * Exact at the endpoints: `t = 0` returns `a`, `t = 1` returns `b` or `-b`, bit for bit.
 * Source: Shoemake, "Animating rotation with quaternion curves" (SIGGRAPH 1985).
 *
 * @example
 * const mid = quat.slerp(quat.create(), a, b, 0.5);
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite, or `t` is not finite.
 * @throws {ShapeError} when `out`, `a` or `b` does not hold 4 numbers.
 */
export function slerp<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike, t: number): T {
  checkLength('slerp', 'out', out, 4);
  checkLength('slerp', 'a', a, 4);
  checkLength('slerp', 'b', b, 4);
  slerpFlat(out, 0, a, 0, b, 0, t);
  return out;
}

/**
 * Normalised linear interpolation along the shortest arc on flat arrays: the same great-circle path as
 * slerp, not at constant speed.
 *
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite, or the blend is (a non-finite `t`).
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 */
export function nlerpFlat(
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
  t: number,
): void {
  checkSpan('nlerpFlat', 'dst', dst, dstOffset, 4);
  const s = dotFlat(a, aOffset, b, bOffset) < 0 ? -t : t;
  checkNorm('nlerp', 'a', dotFlat(a, aOffset, a, aOffset), a, aOffset);
  checkNorm('nlerp', 'b', dotFlat(b, bOffset, b, bOffset), b, bOffset);
  const u = 1 - t;
  const x = u * a[aOffset] + s * b[bOffset];
  const y = u * a[aOffset + 1] + s * b[bOffset + 1];
  const z = u * a[aOffset + 2] + s * b[bOffset + 2];
  const w = u * a[aOffset + 3] + s * b[bOffset + 3];
  const n = Math.sqrt(x * x + y * y + z * z + w * w);
  if (!(n > 0) || n === Number.POSITIVE_INFINITY) {
    throw new InvalidValueError(`nlerp: the blend at t = ${t} has no direction (zero or non-finite input)`);
  }
  dst[dstOffset] = x / n;
  dst[dstOffset + 1] = y / n;
  dst[dstOffset + 2] = z / n;
  dst[dstOffset + 3] = w / n;
}

/**
 * Normalised linear interpolation along the shortest arc: `normalize((1 − t)·a + t·b')` with `b'` the
 * representative of `b` nearest `a`. Follows slerp's great circle but not at constant speed: the middle
 * is faster than the ends by the factor `1/cos²(θ/4)` for rotations θ apart (4% at 45°, 17% at 90°,
 * 100% at 180°). `out` may alias.
 *
 * @throws {InvalidValueError} when `a` or `b` is zero or not finite, or the blend is.
 * @throws {ShapeError} when `out`, `a` or `b` does not hold 4 numbers.
 */
export function nlerp<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike, t: number): T {
  checkLength('nlerp', 'out', out, 4);
  checkLength('nlerp', 'a', a, 4);
  checkLength('nlerp', 'b', b, 4);
  nlerpFlat(out, 0, a, 0, b, 0, t);
  return out;
}

/**
 * Reads a scalar-first quaternion `(w, x, y, z)` (Eigen, Unity's serialisations, many papers) into
 * rotsig's `(x, y, z, w)`. `out` may be `a`.
 *
 * @throws {ShapeError} when `out` or `a` does not hold 4 numbers.
 * @throws {InvalidValueError} when `a` holds a value that is not a finite number (nothing is written).
 */
export function fromWxyz<T extends QuatOut>(out: T, a: QuatLike): T {
  return reorder('fromWxyz', 'a', out, a, 1, 2, 3, 0);
}

/**
 * Writes rotsig's `(x, y, z, w)` as scalar-first `(w, x, y, z)`. `out` may be `q`.
 *
 * @throws {ShapeError} when `out` or `q` does not hold 4 numbers.
 * @throws {InvalidValueError} when `q` holds a value that is not a finite number (nothing is written).
 */
export function toWxyz<T extends QuatOut>(out: T, q: QuatLike): T {
  return reorder('toWxyz', 'q', out, q, 3, 0, 1, 2);
}
