/**
 * The arithmetic of the hot kernels without any check, for rotsig's own loops (forward kinematics, blending,
 * averaging, key reduction), which check their input once at entry. Not exported from `rotsig`: the public
 * kernels (`multiplyFlat`, `rotateVectorFlat`, `conjugateFlat`, `toMatrixFlat`) check shapes and finiteness
 * around these.
 *
 * Each reads all its inputs before its first write, so `dst` may overlap an input.
 *
 * @internal
 * @module
 */
import type { QuatLike, QuatOut } from './types.js';

/** `dst = a ⊗ b` (Hamilton product, `x, y, z, w`), unchecked. */
export function multiplyRaw(
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
 * `dst = ±(a⁻¹ ⊗ b)` for unit `a`, `b` (the rotation from `a` to `b`), the sign chosen so that `w ≥ 0` (the
 * shorter way), unchecked.
 */
export function relativeRaw(
  dst: QuatOut,
  dstOffset: number,
  a: QuatLike,
  aOffset: number,
  b: QuatLike,
  bOffset: number,
): void {
  const ax = -a[aOffset];
  const ay = -a[aOffset + 1];
  const az = -a[aOffset + 2];
  const aw = a[aOffset + 3];
  const bx = b[bOffset];
  const by = b[bOffset + 1];
  const bz = b[bOffset + 2];
  const bw = b[bOffset + 3];
  const x = aw * bx + ax * bw + ay * bz - az * by;
  const y = aw * by - ax * bz + ay * bw + az * bx;
  const z = aw * bz + ax * by - ay * bx + az * bw;
  const w = aw * bw - ax * bx - ay * by - az * bz;
  if (w < 0) {
    dst[dstOffset] = -x;
    dst[dstOffset + 1] = -y;
    dst[dstOffset + 2] = -z;
    dst[dstOffset + 3] = -w;
  } else {
    dst[dstOffset] = x;
    dst[dstOffset + 1] = y;
    dst[dstOffset + 2] = z;
    dst[dstOffset + 3] = w;
  }
}

/** `dst = R(q)·v` for a unit `q` (`t = 2·(u × v)`, `v' = v + w·t + u × t`), unchecked. */
export function rotateVectorRaw(
  dst: QuatOut,
  dstOffset: number,
  q: QuatLike,
  qOffset: number,
  v: QuatLike,
  vOffset: number,
): void {
  const qx = q[qOffset];
  const qy = q[qOffset + 1];
  const qz = q[qOffset + 2];
  const qw = q[qOffset + 3];
  const vx = v[vOffset];
  const vy = v[vOffset + 1];
  const vz = v[vOffset + 2];
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  dst[dstOffset] = vx + qw * tx + (qy * tz - qz * ty);
  dst[dstOffset + 1] = vy + qw * ty + (qz * tx - qx * tz);
  dst[dstOffset + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** `dst = (−x, −y, −z, w)` of `a`, unchecked. */
export function conjugateRaw(dst: QuatOut, dstOffset: number, a: QuatLike, aOffset: number): void {
  const x = a[aOffset];
  const y = a[aOffset + 1];
  const z = a[aOffset + 2];
  const w = a[aOffset + 3];
  dst[dstOffset] = -x;
  dst[dstOffset + 1] = -y;
  dst[dstOffset + 2] = -z;
  dst[dstOffset + 3] = w;
}

/**
 * The angle between unit quaternions `a` and `b` on the 4-sphere, `2·atan2(|a − b|, |a + b|)` (half the
 * rotation angle between them when `b` is on `a`'s hemisphere): accurate near 0 and π, where `acos` of
 * the dot product loses half the digits. The angle `slerpFlat` interpolates by, and the reduction's check
 * of a slerp segment, bit for bit the same.
 *
 * @internal
 */
export function sphereAngleRaw(
  ax: number,
  ay: number,
  az: number,
  aw: number,
  bx: number,
  by: number,
  bz: number,
  bw: number,
): number {
  const mx = ax - bx;
  const my = ay - by;
  const mz = az - bz;
  const mw = aw - bw;
  const px = ax + bx;
  const py = ay + by;
  const pz = az + bz;
  const pw = aw + bw;
  return (
    2 *
    Math.atan2(
      Math.sqrt(mx * mx + my * my + mz * mz + mw * mw),
      Math.sqrt(px * px + py * py + pz * pz + pw * pw),
    )
  );
}

/**
 * Rotation matrix of `q` (row-major 3x3, column vectors), unchecked: the normalising formula, so a
 * quaternion of any nonzero length gives the matrix of the rotation it represents (`2/|q|²` divides the
 * norm out); a zero quaternion gives non-finite entries.
 */
export function toMatrixRaw(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  const x = q[qOffset];
  const y = q[qOffset + 1];
  const z = q[qOffset + 2];
  const w = q[qOffset + 3];
  const s = 2 / (x * x + y * y + z * z + w * w);
  const xx = x * x * s;
  const yy = y * y * s;
  const zz = z * z * s;
  const xy = x * y * s;
  const xz = x * z * s;
  const yz = y * z * s;
  const wx = w * x * s;
  const wy = w * y * s;
  const wz = w * z * s;
  dst[dstOffset] = 1 - yy - zz;
  dst[dstOffset + 1] = xy - wz;
  dst[dstOffset + 2] = xz + wy;
  dst[dstOffset + 3] = xy + wz;
  dst[dstOffset + 4] = 1 - xx - zz;
  dst[dstOffset + 5] = yz - wx;
  dst[dstOffset + 6] = xz - wy;
  dst[dstOffset + 7] = yz + wx;
  dst[dstOffset + 8] = 1 - xx - yy;
}
