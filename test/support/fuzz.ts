/**
 * The contract fuzzer: calls functions with hostile arguments and sorts each outcome into "typed"
 * (a `RotsigError` subclass), "ok" (a result that holds only finite numbers in the documented shapes), a
 * "defect" (any other exception, a NaN or infinity in the result, a series whose data does not fit its
 * shape, a kernel that is not finite) or a "hang" (a call slower than the time bound).
 *
 * Arguments come from a seeded generator (mulberry32), so a failure replays from its seed. Values are
 * built fresh for every call, because many operations work in place.
 */
import { RotsigError } from '../../src/errors.js';
import { parseBvh } from '../../src/io/index.js';
import type { Clip } from '../../src/series/clip.js';
import { rng as generator } from './random.js';

export { generator };

export type Rand = () => number;
export type AnyFunction = (...args: unknown[]) => unknown;

export const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
export const int = (rand: Rand, n: number): number => Math.floor(rand() * n);

/** Numbers that break loops, allocations, divisions and comparisons. */
export const HOSTILE_NUMBERS: readonly number[] = [
  0,
  -0,
  1,
  -1,
  0.5,
  2,
  3,
  7,
  12,
  30,
  120,
  -3.5,
  1e-320,
  5e-324,
  1e-310,
  1e-300,
  1e308,
  1.79e308,
  -1e308,
  1e20,
  3.1e14,
  2 ** 53,
  2 ** 31,
  2 ** 32 + 1,
  1e9,
  1e7,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

const STRINGS = [
  '',
  ' ',
  'ZYX',
  'xyz',
  'XYX',
  'toString',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'slerp',
  'nlerp',
  'log',
  'raw',
  'eigen',
  'matrix',
  'flip',
  'geodesic',
  'clamp',
  'wrap',
  'reflect',
  'renormalize',
  'lanczos3',
  'catmull-rom',
  'nearest',
  'quaternion',
  '6d',
  'euler',
  'rotation-vector',
  'none',
  'hemisphere',
  'continuous',
  'keep',
  'equivalent',
  'frames',
  'midpoints',
  'analytic',
  'body',
  'global',
  'local',
  'float32',
  'replace',
  'add',
  'a\nb',
  '\u001b[31m',
  '\u0000',
  '1e999',
  'HIERARCHY',
];

/** Option keys the generic generator draws from: every key of every exported `*_DEFAULTS`, and these. */
export const EXTRA_OPTION_KEYS = [
  'out',
  'times',
  'sourceRate',
  'sourceTimes',
  'targetRate',
  'order',
  'initial',
  'rate',
  'threshold',
  'fk',
  'reference',
  'diagnostics',
  'eigen',
  'scratch',
  'onWarning',
  'maxValues',
  'positionMode',
  'translationBoundary',
  'truncate',
  'radius',
  'rotations',
  'positions',
  'sigme',
];

export const SMALL_BVH = `HIERARCHY
ROOT hips
{
  OFFSET 0 90 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT head
    {
      OFFSET 0 20 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 5 0
      }
    }
  }
}
MOTION
Frames: 6
Frame Time: 0.0333333
0 90 0 0 0 0 10 0 0 5 0 0
1 90 0 10 5 0 170 20 0 10 0 0
2 91 0 20 10 0 -170 30 0 15 5 0
3 91 1 30 15 0 -150 40 0 20 5 5
4 92 1 40 20 0 -130 50 0 25 10 5
5 92 2 50 25 5 -110 60 0 30 10 10
`;

let baseClip: Clip | undefined;
/** A fresh copy of a small valid 3-joint, 6-frame clip. */
export function smallClip(): Clip {
  baseClip ??= parseBvh(SMALL_BVH);
  return structuredClone(baseClip);
}

function unitQuats(rand: Rand, n: number): Float64Array {
  const d = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) {
    let x = rand() * 2 - 1;
    let y = rand() * 2 - 1;
    let z = rand() * 2 - 1;
    let w = rand() * 2 - 1;
    const l = Math.hypot(x, y, z, w) || 1;
    x /= l;
    y /= l;
    z /= l;
    w /= l;
    d.set([x, y, z, w], i * 4);
  }
  return d;
}

function numbers(rand: Rand, n: number, hostile: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(rand() < hostile ? pick(rand, HOSTILE_NUMBERS) : rand() * 4 - 2);
  return a;
}

/** A hostile or plausible number. */
export function genNumber(rand: Rand): number {
  const r = rand();
  if (r < 0.6) return pick(rand, HOSTILE_NUMBERS);
  if (r < 0.8) return int(rand, 20);
  return rand() * 10 - 5;
}

/** A quaternion series, valid most of the time, sometimes with a bad value or shape. */
export function genQuatSeries(rand: Rand): {
  data: Float64Array | Float32Array;
  frames: number;
  joints: number;
} {
  const frames = pick(rand, [0, 1, 2, 3, 5, 8, 12]);
  const joints = pick(rand, [0, 1, 1, 2, 3]);
  let data: Float64Array | Float32Array = unitQuats(rand, frames * joints);
  if (rand() < 0.2) data = Float32Array.from(data);
  const r = rand();
  if (r < 0.1 && data.length > 0)
    data[int(rand, data.length)] = pick(rand, [Number.NaN, Number.POSITIVE_INFINITY, 1e308]);
  else if (r < 0.15 && data.length >= 4) data.fill(0, 0, 4);
  else if (r < 0.2) return { data, frames: frames + 1, joints };
  return { data, frames, joints };
}

/** A 3-vector series, valid most of the time. */
export function genVec3Series(rand: Rand): {
  data: Float64Array | Float32Array;
  frames: number;
  joints: number;
} {
  const frames = pick(rand, [0, 1, 2, 3, 5, 8, 12]);
  const joints = pick(rand, [0, 1, 1, 2, 3]);
  const data = Float64Array.from(numbers(rand, frames * joints * 3, 0));
  const r = rand();
  if (r < 0.1 && data.length > 0) data[int(rand, data.length)] = pick(rand, HOSTILE_NUMBERS);
  else if (r < 0.15) return { data, frames, joints: joints + 1 };
  return { data, frames, joints };
}

/** A clip: valid, or with one part made hostile. */
export function genClip(rand: Rand): unknown {
  const clip = smallClip() as unknown as Record<string, unknown> & Clip;
  const r = rand();
  if (r < 0.45) return clip;
  const k = int(rand, 12);
  switch (k) {
    case 0:
      clip.rotations.data[int(rand, clip.rotations.data.length)] = Number.NaN;
      break;
    case 1:
      clip.translations.data[int(rand, clip.translations.data.length)] = pick(rand, HOSTILE_NUMBERS);
      break;
    case 2:
      clip.skeleton.parents[int(rand, 3)] = pick(rand, [7, 1, 2, -2, 0]);
      break;
    case 3:
      clip.frameTime = pick(rand, HOSTILE_NUMBERS);
      clip.rate = 1 / clip.frameTime;
      break;
    case 4:
      clip.rate = pick(rand, HOSTILE_NUMBERS);
      break;
    case 5:
      clip.skeleton.restTranslations[int(rand, 9)] = pick(rand, [1.79e308, Number.NaN, -1e308]);
      break;
    case 6:
      clip.frames = pick(rand, [0, 7, 1e9, Number.NaN]);
      break;
    case 7:
      return { ...clip, skeleton: undefined };
    case 8:
      return { rotations: clip.rotations };
    case 9:
      clip.skeleton.names[int(rand, 3)] = pick(rand, ['a\nb', '', ' x', 'End Site']);
      break;
    case 10: {
      const src = clip.source as unknown as { endSites?: { label?: string; offset: number[] }[] };
      if (src?.endSites?.[0]) {
        if (rand() < 0.5) src.endSites[0].label = pick(rand, ['x\ny', 'a{', '#', 'Site']);
        else src.endSites[0].offset = [0, Number.NaN, 0];
      }
      break;
    }
    default:
      clip.orders[0] = pick(rand, ['toString', 'QQQ', 'zyx']) as never;
  }
  return clip;
}

/** A kernel: one of the library's, or a hostile look-alike. */
export function genKernel(rand: Rand, kernels: Record<string, unknown>): unknown {
  const r = rand();
  if (r < 0.5) {
    const k = kernels as {
      box: unknown;
      tent: unknown;
      catmullRom: unknown;
      cubic6: unknown;
      gaussian: (s: number) => unknown;
      lanczos: (a: number) => unknown;
      sampled: (w: number[]) => unknown;
    };
    return pick(rand, [
      () => k.box,
      () => k.tent,
      () => k.catmullRom,
      () => k.cubic6,
      () => k.gaussian(2),
      () => k.lanczos(3),
      () => k.sampled([1, 2, 1]),
    ])();
  }
  const radius = pick(rand, [0, 1, 3, 1e7, 1e20, Number.POSITIVE_INFINITY, Number.NaN, -1]);
  const value = pick(rand, [1, 0, -1, Number.NaN, 1e308, 1e-320]);
  return { name: 'hostile', radius, evaluate: () => value, derivative: () => value };
}

/** Everything the generator may produce, weighted towards what the library takes. */
export function genValue(rand: Rand, ctx: GenContext, depth = 0): unknown {
  const r = rand();
  if (r < 0.14) return genNumber(rand);
  if (r < 0.2) return pick(rand, STRINGS);
  if (r < 0.25) return pick(rand, [null, undefined, true, false, {}, [], () => 1]);
  if (r < 0.36) {
    const n = pick(rand, [0, 1, 3, 4, 4, 4, 6, 8, 9, 12, 13]);
    const kind = int(rand, 5);
    const values = numbers(rand, n, 0.15);
    if (kind === 0) return values;
    if (kind === 1) return Float32Array.from(values);
    if (kind === 2) return new Int32Array(n);
    return Float64Array.from(values);
  }
  if (r < 0.48) return genQuatSeries(rand);
  if (r < 0.55) return genVec3Series(rand);
  if (r < 0.66) return genClip(rand);
  if (r < 0.7) return [genClip(rand), genClip(rand)];
  if (r < 0.78) return genKernel(rand, ctx.kernels);
  if (r < 0.96 && depth < 2) return genOptions(rand, ctx, depth + 1);
  return { data: new Float64Array(pick(rand, [0, 6, 9, 12])), frames: 1, joints: 1 };
}

export interface GenContext {
  kernels: Record<string, unknown>;
  optionKeys: readonly string[];
}

/** An options object of 0 to 4 keys drawn from every known option name, with hostile values. */
export function genOptions(rand: Rand, ctx: GenContext, depth = 1): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let k = int(rand, 5); k > 0; k--) {
    const key = pick(rand, ctx.optionKeys);
    if (key === 'times' || key === 'sourceTimes')
      o[key] = pick(rand, [[1e20], [3.1e14], [0, 0.1], [Number.NaN], [-1e300], []]);
    else o[key] = genValue(rand, ctx, depth);
  }
  return o;
}

/** What one call did. */
export type Outcome = 'ok' | 'typed' | 'defect' | 'hang';

export interface CallReport {
  outcome: Outcome;
  ms: number;
  detail?: string;
}

/** Rejections of asynchronous exports that were not a typed RotsigError, and the calls still settling. */
export const ASYNC_DEFECTS: string[] = [];
export const ASYNC_PENDING: Promise<unknown>[] = [];

/**
 * Calls `fn(...args)` and sorts the outcome. `hangMs` is the time bound; the call cannot be interrupted, so
 * a real infinite loop stops the run (which is a failure too).
 */
export function classify(
  fn: AnyFunction,
  args: unknown[],
  hangMs: number,
  isKernel: (k: unknown) => boolean,
): CallReport {
  // what the caller handed in comes back by reference (an in-place series, a clip's other fields, a source
  // passed through): such values are inspected only where the call changed them
  const given = new Map<object, unknown>();
  snapshot(args, given, 0);
  const t0 = performance.now();
  let result: unknown;
  try {
    result = fn(...args);
  } catch (e) {
    const ms = performance.now() - t0;
    if (ms > hangMs) return { outcome: 'hang', ms, detail: `threw after ${ms.toFixed(0)} ms` };
    if (e instanceof RotsigError) return { outcome: 'typed', ms };
    return { outcome: 'defect', ms, detail: `${(e as Error)?.name}: ${(e as Error)?.message}` };
  }
  const ms = performance.now() - t0;
  // an asynchronous export (a stream reader) answers later: a rejection must be typed, which is recorded
  // in ASYNC_DEFECTS for the test to assert after the calls settle
  if (
    result !== null &&
    typeof result === 'object' &&
    typeof (result as Promise<unknown>).then === 'function'
  ) {
    const pending = (result as Promise<unknown>).then(
      () => undefined,
      (e: unknown) => {
        if (!(e instanceof RotsigError))
          ASYNC_DEFECTS.push(`${fn.name}: ${(e as Error)?.name}: ${(e as Error)?.message}`);
      },
    );
    ASYNC_PENDING.push(pending);
    return { outcome: 'ok', ms };
  }
  // a lazy sequence (writeBvhChunks) does its work as it is drained: every item must be finite and well
  // formed, and an error thrown by the iteration must be typed, like one thrown by the call
  if (
    result !== null &&
    typeof result === 'object' &&
    !Array.isArray(result) &&
    !ArrayBuffer.isView(result) &&
    typeof (result as Iterator<unknown>).next === 'function' &&
    typeof (result as Iterable<unknown>)[Symbol.iterator] === 'function'
  ) {
    let items = 0;
    try {
      for (const item of result as Iterable<unknown>) {
        const problem = inspect(item, `item ${items}`, new Set(), 0, isKernel, given);
        if (problem !== null) return { outcome: 'defect', ms, detail: problem };
        if (++items > 10_000) return { outcome: 'defect', ms, detail: 'more than 10,000 items' };
      }
    } catch (e) {
      if (!(e instanceof RotsigError))
        return {
          outcome: 'defect',
          ms,
          detail: `iteration threw ${(e as Error)?.name}: ${(e as Error)?.message}`,
        };
      return { outcome: 'typed', ms: performance.now() - t0 };
    }
    const all = performance.now() - t0;
    if (all > hangMs + items)
      return { outcome: 'hang', ms: all, detail: `drained after ${all.toFixed(0)} ms` };
    return { outcome: 'ok', ms: all };
  }
  // the bound grows with what the call returned (1 µs per value): allocating and filling a large result the
  // caller asked for is not a hang; a loop that the data does not bound is
  const bound = hangMs + valuesIn(result, new Set(), 0) / 1000;
  if (ms > bound) return { outcome: 'hang', ms, detail: `returned after ${ms.toFixed(0)} ms` };
  let problem: string | null;
  try {
    problem = inspect(result, 'result', new Set(), 0, isKernel, given);
  } catch (e) {
    problem = `inspecting the result threw ${(e as Error)?.name}: ${(e as Error)?.message}`;
  }
  if (problem !== null) return { outcome: 'defect', ms, detail: problem };
  return { outcome: 'ok', ms };
}

const SERIES_WIDTHS = [3, 4, 6, 9];

/** The first non-finite number or misshapen series in a result, or null. */
export function inspect(
  value: unknown,
  path: string,
  seen: Set<unknown>,
  depth: number,
  isKernel: (k: unknown) => boolean,
  given: Map<object, unknown> = new Map(),
): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} is ${value}`;
  if (value === null || typeof value !== 'object' || seen.has(value) || depth > 6) return null;
  seen.add(value);
  const before = given.get(value) as Record<string, unknown> | undefined;
  if (value instanceof Float64Array || value instanceof Float32Array) {
    for (let i = 0; i < value.length; i++) {
      if (before !== undefined && Object.is(before[i], value[i])) continue;
      if (!Number.isFinite(value[i])) return `${path}[${i}] is ${value[i]}`;
    }
    return null;
  }
  if (ArrayBuffer.isView(value)) return null;
  // a kernel built on a hostile user kernel evaluates what that kernel gives; the filters check weights
  if (isKernel(value) && !String((value as { name?: unknown }).name).includes('hostile')) {
    const k = value as { radius: number; evaluate(x: number): number; derivative?(x: number): number };
    for (const x of [0, 0.5, 1, k.radius / 2, k.radius]) {
      const v = k.evaluate(x);
      if (!Number.isFinite(v)) return `${path}.evaluate(${x}) is ${v}`;
      const d = k.derivative?.(x);
      if (d !== undefined && !Number.isFinite(d)) return `${path}.derivative(${x}) is ${d}`;
    }
  }
  const o = value as Record<string, unknown>;
  if (
    before === undefined &&
    (o.data instanceof Float64Array || o.data instanceof Float32Array) &&
    typeof o.frames === 'number' &&
    typeof o.joints === 'number'
  ) {
    const items = o.frames * o.joints;
    const n = o.data.length;
    if (!(items === 0 ? n === 0 : SERIES_WIDTHS.some((w) => n === items * w))) {
      return `${path} has ${n} values for ${o.frames} frames x ${o.joints} joints`;
    }
  }
  for (const key of Object.keys(o)) {
    const v = o[key];
    // documented: explicit `times` give a grid without a rate
    if (key === 'rate' && Number.isNaN(v) && 'times' in o) continue;
    if (before !== undefined && typeof v === 'number' && Object.is(before[key], v)) continue;
    const p = inspect(v, `${path}.${key}`, seen, depth + 1, isKernel, given);
    if (p !== null) return p;
  }
  return null;
}

function snapshot(value: unknown, into: Map<object, unknown>, depth: number): void {
  if (value === null || typeof value !== 'object' || into.has(value) || depth > 8) return;
  if (ArrayBuffer.isView(value)) {
    into.set(value, (value as Float64Array).slice());
    return;
  }
  into.set(value, Array.isArray(value) ? value.slice() : { ...value });
  for (const v of Object.values(value)) snapshot(v, into, depth + 1);
}

function valuesIn(value: unknown, seen: Set<unknown>, depth: number): number {
  if (value === null || typeof value !== 'object' || seen.has(value) || depth > 6) return 0;
  seen.add(value);
  if (ArrayBuffer.isView(value)) return (value as Float64Array).length ?? 0;
  let n = 0;
  for (const v of Object.values(value)) n += valuesIn(v, seen, depth + 1);
  return n;
}
