/**
 * rotsig's WebAssembly kernels (`simd.wat`, assembled into `simd-bytes.ts` by `scripts/build_simd.mjs`): the
 * live rotation filters (`ops/live`), the log-space blend of down-sampling (`ops/resample`) and the raw-space
 * 13-tap filter (`ops/filter`) on 128-bit SIMD, and the BVH reader's and writer's scalar kernels (`io/bvh`: plain rows, Euler angles to quaternions,
 * translations, six-decimal rows). Compiled once, synchronously, when the engine validates the module (it
 * uses SIMD instructions: Node 20 and every current browser; where synchronous compilation is refused, as
 * older Chromium does for modules over 4 KB on a page's main thread, asynchronously, for callers that come
 * after it). Each live filter gets its own instance and fixed-size memory; the other callers share one
 * scratch instance per thread ({@link simdScratch}), replaced by a larger one when they need more. Engines
 * without the module get `null`, and the callers run their JavaScript loops. The live filters' kernels
 * agree with their JavaScript to about an ulp (the same operations in the same order; large angles through
 * fdlibm's reductions where the JavaScript calls `Math.atan2`, `Math.sin`, `Math.cos`); the others give the
 * JavaScript's bits, leaving to it whatever they do not cover.
 *
 * No `node:*`, no DOM: the module reads `WebAssembly` from `globalThis` and decodes its own base64.
 *
 * @module
 */
import { SIMD_WASM_BASE64 } from './simd-bytes.js';

/** The part of the WebAssembly JavaScript API used here (the core's TypeScript settings have no DOM types). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  compile?: (bytes: Uint8Array) => Promise<object>;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: {
    initial: number;
    maximum: number;
  }) => { buffer: ArrayBuffer; grow(pages: number): number };
}

/** The exports of `simd.wat` (addresses are byte offsets into the instance's memory). */
export interface SimdKernels {
  /** One sample of the critical or exponential damper on rotations, either target path; see `simd.wat`. */
  damperHold(
    input: number,
    value: number,
    velocity: number,
    flags: number,
    scratch: number,
    pairs: number,
    decay: number,
    y: number,
    sdt: number,
    ydt: number,
    lambdaDecay: number,
    linear: number,
    target: number,
    invDt: number,
    lead: number,
    user: number,
    leadOffset: number,
    negativeLead: number,
  ): number;
  /** One sample of the One Euro filter on rotations; see `simd.wat`. */
  oneEuro(
    input: number,
    output: number,
    previous: number,
    speed: number,
    flags: number,
    scratch: number,
    pairs: number,
    adv: number,
    bd: number,
    w2min: number,
    w2beta: number,
    fromInput: number,
  ): number;
  /** Euler angles of BVH rows to quaternions; see `simd.wat`. */
  bvhEuler(
    values: number,
    rows: number,
    width: number,
    descriptors: number,
    joints: number,
    output: number,
    flags: number,
  ): number;
  /** One motion row of the BVH writer at six decimals; see `simd.wat`. */
  bvhSixRow(values: number, width: number, output: number, tables: number): number;
  /** The translations of BVH rows; see `simd.wat`. */
  bvhTranslations(
    values: number,
    rows: number,
    width: number,
    offsets: number,
    n3: number,
    positions: number,
    count: number,
    additive: number,
    output: number,
  ): void;
  /** Whole plain rows of BVH frame data, the scanner's fast path; see `simd.wat`. */
  bvhRows(
    start: number,
    end: number,
    output: number,
    width: number,
    maxRows: number,
    powers: number,
    state: number,
  ): number;
  /** One block of the raw-space 13-tap filter; see `simd.wat`. */
  raw13(
    input: number,
    rows: number,
    joints: number,
    output: number,
    weights: number,
    scratch: number,
    safeChords: number,
    flags: number,
  ): number;
  /** One output frame of the down-sampling log blend; see `simd.wat`. */
  blendLog(
    weights: number,
    taps: number,
    count: number,
    reference: number,
    pairs: number,
    invW: number,
    output: number,
    flags: number,
  ): number;
}

/** A kernel instance with its memory (which never grows, so views of it never detach). */
export interface SimdInstance {
  kernels: SimdKernels;
  buffer: ArrayBuffer;
}

const PAGE = 65536;

/** Most joints a filter runs through the kernels (their memory takes up to 256 bytes per joint). @internal */
export const SIMD_MAX_JOINTS = 1 << 16;

let compiled: object | null | undefined;
let enabled = true;

function decodeBase64(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const value = new Uint8Array(128);
  for (let i = 0; i < 64; i++) value[alphabet.charCodeAt(i)] = i;
  let length = text.length;
  while (text[length - 1] === '=') length--;
  const bytes = new Uint8Array((length * 3) >> 2);
  let bits = 0;
  let count = 0;
  let o = 0;
  for (let i = 0; i < length; i++) {
    bits = (bits << 6) | value[text.charCodeAt(i)];
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[o++] = (bits >> count) & 255;
    }
  }
  return bytes;
}

function wasmApi(): WasmApi | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  return typeof api === 'object' && api !== null && typeof api.validate === 'function' ? api : null;
}

/** The compiled kernels, or null where the engine has no WebAssembly SIMD (or they are switched off). */
function kernelModule(): object | null {
  if (!enabled) return null;
  if (compiled === undefined) {
    compiled = null;
    const api = wasmApi();
    if (api !== null) {
      const bytes = decodeBase64(SIMD_WASM_BASE64);
      let valid = false;
      try {
        // validation fails on engines without the SIMD proposal, whose instructions the module uses
        valid = api.validate(bytes);
      } catch {
        valid = false;
      }
      if (valid) {
        try {
          compiled = new api.Module(bytes);
        } catch {
          // older Chromium refuses to compile modules over 4 KB synchronously on a page's main thread: compile
          // asynchronously, and filters created once that is done use the kernels
          api.compile?.(bytes).then(
            (module) => {
              if (compiled === null) compiled = module;
            },
            () => {},
          );
        }
      }
    }
  }
  return compiled;
}

/** A fresh instance of the kernels with `bytes` of zeroed memory, or null (kernels or memory unavailable). */
function createSimdInstance(bytes: number): SimdInstance | null {
  const module = kernelModule();
  const api = wasmApi();
  if (module === null || api === null) return null;
  try {
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    const memory = new api.Memory({ initial: pages, maximum: pages });
    const instance = new api.Instance(module, { env: { memory } });
    return { kernels: instance.exports as unknown as SimdKernels, buffer: memory.buffer };
  } catch {
    return null;
  }
}

/** Most bytes {@link simdScratch} gives (WebAssembly pages of 64 KiB): 256 MiB. */
const SCRATCH_MAX_PAGES = 4096;
let scratch: SimdInstance | null = null;
let scratchCalls = 0;

/**
 * The kernels with at least `bytes` of memory, for work that copies its data in and out per call (the
 * resampler, the BVH reader and writer): one instance per thread, replaced by a larger one when a call needs more (never grown:
 * growing a memory detaches its buffer, and the first detached buffer in a process makes V8 compile every
 * typed-array access with a detach check from then on, which cost the whole batch about 15%). Null where
 * the kernels are unavailable or `bytes` is over 256 MiB; the caller then runs its JavaScript loop.
 *
 * @internal
 */
export function simdScratch(bytes: number): SimdInstance | null {
  scratchCalls++;
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  if (!(pages <= SCRATCH_MAX_PAGES)) return null;
  if (scratch !== null && scratch.buffer.byteLength >= pages * PAGE && enabled) return scratch;
  // at least 4 MiB, and half as much again as asked, so a batch of growing files replaces it rarely
  const instance = createSimdInstance(PAGE * Math.min(SCRATCH_MAX_PAGES, Math.max(64, pages + (pages >> 1))));
  if (instance !== null) scratch = instance;
  return instance;
}

/**
 * How many times {@link simdScratch} has been called on this thread: a caller that keeps data in the
 * scratch memory across calls of other code compares it before and after, since any other user may have
 * written over that memory in between.
 *
 * @internal
 */
export function simdScratchCalls(): number {
  return scratchCalls;
}

/** One state array of a filter in its kernel's memory: its name, values per joint, and whether it holds rotations. */
export type SimdRegion<K extends string> = readonly [name: K, width: 3 | 4, rotation: boolean];

/**
 * A filter's state in the memory of its own kernel instance, laid out as the kernels read it: joints in
 * pairs (an odd count gets a padding joint), the sample's copy `input` at byte 0 (4 values per joint), then
 * each region in the order given (`width` values per joint, the library's layout), the list of pairs the
 * kernel left (`flags`) and its scratch (256 bytes per pair). `view` holds the regions as arrays of the
 * real joints; `at` their byte offsets, which the kernels take.
 *
 * @internal
 */
export interface SimdState<K extends string> {
  kernels: SimdKernels;
  joints: number;
  pairs: number;
  input: Float64Array;
  view: Record<K, Float64Array>;
  flags: Int32Array;
  at: Record<K | 'flags' | 'scratch', number>;
}

/**
 * A kernel instance for `joints` joints with the given state regions, or null where the kernels are
 * unavailable (or the memory cannot be had): the caller then runs its JavaScript loop. The padding joint
 * is the identity in the input and in every rotation region (the kernels keep it so), zero elsewhere.
 *
 * @internal
 */
export function createSimdState<K extends string>(
  joints: number,
  regions: readonly SimdRegion<K>[],
): SimdState<K> | null {
  const pairs = (joints + 1) >> 1;
  const offsets: number[] = [];
  let end = pairs * 64;
  for (const [, width] of regions) {
    offsets.push(end);
    end += pairs * width * 16;
  }
  const flags = end;
  const scratch = flags + ((pairs * 4 + 15) & ~15);
  const instance = createSimdInstance(scratch + pairs * 256);
  if (instance === null) return null;
  const buffer = instance.buffer;
  const all = new Float64Array(buffer, 0, flags >> 3);
  all[pairs * 8 - 1] = 1;
  const view = {} as Record<K, Float64Array>;
  const at = { flags, scratch } as Record<K | 'flags' | 'scratch', number>;
  regions.forEach(([name, width, rotation], r) => {
    if (rotation) all[(offsets[r] >> 3) + pairs * 8 - 1] = 1;
    view[name] = new Float64Array(buffer, offsets[r], joints * width);
    at[name] = offsets[r];
  });
  return {
    kernels: instance.kernels,
    joints,
    pairs,
    input: new Float64Array(buffer, 0, joints * 4),
    view,
    flags: new Int32Array(buffer, flags, pairs),
    at,
  };
}

/** Copies a sample of `state.joints` quaternions from `input[inputOffset..]` into the kernel's memory. @internal */
export function copySample<K extends string>(
  state: SimdState<K>,
  input: ArrayLike<number>,
  inputOffset: number,
): void {
  const n = state.joints * 4;
  const copy = state.input;
  if (input instanceof Float64Array || input instanceof Float32Array) {
    copy.set(inputOffset === 0 && input.length === n ? input : input.subarray(inputOffset, inputOffset + n));
  } else {
    for (let i = 0; i < n; i++) copy[i] = input[inputOffset + i];
  }
}

/**
 * Switches the WebAssembly kernels on (default, where available) or off for filters created afterwards, so
 * tests can run every filter through both paths. Returns the previous setting.
 *
 * @internal
 */
export function setSimdEnabled(on: boolean): boolean {
  const was = enabled;
  enabled = on;
  return was;
}

/** Whether filters created now use the WebAssembly kernels. @internal */
export function simdAvailable(): boolean {
  return kernelModule() !== null;
}
