// Resampling (issue: resampling). lanczos3 in log space on 100,000 source frames x 64 joints, output
// rotations per second: 120 -> 60 Hz (target 4.5 million/s per core) and 30 -> 120 Hz (target 8.5
// million/s); downsampleOptimal of a 30 s, 64-joint clip at 120 Hz to 30 Hz (target: under 1 s, i.e. at
// least 1 clip/s); the 99%-energy spectrum of the same clip for scale.
import { clipSpectrum, downsampleOptimal, makeClip, makeSkeleton, resampleRotations } from '../dist/index.js';
import { prng } from './support.js';

const JOINTS = 64;

/** Motion-like rotations: per joint a sum of a few slow sinusoidal rotations, unit and continuous. */
function motion(frames, rate, seed) {
  const r = prng(seed);
  const data = new Float64Array(frames * JOINTS * 4);
  for (let j = 0; j < JOINTS; j++) {
    const f = [0.3 + 2 * r(), 0.5 + 3 * r(), 1 + 5 * r()];
    const a = [0.2 + 0.6 * r(), 0.1 + 0.4 * r(), 0.05 + 0.2 * r()];
    const p = [6 * r(), 6 * r(), 6 * r()];
    for (let i = 0; i < frames; i++) {
      const t = i / rate;
      const x = a[0] * Math.sin(2 * Math.PI * f[0] * t + p[0]);
      const y = a[1] * Math.sin(2 * Math.PI * f[1] * t + p[1]);
      const z = a[2] * Math.sin(2 * Math.PI * f[2] * t + p[2]);
      const th = Math.hypot(x, y, z);
      const s = th > 0 ? Math.sin(th / 2) / th : 0.5;
      const o = (i * JOINTS + j) * 4;
      data[o] = s * x;
      data[o + 1] = s * y;
      data[o + 2] = s * z;
      data[o + 3] = Math.cos(th / 2);
    }
  }
  return { data, frames, joints: JOINTS };
}

function resampleTask(sourceRate, targetRate, target) {
  const frames = 100_000;
  const outFrames = Math.floor(((frames - 1) * targetRate) / sourceRate) + 1;
  return {
    name: `resampleRotations lanczos3 log ${sourceRate} -> ${targetRate} Hz (100k frames x 64 joints)`,
    items: outFrames * JOINTS,
    unit: 'rotations',
    target,
    iterations: 3,
    time: 0,
    setup() {
      const series = motion(frames, sourceRate, 11);
      const out = { data: new Float64Array(outFrames * JOINTS * 4), frames: outFrames, joints: JOINTS };
      return { series, options: { sourceRate, targetRate, kernel: 'lanczos3', space: 'log', out } };
    },
    run(s) {
      resampleRotations(s.series, s.options);
    },
  };
}

export default {
  name: 'resample',
  tasks: [
    resampleTask(120, 60, 4.5e6),
    resampleTask(30, 120, 8.5e6),
    {
      name: 'downsampleOptimal linear 120 -> 30 Hz (30 s x 64 joints)',
      items: 1,
      unit: 'clips',
      target: 1,
      iterations: 3,
      time: 0,
      setup: () => motion(30 * 120 + 1, 120, 5),
      run(series) {
        downsampleOptimal(series, { sourceRate: 120, targetRate: 30, playback: 'linear' });
      },
    },
    {
      name: 'downsampleOptimal catmull-rom 120 -> 30 Hz (30 s x 64 joints)',
      items: 1,
      unit: 'clips',
      iterations: 3,
      time: 0,
      setup: () => motion(30 * 120 + 1, 120, 5),
      run(series) {
        downsampleOptimal(series, { sourceRate: 120, targetRate: 30, playback: 'catmull-rom' });
      },
    },
    {
      name: 'clipSpectrum euler (30 s x 64 joints at 120 Hz)',
      items: 1,
      unit: 'clips',
      iterations: 3,
      time: 0,
      setup() {
        const rotations = motion(30 * 120 + 1, 120, 5);
        return makeClip({
          skeleton: makeSkeleton({
            names: Array.from({ length: JOINTS }, (_, j) => `j${j}`),
            parents: new Array(JOINTS).fill(-1),
            restTranslations: new Float64Array(JOINTS * 3),
          }),
          frameTime: 1 / 120,
          rotations,
          orders: new Array(JOINTS).fill('ZYX'),
        });
      },
      run(clip) {
        clipSpectrum(clip);
      },
    },
  ],
};
