import { InvalidValueError } from '../../errors.js';
import { copySample, createSimdState, SIMD_MAX_JOINTS, type SimdState } from '../../numeric/simd.js';
import {
  frozenDefaults,
  NON_NEGATIVE_NUMBER,
  type OptionSpec,
  oneOf,
  POSITIVE_NUMBER,
  resolveOptions,
} from '../../options.js';
import type { FloatArray } from '../../series/types.js';
import {
  checkJoints,
  checkSample,
  checkStateHead,
  checkValues,
  JOINTS_RULE,
  type LiveFilter,
  type LiveStateBase,
  liveFilter,
  lowPassAlpha,
  R_MAX,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
  streamWidth,
  unitStateQuaternions,
  WIDTH_RULE,
} from './live-contract.js';
import { StreamClock } from './stream-clock.js';
import { cosOfSquare, logScale, sinc, unitInto } from './tangent.js';

/** Where the One Euro filter takes the speed that opens its cutoff (see {@link OneEuroOptions.derivative}). */
export type OneEuroDerivative = 'input' | 'output';

/** Options of {@link createOneEuroFilter}. */
export interface OneEuroOptions {
  /** Rotations (or vectors) per sample. Required. */
  joints: number;
  /** `'rotation'` (default): unit quaternions `x, y, z, w`; `'vector'`: `width` plain values per joint. */
  kind?: 'rotation' | 'vector';
  /** Values per joint for `kind: 'vector'` (3 for positions, 1 for a scalar). Default 3; rotations use 4. */
  width?: number;
  /** Cutoff in Hz at rest (the paper's `fcmin`): lower removes more jitter and adds more lag. Default 1. */
  minCutoff?: number;
  /**
   * How fast the cutoff opens with speed (the paper's `β`), in Hz per unit of speed: rad/s for rotations, input
   * units per second for vectors. `cutoff = minCutoff + beta·|speed|`. Default 0 (a plain low-pass).
   */
  beta?: number;
  /** Cutoff in Hz of the low-pass on the speed estimate (the paper's `dcutoff`). Default 1. */
  dCutoff?: number;
  /**
   * The displacement the speed is measured from. `'input'` (default): consecutive input samples,
   * `(xₖ − xₖ₋₁)/Δt`, as the authors' 2012 reference code (and MediaPipe) do; it is the signal's own speed, so the
   * filter converges to one continuous filter as the rate grows (frame-rate independent within the bound
   * stated in the README). `'output'`: from the previous output, `(xₖ − x̂ₖ₋₁)/Δt`, as in the paper's
   * pseudocode (`hatxprev`) and the authors' code since 2023; this speed includes the lag divided by `Δt`,
   * so with `beta > 0` the cutoff, and the output, depend strongly on the frame rate.
   */
  derivative?: OneEuroDerivative;
  /** What a sample whose time is not after the previous one's does; see `common.ts`. Default `'error'`. */
  staleSample?: StaleSamplePolicy;
}

/**
 * Defaults of {@link OneEuroOptions} (frozen; the paper's starting point: `minCutoff` 1 Hz, `beta` 0,
 * `dCutoff` 1 Hz). `joints` has none; `width` is 3 for vectors and always 4 for rotations.
 */
export const ONE_EURO_DEFAULTS: Readonly<Required<Omit<OneEuroOptions, 'joints' | 'width'>>> = frozenDefaults(
  {
    kind: 'rotation',
    minCutoff: 1,
    beta: 0,
    dCutoff: 1,
    derivative: 'input',
    staleSample: 'error',
  },
);

const ONE_EURO_SPEC: OptionSpec = {
  joints: JOINTS_RULE,
  kind: oneOf(['rotation', 'vector']),
  width: WIDTH_RULE,
  minCutoff: POSITIVE_NUMBER,
  beta: NON_NEGATIVE_NUMBER,
  dCutoff: POSITIVE_NUMBER,
  derivative: oneOf(['input', 'output']),
  staleSample: oneOf(STALE_SAMPLE_POLICIES),
};

/** Snapshot of a One Euro filter (see {@link LiveFilter.getState}). */
export interface OneEuroState extends LiveStateBase {
  filter: 'one-euro';
  /** The last output, `joints · width` values. */
  output: number[];
  /** The last input (unit quaternions for rotations), `joints · width` values. */
  input: number[];
  /** The low-passed speed per joint: 3 components (rad/s, world frame) for rotations, `width` for vectors. */
  speed: number[];
}

/** A One Euro filter over a stream; see {@link createOneEuroFilter}. */
export type OneEuroFilter = LiveFilter<OneEuroState>;

/**
 * Creates a One Euro filter (1€ filter) for a stream of `joints` rotations or vectors: a first-order low-pass
 * whose cutoff rises with the signal's speed, so that slow motion (jitter) is smoothed hard and fast motion
 * follows with little lag.
 *
 * Per sample, with `Δt` the time since the previous sample:
 * 1. the displacement `d` from the previous output `ŷ` to the input `x`: for rotations the rotation vector of
 *    `x ⊗ ŷ⁻¹` (world frame, from the `w ≥ 0` representative, so the sign of `x` never matters), for vectors
 *    `x − ŷ`;
 * 2. the speed `ẋ = d/Δt` (or from the previous input, see {@link OneEuroOptions.derivative}), low-passed:
 *    `ê ← ê + α(dCutoff)·(ẋ − ê)`;
 * 3. `cutoff = minCutoff + beta·|ê|` and `α = r/(1 + r)`, `r = 2π·cutoff·Δt`;
 * 4. the low-pass as a geodesic step: `ŷ ← exp(α·d/2) ⊗ ŷ` for rotations (slerp from `ŷ` towards `x` by `α`),
 *    `ŷ ← α·x + (1 − α)·ŷ` for vectors.
 * The first sample is passed through (rotations: unit length, `w ≥ 0`); every later output lies in the
 * hemisphere of the one before, so the output is continuous whatever signs the input has. Each output step is
 * the fraction `α ≤ 1` of the way from the previous output to the input, so the output never turns past the
 * input.
 *
 * Frame rate: the low-pass is the backward-Euler step of `ẏ = 2π·cutoff·(x − y)`, exact for a ramp (the
 * steady lag of a constant-speed spin is `ω / (2π·(minCutoff + beta·ω))` at every rate) and first-order
 * accurate in `Δt` otherwise, so outputs at different rates agree to `O(Δt)`, not exactly; the README states
 * the measured spread.
 *
 * Cost: about the figures in `bench/results` per joint and sample. Rotations run two joints per instruction in
 * WebAssembly SIMD where the engine has it (Node 20, current browsers; `simd.wat`), the state in the kernel's
 * own memory, with fdlibm's reductions for large angles; the output agrees with the JavaScript loop, which
 * vectors and other engines run, to about an ulp (tested to 1e-13). No allocation per sample, except one
 * `subarray` view when a rotation sample is part of a larger typed array (`pushAt` with an offset).
 *
 * Method: G. Casiez, N. Roussel, D. Vogel, "1€ Filter: A Simple Speed-based Low-pass Filter for Noisy Input in
 * Interactive Systems" (CHI 2012), Algorithm 1; the rotation form in the tangent space of the previous output
 * (geodesic step, hemisphere-free speed from the log of the relative rotation) is rotsig's.
 *
 * @param options - Defaults in {@link ONE_EURO_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {OptionError} on a missing or invalid option or an unknown option name.
 * @example
 * const filter = createOneEuroFilter({ joints: 1, minCutoff: 1, beta: 0.5 });
 * const out = new Float64Array(4);
 * filter.push(out, [0, 0, 0, 1], 0);
 * filter.push(out, [0, 0.0998, 0, 0.995], 1 / 60); // a little of the way towards the new rotation
 */
export function createOneEuroFilter(options: OneEuroOptions): OneEuroFilter {
  const where = 'createOneEuroFilter';
  const o = resolveOptions(where, options, ONE_EURO_DEFAULTS, ONE_EURO_SPEC);
  const joints = checkJoints(o.joints, where);
  const { kind, minCutoff, beta, dCutoff, derivative, staleSample } = o;
  const width = streamWidth(kind, o.width, where);
  // the speed per joint: 3 components for rotations, kept at a stride of 4 (the 4th unused) so the rotation loop
  // indexes every array alike; `width` for vectors
  const speedWidth = kind === 'rotation' ? 3 : width;
  const speedStride = kind === 'rotation' ? 4 : width;
  const resolved = { kind, width, minCutoff, beta, dCutoff, derivative, staleSample };
  const fromInput = derivative === 'input';
  const n = joints * width;
  // rotations run in WebAssembly SIMD where the engine has it, with the state in the kernel's memory (updated
  // in place, the sample checked first); see simd.ts. The JavaScript loop writes the new input and speed
  // beside the current ones and swaps them in once the whole sample is known to be valid
  const simd = kind === 'rotation' && joints <= SIMD_MAX_JOINTS ? createSimdOneEuro(joints) : null;
  const output = simd !== null ? simd.view.output : new Float64Array(n);
  let previous: Float64Array = simd !== null ? simd.view.previous : new Float64Array(n);
  let previousNext: Float64Array = new Float64Array(kind === 'rotation' && simd === null ? n : 0);
  let speed: Float64Array = simd !== null ? simd.view.speed : new Float64Array(joints * speedStride);
  let speedNext: Float64Array = new Float64Array(kind === 'rotation' && simd === null ? speed.length : 0);
  const steps = new Float64Array(kind === 'rotation' ? n : 0);
  const clock = new StreamClock(staleSample, 'OneEuroFilter.push');

  const pushAt = <T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): T => {
    checkSample(out, outOffset, input, inputOffset, n, 'OneEuroFilter.push');
    const dt = clock.step(time);
    if (dt < 0) {
      for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
      return out;
    }
    if (kind === 'vector') checkValues(input, inputOffset, joints, width, 'OneEuroFilter.push');
    if (clock.samples === 0) {
      if (kind === 'rotation') {
        checkValues(input, inputOffset, joints, 4, 'OneEuroFilter.push');
        for (let j = 0; j < joints; j++) unitInto(output, j * 4, input, inputOffset + j * 4, true);
      } else {
        for (let i = 0; i < n; i++) output[i] = input[inputOffset + i];
      }
      previous.set(output);
      speed.fill(0);
    } else if (simd !== null) {
      pushSimd(simd, out, outOffset, input, inputOffset, dt, minCutoff, beta, dCutoff, fromInput);
      clock.accept(time);
      return out;
    } else if (kind === 'rotation') {
      const valid = oneEuroRotations(
        out,
        outOffset,
        output,
        previous,
        previousNext,
        speed,
        speedNext,
        steps,
        input,
        inputOffset,
        joints,
        dt,
        minCutoff,
        beta,
        dCutoff,
        fromInput,
      );
      // a bad quaternion: throw naming it, with the state as it was
      if (!valid) checkValues(input, inputOffset, joints, 4, 'OneEuroFilter.push');
      const p = previous;
      previous = previousNext;
      previousNext = p;
      const e = speed;
      speed = speedNext;
      speedNext = e;
      clock.accept(time);
      return out;
    } else {
      oneEuroVectors(
        out,
        outOffset,
        output,
        previous,
        speed,
        input,
        inputOffset,
        joints,
        width,
        dt,
        minCutoff,
        beta,
        dCutoff,
        fromInput,
      );
      clock.accept(time);
      return out;
    }
    clock.accept(time);
    for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
    return out;
  };

  return liveFilter(joints, width, clock, pushAt, {
    reset() {
      clock.reset();
      output.fill(0);
      previous.fill(0);
      speed.fill(0);
    },
    getState(): OneEuroState {
      return {
        filter: 'one-euro',
        joints,
        width,
        options: { ...resolved },
        ...clock.head(),
        output: Array.from(output),
        input: Array.from(previous),
        speed: Array.from(speedStride === speedWidth ? speed : speed.filter((_, i) => (i & 3) !== 3)),
      };
    },
    setState(state: OneEuroState) {
      const where = 'OneEuroFilter.setState';
      const s = checkStateHead(state, 'one-euro', joints, width, resolved, where);
      const o = new Float64Array(n);
      const p = new Float64Array(n);
      const e = new Float64Array(joints * speedWidth);
      readStateArray(o, state.output, 'output', where);
      readStateArray(p, state.input, 'input', where);
      readStateArray(e, state.speed, 'speed', where);
      // before the first sample the arrays are unused (zeros after a reset)
      if (kind === 'rotation' && s.samples > 0) {
        unitStateQuaternions(o, 'output', where);
        unitStateQuaternions(p, 'input', where);
      }
      output.set(o);
      previous.set(p);
      if (speedStride === speedWidth) speed.set(e);
      else for (let j = 0; j < joints; j++) speed.set(e.subarray(j * 3, j * 3 + 3), j * 4);
      clock.restore(s);
    },
  });
}

/** Where {@link stepConstants} writes. */
const STEP = new Float64Array(4);

/**
 * The constants of one step of `dt` seconds, shared by the joints and the three kernels (rotations, vectors,
 * SIMD), written to a module buffer it returns (valid until the next call): the speed low-pass's `ad/dt` and
 * `1 − ad` (`ad` its smoothing factor at `dCutoff`), and `2π·dt·minCutoff` and `2π·dt·beta` (each capped at
 * {@link R_MAX}), from which each joint's cutoff term is formed.
 */
function stepConstants(dt: number, minCutoff: number, beta: number, dCutoff: number): Float64Array {
  const ad = lowPassAlpha(dCutoff, dt);
  const w2 = Math.min(2 * Math.PI * dt, R_MAX);
  STEP[0] = ad / dt;
  STEP[1] = 1 - ad;
  STEP[2] = Math.min(w2 * minCutoff, R_MAX);
  STEP[3] = Math.min(w2 * beta, R_MAX);
  return STEP;
}

/**
 * One sample of the rotation filter for every joint (after the first sample); returns `false`, having changed
 * nothing but scratch, when a quaternion of the sample is zero or not finite.
 *
 * The loop is the whole cost of the filter, so the tangent-space steps of `tangent.ts` are written out in it
 * (no call, no boxed double) and shaped for the processor:
 * - the logarithms are taken of the unnormalised relative rotation `(v, w)`, whose `2·atan2(|v|, w)/|v|·v` does
 *   not depend on its length, so the input's `1/|x|` (a square root and a division) is off the chain of
 *   dependent operations; its factor `2·atan(|v|/w)/(|v|/w)/w` is taken with `1/w`, which carries the sign of
 *   `w`, so `r` and `−r` give the same rotation vector bit for bit without a branch on the sign (random signs
 *   would make such a branch unpredictable);
 * - the polynomials (fdlibm's, as in `tangent.ts`) are written out with their coefficients and evaluated in
 *   Estrin's scheme, a third of Horner's dependency depth;
 * - the geodesic step runs in a second pass over the joints, so each pass's dependency chain per joint is half
 *   as long and the processor overlaps more joints;
 * - the output is renormalised by one Newton step of `1/√n²` from 1 instead of a square root and a division
 *   (the product of two unit quaternions has `n² = 1` to rounding, where that step's error `(3/8)·(n² − 1)²` is
 *   below 1e-30).
 * The new input and speed go to `previousNext` and `speedNext`, which the caller swaps in on success.
 */
function oneEuroRotations(
  out: FloatArray,
  outOffset: number,
  output: Float64Array,
  previous: Float64Array,
  previousNext: Float64Array,
  speed: Float64Array,
  speedNext: Float64Array,
  steps: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  joints: number,
  dt: number,
  minCutoff: number,
  beta: number,
  dCutoff: number,
  fromInput: boolean,
): boolean {
  const k = stepConstants(dt, minCutoff, beta, dCutoff);
  const adv = k[0];
  const bd = k[1];
  const w2min = k[2];
  const w2beta = k[3];
  let valid = true;
  for (let j = 0; j < joints; j++) {
    // q | c: the joint's c-th value without an overflow-checked addition (q is a multiple of 4)
    const q = j << 2;
    const o = inputOffset + q;
    const ax = input[o];
    const ay = input[o + 1];
    const az = input[o + 2];
    const aw = input[o + 3];
    const n2 = ax * ax + ay * ay + az * az + aw * aw;
    if (!(n2 > 1e-200 && n2 < 1e200)) valid = false;
    const ni = 1 / Math.sqrt(n2);
    previousNext[q] = ax * ni;
    previousNext[q | 1] = ay * ni;
    previousNext[q | 2] = az * ni;
    previousNext[q | 3] = aw * ni;
    // d = 2·log(x ⊗ ŷ⁻¹), world frame
    const bx = output[q];
    const by = output[q | 1];
    const bz = output[q | 2];
    const bw = output[q | 3];
    let rx = -aw * bx + ax * bw - ay * bz + az * by;
    let ry = -aw * by + ax * bz + ay * bw - az * bx;
    let rz = -aw * bz - ax * by + ay * bx + az * bw;
    let rw = aw * bw + ax * bx + ay * by + az * bz;
    let s2 = rx * rx + ry * ry + rz * rz;
    let k = logScale(s2, rw);
    const dx = k * rx;
    const dy = k * ry;
    const dz = k * rz;
    // the displacement the speed is measured from: the same d, or 2·log(x ⊗ previous⁻¹)
    let sx = dx;
    let sy = dy;
    let sz = dz;
    if (fromInput) {
      const px = previous[q];
      const py = previous[q | 1];
      const pz = previous[q | 2];
      const pw = previous[q | 3];
      rx = -aw * px + ax * pw - ay * pz + az * py;
      ry = -aw * py + ax * pz + ay * pw - az * px;
      rz = -aw * pz - ax * py + ay * px + az * pw;
      rw = aw * pw + ax * px + ay * py + az * pz;
      s2 = rx * rx + ry * ry + rz * rz;
      k = logScale(s2, rw);
      sx = k * rx;
      sy = k * ry;
      sz = k * rz;
    }
    // the paper's low-pass form: ad·ẋ + (1 − ad)·ê
    const ex = adv * sx + bd * speed[q];
    const ey = adv * sy + bd * speed[q | 1];
    const ez = adv * sz + bd * speed[q | 2];
    speedNext[q] = ex;
    speedNext[q | 1] = ey;
    speedNext[q | 2] = ez;
    steps[q] = dx;
    steps[q | 1] = dy;
    steps[q | 2] = dz;
    steps[q | 3] = Math.min(w2min + w2beta * Math.sqrt(ex * ex + ey * ey + ez * ez), R_MAX);
  }
  if (!valid) return false;
  // ŷ ← exp(α·d/2) ⊗ ŷ with α = r/(1 + r), r = 2π·cutoff·Δt
  for (let j = 0; j < joints; j++) {
    const q = j << 2;
    const r = steps[q | 3];
    const h = (0.5 * r) / (1 + r);
    const hx = h * steps[q];
    const hy = h * steps[q | 1];
    const hz = h * steps[q | 2];
    const t2 = hx * hx + hy * hy + hz * hz;
    const sc = sinc(t2);
    const cw = cosOfSquare(t2);
    const fx = sc * hx;
    const fy = sc * hy;
    const fz = sc * hz;
    const bx = output[q];
    const by = output[q | 1];
    const bz = output[q | 2];
    const bw = output[q | 3];
    const ox = cw * bx + fx * bw + fy * bz - fz * by;
    const oy = cw * by - fx * bz + fy * bw + fz * bx;
    const oz = cw * bz + fx * by - fy * bx + fz * bw;
    const ow = cw * bw - fx * bx - fy * by - fz * bz;
    const no = 1.5 - 0.5 * (ox * ox + oy * oy + oz * oz + ow * ow);
    const yx = ox * no;
    const yy = oy * no;
    const yz = oz * no;
    const yw = ow * no;
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
  return true;
}

/**
 * A rotation filter's state in its kernel's memory (see {@link createSimdState}): the output, the previous
 * input and the speed (4 values per joint, the fourth unused).
 */
type SimdOneEuro = SimdState<'output' | 'previous' | 'speed'>;

function createSimdOneEuro(joints: number): SimdOneEuro | null {
  return createSimdState(joints, [
    ['output', 4, true],
    ['previous', 4, true],
    ['speed', 4, false],
  ]);
}

/**
 * One sample of the rotation filter through the WebAssembly kernel (the steps of {@link oneEuroRotations}):
 * the sample is copied into the kernel's memory (one `set`), the kernel updates the state in place, and the
 * output is copied to `out`. A sample with a zero or non-finite quaternion changes nothing and throws naming it.
 */
function pushSimd(
  simd: SimdOneEuro,
  out: FloatArray,
  outOffset: number,
  input: ArrayLike<number>,
  inputOffset: number,
  dt: number,
  minCutoff: number,
  beta: number,
  dCutoff: number,
  fromInput: boolean,
): void {
  copySample(simd, input, inputOffset);
  const k = stepConstants(dt, minCutoff, beta, dCutoff);
  const at = simd.at;
  const status = simd.kernels.oneEuro(
    0,
    at.output,
    at.previous,
    at.speed,
    at.flags,
    at.scratch,
    simd.pairs,
    k[0],
    k[1],
    k[2],
    k[3],
    fromInput ? 1 : 0,
  );
  if (status < 0) {
    // the kernel's check is checkValues's (the same sums and bounds): this throws, naming the quaternion
    checkValues(input, inputOffset, simd.joints, 4, 'OneEuroFilter.push');
    throw new InvalidValueError('OneEuroFilter.push: a quaternion of the sample is zero or not finite');
  }
  out.set(simd.view.output, outOffset);
}

/** One sample of the vector filter for every joint (after the first sample), written to `output` and `out`. */
function oneEuroVectors(
  out: FloatArray,
  outOffset: number,
  output: Float64Array,
  previous: Float64Array,
  speed: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  joints: number,
  width: number,
  dt: number,
  minCutoff: number,
  beta: number,
  dCutoff: number,
  fromInput: boolean,
): void {
  const k = stepConstants(dt, minCutoff, beta, dCutoff);
  const adv = k[0];
  const bd = k[1];
  const w2min = k[2];
  const w2beta = k[3];
  const reference = fromInput ? previous : output;
  for (let b = 0, end = joints * width; b < end; b += width) {
    let s2 = 0;
    for (let c = b; c < b + width; c++) {
      // the paper's low-pass form: ad·ẋ + (1 − ad)·ê
      const ed = adv * (input[inputOffset + c] - reference[c]) + bd * speed[c];
      speed[c] = ed;
      s2 += ed * ed;
    }
    // α = r/(1 + r), r = 2π·cutoff·Δt
    const r = Math.min(w2min + w2beta * Math.sqrt(s2), R_MAX);
    const alpha = r / (1 + r);
    const ba = 1 - alpha;
    for (let c = b; c < b + width; c++) {
      const x = input[inputOffset + c];
      const y = alpha * x + ba * output[c];
      previous[c] = x;
      output[c] = y;
      out[outOffset + c] = y;
    }
  }
}
