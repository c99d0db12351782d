/**
 * How far an Euler channel can move between two frames, given how far the rotation turned.
 *
 * Euler rates obey |ȧ|, |ḃ|, |ċ| <= |ω| / cos(b) for Tait-Bryan sequences and <= |ω| / |sin(b)| for proper
 * Euler sequences (b = middle angle), that is |ω| / sin(distance of b to the nearest gimbal lock). Along the
 * geodesic between the two frames (length θ) the middle angle moves at most θ, so a continuous Euler path
 * moves each channel by at most θ / sin(d − θ), d = the smaller lock distance at the two ends. The filter
 * picks the candidate with the least summed square step, which is at most that of the continuous path, so
 * any one channel of its step is at most √3 times the bound.
 */
export function lockDistance(b: number, proper: boolean): number {
  const shifted = proper ? b : b - Math.PI / 2;
  const m = ((shifted % Math.PI) + Math.PI) % Math.PI;
  return Math.min(m, Math.PI - m);
}

/** Largest single-channel step the motion implies between triples with middle angles b0, b1 (see above). */
export function eulerStepBound(theta: number, b0: number, b1: number, proper: boolean): number {
  const d = Math.min(lockDistance(b0, proper), lockDistance(b1, proper)) - theta;
  if (d <= 0) return Number.POSITIVE_INFINITY;
  return (Math.sqrt(3) * theta) / Math.sin(d);
}
