// The dampers (critical and exponential, targetPath 'hold' and 'linear') and the One Euro filter on rotations
// through their WebAssembly SIMD kernels (src/numeric/simd.wat: two joints per f64x2 instruction, no bounds
// checks) against their JavaScript loops (the kernels switched off), on the stream of live-floor.bench.js, 100 joints x 1,000 samples pushed
// one at a time. A WebAssembly figure includes everything a push does, for the damper: the checks, the copy of
// the sample into the kernel's memory (one set), the kernel (two phases over the pairs, two pairs at a
// time: the logarithm with the sample's validity test, then the spring and the exponential; a full-range second pass for the pairs the stream's wrap
// takes beyond the polynomials, about 2.3 of 50 per sample) and the copy of the output to the caller's array
// (one set). One Euro's kernel has the same shape (its first phase takes both logarithms, the speed and the
// cutoff, its second the geodesic step).
// Run with run.js (npm run bench -- live-simd) for tinybench figures, or directly
// (node bench/live-simd.bench.js [rounds]) for interleaved rounds timed by CPU time (best and median after a
// quarter of the rounds as warm-up) and the largest difference between the paths over three laps.
//
// How the kernel got there (prototype, interleaved CPU time, best of rounds, against createDamper's
// JavaScript at 52-53 ns in the same runs): the whole pair in one loop with the large angles in functions
// 38 ns (helper functions called rarely stay in V8's baseline tier, and the loop's chain of dependent
// operations, about 300 instructions per pair, is longer than the processor's window, so pairs did not
// overlap); the large angles moved to a second pass over the listed pairs, in the same function, 30.5 ns;
// the first pass split in two phases (the logarithms, then the spring and the exponential) 25.3 ns; copying
// the sample with a JavaScript loop instead of TypedArray.set of a subarray costs 10 ns more.
// Later, in the library (interleaved A/B against the kernel before; the kernel and the copies in and out of
// its memory, without the push's checks; best of 30 rounds): the validity test folded into the first phase
// instead of a pass of its own, 29.5 -> 27.6 ns; with the two-pair loops (simd.wat's @paired) as well,
// 29.3-30.1 -> 24.7 ns; exponential 30.1 -> 24.3, linear target 40.9 -> 37.5.
import { createDamper, createOneEuroFilter } from '../dist/index.js';
import { simdAvailable } from '../dist/numeric/simd.js';
import {
  DAMPER_TARGET as DAMPER,
  LIVE_JOINTS as JOINTS,
  ONE_EURO_TARGET as ONE_EURO,
  pushTask,
  LIVE_SAMPLES as SAMPLES,
  trackerStream,
  withSimd,
} from './support.js';

const damper = (simd, response = 'critical', targetPath = 'hold') =>
  withSimd(simd, () => createDamper({ joints: JOINTS, halfLife: 0.05, response, targetPath }));
const oneEuro = (simd, derivative = 'input') =>
  withSimd(simd, () => createOneEuroFilter({ joints: JOINTS, beta: 0.5, derivative }));

const tasks = [
  pushTask('createDamper critical rotations, WebAssembly SIMD', () => damper(true), DAMPER),
  pushTask('createDamper critical rotations, JavaScript (kernel switched off)', () => damper(false), DAMPER),
  pushTask('createDamper exponential rotations, WebAssembly SIMD', () => damper(true, 'exponential'), DAMPER),
  pushTask(
    'createDamper exponential rotations, JavaScript (kernel switched off)',
    () => damper(false, 'exponential'),
    DAMPER,
  ),
  pushTask(
    'createDamper critical rotations, linear target, WebAssembly SIMD',
    () => damper(true, 'critical', 'linear'),
    DAMPER,
  ),
  pushTask(
    'createDamper critical rotations, linear target, JavaScript',
    () => damper(false, 'critical', 'linear'),
    DAMPER,
  ),
  pushTask('createOneEuroFilter rotations, WebAssembly SIMD', () => oneEuro(true), ONE_EURO),
  pushTask('createOneEuroFilter rotations, JavaScript (kernel switched off)', () => oneEuro(false), ONE_EURO),
  pushTask(
    'createOneEuroFilter rotations, derivative output, WebAssembly SIMD',
    () => oneEuro(true, 'output'),
    ONE_EURO,
  ),
  pushTask(
    'createOneEuroFilter rotations, derivative output, JavaScript',
    () => oneEuro(false, 'output'),
    ONE_EURO,
  ),
];

export default { name: 'live-simd', tasks };

/** Largest difference between the outputs of two filters over the whole stream. */
function agreement(makeA, makeB) {
  const data = trackerStream(SAMPLES, JOINTS, 4);
  const a = makeA();
  const b = makeB();
  const oa = new Float64Array(JOINTS * 4);
  const ob = new Float64Array(JOINTS * 4);
  let t = 0;
  let worst = 0;
  // three times round the stream, as the timed runs go, so the wraps take the full-range paths
  for (let k = 0; k < 3 * SAMPLES; k++) {
    t += 0.001 * (1 + 0.3 * Math.sin(k));
    a.pushAt(oa, 0, data, (k % SAMPLES) * JOINTS * 4, t);
    b.pushAt(ob, 0, data, (k % SAMPLES) * JOINTS * 4, t);
    for (let i = 0; i < oa.length; i++) worst = Math.max(worst, Math.abs(oa[i] - ob[i]));
  }
  return worst;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(process.argv[2] ?? 15);
  if (!simdAvailable())
    console.log('this engine has no WebAssembly SIMD: both tasks run the JavaScript path');
  for (const [name, a, b] of [
    ['damper', () => damper(true), () => damper(false)],
    ['damper, exponential', () => damper(true, 'exponential'), () => damper(false, 'exponential')],
    [
      'damper, linear target',
      () => damper(true, 'critical', 'linear'),
      () => damper(false, 'critical', 'linear'),
    ],
    ['One Euro', () => oneEuro(true), () => oneEuro(false)],
    ['One Euro, derivative output', () => oneEuro(true, 'output'), () => oneEuro(false, 'output')],
  ]) {
    console.log(
      `${name}: largest output difference between the two paths over 3,000 samples: ${agreement(a, b)}`,
    );
  }
  const states = tasks.map((t) => t.setup());
  const times = tasks.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < tasks.length; i++) {
      const c0 = process.cpuUsage();
      for (let rep = 0; rep < 5; rep++) tasks[i].run(states[i]);
      const c = process.cpuUsage(c0);
      times[i].push(((c.user + c.system) * 1e3) / (5 * JOINTS * SAMPLES));
    }
  }
  for (let i = 0; i < tasks.length; i++) {
    const s = times[i].slice(rounds >> 2).sort((x, y) => x - y);
    console.log(
      `${tasks[i].name.padEnd(72)} best ${s[0].toFixed(1)} ns, median ${s[s.length >> 1].toFixed(1)} ns`,
    );
  }
}
