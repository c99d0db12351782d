// The exponential filter of EXT_meshopt_compression (glTF, Appendix B "Filters", filter 3) in its
// shared-component mode: each component of a float vector as a K-bit signed mantissa with an exponent
// shared by that component over every element. Encoding reproduces meshoptimizer's
// `meshopt_encodeFilterExp` with `meshopt_EncodeExpSharedComponent` bit for bit (float32 arithmetic);
// decoding is the filter's `ldexp(m, e)`.
import { InvalidValueError, OptionError } from '../../errors.js';

/** Smallest and largest mantissa widths the filter's encoder allows. */
export const EXP_FILTER_MIN_BITS = 1;
export const EXP_FILTER_MAX_BITS = 24;

const f32 = Math.fround;
const bitsOf = new Float32Array(1);
const wordOf = new Uint32Array(bitsOf.buffer);
/** Exponent given to an all-zero component (meshoptimizer's `min_exp`). */
const MIN_EXP = -100;

/** `frexp`'s exponent of float32 `v` (meshoptimizer's `optlog2`): its biased exponent − 126. */
function log2(v: number): number {
  bitsOf[0] = v;
  return ((wordOf[0] >>> 23) & 0xff) - 126;
}

/**
 * Encodes `count` elements of `width` float components (`values`, element-major; taken as float32) with
 * `bits`-bit mantissas into `out` (one 32-bit code per component: mantissa in the low 24 bits, exponent
 * in the high 8), each component's exponent shared over the elements (the largest `frexp` exponent, at
 * least −100). Bit-exact with meshoptimizer's encoder in `SharedComponent` mode (`encodeFilterExp` of
 * the `meshoptimizer` package), including its rounding (`int(v·2^-e ± 0.5f)` in float32) and its clamp of
 * the largest mantissa. The decoded error of a component is at most half a step, `2^(E − bits)` with `E`
 * its shared exponent.
 *
 * @throws {OptionError} when `bits` is not an integer from 1 to 24 or `width` not from 1 to 64.
 * @throws {InvalidValueError} when a value is not finite or its magnitude is 2^100 or more.
 */
export function encodeExpFilter(
  values: ArrayLike<number>,
  count: number,
  width: number,
  bits: number,
  out: Uint32Array,
): void {
  if (!Number.isInteger(bits) || bits < EXP_FILTER_MIN_BITS || bits > EXP_FILTER_MAX_BITS)
    throw new OptionError(`encodeExpFilter: bits must be an integer from 1 to 24, got ${String(bits)}`);
  if (!Number.isInteger(width) || width < 1 || width > 64)
    throw new OptionError(`encodeExpFilter: width must be an integer from 1 to 64, got ${String(width)}`);
  const exps = new Int32Array(width).fill(MIN_EXP);
  for (let i = 0; i < count * width; i++) {
    const v = values[i];
    if (!Number.isFinite(v) || Math.abs(v) >= 2 ** 100)
      throw new InvalidValueError(
        `encodeExpFilter: value ${v} of element ${Math.floor(i / width)}, component ${i % width} is not a finite number below 2^100`,
        { index: i },
      );
    const e = log2(v);
    if (e > exps[i % width]) exps[i % width] = e;
  }
  for (let c = 0; c < width; c++) exps[c] -= bits - 1;
  for (let i = 0; i < count * width; i++) {
    const v = f32(values[i]);
    const e = exps[i % width];
    let m = Math.trunc(f32(f32(v * 2 ** -e) + (v >= 0 ? 0.5 : -0.5)));
    if (m > 0x7fffff) m = 0x7fffff;
    out[i] = ((m & 0xffffff) | (e << 24)) >>> 0;
  }
}

/** Decodes exponential filter codes into float32 values (`m · 2^e`, as meshoptimizer's decoder does). */
export function decodeExpFilter(codes: Uint32Array, out: Float32Array): void {
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    out[i] = ((c << 8) >> 8) * 2 ** (c >> 24);
  }
}
