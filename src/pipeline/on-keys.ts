// A keyed clip's tracks written back at their own key times after steps that keep the timing ran on
// its baked uniform clip: the processed signal read at each key, whatever the keys' spacing.
import type { Clip, KeyedClip, Track } from '../series/clip.js';

/** A key within this fraction of a frame of a grid frame is that frame. */
const ON_FRAME = 1e-6;

/**
 * The moving tracks of `keyed` (rotation, translation, scale; morph weights are left to the caller) at
 * their own key times, bit for bit, with their own interpolation, after `baked` (the keyed clip baked on
 * a uniform grid) became `processed` (the same grid, steps that keep the timing: unroll, smooth, live
 * filters). A key on a grid frame takes the processed frame. A key between frames takes its own value
 * moved by what the steps changed there: for rotations the change `d = processed ⊗ baked⁻¹` of the two
 * frames around it, slerped, applied on the left (`d ⊗ key`); for vectors the difference, interpolated
 * linearly. A STEP key takes the change at the first frame at or after it (the frame that holds it). A
 * CUBICSPLINE key keeps its tangents moved by the change's derivative: `d' ⊗ key + d ⊗ tangent` for
 * rotations (per second, as glTF stores them; the value's sign is the key's, so the tangents match the
 * written quaternion), `tangent + δ'` for vectors, `d'` taken over one frame each side. A track the
 * steps did not change (a joint outside `joints`) is returned as it was. Null when the grids do not
 * match (the caller then writes every frame as a key).
 */
export function onOwnKeys(keyed: KeyedClip, baked: Clip, processed: Clip): Track[] | null {
  if (processed.frames !== baked.frames || processed.rate !== baked.rate) return null;
  const t0 = processed.startTime ?? 0;
  const rate = processed.rate;
  const F = processed.frames;
  const J = processed.skeleton.names.length;
  const out: Track[] = [];
  for (const t of keyed.tracks) {
    if (t.path === 'weights') continue;
    const pick = (c: Clip) =>
      t.path === 'rotation'
        ? c.rotations.data
        : t.path === 'translation'
          ? c.translations.data
          : c.scales?.data;
    const P = pick(processed);
    const B = pick(baked);
    const w = t.path === 'rotation' ? 4 : 3;
    if (P === undefined || B === undefined || t.width !== w) return null;
    if (unchanged(P, B, F, J, t.joint, w)) {
      out.push(t);
      continue;
    }
    const delta =
      t.path === 'rotation' ? rotationDeltas(P, B, F, J, t.joint) : vectorDeltas(P, B, F, J, t.joint);
    const cubic = t.interpolation === 'cubicspline';
    const stride = cubic ? 3 * w : w;
    const at = cubic ? w : 0;
    const values = Float64Array.from(t.values as ArrayLike<number>);
    const d = new Float64Array(w);
    const key = new Float64Array(w);
    for (let k = 0; k < t.times.length; k++) {
      const time = t.times[k];
      const raw = Math.min(Math.max((time - t0) * rate, 0), F - 1);
      const frame = Math.round(raw);
      // on a frame as the bake meets float32 key times (two roundings), or within a hair of a frame
      const onFrame =
        Math.abs(raw - frame) <= ON_FRAME ||
        Math.abs(time - (t0 + frame / rate)) <= 2 ** -22 * Math.abs(time);
      // a STEP key is held from its time on: the change at the first frame that holds it
      const u = onFrame ? frame : t.interpolation === 'step' ? Math.min(Math.ceil(raw), F - 1) : raw;
      for (let c = 0; c < w; c++) key[c] = t.values[k * stride + at + c];
      sampleDelta(d, delta, w, u);
      if (onFrame) {
        // the processed frame itself (a loop's closing key is then its first pose, the seam 0)
        for (let c = 0; c < w; c++) values[k * stride + at + c] = P[(frame * J + t.joint) * w + c];
        if (w === 4) alignTo(values, k * stride + at, key);
      } else if (w === 4) {
        multiplyInto(values, k * stride + at, d, key);
        normalizeAt(values, k * stride + at);
      } else for (let c = 0; c < w; c++) values[k * stride + at + c] = key[c] + d[c];
      if (!cubic) continue;
      // tangents carried with the key (the fit below replaces those that bound a segment)
      for (const side of [0, 2 * w]) {
        const o = k * stride + side;
        if (w === 4) multiplyInto(values, o, d, t.values.subarray(o, o + 4));
      }
    }
    closeSeam(t, values, P, F, J, stride, at);
    if (cubic) fitTangents(t, values, delta, t0, rate);
    out.push({ ...t, values });
  }
  return out;
}

/** Weight of the carried tangents in {@link fitTangents}: decides only where the frames do not. */
const TANGENT_PRIOR = 1e-4;

/**
 * The tangents of a CUBICSPLINE track that bound each segment, fitted (least squares, the values at
 * the keys held) so that the segment's Hermite curve follows the processed motion at the grid frames
 * inside it: the input's own curve moved by the change at each frame (`d ⊗ H(t)` for rotations, on the
 * input's unnormalised curve so that its norm profile and signs stay; `H(t) + δ` for vectors). Where
 * the steps changed nothing the fit gives back the input's tangents; a segment with fewer than two
 * frames keeps the tangents carried with its keys (`d ⊗ tangent`) where the frames leave them free.
 */
function fitTangents(t: Track, values: Float64Array, delta: Float64Array, t0: number, rate: number): void {
  const w = t.width;
  const n = t.times.length;
  const stride = 3 * w;
  const F = delta.length / w;
  const H = new Float64Array(w);
  const target = new Float64Array(w);
  const d = new Float64Array(w);
  const R1 = new Float64Array(w);
  const R2 = new Float64Array(w);
  for (let k = 0; k + 1 < n; k++) {
    const ta = t.times[k];
    const td = t.times[k + 1] - ta;
    const first = Math.max(Math.ceil((ta - t0) * rate + ON_FRAME), 0);
    const last = Math.min(Math.floor((t.times[k + 1] - t0) * rate - ON_FRAME), F - 1);
    let S11 = TANGENT_PRIOR;
    let S12 = 0;
    let S22 = TANGENT_PRIOR;
    const out = k * stride + 2 * w;
    const inn = (k + 1) * stride;
    for (let c = 0; c < w; c++) {
      R1[c] = TANGENT_PRIOR * td * values[out + c];
      R2[c] = TANGENT_PRIOR * td * values[inn + c];
    }
    for (let f = first; f <= last; f++) {
      const s = (t0 + f / rate - ta) / td;
      const s2 = s * s;
      const s3 = s2 * s;
      const h00 = 2 * s3 - 3 * s2 + 1;
      const h10 = s3 - 2 * s2 + s;
      const h01 = -2 * s3 + 3 * s2;
      const h11 = s3 - s2;
      // the input's curve (unnormalised), moved by the change at this frame
      for (let c = 0; c < w; c++)
        H[c] =
          h00 * t.values[k * stride + w + c] +
          td * h10 * t.values[out + c] +
          h01 * t.values[inn + w + c] +
          td * h11 * t.values[inn + c];
      for (let c = 0; c < w; c++) d[c] = delta[f * w + c];
      if (w === 4) multiplyInto(target, 0, d, H);
      else for (let c = 0; c < w; c++) target[c] = H[c] + d[c];
      S11 += h10 * h10;
      S12 += h10 * h11;
      S22 += h11 * h11;
      for (let c = 0; c < w; c++) {
        const r = target[c] - h00 * values[k * stride + w + c] - h01 * values[inn + w + c];
        R1[c] += h10 * r;
        R2[c] += h11 * r;
      }
    }
    const det = S11 * S22 - S12 * S12;
    for (let c = 0; c < w; c++) {
      values[out + c] = (S22 * R1[c] - S12 * R2[c]) / det / td;
      values[inn + c] = (S11 * R2[c] - S12 * R1[c]) / det / td;
    }
  }
}

/**
 * A loop smoothed round its seam (the processed clip's last frame is its first, bit for bit) whose
 * track ends on its first value (to float32 rounding): the last key takes the written first value, so
 * the seam stays 0 where the last key lies between frames (a clip whose keys are not one grid).
 */
function closeSeam(
  t: Track,
  values: Float64Array,
  P: ArrayLike<number>,
  F: number,
  J: number,
  stride: number,
  at: number,
): void {
  const n = t.times.length;
  const w = t.width;
  if (n < 2) return;
  for (let c = 0; c < w; c++) if (!Object.is(P[t.joint * w + c], P[((F - 1) * J + t.joint) * w + c])) return;
  const first = at;
  const last = (n - 1) * stride + at;
  let sign = 1;
  if (t.path === 'rotation') {
    let dot = 0;
    for (let c = 0; c < 4; c++) dot += t.values[first + c] * t.values[last + c];
    sign = dot < 0 ? -1 : 1;
  }
  for (let c = 0; c < w; c++)
    if (
      Math.abs(t.values[last + c] - sign * t.values[first + c]) >
      2 ** -22 * Math.max(1, Math.abs(t.values[first + c]))
    )
      return;
  for (let c = 0; c < w; c++) values[last + c] = sign * values[first + c];
}

/** True when the processed series of one joint is the baked one bit for bit (the steps left it alone). */
function unchanged(
  P: ArrayLike<number>,
  B: ArrayLike<number>,
  F: number,
  J: number,
  joint: number,
  w: number,
): boolean {
  for (let f = 0; f < F; f++)
    for (let c = 0; c < w; c++)
      if (!Object.is(P[(f * J + joint) * w + c], B[(f * J + joint) * w + c])) return false;
  return true;
}

/** Per frame, `processed ⊗ baked⁻¹` of one joint, unit, on the `w >= 0` side (a small change near identity). */
function rotationDeltas(P: ArrayLike<number>, B: ArrayLike<number>, F: number, J: number, joint: number) {
  const out = new Float64Array(F * 4);
  const inv = new Float64Array(4);
  const p = new Float64Array(4);
  for (let f = 0; f < F; f++) {
    const o = (f * J + joint) * 4;
    for (let c = 0; c < 4; c++) p[c] = P[o + c];
    const n2 = B[o] * B[o] + B[o + 1] * B[o + 1] + B[o + 2] * B[o + 2] + B[o + 3] * B[o + 3];
    inv[0] = -B[o] / n2;
    inv[1] = -B[o + 1] / n2;
    inv[2] = -B[o + 2] / n2;
    inv[3] = B[o + 3] / n2;
    multiplyInto(out, f * 4, p, inv);
    normalizeAt(out, f * 4);
    if (out[f * 4 + 3] < 0) for (let c = 0; c < 4; c++) out[f * 4 + c] = -out[f * 4 + c];
  }
  return out;
}

/** Per frame, `processed − baked` of one joint. */
function vectorDeltas(P: ArrayLike<number>, B: ArrayLike<number>, F: number, J: number, joint: number) {
  const out = new Float64Array(F * 3);
  for (let f = 0; f < F; f++)
    for (let c = 0; c < 3; c++) out[f * 3 + c] = P[(f * J + joint) * 3 + c] - B[(f * J + joint) * 3 + c];
  return out;
}

/** The change at frame position `u` (fractional): slerp between the frames around it (rotations), lerp (vectors). */
function sampleDelta(out: Float64Array, delta: Float64Array, w: number, u: number): void {
  const F = delta.length / w;
  const f0 = Math.min(Math.floor(u), F - 1);
  const s = u - f0;
  if (s <= ON_FRAME || f0 + 1 >= F) {
    for (let c = 0; c < w; c++) out[c] = delta[f0 * w + c];
    return;
  }
  const f1 = f0 + 1;
  if (w === 3) {
    for (let c = 0; c < 3; c++) out[c] = delta[f0 * 3 + c] + s * (delta[f1 * 3 + c] - delta[f0 * 3 + c]);
    return;
  }
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += delta[f0 * 4 + c] * delta[f1 * 4 + c];
  const sign = dot < 0 ? -1 : 1;
  const cos = Math.min(1, Math.abs(dot));
  const angle = Math.acos(cos);
  let wa = 1 - s;
  let wb = s;
  if (angle > 1e-10) {
    const sin = Math.sin(angle);
    wa = Math.sin((1 - s) * angle) / sin;
    wb = Math.sin(s * angle) / sin;
  }
  for (let c = 0; c < 4; c++) out[c] = wa * delta[f0 * 4 + c] + sign * wb * delta[f1 * 4 + c];
  normalizeAt(out, 0);
}

/** Hamilton product `a ⊗ b` (x, y, z, w) into `out[o…o+4)`; `a`, `b` unscaled. */
function multiplyInto(out: Float64Array, o: number, a: ArrayLike<number>, b: ArrayLike<number>): void {
  const [ax, ay, az, aw] = [a[0], a[1], a[2], a[3]];
  const [bx, by, bz, bw] = [b[0], b[1], b[2], b[3]];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

function normalizeAt(q: Float64Array, o: number): void {
  const l = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
  if (l > 0) for (let c = 0; c < 4; c++) q[o + c] /= l;
}

/** Negates `q[o…o+4)` when it is on the other side of `ref`. */
function alignTo(q: Float64Array, o: number, ref: ArrayLike<number>): void {
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += q[o + c] * ref[c];
  if (dot < 0) for (let c = 0; c < 4; c++) q[o + c] = -q[o + c];
}
