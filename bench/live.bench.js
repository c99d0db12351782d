// Live (streaming) filters (issue: real-time rotation filters). Per task, 1,000 samples of 100 joints pushed one
// sample at a time, as a tracker stream at 1 kHz would be: the figures are joint-samples per second and
// nanoseconds per joint and sample (the unit). Targets per core: One Euro <= 50 ns (20 M/s), damper
// <= 30 ns (33.3 M/s), so 100 joints at 1 kHz take under 1% of a core. Run alone: npm run bench -- live
import {
  createDamper,
  createOneEuroFilter,
  createStreamingFilter,
  createStreamingUnroll,
  filterRotations,
  kernels,
  quatSeries,
  unrollQuaternions,
} from '../dist/index.js';
import {
  DAMPER_TARGET as DAMPER,
  LIVE_JOINTS as JOINTS,
  ONE_EURO_TARGET as ONE_EURO,
  pushTask,
  LIVE_SAMPLES as SAMPLES,
  trackerStream,
  withSimd,
} from './support.js';

/** A target angular velocity per joint (rad/s) for the damper's target-velocity row. */
const TARGET_VELOCITY = Float64Array.from({ length: JOINTS * 3 }, (_, i) => 0.5 * Math.sin(i));

/** An offline operation on the same data, recorded beside the live figures to show how loaded the machine was. */
function calibration(name, run) {
  return {
    name: `calibration: ${name}, 1,000 frames x 100 joints`,
    items: JOINTS * SAMPLES,
    unit: 'joint-samples',
    perItem: 'ns',
    setup() {
      const data = trackerStream(SAMPLES, JOINTS, 4);
      return {
        input: quatSeries(data, SAMPLES, JOINTS),
        out: quatSeries(new Float64Array(data.length), SAMPLES, JOINTS),
      };
    },
    run,
  };
}

export default {
  name: 'live',
  tasks: [
    calibration('unrollQuaternions to out (recorded 153 M/s on an idle core)', (s) =>
      unrollQuaternions(s.input, { out: s.out }),
    ),
    calibration(
      'filterRotations raw gaussian(2) (recorded 36 M/s on an idle core; 27 M/s before its SIMD kernel)',
      (s) => filterRotations(s.input, kernels.gaussian(2), { out: s.out }),
    ),
    pushTask(
      'createOneEuroFilter rotations',
      () => createOneEuroFilter({ joints: JOINTS, beta: 0.5 }),
      ONE_EURO,
    ),
    // the same without the WebAssembly kernel: what engines without WebAssembly SIMD run
    pushTask(
      'createOneEuroFilter rotations, JavaScript path',
      () => withSimd(false, () => createOneEuroFilter({ joints: JOINTS, beta: 0.5 })),
      ONE_EURO,
    ),
    pushTask(
      'createOneEuroFilter rotations, derivative output',
      () => createOneEuroFilter({ joints: JOINTS, beta: 0.5, derivative: 'output' }),
      ONE_EURO,
    ),
    pushTask(
      'createOneEuroFilter vectors (3D)',
      () => createOneEuroFilter({ joints: JOINTS, kind: 'vector', beta: 0.5 }),
      { ...ONE_EURO, width: 3 },
    ),
    pushTask(
      'createDamper critical rotations',
      () => createDamper({ joints: JOINTS, halfLife: 0.05 }),
      DAMPER,
    ),
    // the same without the WebAssembly kernel: what engines without WebAssembly SIMD run
    pushTask(
      'createDamper critical rotations, JavaScript path',
      () => withSimd(false, () => createDamper({ joints: JOINTS, halfLife: 0.05 })),
      DAMPER,
    ),
    pushTask(
      'createDamper critical rotations, linear target',
      () => createDamper({ joints: JOINTS, halfLife: 0.05, targetPath: 'linear' }),
      DAMPER,
    ),
    pushTask(
      'createDamper critical rotations, target velocity',
      () => createDamper({ joints: JOINTS, halfLife: 0.05 }),
      { ...DAMPER, velocity: TARGET_VELOCITY },
    ),
    pushTask(
      'createDamper exponential rotations',
      () => createDamper({ joints: JOINTS, halfLife: 0.05, response: 'exponential' }),
      DAMPER,
    ),
    pushTask(
      'createDamper critical vectors (3D)',
      () => createDamper({ joints: JOINTS, kind: 'vector', halfLife: 0.05 }),
      { ...DAMPER, width: 3 },
    ),
    pushTask('createStreamingUnroll quaternions', () => createStreamingUnroll({ joints: JOINTS })),
    pushTask('createStreamingFilter gaussian(2) raw', () =>
      createStreamingFilter(kernels.gaussian(2), { joints: JOINTS, space: 'raw' }),
    ),
  ],
};
