/**
 * What every streaming filter shares: the {@link LiveFilter} contract, the timestamp policy, option and shape
 * checks, and the serialisable state's validation.
 *
 * ## The streaming contract
 * A filter is made once per stream of `joints` rotations (or vectors) and fed one sample at a time:
 * `filter.push(out, input, time)` reads `joints` quaternions `x, y, z, w` (or `joints · width` values) from
 * `input`, writes the filtered sample into `out` and returns `out`. `out` may be `input`. Nothing is allocated
 * per sample (the filters that run in WebAssembly make one typed-array view of a sample that is part of a larger
 * typed array, to copy it in one `set`). `reset()` forgets the stream; `getState()` returns a plain JSON-serialisable snapshot and
 * `setState(state)` resumes from one, so a stream saved and restored gives the same output bit for bit.
 *
 * ## Timestamps
 * `time` is in seconds and may be irregular (dropped frames, jitter). A sample whose time is not after the
 * previous accepted sample's (repeated or decreasing) is handled by the `staleSample` option: `'error'`
 * (default) throws an {@link InvalidValueError} and leaves the filter as it was; `'hold'` ignores the sample
 * and writes the previous output again. A sample less than {@link MIN_TIME_STEP} (1 ns) after the previous one
 * counts as repeated: a step of 5e-324 s would make speeds and target velocities overflow to ∞. A non-finite
 * time is always an error.
 *
 * ## Value ranges
 * Every value is a number (a string or `null` in a plain array is a {@link ShapeError}, never coerced); vector
 * values and target velocities lie within ±{@link MAX_LIVE_VALUE} (1e100) and quaternions have a squared
 * length within (1e-200, 1e200); a snapshot's arrays lie within ±{@link MAX_STATE_VALUE} (1e120). Within these
 * ranges no filter's arithmetic overflows, so every output is finite (and unit, for rotations).
 *
 * @module
 */
import { InvalidValueError, OptionError, ShapeError } from '../../errors.js';
import { integerIn, type OptionRule } from '../../options.js';
import type { FloatArray } from '../../series/types.js';

/** What a filter does with a sample whose time is not after the previous sample's. */
export type StaleSamplePolicy = 'error' | 'hold';

/** The valid {@link StaleSamplePolicy} names. */
export const STALE_SAMPLE_POLICIES: readonly StaleSamplePolicy[] = Object.freeze(['error', 'hold']);

/** A streaming filter over `joints` channels; see the module documentation for the contract. */
export interface LiveFilter<State> {
  /** Number of joints (rotations, or vectors of `width` values) per sample. */
  readonly joints: number;
  /** Values per joint in `input` and `out` (4 for rotations). */
  readonly width: number;
  /** Samples accepted since creation or the last {@link LiveFilter.reset}. */
  readonly samples: number;
  /**
   * Filters the sample at `time` seconds: reads `joints · width` values from `input`, writes as many into
   * `out` (which may be `input`) and returns `out`.
   */
  push<T extends FloatArray>(out: T, input: ArrayLike<number>, time: number): T;
  /** {@link LiveFilter.push} on the sample at `input[inputOffset..]`, written at `out[outOffset..]`. */
  pushAt<T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): T;
  /** Forgets the stream: the next sample is treated as the first. */
  reset(): void;
  /** A plain, JSON-serialisable snapshot of everything the next output depends on. */
  getState(): State;
  /**
   * Resumes from a snapshot of a filter made with the same options (checked).
   *
   * @throws {OptionError} when the snapshot is of another kind of filter or other options;
   *   {@link ShapeError} when its arrays have the wrong length; {@link InvalidValueError} on non-finite values.
   */
  setState(state: State): void;
}

/**
 * A {@link LiveFilter} from the parts that differ between filters: `samples` is read from the stream's
 * clock and `push` is `pushAt` at offset 0.
 */
export function liveFilter<State>(
  joints: number,
  width: number,
  clock: { readonly samples: number },
  pushAt: LiveFilter<State>['pushAt'],
  rest: Pick<LiveFilter<State>, 'reset' | 'getState' | 'setState'>,
): LiveFilter<State> {
  return {
    joints,
    width,
    get samples() {
      return clock.samples;
    },
    push: (out, input, time) => pushAt(out, 0, input, 0, time),
    pushAt,
    reset: rest.reset,
    getState: rest.getState,
    setState: rest.setState,
  };
}

/** The part of every filter's snapshot that says what it belongs to and where the stream is. */
export interface LiveStateBase {
  /** Which filter made the snapshot (`'one-euro'`, `'damper'`, ...). */
  filter: string;
  joints: number;
  width: number;
  /** The options the filter was made with (defaults filled in); `setState` requires the same. */
  options: Record<string, unknown>;
  /** Samples accepted so far (0: the next sample is the first). */
  samples: number;
  /** Time of the last accepted sample in seconds, `null` before the first. */
  time: number | null;
}

/** @internal The rule of `joints`: a whole number from 1 to 2^24 (required; checked again by {@link checkJoints}). */
export const JOINTS_RULE: OptionRule = integerIn(1, 1 << 24);

/** @internal The rule of a vector stream's `width`: values per joint, 1 to 1024. */
export const WIDTH_RULE: OptionRule = integerIn(1, 1024);

/** @internal The values per joint of a vector stream when `width` is left out (rotations are always 4). */
export const VECTOR_WIDTH = 3;

/**
 * @internal The width a filter of `kind` runs at: 4 for rotations (a `width` other than 4 refused), `width`
 * or {@link VECTOR_WIDTH} for vectors.
 */
export function streamWidth(kind: 'rotation' | 'vector', width: number | undefined, where: string): number {
  if (kind === 'vector') return width ?? VECTOR_WIDTH;
  if (width !== undefined && width !== 4)
    throw new OptionError(`${where}: rotations have width 4 (x, y, z, w), got width ${String(width)}`);
  return 4;
}

/** @internal A positive whole number of joints. */
export function checkJoints(joints: unknown, where: string): number {
  if (typeof joints !== 'number' || !Number.isInteger(joints) || joints < 1 || joints > 1 << 24) {
    throw new OptionError(`${where}: joints must be a whole number from 1, got ${String(joints)}`);
  }
  return joints;
}

/** @internal A positive finite number. */
export function checkPositive(value: unknown, name: string, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new OptionError(`${where}: ${name} must be a positive finite number, got ${String(value)}`);
  }
  return value;
}

/** @internal One of the listed names. */
export function checkChoice<T extends string>(
  value: unknown,
  name: string,
  list: readonly T[],
  where: string,
): T {
  if (!list.includes(value as T)) {
    throw new OptionError(`${where}: ${name} must be one of ${list.join(', ')}, got ${String(value)}`);
  }
  return value as T;
}

/**
 * Checks that `out` and `input` hold a sample of `count` values at their offsets.
 *
 * @internal
 */
export function checkSample(
  out: ArrayLike<number>,
  outOffset: number,
  input: ArrayLike<number>,
  inputOffset: number,
  count: number,
  where: string,
): void {
  if (input === null || typeof input !== 'object' || typeof input.length !== 'number') {
    throw new ShapeError(`${where}: input must be an array of numbers`);
  }
  if (out === null || typeof out !== 'object' || typeof out.length !== 'number') {
    throw new ShapeError(`${where}: out must be a Float64Array or Float32Array`);
  }
  if (!(Number.isInteger(inputOffset) && inputOffset >= 0 && inputOffset + count <= input.length)) {
    throw new ShapeError(
      `${where}: input has ${input.length} values, a sample needs ${count} from offset ${String(inputOffset)}`,
    );
  }
  if (!(Number.isInteger(outOffset) && outOffset >= 0 && outOffset + count <= out.length)) {
    throw new ShapeError(
      `${where}: out has ${out.length} values, a sample needs ${count} from offset ${String(outOffset)}`,
    );
  }
  // a typed array holds numbers; a plain array may hold strings or null, which arithmetic would coerce
  if (!(input instanceof Float64Array || input instanceof Float32Array))
    checkNumbers(input, inputOffset, count, where);
}

/**
 * Throws a {@link ShapeError} naming the first of `count` values from `offset` that is not a number (a string,
 * `null`, a boolean...: arithmetic would coerce it, and `'1' + 0.5` is `'10.5'`).
 *
 * @internal
 */
export function checkNumbers(values: ArrayLike<unknown>, offset: number, count: number, where: string): void {
  for (let i = 0; i < count; i++) {
    const v = values[offset + i];
    if (typeof v !== 'number') {
      throw new ShapeError(
        `${where}: value ${i} of the sample is ${v === null ? 'null' : `a ${typeof v}`}, not a number`,
      );
    }
  }
}

/** Largest magnitude of a vector value or target velocity a filter takes (see the module documentation). */
export const MAX_LIVE_VALUE = 1e100;

/** Largest magnitude of a value in a snapshot's arrays that `setState` takes (see the module documentation). */
export const MAX_STATE_VALUE = 1e120;

/**
 * Shortest time step in seconds: a sample less than this after the previous one counts as repeated (the
 * `staleSample` policy applies), since `1/Δt` would overflow at a denormal step and lose every digit near it.
 */
export const MIN_TIME_STEP = 1e-9;

/**
 * Applies the timestamp policy: returns the time step in seconds (`0` for the first sample), or `-1` when the
 * sample is stale (not {@link MIN_TIME_STEP} after the previous one) and the policy is `'hold'`.
 *
 * @throws {InvalidValueError} on a non-finite time, or a stale one under `'error'`.
 * @internal
 */
export function timeStep(
  time: number,
  samples: number,
  last: number,
  policy: StaleSamplePolicy,
  where: string,
): number {
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    throw new InvalidValueError(`${where}: time must be a finite number of seconds, got ${String(time)}`);
  }
  if (samples === 0) return 0;
  const dt = time - last;
  if (dt >= MIN_TIME_STEP) return dt;
  if (policy === 'hold') return -1;
  throw new InvalidValueError(
    `${where}: time ${time} s is not after the previous sample's ${last} s` +
      (dt > 0 ? ` by ${MIN_TIME_STEP} s or more` : '') +
      " (timestamps must increase; pass staleSample: 'hold' to skip such samples)",
    { index: samples },
  );
}

/**
 * Throws an {@link InvalidValueError} naming the first joint of the sample whose `width` values are not all
 * finite and within ±{@link MAX_LIVE_VALUE}, or (for rotations, `width` 4) whose quaternion is zero or out of
 * range, and a {@link ShapeError} on a value that is not a number. Run before any state changes, so a bad
 * sample leaves the filter as it was.
 *
 * @internal
 */
export function checkValues(
  input: ArrayLike<number>,
  offset: number,
  joints: number,
  width: number,
  where: string,
): void {
  if (width === 4) {
    for (let j = 0, i = offset; j < joints; j++, i += 4) {
      const x = input[i];
      const y = input[i + 1];
      const z = input[i + 2];
      const w = input[i + 3];
      const n2 = x * x + y * y + z * z + w * w;
      if (!(n2 > 1e-200 && n2 < 1e200)) throwBadQuat(where, x, y, z, w, j);
    }
    return;
  }
  const n = joints * width;
  if (!(input instanceof Float64Array || input instanceof Float32Array))
    checkNumbers(input, offset, n, where);
  // NaN fails the comparison too; one pass with no branch taken for a good sample
  let bad = false;
  for (let i = 0; i < n; i++) if (!(Math.abs(input[offset + i]) <= MAX_LIVE_VALUE)) bad = true;
  if (bad) {
    for (let i = 0; i < n; i++) {
      const v = input[offset + i];
      if (!(Math.abs(v) <= MAX_LIVE_VALUE)) {
        const joint = Math.floor(i / width);
        throw new InvalidValueError(
          `${where}: value ${v} at joint ${joint} is not finite or beyond ±${MAX_LIVE_VALUE}`,
          { joint },
        );
      }
    }
  }
}

function throwBadQuat(where: string, x: number, y: number, z: number, w: number, joint: number): never {
  throw new InvalidValueError(
    `${where}: quaternion (${x}, ${y}, ${z}, ${w}) at joint ${joint} is zero, not finite or out of range`,
    { joint },
  );
}

/**
 * Checks a snapshot's identity and options against the filter's and returns it typed.
 *
 * @internal
 */
export function checkStateHead(
  state: unknown,
  filter: string,
  joints: number,
  width: number,
  options: Record<string, unknown>,
  where: string,
): LiveStateBase {
  if (state === null || typeof state !== 'object') throw new OptionError(`${where}: state must be an object`);
  const s = state as LiveStateBase;
  if (s.filter !== filter) {
    throw new OptionError(
      `${where}: the state is of a '${String(s.filter)}' filter, this is a '${filter}' filter`,
    );
  }
  if (s.joints !== joints || s.width !== width) {
    throw new ShapeError(
      `${where}: the state is for ${String(s.joints)} joints x ${String(s.width)}, this filter has ${joints} x ${width}`,
    );
  }
  const given = s.options ?? {};
  for (const key of Object.keys(options)) {
    if (!sameOption(given[key], options[key])) {
      throw new OptionError(
        `${where}: the state was made with ${key} = ${JSON.stringify(given[key])}, this filter has ${JSON.stringify(options[key])}`,
      );
    }
  }
  if (!(Number.isInteger(s.samples) && s.samples >= 0)) {
    throw new InvalidValueError(`${where}: state.samples must be a non-negative whole number`);
  }
  if (s.samples > 0 && !(typeof s.time === 'number' && Number.isFinite(s.time))) {
    throw new InvalidValueError(`${where}: state.time must be a finite number once samples > 0`);
  }
  return s;
}

function sameOption(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Copies a snapshot array into `dst` after checking its length and that its values are finite numbers within
 * ±{@link MAX_STATE_VALUE}.
 *
 * @internal
 */
export function readStateArray(dst: Float64Array, src: unknown, name: string, where: string): void {
  if (!Array.isArray(src) && !(src instanceof Float64Array)) {
    throw new ShapeError(`${where}: state.${name} must be an array of ${dst.length} numbers`);
  }
  const a = src as ArrayLike<number>;
  if (a.length !== dst.length) {
    throw new ShapeError(`${where}: state.${name} has ${a.length} values, expected ${dst.length}`);
  }
  for (let i = 0; i < dst.length; i++) {
    const v = a[i];
    if (typeof v !== 'number' || !(Math.abs(v) <= MAX_STATE_VALUE)) {
      throw new InvalidValueError(
        `${where}: state.${name}[${i}] is not a finite number within ±${MAX_STATE_VALUE} (${String(v)})`,
      );
    }
  }
  for (let i = 0; i < dst.length; i++) dst[i] = a[i];
}

/**
 * Checks the quaternions of a snapshot array (after {@link readStateArray}) as a pushed sample's: none zero or
 * out of range (squared length within (1e-200, 1e200)); they are kept as they are.
 *
 * @throws {InvalidValueError} naming the array, the quaternion and its joint.
 * @internal
 */
export function checkStateQuaternions(a: Float64Array, joints: number, name: string, where: string): void {
  for (let i = 0; i < a.length; i += 4) {
    const n2 = a[i] * a[i] + a[i + 1] * a[i + 1] + a[i + 2] * a[i + 2] + a[i + 3] * a[i + 3];
    if (!(n2 > 1e-200 && n2 < 1e200)) {
      const joint = (i / 4) % joints;
      throw new InvalidValueError(
        `${where}: state.${name} holds a zero or out-of-range quaternion (number ${i / 4}, joint ${joint})`,
        { joint, index: i / 4 },
      );
    }
  }
}

/**
 * Checks the quaternions of a snapshot array (after {@link readStateArray}) and scales those that are not unit
 * to within 1e-12 to unit length in place, so a filter that keeps its rotations unit by a Newton step can
 * resume from any snapshot; a snapshot the filter made itself is left bit for bit as it was.
 *
 * @throws {InvalidValueError} on a zero quaternion or one out of range.
 * @internal
 */
export function unitStateQuaternions(a: Float64Array, name: string, where: string): void {
  for (let i = 0; i < a.length; i += 4) {
    const n2 = a[i] * a[i] + a[i + 1] * a[i + 1] + a[i + 2] * a[i + 2] + a[i + 3] * a[i + 3];
    if (!(n2 > 1e-200 && n2 < 1e200)) {
      throw new InvalidValueError(
        `${where}: state.${name} holds a zero or out-of-range quaternion at joint ${i / 4}`,
        { joint: i / 4 },
      );
    }
    if (Math.abs(n2 - 1) > 1e-12) {
      const s = 1 / Math.sqrt(n2);
      for (let c = 0; c < 4; c++) a[i + c] *= s;
    }
  }
}

/**
 * The smoothing factor of the first-order low-pass with cutoff `cutoff` Hz over a step of `dt` seconds, as
 * the 1€ paper defines it: `α = 1 / (1 + τ/Tₑ)` with `τ = 1/(2π·cutoff)` and `Tₑ = dt`, written
 * `r / (1 + r)` with `r = 2π·cutoff·dt`. It is the backward-Euler step of `ẏ = 2π·cutoff·(x − y)`.
 *
 * @internal
 */
export function lowPassAlpha(cutoff: number, dt: number): number {
  // capped below overflow (R_MAX): ∞/∞ would be NaN after a clock jump, and 0·∞ for an infinite Δt
  const r = Math.min(Math.min(2 * Math.PI * cutoff, R_MAX) * Math.min(dt, R_MAX), R_MAX);
  return r / (1 + r);
}

/**
 * The largest `r = 2π·cutoff·Δt` (and `2π·Δt`) the filters use: `r/(1 + r)` is exactly 1 long before, so the
 * cap changes no result and keeps a huge `Δt`, cutoff or `beta` from making `∞/∞` or `0·∞`, both NaN.
 * @internal
 */
export const R_MAX = 1e300;
