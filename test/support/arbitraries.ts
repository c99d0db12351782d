import fc from 'fast-check';
import { EULER_ORDERS, type EulerOrder } from '../../src/quat/euler.js';

/** A uniformly distributed-ish unit quaternion (normalised Gaussian-free box sample, rejection of tiny norms). */
export const unitQuat = fc
  .tuple(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
  )
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-6)
  .map(([x, y, z, w]) => {
    const n = Math.sqrt(x * x + y * y + z * z + w * w);
    return Float64Array.of(x / n, y / n, z / n, w / n);
  });

/** A 3-vector with components in `[-r, r]`. */
export const vec3 = (r = 10) =>
  fc
    .tuple(
      fc.double({ min: -r, max: r, noNaN: true }),
      fc.double({ min: -r, max: r, noNaN: true }),
      fc.double({ min: -r, max: r, noNaN: true }),
    )
    .map((v) => Float64Array.from(v));

/** One of the 24 Euler sequences. */
export const eulerOrder: fc.Arbitrary<EulerOrder> = fc.constantFrom(...EULER_ORDERS);

/** Largest absolute difference between two quaternions up to sign. */
export function quatDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let plus = 0;
  let minus = 0;
  for (let i = 0; i < 4; i++) {
    plus = Math.max(plus, Math.abs(a[i] - b[i]));
    minus = Math.max(minus, Math.abs(a[i] + b[i]));
  }
  return Math.min(plus, minus);
}
