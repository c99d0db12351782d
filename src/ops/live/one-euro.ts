import { OptionError } from '../../errors.js';
import type { FloatArray } from '../../series/types.js';
import {
  checkChoice,
  checkJoints,
  checkNonNegative,
  checkOptionNames,
  checkPositive,
  checkQuaternions,
  checkSample,
  checkStateHead,
  checkValues,
  type LiveFilter,
  type LiveStateBase,
  lowPassAlpha,
  readStateArray,
  STALE_SAMPLE_POLICIES,
  type StaleSamplePolicy,
  timeStep,
} from './common.js';
import {
  C1,
  C2,
  C3,
  C4,
  C5,
  C6,
  logScale,
  S1,
  S2,
  S3,
  S4,
  S5,
  S6,
  TRIG_LIMIT2,
  unitInto,
} from './tangent.js';

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

/** Defaults of {@link OneEuroOptions} (the paper's starting point: `minCutoff` 1 Hz, `beta` 0, `dCutoff` 1 Hz). */
export const ONE_EURO_DEFAULTS: Required<Omit<OneEuroOptions, 'joints'>> = {
  kind: 'rotation',
  width: 3,
  minCutoff: 1,
  beta: 0,
  dCutoff: 1,
  derivative: 'input',
  staleSample: 'error',
};

const OPTION_NAMES = ['joints', ...Object.keys(ONE_EURO_DEFAULTS)];

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
 * Cost: no allocation per sample; about the figures in `bench/results` per joint and sample.
 *
 * Method: G. Casiez, N. Roussel, D. Vogel, "1€ Filter: A Simple Speed-based Low-pass Filter for Noisy Input in
 * Interactive Systems" (CHI 2012), Algorithm 1; the rotation form in the tangent space of the previous output
 * (geodesic step, hemisphere-free speed from the log of the relative rotation) is rotsig's.
 *
 * @throws {OptionError} on a missing or invalid option or an unknown option name.
 * @example
 * const filter = createOneEuroFilter({ joints: 1, minCutoff: 1, beta: 0.5 });
 * const out = new Float64Array(4);
 * filter.push(out, [0, 0, 0, 1], 0);
 * filter.push(out, [0, 0.0998, 0, 0.995], 1 / 60); // a little of the way towards the new rotation
 */
export function createOneEuroFilter(options: OneEuroOptions): OneEuroFilter {
  const where = 'createOneEuroFilter';
  checkOptionNames(options, OPTION_NAMES, where);
  const joints = checkJoints(options.joints, where);
  const kind = checkChoice(options.kind ?? ONE_EURO_DEFAULTS.kind, 'kind', ['rotation', 'vector'], where);
  const minCutoff = checkPositive(options.minCutoff ?? ONE_EURO_DEFAULTS.minCutoff, 'minCutoff', where);
  const beta = checkNonNegative(options.beta ?? ONE_EURO_DEFAULTS.beta, 'beta', where);
  const dCutoff = checkPositive(options.dCutoff ?? ONE_EURO_DEFAULTS.dCutoff, 'dCutoff', where);
  const derivative = checkChoice(
    options.derivative ?? ONE_EURO_DEFAULTS.derivative,
    'derivative',
    ['input', 'output'],
    where,
  );
  const staleSample = checkChoice(
    options.staleSample ?? ONE_EURO_DEFAULTS.staleSample,
    'staleSample',
    STALE_SAMPLE_POLICIES,
    where,
  );
  let width = 4;
  if (kind === 'vector') {
    const w = options.width ?? ONE_EURO_DEFAULTS.width;
    if (!(Number.isInteger(w) && w >= 1 && w <= 1024)) {
      throw new OptionError(`${where}: width must be a whole number from 1 to 1024, got ${String(w)}`);
    }
    width = w;
  } else if (options.width !== undefined && options.width !== 4) {
    throw new OptionError(
      `${where}: rotations have width 4 (x, y, z, w), got width ${String(options.width)}`,
    );
  }
  const speedWidth = kind === 'rotation' ? 3 : width;
  const resolved = { kind, width, minCutoff, beta, dCutoff, derivative, staleSample };
  const fromInput = derivative === 'input';
  const n = joints * width;
  const output = new Float64Array(n);
  const previous = new Float64Array(n);
  const speed = new Float64Array(joints * speedWidth);
  const norms = new Float64Array(joints);
  let samples = 0;
  let last = 0;

  const pushAt = <T extends FloatArray>(
    out: T,
    outOffset: number,
    input: ArrayLike<number>,
    inputOffset: number,
    time: number,
  ): T => {
    checkSample(out, outOffset, input, inputOffset, n, 'OneEuroFilter.push');
    const dt = timeStep(time, samples, last, staleSample, 'OneEuroFilter.push');
    if (dt < 0) {
      for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
      return out;
    }
    if (kind === 'rotation') checkQuaternions(norms, input, inputOffset, joints, 'OneEuroFilter.push');
    else checkValues(input, inputOffset, joints, width, 'OneEuroFilter.push');
    if (samples === 0) {
      if (kind === 'rotation') {
        for (let j = 0; j < joints; j++) unitInto(output, j * 4, input, inputOffset + j * 4, true);
      } else {
        for (let i = 0; i < n; i++) output[i] = input[inputOffset + i];
      }
      previous.set(output);
      speed.fill(0);
    } else if (kind === 'rotation') {
      oneEuroRotations(
        out,
        outOffset,
        output,
        previous,
        speed,
        norms,
        input,
        inputOffset,
        joints,
        dt,
        minCutoff,
        beta,
        dCutoff,
        fromInput,
      );
      samples++;
      last = time;
      return out;
    } else {
      oneEuroVectors(
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
    }
    samples++;
    last = time;
    for (let i = 0; i < n; i++) out[outOffset + i] = output[i];
    return out;
  };

  return {
    joints,
    width,
    get samples() {
      return samples;
    },
    push: (out, input, time) => pushAt(out, 0, input, 0, time),
    pushAt,
    reset() {
      samples = 0;
      last = 0;
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
        samples,
        time: samples > 0 ? last : null,
        output: Array.from(output),
        input: Array.from(previous),
        speed: Array.from(speed),
      };
    },
    setState(state: OneEuroState) {
      const where = 'OneEuroFilter.setState';
      const s = checkStateHead(state, 'one-euro', joints, width, resolved, where);
      const o = new Float64Array(n);
      const p = new Float64Array(n);
      const e = new Float64Array(speed.length);
      readStateArray(o, state.output, 'output', where);
      readStateArray(p, state.input, 'input', where);
      readStateArray(e, state.speed, 'speed', where);
      output.set(o);
      previous.set(p);
      speed.set(e);
      samples = s.samples;
      last = s.samples > 0 ? (s.time as number) : 0;
    },
  };
}

/**
 * One sample of the rotation filter for every joint (after the first sample). The tangent-space steps of
 * `tangent.ts` (`unitInto`, `rotationVectorBetween`, `turn`) are written out in this loop: the loop is the
 * whole cost of the filter, and without calls no double is boxed and nothing travels through scratch memory.
 */
function oneEuroRotations(
  out: FloatArray,
  outOffset: number,
  output: Float64Array,
  previous: Float64Array,
  speed: Float64Array,
  norms: Float64Array,
  input: ArrayLike<number>,
  inputOffset: number,
  joints: number,
  dt: number,
  minCutoff: number,
  beta: number,
  dCutoff: number,
  fromInput: boolean,
): void {
  const invDt = 1 / dt;
  const ad = lowPassAlpha(dCutoff, dt);
  const bd = 1 - ad;
  const w2 = 2 * Math.PI * dt;
  for (let j = 0, q = 0, e = 0; j < joints; j++, q += 4, e += 3) {
    // the input as a unit quaternion
    const o = inputOffset + q;
    let ax = input[o];
    let ay = input[o + 1];
    let az = input[o + 2];
    let aw = input[o + 3];
    const ni = norms[j];
    ax *= ni;
    ay *= ni;
    az *= ni;
    aw *= ni;
    // d = 2·log(a ⊗ ŷ⁻¹) of the w ≥ 0 representative (world frame)
    const bx = output[q];
    const by = output[q + 1];
    const bz = output[q + 2];
    const bw = output[q + 3];
    let rx = -aw * bx + ax * bw - ay * bz + az * by;
    let ry = -aw * by + ax * bz + ay * bw - az * bx;
    let rz = -aw * bz - ax * by + ay * bx + az * bw;
    let rw = aw * bw + ax * bx + ay * by + az * bz;
    if (rw < 0) {
      rx = -rx;
      ry = -ry;
      rz = -rz;
      rw = -rw;
    }
    let k = logScale(rx * rx + ry * ry + rz * rz, rw);
    const dx = k * rx;
    const dy = k * ry;
    const dz = k * rz;
    // the displacement the speed is measured from: the same d, or 2·log(a ⊗ previous⁻¹)
    let sx = dx;
    let sy = dy;
    let sz = dz;
    if (fromInput) {
      const px = previous[q];
      const py = previous[q + 1];
      const pz = previous[q + 2];
      const pw = previous[q + 3];
      rx = -aw * px + ax * pw - ay * pz + az * py;
      ry = -aw * py + ax * pz + ay * pw - az * px;
      rz = -aw * pz - ax * py + ay * px + az * pw;
      rw = aw * pw + ax * px + ay * py + az * pz;
      if (rw < 0) {
        rx = -rx;
        ry = -ry;
        rz = -rz;
        rw = -rw;
      }
      k = logScale(rx * rx + ry * ry + rz * rz, rw);
      sx = k * rx;
      sy = k * ry;
      sz = k * rz;
    }
    // the paper's low-pass form: ad·ẋ + (1 − ad)·ê
    const ex = ad * (sx * invDt) + bd * speed[e];
    const ey = ad * (sy * invDt) + bd * speed[e + 1];
    const ez = ad * (sz * invDt) + bd * speed[e + 2];
    speed[e] = ex;
    speed[e + 1] = ey;
    speed[e + 2] = ez;
    const r = w2 * (minCutoff + beta * Math.sqrt(ex * ex + ey * ey + ez * ez));
    previous[q] = ax;
    previous[q + 1] = ay;
    previous[q + 2] = az;
    previous[q + 3] = aw;
    // ŷ ← exp(α·d/2) ⊗ ŷ, renormalised
    const h = (0.5 * r) / (1 + r);
    const hx = h * dx;
    const hy = h * dy;
    const hz = h * dz;
    const t2 = hx * hx + hy * hy + hz * hz;
    let sc: number;
    let cw: number;
    if (t2 <= TRIG_LIMIT2) {
      sc = 1 + t2 * (S1 + t2 * (S2 + t2 * (S3 + t2 * (S4 + t2 * (S5 + t2 * S6)))));
      const c = t2 * (C1 + t2 * (C2 + t2 * (C3 + t2 * (C4 + t2 * (C5 + t2 * C6)))));
      cw = 1 - (0.5 * t2 - t2 * c);
    } else {
      const t = Math.sqrt(t2);
      sc = Math.sin(t) / t;
      cw = Math.cos(t);
    }
    const fx = sc * hx;
    const fy = sc * hy;
    const fz = sc * hz;
    const ox = cw * bx + fx * bw + fy * bz - fz * by;
    const oy = cw * by - fx * bz + fy * bw + fz * bx;
    const oz = cw * bz + fx * by - fy * bx + fz * bw;
    const ow = cw * bw - fx * bx - fy * by - fz * bz;
    const no = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);
    const yx = ox * no;
    const yy = oy * no;
    const yz = oz * no;
    const yw = ow * no;
    output[q] = yx;
    output[q + 1] = yy;
    output[q + 2] = yz;
    output[q + 3] = yw;
    const d = outOffset + q;
    out[d] = yx;
    out[d + 1] = yy;
    out[d + 2] = yz;
    out[d + 3] = yw;
  }
}

/** One sample of the vector filter for every joint (after the first sample). */
function oneEuroVectors(
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
  const invDt = 1 / dt;
  const ad = lowPassAlpha(dCutoff, dt);
  for (let j = 0, b = 0; j < joints; j++, b += width) {
    let s2 = 0;
    for (let c = 0; c < width; c++) {
      const x = input[inputOffset + b + c];
      const d = x - (fromInput ? previous[b + c] : output[b + c]);
      // the paper's low-pass form: ad·ẋ + (1 − ad)·ê
      const ed = ad * (d * invDt) + (1 - ad) * speed[b + c];
      speed[b + c] = ed;
      s2 += ed * ed;
    }
    const alpha = lowPassAlpha(minCutoff + beta * Math.sqrt(s2), dt);
    for (let c = 0; c < width; c++) {
      const x = input[inputOffset + b + c];
      output[b + c] = alpha * x + (1 - alpha) * output[b + c];
      previous[b + c] = x;
    }
  }
}
