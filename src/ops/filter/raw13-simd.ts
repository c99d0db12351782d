/**
 * The raw-space 13-tap fast path of {@link filterRotations} on the WebAssembly SIMD kernel (`raw13` in
 * `numeric/simd.wat`): two joints per instruction, the same operations in the same order as the
 * JavaScript phases, so the results are the same to the bit (the tests compare both paths). A block of
 * source rows is copied into the kernel's memory, filtered there, and its output rows copied out.
 *
 * @module
 */
import { simdScratch } from '../../numeric/simd.js';
import type { FloatArray } from '../../series/types.js';

/** Output frames per block: the block's per-pair scratch (96 bytes per row) stays in the first-level cache. */
const SIMD_BLOCK = 256;
/** Most bytes of source and output rows a block holds; fewer frames per block for very wide skeletons. */
const BLOCK_BYTES = 8 << 20;
/** Below this many output frames per block, the copies cost more than the kernel saves. */
const MIN_BLOCK = 16;

/** One block at a time through the kernel; see {@link createSimdRaw13}. @internal */
export interface SimdRaw13 {
  /** Output frames per block (the caller's blocks are at most this long). */
  readonly block: number;
  /**
   * Filters output frames `[b0, b1)` (at most {@link SimdRaw13.block}; source frames `b0 − 6 .. b1 + 6` must
   * exist) of `src` into `dst`. Returns how many windows the caller must compute again, listed in
   * {@link SimdRaw13.unsafe} in row-major order (those whose chords are too long for the sign shortcut),
   * or −1, writing nothing, when a window that passes the chord test sums to no finite, non-zero
   * quaternion: the caller then computes the whole block itself (and reports the error as it does).
   */
  run(dst: FloatArray, src: FloatArray, b0: number, b1: number): number;
  /** `(f − b0) · joints + joint` of each window the last {@link SimdRaw13.run} left to the caller. */
  readonly unsafe: Int32Array;
}

/**
 * A kernel runner for `joints` joints and the symmetric 13-weight `table` over `outputs` output frames (no
 * block is longer), with `safeChords` the chord bound of the sign shortcut, or null where the kernel is
 * unavailable (no WebAssembly SIMD, switched off, or the memory cannot be had) or a block would be too
 * short: the caller then runs its JavaScript phases.
 *
 * @internal
 */
export function createSimdRaw13(
  joints: number,
  table: Float64Array,
  outputs: number,
  safeChords: number,
): SimdRaw13 | null {
  const stride = joints * 4;
  const rowBytes = stride * 8;
  const block = Math.min(SIMD_BLOCK, outputs, Math.floor(BLOCK_BYTES / (2 * rowBytes)) - 12);
  if (joints === 0 || block < MIN_BLOCK) return null;
  const rows = block + 12;
  const align = (n: number) => (n + 15) & ~15;
  const scratchAt = 64;
  const inAt = align(scratchAt + rows * 96);
  const outAt = inAt + align(rows * rowBytes);
  const flagsAt = outAt + align(block * rowBytes);
  const instance = simdScratch(flagsAt + block * joints * 4);
  if (instance === null) return null;
  const { kernels, buffer } = instance;
  new Float64Array(buffer, 0, 7).set(table.subarray(0, 7));
  const input = new Float64Array(buffer, inAt, rows * stride);
  const output = new Float64Array(buffer, outAt, block * stride);
  const flags = new Int32Array(buffer, flagsAt, block * joints);
  let unsafe = flags.subarray(0, 0);
  return {
    block,
    get unsafe() {
      return unsafe;
    },
    run(dst, src, b0, b1) {
      const m = b1 - b0 + 12;
      input.set(src.subarray((b0 - 6) * stride, (b1 + 6) * stride));
      const n = kernels.raw13(inAt, m, joints, outAt, 0, scratchAt, safeChords, flagsAt);
      if (n < 0) return -1;
      dst.set(output.subarray(0, (b1 - b0) * stride), b0 * stride);
      // the kernel lists them pair by pair; the JavaScript meets them row by row
      unsafe = flags.subarray(0, n);
      if (n > 1) unsafe.sort();
      return n;
    },
  };
}
