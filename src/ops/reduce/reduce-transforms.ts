// Transform kernels of the reduction, inline on flat arrays: local matrix and world composition.
import { toMatrixRaw } from '../../quat/raw.js';

/** Row-major `R·S` of quaternion `q[qo..]` and scale `s[so..]` into `out[o..]`. */
export function localMatrix(
  out: Float64Array,
  o: number,
  q: ArrayLike<number>,
  qo: number,
  s: ArrayLike<number>,
  so: number,
): void {
  // toMatrixFlat's formula (normalising), then the columns scaled: this runs for every joint and frame
  toMatrixRaw(out, o, q, qo);
  const sx = s[so];
  const sy = s[so + 1];
  const sz = s[so + 2];
  out[o] *= sx;
  out[o + 1] *= sy;
  out[o + 2] *= sz;
  out[o + 3] *= sx;
  out[o + 4] *= sy;
  out[o + 5] *= sz;
  out[o + 6] *= sx;
  out[o + 7] *= sy;
  out[o + 8] *= sz;
}

/**
 * World transform of a joint: `M = M_parent · L`, `p = p_parent + M_parent · t` (`parent` -1: `M = L`, `p = t`),
 * written at `M[mo..]`, `p[po..]`; the parent's is read at item `parent` of `PM`/`Pp`.
 */
export function compose(
  M: Float64Array,
  p: Float64Array,
  mo: number,
  po: number,
  parent: number,
  PM: Float64Array,
  Pp: Float64Array,
  L: Float64Array,
  lo: number,
  t: ArrayLike<number>,
  to: number,
): void {
  if (parent < 0) {
    for (let i = 0; i < 9; i++) M[mo + i] = L[lo + i];
    p[po] = t[to];
    p[po + 1] = t[to + 1];
    p[po + 2] = t[to + 2];
    return;
  }
  const a = parent * 9;
  transformPoint(p, po, Pp, parent * 3, PM, a, t, to);
  for (let r = 0; r < 3; r++) {
    const m0 = PM[a + r * 3];
    const m1 = PM[a + r * 3 + 1];
    const m2 = PM[a + r * 3 + 2];
    const l0 = L[lo];
    M[mo + r * 3] = m0 * l0 + m1 * L[lo + 3] + m2 * L[lo + 6];
    M[mo + r * 3 + 1] = m0 * L[lo + 1] + m1 * L[lo + 4] + m2 * L[lo + 7];
    M[mo + r * 3 + 2] = m0 * L[lo + 2] + m1 * L[lo + 5] + m2 * L[lo + 8];
  }
}

/** `p[po..] = Pp[b..] + A[ao..]·t[to..]` (`A` row-major 3x3): a child's origin from its parent's transform. */
function transformPoint(
  p: Float64Array,
  po: number,
  Pp: Float64Array,
  b: number,
  A: Float64Array,
  ao: number,
  t: ArrayLike<number>,
  to: number,
): void {
  const x = t[to];
  const y = t[to + 1];
  const z = t[to + 2];
  const px = Pp[b] + A[ao] * x + A[ao + 1] * y + A[ao + 2] * z;
  const py = Pp[b + 1] + A[ao + 3] * x + A[ao + 4] * y + A[ao + 5] * z;
  const pz = Pp[b + 2] + A[ao + 6] * x + A[ao + 7] * y + A[ao + 8] * z;
  p[po] = px;
  p[po + 1] = py;
  p[po + 2] = pz;
}

/**
 * {@link compose} for a clip without scales, its world rotations as unit quaternions: `Q = Q_parent ⊗ q`,
 * `p = p_parent + R(Q_parent)·t` (`parent` -1: `Q = q`, `p = t`), written at `Q[qo..]`, `p[po..]`; the
 * parent's is read at item `parent` of `PQ`/`Pp`. `q[lo..]` is the local rotation: used as it is when
 * `unit` (every rotation of the clip unit to 1e-12), else normalised first (as `normalise4` does), as
 * {@link localMatrix}'s formula does. `R(Q_parent)` is {@link toMatrixRaw}'s, so the origin matches
 * {@link compose} with that matrix.
 */
export function composeRotation(
  Q: Float64Array,
  p: Float64Array,
  qo: number,
  po: number,
  parent: number,
  PQ: Float64Array,
  Pp: Float64Array,
  local: ArrayLike<number>,
  localOffset: number,
  t: ArrayLike<number>,
  to: number,
  unit: boolean,
): void {
  // in locals, each step the arithmetic of the kernel named (normalise4, toMatrixRaw, transformPoint,
  // multiplyRaw), so the result is theirs bit for bit: this runs for every joint and frame, three times
  let qx = local[localOffset];
  let qy = local[localOffset + 1];
  let qz = local[localOffset + 2];
  let qw = local[localOffset + 3];
  if (!unit) {
    const n2 = qx * qx + qy * qy + qz * qz + qw * qw;
    const n = n2 > 1e-280 && n2 < 1e280 ? Math.sqrt(n2) : Math.hypot(qx, qy, qz, qw);
    qx /= n;
    qy /= n;
    qz /= n;
    qw /= n;
  }
  const tx = t[to];
  const ty = t[to + 1];
  const tz = t[to + 2];
  if (parent < 0) {
    Q[qo] = qx;
    Q[qo + 1] = qy;
    Q[qo + 2] = qz;
    Q[qo + 3] = qw;
    p[po] = tx;
    p[po + 1] = ty;
    p[po + 2] = tz;
    return;
  }
  const a = parent * 4;
  const b = parent * 3;
  const ax = PQ[a];
  const ay = PQ[a + 1];
  const az = PQ[a + 2];
  const aw = PQ[a + 3];
  // the parent's rotation matrix, row by row, applied to t
  const s = 2 / (ax * ax + ay * ay + az * az + aw * aw);
  const xx = ax * ax * s;
  const yy = ay * ay * s;
  const zz = az * az * s;
  const xy = ax * ay * s;
  const xz = ax * az * s;
  const yz = ay * az * s;
  const wx = aw * ax * s;
  const wy = aw * ay * s;
  const wz = aw * az * s;
  const px = Pp[b] + (1 - yy - zz) * tx + (xy - wz) * ty + (xz + wy) * tz;
  const py = Pp[b + 1] + (xy + wz) * tx + (1 - xx - zz) * ty + (yz - wx) * tz;
  const pz = Pp[b + 2] + (xz - wy) * tx + (yz + wx) * ty + (1 - xx - yy) * tz;
  p[po] = px;
  p[po + 1] = py;
  p[po + 2] = pz;
  Q[qo] = aw * qx + ax * qw + ay * qz - az * qy;
  Q[qo + 1] = aw * qy - ax * qz + ay * qw + az * qx;
  Q[qo + 2] = aw * qz + ax * qy - ay * qx + az * qw;
  Q[qo + 3] = aw * qw - ax * qx - ay * qy - az * qz;
}

/**
 * The world linear part (row-major 3x3) of item `i` into `out[0..9]`: the matrix `M[i·9..]` when the
 * clip has scales, else the rotation of the unit quaternion `Q[i·4..]` ({@link toMatrixRaw}).
 */
export function linearPart(
  out: Float64Array,
  scaled: boolean,
  M: Float64Array,
  Q: Float64Array,
  i: number,
): void {
  if (scaled) for (let e = 0; e < 9; e++) out[e] = M[i * 9 + e];
  else toMatrixRaw(out, 0, Q, i * 4);
}
