// The quaternion filter of EXT_meshopt_compression (glTF, Appendix B "Filters", filter 2): three components
// of a unit quaternion as K-bit integers (4 <= K <= 16) plus the index of the largest, which is left out and
// restored as the positive square root. Encoding is ours; decoding reproduces meshoptimizer's decoder bit for
// bit (its WebAssembly SIMD path, which browsers and Node run), so what the reduction measures is what a
// player loads.

const f32 = Math.fround;
/** `32767 / sqrtf(2)` in float32, as the decoder computes it. */
const SCALE = f32(32767 / f32(Math.SQRT2));
/** `3 << 22`: adding it rounds a float32 to an integer (ties to even) in its low mantissa bits. */
const SNAP = 3 << 22;

/** Smallest and largest bit widths the filter allows. */
export const QUAT_FILTER_MIN_BITS = 4;
export const QUAT_FILTER_MAX_BITS = 16;

function snap(v: number): number {
  return f32(v + SNAP) - SNAP;
}

/**
 * Encodes the quaternion `q[i..i+4]` (x, y, z, w; unit length, any sign) at `bits` bits into
 * `codes[o..o+4]`: the three components after the largest, in cyclic order, scaled by √2 and rounded to
 * `bits`-bit integers (the largest made positive by the double cover), and `1.0` at `bits` bits with the
 * largest's index in its two low bits.
 */
export function encodeQuatFilter(
  q: ArrayLike<number>,
  i: number,
  bits: number,
  codes: Int16Array,
  o: number,
): void {
  let qc = 0;
  let m = Math.abs(q[i]);
  for (let c = 1; c < 4; c++) {
    const a = Math.abs(q[i + c]);
    if (a > m) {
      m = a;
      qc = c;
    }
  }
  const one = (1 << (bits - 1)) - 1;
  const s = (q[i + qc] < 0 ? -1 : 1) * one * Math.SQRT2;
  for (let c = 0; c < 3; c++) {
    const v = Math.round(q[i + ((qc + 1 + c) & 3)] * s);
    codes[o + c] = v > one ? one : v < -one ? -one : v;
  }
  codes[o + 3] = (one & ~3) | qc;
}

/**
 * Decodes `codes[o..o+4]` into normalised 16-bit components `out[p..p+4]` (x, y, z, w) exactly as
 * meshoptimizer's decoder does (float32 arithmetic, rounding ties to even).
 */
export function decodeQuatFilter(codes: Int16Array, o: number, out: Int16Array, p: number): void {
  const s = codes[o + 3] | 3;
  const x = codes[o];
  const y = codes[o + 1];
  const z = codes[o + 2];
  const ws = f32(s * s);
  const ww = f32(f32(ws + ws) - f32(f32(x * x) + f32(f32(y * y) + f32(z * z))));
  const w = f32(Math.sqrt(ww > 0 ? ww : 0));
  const ss = f32(SCALE / s);
  const qc = codes[o + 3] & 3;
  out[p + ((qc + 1) & 3)] = snap(f32(x * ss));
  out[p + ((qc + 2) & 3)] = snap(f32(y * ss));
  out[p + ((qc + 3) & 3)] = snap(f32(z * ss));
  out[p + qc] = snap(f32(w * ss));
}
