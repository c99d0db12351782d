import {
  type Clip,
  type EulerOrder,
  eulerFromQuatSeries,
  evaluateTrack,
  findDiscontinuities,
  type QuatSeries,
  quat,
  type Track,
  unrollRotationVectors,
  type Vec3Series,
} from 'rotsig';
import { angularVelocity } from './ops.js';

/** A tick on the time axis of the curves (a discontinuity). */
export interface Marker {
  /** x value (seconds in the clip curves). */
  x: number;
  color: string;
  title?: string;
}

export type CurveKind = 'quat' | 'euler' | 'rotvec' | 'sixd' | 'speed' | 'diff';

const DEG = 180 / Math.PI;

/** Channel labels of a curve kind; Euler channels are named in the file's order (`'ZXY'`: Z, X, Y). */
export function curveLabels(kind: CurveKind, order: EulerOrder): string[] {
  switch (kind) {
    case 'quat':
      return ['x', 'y', 'z', 'w'];
    case 'euler':
      return [...order].map((c) => `${c.toUpperCase()}rotation`);
    case 'rotvec':
      return ['rx', 'ry', 'rz'];
    case 'sixd':
      return ['m00', 'm10', 'm20', 'm01', 'm11', 'm21'];
    case 'speed':
      return ['|ω|'];
    case 'diff':
      return ['angle to the original'];
  }
}

/** One joint of a clip as its own single-joint series (a copy). */
export function jointSeries(clip: Clip, joint: number): QuatSeries<Float64Array> {
  const J = clip.rotations.joints;
  const F = clip.frames;
  const data = new Float64Array(F * 4);
  const R = clip.rotations.data;
  for (let f = 0; f < F; f++) for (let k = 0; k < 4; k++) data[f * 4 + k] = R[(f * J + joint) * 4 + k];
  return { data, frames: F, joints: 1 };
}

/** `scale * src[f * stride + k]` for f < n: one channel of interleaved values (a plain loop: this runs per key). */
function strided(src: ArrayLike<number>, stride: number, k: number, n: number, scale: number): Float64Array {
  const out = new Float64Array(n);
  for (let f = 0; f < n; f++) out[f] = src[f * stride + k] * scale;
  return out;
}

/** The channels of one kind for one joint's series, each a Float64Array over frames (or mid-points). */
function channels(
  kind: CurveKind,
  s: QuatSeries<Float64Array>,
  order: EulerOrder,
  rate: number,
  unroll: boolean,
) {
  const F = s.frames;
  const q = s.data;
  const out: Float64Array[] = [];
  if (kind === 'quat') {
    for (let k = 0; k < 4; k++) out.push(strided(q, 4, k, F, 1));
  } else if (kind === 'euler') {
    // the continuous curves the BVH writer writes (its equivalent-triple filter), never principal-range
    // angles re-derived per frame
    const e = eulerFromQuatSeries(s, order, { unroll: 'equivalent' }).data;
    for (let k = 0; k < 3; k++) out.push(strided(e, 3, k, F, DEG));
  } else if (kind === 'rotvec') {
    let v: Float64Array = new Float64Array(F * 3);
    for (let f = 0; f < F; f++) quat.toRotationVectorFlat(v, f * 3, q, f * 4);
    if (unroll) v = unrollRotationVectors(v).vectors;
    for (let k = 0; k < 3; k++) out.push(strided(v, 3, k, F, DEG));
  } else if (kind === 'sixd') {
    const v = new Float64Array(F * 6);
    for (let f = 0; f < F; f++) quat.to6DFlat(v, f * 6, q, f * 4);
    for (let k = 0; k < 6; k++) out.push(strided(v, 6, k, F, 1));
  } else {
    // angular velocity from the library: finite differences between consecutive frames, at the mid-points
    const w = angularVelocity(s, 1 / rate, { at: 'midpoints' }).data;
    const n = w.length / 3;
    out.push(
      Float64Array.from({ length: n }, (_, f) => Math.hypot(w[f * 3], w[f * 3 + 1], w[f * 3 + 2]) * DEG),
    );
  }
  return out;
}

/**
 * One joint's Euler channels as the file stores them (degrees, in the joint's order), from the values the
 * worker read out of the MOTION rows: `fileEuler` holds frames x joints x 3.
 */
function fileChannels(fileEuler: Float64Array, clip: Clip, joint: number): Float64Array[] {
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  const out: Float64Array[] = [];
  for (let k = 0; k < 3; k++)
    out.push(Float64Array.from({ length: F }, (_, f) => fileEuler[(f * J + joint) * 3 + k]));
  return out;
}

/**
 * A column of NaN: absent values (the page gives uPlot nulls for them, which leave its scales alone). A
 * typed array filled at once: a million-row column of nulls, converted to NaN for posting, took seconds.
 */
function absent(n: number): Float64Array {
  return new Float64Array(n).fill(Number.NaN);
}

function times(kind: CurveKind, clip: Clip): Float64Array {
  const n = kind === 'speed' ? Math.max(0, clip.frames - 1) : clip.frames;
  const shift = kind === 'speed' ? 0.5 : 0;
  return Float64Array.from({ length: n }, (_, i) => (i + shift) / clip.rate);
}

/**
 * One joint's rotation track evaluated as its player does, between and at its own keys: times (seconds from
 * the clip's start) are the clip's frames, every key time, and for STEP tracks a point just before each key
 * so the hold shows as a step. `keyRows` are the rows of the key times. Null when the joint has no rotation
 * track.
 */
export function keyedRotationSeries(
  tracks: readonly Track[],
  joint: number,
  clip: Clip,
): { times: Float64Array; series: QuatSeries<Float64Array>; keyRows: Int32Array; track: Track } | null {
  const track = tracks.find((t) => t.joint === joint && t.path === 'rotation');
  if (!track || track.times.length === 0) return null;
  const start = clip.startTime ?? 0;
  const K = track.times.length;
  const step = track.interpolation === 'step';
  // three increasing lists merged in one pass (glTF key times increase): the frames, the keys and, for
  // STEP, a point just before each key after the first; one row per distinct time (a key on a frame is
  // one row). Linear in frames + keys: a sort of their concatenation cost seconds at a million keys.
  const x = new Float64Array(clip.frames + K + (step ? K - 1 : 0));
  const keyRows = new Int32Array(K);
  let n = 0;
  let f = 0;
  let k = 0;
  let e = 1;
  const push = (t: number) => {
    if (n === 0 || t - x[n - 1] > 1e-9) x[n++] = t;
  };
  while (f < clip.frames || k < K || (step && e < K)) {
    const tf = f < clip.frames ? f / clip.rate : Number.POSITIVE_INFINITY;
    const tk = k < K ? track.times[k] - start : Number.POSITIVE_INFINITY;
    const te = step && e < K ? track.times[e] - start - 1e-6 : Number.POSITIVE_INFINITY;
    if (te <= tf && te <= tk) {
      push(te);
      e++;
    } else if (tk <= tf) {
      push(tk);
      // the key's row: the last row, or the one it was merged into
      keyRows[k++] = n - 1;
    } else {
      push(tf);
      f++;
    }
  }
  const evalTimes = new Float64Array(n);
  for (let i = 0; i < n; i++) evalTimes[i] = x[i] + start;
  const values = evaluateTrack(track, evalTimes);
  const times = x.slice(0, n);
  return { times, series: { data: values, frames: n, joints: 1 }, keyRows, track };
}

/** Key dots on a curve: for each listed column, points at the listed rows. */
export interface CurveDots {
  columns: number[];
  rows: Int32Array;
  /** The key times (seconds from the clip's start), for the tests. */
  times: ArrayLike<number>;
}

export interface CurveData {
  /** uPlot columns: x (seconds), original channels, processed channels (NaN where absent). */
  columns: Float64Array[];
  /** Keys drawn as dots: the original track's own keys, and the keys the reduction kept. */
  dots: CurveDots[];
  markers: Marker[];
  summary: string;
  hasProcessed: boolean;
  /** Largest absolute difference between processed and original samples at shared times. */
  processedDiff: number;
}

const KIND_COLOURS: Record<string, string> = {
  'sign-flip': '#c58bff',
  jump: '#ff6b6b',
  'euler-wrap': '#ffb454',
  'euler-branch': '#5fe0d8',
};

/**
 * Curves of one joint: the original, and the processed clip over it, plus discontinuity markers found by the
 * library in the original (sign flips, jumps) and in its Euler curves (wraps).
 */
export function curveData(
  kind: CurveKind,
  original: Clip,
  processed: Clip | null,
  joint: number,
  unroll: boolean,
  fileEuler: Float64Array | null = null,
  keyed: { tracks: readonly Track[] | null; kept: readonly Track[] | null } = { tracks: null, kept: null },
): CurveData {
  const order = original.orders[joint];
  const so = jointSeries(original, joint);
  if (kind === 'diff') return differenceData(original, processed, joint, so);
  // a keyed (glTF) rotation track is drawn as its player evaluates it, with dots at its own keys
  const own = kind !== 'speed' && keyed.tracks ? keyedRotationSeries(keyed.tracks, joint, original) : null;
  const co = own
    ? channels(kind, own.series, order, original.rate, false)
    : kind === 'euler' &&
        fileEuler &&
        fileEuler.length === original.frames * original.skeleton.names.length * 3
      ? fileChannels(fileEuler, original, joint)
      : channels(kind, so, order, original.rate, false);
  const to = own ? own.times : times(kind, original);
  const n = co.length;
  const channelColumns = (first: number) => Array.from({ length: n }, (_, c) => first + c);
  let columns: CurveData['columns'];
  let processedDiff = 0;
  let rowsO: (r: number) => number = (r) => r;
  let rowsP: (r: number) => number = (r) => r;
  if (processed) {
    const sp = jointSeries(processed, joint);
    const cp = channels(kind, sp, order, processed.rate, unroll);
    const tp = times(kind, processed);
    if (!own && tp.length === to.length && Math.abs(processed.rate - original.rate) < 1e-9) {
      columns = [to, ...co, ...cp];
      for (let c = 0; c < co.length; c++)
        for (let i = 0; i < to.length; i++)
          processedDiff = Math.max(processedDiff, Math.abs(co[c][i] - cp[c][i]));
    } else {
      const { x, ia, ib } = mergeGrids(to, tp);
      const spread = (src: Float64Array, idx: Int32Array) => {
        const a = absent(x.length);
        for (let i = 0; i < idx.length; i++) a[idx[i]] = src[i];
        return a;
      };
      columns = [x, ...co.map((c) => spread(c, ia)), ...cp.map((c) => spread(c, ib))];
      rowsO = (r) => ia[r];
      rowsP = (r) => ib[r];
      processedDiff = Number.POSITIVE_INFINITY;
    }
  } else {
    columns = [to, ...co, ...co.map(() => absent(to.length))];
  }
  const dots: CurveDots[] = [];
  if (own) {
    // plain loops: a million keys through Array.from's mapping took a large part of a second
    const K = own.keyRows.length;
    const rows = new Int32Array(K);
    const at = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      const r = own.keyRows[k];
      rows[k] = rowsO(r);
      at[k] = to[r];
    }
    dots.push({ columns: channelColumns(1), rows, times: at });
  }
  if (processed && keyed.kept && kind !== 'speed') {
    const kept = keyed.kept.find((t) => t.joint === joint && t.path === 'rotation');
    if (kept) {
      const start = processed.startTime ?? 0;
      const last = processed.frames - 1;
      const frames = Array.from(kept.times, (t) =>
        Math.min(last, Math.max(0, Math.round((t - start) * processed.rate))),
      );
      dots.push({
        columns: channelColumns(1 + n),
        rows: Int32Array.from(frames, rowsP),
        times: frames.map((f) => f / processed.rate),
      });
    }
  }
  // discontinuity markers on the time axis, from the library: the quaternions and the Euler curves can
  // both report the same frame (a jump is also an Euler wrap), so events are one per frame with their kinds
  // (the Euler curves checked are the ones drawn: the file's own values when they are known)
  const fileRows = fileEuler && fileEuler.length === original.frames * original.skeleton.names.length * 3;
  let drawnEuler: Vec3Series<Float64Array> | undefined;
  if (fileRows) {
    const c = fileChannels(fileEuler, original, joint);
    const data = new Float64Array(original.frames * 3);
    for (let f = 0; f < original.frames; f++) for (let k = 0; k < 3; k++) data[f * 3 + k] = c[k][f] / DEG;
    drawnEuler = { data, frames: original.frames, joints: 1 };
  }
  // (without the file's values, as for glTF, the Euler curves drawn are the continuous ones)
  const events = discontinuityEvents(so, order, original.rate, !fileRows, drawnEuler);
  const markers: Marker[] = [];
  const counts = new Map<string, number>();
  for (const [frame, kinds] of events) {
    for (const k of kinds) counts.set(k, (counts.get(k) ?? 0) + 1);
    const first = [...kinds][0];
    markers.push({
      x: frame / original.rate,
      color: KIND_COLOURS[first] ?? '#ff6b6b',
      title: [...kinds].join(' + '),
    });
  }
  let summary =
    events.size === 0
      ? 'no discontinuities'
      : `${events.size} event${events.size === 1 ? '' : 's'}: ${[...counts].map(([k, n]) => `${n} ${k}`).join(' · ')}`;
  if (processed) {
    const sp = jointSeries(processed, joint);
    summary += ` → processed: ${discontinuityEvents(sp, order, processed.rate, unroll || !fileRows).size}`;
  }
  return { columns, dots, markers, summary, hasProcessed: !!processed, processedDiff };
}

/**
 * Discontinuities of one joint's series, from `findDiscontinuities` on its quaternions and on its Euler
 * curves (`drawn`, the file's values, when given; else principal range, or continuous when `unroll`), merged into one
 * event per frame with the set of kinds found there.
 */
export function discontinuityEvents(
  s: QuatSeries<Float64Array>,
  order: EulerOrder,
  rate: number,
  unroll = false,
  drawn?: Vec3Series<Float64Array>,
): Map<number, Set<string>> {
  const events = new Map<number, Set<string>>();
  const euler = drawn ?? eulerFromQuatSeries(s, order, { unroll: unroll ? 'equivalent' : 'none' });
  const found = [...findDiscontinuities(s, { rate }), ...findDiscontinuities(euler, { rate, order })];
  for (const d of found) {
    let kinds = events.get(d.frame);
    if (!kinds) events.set(d.frame, (kinds = new Set()));
    kinds.add(d.kind);
  }
  return new Map([...events].sort((a, b) => a[0] - b[0]));
}

/**
 * The angle between the processed and the original rotation of one joint over time, in degrees. On the
 * original's grid when the rates agree; otherwise at the processed frames, against the original slerped
 * to those times.
 */
function differenceData(
  original: Clip,
  processed: Clip | null,
  joint: number,
  so: QuatSeries<Float64Array>,
): CurveData {
  const none = absent;
  if (!processed) {
    const t = times('quat', original);
    return {
      columns: [t, none(t.length), none(t.length)],
      dots: [],
      markers: [],
      summary: 'no processing: nothing to compare',
      hasProcessed: false,
      processedDiff: 0,
    };
  }
  const sp = jointSeries(processed, joint);
  const tp = times('quat', processed);
  const d = new Float64Array(processed.frames);
  const a = new Float64Array(4);
  const b = new Float64Array(4);
  const last = original.frames - 1;
  let max = 0;
  for (let i = 0; i < processed.frames; i++) {
    const p = Math.min(Math.max(tp[i] * original.rate, 0), last);
    const f0 = Math.min(Math.floor(p), Math.max(0, last - 1));
    const f1 = Math.min(f0 + 1, last);
    quat.slerpFlat(a, 0, so.data, f0 * 4, so.data, f1 * 4, p - f0);
    b.set(sp.data.subarray(i * 4, i * 4 + 4));
    d[i] = quat.angle(a, b) * DEG;
    max = Math.max(max, d[i]);
  }
  return {
    columns: [tp, none(tp.length), d],
    dots: [],
    markers: [],
    summary: `largest ${max.toFixed(3)}°`,
    hasProcessed: true,
    processedDiff: max,
  };
}

/** Time buckets a long curve is thinned to for drawing: more than a screen has pixel columns. */
export const DRAW_COLUMNS = 4096;

/** One joint's curves as the worker posts them: plain typed arrays (transferred), nothing left to compute. */
export interface PostedCurves {
  kind: CurveKind;
  joint: number;
  /**
   * uPlot columns: x (seconds), original channels, processed channels (NaN where absent), thinned to
   * `decimationRows` when long.
   */
  columns: Float64Array[];
  /** Rows of the curves before thinning. */
  rows: number;
  /**
   * Key dots per channel column, from the full curves, thinned to the pixels they are drawn on
   * (`thinDots`): `processed` for the kept keys, `keys` how many keys the set has before thinning.
   */
  dots: { column: number; processed: boolean; x: Float64Array; y: Float64Array; keys: number }[];
  /** The plotting area the dots were thinned for. */
  grid: DotGrid;
  markers: Marker[];
  summary: string;
  hasProcessed: boolean;
  processedDiff: number;
}

/**
 * The rows of a long table of curves that draw it on `buckets` columns of the time axis as the full table
 * would: in each bucket the first and last row and, for every channel, the rows of its smallest and its
 * largest value (NaN skipped), so a one-sample spike stays drawn. Null when the table has at most four rows
 * per bucket (drawn whole).
 */
export function decimationRows(columns: readonly Float64Array[], buckets = DRAW_COLUMNS): Int32Array | null {
  const x = columns[0];
  const n = x.length;
  if (n <= buckets * 4) return null;
  const x0 = x[0];
  const span = x[n - 1] - x0 || 1;
  const bucketOf = (t: number) => Math.min(buckets - 1, Math.floor(((t - x0) / span) * buckets));
  const keep = new Uint8Array(n);
  let start = 0;
  while (start < n) {
    const b = bucketOf(x[start]);
    let end = start + 1;
    while (end < n && bucketOf(x[end]) === b) end++;
    keep[start] = 1;
    keep[end - 1] = 1;
    for (let c = 1; c < columns.length; c++) {
      const col = columns[c];
      let lo = -1;
      let hi = -1;
      for (let i = start; i < end; i++) {
        const v = col[i];
        if (Number.isNaN(v)) continue;
        if (lo < 0 || v < col[lo]) lo = i;
        if (hi < 0 || v > col[hi]) hi = i;
      }
      if (lo >= 0) keep[lo] = 1;
      if (hi >= 0) keep[hi] = 1;
    }
    start = end;
  }
  let m = 0;
  for (let i = 0; i < n; i++) m += keep[i];
  const rows = new Int32Array(m);
  for (let i = 0, k = 0; i < n; i++) if (keep[i]) rows[k++] = i;
  return rows;
}

/** The plotting area the key dots are drawn on, canvas pixels (the curve plot's `bbox`). */
export interface DotGrid {
  width: number;
  height: number;
}

/** The grid dots are thinned for when the page has not said: more columns than a screen has pixels. */
export const DEFAULT_DOT_GRID: DotGrid = { width: DRAW_COLUMNS, height: 1024 };

/**
 * The key dots of one channel that draw it on a plot of `grid` pixels as all of them would, as indices into
 * `x`/`y` (increasing): the plot puts key i at pixel column `round((x[i] - x0) / (x1 - x0) * width)` of its
 * time axis (`LinePlot.drawDots`), so in every such column the keys with the smallest and the largest
 * value are kept, and one key for each `1 / height` of the channel's own range of values the column's keys
 * reach (the plot's range holds the channel's, so no drawn pixel is left without a dot nearer than one
 * pixel). NaN values are skipped. Null when there are at most four keys per pixel column: kept whole.
 */
export function thinDots(
  x: Float64Array,
  y: Float64Array,
  x0: number,
  x1: number,
  grid: DotGrid = DEFAULT_DOT_GRID,
): Int32Array | null {
  const n = x.length;
  const height = Math.max(1, Math.floor(grid.height));
  if (n <= Math.max(1, grid.width) * 4) return null;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const v = y[i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const keep = new Uint8Array(n);
  const xScale = grid.width / (x1 - x0 || 1);
  const yScale = hi > lo ? height / (hi - lo) : 0;
  // which value cells the current pixel column has a dot in: stamped with the column's number + 1
  const seen = new Int32Array(height + 1);
  let i = 0;
  while (i < n) {
    const cx = Math.round((x[i] - x0) * xScale);
    let min = -1;
    let max = -1;
    for (; i < n && Math.round((x[i] - x0) * xScale) === cx; i++) {
      const v = y[i];
      if (Number.isNaN(v)) continue;
      if (min < 0 || v < y[min]) min = i;
      if (max < 0 || v > y[max]) max = i;
      const cell = Math.floor((v - lo) * yScale);
      if (seen[cell] !== cx + 1) {
        seen[cell] = cx + 1;
        keep[i] = 1;
      }
    }
    if (min >= 0) keep[min] = 1;
    if (max >= 0) keep[max] = 1;
  }
  let m = 0;
  for (let k = 0; k < n; k++) m += keep[k];
  const out = new Int32Array(m);
  for (let k = 0, j = 0; k < n; k++) if (keep[k]) out[j++] = k;
  return out;
}

/**
 * `curveData`'s result as the worker posts it (see `PostedCurves`): columns (NaN where absent) thinned for
 * the screen, the key dots as x/y arrays from the full columns thinned to what a plot of `grid` pixels draws
 * (`thinDots`: a million keys are a few thousand dots, not 64 MB posted and looped over at every redraw;
 * the keys themselves stay in the worker), and the buffers to transfer.
 */
export function postCurves(
  kind: CurveKind,
  joint: number,
  d: CurveData,
  buckets = DRAW_COLUMNS,
  grid: DotGrid = DEFAULT_DOT_GRID,
): { curves: PostedCurves; transfer: ArrayBuffer[] } {
  const full = d.columns;
  const half = (full.length - 1) / 2;
  const times = full[0];
  const x0 = times[0] ?? 0;
  const x1 = times[times.length - 1] ?? 0;
  const dots: PostedCurves['dots'] = [];
  for (const set of d.dots) {
    const rows = set.rows;
    // the keys' times, gathered once for the set's channels
    const at = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) at[i] = times[rows[i]];
    for (const c of set.columns) {
      const col = full[c];
      let xs = new Float64Array(rows.length);
      let ys = new Float64Array(rows.length);
      let n = 0;
      for (let i = 0; i < rows.length; i++) {
        const v = col[rows[i]];
        if (v === undefined || Number.isNaN(v)) continue;
        xs[n] = at[i];
        ys[n++] = v;
      }
      xs = xs.subarray(0, n);
      ys = ys.subarray(0, n);
      const kept = thinDots(xs, ys, x0, x1, grid);
      dots.push({
        column: c,
        processed: c > half,
        x: kept ? Float64Array.from(kept, (k) => xs[k]) : xs.slice(),
        y: kept ? Float64Array.from(kept, (k) => ys[k]) : ys.slice(),
        keys: n,
      });
    }
  }
  const keep = decimationRows(full, buckets);
  const columns = keep ? full.map((c) => Float64Array.from(keep, (r) => c[r])) : full;
  const transfer = new Set<ArrayBuffer>();
  for (const c of columns) transfer.add(c.buffer as ArrayBuffer);
  for (const s of dots) {
    transfer.add(s.x.buffer as ArrayBuffer);
    transfer.add(s.y.buffer as ArrayBuffer);
  }
  return {
    curves: {
      kind,
      joint,
      columns,
      rows: times.length,
      dots,
      grid: { width: grid.width, height: grid.height },
      markers: d.markers,
      summary: d.summary,
      hasProcessed: d.hasProcessed,
      processedDiff: d.processedDiff,
    },
    transfer: [...transfer],
  };
}

/** Merges two increasing time grids into one x axis, returning the index of each source sample in it. */
export function mergeGrids(
  a: Float64Array,
  b: Float64Array,
): { x: Float64Array; ia: Int32Array; ib: Int32Array } {
  const eps = 1e-9;
  const x: number[] = [];
  const ia = new Int32Array(a.length);
  const ib = new Int32Array(b.length);
  let i = 0;
  let k = 0;
  while (i < a.length || k < b.length) {
    if (k >= b.length || (i < a.length && a[i] < b[k] - eps)) {
      ia[i++] = x.length;
      x.push(a[i - 1]);
    } else if (i >= a.length || b[k] < a[i] - eps) {
      ib[k++] = x.length;
      x.push(b[k - 1]);
    } else {
      ia[i++] = x.length;
      ib[k++] = x.length;
      x.push(a[i - 1]);
    }
  }
  return { x: Float64Array.from(x), ia, ib };
}
