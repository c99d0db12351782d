/**
 * The reduction's world transforms of a clip without scales are kept as unit quaternions and origins
 * (`composeRotation`), read back as matrices (`toMatrixRaw`, the formula of `toMatrixFlat`); with scales as matrices (`compose` of
 * `localMatrix`). Both must be the transforms a player composes: checked here against a chain composed
 * with the test's own matrices, for quaternions that are not unit (float32 keys) too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compose, composeRotation, localMatrix } from '../../../src/ops/reduce/reduce-transforms.js';
import { toMatrixRaw } from '../../../src/quat/raw.js';

const component = fc.double({ min: -1, max: 1, noNaN: true });
/** A quaternion of length 0.5 to 2 (not normalised: the kernels must read it as its rotation). */
const quaternion = fc.tuple(component, component, component, component).filter(([x, y, z, w]) => {
  const n = x * x + y * y + z * z + w * w;
  return n > 0.25 && n < 4;
});
const offset = fc.tuple(
  fc.double({ min: -2, max: 2, noNaN: true }),
  fc.double({ min: -2, max: 2, noNaN: true }),
  fc.double({ min: -2, max: 2, noNaN: true }),
);
const chain = fc.array(fc.tuple(quaternion, offset), { minLength: 1, maxLength: 8 });

/** The rotation matrix of `q / |q|` by the textbook formula (row-major), written independently. */
function matrixOf([x0, y0, z0, w0]: readonly number[]): number[][] {
  const n = Math.hypot(x0, y0, z0, w0);
  const [x, y, z, w] = [x0 / n, y0 / n, z0 / n, w0 / n];
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}
const times = (a: number[][], b: number[][]) =>
  a.map((row) => [0, 1, 2].map((c) => row[0] * b[0][c] + row[1] * b[1][c] + row[2] * b[2][c]));
const apply = (a: number[][], v: readonly number[]) =>
  a.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);

/** World rotation and origin of each link of a chain (each joint the child of the one before). */
function reference(links: readonly (readonly [readonly number[], readonly number[]])[]) {
  let R = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  let p = [0, 0, 0];
  const out: { R: number[][]; p: number[] }[] = [];
  links.forEach(([q, t], i) => {
    const local = matrixOf(q);
    p = i === 0 ? [...t] : apply(R, t).map((x, c) => x + p[c]);
    R = i === 0 ? local : times(R, local);
    out.push({ R, p });
  });
  return out;
}

describe('world transforms of the reduction', () => {
  it('composeRotation and toMatrixRaw give the chain a player composes (quaternions of any length, which it normalises)', () => {
    fc.assert(
      fc.property(chain, (links) => {
        const J = links.length;
        const Q = new Float64Array(J * 4);
        const p = new Float64Array(J * 3);
        const q = new Float64Array(4);
        const R = new Float64Array(9);
        const want = reference(links);
        for (let j = 0; j < J; j++) {
          q.set(links[j][0]);
          // not unit: composeRotation normalises it, as localMatrix's formula does
          composeRotation(Q, p, j * 4, j * 3, j - 1, Q, p, q, 0, links[j][1], 0, false);
          toMatrixRaw(R, 0, Q, j * 4);
          // a unit quaternion: the matrix is a rotation
          expect(Math.abs(Math.hypot(Q[j * 4], Q[j * 4 + 1], Q[j * 4 + 2], Q[j * 4 + 3]) - 1)).toBeLessThan(
            1e-14,
          );
          for (let r = 0; r < 3; r++) {
            for (let c = 0; c < 3; c++) expect(Math.abs(R[r * 3 + c] - want[j].R[r][c])).toBeLessThan(1e-13);
            expect(Math.abs(p[j * 3 + r] - want[j].p[r])).toBeLessThan(1e-13 * (1 + j * 4));
          }
        }
      }),
    );
  });

  it('agrees with compose of localMatrix at unit scale, where both are used', () => {
    const ones = Float64Array.of(1, 1, 1);
    fc.assert(
      fc.property(chain, (links) => {
        const J = links.length;
        const Q = new Float64Array(J * 4);
        const pq = new Float64Array(J * 3);
        const M = new Float64Array(J * 9);
        const pm = new Float64Array(J * 3);
        const L = new Float64Array(9);
        const q = new Float64Array(4);
        const R = new Float64Array(9);
        for (let j = 0; j < J; j++) {
          q.set(links[j][0]);
          // both normalise the quaternion of any length they are given
          localMatrix(L, 0, q, 0, ones, 0);
          compose(M, pm, j * 9, j * 3, j - 1, M, pm, L, 0, links[j][1], 0);
          composeRotation(Q, pq, j * 4, j * 3, j - 1, Q, pq, q, 0, links[j][1], 0, false);
          toMatrixRaw(R, 0, Q, j * 4);
          for (let e = 0; e < 9; e++) expect(Math.abs(R[e] - M[j * 9 + e])).toBeLessThan(1e-13);
          for (let c = 0; c < 3; c++)
            expect(Math.abs(pq[j * 3 + c] - pm[j * 3 + c])).toBeLessThan(1e-13 * (1 + j * 4));
        }
      }),
    );
  });

  it('toMatrixRaw of the conjugate is the transpose, bit for bit (the inverse the points check uses)', () => {
    fc.assert(
      fc.property(quaternion, ([x, y, z, w]) => {
        const a = new Float64Array(9);
        const b = new Float64Array(9);
        toMatrixRaw(a, 0, [x, y, z, w], 0);
        toMatrixRaw(b, 0, [-x, -y, -z, w], 0);
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) expect(b[c * 3 + r]).toBe(a[r * 3 + c]);
      }),
    );
  });

  it('localMatrix is toMatrixRaw with its columns scaled, bit for bit', () => {
    fc.assert(
      fc.property(quaternion, offset, ([x, y, z, w], [sx, sy, sz]) => {
        const q = [x, y, z, w];
        const a = new Float64Array(9);
        const b = new Float64Array(9);
        localMatrix(a, 0, q, 0, [sx, sy, sz], 0);
        toMatrixRaw(b, 0, q, 0);
        const s = [sx, sy, sz];
        for (let r = 0; r < 3; r++)
          for (let c = 0; c < 3; c++) expect(a[r * 3 + c]).toBe(b[r * 3 + c] * s[c]);
      }),
    );
  });
});
