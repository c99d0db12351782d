// The reduction's result: the keyed clip built from the kept keys, and the error measured at every original frame.

import { ShapeError } from '../../errors.js';
import type { Clip, Interpolation, KeyedClip, Track } from '../../series/clip.js';
import { distance3, rotationAngle } from './reduce-check.js';
import { DROPPED, keptOne } from './reduce-constant.js';
import { interpolateComponent, normalise4, quantize16, rounds16 } from './reduce-interpolate.js';
import { keptTrack } from './reduce-keyed.js';
import type { ReduceKeysReport, ReduceKeysResult, Resolved } from './reduce-options.js';
import type { KeySets, Prepared } from './reduce-prepare.js';
import type { Reduction } from './reduce-search.js';
import { compose, composeRotation, linearPart, localMatrix } from './reduce-transforms.js';

/** Builds the keyed clip and measures the achieved error at every original frame. */
export function finish(
  clip: Clip,
  d: Prepared,
  o: Resolved,
  keys: KeySets,
  reduction?: Reduction,
  constantStates?: Uint8Array,
): ReduceKeysResult {
  const { J, F } = d;
  const t0 = clip.startTime ?? 0;
  const tracks: Track[] = [];
  let keysBefore = 0;
  let keysAfter = 0;
  const interpolation: Interpolation = o.interpolation;
  // what a player sees, per joint, to measure the error: as the reduction evaluated it, or evaluated here
  const lt = reduction ? reduction.lt : Float64Array.from(d.t);
  const lq = reduction ? reduction.lq : Float64Array.from(d.q);
  const ls = reduction ? reduction.ls : Float64Array.from(d.s);
  const v = new Float64Array(4);
  let constantTracks = 0;
  let droppedTracks = 0;
  // per track COLLAPSED / DROPPED / 0: the reduction's, or given (variable bit rates)
  const states = reduction ? reduction.constant : (constantStates ?? null);
  const constant = states ? keptOne(states, keys, d) : null;
  for (let j = 0; j < J; j++) {
    for (const component of [0, 1, 2] as const) {
      const kept = keys[j][component];
      if (!kept) continue;
      const w = component === 1 ? 4 : 3;
      const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
      const der = component === 0 ? d.dt : component === 1 ? d.dq : d.ds;
      const dst = component === 0 ? lt : component === 1 ? lq : ls;
      const state = constant ? constant[j * 3 + component] : 0;
      const round = component === 1 && rounds16(o, j);
      // stored as they are (variable bit rates: float32, or decoded from a filter): the source's values
      const asIs = o.storedAsIs?.[j * 3 + component] === 1;
      if (state !== 0) constantTracks++;
      if (state === DROPPED) {
        // at the rest value: the node holds it without a track (what the check evaluated, bit for bit)
        droppedTracks++;
        keysBefore += d.keyed !== null ? d.keyed.keys[j * 3 + component]!.length : F;
        continue;
      }
      keysAfter += kept.length;
      if (d.keyed !== null) {
        // a keyed clip: the kept keys as its tracks store them (16-bit rotations when asked)
        const at = j * 3 + component;
        keysBefore += d.keyed.keys[at]!.length;
        const rounded = round
          ? (k: number, c: number) => quantize16(src[(kept[k] * J + j) * 4 + c])
          : asIs
            ? (k: number, c: number) => src[(kept[k] * J + j) * w + c]
            : null;
        tracks.push(keptTrack(d.keyed, at, kept, rounded));
      } else {
        keysBefore += F;
        const times = new Float64Array(kept.length);
        const fittedValues = component === 1 && reduction ? reduction.rotationValues[j] : null;
        const per = interpolation === 'cubicspline' ? 3 : 1;
        const values = new Float64Array(kept.length * w * per);
        for (let k = 0; k < kept.length; k++) {
          const f = kept[k];
          times[k] = t0 + f * d.frameTime;
          const base = k * w * per;
          for (let c = 0; c < w; c++) {
            let x = src[(f * J + j) * w + c];
            if (round) x = quantize16(x);
            if (fittedValues) x = fittedValues[k * 4 + c];
            if (per === 3) {
              values[base + c] = der[(f * J + j) * w + c];
              values[base + w + c] = x;
              values[base + 2 * w + c] = der[(f * J + j) * w + c];
            } else values[base + c] = x;
          }
        }
        tracks.push({
          joint: j,
          path: component === 0 ? 'translation' : component === 1 ? 'rotation' : 'scale',
          interpolation,
          times,
          values,
          width: w,
        });
      }
      if (reduction) continue;
      // what the player evaluates at every original frame
      for (let k = 0; k < kept.length; k++) {
        const f = kept[k];
        if (round) {
          for (let c = 0; c < 4; c++) v[c] = quantize16(src[(f * J + j) * 4 + c]);
          normalise4(v);
          for (let c = 0; c < 4; c++) dst[(f * J + j) * 4 + c] = v[c];
        }
        if (k === 0) continue;
        const a = kept[k - 1];
        for (let g = a + 1; g < f; g++) {
          interpolateComponent(v, d, o, j, component, a, f, g);
          for (let c = 0; c < w; c++) dst[(g * J + j) * w + c] = v[c];
        }
      }
      const first = kept[0];
      for (let g = 0; g < first; g++) {
        for (let c = 0; c < w; c++) dst[(g * J + j) * w + c] = dst[(first * J + j) * w + c];
      }
      const last = kept[kept.length - 1];
      for (let g = last + 1; g < F; g++) {
        for (let c = 0; c < w; c++) dst[(g * J + j) * w + c] = dst[(last * J + j) * w + c];
      }
    }
  }
  const report = measure(d, o, lt, lq, ls, keysBefore, keysAfter, tracks.length, reduction);
  report.constantTracks = constantTracks;
  report.droppedTracks = droppedTracks;
  if (o.meshShells !== null)
    for (let j = 0; j < Math.min(J, o.meshShells.length); j++)
      if (!Number.isNaN(o.meshShells[j])) report.meshShellJoints++;
  const keyed: KeyedClip = {
    ...(clip.name !== undefined ? { name: clip.name } : {}),
    skeleton: clip.skeleton,
    // a keyed clip's morph-weight tracks are kept as they are
    tracks: d.keyed !== null ? [...tracks, ...d.keyed.weights] : tracks,
    orders: clip.orders.slice(),
    ...(clip.source !== undefined ? { source: clip.source } : {}),
  };
  return { clip: keyed, report };
}

/**
 * Largest error (the report's measure: six virtual vertices per joint at the shell, scene units; the
 * local metric's translation distance) of the pose with local values `lt`, `lq`, `ls` at every frame
 * against the original `d`: what {@link finish} reports as `maxError` for a clip that evaluates to that
 * pose, without building its tracks.
 */
export function poseError(
  d: Prepared,
  o: Resolved,
  lt: Float64Array,
  lq: Float64Array,
  ls: Float64Array,
): number {
  return measure(d, o, lt, lq, ls, 0, 0, 0).maxError;
}

function measure(
  d: Prepared,
  o: Resolved,
  lt: Float64Array,
  lq: Float64Array,
  ls: Float64Array,
  keysBefore: number,
  keysAfter: number,
  tracks: number,
  reduction?: Reduction,
): ReduceKeysReport {
  const { J, F } = d;
  const errors = new Float64Array(F * J);
  let maxAngle = 0;
  let maxScaleError = 0;
  let maxError = 0;
  if (o.metric === 'object') {
    // world transforms: the reduction's (composed from the same local values), or composed here per
    // frame; linear parts as matrices with scales, else as unit quaternions read as rotation matrices
    const scaled = d.scaled;
    const RM = reduction ? reduction.RM : new Float64Array(scaled ? J * 9 : 0);
    const RQ = reduction ? reduction.RQ : new Float64Array(scaled ? 0 : J * 4);
    const Rp = reduction ? reduction.Rp : new Float64Array(J * 3);
    const L = new Float64Array(9);
    const W = new Float64Array(9);
    const O = new Float64Array(9);
    for (let f = 0; f < F; f++) {
      for (let j = 0; j < J; j++) {
        const i = reduction ? f * J + j : j;
        const parent = d.parents[j] < 0 ? -1 : reduction ? f * J + d.parents[j] : d.parents[j];
        if (!reduction && scaled) {
          localMatrix(L, 0, lq, (f * J + j) * 4, ls, (f * J + j) * 3);
          compose(RM, Rp, i * 9, i * 3, parent, RM, Rp, L, 0, lt, (f * J + j) * 3);
        } else if (!reduction) {
          // as the search composes them
          composeRotation(
            RQ,
            Rp,
            i * 4,
            i * 3,
            parent,
            RQ,
            Rp,
            lq,
            (f * J + j) * 4,
            lt,
            (f * J + j) * 3,
            d.unit,
          );
        }
        // the played and the original world linear parts
        linearPart(W, scaled, RM, RQ, i);
        linearPart(O, scaled, d.M, d.Q, f * J + j);
        const wp = i * 3;
        const po = (f * J + j) * 3;
        let worst = 0;
        // six virtual vertices: ± each local axis at the shell distance (in the scene, at the rest world scale)
        const dx = Rp[wp] - d.p[po];
        const dy = Rp[wp + 1] - d.p[po + 1];
        const dz = Rp[wp + 2] - d.p[po + 2];
        for (let k = 0; k < 6; k++) {
          const axis = k >> 1;
          const r = k & 1 ? -d.shellOffsets[j * 3 + axis] : d.shellOffsets[j * 3 + axis];
          const ex = dx + (W[axis] - O[axis]) * r;
          const ey = dy + (W[3 + axis] - O[3 + axis]) * r;
          const ez = dz + (W[6 + axis] - O[6 + axis]) * r;
          const e = Math.sqrt(ex * ex + ey * ey + ez * ez);
          if (e > worst) worst = e;
        }
        errors[f * J + j] = worst;
        if (worst > maxError) maxError = worst;
      }
    }
  } else {
    for (let i = 0; i < F * J; i++) {
      const e = distance3(
        lt[i * 3] - d.t[i * 3],
        lt[i * 3 + 1] - d.t[i * 3 + 1],
        lt[i * 3 + 2] - d.t[i * 3 + 2],
      );
      errors[i] = e;
      if (e > maxError) maxError = e;
      maxAngle = Math.max(maxAngle, rotationAngle(lq, i * 4, d.q, i * 4));
      const base = Math.max(Math.abs(d.s[i * 3]), Math.abs(d.s[i * 3 + 1]), Math.abs(d.s[i * 3 + 2]), 1e-12);
      for (let c = 0; c < 3; c++)
        maxScaleError = Math.max(maxScaleError, Math.abs(ls[i * 3 + c] - d.s[i * 3 + c]) / base);
    }
  }
  const p99 = errors.length
    ? select(errors, Math.min(errors.length - 1, Math.ceil(0.99 * errors.length) - 1))
    : 0;
  if (!Number.isFinite(maxError))
    throw new ShapeError('reduceKeys: the reduced clip evaluates to a non-finite pose');
  return {
    metric: o.metric,
    tolerance: o.tolerance,
    shellDistance: o.shell,
    keysBefore,
    keysAfter,
    tracks,
    maxError,
    p99Error: p99,
    maxAngle,
    maxScaleError,
    quantization: o.quantization,
    constantTracks: 0,
    droppedTracks: 0,
    meshShellJoints: 0,
  };
}

/** The `k`-th smallest value of `a` (0-based), reordering `a` (quickselect, Hoare partition; NaN-free input). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}
