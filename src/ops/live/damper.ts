import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { copySample, SIMD_MAX_JOINTS } from '../../numeric/simd.js';
import { frozenDefaults, numberIn, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { FloatArray } from '../../series/types.js';
import {
  createSimdDamper,
  type DamperKernelState,
  damperLogs,
  damperRotations,
  damperVectors,
  finiteTyped,
  type SimdDamper,
} from './damper-kernels.js';
import {
  checkChoice,
  checkJoints,
  checkPositive,
  checkSample,
  checkStateHead,
  checkValues,
  JOINTS_RULE,
  type LiveFilter,
  type LiveStateBase,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
  streamWidth,
  unitStateQuaternions,
  WIDTH_RULE,
} from './live-contract.js';
import { StreamClock } from './stream-clock.js';
import { unitInto } from './tangent.js';

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
   * spring's decay rate is solved from `(1 + u)·e^(−u) = ½` (see {@link halfLifeToDamping}). Default 0.1;
   * from {@link MIN_HALF_LIFE} to {@link MAX_HALF_LIFE}.
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

/** Defaults of {@link DamperOptions} (frozen; `joints` has none, `width` is 3 for vectors and always 4 for rotations). */
export const DAMPER_DEFAULTS: Readonly<Required<Omit<DamperOptions, 'joints' | 'width'>>> = frozenDefaults({
  kind: 'rotation',
  response: 'critical',
  halfLife: 0.1,
  targetPath: 'hold',
  staleSample: 'error',
});

/** Shortest half-life accepted, seconds: below it the spring's rates overflow double precision. */
export const MIN_HALF_LIFE = 1e-9;

/**
 * Longest half-life accepted, seconds (about 32 years): beyond it the spring's `1/y` and lead, times a
 * velocity within range, could overflow (an output of NaN).
 */
export const MAX_HALF_LIFE = 1e9;

const DAMPER_SPEC: OptionSpec = {
  joints: JOINTS_RULE,
  kind: oneOf(['rotation', 'vector']),
  width: WIDTH_RULE,
  response: oneOf(['critical', 'exponential']),
  halfLife: numberIn(MIN_HALF_LIFE, MAX_HALF_LIFE),
  targetPath: oneOf(['hold', 'linear']),
  staleSample: oneOf(STALE_SAMPLE_POLICIES),
};

function checkHalfLife(value: unknown, where: string): number {
  const h = checkPositive(value, 'halfLife', where);
  if (h < MIN_HALF_LIFE || h > MAX_HALF_LIFE) {
    throw new OptionError(`${where}: halfLife must be from ${MIN_HALF_LIFE} to ${MAX_HALF_LIFE} s, got ${h}`);
  }
  return h;
}

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
 * @throws {OptionError} when `halfLife` is not a number of seconds from {@link MIN_HALF_LIFE} to
 *   {@link MAX_HALF_LIFE}.
 * @example
 * halfLifeToDamping(0.1); // 33.567 (1/s)
 */
export function halfLifeToDamping(halfLife: number, response: DamperResponse = 'critical'): number {
  checkHalfLife(halfLife, 'halfLifeToDamping');
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
  /**
   * The previous target (unit quaternions for rotations), `joints · width` values, kept for
   * `targetPath: 'linear'`, which extrapolates from it; with `'hold'` it is unused and stays the first sample.
   */
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
 * Cost: rotations (both responses, both target paths, with or without a target velocity) run two joints per
 * instruction in WebAssembly SIMD where the engine has it (Node 20, current browsers; `simd.wat`), with the
 * value, the velocity and the previous target in the kernel's own fixed-size memory (`velocity` is a view of it
 * that never detaches) and fdlibm's reductions for large angles; its output agrees with the JavaScript loops,
 * which vectors and other engines run, to about an ulp (tested to 1e-13). A sample given as part of a larger typed array (`pushAt` with
 * an offset) is copied into the kernel's memory through one `subarray` view, the only allocation per sample.
 *
 * Method: D. Holden, "Spring-It-On: The Game Developer's Spring-Roll-Call" (2021): exact critically damped
 * springs and dampers, the half-life parameterisation and the quaternion form in log space; the half-life here
 * is made exact for the spring (see {@link halfLifeToDamping}).
 *
 * @param options - Defaults in {@link DAMPER_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on a missing or invalid option or an unknown option name.
 * @example
 * const damper = createDamper({ joints: 1, halfLife: 0.05 });
 * const out = new Float64Array(4);
 * damper.push(out, [0, 0, 0, 1], 0);
 * damper.push(out, [0, 0.7071, 0, 0.7071], 0.05); // 45° of the 90° left after one half-life
 */
export function createDamper(options: DamperOptions): Damper {
  const where = 'createDamper';
  const o = resolveOptions(where, options, DAMPER_DEFAULTS, DAMPER_SPEC);
  const joints = checkJoints(o.joints, where);
  const { kind, response, halfLife, targetPath, staleSample } = o;
  const width = streamWidth(kind, o.width, where);
  const resolved = { kind, width, response, halfLife, targetPath, staleSample };
  const vw = kind === 'rotation' ? 3 : width;
  const n = joints * width;
  const critical = response === 'critical';
  const linear = targetPath === 'linear';
  // rotations run in WebAssembly SIMD where the engine has it (both responses, both target paths), with the
  // value, velocity and previous target in the kernel's memory (views that never detach); see simd.ts
  const simd = kind === 'rotation' && joints <= SIMD_MAX_JOINTS ? createSimdDamper(joints) : null;
  const output = simd !== null ? simd.view.value : new Float64Array(n);
  const velocity = simd !== null ? simd.view.velocity : new Float64Array(joints * vw);
  const steps = new Float64Array(kind === 'rotation' ? joints * 16 : 0);
  const target = simd !== null ? simd.view.target : new Float64Array(n);
  const d = halfLifeToDamping(halfLife, 'critical');
  const y = d / 2;
  const rate = Math.LN2 / halfLife;
  const lead = critical ? 4 / d : 1 / rate;
  const kernelState: DamperKernelState = { output, velocity, target, linear, critical, y, lead, rate };
  const clock = new StreamClock(staleSample, 'Damper.push');

  /** {@link damperRotations} for joints `first` to `end` with this filter's state and constants. */
  const rotate = (
    out: FloatArray,
    outOffset: number,
    first: number,
    end: number,
    user: ArrayLike<number> | null,
    dt: number,
    decay: number,
  ): void => damperRotations(out, outOffset, kernelState, steps, first, end, user, dt, decay);

  /**
   * One sample of a rotation damper (critical or exponential, held or linear target, with or without a target
   * velocity) through the WebAssembly
   * kernel: the sample is copied into the kernel's memory (one `set`), the kernel advances every pair it can (the
   * polynomials, or its full-range paths for large angles), and the pairs it leaves (an angle beyond 1e5 rad,
   * from a large velocity) are finished by {@link damperLogs} and {@link damperRotations} on the same memory. A sample
   * with a zero or non-finite quaternion changes nothing and throws naming it.
   */
  const pushSimd = (
    simd: SimdDamper,
    out: FloatArray,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    dt: number,
    decay: number,
    user: ArrayLike<number> | null,
  ): void => {
    copySample(simd, input, inputOffset);
    const copy = simd.input;
    const at = simd.at;
    // a target velocity q beside the velocity, where the kernel takes its lead (−lead)·q as damperRotations does
    if (user !== null) {
      const copyTo = simd.view.lead;
      if (user instanceof Float64Array || user instanceof Float32Array) copyTo.set(user);
      else for (let i = 0; i < copyTo.length; i++) copyTo[i] = user[i];
    }
    // the critical spring passes its decay, y, the clamped Δt and y·Δt; the exponential damper y = Δt = 0, y·Δt = 1
    // and K = −λ·decay, which make the kernel's j₁ = v, v ← decay·(v − v) + K·j₀, j ← decay·(j₀ + v·0); a held
    // target passes 0 for 1/Δt and the lead, which make the target's velocity b and the lead a zero (see simd.wat)
    const sdt = critical ? Math.min(dt, 800 / y) : 0;
    const left = simd.kernels.damperHold(
      0,
      at.value,
      at.velocity,
      at.flags,
      at.scratch,
      simd.pairs,
      decay,
      critical ? y : 0,
      sdt,
      critical ? y * sdt : 1,
      critical ? 0 : -(rate * decay),
      linear ? 1 : 0,
      at.target,
      linear ? 1 / dt : 0,
      linear ? lead : 0,
      user !== null ? 1 : 0,
      at.lead - at.velocity,
      -lead,
    );
    if (left < 0) {
      // the kernel's check is checkValues's (the same sums and bounds): this throws, naming the quaternion
      checkValues(input, inputOffset, simd.joints, 4, 'Damper.push');
      throw new InvalidValueError('Damper.push: a quaternion of the sample is zero or not finite');
    }
    for (let c = 0; c < left; c++) {
      const first = simd.flags[c] * 2;
      const end = Math.min(first + 2, simd.joints);
      damperLogs(steps, output, target, copy, 0, first, end, linear);
      rotate(output, 0, first, end, user, dt, decay);
    }
    out.set(output, outOffset);
  };

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
      if (!finiteTyped(targetVelocity))
        checkValues(targetVelocity, 0, joints, vw, 'Damper.push (targetVelocity)');
    }
    const dt = clock.step(time);
    if (dt < 0) {
      for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
      return out;
    }
    if (clock.samples === 0) {
      checkValues(input, inputOffset, joints, width, 'Damper.push');
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
      const decay = critical ? Math.exp(-y * dt) : 2 ** (-dt / halfLife);
      const user = targetVelocity ?? null;
      if (kind === 'rotation') {
        if (simd !== null) {
          pushSimd(simd, out, outOffset, input, inputOffset, dt, decay, user);
          clock.accept(time);
          return out;
        }
        if (!damperLogs(steps, output, target, input, inputOffset, 0, joints, linear)) {
          // a bad quaternion: throw naming it, with the state as it was
          checkValues(input, inputOffset, joints, 4, 'Damper.push');
        }
        rotate(out, outOffset, 0, joints, user, dt, decay);
        clock.accept(time);
        return out;
      }
      checkValues(input, inputOffset, joints, width, 'Damper.push');
      damperVectors(out, outOffset, kernelState, input, inputOffset, n, user, dt, decay);
      clock.accept(time);
      return out;
    }
    clock.accept(time);
    for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
    return out;
  };

  return {
    joints,
    width,
    velocity,
    get samples() {
      return clock.samples;
    },
    push: (out, input, time, targetVelocity) => pushAt(out, 0, input, 0, time, targetVelocity),
    pushAt,
    reset() {
      clock.reset();
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
        ...clock.head(),
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
      // before the first sample the arrays are unused (zeros after a reset)
      if (kind === 'rotation' && s.samples > 0) {
        unitStateQuaternions(o, 'output', where);
        unitStateQuaternions(t, 'target', where);
      }
      output.set(o);
      velocity.set(v);
      target.set(t);
      clock.restore(s);
    },
  };
}

function shapeErrorFor(expected: number, got: ArrayLike<number> | null): ShapeError {
  return new ShapeError(
    `Damper.push: targetVelocity must hold ${expected} values, got ${got === null ? 'null' : got.length}`,
  );
}
