import { OptionError, ShapeError } from '../../errors.js';
import type { FloatArray } from '../../series/types.js';
import {
  checkChoice,
  checkJoints,
  checkOptionNames,
  checkPositive,
  checkSample,
  checkStateHead,
  checkValues,
  type LiveFilter,
  type LiveStateBase,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
  timeStep,
} from './common.js';
import { rotationVectorBetween, turn, unitInto } from './tangent.js';

/** How a damper approaches its target (see {@link createDamper}). */
export type DamperResponse = 'critical' | 'exponential';

/** Options of {@link createDamper}. */
export interface DamperOptions {
  /** Rotations (or vectors) per sample. Required. */
  joints: number;
  /** `'rotation'` (default): unit quaternions `x, y, z, w`; `'vector'`: `width` plain values per joint. */
  kind?: 'rotation' | 'vector';
  /** Values per joint for `kind: 'vector'`. Default 3; rotations use 4. */
  width?: number;
  /**
   * `'critical'` (default): a critically damped spring-damper (position and velocity state; follows a moving
   * target without overshoot from rest, and can take a target velocity); `'exponential'`: the first-order
   * damper `x ← x + (g − x)·(1 − 2^(−Δt/halfLife))`, no velocity state.
   */
  response?: DamperResponse;
  /**
   * Seconds for the distance to a held target to halve, starting from rest. Exact for both responses: the
   * spring's decay rate is solved from `(1 + u)·e^(−u) = ½` (see {@link halfLifeToDamping}). Default 0.1.
   */
  halfLife?: number;
  /**
   * What the target does between samples. `'hold'` (default, Holden's game loop): the sample at `time` is the
   * target over the whole interval since the previous sample, so a target that changes only at samples is
   * followed exactly at any sampling. `'linear'`: the target turns from the previous sample to this one at
   * constant angular velocity (moves linearly for vectors), so a target moving piecewise at constant
   * velocity is followed exactly, and a smoothly moving target sampled at different rates differs by
   * `O(Δt²)` instead of `O(Δt)`; a jump between samples is spread over the interval.
   */
  targetPath?: 'hold' | 'linear';
  /** What a sample whose time is not after the previous one's does; see `common.ts`. Default `'error'`. */
  staleSample?: StaleSamplePolicy;
}

/** Defaults of {@link DamperOptions}. */
export const DAMPER_DEFAULTS: Required<Omit<DamperOptions, 'joints'>> = {
  kind: 'rotation',
  width: 3,
  response: 'critical',
  halfLife: 0.1,
  targetPath: 'hold',
  staleSample: 'error',
};

const OPTION_NAMES = ['joints', ...Object.keys(DAMPER_DEFAULTS)];

/** The root `u` of `(1 + u)·e^(−u) = ½`: a critically damped spring from rest covers half the way at `t = u/y`. */
export const CRITICAL_HALF_LIFE_ROOT = 1.6783469900166605;

/**
 * Holden's damping `d` (1/s) of the spring `ẍ = (d²/4)·(g − x) + d·(q − ẋ)` whose step response from rest
 * covers exactly half the way in `halfLife` seconds: `d = 2·u/halfLife` with `u` the root of
 * `(1 + u)·e^(−u) = ½` ({@link CRITICAL_HALF_LIFE_ROOT}, 1.6783…). For `response: 'exponential'` the rate
 * `ln 2 / halfLife` is returned. Holden's own `halflife_to_damping` uses `d = 4·ln 2 / halfLife`, with which
 * the spring has covered 40.3% (not 50%) of the way at `halfLife`; multiply his half-lives by 0.826 to get
 * the same springs here.
 *
 * @throws {OptionError} when `halfLife` is not a positive finite number.
 * @example
 * halfLifeToDamping(0.1); // 33.567 (1/s)
 */
export function halfLifeToDamping(halfLife: number, response: DamperResponse = 'critical'): number {
  checkPositive(halfLife, 'halfLife', 'halfLifeToDamping');
  checkChoice(response, 'response', ['critical', 'exponential'], 'halfLifeToDamping');
  return response === 'critical' ? (2 * CRITICAL_HALF_LIFE_ROOT) / halfLife : Math.LN2 / halfLife;
}

/** Snapshot of a damper (see {@link LiveFilter.getState}). */
export interface DamperState extends LiveStateBase {
  filter: 'damper';
  /** The current value (the last output), `joints · width` values. */
  output: number[];
  /** The velocity per joint: 3 components (rad/s, world frame, of the log-space coordinate) or `width`. */
  velocity: number[];
  /** The previous target (unit quaternions for rotations), `joints · width` values. */
  target: number[];
}

/**
 * A damper over a stream; see {@link createDamper}. `push` takes an optional target velocity per joint
 * (`joints · 3` values in rad/s for rotations, `joints · width` for vectors; `'critical'` only).
 */
export interface Damper extends LiveFilter<DamperState> {
  push<T extends FloatArray>(
    out: T,
    input: ArrayLike<number>,
    time: number,
    targetVelocity?: ArrayLike<number>,
  ): T;
  pushAt<T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
    targetVelocity?: ArrayLike<number>,
  ): T;
  /** The current velocity (read-only view, updated by every push): see {@link DamperState.velocity}. */
  readonly velocity: Float64Array;
}

/**
 * Creates a damper that follows a target rotation (or vector) per joint with a half-life, exactly for any
 * time step: the state is advanced by the closed-form solution of its differential equation over `Δt`, so
 * two steps of `Δt/2` give one step of `Δt` (to rounding) and the frame rate does not change the motion.
 *
 * Rotations are damped in the log space of the target `g` (Holden's `simple_spring_damper_exact_quat`): with
 * `j = 2·log(x ⊗ g⁻¹)` (rotation vector, world frame; `g` is first moved into the hemisphere of `x`, so the
 * input's sign never matters) and `y = d/2`,
 * - `'critical'`: `j₀ = j − 4q/d`, `j₁ = v + y·j₀`, `j ← e^(−yΔt)·(j₀ + j₁Δt) + 4q/d`, `v ← e^(−yΔt)·(v − y·j₁Δt)`
 *   (`q` the target velocity, default 0; with `q ≠ 0` the spring settles `4q/d` ahead of `g`, Holden's
 *   `critical_spring_damper_exact`);
 * - `'exponential'`: `j ← 2^(−Δt/halfLife)·j`;
 * then `x = exp(j/2) ⊗ g`. Vectors use `j = x − g` and `x = g + j`.
 *
 * Between samples the target is held (`targetPath: 'hold'`, Holden's game loop: the sample at `time` is the
 * target over the interval since the previous sample) or moves at constant velocity from the previous sample
 * (`'linear'`: the same equations about the moving target, `j` measured from the previous target, with
 * `a = 4b/d` for the spring, `1/λ·b` for the exponential damper, `b` the target's angular velocity over the
 * interval). Either way a target of that shape (piecewise constant, or piecewise constant-velocity, with
 * its breaks at samples) is followed exactly at any sampling; a smoothly moving target sampled at different
 * rates differs by `O(Δt)` held and `O(Δt²)` linear (measured in the README). The first sample is passed
 * through (rotations: unit, `w ≥ 0`) with the target velocity (or zero) as the velocity.
 *
 * Method: D. Holden, "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021): exact critically damped
 * springs and dampers, the half-life parameterisation and the quaternion form in log space; the half-life here
 * is made exact for the spring (see {@link halfLifeToDamping}).
 *
 * @throws {OptionError} on a missing or invalid option or an unknown option name.
 * @example
 * const damper = createDamper({ joints: 1, halfLife: 0.05 });
 * const out = new Float64Array(4);
 * damper.push(out, [0, 0, 0, 1], 0);
 * damper.push(out, [0, 0.7071, 0, 0.7071], 0.05); // 45° of the 90° left after one half-life
 */
export function createDamper(options: DamperOptions): Damper {
  const where = 'createDamper';
  checkOptionNames(options, OPTION_NAMES, where);
  const joints = checkJoints(options.joints, where);
  const kind = checkChoice(options.kind ?? DAMPER_DEFAULTS.kind, 'kind', ['rotation', 'vector'], where);
  const response = checkChoice(
    options.response ?? DAMPER_DEFAULTS.response,
    'response',
    ['critical', 'exponential'],
    where,
  );
  const halfLife = checkPositive(options.halfLife ?? DAMPER_DEFAULTS.halfLife, 'halfLife', where);
  const staleSample = checkChoice(
    options.staleSample ?? DAMPER_DEFAULTS.staleSample,
    'staleSample',
    STALE_SAMPLE_POLICIES,
    where,
  );
  let width = 4;
  if (kind === 'vector') {
    const w = options.width ?? DAMPER_DEFAULTS.width;
    if (!(Number.isInteger(w) && w >= 1 && w <= 1024)) {
      throw new OptionError(`${where}: width must be a whole number from 1 to 1024, got ${String(w)}`);
    }
    width = w;
  } else if (options.width !== undefined && options.width !== 4) {
    throw new OptionError(
      `${where}: rotations have width 4 (x, y, z, w), got width ${String(options.width)}`,
    );
  }
  const targetPath = checkChoice(
    options.targetPath ?? DAMPER_DEFAULTS.targetPath,
    'targetPath',
    ['hold', 'linear'],
    where,
  );
  const resolved = { kind, width, response, halfLife, targetPath, staleSample };
  const vw = kind === 'rotation' ? 3 : width;
  const n = joints * width;
  const output = new Float64Array(n);
  const velocity = new Float64Array(joints * vw);
  const scratch = new Float64Array(8);
  const target = new Float64Array(n);
  const critical = response === 'critical';
  const linear = targetPath === 'linear';
  const d = halfLifeToDamping(halfLife, 'critical');
  const y = d / 2;
  const rate = Math.LN2 / halfLife;
  const k: Coefficients = { critical, linear, dt: 0, decay: 1, y, lead: critical ? 4 / d : 1 / rate, rate };
  let samples = 0;
  let last = 0;

  const pushAt = <T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
    targetVelocity?: ArrayLike<number>,
  ): T => {
    checkSample(out, outOffset, input, inputOffset, n, 'Damper.push');
    if (targetVelocity !== undefined) {
      if (!critical || linear) {
        throw new OptionError(
          "Damper.push: a target velocity needs response: 'critical' and targetPath: 'hold'",
        );
      }
      if (targetVelocity === null || targetVelocity.length !== velocity.length) {
        throw shapeErrorFor(velocity.length, targetVelocity);
      }
      checkValues(targetVelocity, 0, joints, vw, 'Damper.push (targetVelocity)');
    }
    const dt = timeStep(time, samples, last, staleSample, 'Damper.push');
    if (dt < 0) {
      for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
      return out;
    }
    checkValues(input, inputOffset, joints, width, 'Damper.push');
    if (samples === 0) {
      if (kind === 'rotation') {
        for (let j = 0; j < joints; j++) unitInto(output, j * 4, input, inputOffset + j * 4, true);
      } else {
        for (let i = 0; i < n; i++) output[i] = input[inputOffset + i];
      }
      if (targetVelocity !== undefined)
        for (let i = 0; i < velocity.length; i++) velocity[i] = targetVelocity[i];
      else velocity.fill(0);
      target.set(output);
    } else {
      // the per-sample constants, once for every joint
      k.dt = dt;
      k.decay = critical ? Math.exp(-y * dt) : 2 ** (-dt / halfLife);
      const user = targetVelocity ?? null;
      if (kind === 'rotation')
        damperRotations(output, velocity, target, scratch, input, inputOffset, joints, user, k);
      else damperVectors(output, velocity, target, input, inputOffset, n, user, k);
    }
    samples++;
    last = time;
    for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
    return out;
  };

  return {
    joints,
    width,
    velocity,
    get samples() {
      return samples;
    },
    push: (out, input, time, targetVelocity) => pushAt(out, 0, input, 0, time, targetVelocity),
    pushAt,
    reset() {
      samples = 0;
      last = 0;
      output.fill(0);
      velocity.fill(0);
      target.fill(0);
    },
    getState(): DamperState {
      return {
        filter: 'damper',
        joints,
        width,
        options: { ...resolved },
        samples,
        time: samples > 0 ? last : null,
        output: Array.from(output),
        velocity: Array.from(velocity),
        target: Array.from(target),
      };
    },
    setState(state: DamperState) {
      const where = 'Damper.setState';
      const s = checkStateHead(state, 'damper', joints, width, resolved, where);
      const o = new Float64Array(n);
      const v = new Float64Array(velocity.length);
      readStateArray(o, state.output, 'output', where);
      const t = new Float64Array(n);
      readStateArray(v, state.velocity, 'velocity', where);
      readStateArray(t, state.target, 'target', where);
      output.set(o);
      velocity.set(v);
      target.set(t);
      samples = s.samples;
      last = s.samples > 0 ? (s.time as number) : 0;
    },
  };
}

function shapeErrorFor(expected: number, got: ArrayLike<number> | null): ShapeError {
  return new ShapeError(
    `Damper.push: targetVelocity must hold ${expected} values, got ${got === null ? 'null' : got.length}`,
  );
}

/** The per-sample constants of a damper step. */
interface Coefficients {
  critical: boolean;
  linear: boolean;
  dt: number;
  /** `e^(−yΔt)` or `2^(−Δt/halfLife)`. */
  decay: number;
  /** The spring's `y = d/2`. */
  y: number;
  /** The spring's steady lead `4/d` per unit of velocity, or the exponential's `1/λ`. */
  lead: number;
  /** The exponential's `λ = ln 2 / halfLife`. */
  rate: number;
}

/**
 * One sample of the rotation damper for every joint. `target` holds the previous target (unit, for
 * `linear`), `user` the caller's target velocities (hold only) or null.
 */
function damperRotations(
  output: Float64Array,
  velocity: Float64Array,
  target: Float64Array,
  g: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  joints: number,
  user: ArrayLike<number> | null,
  k: Coefficients,
): void {
  for (let j = 0, q = 0, e = 0; j < joints; j++, q += 4, e += 3) {
    // the new target, unit, in the hemisphere of the previous target (linear) or of the value (hold)
    unitInto(g, 0, input, inputOffset + q, false);
    const ref = k.linear ? target : output;
    if (g[0] * ref[q] + g[1] * ref[q + 1] + g[2] * ref[q + 2] + g[3] * ref[q + 3] < 0) {
      g[0] = -g[0];
      g[1] = -g[1];
      g[2] = -g[2];
      g[3] = -g[3];
    }
    let ax = 0;
    let ay = 0;
    let az = 0;
    let bx = 0;
    let by = 0;
    let bz = 0;
    if (k.linear) {
      // the target turns from the previous one to the new one at constant angular velocity b over Δt;
      // j is measured from the previous target and the value settles a·(−1) behind the moving target
      rotationVectorBetween(g, 4, g, 0, target, q);
      const s = 1 / k.dt;
      bx = g[4] * s;
      by = g[5] * s;
      bz = g[6] * s;
      ax = k.lead * bx;
      ay = k.lead * by;
      az = k.lead * bz;
      rotationVectorBetween(g, 4, output, q, target, q);
      target[q] = g[0];
      target[q + 1] = g[1];
      target[q + 2] = g[2];
      target[q + 3] = g[3];
    } else {
      if (user !== null) {
        // Holden's critical_spring_damper_exact: the spring settles lead·q ahead of the goal
        ax = -k.lead * user[e];
        ay = -k.lead * user[e + 1];
        az = -k.lead * user[e + 2];
      }
      rotationVectorBetween(g, 4, output, q, g, 0);
    }
    // e = j + a and ė = v − b follow the critically damped ë = −y²e − 2yė (or ė = −λe) exactly over Δt;
    // then j = e − a and v = ė + b
    const e0x = g[4] + ax;
    const e0y = g[5] + ay;
    const e0z = g[6] + az;
    const decay = k.decay;
    if (k.critical) {
      const y = k.y;
      const dt = k.dt;
      const vx = velocity[e] - bx;
      const vy = velocity[e + 1] - by;
      const vz = velocity[e + 2] - bz;
      const j1x = vx + e0x * y;
      const j1y = vy + e0y * y;
      const j1z = vz + e0z * y;
      velocity[e] = decay * (vx - j1x * y * dt) + bx;
      velocity[e + 1] = decay * (vy - j1y * y * dt) + by;
      velocity[e + 2] = decay * (vz - j1z * y * dt) + bz;
      g[4] = decay * (e0x + j1x * dt) - ax;
      g[5] = decay * (e0y + j1y * dt) - ay;
      g[6] = decay * (e0z + j1z * dt) - az;
    } else {
      const lambda = k.rate;
      velocity[e] = bx - lambda * decay * e0x;
      velocity[e + 1] = by - lambda * decay * e0y;
      velocity[e + 2] = bz - lambda * decay * e0z;
      g[4] = decay * e0x - ax;
      g[5] = decay * e0y - ay;
      g[6] = decay * e0z - az;
    }
    g[7] = 1;
    turn(output, q, g, 0, g, 4);
  }
}

/** One sample of the vector damper for every joint (see {@link damperRotations}). */
function damperVectors(
  output: Float64Array,
  velocity: Float64Array,
  target: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  n: number,
  user: ArrayLike<number> | null,
  k: Coefficients,
): void {
  for (let i = 0; i < n; i++) {
    const g = input[inputOffset + i];
    let a = 0;
    let b = 0;
    let j0: number;
    if (k.linear) {
      b = (g - target[i]) / k.dt;
      a = k.lead * b;
      j0 = output[i] - target[i];
      target[i] = g;
    } else {
      if (user !== null) a = -k.lead * user[i];
      j0 = output[i] - g;
    }
    // one component at a time through the same exact step as rotations
    const e0 = j0 + a;
    const decay = k.decay;
    let jn: number;
    if (k.critical) {
      const y = k.y;
      const dt = k.dt;
      const v = velocity[i] - b;
      const j1 = v + e0 * y;
      velocity[i] = decay * (v - j1 * y * dt) + b;
      jn = decay * (e0 + j1 * dt) - a;
    } else {
      velocity[i] = b - k.rate * decay * e0;
      jn = decay * e0 - a;
    }
    output[i] = g + jn;
  }
}
