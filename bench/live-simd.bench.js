// The critical damper's rotation loop (targetPath 'hold') in WebAssembly SIMD (src/ops/live/simd.wat: two joints
// per f64x2 instruction, no bounds checks) against JavaScript, on the stream of live-floor.bench.js, 100
// joints x 1,000 samples pushed one at a time. Every WebAssembly task includes the copy of the caller's
// sample into the module's memory, the kernel (validity pass, the two phases, the full-range second pass for
// pairs outside the polynomials' range, which the stream's wrap sends there: about 2.3 of 50 pairs per sample)
// and the copy of the output back to the caller's array:
// - copy-in by TypedArray.set of a subarray (one view allocated per sample) or by a JavaScript loop;
// - the library's createDamper (JavaScript), for reference.
// Run with run.js (npm run bench -- live-simd) for tinybench figures, or directly
// (node bench/live-simd.bench.js [rounds]) for interleaved rounds timed by CPU time (best and median after a
// quarter of the rounds as warm-up) and the largest difference from createDamper over three laps (2.2e-15).
//
// Prototype record (Node 20, one AMD EPYC core, interleaved, CPU time, best / median of 30 rounds at load 2.4):
// subarray copy 25.3 / 26.2 ns, loop copy 36.2 / 36.5 ns, createDamper 52.1 / 52.7 ns. Breakdown measured by
// taking parts out (load ~1.3, so slower overall): copies, checks and JavaScript per sample 5.0 ns; one pass
// with the logarithm and the exponential in one loop 19 ns (the chain of dependent operations of one pair is
// longer than the processor's window, so pairs did not overlap), in two phases over the pairs about 14 ns;
// the full-range second pass about 6 ns before it too was split in two phases.
import { createDamper, halfLifeToDamping } from '../dist/index.js';
import { SIMD_WASM_BASE64 } from '../dist/ops/live/simd-bytes.js';

const JOINTS = 100;
const SAMPLES = 1000;

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The rotation stream of live.bench.js: each joint turns about its own axis, with jitter and random signs. */
function stream() {
  const random = prng(21);
  const data = new Float64Array(SAMPLES * JOINTS * 4);
  for (let k = 0; k < SAMPLES; k++) {
    const t = k / 1000;
    for (let j = 0; j < JOINTS; j++) {
      const o = (k * JOINTS + j) * 4;
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

const wasmModule = new WebAssembly.Module(Uint8Array.from(atob(SIMD_WASM_BASE64), (c) => c.charCodeAt(0)));

/** One joint of the critical 'hold' damper in scalar JavaScript with Math.atan2/sin/cos (the library's maths). */
function finishJoint(val, vel, inp, j, decay, y, sdt, ydt) {
  const q = j * 4;
  const e = j * 3;
  const gx = inp[q];
  const gy = inp[q + 1];
  const gz = inp[q + 2];
  const gw = inp[q + 3];
  const n2 = gx * gx + gy * gy + gz * gz + gw * gw;
  const xx = val[q];
  const xy = val[q + 1];
  const xz = val[q + 2];
  const xw = val[q + 3];
  const rx = -xw * gx + xx * gw - xy * gz + xz * gy;
  const ry = -xw * gy + xx * gz + xy * gw - xz * gx;
  const rz = -xw * gz - xx * gy + xy * gx + xz * gw;
  const rw = xw * gw + xx * gx + xy * gy + xz * gz;
  const s2 = rx * rx + ry * ry + rz * rz;
  const sn = Math.sqrt(s2);
  let k = sn === 0 ? 2 / rw : (2 * Math.atan2(sn, Math.abs(rw))) / sn;
  if (rw < 0) k = -Math.abs(k);
  const f = k / (Math.abs(k) * Math.sqrt(n2));
  const e0x = k * rx;
  const e0y = k * ry;
  const e0z = k * rz;
  const vx = vel[e];
  const vy = vel[e + 1];
  const vz = vel[e + 2];
  const j1x = vx + e0x * y;
  const j1y = vy + e0y * y;
  const j1z = vz + e0z * y;
  vel[e] = decay * (vx - j1x * ydt);
  vel[e + 1] = decay * (vy - j1y * ydt);
  vel[e + 2] = decay * (vz - j1z * ydt);
  const hx = 0.5 * decay * (e0x + j1x * sdt);
  const hy = 0.5 * decay * (e0y + j1y * sdt);
  const hz = 0.5 * decay * (e0z + j1z * sdt);
  const t = Math.hypot(hx, hy, hz);
  const sc = t === 0 ? 1 : Math.sin(t) / t;
  const cw = Math.cos(t);
  const ux = gx * f;
  const uy = gy * f;
  const uz = gz * f;
  const uw = gw * f;
  const fx = sc * hx;
  const fy = sc * hy;
  const fz = sc * hz;
  val[q] = cw * ux + fx * uw + fy * uz - fz * uy;
  val[q + 1] = cw * uy - fx * uz + fy * uw + fz * ux;
  val[q + 2] = cw * uz + fx * uy - fy * ux + fz * uw;
  val[q + 3] = cw * uw - fx * ux - fy * uy - fz * uz;
}

/** The damper through the WebAssembly kernel; `copy`: 'subarray' or 'loop' for the input. */
function simd(copy) {
  const y = halfLifeToDamping(0.05) / 2;
  const pairs = (JOINTS + 1) >> 1;
  const n = JOINTS * 4;
  const IN = 0;
  const VAL = IN + pairs * 64;
  const VEL = VAL + pairs * 64;
  const FLAGS = VEL + pairs * 48;
  const SCRATCH = FLAGS + ((pairs * 4 + 15) & ~15);
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
  const kernel = new WebAssembly.Instance(wasmModule, { env: { memory } }).exports;
  const inp = new Float64Array(memory.buffer, IN, pairs * 8);
  const val = new Float64Array(memory.buffer, VAL, pairs * 8);
  const vel = new Float64Array(memory.buffer, VEL, pairs * 6);
  const flags = new Int32Array(memory.buffer, FLAGS, pairs);
  const valOut = new Float64Array(memory.buffer, VAL, n);
  for (let j = 0; j < pairs * 2; j++) {
    inp[j * 4 + 3] = 1;
    val[j * 4 + 3] = 1;
  }
  let last = 0;
  let first = true;
  let wide = 0;
  return {
    pushAt(out, outOffset, input, inputOffset, time) {
      if (first) {
        // the first sample passes through (unit, w >= 0), as createDamper's
        first = false;
        last = time;
        for (let j = 0; j < JOINTS; j++) {
          const o = inputOffset + j * 4;
          const w = input[o + 3];
          const s = (w < 0 ? -1 : 1) / Math.hypot(input[o], input[o + 1], input[o + 2], w);
          for (let c = 0; c < 4; c++) val[j * 4 + c] = input[o + c] * s;
        }
        out.set(valOut, outOffset);
        return out;
      }
      const dt = time - last;
      last = time;
      const decay = Math.exp(-y * dt);
      if (copy === 'subarray') inp.set(input.subarray(inputOffset, inputOffset + n));
      else for (let i = 0; i < n; i++) inp[i] = input[inputOffset + i];
      const sdt = Math.min(dt, 800 / y);
      const ydt = y * sdt;
      const count = kernel.damperHold(IN, VAL, VEL, FLAGS, SCRATCH, pairs, decay, y, sdt, ydt);
      if (count < 0) throw new Error('bad sample');
      wide += count;
      for (let c = 0; c < count; c++) {
        const p = flags[c];
        finishJoint(val, vel, inp, 2 * p, decay, y, sdt, ydt);
        finishJoint(val, vel, inp, 2 * p + 1, decay, y, sdt, ydt);
      }
      out.set(valOut, outOffset);
      return out;
    },
    /** Pairs left to the scalar finish so far. */
    get finished() {
      return wide;
    },
  };
}

function task(name, make) {
  return {
    name: `${name}, 100 joints x 1,000 samples`,
    items: JOINTS * SAMPLES,
    unit: 'joint-samples',
    perItem: 'ns',
    target: 1e9 / 30,
    setup() {
      return { filter: make(), data: stream(), out: new Float64Array(JOINTS * 4), t: 0 };
    },
    run(s) {
      const stride = JOINTS * 4;
      for (let k = 0; k < SAMPLES; k++) {
        s.t += 0.001 * (1 + 0.3 * Math.sin(k));
        s.filter.pushAt(s.out, 0, s.data, k * stride, s.t);
      }
    },
  };
}

const tasks = [
  task('WebAssembly SIMD damper, copy-in by subarray', () => simd('subarray')),
  task('WebAssembly SIMD damper, copy-in by loop', () => simd('loop')),
  task('createDamper critical rotations (the library)', () =>
    createDamper({ joints: JOINTS, halfLife: 0.05 }),
  ),
];

export default { name: 'live-simd', tasks };

/** Largest difference between the outputs of two filters over the whole stream. */
function agreement(makeA, makeB) {
  const data = stream();
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
  const lib = () => createDamper({ joints: JOINTS, halfLife: 0.05 });
  let probe;
  const worst = agreement(() => (probe = simd('subarray')), lib);
  console.log(
    `largest output difference from createDamper over 3,000 samples: ${worst} (${probe.finished} pairs finished in JavaScript)`,
  );
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
