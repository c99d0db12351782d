import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, OUT_SERIES, oneOf, resolveOptions } from '../../options.js';
import { assertFiniteSeries, assertQuatSeries } from '../../series/create.js';
import type { FloatArray, QuatSeries, Vec3Series } from '../../series/types.js';
import type { Kernel } from '../kernel/kernels.js';
import { foldCentre, mapFrame, usableRadius } from '../kernel/tap-reach.js';
import type { Boundary } from '../kernel/tap-window.js';
import {
  checkVelocityOptions,
  fillVelocity,
  VELOCITY_DEFAULTS,
  VELOCITY_SPEC,
  type VelocityOptions,
  velocityOutput,
} from './velocity-options.js';

/**
 * Options of {@link angularVelocity}: the shared velocity options (kernel, at, times, method, boundary;
 * `'analytic'` is the derivative of the relative-log kernel interpolation of the rotations) and the frame.
 */
export interface AngularVelocityOptions<T extends FloatArray = FloatArray> extends VelocityOptions {
  /**
   * Frame the angular velocity is expressed in: `'parent'` (the space the rotations map into: the parent joint
   * for local rotations, the world for global ones; `ω = log(q₁ ⊗ q₀⁻¹)·2/dt`) or `'body'` (the rotating frame
   * itself; `ω = log(q₀⁻¹ ⊗ q₁)·2/dt`).
   */
  frame?: 'parent' | 'body';
  /** Receives the result (a `Vec3Series` with the output frame count and the input joints). */
  out?: Vec3Series<T>;
}

/** Defaults of {@link AngularVelocityOptions}. */
export const ANGULAR_VELOCITY_DEFAULTS: Required<Omit<AngularVelocityOptions, 'times' | 'out'>> =
  frozenDefaults({ ...VELOCITY_DEFAULTS, frame: 'parent' });

const ANGULAR_VELOCITY_SPEC: OptionSpec = {
  ...VELOCITY_SPEC,
  frame: oneOf(['parent', 'body']),
  out: OUT_SERIES,
};

/**
 * Angular velocity of every joint's rotation signal, in radians per second, as a `Vec3Series`
 * (`frames x joints`, or `times.length` / `frames − 1` rows).
 *
 * Finite differences (default): the relative rotation between consecutive frames, taken the short way
 * (`w ≥ 0`, so quaternion sign flips never create spikes), as a rotation vector over `dt`, is a velocity
 * sample at the mid-point `(f + ½)·dt`. Those samples are then filtered with `kernel` exactly like a vector
 * signal and evaluated at the frames, the mid-points or any requested times. A rotation turning at constant
 * angular velocity ω about a fixed axis gives ω exactly, for any kernel (the weights are normalised).
 *
 * Analytic (`method: 'analytic'`): differentiates the log-space kernel interpolation
 * `q(t) = r ⊗ exp(Σ wₖ(t) log(r⁻¹ ⊗ qₖ) / Σ wₖ(t))` in closed form, using `kernel.derivative` and the
 * exponential map's Jacobian. It is the true velocity of the interpolated curve and shows the small
 * oscillations that weight renormalisation causes for kernels such as lanczos; offered for comparison. The
 * reference `r` is the frame nearest `t`, so the interpolated curve (and this derivative) may jump slightly
 * where `t` crosses a half-frame.
 *
 * Edge cases: 0 frames give 0 rows; a single frame has zero velocity; 2 frames give the one difference
 * everywhere. With `boundary: 'wrap'` the clip is a loop: the last frame is followed by the first, which adds
 * one difference (and one mid-point). With `'renormalize'` a time far outside the clip has no taps and throws.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025), section Velocities.
 *
 * @param series - rotations, `x, y, z, w`, unit.
 * @param dt - seconds between frames, > 0.
 * @throws {ShapeError} malformed series/out; {@link OptionError} bad kernel, option values, or `'analytic'`
 *   with a kernel without derivative; {@link InvalidValueError} on `dt <= 0`, non-finite input (frame, joint),
 *   non-finite times or taps summing to zero.
 * @example
 * const w = angularVelocity(clip.rotations, clip.frameTime, { kernel: kernels.gaussian(2) }); // rad/s
 */
export function angularVelocity<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  dt: number,
  options: AngularVelocityOptions<T> = {},
): Vec3Series<T> {
  assertQuatSeries(series, 'angularVelocity: series');
  options = resolveOptions('angularVelocity', options, ANGULAR_VELOCITY_DEFAULTS, ANGULAR_VELOCITY_SPEC);
  const resolved = checkVelocityOptions('angularVelocity', dt, options);
  const frame = options.frame ?? ANGULAR_VELOCITY_DEFAULTS.frame;
  if (frame !== 'parent' && frame !== 'body') {
    throw new OptionError(`angularVelocity: frame must be 'parent' or 'body', got ${String(frame)}`);
  }
  const { kernel, at, boundary } = resolved;
  const { frames, joints } = series;
  const times = options.times;
  const out = velocityOutput('angularVelocity', frames, joints, times, at, boundary, options.out);
  const count = out.frames;
  if (count === 0 || joints === 0) return out;
  assertFiniteSeries(series.data, joints, 4, 'angularVelocity: series');
  const body = frame === 'body';
  if (frames < 2) {
    out.data.fill(0);
    return out;
  }

  fillVelocity(
    'angularVelocity',
    out.data,
    count,
    frames,
    joints * 3,
    resolved,
    times,
    dt,
    (centreAt) =>
      analyticVelocity(out.data, series.data, frames, joints, kernel, boundary, count, centreAt, dt, body),
    (mid) => midpointAngularVelocity(mid, series.data, frames, joints, dt, body, boundary === 'wrap'),
  );
  return out;
}

/**
 * Mid-point finite differences of a rotation series: `dst[(m·joints + j)·3]` = rotation vector of
 * `q[m+1] ⊗ q[m]⁻¹` (parent) or `q[m]⁻¹ ⊗ q[m+1]` (body), short way round, divided by `dt`; with `wrap`, one more
 * sample from the last frame to the first.
 *
 * @internal
 */
export function midpointAngularVelocity(
  dst: FloatArray,
  src: FloatArray,
  frames: number,
  joints: number,
  dt: number,
  body: boolean,
  wrap = false,
): void {
  const where = 'midpointAngularVelocity';
  if (
    !(dst instanceof Float64Array || dst instanceof Float32Array) ||
    !(src instanceof Float64Array || src instanceof Float32Array)
  )
    throw new ShapeError(`${where}: dst and src must be Float64Array or Float32Array`);
  if (!Number.isSafeInteger(frames) || frames < 0 || !Number.isSafeInteger(joints) || joints < 0)
    throw new ShapeError(
      `${where}: frames and joints must be non-negative integers, got ${String(frames)} x ${String(joints)}`,
    );
  const samples = wrap ? frames : Math.max(0, frames - 1);
  if (src.length < frames * joints * 4 || dst.length < samples * joints * 3)
    throw new ShapeError(
      `${where}: src has ${src.length} values and dst ${dst.length} for ${frames} frames x ${joints} joints`,
    );
  if (typeof dt !== 'number' || !(dt > 0) || !Number.isFinite(2 / dt))
    throw new InvalidValueError(
      `${where}: dt must be a positive number of seconds with a finite inverse, got ${String(dt)}`,
    );
  const stride = joints * 4;
  const inv = 2 / dt;
  const n = wrap ? frames : frames - 1;
  for (let m = 0; m < n; m++) {
    const next = m + 1 === frames ? 0 : (m + 1) * stride;
    for (let j = 0; j < joints; j++) {
      const a = m * stride + j * 4;
      const b = next + j * 4;
      const ax = src[a];
      const ay = src[a + 1];
      const az = src[a + 2];
      const aw = src[a + 3];
      const bx = src[b];
      const by = src[b + 1];
      const bz = src[b + 2];
      const bw = src[b + 3];
      let x: number;
      let y: number;
      let z: number;
      if (body) {
        // conj(a) ⊗ b
        x = aw * bx - ax * bw - ay * bz + az * by;
        y = aw * by + ax * bz - ay * bw - az * bx;
        z = aw * bz - ax * by + ay * bx - az * bw;
      } else {
        // b ⊗ conj(a)
        x = -bw * ax + bx * aw - by * az + bz * ay;
        y = -bw * ay + bx * az + by * aw - bz * ax;
        z = -bw * az - bx * ay + by * ax + bz * aw;
      }
      let w = aw * bw + ax * bx + ay * by + az * bz;
      if (w < 0) {
        x = -x;
        y = -y;
        z = -z;
        w = -w;
      }
      const s = Math.sqrt(x * x + y * y + z * z);
      const k = (s > 0 ? Math.atan2(s, w) / s : w > 0 ? 1 / w : 0) * inv;
      const d = (m * joints + j) * 3;
      dst[d] = x * k;
      dst[d + 1] = y * k;
      dst[d + 2] = z * k;
    }
  }
}

function analyticVelocity(
  dst: FloatArray,
  src: FloatArray,
  frames: number,
  joints: number,
  kernel: Kernel,
  boundary: Boundary,
  count: number,
  centreAt: (i: number) => number,
  dt: number,
  body: boolean,
): void {
  const derivative = kernel.derivative!;
  const radius = usableRadius(kernel.radius, frames);
  const cap = 2 * Math.ceil(radius) + 2;
  const tf = new Int32Array(cap);
  const tw = new Float64Array(cap);
  const td = new Float64Array(cap);
  const stride = joints * 4;
  for (let i = 0; i < count; i++) {
    const c = foldCentre(centreAt(i), frames, radius, boundary);
    let n = 0;
    let W = 0;
    let Wd = 0;
    let absW = 0;
    for (let k = Math.ceil(c - radius); k <= Math.floor(c + radius); k++) {
      const f = mapFrame(k, frames, boundary);
      if (f < 0) continue;
      const w = kernel.evaluate(c - k);
      const wd = derivative.call(kernel, c - k);
      if (w === 0 && wd === 0) continue;
      tf[n] = f;
      tw[n] = w;
      td[n] = wd;
      n++;
      W += w;
      Wd += wd;
      absW += Math.abs(w);
    }
    let ref = mapFrame(Math.round(c), frames, boundary);
    if (ref < 0) ref = c < 0 ? 0 : frames - 1;
    if (n === 0 || !(Math.abs(W) > 1e-12 * absW)) {
      throw new InvalidValueError(`angularVelocity: the kernel weights at time ${c * dt} s sum to zero`, {
        frame: ref,
      });
    }
    for (let j = 0; j < joints; j++) {
      const r = ref * stride + j * 4;
      const rx = src[r];
      const ry = src[r + 1];
      const rz = src[r + 2];
      const rw = src[r + 3];
      let sx = 0;
      let sy = 0;
      let sz = 0;
      let ax = 0;
      let ay = 0;
      let az = 0;
      for (let t = 0; t < n; t++) {
        const o = tf[t] * stride + j * 4;
        const qx = src[o];
        const qy = src[o + 1];
        const qz = src[o + 2];
        const qw = src[o + 3];
        let px = rw * qx - rx * qw - ry * qz + rz * qy;
        let py = rw * qy + rx * qz - ry * qw - rz * qx;
        let pz = rw * qz - rx * qy + ry * qx - rz * qw;
        let pw = rw * qw + rx * qx + ry * qy + rz * qz;
        if (pw < 0) {
          px = -px;
          py = -py;
          pz = -pz;
          pw = -pw;
        }
        const s = Math.sqrt(px * px + py * py + pz * pz);
        const k = s > 0 ? Math.atan2(s, pw) / s : pw > 0 ? 1 / pw : 0;
        const lx = px * k;
        const ly = py * k;
        const lz = pz * k;
        sx += tw[t] * lx;
        sy += tw[t] * ly;
        sz += tw[t] * lz;
        ax += td[t] * lx;
        ay += td[t] * ly;
        az += td[t] * lz;
      }
      // φ = 2·Σw·l / W (rotation vector of r⁻¹ q(t)); φ̇ = 2·(a·W − s·Wd) / (W²·dt) (quotient rule, d/dt = d/dc / dt)
      const iw = 1 / W;
      const px = 2 * sx * iw;
      const py = 2 * sy * iw;
      const pz = 2 * sz * iw;
      const g = (2 * iw * iw) / dt;
      const vx = g * (ax * W - sx * Wd);
      const vy = g * (ay * W - sy * Wd);
      const vz = g * (az * W - sz * Wd);
      // Jacobian of the exponential map: J v = v ± α (φ × v) + β φ × (φ × v); + for the left (parent), − right (body)
      const th2 = px * px + py * py + pz * pz;
      let alpha: number;
      let beta: number;
      if (th2 < 1e-8) {
        alpha = 0.5 - th2 / 24;
        beta = 1 / 6 - th2 / 120;
      } else {
        const th = Math.sqrt(th2);
        alpha = (1 - Math.cos(th)) / th2;
        beta = (th - Math.sin(th)) / (th2 * th);
      }
      if (body) alpha = -alpha;
      const cx = py * vz - pz * vy;
      const cy = pz * vx - px * vz;
      const cz = px * vy - py * vx;
      const ccx = py * cz - pz * cy;
      const ccy = pz * cx - px * cz;
      const ccz = px * cy - py * cx;
      let ox = vx + alpha * cx + beta * ccx;
      let oy = vy + alpha * cy + beta * ccy;
      let oz = vz + alpha * cz + beta * ccz;
      if (!body) {
        // rotate into the parent frame by the reference r (unit): v' = v + w·t + u × t, t = 2 u × v
        const n2 = rx * rx + ry * ry + rz * rz + rw * rw;
        const inv = 1 / n2;
        const tx = 2 * (ry * oz - rz * oy) * inv;
        const ty = 2 * (rz * ox - rx * oz) * inv;
        const tz = 2 * (rx * oy - ry * ox) * inv;
        const nx = ox + rw * tx + (ry * tz - rz * ty);
        const ny = oy + rw * ty + (rz * tx - rx * tz);
        const nz = oz + rw * tz + (rx * ty - ry * tx);
        ox = nx;
        oy = ny;
        oz = nz;
      }
      const d = (i * joints + j) * 3;
      dst[d] = ox;
      dst[d + 1] = oy;
      dst[d + 2] = oz;
    }
  }
}
