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
import { setSimdEnabled } from '../dist/ops/live/simd.js';
import { trackerStream } from './support.js';

const JOINTS = 100;
const SAMPLES = 1000;

function task(name, target, make, width = 4, velocity = undefined) {
  return {
    name: `${name}, 100 joints x 1,000 samples`,
    items: JOINTS * SAMPLES,
    unit: 'joint-samples',
    perItem: 'ns',
    target,
    setup() {
      return {
        filter: make(),
        data: trackerStream(SAMPLES, JOINTS, width),
        out: new Float64Array(JOINTS * width),
        t: 0,
      };
    },
    run(s) {
      const stride = JOINTS * width;
      for (let k = 0; k < SAMPLES; k++) {
        s.t += 0.001 * (1 + 0.3 * Math.sin(k));
        s.filter.pushAt(s.out, 0, s.data, k * stride, s.t, velocity);
      }
    },
  };
}

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
    calibration('filterRotations raw gaussian(2) (recorded 27 M/s on an idle core)', (s) =>
      filterRotations(s.input, kernels.gaussian(2), { out: s.out }),
    ),
    task('createOneEuroFilter rotations', 20e6, () => createOneEuroFilter({ joints: JOINTS, beta: 0.5 })),
    // the same without the WebAssembly kernel: what engines without WebAssembly SIMD run
    task('createOneEuroFilter rotations, JavaScript path', 20e6, () => {
      const was = setSimdEnabled(false);
      try {
        return createOneEuroFilter({ joints: JOINTS, beta: 0.5 });
      } finally {
        setSimdEnabled(was);
      }
    }),
    task('createOneEuroFilter rotations, derivative output', 20e6, () =>
      createOneEuroFilter({ joints: JOINTS, beta: 0.5, derivative: 'output' }),
    ),
    task(
      'createOneEuroFilter vectors (3D)',
      20e6,
      () => createOneEuroFilter({ joints: JOINTS, kind: 'vector', beta: 0.5 }),
      3,
    ),
    task('createDamper critical rotations', 1e9 / 30, () => createDamper({ joints: JOINTS, halfLife: 0.05 })),
    // the same without the WebAssembly kernel: what engines without WebAssembly SIMD run
    task('createDamper critical rotations, JavaScript path', 1e9 / 30, () => {
      const was = setSimdEnabled(false);
      try {
        return createDamper({ joints: JOINTS, halfLife: 0.05 });
      } finally {
        setSimdEnabled(was);
      }
    }),
    task('createDamper critical rotations, linear target', 1e9 / 30, () =>
      createDamper({ joints: JOINTS, halfLife: 0.05, targetPath: 'linear' }),
    ),
    task(
      'createDamper critical rotations, target velocity',
      1e9 / 30,
      () => createDamper({ joints: JOINTS, halfLife: 0.05 }),
      4,
      TARGET_VELOCITY,
    ),
    task('createDamper exponential rotations', 1e9 / 30, () =>
      createDamper({ joints: JOINTS, halfLife: 0.05, response: 'exponential' }),
    ),
    task(
      'createDamper critical vectors (3D)',
      1e9 / 30,
      () => createDamper({ joints: JOINTS, kind: 'vector', halfLife: 0.05 }),
      3,
    ),
    task('createStreamingUnroll quaternions', null, () => createStreamingUnroll({ joints: JOINTS })),
    task('createStreamingFilter gaussian(2) raw', null, () =>
      createStreamingFilter(kernels.gaussian(2), { joints: JOINTS, space: 'raw' }),
    ),
  ],
};
