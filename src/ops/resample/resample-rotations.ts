/**
 * Resampling of rotation series to any rate on an exact time grid, with any kernel, anti-aliased when
 * down-sampling.
 *
 * Kernel guidance (measured in the tests on band-limited synthetic rotations sampled at 30 Hz and
 * up-sampled to 120 Hz, mean geodesic error, log space):
 * - Signal content up to 8 Hz (about half of Nyquist): nearest 8.6e-2 rad, linear 3.0e-2, catmull-rom
 *   1.15e-2, lanczos3 3.9e-3. lanczos3 wins when the motion uses a good part of the band.
 * - Slower signals: catmull-rom beats lanczos3 once the fastest component is below about 4.5 Hz at a
 *   30 Hz source, i.e. below about 0.15 × the source rate (30% of Nyquist): lanczos's weight-normalisation
 *   ripple then costs more than its bandwidth gains (at 2 Hz: catmull-rom 1.0e-4, lanczos3 8.0e-4 rad).
 *   cubic6 (the smooth 6-tap cubic) was best of all below about 7 Hz in the same measurement.
 * - Mocap at 120 Hz keeps 99% of its energy below a few Hz (CMU 01_01: 2.7 Hz, see `clipSpectrum`), so
 *   for up-sampling mocap catmull-rom or cubic6 is the accurate choice; lanczos3 pays off when the content
 *   reaches beyond ~0.15 × the source rate. Use linear when overshoot must be impossible.
 * - Down-sampling: keep the default anti-aliasing (the kernel widened by the ratio). Without a `kernel`,
 *   down-sampling uses `downsampleKernel` (lanczos3). A 25 Hz wobble decimated from 120 to 30 Hz aliases
 *   to a full-amplitude 5 Hz wobble; lanczos3 anti-aliased removes it by 46 dB, catmull-rom by 36 dB.
 *   Stop band of lanczos3 (measured, 120, 100 and 250 Hz to 30 Hz alike): 10 dB at 0.55 × the target
 *   rate, 15 dB at 0.6 ×, 37 dB at 0.7 ×, 53 dB at 0.85 ×. For keys meant to be played back by a known
 *   up-sampler, `downsampleOptimal` does better.
 *
 * @module
 */
import { InvalidValueError, ShapeError } from '../../errors.js';
import { atan2OverSFromSquares, cosOfTheta, sinOverTheta } from '../../numeric/fast-trig.js';
import { assertQuatSeries, checkSeriesSize } from '../../series/create.js';
import type { FloatArray, QuatSeries } from '../../series/types.js';
import { blendRotations, createWindowScratch } from '../kernel/rotation-blend.js';
import { createTapWindow, placeTaps, type TapWindow } from '../kernel/tap-window.js';
import { createSimdBlend } from './blend-simd.js';
import {
  planResample,
  type ResampledGrid,
  type ResamplePlan,
  type ResampleRotationsOptions,
} from './resample-plan.js';

export {
  RESAMPLE_DEFAULTS,
  RESAMPLE_KERNEL_NAMES,
  type ResampledGrid,
  type ResampleKernelName,
  type ResampleOptions,
  type ResampleRotationsOptions,
  resampleKernel,
} from './resample-plan.js';

/**
 * Resamples a rotation series from `sourceRate` to `targetRate` (or to explicit `times`) with a kernel.
 *
 * The source is a train of samples at `i / sourceRate` s. Output frame i sits at `times[i]` (from
 * `timeGrid`: `i / targetRate`, computed from the index, so no drift), i.e. at the fractional source
 * position `u = times[i] · sourceRate`; its rotation is the weighted sum of the source rotations under the
 * kernel placed at `u` (weights `kernel(u − k)`, divided by their sum), taken in `space` by the shared
 * rotation-blend engine (ops/kernel/rotation-blend.ts): `'log'` (slerp-like, default), `'raw'` (nlerp-like) or `'eigen'`.
 * Up-sampling evaluates the kernel at fractional positions; down-sampling (target below source) widens
 * the kernel by the ratio (`scaleKernel`), which anti-aliases, unless `antialias: false`. The kernel
 * defaults to `'catmull-rom'` when up-sampling and to `downsampleKernel` (`'lanczos3'`) when down-sampling
 * with anti-aliasing (its stop band is deeper than catmull-rom's: see the kernel guidance above). Interpolating
 * kernels (linear, catmull-rom, cubic6, lanczos2/3, sinc) return the source sample exactly where an output
 * time coincides with a source time; symmetric kernels add no time shift.
 *
 * Time grid: output frame 0 is at the source's first frame; with the default `duration: 'floor'` the last
 * output time is on or before the source's last time; `'keep-end'` ends exactly on it (rate adjusted to
 * fit, reported in `rate`), `'ceil'` covers it, `'loop'` (the default with `boundary: 'wrap'`) keeps a
 * looping clip's period so it stays seamless. Output rotations are unit, in the hemisphere of the nearest
 * source sample (an unrolled input gives an unrolled output).
 *
 * Edge cases: 0 source frames give 0 output frames; 1 source frame gives constant output. Only uniformly
 * sampled sources are accepted (`sourceTimes` is checked).
 *
 * Source: Holden, "Filtering, Convolutions, and Quaternions" (2025): up-sampling as convolution with an
 * interpolation kernel, down-sampling with the kernel scaled to the target interval.
 *
 * @param options - Defaults in {@link RESAMPLE_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {ShapeError} on a malformed series or `out`. @throws {OptionError} on bad options.
 * @throws {InvalidValueError} on non-finite samples or non-uniform `sourceTimes`, naming where.
 * @example
 * const up = resampleRotations(series, { sourceRate: 30, targetRate: 120, kernel: 'lanczos3' });
 * up.frames; // 4 · (series.frames − 1) + 1, up.times[i] === i / 120
 */
export function resampleRotations<T extends FloatArray = Float64Array>(
  series: QuatSeries,
  options: ResampleRotationsOptions<T>,
): QuatSeries<T> & ResampledGrid {
  const where = 'resampleRotations';
  assertQuatSeries(series, `${where}: series`);
  const plan = planResample(series.frames, options, where, series.joints * 4);
  const { grid } = plan;
  checkSeriesSize(grid.frames, series.joints, 4, where);
  const joints = series.joints;
  const size = grid.frames * joints * 4;
  let out: QuatSeries<T>;
  if (options.out !== undefined) {
    assertQuatSeries(options.out, `${where}: out`);
    if (options.out.frames !== grid.frames || options.out.joints !== joints) {
      throw new ShapeError(
        `${where}: out is ${options.out.frames} x ${options.out.joints}, the output grid is ${grid.frames} x ${joints}`,
      );
    }
    out = options.out;
  } else {
    out = { data: new Float64Array(size) as T, frames: grid.frames, joints };
  }
  blendRotationsAt(out.data, series, plan, grid.positions);
  return { data: out.data, frames: grid.frames, joints, rate: grid.rate, times: grid.times };
}

/**
 * The blend of {@link resampleRotations} once its plan is made: `series` at the source positions
 * `positions` (in frames) under the plan's kernel, boundary and space, into `out` (`positions.length x
 * joints`, frame-major). `resampleClip` uses it to evaluate some output frames of a plan again.
 *
 * @internal
 */
export function blendRotationsAt(
  out: FloatArray,
  series: QuatSeries,
  plan: ResamplePlan,
  positions: Float64Array,
): void {
  const joints = series.joints;
  if (positions.length === 0 || joints === 0) return;
  const win = createTapWindow(plan.kernel, series.frames, plan.boundary);
  const data = series.data;
  if (plan.space === 'log') {
    blendLogCached(out, data, joints, positions, win);
  } else {
    const scratch = createWindowScratch();
    for (let f = 0; f < positions.length; f++) {
      placeTaps(win, positions[f]);
      blendRotations(out, f * joints * 4, data, joints, win, plan.space, scratch);
    }
  }
}

/**
 * The log-space blend of the shared rotation-blend engine, `r ⊗ exp(Σ wₖ log(r⁻¹ ⊗ qₖ) / Σ wₖ)` with the
 * reference r and the taps from `placeTaps`, computed for a whole output grid at once: the relative logs
 * `log(r⁻¹ ⊗ qₖ)` depend only on (reference, tap frame), so when consecutive output frames share a
 * reference (up-sampling: `ratio` outputs per source frame) they are computed once and reused, and the
 * small-angle atan/sin/cos use ulp-accurate polynomials (`numeric/fast-trig`). Equal to
 * `blendRotations(…, 'log', …)` frame by frame up to rounding (the tests check 1e-14).
 *
 * Down-sampling gets nothing from the cache: each output frame has a reference of its own (every 4th
 * source frame at 120 to 30 Hz), so no (reference, tap) pair comes twice, and a log relative to one
 * reference cannot be turned into the log relative to another without the same product and atan (the map
 * is not linear). Its cost is the taps' arithmetic, about 75 floating-point operations per tap and joint
 * (the product r⁻¹ ⊗ q, the atan polynomial, the weighted sum): about 18 taps at 4:1 with lanczos3.
 * Two joints per pass over the taps in JavaScript, as `blendRotations` does, was no faster; so down-sampling
 * runs pairs of joints on the WebAssembly SIMD kernel where there is one (`blend-simd.ts`: the same
 * operations in the same order, equal to the bit; pairs a lane of which leaves the polynomials' range, and
 * the last joint of an odd count, are finished here): 120 to 30 Hz of the eight shared captures after
 * smoothing, 41.8 ms against 31.7 in one process, alternating.
 */
function blendLogCached(
  out: FloatArray,
  data: FloatArray,
  joints: number,
  positions: Float64Array,
  win: TapWindow,
): void {
  const stride = joints * 4;
  const reach = Math.ceil(win.radius) + 1;
  const slots = 2 * reach + 1;
  // references repeat only when the output grid is finer than the source: cache only then
  const useCache = positions.length > 1 && Math.abs(positions[1] - positions[0]) < 1;
  // cache[(slot * joints + j) * 3]: relative log of tap frame (reference + slot − reach) for joint j
  const cache = new Float64Array(useCache ? slots * joints * 3 : 0);
  const slotRef = new Int32Array(slots).fill(-1);
  // output frame that filled each slot: a slot filled by this very frame (a reflected tap repeating a
  // frame) is not readable yet, so such a repeat is computed again
  const slotFilledAt = new Int32Array(slots).fill(-1);
  const capacity = win.tapFrames.length;
  // per output frame, the taps split into those read from the cache and those computed (and stored)
  const readW = new Float64Array(capacity);
  const readAt = new Int32Array(capacity);
  const compW = new Float64Array(capacity);
  const compOff = new Int32Array(capacity);
  const compFrame = new Int32Array(capacity);
  const compStore = new Int32Array(capacity);
  // per output frame, the runs of joints [from, to) the scalar loop computes: all of them, or, after the
  // WebAssembly kernel, the pairs it left and the last joint of an odd count
  const runs = new Int32Array(joints + 4);
  // down-sampling (no cache) runs pairs of joints through the WebAssembly kernel where there is one
  const simd = useCache ? null : createSimdBlend(joints, win.frames, capacity);
  const ws = win.tapWeights;
  const tf = win.tapFrames;
  for (let f = 0; f < positions.length; f++) {
    placeTaps(win, positions[f]);
    const ref = win.reference;
    const count = win.count;
    // taps whose weight is below rounding of the sum (lanczos and sinc at their zero crossings give
    // ~1e-17 instead of 0) contribute nothing representable and are skipped, as is the reference itself
    // (log of the identity)
    const negligible = 1e-14 * Math.abs(win.weightSum);
    let nRead = 0;
    let nComp = 0;
    for (let t = 0; t < count; t++) {
      const frame = tf[t];
      if (frame === ref || Math.abs(ws[t]) <= negligible) continue;
      const d = frame - ref;
      // taps that wrapped round a loop fall outside the slot range: computed, not cached
      const slot = useCache && d >= -reach && d <= reach ? d + reach : -1;
      if (slot >= 0 && slotRef[slot] === ref && slotFilledAt[slot] !== f) {
        readW[nRead] = ws[t];
        readAt[nRead++] = slot * joints * 3;
      } else {
        const store = slot >= 0 && slotFilledAt[slot] !== f;
        compW[nComp] = ws[t];
        compOff[nComp] = frame * stride;
        compFrame[nComp] = frame;
        compStore[nComp++] = store ? slot * joints * 3 : -1;
        if (store) {
          slotRef[slot] = ref;
          slotFilledAt[slot] = f;
        }
      }
    }
    const invW = 1 / win.weightSum;
    const refBase = ref * stride;
    const outBase = f * stride;
    let nRuns = 1;
    runs[0] = 0;
    runs[1] = joints;
    if (simd !== null) {
      const flagged = simd.run(out, outBase, data, ref, compW, compFrame, nComp, invW);
      if (flagged >= 0) {
        // pairs with a lane beyond the kernel's polynomials (or a bad input): the scalar code, which also
        // throws the error naming the input; and an odd count's last joint
        nRuns = 0;
        for (let i = 0; i < flagged; i++) {
          runs[2 * nRuns] = 2 * simd.flags[i];
          runs[2 * nRuns++ + 1] = 2 * simd.flags[i] + 2;
        }
        runs[2 * nRuns] = 2 * simd.pairs;
        runs[2 * nRuns++ + 1] = joints;
      }
    }
    for (let run = 0; run < nRuns; run++) {
      const to = runs[2 * run + 1];
      for (let j = runs[2 * run]; j < to; j++) {
        const b = j * 4;
        const r = refBase + b;
        const rx = data[r];
        const ry = data[r + 1];
        const rz = data[r + 2];
        const rw = data[r + 3];
        let vx = 0;
        let vy = 0;
        let vz = 0;
        const jc = j * 3;
        for (let t = 0; t < nRead; t++) {
          const w = readW[t];
          const c = readAt[t] + jc;
          vx += w * cache[c];
          vy += w * cache[c + 1];
          vz += w * cache[c + 2];
        }
        for (let t = 0; t < nComp; t++) {
          const o = compOff[t] + b;
          const qx = data[o];
          const qy = data[o + 1];
          const qz = data[o + 2];
          const qw = data[o + 3];
          if (qx === rx && qy === ry && qz === rz && qw === rw) {
            // the reference itself (a joint that holds still): conj(r) ⊗ r has a +0 vector part, so its log
            // is +0 and adding w · 0 leaves the sums as they are, bit for bit (a sum that starts at +0 is
            // never -0). Skipped, with its +0 log cached like any other.
            const store = compStore[t];
            if (store >= 0) {
              const c = store + jc;
              cache[c] = 0;
              cache[c + 1] = 0;
              cache[c + 2] = 0;
            }
            continue;
          }
          // p = conj(r) ⊗ q, on the w ≥ 0 side
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
          const s2 = px * px + py * py + pz * pz;
          const k = pw > 0 ? atan2OverSFromSquares(s2, 1 / pw) : Math.PI / (2 * Math.sqrt(s2));
          const lx = k * px;
          const ly = k * py;
          const lz = k * pz;
          const store = compStore[t];
          if (store >= 0) {
            const c = store + jc;
            cache[c] = lx;
            cache[c + 1] = ly;
            cache[c + 2] = lz;
          }
          const w = compW[t];
          vx += w * lx;
          vy += w * ly;
          vz += w * lz;
        }
        vx *= invW;
        vy *= invW;
        vz *= invW;
        const th2 = vx * vx + vy * vy + vz * vz;
        const sc = sinOverTheta(th2);
        const ew = cosOfTheta(th2);
        const ex = sc * vx;
        const ey = sc * vy;
        const ez = sc * vz;
        // out = r ⊗ e
        const ox = rw * ex + rx * ew + ry * ez - rz * ey;
        const oy = rw * ey - rx * ez + ry * ew + rz * ex;
        const oz = rw * ez + rx * ey - ry * ex + rz * ew;
        const ow = rw * ew - rx * ex - ry * ey - rz * ez;
        const n2 = ox * ox + oy * oy + oz * oz + ow * ow;
        if (!(n2 > 1e-300 && n2 < Number.POSITIVE_INFINITY)) failAt(data, win, j);
        let sn = 1 / Math.sqrt(n2);
        if (rx * ox + ry * oy + rz * oz + rw * ow < 0) sn = -sn;
        const d = outBase + b;
        out[d] = ox * sn;
        out[d + 1] = oy * sn;
        out[d + 2] = oz * sn;
        out[d + 3] = ow * sn;
      }
    }
  }
}

function failAt(data: FloatArray, win: TapWindow, joint: number): never {
  const stride = data.length / win.frames;
  for (let t = 0; t < win.count; t++) {
    const o = win.tapFrames[t] * stride + joint * 4;
    for (let c = 0; c < 4; c++) {
      if (!Number.isFinite(data[o + c])) {
        throw new InvalidValueError(
          `resampleRotations: non-finite input at frame ${win.tapFrames[t]}, joint ${joint} (${data[o + c]})`,
          { frame: win.tapFrames[t], joint },
        );
      }
    }
  }
  throw new InvalidValueError(
    `resampleRotations: the weighted sum of rotations vanished at position ${win.centre} (frame ${win.reference}), joint ${joint}`,
    { frame: win.reference, joint },
  );
}
