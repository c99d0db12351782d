import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { checkOut } from '../../options.js';
import {
  expFlat,
  from6DFlat,
  logFlat,
  nlerpFlat,
  normalizeFlat,
  slerpFlat,
  toMatrixFlat,
} from '../../quat/index.js';
import type { QuatLike, QuatOut } from '../../quat/types.js';

/** The two-rotation interpolators of {@link interpolate}. */
export type InterpolationMethod = 'slerp' | 'nlerp' | 'log' | 'matrix';

/** The methods in the order the interpolation lab shows them. */
export const INTERPOLATION_METHODS: readonly InterpolationMethod[] = ['slerp', 'nlerp', 'log', 'matrix'];

const qa = new Float64Array(4);
const qb = new Float64Array(4);
const la = new Float64Array(3);
const lb = new Float64Array(3);
const ma = new Float64Array(9);
const mb = new Float64Array(9);
const six = new Float64Array(6);

/**
 * Interpolates between rotations `a` and `b` at `t` (0 gives `a`, 1 gives `b`) with one of four
 * classic interpolators, for side-by-side comparison (Casey Muratori's 2001 experiments):
 *
 * - `'slerp'`: the shortest great-circle arc at constant angular speed (right arc, right speed); the
 *   reference-relative blend `a ⊗ exp(t·log(a⁻¹ b))`.
 * - `'nlerp'`: `normalize((1 − t)a + t b')` with `b'` in `a`'s hemisphere: exactly slerp's arc, but faster
 *   in the middle and slower at the ends (right arc, wrong speed).
 * - `'log'`: the exponential-map blend about the identity, `exp((1 − t)·log a + t·log b)` (logs of the
 *   w ≥ 0 representatives): even speed, but it leaves the great circle when the axes differ (wrong arc).
 *   Only equal to slerp when `a` and `b` share an axis; at 180°, the representative choice can make it
 *   take the long way.
 * - `'matrix'`: lerp of the rotation matrices' first two columns, re-orthonormalised by Gram–Schmidt
 *   (the "lerp X and Y, cross for Z" method): neither the arc nor the speed is right; throws when the
 *   lerped columns become parallel or vanish (rotations about 180° apart).
 *
 * Inputs need not be unit (normalised first); the result is unit, sign not canonicalised (for `'slerp'`
 * and `'nlerp'` it stays in `a`'s hemisphere). `t` outside [0, 1] extrapolates. `out` may alias an input.
 * No allocation.
 *
 * @throws {InvalidValueError} when an input is zero or not finite, or the `'matrix'` blend degenerates.
 * @throws {OptionError} for an unknown method.
 * @example
 * const q = interpolate(new Float64Array(4), [0, 0, 0, 1], [0, 0, 1, 0], 0.5, 'slerp');
 * // 90° about z: [0, 0, 0.7071, 0.7071]
 */
export function interpolate<T extends QuatOut>(
  out: T,
  a: QuatLike,
  b: QuatLike,
  t: number,
  method: InterpolationMethod = 'slerp',
): T {
  checkOut(out, 4, 'interpolate');
  if (!isQuatLike(a) || !isQuatLike(b))
    throw new ShapeError('interpolate: a and b must be arrays of 4 numbers');
  if (typeof t !== 'number' || !Number.isFinite(t))
    throw new InvalidValueError(`interpolate: t must be a finite number, got ${String(t)}`);
  normalizeFlat(qa, 0, a, 0);
  normalizeFlat(qb, 0, b, 0);
  switch (method) {
    case 'slerp':
      slerpFlat(out, 0, qa, 0, qb, 0, t);
      return out;
    case 'nlerp':
      nlerpFlat(out, 0, qa, 0, qb, 0, t);
      return out;
    case 'log': {
      logFlat(la, 0, qa, 0);
      logFlat(lb, 0, qb, 0);
      const u = 1 - t;
      la[0] = u * la[0] + t * lb[0];
      la[1] = u * la[1] + t * lb[1];
      la[2] = u * la[2] + t * lb[2];
      expFlat(out, 0, la, 0);
      return out;
    }
    case 'matrix': {
      toMatrixFlat(ma, 0, qa, 0);
      toMatrixFlat(mb, 0, qb, 0);
      const u = 1 - t;
      // first two columns of the row-major matrices: (m0, m3, m6) and (m1, m4, m7)
      six[0] = u * ma[0] + t * mb[0];
      six[1] = u * ma[3] + t * mb[3];
      six[2] = u * ma[6] + t * mb[6];
      six[3] = u * ma[1] + t * mb[1];
      six[4] = u * ma[4] + t * mb[4];
      six[5] = u * ma[7] + t * mb[7];
      from6DFlat(out, 0, six, 0);
      return out;
    }
    default:
      throw new OptionError(
        `interpolate: unknown method '${String(method)}'; expected one of ${INTERPOLATION_METHODS.join(', ')}`,
      );
  }
}

function isQuatLike(q: unknown): q is QuatLike {
  return q !== null && typeof q === 'object' && (q as QuatLike).length >= 4;
}
