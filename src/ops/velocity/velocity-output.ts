// The output series of the velocity operations and the count it must have.
import { InvalidValueError, ShapeError } from '../../errors.js';
import { assertVec3Series, createVec3Series } from '../../series/create.js';
import type { FloatArray, Vec3Series } from '../../series/types.js';
import type { Boundary } from '../kernel/tap-window.js';

/**
 * The output of a velocity operation on `frames x joints` samples: `out` checked to have the count the query
 * asks for, or a new series of it. The count is `times.length` when times are given (each checked finite),
 * else one per frame (`at: 'frames'`, or mid-points of a wrapping signal) or one per pair of frames.
 *
 * @throws {InvalidValueError} on a non-finite time. @throws {ShapeError} when `out` is not a Vec3Series of
 *   that count and `joints`.
 * @example
 * const out = velocityOutput('linearVelocity', 10, 2, undefined, 'midpoints', 'clamp'); // 9 x 2
 */
export function velocityOutput<T extends FloatArray = Float64Array>(
  where: string,
  frames: number,
  joints: number,
  times: ArrayLike<number> | undefined,
  at: string,
  boundary: Boundary,
  out?: Vec3Series<T>,
): Vec3Series<T> {
  if (times !== undefined) {
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]))
        throw new InvalidValueError(`${where}: times[${i}] is ${times[i]}`, { index: i });
    }
  }
  const count =
    times !== undefined
      ? times.length
      : at === 'frames'
        ? frames
        : boundary === 'wrap'
          ? frames
          : Math.max(0, frames - 1);
  if (out === undefined) return createVec3Series(count, joints) as Vec3Series<T>;
  assertVec3Series(out, `${where}: out`);
  if (out.frames !== count || out.joints !== joints) {
    throw new ShapeError(`${where}: out is ${out.frames} x ${out.joints}, expected ${count} x ${joints}`);
  }
  return out;
}
