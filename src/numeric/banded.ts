/**
 * Symmetric positive definite banded systems: Cholesky factorisation in band storage and solves with
 * many right-hand sides. O(n·b²) to factor, O(n·b) per right-hand side, for half-bandwidth b.
 *
 * Band storage: row i keeps `A[i][i−b … i]` at `ab[i·(b+1) + (k − i + b)]`, i.e. the diagonal is the
 * last entry of each row. Entries left of column 0 are ignored.
 *
 * Source: Golub & Van Loan, "Matrix Computations", 4th ed., algorithm 4.3.5 (band Cholesky).
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../errors.js';

/**
 * Index of `A[i][k]` (k ≤ i, i − k ≤ b) in band storage.
 *
 * @example
 * const ab = new Float64Array(4 * 2); // a 4 x 4 tridiagonal matrix (b = 1)
 * ab[bandIndex(3, 2, 1)] = 0.5; // A[3][2]
 */
export function bandIndex(i: number, k: number, b: number): number {
  return i * (b + 1) + (k - i + b);
}

/**
 * Factors `A = L·Lᵀ` in place (band storage, half-bandwidth `b`).
 *
 * @throws {InvalidValueError} when a pivot is not positive (A not positive definite), with `index`.
 * @throws {ShapeError} when `ab` is shorter than `n·(b+1)`.
 * @example
 * const ab = Float64Array.of(0, 4, 2, 5); // [[4, 2], [2, 5]] with b = 1
 * choleskyBanded(ab, 2, 1);
 */
export function choleskyBanded(ab: Float64Array, n: number, b: number): void {
  const w = b + 1;
  if (ab.length < n * w)
    throw new ShapeError(`choleskyBanded: band storage holds ${ab.length} values, need ${n * w}`);
  for (let i = 0; i < n; i++) {
    const k0 = Math.max(0, i - b);
    for (let k = k0; k <= i; k++) {
      let sum = ab[i * w + (k - i + b)];
      const l0 = Math.max(k0, k - b);
      for (let l = l0; l < k; l++) sum -= ab[i * w + (l - i + b)] * ab[k * w + (l - k + b)];
      if (k === i) {
        if (!(sum > 0))
          throw new InvalidValueError(`choleskyBanded: matrix is not positive definite at row ${i}`, {
            index: i,
          });
        ab[i * w + b] = Math.sqrt(sum);
      } else {
        ab[i * w + (k - i + b)] = sum / ab[k * w + b];
      }
    }
  }
}

/**
 * Solves `L·Lᵀ·x = rhs` in place for `nrhs` right-hand sides stored row-major (`rhs[i·nrhs + c]`), with
 * `L` from {@link choleskyBanded}.
 *
 * @throws {ShapeError} when `rhs` is shorter than `n·nrhs`.
 * @example
 * const n = 3;
 * const ab = Float64Array.of(0, 4, 1, 4, 1, 4); // tridiagonal: 4 on the diagonal, 1 beside it
 * const rhs = new Float64Array(n * 4).fill(1);
 * choleskyBanded(ab, n, 1);
 * solveCholeskyBanded(ab, n, 1, rhs, 4); // four right-hand sides, rhs[i·4 + c]
 */
export function solveCholeskyBanded(
  ab: Float64Array,
  n: number,
  b: number,
  rhs: Float64Array,
  nrhs: number,
): void {
  const w = b + 1;
  if (rhs.length < n * nrhs)
    throw new ShapeError(`solveCholeskyBanded: rhs holds ${rhs.length} values, need ${n * nrhs}`);
  // L·y = rhs
  for (let i = 0; i < n; i++) {
    const k0 = Math.max(0, i - b);
    const ri = i * nrhs;
    for (let k = k0; k < i; k++) {
      const lik = ab[i * w + (k - i + b)];
      if (lik === 0) continue;
      const rk = k * nrhs;
      for (let c = 0; c < nrhs; c++) rhs[ri + c] -= lik * rhs[rk + c];
    }
    const inv = 1 / ab[i * w + b];
    for (let c = 0; c < nrhs; c++) rhs[ri + c] *= inv;
  }
  // Lᵀ·x = y
  for (let i = n - 1; i >= 0; i--) {
    const ri = i * nrhs;
    const inv = 1 / ab[i * w + b];
    for (let c = 0; c < nrhs; c++) rhs[ri + c] *= inv;
    const k0 = Math.max(0, i - b);
    for (let k = k0; k < i; k++) {
      const lik = ab[i * w + (k - i + b)];
      if (lik === 0) continue;
      const rk = k * nrhs;
      for (let c = 0; c < nrhs; c++) rhs[rk + c] -= lik * rhs[ri + c];
    }
  }
}
