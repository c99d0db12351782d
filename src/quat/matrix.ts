import { InvalidValueError } from '../errors.js';
import { checkLength, checkSpan } from './check.js';
import { toMatrixRaw } from './raw.js';
import type { QuatLike, QuatOut } from './types.js';

/**
 * Rotation matrix of a quaternion on flat arrays, row-major 3x3 (`m[r * 3 + c]`), acting on column
 * vectors (`v' = M·v`). Non-unit quaternions give the matrix of the rotation they represent (the norm
 * is divided out), so a slightly denormalised input still yields an orthogonal matrix.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 9 (`dst`) or 4 (`q`) numbers.
 */
export function toMatrixFlat(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  checkSpan('toMatrixFlat', 'dst', dst, dstOffset, 9);
  checkSpan('toMatrixFlat', 'q', q, qOffset, 4);
  const x = q[qOffset];
  const y = q[qOffset + 1];
  const z = q[qOffset + 2];
  const w = q[qOffset + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 0) || !Number.isFinite(n2)) {
    throw new InvalidValueError(`toMatrix: quaternion (${x}, ${y}, ${z}, ${w}) is zero or not finite`);
  }
  toMatrixRaw(dst, dstOffset, q, qOffset);
}

/**
 * Rotation matrix (row-major 3x3, column-vector convention, SciPy's `as_matrix`) of a quaternion.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 9.
 */
export function toMatrix<T extends QuatOut>(out: T, q: QuatLike): T {
  checkLength('toMatrix', 'out', out, 9);
  checkLength('toMatrix', 'q', q, 4);
  toMatrixFlat(out, 0, q, 0);
  return out;
}

/** Largest deviation of MᵀM from the identity, entrywise. */
function orthogonalityError(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
  g: number,
  h: number,
  i: number,
): number {
  const c00 = a * a + d * d + g * g - 1;
  const c11 = b * b + e * e + h * h - 1;
  const c22 = c * c + f * f + i * i - 1;
  const c01 = a * b + d * e + g * h;
  const c02 = a * c + d * f + g * i;
  const c12 = b * c + e * f + h * i;
  return Math.max(Math.abs(c00), Math.abs(c11), Math.abs(c22), Math.abs(c01), Math.abs(c02), Math.abs(c12));
}

/**
 * Writes the unit quaternion of an orthonormal row-major matrix `[a b c; d e f; g h i]`, pivoting on the
 * largest of `trace, a, e, i` (Shepperd 1978; Markley 2008) so no small square root is divided by.
 */
function writeRotationQuat(
  dst: QuatOut,
  dstOffset: number,
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
  g: number,
  h: number,
  i: number,
): void {
  const trace = a + e + i;
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (trace >= a && trace >= e && trace >= i) {
    w = 1 + trace;
    x = h - f;
    y = c - g;
    z = d - b;
  } else if (a >= e && a >= i) {
    x = 1 + 2 * a - trace;
    y = b + d;
    z = c + g;
    w = h - f;
  } else if (e >= i) {
    x = b + d;
    y = 1 + 2 * e - trace;
    z = f + h;
    w = c - g;
  } else {
    x = c + g;
    y = f + h;
    z = 1 + 2 * i - trace;
    w = d - b;
  }
  const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  dst[dstOffset] = x * n;
  dst[dstOffset + 1] = y * n;
  dst[dstOffset + 2] = z * n;
  dst[dstOffset + 3] = w * n;
}

/** Matrices closer than this to orthogonal skip the polar iteration (it would change nothing). */
const ORTHOGONAL_ENOUGH = 1e-14;

/**
 * Quaternion of a row-major 3x3 rotation matrix on flat arrays.
 *
 * Robust for all traces: the quaternion is built from whichever of `trace, m00, m11, m22` is largest
 * (Shepperd 1978 / Markley 2008, as SciPy does), so no square root of a small number is divided by.
 * A matrix that is not exactly orthogonal (float32 storage, accumulated products, a user's sloppy
 * matrix) is first replaced by the NEAREST rotation in the Frobenius norm, its orthogonal polar factor,
 * found by Newton's iteration `X ← (X + X⁻ᵀ)/2` (quadratic convergence, a few steps for mild errors).
 * The output has `w >= 0` when the trace is the largest pivot; otherwise the sign follows the pivot.
 *
 * @throws {InvalidValueError} when an entry is not finite, or the determinant is <= 0 (a reflection or
 * a singular matrix: no rotation is nearest in a meaningful sense).
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 9 (`m`) numbers.
 */
export function fromMatrixFlat(dst: QuatOut, dstOffset: number, m: QuatLike, mOffset: number): void {
  checkSpan('fromMatrixFlat', 'dst', dst, dstOffset, 4);
  checkSpan('fromMatrixFlat', 'm', m, mOffset, 9);
  let a = m[mOffset];
  let b = m[mOffset + 1];
  let c = m[mOffset + 2];
  let d = m[mOffset + 3];
  let e = m[mOffset + 4];
  let f = m[mOffset + 5];
  let g = m[mOffset + 6];
  let h = m[mOffset + 7];
  let i = m[mOffset + 8];
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  if (!Number.isFinite(det) || !Number.isFinite(a + b + c + d + e + f + g + h + i)) {
    throw new InvalidValueError('fromMatrix: the matrix has a non-finite entry');
  }
  if (!(det > 0)) {
    throw new InvalidValueError(
      `fromMatrix: determinant ${det} <= 0; a reflection or singular matrix is not a rotation`,
    );
  }
  if (orthogonalityError(a, b, c, d, e, f, g, h, i) > ORTHOGONAL_ENOUGH) {
    for (let iter = 0; iter < 100; iter++) {
      // X⁻ᵀ = cofactor(X) / det(X)
      const dt = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
      const k = 1 / dt;
      const na = 0.5 * (a + (e * i - f * h) * k);
      const nb = 0.5 * (b - (d * i - f * g) * k);
      const nc = 0.5 * (c + (d * h - e * g) * k);
      const nd = 0.5 * (d - (b * i - c * h) * k);
      const ne = 0.5 * (e + (a * i - c * g) * k);
      const nf = 0.5 * (f - (a * h - b * g) * k);
      const ng = 0.5 * (g + (b * f - c * e) * k);
      const nh = 0.5 * (h - (a * f - c * d) * k);
      const ni = 0.5 * (i + (a * e - b * d) * k);
      const change = Math.max(
        Math.abs(na - a),
        Math.abs(nb - b),
        Math.abs(nc - c),
        Math.abs(nd - d),
        Math.abs(ne - e),
        Math.abs(nf - f),
        Math.abs(ng - g),
        Math.abs(nh - h),
        Math.abs(ni - i),
      );
      a = na;
      b = nb;
      c = nc;
      d = nd;
      e = ne;
      f = nf;
      g = ng;
      h = nh;
      i = ni;
      if (change < 1e-15) break;
    }
  }
  writeRotationQuat(dst, dstOffset, a, b, c, d, e, f, g, h, i);
}

/**
 * Quaternion of a row-major 3x3 rotation matrix (SciPy's `from_matrix` for rotations). Non-orthogonal
 * matrices with positive determinant are projected to the nearest rotation first (Frobenius norm).
 *
 * @throws {InvalidValueError} for non-finite entries or a determinant <= 0 (reflections).
 * @throws {ShapeError} when `m` does not hold 9 numbers or `out` 4.
 */
export function fromMatrix<T extends QuatOut>(out: T, m: QuatLike): T {
  checkLength('fromMatrix', 'out', out, 4);
  checkLength('fromMatrix', 'm', m, 9);
  fromMatrixFlat(out, 0, m, 0);
  return out;
}

/**
 * The 6D representation of Zhou et al. ("On the Continuity of Rotation Representations in Neural
 * Networks", CVPR 2019) on flat arrays: the first two columns of the rotation matrix,
 * `[m00, m10, m20, m01, m11, m21]`. Continuous in the rotation, unlike quaternions or Euler angles.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when an offset leaves fewer than 6 (`dst`) or 4 (`q`) numbers.
 */
export function to6DFlat(dst: QuatOut, dstOffset: number, q: QuatLike, qOffset: number): void {
  checkSpan('to6DFlat', 'dst', dst, dstOffset, 6);
  checkSpan('to6DFlat', 'q', q, qOffset, 4);
  const x = q[qOffset];
  const y = q[qOffset + 1];
  const z = q[qOffset + 2];
  const w = q[qOffset + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 0) || !Number.isFinite(n2)) {
    throw new InvalidValueError(`to6D: quaternion (${x}, ${y}, ${z}, ${w}) is zero or not finite`);
  }
  const s = 2 / n2;
  dst[dstOffset] = 1 - (y * y + z * z) * s;
  dst[dstOffset + 1] = (x * y + w * z) * s;
  dst[dstOffset + 2] = (x * z - w * y) * s;
  dst[dstOffset + 3] = (x * y - w * z) * s;
  dst[dstOffset + 4] = 1 - (x * x + z * z) * s;
  dst[dstOffset + 5] = (y * z + w * x) * s;
}

/**
 * The 6D representation (first two matrix columns) of a rotation; see {@link to6DFlat}.
 *
 * @throws {InvalidValueError} when `q` is zero or not finite.
 * @throws {ShapeError} when `q` does not hold 4 numbers or `out` 6.
 */
export function to6D<T extends QuatOut>(out: T, q: QuatLike): T {
  checkLength('to6D', 'out', out, 6);
  checkLength('to6D', 'q', q, 4);
  to6DFlat(out, 0, q, 0);
  return out;
}

/**
 * Quaternion from a 6D representation on flat arrays: Gram-Schmidt on the two 3-vectors
 * (`b1 = a1/|a1|`, `b2 = normalise(a2 − (b1·a2)·b1)`, `b3 = b1 × b2`), then {@link fromMatrixFlat}. Any
 * two non-parallel vectors are accepted, which is what a network's raw output needs.
 *
 * @throws {InvalidValueError} when a column is zero, the two are parallel, or a value is not finite.
 * @throws {ShapeError} when an offset leaves fewer than 4 (`dst`) or 6 (`v`) numbers.
 */
export function from6DFlat(dst: QuatOut, dstOffset: number, v: QuatLike, vOffset: number): void {
  checkSpan('from6DFlat', 'dst', dst, dstOffset, 4);
  checkSpan('from6DFlat', 'v', v, vOffset, 6);
  let ax = v[vOffset];
  let ay = v[vOffset + 1];
  let az = v[vOffset + 2];
  let bx = v[vOffset + 3];
  let by = v[vOffset + 4];
  let bz = v[vOffset + 5];
  const na = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!(na > 0) || !Number.isFinite(na)) {
    throw new InvalidValueError('from6D: the first column is zero or not finite');
  }
  ax /= na;
  ay /= na;
  az /= na;
  const p = ax * bx + ay * by + az * bz;
  bx -= p * ax;
  by -= p * ay;
  bz -= p * az;
  const nb = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(nb > 1e-12 * (Math.abs(p) + 1)) || !Number.isFinite(nb)) {
    throw new InvalidValueError('from6D: the two columns are parallel, zero or not finite');
  }
  bx /= nb;
  by /= nb;
  bz /= nb;
  const cx = ay * bz - az * by;
  const cy = az * bx - ax * bz;
  const cz = ax * by - ay * bx;
  // Row-major matrix with columns (a, b, c): orthonormal to rounding, so no polar step is needed.
  writeRotationQuat(dst, dstOffset, ax, bx, cx, ay, by, cy, az, bz, cz);
}

/**
 * Quaternion from a 6D representation (two matrix columns, Gram-Schmidt); see {@link from6DFlat}.
 *
 * @throws {InvalidValueError} when a column is zero, the two are parallel, or a value is not finite.
 * @throws {ShapeError} when `v` does not hold 6 numbers or `out` 4.
 */
export function from6D<T extends QuatOut>(out: T, v: QuatLike): T {
  checkLength('from6D', 'out', out, 4);
  checkLength('from6D', 'v', v, 6);
  from6DFlat(out, 0, v, 0);
  return out;
}
