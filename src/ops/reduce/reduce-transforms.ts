// Transform kernels of the reduction, inline on flat arrays: local matrix and world composition (the
// quaternion product is quat/raw's multiplyRaw).

/** Row-major `R·S` of quaternion `q[qo..]` and scale `s[so..]` into `out[o..]`. */
export function localMatrix(
  out: Float64Array,
  o: number,
  q: ArrayLike<number>,
  qo: number,
  s: ArrayLike<number>,
  so: number,
): void {
  // toMatrixFlat's formula (normalising), inline: this runs for every joint and frame several times
  const x = q[qo];
  const y = q[qo + 1];
  const z = q[qo + 2];
  const w = q[qo + 3];
  const k = 2 / (x * x + y * y + z * z + w * w);
  const xx = x * x * k;
  const yy = y * y * k;
  const zz = z * z * k;
  const xy = x * y * k;
  const xz = x * z * k;
  const yz = y * z * k;
  const wx = w * x * k;
  const wy = w * y * k;
  const wz = w * z * k;
  const sx = s[so];
  const sy = s[so + 1];
  const sz = s[so + 2];
  out[o] = (1 - yy - zz) * sx;
  out[o + 1] = (xy - wz) * sy;
  out[o + 2] = (xz + wy) * sz;
  out[o + 3] = (xy + wz) * sx;
  out[o + 4] = (1 - xx - zz) * sy;
  out[o + 5] = (yz - wx) * sz;
  out[o + 6] = (xz - wy) * sx;
  out[o + 7] = (yz + wx) * sy;
  out[o + 8] = (1 - xx - yy) * sz;
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
