import { InvalidValueError } from '../errors.js';
import { checkLength, checkNorm, checkSpans3, notFinite } from './check.js';
import { rotateVectorRaw } from './raw.js';
import type { QuatLike, QuatOut } from './types.js';

/** Argument names for the shape messages of the three-span kernels. */
const DST_Q_V = ['dst', 'q', 'v'] as const;

/** Where the checked kernels compute before they test and write (so nothing is written when they throw). */
const RESULT = new Float64Array(3);

/** The rotation for {@link rotateVectorFlat} and {@link rotateVector} (`fn` names the caller in errors). */
function rotateInto(
  fn: string,
  dst: QuatOut,
  dstOffset: number,
  q: QuatLike,
  qOffset: number,
  v: QuatLike,
  vOffset: number,
): void {
  rotateVectorRaw(RESULT, 0, q, qOffset, v, vOffset);
  const x = RESULT[0];
  const y = RESULT[1];
  const z = RESULT[2];
  // v − v is 0 for a finite v and NaN otherwise: one test for the three components, before any write
  if (x - x + (y - y) + (z - z) !== 0) throw notFinite(fn, 'q', q, qOffset, 4, 'v', v, vOffset, 3);
  dst[dstOffset] = x;
  dst[dstOffset + 1] = y;
  dst[dstOffset + 2] = z;
}

/**
 * Rotates a 3-vector by a unit quaternion on flat arrays: `v' = q·v·q*` (active rotation), computed as
 * `t = 2·(u × v)`, `v' = v + w·t + u × t` (15 multiplies). `dst` may overlap `v`. `q` is assumed unit
 * (the forward-kinematics hot path checks no rotation); a zero `q` leaves `v` as it is.
 *
 * @throws {ShapeError} when an offset leaves fewer than 3 (`dst`, `v`) or 4 (`q`) numbers.
 * @throws {InvalidValueError} when an input is not finite or the result overflows (nothing is written).
 */
export function rotateVectorFlat(
  dst: QuatOut,
  dstOffset: number,
  q: QuatLike,
  qOffset: number,
  v: QuatLike,
  vOffset: number,
): void {
  checkSpans3('rotateVectorFlat', dst, dstOffset, 3, q, qOffset, 4, v, vOffset, 3, DST_Q_V);
  rotateInto('rotateVectorFlat', dst, dstOffset, q, qOffset, v, vOffset);
}

/**
 * Rotates the vector `v` by the unit quaternion `q` (SciPy's `apply`): `R(q)·v`. `out` may be `v`.
 * `q` is assumed unit; a zero `q` leaves `v` as it is.
 *
 * @example
 * quat.rotateVector([0, 0, 0], quat.fromAxisAngle(quat.create(), [0, 0, 1], Math.PI / 2), [1, 0, 0]); // ≈ [0, 1, 0]
 * @throws {ShapeError} when `q` does not hold 4 numbers, or `v` or `out` 3.
 * @throws {InvalidValueError} when an input is not finite or the result overflows (nothing is written).
 */
export function rotateVector<T extends QuatOut>(out: T, q: QuatLike, v: QuatLike): T {
  checkLength('rotateVector', 'out', out, 3);
  checkLength('rotateVector', 'q', q, 4);
  checkLength('rotateVector', 'v', v, 3);
  rotateInto('rotateVector', out, 0, q, 0, v, 0);
  return out;
}

/**
 * The shortest-arc rotation taking direction `from` to direction `to` (neither needs to be unit).
 * For opposite directions the 180° rotation is about an axis perpendicular to `from`, chosen from the
 * coordinate axis least aligned with it, so the result is deterministic.
 *
 * @throws {InvalidValueError} when either vector is zero or not finite.
 * @throws {ShapeError} when `from` or `to` does not hold 3 numbers or `out` 4.
 */
export function fromUnitVectors<T extends QuatOut>(out: T, from: QuatLike, to: QuatLike): T {
  checkLength('fromUnitVectors', 'out', out, 4);
  checkLength('fromUnitVectors', 'from', from, 3);
  checkLength('fromUnitVectors', 'to', to, 3);
  let fx = from[0];
  let fy = from[1];
  let fz = from[2];
  let tx = to[0];
  let ty = to[1];
  let tz = to[2];
  const nf = Math.sqrt(fx * fx + fy * fy + fz * fz);
  const nt = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (!(nf > 0) || !(nt > 0) || !Number.isFinite(nf) || !Number.isFinite(nt)) {
    throw new InvalidValueError('fromUnitVectors: both directions must be non-zero and finite');
  }
  fx /= nf;
  fy /= nf;
  fz /= nf;
  tx /= nt;
  ty /= nt;
  tz /= nt;
  // 1 + from·to computed as |from + to|²/2: the same number in exact arithmetic, but without the
  // cancellation that loses every digit of it when the directions are nearly opposite.
  const hx = fx + tx;
  const hy = fy + ty;
  const hz = fz + tz;
  const h2 = hx * hx + hy * hy + hz * hz;
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (h2 < 1e-28) {
    // Opposite to rounding: any perpendicular axis works; cross with the least-aligned coordinate axis.
    const ax = Math.abs(fx);
    const ay = Math.abs(fy);
    const az = Math.abs(fz);
    if (ax <= ay && ax <= az) {
      x = 0;
      y = -fz;
      z = fy;
    } else if (ay <= az) {
      x = fz;
      y = 0;
      z = -fx;
    } else {
      x = -fy;
      y = fx;
      z = 0;
    }
    w = 0;
  } else {
    // (from × to, 1 + from·to) is twice cos(θ/2) times the half-angle quaternion.
    x = fy * tz - fz * ty;
    y = fz * tx - fx * tz;
    z = fx * ty - fy * tx;
    w = 0.5 * h2;
  }
  const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  out[0] = x * n;
  out[1] = y * n;
  out[2] = z * n;
  out[3] = w * n;
  return out;
}

/**
 * Swing-twist decomposition of `q` about `axis`: `q = swing ⊗ twist`, where `twist` rotates about
 * `axis` and `swing` rotates about an axis perpendicular to it. The twist is the projection of `q`'s
 * vector part onto the axis, renormalised; when that projection vanishes (a 180° swing) the twist is
 * the identity. Both outputs are unit; `q` is assumed unit. Outputs may alias `q` (not each other).
 *
 * @throws {InvalidValueError} when the axis or `q` is zero or not finite.
 * @throws {ShapeError} when `q`, `swingOut` or `twistOut` does not hold 4 numbers or `axis` 3.
 */
export function swingTwist<S extends QuatOut, T extends QuatOut>(
  swingOut: S,
  twistOut: T,
  q: QuatLike,
  axis: QuatLike,
): [S, T] {
  checkLength('swingTwist', 'swingOut', swingOut, 4);
  checkLength('swingTwist', 'twistOut', twistOut, 4);
  checkLength('swingTwist', 'q', q, 4);
  checkLength('swingTwist', 'axis', axis, 3);
  let ax = axis[0];
  let ay = axis[1];
  let az = axis[2];
  const na = Math.sqrt(ax * ax + ay * ay + az * az);
  if (!(na > 0) || !Number.isFinite(na)) {
    throw new InvalidValueError('swingTwist: the axis must be non-zero and finite');
  }
  ax /= na;
  ay /= na;
  az /= na;
  const qx = q[0];
  const qy = q[1];
  const qz = q[2];
  const qw = q[3];
  checkNorm('swingTwist', 'q', qx * qx + qy * qy + qz * qz + qw * qw, q, 0);
  const p = qx * ax + qy * ay + qz * az;
  let tx = p * ax;
  let ty = p * ay;
  let tz = p * az;
  let tw = qw;
  const nt = Math.sqrt(tx * tx + ty * ty + tz * tz + tw * tw);
  if (nt < 1e-15) {
    tx = 0;
    ty = 0;
    tz = 0;
    tw = 1;
  } else {
    tx /= nt;
    ty /= nt;
    tz /= nt;
    tw /= nt;
  }
  // swing = q ⊗ conj(twist)
  const sx = -qw * tx + qx * tw - qy * tz + qz * ty;
  const sy = -qw * ty + qx * tz + qy * tw - qz * tx;
  const sz = -qw * tz - qx * ty + qy * tx + qz * tw;
  const sw = qw * tw + qx * tx + qy * ty + qz * tz;
  twistOut[0] = tx;
  twistOut[1] = ty;
  twistOut[2] = tz;
  twistOut[3] = tw;
  swingOut[0] = sx;
  swingOut[1] = sy;
  swingOut[2] = sz;
  swingOut[3] = sw;
  return [swingOut, twistOut];
}
