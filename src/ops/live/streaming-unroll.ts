import { InvalidValueError, OptionError } from '../../errors.js';
import { customRule, frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { EulerOrder } from '../../quat/euler.js';
import type { FloatArray } from '../../series/types.js';
import { type EulerUnrollMode, eulerJointInfo, followTriple } from '../unroll/unroll-kernels.js';
import {
  checkJoints,
  checkSample,
  checkStateHead,
  JOINTS_RULE,
  type LiveFilter,
  type LiveStateBase,
  liveFilter,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
} from './live-contract.js';
import { StreamClock } from './stream-clock.js';

/** Options of {@link createStreamingUnroll}. */
export interface StreamingUnrollOptions {
  /** Rotations per sample. Required. */
  joints: number;
  /** `'quaternion'` (default): 4 values per joint, signs made continuous; `'euler'`: 3 angles per joint (radians). */
  representation?: 'quaternion' | 'euler';
  /** Quaternions: sign policy of the first sample, as `unrollQuaternions`'s `first`. Default `'hemisphere'`. */
  first?: 'hemisphere' | 'keep';
  /** Euler angles: the sequence (one for all joints, or one per joint). Required for `'euler'`. */
  order?: EulerOrder | readonly EulerOrder[];
  /** Euler angles: `'equivalent'` (default) or `'wrap'`, as `unrollEuler`'s `mode`. */
  mode?: EulerUnrollMode;
  /** Euler angles: the reference triple per joint for the first sample, as `unrollEuler`'s `initial`. */
  initial?: ArrayLike<number> | null;
  /** What a sample whose time is not after the previous one's does; see `common.ts`. Default `'error'`. */
  staleSample?: StaleSamplePolicy;
}

/**
 * Defaults of {@link StreamingUnrollOptions} (frozen; `joints` and `order` have none). An option of the other
 * representation (`first` for Euler angles; `mode`, `initial` for quaternions) is accepted at its default.
 */
export const STREAMING_UNROLL_DEFAULTS: Readonly<Required<Omit<StreamingUnrollOptions, 'joints' | 'order'>>> =
  frozenDefaults({
    representation: 'quaternion',
    first: 'hemisphere',
    mode: 'equivalent',
    initial: null,
    staleSample: 'error',
  });

const STREAMING_UNROLL_SPEC: OptionSpec = {
  joints: JOINTS_RULE,
  representation: oneOf(['quaternion', 'euler']),
  first: oneOf(['hemisphere', 'keep']),
  order: customRule(
    "an Euler order such as 'ZYX' or an array of one per joint",
    (v) => typeof v === 'string' || Array.isArray(v),
  ),
  mode: oneOf(['equivalent', 'wrap']),
  initial: customRule(
    'an array of numbers or null',
    (v) => v === null || (typeof v === 'object' && typeof (v as ArrayLike<number>).length === 'number'),
  ),
  staleSample: oneOf(STALE_SAMPLE_POLICIES),
};

/** Snapshot of a streaming unroll (see {@link LiveFilter.getState}). */
export interface StreamingUnrollState extends LiveStateBase {
  filter: 'unroll';
  /** The previous output sample (the whole state). */
  output: number[];
}

/** A streaming unroll; see {@link createStreamingUnroll}. */
export type StreamingUnroll = LiveFilter<StreamingUnrollState>;

/**
 * Creates the sample-by-sample form of {@link unrollQuaternions} (hemisphere continuity) or {@link unrollEuler}
 * (the Euler filter): its only state is the previous output sample, and the outputs equal the offline
 * operation's frames on the same data bit for bit.
 *
 * - Quaternions: each quaternion is negated when its dot product with the previous output of the same joint is
 *   negative; the first follows `first` (`'hemisphere'`: `w ≥ 0`). Only signs change.
 * - Euler angles: each triple is replaced by the triple of the same rotation closest to the previous output
 *   (`mode: 'equivalent'`), or only shifted by whole turns per channel (`'wrap'`); the first is moved to
 *   `initial`'s shell and branch when given. Multi-turn motion is kept.
 *
 * Time is only checked (see `common.ts`); the unroll does not depend on it.
 *
 * Method: D. Holden, "Unrolling Rotations" (2024); the Euler filter of Blender and Maya.
 *
 * @param options - Defaults in {@link STREAMING_UNROLL_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on a missing or invalid option or an unknown option name.
 * @example
 * const unroll = createStreamingUnroll({ joints: 1 });
 * const out = new Float64Array(4);
 * unroll.push(out, [0, 0, 0.1, 0.995], 0);
 * unroll.push(out, [0, 0, -0.2, -0.98], 1 / 30); // out = (0, 0, 0.2, 0.98)
 */
export function createStreamingUnroll(options: StreamingUnrollOptions): StreamingUnroll {
  const where = 'createStreamingUnroll';
  const o = resolveOptions(where, options, STREAMING_UNROLL_DEFAULTS, STREAMING_UNROLL_SPEC);
  const joints = checkJoints(o.joints, where);
  const { representation, staleSample } = o;
  const euler = representation === 'euler';
  const width = euler ? 3 : 4;
  const n = joints * width;
  let resolved: Record<string, unknown>;
  let hemisphere = true;
  let info: Int8Array | null = null;
  let equivalent = true;
  let initial: Float64Array | null = null;
  if (euler) {
    if (o.order === undefined) throw new OptionError(`${where}: Euler angles need an order`);
    info = eulerJointInfo(o.order, joints, where);
    const mode = o.mode;
    equivalent = mode === 'equivalent';
    if (o.first !== STREAMING_UNROLL_DEFAULTS.first)
      throw new OptionError(`${where}: first applies to quaternions only`);
    if (o.initial !== null) {
      if (o.initial.length !== n) {
        throw new OptionError(
          `${where}: initial has ${o.initial.length} values, expected ${n} (3 per joint)`,
        );
      }
      initial = Float64Array.from(o.initial);
      for (let i = 0; i < n; i++) {
        if (!Number.isFinite(initial[i])) throw new OptionError(`${where}: initial[${i}] is not finite`);
      }
    }
    resolved = {
      representation,
      order: Array.isArray(o.order) ? [...o.order] : o.order,
      mode,
      initial: initial ? Array.from(initial) : null,
      staleSample,
    };
  } else {
    if (o.order !== undefined || o.mode !== STREAMING_UNROLL_DEFAULTS.mode || o.initial !== null) {
      throw new OptionError(`${where}: order, mode and initial apply to Euler angles only`);
    }
    const first = o.first;
    hemisphere = first === 'hemisphere';
    resolved = { representation, first, staleSample };
  }
  const output = new Float64Array(n);
  const clock = new StreamClock(staleSample, 'StreamingUnroll.push');

  const pushAt = <T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): T => {
    checkSample(out, outOffset, input, inputOffset, n, 'StreamingUnroll.push');
    const dt = clock.step(time);
    if (dt >= 0) {
      checkFinite(input, inputOffset, n, width);
      if (euler)
        eulerStep(
          output,
          input,
          inputOffset,
          joints,
          info!,
          equivalent,
          clock.samples === 0 ? initial : output,
          clock.samples === 0,
        );
      else quaternionStep(output, input, inputOffset, n, clock.samples === 0, hemisphere);
      clock.accept(time);
    }
    for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
    return out;
  };

  return liveFilter(joints, width, clock, pushAt, {
    reset() {
      clock.reset();
      output.fill(0);
    },
    getState(): StreamingUnrollState {
      return {
        filter: 'unroll',
        joints,
        width,
        options: { ...resolved },
        ...clock.head(),
        output: Array.from(output),
      };
    },
    setState(state: StreamingUnrollState) {
      const where = 'StreamingUnroll.setState';
      const s = checkStateHead(state, 'unroll', joints, width, resolved, where);
      const o = new Float64Array(n);
      readStateArray(o, state.output, 'output', where);
      output.set(o);
      clock.restore(s);
    },
  });
}

function checkFinite(input: ArrayLike<number>, offset: number, n: number, width: number): void {
  for (let i = 0; i < n; i++) {
    const v = input[offset + i];
    if (!Number.isFinite(v)) {
      const joint = Math.floor(i / width);
      throw new InvalidValueError(`StreamingUnroll.push: non-finite value ${v} at joint ${joint}`, { joint });
    }
  }
}

function quaternionStep(
  output: Float64Array,
  input: ArrayLike<number>,
  offset: number,
  n: number,
  first: boolean,
  hemisphere: boolean,
): void {
  for (let i = 0; i < n; i += 4) {
    const x = input[offset + i];
    const y = input[offset + i + 1];
    const z = input[offset + i + 2];
    const w = input[offset + i + 3];
    // the offline kernel's rules: first sample by w (or kept); later ones by the dot with the previous output
    const s = first
      ? hemisphere && w < 0
        ? -1
        : 1
      : x * output[i] + y * output[i + 1] + z * output[i + 2] + w * output[i + 3] < 0
        ? -1
        : 1;
    output[i] = s * x;
    output[i + 1] = s * y;
    output[i + 2] = s * z;
    output[i + 3] = s * w;
  }
}

function eulerStep(
  output: Float64Array,
  input: ArrayLike<number>,
  offset: number,
  joints: number,
  info: Int8Array,
  equivalent: boolean,
  reference: Float64Array | null,
  first: boolean,
): void {
  for (let j = 0, i = 0; j < joints; j++, i += 3) {
    const a = input[offset + i];
    const b = input[offset + i + 1];
    const c = input[offset + i + 2];
    if (first && reference === null) {
      output[i] = a;
      output[i + 1] = b;
      output[i + 2] = c;
    } else {
      // in place against the previous output: followTriple reads the reference before it writes
      followTriple(output, i, a, b, c, reference!, i, info, j * 3, equivalent);
    }
  }
}
