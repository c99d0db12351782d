/**
 * The down-sampling log blend of {@link resampleRotations} on the WebAssembly SIMD kernel (`blendLog` in
 * `numeric/simd.wat`): two joints per instruction, the same operations in the same order as the scalar
 * loop, so the results are the same to the bit (the tests compare both paths). The source frames are
 * copied into the kernel's memory a block at a time (each frame about once), and each output frame's
 * taps are passed as weights and addresses.
 *
 * @module
 */
import { type SimdKernels, simdScratch } from '../../numeric/simd.js';
import type { FloatArray } from '../../series/types.js';

/** Bytes of source frames the kernel's memory holds at once (more when one output frame's taps need it). */
const BLOCK_BYTES = 4 << 20;

/** One output frame at a time through the kernel; see {@link createSimdBlend}. @internal */
export interface SimdBlend {
  /**
   * Blends the output frame whose taps are `frames[0..count)` (weights `weights`) around the reference
   * frame `reference`, for joints `0..2·pairs`, into `out[outBase..]`. Returns the number of joint pairs
   * left to the scalar code (their indices in `flags`), or −1 when the frame's taps span more than the
   * memory's block (a looping clip's wrapped taps): then the caller computes the whole frame.
   */
  run(
    out: FloatArray,
    outBase: number,
    data: FloatArray,
    reference: number,
    weights: Float64Array,
    frames: Int32Array,
    count: number,
    invW: number,
  ): number;
  /** The pairs the last {@link SimdBlend.run} left to the scalar code (its return value counts them). */
  readonly flags: Int32Array;
  /** Joint pairs the kernel computes (the last joint of an odd count is the caller's). */
  readonly pairs: number;
}

/**
 * A kernel runner for a source of `frames` frames of `joints` joints and windows of at most `capacity`
 * taps, or null where the kernel is unavailable (no WebAssembly SIMD, switched off, or the memory cannot
 * be had) or there is no pair of joints: the caller then runs its scalar loop.
 *
 * @internal
 */
export function createSimdBlend(joints: number, frames: number, capacity: number): SimdBlend | null {
  const pairs = joints >> 1;
  if (pairs === 0 || frames === 0) return null;
  const stride = joints * 4;
  const strideBytes = stride * 8;
  const blockFrames = Math.min(frames, Math.max(4 * capacity + 4, Math.floor(BLOCK_BYTES / strideBytes)));
  const align = (n: number) => (n + 15) & ~15;
  const tapsAt = align(capacity * 8);
  const outAt = tapsAt + align(capacity * 4);
  const flagsAt = outAt + pairs * 64;
  const blockAt = flagsAt + align(pairs * 4);
  const instance = simdScratch(blockAt + blockFrames * strideBytes);
  if (instance === null) return null;
  const kernels: SimdKernels = instance.kernels;
  const buffer = instance.buffer;
  const weightView = new Float64Array(buffer, 0, capacity);
  const tapView = new Int32Array(buffer, tapsAt, capacity);
  const outView = new Float64Array(buffer, outAt, pairs * 8);
  const flags = new Int32Array(buffer, flagsAt, pairs);
  const block = new Float64Array(buffer, blockAt, blockFrames * stride);
  // source frames [lo, hi) are in the block
  let lo = 0;
  let hi = 0;
  return {
    flags,
    pairs,
    run(out, outBase, data, reference, weights, tapFrames, count, invW) {
      let min = reference;
      let max = reference;
      for (let t = 0; t < count; t++) {
        const f = tapFrames[t];
        if (f < min) min = f;
        if (f > max) max = f;
      }
      if (max - min >= blockFrames) return -1;
      if (min < lo || max >= hi) {
        lo = min;
        hi = Math.min(frames, lo + blockFrames);
        block.set(data.subarray(lo * stride, hi * stride));
      }
      for (let t = 0; t < count; t++) {
        weightView[t] = weights[t];
        tapView[t] = blockAt + (tapFrames[t] - lo) * strideBytes;
      }
      const flagged = kernels.blendLog(
        0,
        tapsAt,
        count,
        blockAt + (reference - lo) * strideBytes,
        pairs,
        invW,
        outAt,
        flagsAt,
      );
      out.set(outView, outBase);
      return flagged;
    },
  };
}
