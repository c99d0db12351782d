/**
 * The per-sample loops of the damper ({@link createDamper}): the rotation damper's tangent-space passes, its
 * WebAssembly state, and the vector damper, each over every joint of one sample.
 *
 * @module
 */
import { createSimdState, type SimdState } from '../../numeric/simd.js';
import type { FloatArray } from '../../series/types.js';
import { checkValues, MAX_LIVE_VALUE } from './live-contract.js';
import { cosOfSquare, logScale, sinc } from './tangent.js';

/**
 * The first pass of a rotation damper sample: per joint, writes at `steps[16j..16j+16)` the rotation vector
 * `j₀` of the value from the reference target (the new target for `'hold'`, the previous one for `'linear'`),
 * the target's rotation vector over the interval (`'linear'`), and the new target `g`, unit, in the reference's
 * hemisphere, for the joints `first` to `end − 1` (`input[inputOffset..]` holds joint 0). Changes no state;
 * returns `false` when a quaternion of the sample is zero or not finite.
 *
 * The logarithms take the unnormalised relative rotations with {@link logScale}, which neither depends on
 * their length nor branches on their sign, so neither the input's `1/|x|` nor its hemisphere is on the chain
 * of dependent operations (see `one-euro.ts`).
 */
export function damperLogs(
  steps: Float64Array,
  output: Float64Array,
  target: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  first: number,
  end: number,
  linear: boolean,
): boolean {
  let valid = true;
  for (let j = first; j < end; j++) {
    // q | c and s | c index a joint's values without overflow-checked additions (q, s are multiples of 4, 16)
    const q = j << 2;
    const s = j << 4;
    const o = inputOffset + q;
    const gx = input[o];
    const gy = input[o + 1];
    const gz = input[o + 2];
    const gw = input[o + 3];
    const n2 = gx * gx + gy * gy + gz * gz + gw * gw;
    if (!(n2 > 1e-200 && n2 < 1e200)) valid = false;
    const xx = output[q];
    const xy = output[q | 1];
    const xz = output[q | 2];
    const xw = output[q | 3];
    let f: number;
    if (linear) {
      // b·Δt = 2·log(g ⊗ t⁻¹) with t the previous target; j₀ = 2·log(x ⊗ t⁻¹); g joins t's hemisphere
      const tx = target[q];
      const ty = target[q | 1];
      const tz = target[q | 2];
      const tw = target[q | 3];
      const bx = -gw * tx + gx * tw - gy * tz + gz * ty;
      const by = -gw * ty + gx * tz + gy * tw - gz * tx;
      const bz = -gw * tz - gx * ty + gy * tx + gz * tw;
      const bw = gw * tw + gx * tx + gy * ty + gz * tz;
      const kb = logScale(bx * bx + by * by + bz * bz, bw);
      steps[s | 4] = kb * bx;
      steps[s | 5] = kb * by;
      steps[s | 6] = kb * bz;
      f = kb / (Math.abs(kb) * Math.sqrt(n2));
      const rx = -xw * tx + xx * tw - xy * tz + xz * ty;
      const ry = -xw * ty + xx * tz + xy * tw - xz * tx;
      const rz = -xw * tz - xx * ty + xy * tx + xz * tw;
      const rw = xw * tw + xx * tx + xy * ty + xz * tz;
      const k = logScale(rx * rx + ry * ry + rz * rz, rw);
      steps[s] = k * rx;
      steps[s | 1] = k * ry;
      steps[s | 2] = k * rz;
    } else {
      // j₀ = 2·log(x ⊗ g⁻¹)
      const rx = -xw * gx + xx * gw - xy * gz + xz * gy;
      const ry = -xw * gy + xx * gz + xy * gw - xz * gx;
      const rz = -xw * gz - xx * gy + xy * gx + xz * gw;
      const rw = xw * gw + xx * gx + xy * gy + xz * gz;
      const k = logScale(rx * rx + ry * ry + rz * rz, rw);
      steps[s] = k * rx;
      steps[s | 1] = k * ry;
      steps[s | 2] = k * rz;
      f = k / (Math.abs(k) * Math.sqrt(n2));
    }
    // g, unit, in the reference's hemisphere: k has the sign of w = x·g (or t·g), so f = ±1/|g| without a
    // branch (at w = 0 exactly, k > 0 and g keeps its sign)
    steps[s | 8] = gx * f;
    steps[s | 9] = gy * f;
    steps[s | 10] = gz * f;
    steps[s | 11] = gw * f;
  }
  return valid;
}

/**
 * A damper's state and constants, made once per filter, which {@link damperRotations} and
 * {@link damperVectors} read at every sample: the value, velocity and previous target per joint, the target
 * path and response, `y` (half the spring's damping), `lead` (how far a linear target is extrapolated, s)
 * and `rate` (ln 2 / half-life).
 */
export interface DamperKernelState {
  readonly output: Float64Array;
  readonly velocity: Float64Array;
  readonly target: Float64Array;
  readonly linear: boolean;
  readonly critical: boolean;
  readonly y: number;
  readonly lead: number;
  readonly rate: number;
}

/**
 * The second pass of a rotation damper sample, after {@link damperLogs}: the exact spring (or exponential)
 * step of `j` and the velocity over `Δt`, then `x = exp(j/2) ⊗ g`, written to `output` and `out`, for the joints
 * `first` to `end − 1`. `user` holds the caller's target velocities (`'hold'` only) or is null.
 */
export function damperRotations(
  out: FloatArray,
  outOffset: number,
  state: DamperKernelState,
  steps: Float64Array,
  first: number,
  end: number,
  user: ArrayLike<number> | null,
  dt: number,
  decay: number,
): void {
  const { output, velocity, target, linear, critical, y, lead, rate } = state;
  const invDt = 1 / dt;
  // the spring's Δt: beyond 800/y its decay e^(−yΔt) is 0 in doubles either way, and the clamp keeps
  // j₁·Δt and y·Δt finite (a clock jump near 1e308 s would otherwise give 0·∞)
  const sdt = Math.min(dt, 800 / y);
  const ydt = y * sdt;
  const lambdaDecay = rate * decay;
  for (let j = first, e = 3 * first; j < end; j++, e += 3) {
    const q = j << 2;
    const s = j << 4;
    // the target moves at b (linear) and the value settles a behind it; a is −lead·q for a user velocity q
    let ax = 0;
    let ay = 0;
    let az = 0;
    let bx = 0;
    let by = 0;
    let bz = 0;
    if (linear) {
      bx = steps[s | 4] * invDt;
      by = steps[s | 5] * invDt;
      bz = steps[s | 6] * invDt;
      ax = lead * bx;
      ay = lead * by;
      az = lead * bz;
    } else if (user !== null) {
      // Holden's critical_spring_damper_exact: the spring settles lead·q ahead of the goal
      ax = -lead * user[e];
      ay = -lead * user[e + 1];
      az = -lead * user[e + 2];
    }
    // e = j + a and ė = v − b follow the critically damped ë = −y²e − 2yė (or ė = −λe) exactly over Δt;
    // then j = e − a and v = ė + b
    const e0x = steps[s] + ax;
    const e0y = steps[s | 1] + ay;
    const e0z = steps[s | 2] + az;
    let jx: number;
    let jy: number;
    let jz: number;
    if (critical) {
      const vx = velocity[e] - bx;
      const vy = velocity[e + 1] - by;
      const vz = velocity[e + 2] - bz;
      const j1x = vx + e0x * y;
      const j1y = vy + e0y * y;
      const j1z = vz + e0z * y;
      velocity[e] = decay * (vx - j1x * ydt) + bx;
      velocity[e + 1] = decay * (vy - j1y * ydt) + by;
      velocity[e + 2] = decay * (vz - j1z * ydt) + bz;
      jx = decay * (e0x + j1x * sdt) - ax;
      jy = decay * (e0y + j1y * sdt) - ay;
      jz = decay * (e0z + j1z * sdt) - az;
    } else {
      velocity[e] = bx - lambdaDecay * e0x;
      velocity[e + 1] = by - lambdaDecay * e0y;
      velocity[e + 2] = bz - lambdaDecay * e0z;
      jx = decay * e0x - ax;
      jy = decay * e0y - ay;
      jz = decay * e0z - az;
    }
    // g: the input, unit, in the reference's hemisphere
    const gx = steps[s | 8];
    const gy = steps[s | 9];
    const gz = steps[s | 10];
    const gw = steps[s | 11];
    if (linear) {
      target[q] = gx;
      target[q | 1] = gy;
      target[q | 2] = gz;
      target[q | 3] = gw;
    }
    // x = exp(j/2) ⊗ g: both factors are unit to rounding and x is not fed back into itself (the next j₀ is a
    // logarithm, which does not depend on x's length), so no renormalisation is needed against drift
    const hx = 0.5 * jx;
    const hy = 0.5 * jy;
    const hz = 0.5 * jz;
    const t2 = hx * hx + hy * hy + hz * hz;
    const sc = sinc(t2);
    const cw = cosOfSquare(t2);
    const fx = sc * hx;
    const fy = sc * hy;
    const fz = sc * hz;
    const yx = cw * gx + fx * gw + fy * gz - fz * gy;
    const yy = cw * gy - fx * gz + fy * gw + fz * gx;
    const yz = cw * gz + fx * gy - fy * gx + fz * gw;
    const yw = cw * gw - fx * gx - fy * gy - fz * gz;
    output[q] = yx;
    output[q | 1] = yy;
    output[q | 2] = yz;
    output[q | 3] = yw;
    const d = outOffset + q;
    out[d] = yx;
    out[d + 1] = yy;
    out[d + 2] = yz;
    out[d + 3] = yw;
  }
}

/**
 * A rotation damper's state in its kernel's memory (see {@link createSimdState}): value, velocity, previous
 * target, and the lead `−lead·q` of a target velocity `q` passed to a push (in the velocity's layout).
 */
export type SimdDamper = SimdState<'value' | 'velocity' | 'target' | 'lead'>;

export function createSimdDamper(joints: number): SimdDamper | null {
  return createSimdState(joints, [
    ['value', 4, true],
    ['velocity', 3, false],
    ['target', 4, true],
    ['lead', 3, false],
  ]);
}

/**
 * True when `values` is a Float64Array or Float32Array of finite numbers within ±{@link MAX_LIVE_VALUE}, by the
 * maximum of their magnitudes: the fast check of a target velocity pushed with every sample. Anything else is
 * left to {@link checkValues}, which names the bad value.
 */
export function finiteTyped(values: ArrayLike<number>): boolean {
  if (!(values instanceof Float64Array || values instanceof Float32Array)) return false;
  // three maxima, one per axis, so the comparisons do not wait on each other (the length is joints · 3)
  let mx = 0;
  let my = 0;
  let mz = 0;
  for (let i = 0; i + 2 < values.length; i += 3) {
    mx = Math.max(mx, Math.abs(values[i]));
    my = Math.max(my, Math.abs(values[i + 1]));
    mz = Math.max(mz, Math.abs(values[i + 2]));
  }
  // Math.max propagates NaN, which fails the comparison
  return Math.max(mx, my, mz) <= MAX_LIVE_VALUE;
}

/** One sample of the vector damper for every joint (see {@link damperRotations}), written to `output` and `out`. */
export function damperVectors(
  out: FloatArray,
  outOffset: number,
  state: DamperKernelState,
  input: ArrayLike<number>,
  inputOffset: number,
  n: number,
  user: ArrayLike<number> | null,
  dt: number,
  decay: number,
): void {
  const { output, velocity, target, linear, critical, y, lead, rate } = state;
  const invDt = 1 / dt;
  // the spring's Δt: beyond 800/y its decay e^(−yΔt) is 0 in doubles either way, and the clamp keeps
  // j₁·Δt and y·Δt finite (a clock jump near 1e308 s would otherwise give 0·∞)
  const sdt = Math.min(dt, 800 / y);
  const ydt = y * sdt;
  const lambdaDecay = rate * decay;
  for (let i = 0; i < n; i++) {
    const g = input[inputOffset + i];
    let a = 0;
    let b = 0;
    let j0: number;
    if (linear) {
      b = (g - target[i]) * invDt;
      a = lead * b;
      j0 = output[i] - target[i];
      target[i] = g;
    } else {
      if (user !== null) a = -lead * user[i];
      j0 = output[i] - g;
    }
    // one component at a time through the same exact step as rotations
    const e0 = j0 + a;
    let jn: number;
    if (critical) {
      const v = velocity[i] - b;
      const j1 = v + e0 * y;
      velocity[i] = decay * (v - j1 * ydt) + b;
      jn = decay * (e0 + j1 * sdt) - a;
    } else {
      velocity[i] = b - lambdaDecay * e0;
      jn = decay * e0 - a;
    }
    const x = g + jn;
    output[i] = x;
    out[outOffset + i] = x;
  }
}
