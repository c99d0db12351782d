// Transform kernels of the reduction, inline on flat arrays: local matrix and world composition.
import { multiplyRaw, rotateVectorRaw, toMatrixRaw } from '../../quat/raw.js';
import { normalise4 } from './reduce-interpolate.js';

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
  p[po] = Pp[b] + PM[a] * x + PM[a + 1] * y + PM[a + 2] * z;
  p[po + 1] = Pp[b + 1] + PM[a + 3] * x + PM[a + 4] * y + PM[a + 5] * z;
  p[po + 2] = Pp[b + 2] + PM[a + 6] * x + PM[a + 7] * y + PM[a + 8] * z;
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

/**
 * {@link compose} for a clip without scales, its world rotations as unit quaternions: `Q = Q_parent ⊗ q`,
 * `p = p_parent + Q_parent·t` (`parent` -1: `Q = q`, `p = t`), written at `Q[qo..]`, `p[po..]`; the
 * parent's is read at item `parent` of `PQ`/`Pp`. `local[localOffset..]` is the local rotation: used as it
 * is when `unit` (every rotation of the clip unit to 1e-12), else normalised first ({@link normalise4}),
 * as {@link localMatrix}'s formula does. The kernels are quat/raw's (`rotateVectorRaw`, `multiplyRaw`), on
 * the arrays themselves: this runs for every joint and frame, three times.
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
  let q = local;
  let lo = localOffset;
  if (!unit) {
    for (let c = 0; c < 4; c++) unitLocal[c] = local[localOffset + c];
    normalise4(unitLocal);
    q = unitLocal;
    lo = 0;
  }
  if (parent < 0) {
    for (let c = 0; c < 4; c++) Q[qo + c] = q[lo + c];
    for (let c = 0; c < 3; c++) p[po + c] = t[to + c];
    return;
  }
  const a = parent * 4;
  const b = parent * 3;
  rotateVectorRaw(p, po, PQ, a, t, to);
  p[po] += Pp[b];
  p[po + 1] += Pp[b + 1];
  p[po + 2] += Pp[b + 2];
  multiplyRaw(Q, qo, PQ, a, q, lo);
}

const unitLocal = new Float64Array(4);

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
