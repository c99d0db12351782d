import { InvalidValueError, ShapeError } from '../errors.js';
import type { QuatLike } from './types.js';

// Argument checks shared by the kernels. The tests are written so V8 inlines them into the kernels (one or
// two comparisons on values already in registers); the messages are built in separate functions so the
// throwing path stays out of the kernels' bodies.

/**
 * Throws a {@link ShapeError} unless `a` is an array (or typed array) of exactly `size` numbers' length. A
 * value that is not an object (null, undefined, a number, a string) has no place to read or write numbers.
 */
export function checkLength(fn: string, name: string, a: ArrayLike<unknown>, size: number): void {
  if (typeof a !== 'object' || a === null || a.length !== size) throw lengthError(fn, name, a, size);
}

/** Throws a {@link ShapeError} unless `a` is an array or typed array (any length): for the batch kernels. */
export function checkArray(fn: string, name: string, a: ArrayLike<unknown>): void {
  if (typeof a !== 'object' || a === null || typeof a.length !== 'number') {
    throw new ShapeError(`${fn}: ${name} must be an array of numbers, got ${described(a)}`);
  }
}

/** Throws a {@link ShapeError} unless `a[offset..offset + size)` lies inside `a` at a whole-number offset. */
export function checkSpan(
  fn: string,
  name: string,
  a: ArrayLike<unknown>,
  offset: number,
  size: number,
): void {
  if (
    !(
      typeof a === 'object' &&
      a !== null &&
      offset >= 0 &&
      (offset | 0) === offset &&
      offset + size <= a.length
    )
  ) {
    throw spanError(fn, name, a, offset, size);
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
      typeof d === 'object' &&
      d !== null &&
      typeof a === 'object' &&
      a !== null &&
      typeof b === 'object' &&
      b !== null &&
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

/** What `a` is, for a message: its length when it has one, else its type. */
function described(a: unknown): string {
  if (typeof a !== 'object' || a === null) return a === null ? 'null' : typeof a;
  const length = (a as { length?: unknown }).length;
  return typeof length === 'number' ? `length ${length}` : 'an object without a length';
}

function lengthError(fn: string, name: string, a: unknown, size: number): ShapeError {
  if (typeof a === 'object' && a !== null && typeof (a as { length?: unknown }).length === 'number')
    return new ShapeError(`${fn}: ${name} has ${(a as ArrayLike<unknown>).length} numbers, expected ${size}`);
  return new ShapeError(`${fn}: ${name} must be an array of ${size} numbers, got ${described(a)}`);
}

function spanError(fn: string, name: string, a: unknown, offset: number, size: number): ShapeError {
  return new ShapeError(`${fn}: ${name} needs ${size} numbers at offset ${offset}, but has ${described(a)}`);
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

/** True when the four values are finite numbers (a value read from a plain array may be anything). */
export function finite4(x: unknown, y: unknown, z: unknown, w: unknown): boolean {
  return Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z) && Number.isFinite(w);
}

/**
 * The {@link InvalidValueError} of a kernel whose result is not finite: it names the first input that holds a
 * non-finite number or a value that is no number (`a`, then `b` when given), or, when every input is finite,
 * says the result overflows. Positional arguments, no arrays built, so the kernels that call it stay small
 * enough to be inlined.
 */
export function notFinite(
  fn: string,
  aName: string,
  a: ArrayLike<unknown>,
  aOffset: number,
  aSize: number,
  bName = '',
  b: ArrayLike<unknown> = [],
  bOffset = 0,
  bSize = 0,
): InvalidValueError {
  for (let i = 0; i < aSize; i++)
    if (!Number.isFinite(a[aOffset + i])) return nonFinite(fn, aName, a as QuatLike, aOffset, aSize);
  for (let i = 0; i < bSize; i++)
    if (!Number.isFinite(b[bOffset + i])) return nonFinite(fn, bName, b as QuatLike, bOffset, bSize);
  const what = bSize > 0 ? `${aName} and ${bName}` : aName;
  return new InvalidValueError(`${fn}: the result for ${what} overflows (it is not finite)`);
}
