import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../src/errors.js';
import { bandIndex, choleskyBanded, solveCholeskyBanded } from '../../src/numeric/banded.js';

/** Dense Gaussian elimination with partial pivoting: the reference. */
function denseSolve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / M[r][r];
  }
  return x;
}

describe('choleskyBanded(ab, n, b) and solveCholeskyBanded(ab, n, b, rhs, nrhs)', () => {
  it('solve random SPD band systems like a dense solver (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 1e6 }),
        (n, b, nrhs, seed) => {
          let s = seed;
          const rnd = () => {
            s = (s * 16807) % 2147483647;
            return s / 2147483647 - 0.5;
          };
          // A = Bᵀ B + I with B banded → SPD with half-bandwidth b
          const A = Array.from({ length: n }, () => new Array(n).fill(0));
          for (let i = 0; i < n; i++) {
            for (let k = Math.max(0, i - b); k <= i; k++) {
              const v = i === k ? n + 1 + rnd() : rnd();
              A[i][k] = v;
              A[k][i] = v;
            }
          }
          const ab = new Float64Array(n * (b + 1));
          for (let i = 0; i < n; i++)
            for (let k = Math.max(0, i - b); k <= i; k++) ab[bandIndex(i, k, b)] = A[i][k];
          const rhs = new Float64Array(n * nrhs).map(() => rnd());
          const copy = Array.from(rhs);
          choleskyBanded(ab, n, b);
          solveCholeskyBanded(ab, n, b, rhs, nrhs);
          for (let c = 0; c < nrhs; c++) {
            const ref = denseSolve(
              A,
              Array.from({ length: n }, (_, i) => copy[i * nrhs + c]),
            );
            for (let i = 0; i < n; i++) expect(Math.abs(rhs[i * nrhs + c] - ref[i])).toBeLessThan(1e-12);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects a matrix that is not positive definite', () => {
    const ab = Float64Array.of(0, 1, 2, 1); // [[1, 2], [2, 1]]
    expect(() => choleskyBanded(ab, 2, 1)).toThrow(InvalidValueError);
  });
});
