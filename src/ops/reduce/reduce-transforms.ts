// Transform kernels of the reduction, inline on flat arrays: local matrix and world composition (the
// quaternion product is quat/raw's multiplyRaw).
import { multiplyRaw, toMatrixRaw } from '../../quat/raw.js';

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
  const b = parent * 3;
  const x = t[to];
  const y = t[to + 1];
  const z = t[to + 2];
  const px = Pp[b] + PM[a] * x + PM[a + 1] * y + PM[a + 2] * z;
  const py = Pp[b + 1] + PM[a + 3] * x + PM[a + 4] * y + PM[a + 5] * z;
  const pz = Pp[b + 2] + PM[a + 6] * x + PM[a + 7] * y + PM[a + 8] * z;
  for (let r = 0; r < 3; r++) {
    const m0 = PM[a + r * 3];
    const m1 = PM[a + r * 3 + 1];
    const m2 = PM[a + r * 3 + 2];
    const l0 = L[lo];
    M[mo + r * 3] = m0 * l0 + m1 * L[lo + 3] + m2 * L[lo + 6];
    M[mo + r * 3 + 1] = m0 * L[lo + 1] + m1 * L[lo + 4] + m2 * L[lo + 7];
    M[mo + r * 3 + 2] = m0 * L[lo + 2] + m1 * L[lo + 5] + m2 * L[lo + 8];
  }
  p[po] = px;
  p[po + 1] = py;
  p[po + 2] = pz;
}

/**
 * {@link compose} for a clip without scales, its world rotations as unit quaternions: `Q = Q_parent ⊗ q`,
 * `p = p_parent + R(Q_parent)·t` (`parent` -1: `Q = q`, `p = t`), written at `Q[qo..]`, `p[po..]`; the
 * parent's is read at item `parent` of `PQ`/`Pp`; `q[lo..]` is a unit quaternion (normalised by the caller).
 * `R(Q_parent)` is {@link toMatrixRaw}'s, so the origin matches {@link compose} with that matrix.
 */
export function composeRotation(
  Q: Float64Array,
  p: Float64Array,
  qo: number,
  po: number,
  parent: number,
  PQ: Float64Array,
  Pp: Float64Array,
  q: ArrayLike<number>,
  lo: number,
  t: ArrayLike<number>,
  to: number,
): void {
  if (parent < 0) {
    Q[qo] = q[lo];
    Q[qo + 1] = q[lo + 1];
    Q[qo + 2] = q[lo + 2];
    Q[qo + 3] = q[lo + 3];
    p[po] = t[to];
    p[po + 1] = t[to + 1];
    p[po + 2] = t[to + 2];
    return;
  }
  const a = parent * 4;
  const b = parent * 3;
  const R = parentRotation;
  toMatrixRaw(R, 0, PQ, a);
  const x = t[to];
  const y = t[to + 1];
  const z = t[to + 2];
  p[po] = Pp[b] + R[0] * x + R[1] * y + R[2] * z;
  p[po + 1] = Pp[b + 1] + R[3] * x + R[4] * y + R[5] * z;
  p[po + 2] = Pp[b + 2] + R[6] * x + R[7] * y + R[8] * z;
  multiplyRaw(Q, qo, PQ, a, q, lo);
}

const parentRotation = new Float64Array(9);
