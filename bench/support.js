// What several benches share: a seeded random generator, the live filters' test stream and their push task,
// and the runners' child process per suite.
import { spawnSync } from 'node:child_process';
import { setSimdEnabled } from '../dist/numeric/simd.js';

/** Joints and samples of the live filters' benches. */
export const LIVE_JOINTS = 100;
export const LIVE_SAMPLES = 1000;

/** The live filters' cost targets as pushTask options, in joint-samples per second: 50 ns and 30 ns. */
export const ONE_EURO_TARGET = { target: 20e6 };
export const DAMPER_TARGET = { target: 1e9 / 30 };

/** mulberry32: a seeded generator of uniform numbers in [0, 1), so every run of a bench sees the same data. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A noisy tracker: each joint turns about its own axis at up to 3 rad/s, with jitter and random stored signs. */
export function trackerStream(samples, joints, width) {
  const random = prng(21);
  const data = new Float64Array(samples * joints * width);
  for (let k = 0; k < samples; k++) {
    const t = k / 1000;
    for (let j = 0; j < joints; j++) {
      const o = (k * joints + j) * width;
      if (width === 3) {
        data[o] = Math.sin(t + j) + 0.01 * random();
        data[o + 1] = Math.cos(2 * t + j) + 0.01 * random();
        data[o + 2] = 0.3 * t + 0.01 * random();
        continue;
      }
      const h = 0.5 * (0.5 + 2.5 * ((j * 0.37) % 1)) * t + 0.004 * (random() - 0.5);
      const ax = Math.sin(j * 1.3);
      const ay = Math.cos(j * 0.7);
      const az = 0.5 + 0.01 * j;
      const n = Math.hypot(ax, ay, az);
      const s = (random() < 0.5 ? -1 : 1) * Math.sin(h);
      data[o] = (s * ax) / n;
      data[o + 1] = (s * ay) / n;
      data[o + 2] = (s * az) / n;
      data[o + 3] = (s < 0 === Math.sin(h) < 0 ? 1 : -1) * Math.cos(h);
    }
  }
  return data;
}

/**
 * A live-filter bench task: LIVE_SAMPLES samples of LIVE_JOINTS joints (the tracker stream, `width` values per
 * joint) pushed one at a time at about 1 kHz with ±30% jitter, into the filter `make()` returns; `velocity`,
 * when given, is passed to every push as the target velocity.
 */
export function pushTask(name, make, { target = null, width = 4, velocity } = {}) {
  return {
    name: `${name}, 100 joints x 1,000 samples`,
    items: LIVE_JOINTS * LIVE_SAMPLES,
    unit: 'joint-samples',
    perItem: 'ns',
    target,
    setup() {
      return {
        filter: make(),
        data: trackerStream(LIVE_SAMPLES, LIVE_JOINTS, width),
        out: new Float64Array(LIVE_JOINTS * width),
        t: 0,
      };
    },
    run(s) {
      const stride = LIVE_JOINTS * width;
      for (let k = 0; k < LIVE_SAMPLES; k++) {
        s.t += 0.001 * (1 + 0.3 * Math.sin(k));
        s.filter.pushAt(s.out, 0, s.data, k * stride, s.t, velocity);
      }
    },
  };
}

/** `make()` with the live filters' WebAssembly kernels switched on (where the engine has them) or off. */
export function withSimd(on, make) {
  const was = setSimdEnabled(on);
  try {
    return make();
  } finally {
    setSimdEnabled(was);
  }
}

/**
 * Runs `node ...args` (a runner's one suite) and returns the rows its last line of output holds as JSON;
 * null when the child failed, after saying so under `label` and setting the exit code.
 */
export function childRows(args, label) {
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) {
    console.error(`${label}: exited with ${child.status}`);
    process.exitCode = 1;
    return null;
  }
  const lines = child.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}
