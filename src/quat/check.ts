import { InvalidValueError, ShapeError } from '../errors.js';
import type { QuatLike } from './types.js';

// Argument checks shared by the kernels. The tests are written so V8 inlines them into the kernels (one or
// two comparisons on values already in registers); the messages are built in separate functions so the
// throwing path stays out of the kernels' bodies.

/** Throws a {@link ShapeError} unless `a` holds exactly `size` numbers. */
export function checkLength(fn: string, name: string, a: ArrayLike<unknown>, size: number): void {
  if (a.length !== size) throw lengthError(fn, name, a.length, size);
}

/** Throws a {@link ShapeError} unless `a[offset..offset + size)` lies inside `a` at a whole-number offset. */
export function checkSpan(
  fn: string,
  name: string,
  a: ArrayLike<unknown>,
  offset: number,
  size: number,
): void {
  if (!(offset >= 0 && (offset | 0) === offset && offset + size <= a.length)) {
    throw spanError(fn, name, a.length, offset, size);
  }
}

/**
 * {@link checkSpan} for the three arrays of a flat kernel at once (`dst`, then two inputs): one test on the
 * fast path, so a kernel called once per element pays one branch for its shape checks, not three. The
 * message names the first span that fails.
 */
export function checkSpans3(
  fn: string,
  d: ArrayLike<unknown>,
  dOffset: number,
  dSize: number,
  a: ArrayLike<unknown>,
  aOffset: number,
  aSize: number,
  b: ArrayLike<unknown>,
  bOffset: number,
  bSize: number,
  names: readonly [string, string, string],
): void {
  if (
    !(
      // x >>> 0 === x: a whole number from 0 to 2^32 - 1, in one comparison
      dOffset >>> 0 === dOffset &&
      aOffset >>> 0 === aOffset &&
      bOffset >>> 0 === bOffset &&
      dOffset + dSize <= d.length &&
      aOffset + aSize <= a.length &&
      bOffset + bSize <= b.length
    )
  ) {
    checkSpan(fn, names[0], d, dOffset, dSize);
    checkSpan(fn, names[1], a, aOffset, aSize);
    checkSpan(fn, names[2], b, bOffset, bSize);
  }
}

/**
 * Throws an {@link InvalidValueError} unless `n2` (a squared norm) is positive and finite: the quaternion
 * it came from is zero, has a NaN, or is infinite.
 */
export function checkNorm(fn: string, name: string, n2: number, q: QuatLike, offset: number): void {
  if (!(n2 > 0 && n2 < Number.POSITIVE_INFINITY)) throw normError(fn, name, q, offset);
}

function lengthError(fn: string, name: string, length: number, size: number): ShapeError {
  return new ShapeError(`${fn}: ${name} has ${length} numbers, expected ${size}`);
}

function spanError(fn: string, name: string, length: number, offset: number, size: number): ShapeError {
  return new ShapeError(`${fn}: ${name} needs ${size} numbers at offset ${offset}, but has length ${length}`);
}

function normError(fn: string, name: string, q: QuatLike, offset: number): InvalidValueError {
  const c = [q[offset], q[offset + 1], q[offset + 2], q[offset + 3]].join(', ');
  return new InvalidValueError(`${fn}: ${name} (${c}) is zero or not finite; it is not a rotation`, {
    index: offset >> 2,
  });
}

/** Throws an {@link InvalidValueError} naming the non-finite numbers `a[offset..offset + size)`. */
export function nonFinite(
  fn: string,
  name: string,
  a: QuatLike,
  offset: number,
  size: number,
): InvalidValueError {
  const c = Array.from({ length: size }, (_, i) => a[offset + i]).join(', ');
  return new InvalidValueError(`${fn}: ${name} (${c}) is not finite`, { index: Math.floor(offset / size) });
}
