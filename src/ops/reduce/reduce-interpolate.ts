// What a player evaluates between kept keys (slerp/lerp or glTF cubic Hermite), with 16-bit rounding of
// rotation keys when asked.
import { slerpFlat } from '../../quat/core.js';
import type { Check } from './reduce-check.js';
import { CUBIC, LINEAR, STEP } from './reduce-keyed.js';
import type { Resolved } from './reduce-options.js';
import type { Prepared } from './reduce-prepare.js';

/** Rounds to the nearest normalised 16-bit value, as `KHR_mesh_quantization` stores it. */
export function quantize16(x: number): number {
  return Math.max(-32767, Math.min(32767, Math.round(x * 32767))) / 32767;
}

/**
 * Whether joint `j`'s rotation keys are rounded to normalised 16-bit values as stored: `'int16'`
 * quantisation, except the tracks variable bit rates keep as they are (`o.storedAsIs`).
 */
export function rounds16(o: Resolved, j: number): boolean {
  return o.quantization === 'int16' && !(o.storedAsIs?.[j * 3 + 1] === 1);
}

const qa = new Float64Array(4);
const qb = new Float64Array(4);

/**
 * How the player interpolates one component of joint `j`: the keyed track's own interpolation, or, for a
 * uniform clip, `o.interpolation` ({@link LINEAR}, {@link STEP} or {@link CUBIC}).
 */
export function interpolationOf(d: Prepared, o: Resolved, j: number, component: number): number {
  if (d.keyed !== null) return d.keyed.interpolation[j * 3 + component];
  return o.interpolation === 'cubicspline' ? CUBIC : LINEAR;
}

/**
 * The interpolation parameter of frame `f` between keys at frames `a < b`: from the frames' times on a
 * keyed clip (`(t_f − t_a)/(t_b − t_a)`, as glTF defines it), from the frame numbers on a uniform one.
 */
export function spanFraction(d: Prepared, a: number, b: number, f: number): number {
  const times = d.keyed?.times;
  return times ? (times[f] - times[a]) / (times[b] - times[a]) : (f - a) / (b - a);
}

/**
 * Value of one component of joint `j` at frame `f` from keys at frames `a` and `b`, as the player
 * evaluates it (linear: slerp/lerp; step: key `a` until `b`; cubic: glTF Hermite with the keys' tangents;
 * rotations normalised after; quantised rotation keys when asked).
 */
export function interpolateComponent(
  out: Float64Array,
  d: Prepared,
  o: Resolved,
  j: number,
  component: 0 | 1 | 2,
  a: number,
  b: number,
  f: number,
): void {
  const J = d.J;
  const w = component === 1 ? 4 : 3;
  const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
  const ia = (a * J + j) * w;
  const ib = (b * J + j) * w;
  const mode = interpolationOf(d, o, j, component);
  const round = component === 1 && rounds16(o, j);
  if (a === b || (mode === STEP && f < b)) {
    // the key itself, as stored
    for (let c = 0; c < w; c++) out[c] = round ? quantize16(src[ia + c]) : src[ia + c];
    if (round) normalise4(out);
    return;
  }
  if (mode === STEP) {
    // f === b: the key at b
    interpolateComponent(out, d, o, j, component, b, b, b);
    return;
  }
  const u = spanFraction(d, a, b, f);
  if (mode === LINEAR) {
    if (component === 1) {
      for (let c = 0; c < 4; c++) {
        qa[c] = round ? quantize16(src[ia + c]) : src[ia + c];
        qb[c] = round ? quantize16(src[ib + c]) : src[ib + c];
      }
      slerpFlat(out, 0, qa, 0, qb, 0, u);
      if (round) normalise4(out);
      return;
    }
    for (let c = 0; c < 3; c++) out[c] = src[ia + c] + (src[ib + c] - src[ia + c]) * u;
    return;
  }
  // glTF cubic spline: p(u) = (2u³ − 3u² + 1)·v_a + (u³ − 2u² + u)·td·m_a + (−2u³ + 3u²)·v_b + (u³ − u²)·td·m_b
  const der = component === 0 ? d.dt : component === 1 ? d.dq : d.ds;
  const din = component === 0 ? d.it : component === 1 ? d.iq : d.is;
  const td = d.keyed ? d.keyed.times[b] - d.keyed.times[a] : (b - a) * d.frameTime;
  const u2 = u * u;
  const u3 = u2 * u;
  const h00 = 2 * u3 - 3 * u2 + 1;
  const h10 = u3 - 2 * u2 + u;
  const h01 = -2 * u3 + 3 * u2;
  const h11 = u3 - u2;
  for (let c = 0; c < w; c++) {
    out[c] = h00 * src[ia + c] + h10 * td * der[ia + c] + h01 * src[ib + c] + h11 * td * din[ib + c];
  }
  if (component === 1) normalise4(out);
}

/**
 * Divides the quaternion at `q[o..o+3]` by its norm, in place: the one normalisation of the reduction's
 * players, the search, the rounded reference and the report alike, so their poses agree bit for bit. The
 * norm is `√(x²+y²+z²+w²)`; only where that sum would underflow or overflow is it `Math.hypot` (slow in V8).
 */
export function normalise4(q: Float64Array, o = 0): void {
  const x = q[o];
  const y = q[o + 1];
  const z = q[o + 2];
  const w = q[o + 3];
  const n2 = x * x + y * y + z * z + w * w;
  const n = n2 > 1e-280 && n2 < 1e280 ? Math.sqrt(n2) : Math.hypot(x, y, z, w);
  q[o] = x / n;
  q[o + 1] = y / n;
  q[o + 2] = z / n;
  q[o + 3] = w / n;
}

/** Replaces one component of the joint's candidate local values by what its kept keys evaluate to. */
export function apply(check: Check, component: 0 | 1 | 2, kept: Int32Array): void {
  const { d, o, j, state } = check;
  const w = component === 1 ? 4 : 3;
  const dst = component === 0 ? state.lt : component === 1 ? state.lq : state.ls;
  const src = component === 0 ? d.t : component === 1 ? d.q : d.s;
  const v = check.scratch;
  for (let k = 0; k < kept.length; k++) {
    const f = kept[k];
    for (let c = 0; c < w; c++) {
      const x = src[(f * d.J + j) * w + c];
      dst[f * w + c] = component === 1 && o.quantization === 'int16' ? quantize16(x) : x;
    }
    if (component === 1 && o.quantization === 'int16') normalise4(dst, f * 4);
    if (k === 0) continue;
    const a = kept[k - 1];
    for (let g = a + 1; g < f; g++) {
      interpolateComponent(v, d, o, j, component, a, f, g);
      for (let c = 0; c < w; c++) dst[g * w + c] = v[c];
    }
  }
  // before the first key and after the last the player holds them (a one-key track everywhere; a keyed
  // track may start after the clip's first frame)
  const first = kept[0];
  for (let g = 0; g < first; g++) for (let c = 0; c < w; c++) dst[g * w + c] = dst[first * w + c];
  const last = kept[kept.length - 1];
  for (let g = last + 1; g < d.F; g++) for (let c = 0; c < w; c++) dst[g * w + c] = dst[last * w + c];
}
