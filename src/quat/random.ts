import { InvalidValueError, OptionError } from '../errors.js';
import { checkLength, checkSpan } from './check.js';
import type { QuatOut } from './types.js';

/**
 * A rotation drawn uniformly (Haar measure on SO(3)) on flat arrays, from three numbers of `rng`; see
 * {@link random}.
 *
 * @throws {InvalidValueError} when `rng` returns a number outside `[0, 1]` or not a number.
 * @throws {OptionError} when `rng` is not a function.
 * @throws {ShapeError} when an offset leaves fewer than 4 numbers.
 */
export function randomFlat(dst: QuatOut, dstOffset: number, rng: () => number = Math.random): void {
  checkSpan('randomFlat', 'dst', dst, dstOffset, 4);
  if (typeof rng !== 'function') {
    throw new OptionError(`random: rng must be a function returning numbers in [0, 1), got ${typeof rng}`);
  }
  const u1 = rng();
  const u2 = rng();
  const u3 = rng();
  if (!(u1 >= 0 && u1 <= 1 && u2 >= 0 && u2 <= 1 && u3 >= 0 && u3 <= 1)) {
    throw new InvalidValueError(`random: rng returned ${u1}, ${u2}, ${u3}; expected numbers in [0, 1)`);
  }
  const r1 = Math.sqrt(1 - u1);
  const r2 = Math.sqrt(u1);
  const a = 2 * Math.PI * u2;
  const b = 2 * Math.PI * u3;
  dst[dstOffset] = r1 * Math.sin(a);
  dst[dstOffset + 1] = r1 * Math.cos(a);
  dst[dstOffset + 2] = r2 * Math.sin(b);
  dst[dstOffset + 3] = r2 * Math.cos(b);
}

/**
 * A rotation drawn uniformly from all rotations (the Haar measure on SO(3), SciPy's `Rotation.random`):
 * `(√(1−u₁)·sin 2πu₂, √(1−u₁)·cos 2πu₂, √u₁·sin 2πu₃, √u₁·cos 2πu₃)` for three uniform numbers `uᵢ` from
 * `rng` (default `Math.random`; pass {@link seededRandom} for a reproducible sequence). The result is unit
 * and either sign is equally likely. Source: Shoemake, "Uniform random rotations" (Graphics Gems III, 1992).
 *
 * @example
 * const rng = seededRandom(7);
 * const q = quat.random(quat.create(), rng); // the same rotation on every run
 * @throws {InvalidValueError} when `rng` returns a number outside `[0, 1]` or not a number.
 * @throws {OptionError} when `rng` is not a function.
 * @throws {ShapeError} when `out` does not hold 4 numbers.
 */
export function random<T extends QuatOut>(out: T, rng: () => number = Math.random): T {
  checkLength('random', 'out', out, 4);
  randomFlat(out, 0, rng);
  return out;
}
