/**
 * Every exported function of `rotsig`, `rotsig/io` and `rotsig/three`, found by walking the modules' exports (and the
 * `quat` and `kernels` namespaces), called with hostile arguments: each call must throw a typed
 * `RotsigError` or return finite output of the documented shape, within a time bound. A new export is
 * fuzzed without being listed. Calls start either from generated arguments of the function's arity or,
 * for the operations below, from a valid call with one argument or option replaced, so the hostile value
 * reaches past the first check.
 *
 * CI runs a fixed seed and a small budget; `npm run fuzz` runs a larger one (`FUZZ_CASES` calls per
 * function, `FUZZ_SEED` to replay).
 */
import { describe, expect, test } from 'vitest';
import * as root from '../../src/index.js';
import * as io from '../../src/io/index.js';
import * as three from '../../src/three/index.js';
import {
  type AnyFunction,
  ASYNC_DEFECTS,
  ASYNC_PENDING,
  type CallReport,
  classify,
  EXTRA_OPTION_KEYS,
  type GenContext,
  genClip,
  generator,
  genKernel,
  genQuatSeries,
  genValue,
  genVec3Series,
  int,
  pick,
  type Rand,
  SMALL_BVH,
  smallClip,
} from '../support/fuzz.js';

const CASES = Number(process.env.FUZZ_CASES ?? 40);
const SEED = Number(process.env.FUZZ_SEED ?? 17);
/** Per call; generous because the machine running the tests may be busy. */
const HANG_MS = 2000;

/** Exported functions by dotted name; classes (the error types) are not calls. */
function exportedFunctions(): Map<string, AnyFunction> {
  const found = new Map<string, AnyFunction>();
  const visit = (prefix: string, module: Record<string, unknown>, depth: number) => {
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'function') {
        if (/^class\b/.test(Function.prototype.toString.call(value))) continue;
        found.set(prefix + name, value as AnyFunction);
      } else if (depth === 0 && value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
        const members = Object.values(value);
        if (members.length > 0 && members.some((m) => typeof m === 'function') && !('evaluate' in value))
          visit(`${prefix}${name}.`, value as Record<string, unknown>, depth + 1);
      }
    }
  };
  visit('', root as unknown as Record<string, unknown>, 0);
  visit('', io as unknown as Record<string, unknown>, 0);
  visit('three.', three as unknown as Record<string, unknown>, 0);
  return found;
}

function optionKeys(): string[] {
  const keys = new Set(EXTRA_OPTION_KEYS);
  for (const module of [root, io, three] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(module)) {
      if (name.endsWith('_DEFAULTS') && value !== null && typeof value === 'object')
        for (const k of Object.keys(value)) keys.add(k);
    }
  }
  return [...keys].sort();
}

const ctx: GenContext = {
  kernels: root.kernels as unknown as Record<string, unknown>,
  optionKeys: optionKeys(),
};
const q4 = () => Float64Array.of(0.1, -0.2, 0.3, 0.9);
const series = (rand: Rand) => {
  const s = genQuatSeries(rand);
  return s.data.length === s.frames * s.joints * 4 ? s : root.createQuatSeries(5, 2);
};

/**
 * A valid call of each operation, as a starting point for mutation. Not a list of what is fuzzed: every
 * export is, these only reach deeper.
 */
const BASES: Record<string, (rand: Rand) => unknown[]> = {
  resampleRotations: (r) => [series(r), { sourceRate: 30, targetRate: pick(r, [10, 60, 120]) }],
  resampleVectors: (r) => [genVec3Series(r), { sourceRate: 30, targetRate: 60 }],
  resampleClip: (r) => [genClip(r), { targetRate: pick(r, [10, 60]) }],
  angularVelocity: (r) => [series(r), 1 / 30, { times: [0, 0.05] }],
  linearVelocity: (r) => [genVec3Series(r), 1 / 30, { times: [0, 0.05] }],
  filterRotations: (r) => [series(r), genKernel(r, ctx.kernels), { boundary: 'clamp' }],
  filterVectors: (r) => [genVec3Series(r), genKernel(r, ctx.kernels), { boundary: 'reflect' }],
  filterClip: (r) => [genClip(r), genKernel(r, ctx.kernels), {}],
  clipVelocities: (r) => [genClip(r), { spaces: 'both' }],
  clipSpectrum: (r) => [genClip(r), {}],
  spectrum: () => [[0, 1, 0, -1, 0, 1, 0, -1], 30, {}],
  timeGrid: () => [10, 30, 60, {}],
  downsampleOptimal: (r) => [series(r), { sourceRate: 30, targetRate: 10 }],
  averageQuaternions: () => [[0, 0, 0, 1, 0, 0, 0.3, 0.95], [1, 2], { method: 'eigen' }],
  averageEuler: () => [[0.1, 0.2, 0.3, 3, 0, -3], null, { method: 'circular' }],
  blendPoses: () => [new Float64Array(8), root.createQuatSeries(2, 2), [1, 1], {}],
  blendClips: (r) => [[genClip(r), smallClip()], [1, 1], {}],
  interpolate: () => [new Float64Array(4), q4(), [0, 0, 0, 1], 0.5, 'slerp'],
  unrollEuler: () => [new Float64Array([3, 0, 0, -3, 0, 0]), { order: 'ZYX' }],
  unrollEulerTriple: () => [new Float64Array([3, 0, 0]), 0, [3.1, 0, 0], 0, 'ZYX'],
  unrollRotationVectors: () => [new Float64Array([3, 0, 0, -3, 0, 0]), {}],
  unrollQuaternions: (r) => [series(r), {}],
  unrollClip: (r) => [genClip(r), {}],
  eulerFromQuatSeries: (r) => [series(r), 'ZYX', {}],
  toMatrixSeries: (r) => [series(r), {}],
  to6DSeries: (r) => [series(r), {}],
  forwardKinematics: (r) => [genClip(r), {}],
  forwardKinematicsFrame: (r) => [genClip(r), 0, new Float64Array(12), new Float64Array(9)],
  toArrays: (r) => [genClip(r), { rotation: pick(r, ['6d', 'euler', 'quaternion']) }],
  fromArrays: (r) => [genClip(r), { rotations: new Float64Array(6 * 3 * 4).fill(0.5) }, {}],
  analyzeClip: (r) => [genClip(r), {}],
  guessPositionSemantics: (r) => [genClip(r)],
  peakAngularSpeeds: (r) => [genClip(r)],
  findDiscontinuities: (r) => [series(r), { rate: 30 }],
  writeBvh: (r) => [genClip(r), {}],
  writeBvhBytes: (r) => [genClip(r), {}],
  writeBvhChunks: (r) => [genClip(r), {}],
  parseBvh: () => [SMALL_BVH, {}],
  parseBvhWithReport: () => [SMALL_BVH, {}],
  writeNpy: () => [new Float64Array(6), [2, 3]],
  createQuatSeries: () => [3, 2],
  createVec3Series: () => [3, 2],
  'kernels.gaussian': () => [2, {}],
  'kernels.sinc': () => [{ radius: 6 }],
  'kernels.lanczos': () => [3],
  'kernels.scaleKernel': (r) => [genKernel(r, ctx.kernels), 2],
  'kernels.composeKernels': (r) => [genKernel(r, ctx.kernels), genKernel(r, ctx.kernels)],
  'kernels.unsharp': (r) => [genKernel(r, ctx.kernels), 1],
};

/** One argument (or one option of an options argument) replaced by a hostile value. */
function mutate(rand: Rand, args: unknown[]): unknown[] {
  const out = args.slice();
  const i = int(rand, out.length + 1);
  if (i === out.length) {
    out.push(genValue(rand, ctx));
    return out;
  }
  const a = out[i];
  const isOptions =
    a !== null &&
    typeof a === 'object' &&
    !Array.isArray(a) &&
    !ArrayBuffer.isView(a) &&
    !('data' in a) &&
    !('skeleton' in a);
  if (isOptions && rand() < 0.7) {
    const o = { ...(a as Record<string, unknown>) };
    const keys = Object.keys(o);
    const key = keys.length > 0 && rand() < 0.5 ? pick(rand, keys) : pick(rand, ctx.optionKeys);
    o[key] =
      key === 'times' ? pick(rand, [[1e20], [3.1e14], [-1e300, 0], [Number.NaN]]) : genValue(rand, ctx, 1);
    out[i] = o;
  } else {
    out[i] =
      rand() < 0.5 ? genValue(rand, ctx) : pick(rand, [undefined, null, Number.NaN, 1e20, 'toString', {}]);
  }
  return out;
}

/** Generic arguments for a function nobody described: its arity, give or take. */
function generic(rand: Rand, fn: AnyFunction, name: string): unknown[] {
  const n = Math.max(1, fn.length) + int(rand, 3) - (rand() < 0.2 ? 1 : 0);
  const args: unknown[] = [];
  const quatKernel = name.startsWith('quat.');
  for (let k = 0; k < n; k++) {
    if (quatKernel && rand() < 0.6) {
      // out-first kernels on flat arrays: mostly arrays of 3, 4, 9 values, offsets, angles
      args.push(
        pick(rand, [
          () => new Float64Array(4),
          () => q4(),
          () => [0, 0, 0, 1],
          () => new Float64Array(3).fill(0.5),
          () => new Float64Array(9),
          () => new Float64Array(12),
          () => int(rand, 4),
          () => 'ZYX',
          () => rand(),
        ])(),
      );
    } else args.push(genValue(rand, ctx));
  }
  return args;
}

interface Tally {
  ok: number;
  typed: number;
  defect: number;
  hang: number;
  examples: string[];
}

function run(cases: number, seed: number): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  const functions = exportedFunctions();
  let n = 0;
  for (const [name, fn] of functions) {
    const tally: Tally = { ok: 0, typed: 0, defect: 0, hang: 0, examples: [] };
    tallies.set(name, tally);
    for (let c = 0; c < cases; c++) {
      const caseSeed = (seed * 1_000_003 + ++n) >>> 0;
      const rand = generator(caseSeed);
      const base = Object.hasOwn(BASES, name) ? BASES[name] : undefined;
      const args = base !== undefined && rand() < 0.75 ? mutate(rand, base(rand)) : generic(rand, fn, name);
      if (process.env.FUZZ_TRACE) process.stderr.write(`${name} seed ${caseSeed}\n`);
      const report: CallReport = classify(fn, args, HANG_MS, root.kernels.isKernel);
      tally[report.outcome]++;
      if ((report.outcome === 'defect' || report.outcome === 'hang') && tally.examples.length < 3) {
        tally.examples.push(
          `seed ${caseSeed}: ${report.outcome}: ${report.detail}; args ${describeArgs(args)}`,
        );
      }
    }
  }
  return tallies;
}

function describeArgs(args: unknown[]): string {
  return args
    .map((a) => {
      if (ArrayBuffer.isView(a)) return `${a.constructor.name}(${(a as Float64Array).length})`;
      if (typeof a === 'function') return 'fn';
      try {
        const s = JSON.stringify(a, (_k, v) =>
          ArrayBuffer.isView(v)
            ? `${v.constructor.name}(${(v as Float64Array).length})`
            : typeof v === 'number' && !Number.isFinite(v)
              ? String(v)
              : v,
        );
        return s === undefined ? String(a) : s.length > 160 ? `${s.slice(0, 160)}…` : s;
      } catch {
        return String(a);
      }
    })
    .join(', ');
}

describe('every exported function under hostile arguments', () => {
  test(`each export: typed RotsigError or finite output of the documented shape within ${HANG_MS} ms (${CASES} calls each, seed ${SEED})`, async () => {
    const tallies = run(CASES, SEED);
    const functions = exportedFunctions();
    // the walk found the library, not an empty module
    expect(functions.size).toBeGreaterThan(100);
    for (const name of ['resampleRotations', 'quat.multiply', 'kernels.gaussian', 'parseBvh', 'writeNpy'])
      expect(functions.has(name)).toBe(true);
    const failures: string[] = [];
    let total = 0;
    const sum = { ok: 0, typed: 0, defect: 0, hang: 0 };
    for (const [name, t] of tallies) {
      total += t.ok + t.typed + t.defect + t.hang;
      sum.ok += t.ok;
      sum.typed += t.typed;
      sum.defect += t.defect;
      sum.hang += t.hang;
      if (t.defect + t.hang > 0)
        failures.push(`${name}: ${t.defect} defects, ${t.hang} hangs\n  ${t.examples.join('\n  ')}`);
    }
    if (process.env.FUZZ_REPORT) {
      console.log(
        `export fuzz: ${tallies.size} functions, ${total} calls: ok ${sum.ok}, typed ${sum.typed}, defect ${sum.defect}, hang ${sum.hang}`,
      );
    }
    if (process.env.FUZZ_REPORT && failures.length > 0) console.log(failures.join('\n'));
    await Promise.all(ASYNC_PENDING);
    expect(failures).toEqual([]);
    expect(ASYNC_DEFECTS).toEqual([]);
  });
});
