/**
 * The one option resolver, walked over every export of `rotsig`, `rotsig/io` and `rotsig/pipeline` whose
 * parameter list names an options object: each such export has a row here (a new one fails until it has),
 * its `XXX_DEFAULTS` is frozen, passing the defaults explicitly gives what passing nothing gives, every
 * option given a value of the wrong type is an OptionError in the one format
 * `where: option 'name' must be <expected>, got <value>`, and an unknown name is an OptionError naming the
 * nearest valid one. The wrong values are chosen here from the default's type (a string for a number, a
 * number for a string or boolean), not from the resolver's own rules.
 */
import { describe, expect, it } from 'vitest';
import * as rotsig from '../src/index.js';
import { OptionError } from '../src/index.js';
import * as io from '../src/io/index.js';
import * as pipeline from '../src/pipeline/index.js';
import type { QuatSeries } from '../src/series/types.js';

const { quatSeries } = rotsig;

/** A row: how to call the function with an options object, its defaults, and the options without a default. */
interface Row {
  call: (options: unknown) => unknown;
  defaults: object;
  /** Options with no entry in the defaults (e.g. `out`), each with a value of the wrong type. */
  extra?: Record<string, unknown>;
  /** A wrong value for an option whose default's type does not say it (e.g. a default of `null`). */
  wrong?: Record<string, unknown>;
  /** The name in messages, when not the export's name. */
  where?: string;
}

function spin(frames: number, joints = 1): QuatSeries {
  const d = new Float64Array(frames * joints * 4);
  for (let f = 0; f < frames; f++)
    for (let j = 0; j < joints; j++) {
      const a = 0.1 * f + 0.3 * j;
      d.set([0, Math.sin(a / 2) * 0.6, Math.sin(a / 2) * 0.8, Math.cos(a / 2)], (f * joints + j) * 4);
    }
  return quatSeries(d, frames, joints);
}

const BVH = `HIERARCHY
ROOT a
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT b
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
MOTION
Frames: 6
Frame Time: 0.0333333
0 0 0 0 0 0 0 0 0
1 0 0 10 0 0 20 0 0
2 0 0 20 0 5 40 0 0
3 1 0 30 0 5 50 0 3
4 1 0 40 2 5 60 0 3
5 1 0 50 2 5 70 1 3
`;
const clip = () => io.parseBvh(BVH);

/** An AMASS-style `.npz` of 3 frames (SMPL, 72 pose columns) at 30 Hz. */
const amass = () => ({
  poses: { data: new Float64Array(3 * 72).map((_, i) => 0.01 * (i % 7)), shape: [3, 72], dtype: 'float64' },
  trans: { data: new Float64Array(9), shape: [3, 3], dtype: 'float64' },
  mocap_framerate: { data: Float64Array.of(30), shape: [], dtype: 'float64' },
});

/** An SMPL parameter file of 3 frames: rotation vectors of the root and the 23 body joints. */
const smplParams = () => ({
  global_orient: { data: new Float64Array(9).fill(0.1), shape: [3, 3], dtype: 'float64' },
  body_pose: {
    data: new Float64Array(3 * 69).map((_, i) => 0.01 * (i % 5)),
    shape: [3, 69],
    dtype: 'float64',
  },
  transl: { data: new Float64Array(9), shape: [3, 3], dtype: 'float64' },
});

/** Two samples of two joints through a live filter: what it outputs and its state after them. */
function run(filter: {
  push: (out: Float64Array, input: ArrayLike<number>, time: number) => Float64Array;
  getState: () => unknown;
}): unknown {
  const out = new Float64Array(8);
  const samples = spin(2, 2).data;
  filter.push(out, samples.subarray(0, 8), 0);
  filter.push(out, samples.subarray(8), 1 / 30);
  return [Array.from(out), filter.getState()];
}
const quats = () => spin(5).data;

const ROWS: Record<string, Row> = {
  averageQuaternions: {
    call: (o) => rotsig.averageQuaternions(quats(), null, o as never),
    defaults: rotsig.AVERAGE_QUATERNIONS_DEFAULTS,
    wrong: { reference: 'x', out: 'x', diagnostics: 'x' },
  },
  averageEuler: {
    call: (o) => rotsig.averageEuler([0.1, 0.2, 0.3, 0.2, 0.1, 0], null, o as never),
    defaults: rotsig.AVERAGE_EULER_DEFAULTS,
    wrong: { out: 'x' },
  },
  blendPoses: {
    call: (o) => rotsig.blendPoses(new Float64Array(8), spin(3, 2), [1, 2, 1], o as never),
    defaults: rotsig.BLEND_POSES_DEFAULTS,
    wrong: { reference: 'x', scratch: 'x' },
  },
  blendClips: {
    call: (o) => rotsig.blendClips([clip(), clip()], [1, 2], o as never),
    defaults: rotsig.BLEND_CLIPS_DEFAULTS,
    wrong: { reference: 5 },
  },
  unrollQuaternions: {
    call: (o) => rotsig.unrollQuaternions(spin(4, 2), o as never),
    defaults: rotsig.UNROLL_QUATERNIONS_DEFAULTS,
    extra: { out: 'x' },
  },
  unrollRotationVectors: {
    call: (o) =>
      rotsig.unrollRotationVectors(new Float64Array([0.1, 0, 0, 3.1, 0, 0, -3.1, 0, 0]), o as never),
    defaults: rotsig.UNROLL_ROTATION_VECTORS_DEFAULTS,
    extra: { initial: 'x', out: 'x' },
  },
  unrollEuler: {
    call: (o) =>
      rotsig.unrollEuler(new Float64Array([0.1, 0.2, 3.1, 0.1, 0.2, -3.1]), {
        order: 'ZYX',
        ...(o as object),
      }),
    defaults: rotsig.UNROLL_EULER_DEFAULTS,
    extra: { order: 17, initial: 'x', out: 'x' },
  },
  eulerFromQuatSeries: {
    call: (o) => rotsig.eulerFromQuatSeries(spin(4, 2), 'ZYX', o as never),
    defaults: rotsig.EULER_FROM_QUAT_SERIES_DEFAULTS,
    extra: { initial: 'x', out: 'x' },
  },
  unrollClip: {
    call: (o) => rotsig.unrollClip(clip(), o as never),
    defaults: rotsig.UNROLL_CLIP_DEFAULTS,
  },
  toMatrixSeries: {
    call: (o) => rotsig.toMatrixSeries(spin(3, 2), o as never),
    defaults: rotsig.TO_ROTATION_SERIES_DEFAULTS,
    extra: { out: 'x' },
  },
  to6DSeries: {
    call: (o) => rotsig.to6DSeries(spin(3, 2), o as never),
    defaults: rotsig.TO_ROTATION_SERIES_DEFAULTS,
    extra: { out: 'x' },
  },
  fromMatrixSeries: {
    call: (o) => rotsig.fromMatrixSeries(rotsig.toMatrixSeries(spin(3, 2)), o as never),
    defaults: rotsig.ROTATION_SERIES_DEFAULTS,
    extra: { out: 'x' },
  },
  from6DSeries: {
    call: (o) => rotsig.from6DSeries(rotsig.to6DSeries(spin(3, 2)), o as never),
    defaults: rotsig.ROTATION_SERIES_DEFAULTS,
    extra: { out: 'x' },
  },
  filterClip: {
    call: (o) => rotsig.filterClip(clip(), rotsig.kernels.tent, o as never),
    defaults: rotsig.FILTER_CLIP_DEFAULTS,
  },
  filterRotations: {
    call: (o) => rotsig.filterRotations(spin(8, 2), rotsig.kernels.tent, o as never),
    defaults: rotsig.FILTER_ROTATIONS_DEFAULTS,
    extra: { out: 'x' },
  },
  filterVectors: {
    call: (o) =>
      rotsig.filterVectors(
        new Float64Array(24).map((_, i) => i % 5),
        rotsig.kernels.tent,
        o as never,
      ),
    defaults: rotsig.FILTER_VECTORS_DEFAULTS,
    extra: { out: 'x' },
  },
  angularVelocity: {
    call: (o) => rotsig.angularVelocity(spin(8, 2), 1 / 30, o as never),
    defaults: rotsig.ANGULAR_VELOCITY_DEFAULTS,
    extra: { times: 'x', out: 'x' },
  },
  linearVelocity: {
    call: (o) =>
      rotsig.linearVelocity(
        rotsig.vec3Series(
          new Float64Array(24).map((_, i) => i * i),
          8,
          1,
        ),
        1 / 30,
        o as never,
      ),
    defaults: rotsig.LINEAR_VELOCITY_DEFAULTS,
    extra: { times: 'x', out: 'x' },
  },
  clipVelocities: {
    call: (o) => rotsig.clipVelocities(clip(), o as never),
    defaults: rotsig.CLIP_VELOCITIES_DEFAULTS,
    extra: { times: 'x' },
  },
  'kernels.gaussian': {
    call: (o) => rotsig.kernels.gaussian(2, o as never).radius,
    defaults: rotsig.kernels.GAUSSIAN_DEFAULTS,
    where: 'gaussian',
  },
  'kernels.sinc': {
    call: (o) => rotsig.kernels.sinc(o as never).radius,
    defaults: rotsig.kernels.SINC_DEFAULTS,
    where: 'sinc',
  },
  findSpikes: {
    call: (o) => rotsig.findSpikes(spin(12, 2), o as never),
    defaults: rotsig.FIND_SPIKES_DEFAULTS,
  },
  meanAcceleration: {
    call: (o) => rotsig.meanAcceleration(clip(), o as never),
    defaults: rotsig.MEAN_ACCELERATION_DEFAULTS,
  },
  smoothingFromSpectrum: {
    call: (o) => rotsig.smoothingFromSpectrum(clip(), o as never),
    defaults: rotsig.SMOOTHING_FROM_SPECTRUM_DEFAULTS,
  },
  cleanClip: {
    call: (o) => rotsig.cleanClip(clip(), o as never),
    defaults: rotsig.CLEAN_CLIP_DEFAULTS,
    wrong: { cutoff: true },
  },
  cleanClipWithReport: {
    call: (o) => rotsig.cleanClipWithReport(clip(), o as never),
    defaults: rotsig.CLEAN_CLIP_DEFAULTS,
    wrong: { cutoff: true },
    where: 'cleanClip',
  },
  toArrays: {
    call: (o) => rotsig.toArrays(clip(), o as never),
    defaults: rotsig.TO_ARRAYS_DEFAULTS,
  },
  fromArrays: {
    call: (o) => rotsig.fromArrays(clip(), rotsig.toArrays(clip()), o as never),
    defaults: rotsig.TO_ARRAYS_DEFAULTS,
  },
  rootMotion: {
    call: (o) => rotsig.rootMotion(clip(), o as never),
    defaults: rotsig.ROOT_MOTION_DEFAULTS,
    wrong: { root: true },
  },
  footContacts: {
    call: (o) => rotsig.footContacts(io.parseBvh(BVH.replace('JOINT b', 'JOINT left_foot')), o as never),
    defaults: rotsig.FOOT_CONTACT_DEFAULTS,
    wrong: { ground: true },
  },
  motionFeatures: {
    call: (o) => rotsig.motionFeatures(clip(), o as never),
    defaults: rotsig.MOTION_FEATURES_DEFAULTS,
    wrong: { root: true, feet: 17, unitsPerMeter: true },
  },
  randomQuatSeries: {
    call: (o) => rotsig.randomQuatSeries(3, 2, o as never),
    defaults: rotsig.RANDOM_QUAT_SERIES_DEFAULTS,
    wrong: { out: 'x' },
  },
  alignVectors: {
    call: (o) => rotsig.alignVectors([1, 0, 0, 0, 1, 0], [0, 1, 0, -1, 0, 0], o as never),
    defaults: rotsig.ALIGN_VECTORS_DEFAULTS,
    wrong: { weights: 'x', out: 'x' },
  },
  spectrum: {
    call: (o) =>
      rotsig.spectrum(
        new Float64Array(32).map((_, i) => Math.sin(i)),
        30,
        o as never,
      ),
    defaults: rotsig.SPECTRUM_DEFAULTS,
    wrong: { length: 'x' },
  },
  clipSpectrum: {
    call: (o) => rotsig.clipSpectrum(clip(), o as never),
    defaults: rotsig.CLIP_SPECTRUM_DEFAULTS,
    wrong: { length: 'x' },
  },
  timeGrid: {
    call: (o) => rotsig.timeGrid(10, 30, 20, o as never),
    defaults: rotsig.TIME_GRID_DEFAULTS,
  },
  findDiscontinuities: {
    call: (o) => rotsig.findDiscontinuities(spin(6, 2), o as never),
    defaults: rotsig.FIND_DISCONTINUITIES_DEFAULTS,
    extra: { threshold: 'x', order: 17 },
  },
  analyzeClip: {
    call: (o) => rotsig.analyzeClip(clip(), o as never),
    defaults: rotsig.ANALYZE_CLIP_DEFAULTS,
  },
  detectLoop: {
    call: (o) => rotsig.detectLoop(clip(), o as never),
    defaults: rotsig.DETECT_LOOP_DEFAULTS,
  },
  parseNpy: {
    call: (o) => io.parseNpy(io.writeNpy(new Float64Array([1, 2, 3])), o as never),
    defaults: io.PARSE_NPY_DEFAULTS,
  },
  parseNpz: {
    call: (o) => io.parseNpz(io.writeNpz({ a: new Float64Array([1, 2, 3]) }), o as never),
    defaults: io.PARSE_NPZ_DEFAULTS,
  },
  writeNpz: {
    call: (o) => io.writeNpz({ a: new Float64Array([1, 2, 3]) }, o as never),
    defaults: io.WRITE_NPZ_DEFAULTS,
  },
  resampleClip: {
    call: (o) => rotsig.resampleClip(clip(), { targetRate: 60, ...(o as object) }),
    defaults: rotsig.RESAMPLE_CLIP_DEFAULTS,
    extra: { targetRate: 'x', translationBoundary: 17 },
  },
  resampleRotations: {
    call: (o) => rotsig.resampleRotations(spin(8, 2), { sourceRate: 30, targetRate: 60, ...(o as object) }),
    defaults: rotsig.RESAMPLE_DEFAULTS,
    extra: { sourceRate: 'x', sourceTimes: 5, targetRate: 'x', times: 5, out: 'x' },
  },
  resampleVectors: {
    call: (o) =>
      rotsig.resampleVectors(
        rotsig.vec3Series(
          new Float64Array(24).map((_, i) => i % 5),
          8,
          1,
        ),
        {
          sourceRate: 30,
          targetRate: 60,
          ...(o as object),
        },
      ),
    defaults: rotsig.RESAMPLE_VECTORS_DEFAULTS,
    extra: { sourceRate: 'x', sourceTimes: 5, targetRate: 'x', times: 5, out: 'x' },
  },
  bakeClip: {
    call: (o) => rotsig.bakeClip(rotsig.keysFromClip(clip()), o as never),
    defaults: rotsig.BAKE_CLIP_DEFAULTS,
    extra: { out: 'x' },
    wrong: { rate: true },
  },
  subclip: {
    call: (o) => rotsig.subclip(clip(), { start: 0.03, end: 0.1, ...(o as object) }),
    defaults: rotsig.SUBCLIP_DEFAULTS,
    extra: { start: 'x', end: 'x' },
  },
  keysFromClip: {
    call: (o) => rotsig.keysFromClip(clip(), o as never),
    defaults: rotsig.KEYS_FROM_CLIP_DEFAULTS,
    extra: { targetRate: 'x' },
  },
  evaluateTrack: {
    call: (o) =>
      rotsig.evaluateTrack(
        {
          joint: 0,
          path: 'translation',
          interpolation: 'linear',
          width: 3,
          times: Float64Array.of(0, 2),
          values: Float64Array.of(0, 0, 0, 2, 4, 6),
        },
        [0.5, 1, 3],
        o as never,
      ),
    defaults: rotsig.EVALUATE_TRACK_DEFAULTS,
    extra: { out: 'x' },
  },
  evaluateRotationSpline: {
    call: (o) =>
      rotsig.evaluateRotationSpline(
        rotsig.createRotationSpline([0, 0.4, 1.1], spin(3).data),
        [0.2, 0.5],
        o as never,
      ),
    defaults: rotsig.EVALUATE_ROTATION_SPLINE_DEFAULTS,
    extra: { out: 'x' },
  },
  makeClipAdditive: {
    call: (o) => rotsig.makeClipAdditive(clip(), o as never),
    defaults: rotsig.MAKE_CLIP_ADDITIVE_DEFAULTS,
    wrong: { reference: true },
  },
  applyAdditive: {
    call: (o) => rotsig.applyAdditive(clip(), rotsig.makeClipAdditive(clip()), o as never),
    defaults: rotsig.APPLY_ADDITIVE_DEFAULTS,
  },
  reduceKeys: {
    call: (o) => rotsig.reduceKeys(clip(), o as never),
    defaults: rotsig.REDUCE_KEYS_DEFAULTS,
    wrong: { preset: 17, meshShells: 17 },
  },
  forwardKinematics: {
    call: (o) => rotsig.forwardKinematics(clip(), o as never),
    defaults: rotsig.FORWARD_KINEMATICS_DEFAULTS,
    extra: { rotations: 'x', positions: 'x' },
  },
  parseBvh: {
    call: (o) => io.parseBvh(BVH, o as never),
    defaults: io.PARSE_BVH_DEFAULTS,
    extra: { onWarning: 'x', byteLength: 'x' },
  },
  parseBvhWithReport: {
    call: (o) => io.parseBvhWithReport(BVH, o as never),
    defaults: io.PARSE_BVH_DEFAULTS,
    extra: { onWarning: 'x', byteLength: 'x' },
    where: 'parseBvh',
  },
  parseBvhBytes: {
    call: (o) => io.parseBvhBytes(new TextEncoder().encode(BVH), o as never),
    defaults: io.PARSE_BVH_DEFAULTS,
    extra: { onWarning: 'x', byteLength: 'x' },
  },
  parseBvhStream: {
    call: (o) =>
      io.parseBvhStream(
        (async function* () {
          yield new TextEncoder().encode(BVH);
        })(),
        o as never,
      ),
    defaults: io.PARSE_BVH_DEFAULTS,
    extra: { onWarning: 'x', byteLength: 'x' },
  },
  writeBvh: {
    call: (o) => io.writeBvh(clip(), o as never),
    defaults: io.WRITE_BVH_DEFAULTS,
    extra: { positionMode: 17 },
  },
  writeBvhBytes: {
    call: (o) => io.writeBvhBytes(clip(), o as never),
    defaults: io.WRITE_BVH_DEFAULTS,
    extra: { positionMode: 17 },
  },
  writeBvhChunks: {
    call: (o) => Array.from(io.writeBvhChunks(clip(), o as never), (chunk) => chunk.slice()),
    defaults: io.WRITE_BVH_DEFAULTS,
    extra: { positionMode: 17 },
  },
  readGltf: {
    call: async (o) => {
      const { glb } = await io.writeGltf(null, [clip()]);
      // the clips without their source, which holds the document each read builds anew
      return (await io.readGltf(glb as Uint8Array, o as never)).clips.map(({ source, ...c }) => c);
    },
    defaults: io.READ_GLTF_DEFAULTS,
    wrong: { animation: true },
  },
  writeGltf: {
    call: async (o) => (await io.writeGltf(null, [clip()], o as never)).glb,
    defaults: io.WRITE_GLTF_DEFAULTS,
  },
  createOneEuroFilter: {
    call: (o) => run(rotsig.createOneEuroFilter({ joints: 2, ...(o as object) })),
    defaults: rotsig.ONE_EURO_DEFAULTS,
    extra: { joints: 'x', width: 'x' },
  },
  createDamper: {
    call: (o) => run(rotsig.createDamper({ joints: 2, ...(o as object) })),
    defaults: rotsig.DAMPER_DEFAULTS,
    extra: { joints: 'x', width: 'x' },
  },
  createStreamingFilter: {
    call: (o) => run(rotsig.createStreamingFilter(rotsig.kernels.tent, { joints: 2, ...(o as object) })),
    defaults: rotsig.STREAMING_FILTER_DEFAULTS,
    extra: { joints: 'x' },
  },
  createStreamingUnroll: {
    call: (o) => run(rotsig.createStreamingUnroll({ joints: 2, ...(o as object) })),
    defaults: rotsig.STREAMING_UNROLL_DEFAULTS,
    extra: { joints: 'x', order: 17 },
    wrong: { initial: 17 },
  },
  oneEuroClip: {
    call: (o) => rotsig.oneEuroClip(clip(), o as never),
    defaults: rotsig.ONE_EURO_CLIP_DEFAULTS,
    extra: { translationBeta: 'x' },
  },
  dampClip: {
    call: (o) => rotsig.dampClip(clip(), o as never),
    defaults: rotsig.DAMP_CLIP_DEFAULTS,
  },
  amassToClip: {
    call: (o) => io.amassToClip(amass() as never, o as never),
    defaults: io.AMASS_TO_CLIP_DEFAULTS,
    wrong: { rate: true, template: 17 },
  },
  amassToClipWithReport: {
    call: (o) => io.amassToClipWithReport(amass() as never, o as never),
    defaults: io.AMASS_TO_CLIP_DEFAULTS,
    wrong: { rate: true, template: 17 },
    where: 'amassToClip',
  },
  smplParamsToClip: {
    call: (o) => io.smplParamsToClip(smplParams() as never, o as never),
    defaults: io.SMPL_PARAMS_TO_CLIP_DEFAULTS,
    wrong: { rate: true, template: 17 },
  },
  smplParamsToClipWithReport: {
    call: (o) => io.smplParamsToClipWithReport(smplParams() as never, o as never),
    defaults: io.SMPL_PARAMS_TO_CLIP_DEFAULTS,
    wrong: { rate: true, template: 17 },
    where: 'smplParamsToClip',
  },
  downsampleOptimal: {
    call: (o) => rotsig.downsampleOptimal(spin(12, 2), { sourceRate: 60, targetRate: 20, ...(o as object) }),
    defaults: rotsig.DOWNSAMPLE_OPTIMAL_DEFAULTS,
    extra: { sourceRate: 'x', targetRate: 'x', fk: 17 },
  },
  resampleOptimal: {
    call: (o) => pipeline.resampleOptimal(clip(), { rate: 10, ...(o as object) } as never),
    defaults: pipeline.RESAMPLE_OPTIMAL_DEFAULTS,
    extra: { rate: 'x', kernel: 17, duration: 17 },
  },
  runSteps: {
    call: (o) =>
      pipeline.runSteps(clip(), [{ op: 'unroll' }, { op: 'resample', rate: 20, loop: 'off' }], o as never),
    defaults: pipeline.RUN_STEPS_DEFAULTS,
    extra: { onStep: 17 },
  },
  runKeyedSteps: {
    call: (o) =>
      pipeline.runKeyedSteps(
        rotsig.keysFromClip(clip()),
        [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 1 } }],
        o as never,
      ),
    defaults: pipeline.RUN_KEYED_STEPS_DEFAULTS,
    extra: { onStep: 17 },
  },
};

/** Whether a function's parameter list (as compiled) names an options object. */
function takesOptions(f: unknown): boolean {
  if (typeof f !== 'function' || /^class\b/.test(Function.prototype.toString.call(f))) return false;
  const text = Function.prototype.toString.call(f);
  const open = text.indexOf('(');
  let depth = 0;
  let close = open;
  for (; close < text.length; close++) {
    if (text[close] === '(') depth++;
    else if (text[close] === ')' && --depth === 0) break;
  }
  return /\b(options|range)\b/.test(text.slice(open, close));
}

const exported: [string, unknown][] = [
  ...Object.entries(rotsig),
  ...Object.entries(rotsig.kernels).map(([k, v]): [string, unknown] => [`kernels.${k}`, v]),
  ...Object.entries(io),
  ...Object.entries(pipeline),
];
const optionTaking = [...new Set(exported.filter(([, f]) => takesOptions(f)).map(([name]) => name))].sort();

/** A value of the wrong type for an option whose default is `value`. */
function wrongFor(value: unknown): unknown {
  if (typeof value === 'number') return 'one';
  if (typeof value === 'string' || typeof value === 'boolean') return 17;
  if (typeof value === 'function') return 17;
  if (value !== null && typeof value === 'object') return 17;
  return undefined;
}

/** What `call` throws, or what the promise it returns rejects with (an async export). */
async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the option resolver over every export', () => {
  it('the walk finds the option-taking exports', () => {
    expect(optionTaking.length).toBeGreaterThan(60);
    expect(optionTaking).toContain('filterRotations');
    expect(optionTaking).toContain('parseBvh');
  });

  it('every option-taking export has a row', () => {
    expect(optionTaking.filter((name) => !(name in ROWS))).toEqual([]);
  });

  describe.each(Object.entries(ROWS))('%s', (name, row) => {
    const where = row.where ?? name;
    it('its defaults object is frozen and equals passing nothing', async () => {
      expect(Object.isFrozen(row.defaults)).toBe(true);
      const plain = await row.call(undefined);
      expect(await row.call({ ...row.defaults })).toEqual(plain);
      expect(await row.call({})).toEqual(plain);
      // undefined means default, for every option
      const undef = Object.fromEntries(Object.keys(row.defaults).map((k) => [k, undefined]));
      expect(await row.call(undef)).toEqual(plain);
    });

    const options = [...Object.keys(row.defaults), ...Object.keys(row.extra ?? {})];
    it.each(options)(`a wrong type for '%s' is an OptionError in the one format`, async (option) => {
      const value =
        row.wrong?.[option] ??
        row.extra?.[option] ??
        wrongFor((row.defaults as Record<string, unknown>)[option]);
      expect(value, `no wrong value known for '${option}'; add one to the row`).not.toBeUndefined();
      for (const bad of [value, Symbol('bad')]) {
        const error = (await thrown(() => row.call({ [option]: bad }))) as OptionError;
        expect(error, `${name}({ ${option}: ${String(bad)} })`).toBeInstanceOf(OptionError);
        expect(error.message).toMatch(
          new RegExp(`^${where.replace('.', '\\.')}: option '${option}' must be .+, got .+`),
        );
        expect(error.detail?.where).toBe(where);
        expect(error.detail?.option).toBe(option);
        expect(error.detail?.value).toBe(bad);
      }
    });

    it('an unknown name is an OptionError naming it and the nearest valid one', async () => {
      const first = options[0];
      const typo = `${first}x`;
      const error = (await thrown(() => row.call({ [typo]: 1 }))) as OptionError;
      expect(error).toBeInstanceOf(OptionError);
      expect(error.message).toContain(`${where}: unknown option '${typo}'; did you mean '${first}'?`);
    });
  });
});
