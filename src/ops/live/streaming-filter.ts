import { InvalidValueError, OptionError } from '../../errors.js';
import { frozenDefaults, type OptionSpec, oneOf, resolveOptions } from '../../options.js';
import type { FloatArray } from '../../series/types.js';
import { isKernel, type Kernel } from '../kernel/kernels.js';
import {
  blendRotations,
  createWindowScratch,
  ROTATION_SPACES,
  type RotationSpace,
} from '../kernel/rotation-blend.js';
import { type TapWindow, ZERO_SUM } from '../kernel/tap-window.js';
import {
  checkJoints,
  checkSample,
  checkStateHead,
  checkStateQuaternions,
  checkValues,
  JOINTS_RULE,
  type LiveFilter,
  type LiveStateBase,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
} from './live-contract.js';
import { StreamClock } from './stream-clock.js';

/** Where a streaming FIR filter places its output relative to the newest sample. */
export type StreamingAlignment = 'centred' | 'causal';

/** Options of {@link createStreamingFilter}. */
export interface StreamingFilterOptions {
  /** Rotations per sample. Required. */
  joints: number;
  /** Where the weighted sums are taken, as `filterRotations`'s `space`. Default `'raw'`. */
  space?: RotationSpace;
  /**
   * `'centred'` (default): the kernel as it is; the output is the filtered sample `floor(radius)` samples back
   * (the latency, half the kernel width). `'causal'`: only the kernel's past half (`x ≥ 0`, see
   * {@link causalKernel}); the output is the filtered newest sample, no latency.
   */
  alignment?: StreamingAlignment;
  /**
   * What taps before the first sample read: `'renormalize'` (default, dropped), `'clamp'` (the first sample)
   * or `'reflect'` (mirrored about the first sample), as `filterRotations`'s `boundary` at the start.
   */
  boundary?: 'renormalize' | 'clamp' | 'reflect';
  /** What a sample whose time is not after the previous one's does; see `common.ts`. Default `'error'`. */
  staleSample?: StaleSamplePolicy;
}

/** Defaults of {@link StreamingFilterOptions} (frozen; `joints` has none). */
export const STREAMING_FILTER_DEFAULTS: Readonly<Required<Omit<StreamingFilterOptions, 'joints'>>> =
  frozenDefaults({
    space: 'raw',
    alignment: 'centred',
    boundary: 'renormalize',
    staleSample: 'error',
  });

const STREAMING_FILTER_SPEC: OptionSpec = {
  joints: JOINTS_RULE,
  space: oneOf(ROTATION_SPACES),
  alignment: oneOf(['centred', 'causal']),
  boundary: oneOf(['renormalize', 'clamp', 'reflect']),
  staleSample: oneOf(STALE_SAMPLE_POLICIES),
};

/** Snapshot of a streaming FIR filter (see {@link LiveFilter.getState}). */
export interface StreamingFilterState extends LiveStateBase {
  filter: 'fir';
  /** The kernel's name (checked on `setState`; the kernel itself is the filter's). */
  kernel: string;
  /** The retained input samples, oldest first, `joints · 4` each (at most the window length). */
  window: number[];
  /** Timestamps of the retained samples, oldest first. */
  times: number[];
}

/** A streaming FIR filter; see {@link createStreamingFilter}. */
export interface StreamingFilter extends LiveFilter<StreamingFilterState> {
  /** Samples between the newest input and the sample the output belongs to: `floor(radius)` or 0. */
  readonly latency: number;
  /** Whether the last push wrote a filtered sample (false while the first `latency` samples arrive). */
  readonly ready: boolean;
  /** Index (0-based, since the first sample) of the sample the last output belongs to, -1 before any. */
  readonly outputIndex: number;
  /** Timestamp of the sample the last output belongs to, `null` before any. */
  readonly outputTime: number | null;
}

/**
 * The past half of a kernel: `k(x)` for `x ≥ 0` (the current and earlier samples, since the weight of source
 * sample `i` for output `f` is `k(f − i)`), zero for `x < 0`. Filtering with it uses no future sample, so a
 * stream can be filtered without latency; `filterRotations(series, causalKernel(k))` is the offline equal of
 * `createStreamingFilter(k, { alignment: 'causal' })`.
 *
 * @throws {OptionError} when `kernel` is not a kernel.
 * @example
 * const k = causalKernel(kernels.gaussian(2)); // k.evaluate(-1) === 0
 */
export function causalKernel(kernel: Kernel): Kernel {
  if (!isKernel(kernel)) throw new OptionError('causalKernel: kernel must be a Kernel (see kernels)');
  return Object.freeze({
    name: `causal(${kernel.name})`,
    radius: kernel.radius,
    evaluate(x: number): number {
      return x < 0 ? 0 : kernel.evaluate(x);
    },
  });
}

/**
 * Creates an FIR filter that applies one of rotsig's kernels to a live stream of `joints` rotations, with the
 * same weighted sums as the offline {@link filterRotations} (`space` raw, log or eigen). The kernel is in
 * samples (like offline frames): irregular timestamps are not resampled, they only travel with their samples.
 *
 * Latency: with `alignment: 'centred'`, the output of a push is the filtered sample `L = floor(radius)`
 * samples back (its index and time are `outputIndex`, `outputTime`); for the first `L` pushes there is none
 * yet, `ready` is false and `out` receives the first sample as given. Once ready, push `n` equals frame
 * `n − L` of `filterRotations(series, kernel, { space, boundary })` on the samples so far (boundary at the
 * start as chosen; at the end the stream has not ended, so the offline frames of the last `L` samples, which
 * read the end boundary, have no streaming equal). With `'causal'`, push `n` equals frame `n` of
 * `filterRotations(series, causalKernel(kernel), …)`, with no latency. Equality is to rounding (the offline
 * fast paths sum in another order; measured below 1e-15).
 *
 * Cost: one pass over the window's taps per joint and sample, no allocation per sample.
 *
 * Method: D. Holden, "Filtering, Convolutions, and Quaternions" (2025), as `filterRotations`.
 *
 * @param options - Defaults in {@link STREAMING_FILTER_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on a bad kernel, space, alignment, boundary or an unknown option name.
 * @example
 * const fir = createStreamingFilter(kernels.gaussian(2), { joints: 24 });
 * const poses = randomQuatSeries(100, 24, { seed: 7 }); // stands in for a live source
 * const out = new Float64Array(24 * 4);
 * for (let f = 0; f < poses.frames; f++)
 *   fir.push(out, poses.data.subarray(f * 96, (f + 1) * 96), f / 60); // out = the pose of fir.outputTime, fir.latency (6) samples ago, smoothed
 */
export function createStreamingFilter(kernel: Kernel, options: StreamingFilterOptions): StreamingFilter {
  const where = 'createStreamingFilter';
  if (!isKernel(kernel)) throw new OptionError(`${where}: kernel must be a Kernel (see kernels)`);
  const o = resolveOptions(where, options, STREAMING_FILTER_DEFAULTS, STREAMING_FILTER_SPEC);
  const joints = checkJoints(o.joints, where);
  const { space, alignment, boundary, staleSample } = o;
  const resolved = { space, alignment, boundary, staleSample };
  const R = Math.floor(kernel.radius);
  const latency = alignment === 'centred' ? R : 0;
  // weights at the integer offsets −R..R, as the offline engine's table (causal: zero for x < 0)
  const table = new Float64Array(2 * R + 1);
  for (let k = -R; k <= R; k++) {
    const v = alignment === 'causal' && k < 0 ? 0 : kernel.evaluate(k);
    if (!Number.isFinite(v)) throw new OptionError(`${where}: kernel ${kernel.name} is not finite at ${k}`);
    table[k + R] = v;
  }
  const capacity = latency + R + 1; // samples a window can reach back from the newest
  const stride = joints * 4;
  const ring = new Float64Array(capacity * stride);
  const times = new Float64Array(capacity);
  const win: TapWindow = {
    kernel,
    frames: capacity,
    boundary: 'renormalize',
    tapFrames: new Int32Array(2 * R + 2),
    tapWeights: new Float64Array(2 * R + 2),
    tapOffsets: new Int32Array(2 * R + 2),
    count: 0,
    weightSum: 0,
    reference: 0,
    centre: 0,
    table,
    tableRadius: R,
    radius: R,
  };
  const scratch = createWindowScratch();
  const first = new Float64Array(stride);
  // the last output, so that a held (stale) sample can repeat it
  const held = new Float64Array(stride);
  const writeOutput = (out: FloatArray, outOffset: number) => {
    for (let i = 0; i < stride; i++) out[outOffset + i] = held[i];
  };

  const clock = new StreamClock(staleSample, 'StreamingFilter.push');
  let outputIndex = -1;

  /** Ring slot of absolute sample `i` (which must be retained). */
  const slot = (i: number) => i % capacity;

  /** Fills the taps of output sample `c` given the newest sample `newest`, as the offline `placeTaps`. */
  const placeAt = (c: number, newest: number): void => {
    let count = 0;
    let sum = 0;
    let absSum = 0;
    let lastFrame = -2;
    for (let i = c - R; i <= Math.min(c + R, newest); i++) {
      const w = table[c - i + R];
      if (w === 0) continue;
      let f = i;
      if (i < 0) {
        if (boundary === 'renormalize') continue;
        f = boundary === 'clamp' ? 0 : Math.min(-i, newest);
      }
      const s = slot(f);
      if (f === lastFrame) {
        win.tapWeights[count - 1] += w;
      } else {
        win.tapFrames[count] = s;
        win.tapWeights[count] = w;
        count++;
        lastFrame = f;
      }
      sum += w;
      absSum += Math.abs(w);
    }
    win.count = count;
    win.weightSum = sum;
    win.reference = slot(c);
    win.centre = c;
    if (count === 0 || !(Math.abs(sum) > ZERO_SUM * absSum)) {
      throw new InvalidValueError(
        `StreamingFilter.push: the tap weights of kernel ${kernel.name} at sample ${c} sum to zero`,
        { frame: c },
      );
    }
  };

  const pushAt = <T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): T => {
    checkSample(out, outOffset, input, inputOffset, stride, 'StreamingFilter.push');
    const dt = clock.step(time);
    if (dt < 0) {
      if (outputIndex >= 0) writeOutput(out, outOffset);
      else for (let i = 0; i < stride; i++) out[outOffset + i] = first[i];
      return out;
    }
    checkValues(input, inputOffset, joints, 4, 'StreamingFilter.push');
    const n = clock.samples;
    const so = slot(n) * stride;
    for (let i = 0; i < stride; i++) ring[so + i] = input[inputOffset + i];
    times[slot(n)] = time;
    if (n === 0) for (let i = 0; i < stride; i++) first[i] = input[inputOffset + i];
    clock.accept(time);
    const c = n - latency;
    if (c < 0) {
      for (let i = 0; i < stride; i++) out[outOffset + i] = first[i];
      return out;
    }
    placeAt(c, n);
    blendRotations(held, 0, ring, joints, win, space, scratch);
    outputIndex = c;
    writeOutput(out, outOffset);
    return out;
  };

  return {
    joints,
    width: 4,
    latency,
    get samples() {
      return clock.samples;
    },
    get ready() {
      return outputIndex >= 0;
    },
    get outputIndex() {
      return outputIndex;
    },
    get outputTime() {
      return outputIndex >= 0 ? times[slot(outputIndex)] : null;
    },
    push: (out, input, time) => pushAt(out, 0, input, 0, time),
    pushAt,
    reset() {
      clock.reset();
      outputIndex = -1;
      ring.fill(0);
      times.fill(0);
      held.fill(0);
      first.fill(0);
    },
    getState(): StreamingFilterState {
      const kept = Math.min(clock.samples, capacity);
      const values: number[] = [];
      const ts: number[] = [];
      for (let i = clock.samples - kept; i < clock.samples; i++) {
        const o = slot(i) * stride;
        for (let k = 0; k < stride; k++) values.push(ring[o + k]);
        ts.push(times[slot(i)]);
      }
      return {
        filter: 'fir',
        joints,
        width: 4,
        options: { ...resolved },
        kernel: kernel.name,
        ...clock.head(),
        window: values,
        times: ts,
      };
    },
    setState(state: StreamingFilterState) {
      const where = 'StreamingFilter.setState';
      const s = checkStateHead(state, 'fir', joints, 4, resolved, where);
      if (state.kernel !== kernel.name) {
        throw new OptionError(
          `${where}: the state is of kernel ${String(state.kernel)}, this filter has ${kernel.name}`,
        );
      }
      const kept = Math.min(s.samples, capacity);
      const w = new Float64Array(kept * stride);
      const t = new Float64Array(kept);
      readStateArray(w, state.window, 'window', where);
      readStateArray(t, state.times, 'times', where);
      // the retained samples as pushed samples are checked: a zero one would blend to a zero output
      checkStateQuaternions(w, joints, 'window', where);
      // the first sample is kept only while it is in the window; later it is never read again
      for (let k = 0; k < kept; k++) {
        const i = s.samples - kept + k;
        ring.set(w.subarray(k * stride, (k + 1) * stride), slot(i) * stride);
        times[slot(i)] = t[k];
      }
      clock.restore(s);
      if (clock.samples > 0 && clock.samples <= capacity) first.set(w.subarray(0, stride));
      const c = clock.samples - 1 - latency;
      outputIndex = c >= 0 ? c : -1;
      if (outputIndex >= 0) {
        placeAt(outputIndex, clock.samples - 1);
        blendRotations(held, 0, ring, joints, win, space, scratch);
      }
    },
  };
}
