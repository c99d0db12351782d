import { InvalidValueError } from '../errors.js';

/**
 * A small seeded generator of uniform numbers in `[0, 1)`: the same seed gives the same sequence on every
 * platform (32-bit integer arithmetic only), so random test data and random rotations are reproducible.
 *
 * Method: SplitMix32, the 32-bit variant of Steele, Lea & Flood's SplitMix ("Fast splittable pseudorandom
 * number generators", OOPSLA 2014): a Weyl sequence with step 0x9e3779b9 through a two-round
 * multiply-xorshift finaliser. Not cryptographic.
 *
 * @example
 * const rng = seededRandom(42);
 * const u = rng(); // 0 <= u < 1, the same on every run
 * @throws {InvalidValueError} when `seed` is not a finite number.
 */
export function seededRandom(seed: number): () => number {
  if (!Number.isFinite(seed))
    throw new InvalidValueError(`seededRandom: seed ${seed} is not a finite number`);
  // Fractional or large seeds fold into 32 bits together with their fraction, so 1 and 1.5 differ.
  let state = (Math.trunc(seed) ^ Math.trunc((seed % 1) * 2 ** 32)) >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    z ^= z >>> 15;
    return (z >>> 0) / 4294967296;
  };
}
