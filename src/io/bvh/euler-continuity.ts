const TWO_PI = 2 * Math.PI;

/**
 * Makes one Euler triple continuous with the previous frame's triple by moving each angle by the whole
 * number of turns (2π) that brings it closest to the previous value of the same channel. Works in place
 * on `angles[offset..+3]` (radians) against `previous[previousOffset..+3]`.
 *
 * This is the simple per-channel wrap that keeps written BVH curves free of ±180° jumps and lets
 * multi-turn motion accumulate (a spin keeps counting past 360°). It does not switch to the equivalent
 * triple `(a + π, π - b, c + π)`, so a path through gimbal lock can still jump; the Euler filter of the
 * unrolling operation does that and is meant to replace this function in `writeBvh`.
 *
 * @example
 * const prev = new Float64Array([3.1, 0, 0]);
 * const cur = new Float64Array([-3.1, 0, 0]);
 * wrapEulerTowardPrevious(cur, 0, prev, 0); // cur[0] = -3.1 + 2π ≈ 3.183
 */
export function wrapEulerTowardPrevious(
  angles: Float64Array,
  offset: number,
  previous: Float64Array,
  previousOffset: number,
): void {
  for (let k = 0; k < 3; k++) {
    const a = angles[offset + k];
    const p = previous[previousOffset + k];
    const turns = Math.round((p - a) / TWO_PI);
    if (turns !== 0) angles[offset + k] = a + turns * TWO_PI;
  }
}
