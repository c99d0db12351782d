import { InvalidValueError } from '../errors.js';
import type { QuatLike, QuatOut } from './types.js';

/** Allocates a Float64 identity quaternion `(0, 0, 0, 1)`. */
export function create(): Float64Array {
  const out = new Float64Array(4);
  out[3] = 1;
  return out;
}

/** Sets `out` to the identity rotation `(0, 0, 0, 1)`. */
export function identity<T extends QuatOut>(out: T): T {
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 1;
  return out;
}

/** Sets the components of `out` (x, y, z, w order). */
export function set<T extends QuatOut>(out: T, x: number, y: number, z: number, w: number): T {
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
  return out;
}

/** Copies `a` into `out`. */
export function copy<T extends QuatOut>(out: T, a: QuatLike): T {
  const x = a[0];
  const y = a[1];
  const z = a[2];
  const w = a[3];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
  return out;
}

/**
 * Hamilton product `a ⊗ b` on flat arrays: the rotation that applies `b` first, then `a`
 * (`R(a ⊗ b) = R(a)·R(b)`). Reads all inputs before writing, so `dst` may overlap either input.
 */
export function multiplyFlat(
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
): void {
  const ax = a[aOffset];
  const ay = a[aOffset + 1];
  const az = a[aOffset + 2];
  const aw = a[aOffset + 3];
  const bx = b[bOffset];
  const by = b[bOffset + 1];
  const bz = b[bOffset + 2];
  const bw = b[bOffset + 3];
  dst[dstOffset] = aw * bx + ax * bw + ay * bz - az * by;
  dst[dstOffset + 1] = aw * by - ax * bz + ay * bw + az * bx;
  dst[dstOffset + 2] = aw * bz + ax * by - ay * bx + az * bw;
  dst[dstOffset + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/**
 * Hamilton product `out = a ⊗ b`: rotating by the result equals rotating by `b`, then by `a`.
 * `out` may be `a` or `b`.
 *
 * @example
 * const q = quat.multiply(quat.create(), a, b); // R(q) = R(a)·R(b)
 */
export function multiply<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike): T {
  multiplyFlat(out, 0, a, 0, b, 0);
  return out;
}

/** Conjugate `(-x, -y, -z, w)` on flat arrays; the inverse rotation of a unit quaternion. */
export function conjugateFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  const x = a[aOffset];
  const y = a[aOffset + 1];
  const z = a[aOffset + 2];
  const w = a[aOffset + 3];
  dst[dstOffset] = -x;
  dst[dstOffset + 1] = -y;
  dst[dstOffset + 2] = -z;
  dst[dstOffset + 3] = w;
}

/** Conjugate `(-x, -y, -z, w)`: the inverse rotation of a unit quaternion. `out` may be `a`. */
export function conjugate<T extends QuatOut>(out: T, a: QuatLike): T {
  conjugateFlat(out, 0, a, 0);
  return out;
}

/**
 * Inverse `conj(a) / |a|²` on flat arrays, so that `a ⊗ a⁻¹ = 1` also for non-unit `a`.
 *
 * @throws {InvalidValueError} when `a` is zero or not finite.
 */
export function invertFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
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
 */
export function invert<T extends QuatOut>(out: T, a: QuatLike): T {
  invertFlat(out, 0, a, 0);
  return out;
}

/**
 * Scales a quaternion to unit length on flat arrays.
 *
 * @throws {InvalidValueError} when the quaternion is zero, not finite, or its norm overflows: there is
 * no rotation to return, and a silent NaN would travel far before anyone noticed.
 */
export function normalizeFlat(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
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
 */
export function normalize<T extends QuatOut>(out: T, a: QuatLike): T {
  normalizeFlat(out, 0, a, 0);
  return out;
}

/** Four-dimensional dot product on flat arrays. */
export function dotFlat(a: QuatLike, aOffset: number, b: QuatLike, bOffset: number): number {
  return (
    a[aOffset] * b[bOffset] +
    a[aOffset + 1] * b[bOffset + 1] +
    a[aOffset + 2] * b[bOffset + 2] +
    a[aOffset + 3] * b[bOffset + 3]
  );
}

/**
 * Four-dimensional dot product. For unit quaternions `|dot| = cos(θ/2)` where θ is the angle between the
 * rotations; its sign says whether they lie in the same hemisphere.
 */
export function dot(a: QuatLike, b: QuatLike): number {
  return dotFlat(a, 0, b, 0);
}

/**
 * The representative with `w >= 0` (the same rotation): flips the sign when `w < 0`. At `w = 0` the
 * input is kept as it is. `out` may be `a`.
 */
export function abs<T extends QuatOut>(out: T, a: QuatLike): T {
  const s = a[3] < 0 ? -1 : 1;
  const x = a[0];
  const y = a[1];
  const z = a[2];
  const w = a[3];
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
 * its digits, and never sees a dot above 1.
 */
export function angle(a: QuatLike, b: QuatLike): number {
  const s = dotFlat(a, 0, b, 0) < 0 ? -1 : 1;
  let dm = 0;
  let dp = 0;
  for (let i = 0; i < 4; i++) {
    const bi = s * b[i];
    const m = a[i] - bi;
    const p = a[i] + bi;
    dm += m * m;
    dp += p * p;
  }
  return 4 * Math.atan2(Math.sqrt(dm), Math.sqrt(dp));
}

/**
 * Chordal distance between two rotations: `sin(θ/2)` where θ is their geodesic angle; in `[0, 1]`,
 * sign-invariant. It is the objective the eigen average minimises (squared and weighted), and relates
 * to the Frobenius distance of the rotation matrices by `‖R(a) − R(b)‖_F = 2·√2·sin(θ/2)`.
 * Source: Hartley et al., "Rotation Averaging" (IJCV 2013), chordal L2 mean.
 */
export function chordalDistance(a: QuatLike, b: QuatLike): number {
  return Math.sin(0.5 * angle(a, b));
}

/**
 * Spherical linear interpolation along the shortest arc on flat arrays: `b` is flipped into `a`'s
 * hemisphere first, so the path is the shorter rotation. Exact at `t = 0` (returns `a`) and `t = 1`
 * (returns `b` or `-b`); for inputs closer than about 1e-10 rad, linear interpolation plus
 * normalisation is used, which is exact to rounding there and never divides 0 by 0.
 * Inputs are assumed unit; `t` outside `[0, 1]` extrapolates along the same great circle.
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
  const ax = a[aOffset];
  const ay = a[aOffset + 1];
  const az = a[aOffset + 2];
  const aw = a[aOffset + 3];
  let bx = b[bOffset];
  let by = b[bOffset + 1];
  let bz = b[bOffset + 2];
  let bw = b[bOffset + 3];
  if (ax * bx + ay * by + az * bz + aw * bw < 0) {
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  const mx = ax - bx;
  const my = ay - by;
  const mz = az - bz;
  const mw = aw - bw;
  const px = ax + bx;
  const py = ay + by;
  const pz = az + bz;
  const pw = aw + bw;
  // θ is the angle between a and b on the 4-sphere (half the rotation angle).
  const theta =
    2 *
    Math.atan2(
      Math.sqrt(mx * mx + my * my + mz * mz + mw * mw),
      Math.sqrt(px * px + py * py + pz * pz + pw * pw),
    );
  let s0: number;
  let s1: number;
  if (theta < 1e-10) {
    s0 = 1 - t;
    s1 = t;
  } else {
    const inv = 1 / Math.sin(theta);
    s0 = Math.sin((1 - t) * theta) * inv;
    s1 = Math.sin(t * theta) * inv;
  }
  let x = s0 * ax + s1 * bx;
  let y = s0 * ay + s1 * by;
  let z = s0 * az + s1 * bz;
  let w = s0 * aw + s1 * bw;
  if (theta < 1e-10 && t !== 0 && t !== 1) {
    const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    x *= n;
    y *= n;
    z *= n;
    w *= n;
  }
  dst[dstOffset] = x;
  dst[dstOffset + 1] = y;
  dst[dstOffset + 2] = z;
  dst[dstOffset + 3] = w;
}

/**
 * Spherical linear interpolation along the shortest arc: constant angular speed on the great circle
 * from `a` (t = 0) to `b` (t = 1). `q` and `-q` as inputs give the same rotations. `out` may alias.
 * Source: Shoemake, "Animating rotation with quaternion curves" (SIGGRAPH 1985).
 *
 * @example
 * const mid = quat.slerp(quat.create(), a, b, 0.5);
 */
export function slerp<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike, t: number): T {
  slerpFlat(out, 0, a, 0, b, 0, t);
  return out;
}

/**
 * Normalised linear interpolation along the shortest arc on flat arrays: the same great-circle path as
 * slerp, not at constant speed. Throws only when the blend vanishes (antipodal after flipping cannot
 * happen; a zero input can).
 *
 * @throws {InvalidValueError} when the interpolated quaternion is zero or not finite.
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
  const s = dotFlat(a, aOffset, b, bOffset) < 0 ? -t : t;
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
 * @throws {InvalidValueError} when the blend is zero or not finite.
 */
export function nlerp<T extends QuatOut>(out: T, a: QuatLike, b: QuatLike, t: number): T {
  nlerpFlat(out, 0, a, 0, b, 0, t);
  return out;
}

/**
 * Reads a scalar-first quaternion `(w, x, y, z)` (Eigen, Unity's serialisations, many papers) into
 * rotsig's `(x, y, z, w)`. `out` may be `a`.
 */
export function fromWxyz<T extends QuatOut>(out: T, a: QuatLike): T {
  const w = a[0];
  const x = a[1];
  const y = a[2];
  const z = a[3];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
  return out;
}

/** Writes rotsig's `(x, y, z, w)` as scalar-first `(w, x, y, z)`. `out` may be `q`. */
export function toWxyz<T extends QuatOut>(out: T, q: QuatLike): T {
  const x = q[0];
  const y = q[1];
  const z = q[2];
  const w = q[3];
  out[0] = w;
  out[1] = x;
  out[2] = y;
  out[3] = z;
  return out;
}
