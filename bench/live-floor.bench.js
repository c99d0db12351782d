// Where the live damper's cost goes (issue: real-time rotation filters, target <= 30 ns per joint and sample).
// The critical damper's rotation loop (src/ops/live/damper.ts, targetPath 'hold') is taken apart on the data
// and stream of live.bench.js, 100 joints x 1,000 samples, each task one push per sample through a bare
// function (no option, shape or time checks, no first sample) that runs the loop in one pass over the joints
// with the value and velocity double-buffered (the library's runs in two passes, which is as fast; see the
// README):
// - loads and stores alone: the same typed-array reads and writes per joint (input, value, velocity, the new
//   value and velocity), with one addition or multiplication per value;
// - without transcendental parts: the whole loop, with the logarithm's factor taken as 2/w (no atan polynomial)
//   and exp as (h, 1 - |h|²/2) (no sin/cos polynomials);
// - polynomials without range checks: the whole loop with fdlibm's polynomials but no branch to Math.atan2 /
//   Math.sin / Math.cos (valid below 47° and 90°: at the wrap of the stream, once per 1,000 samples, it gives
//   wrong values at the same cost);
// - the library's createDamper on the same stream, for reference (since the WebAssembly kernel it runs that
//   where the engine has it; live-simd.bench.js compares the kernel with these JavaScript loops).
// The differences are the cost of each part. Run alone: npm run bench -- live-floor
import { createDamper, halfLifeToDamping } from '../dist/index.js';
import { LIVE_JOINTS as JOINTS, pushTask } from './support.js';

function loadsAlone(value, valueNext, motion, motionNext, input, inputOffset, joints, decay) {
  let valid = true;
  for (let j = 0; j < joints; j++) {
    const q = j << 2;
    const o = inputOffset + q;
    const gx = input[o];
    const gy = input[o + 1];
    const gz = input[o + 2];
    const gw = input[o + 3];
    if (!(gw < 1e200)) valid = false;
    valueNext[q] = value[q] + gx;
    valueNext[q | 1] = value[q | 1] + gy;
    valueNext[q | 2] = value[q | 2] + gz;
    valueNext[q | 3] = value[q | 3] + gw;
    motionNext[q] = motion[q] * decay;
    motionNext[q | 1] = motion[q | 1] * decay;
    motionNext[q | 2] = motion[q | 2] * decay;
  }
  return valid;
}

function logPolynomial(s2, w) {
  const inv = 1 / w;
  const z = s2 * inv * inv;
  const z2 = z * z;
  const z4 = z2 * z2;
  const f0 =
    0.3333333333333293 - 0.19999999999876483 * z + (0.14285714272503466 - 0.11111110405462356 * z) * z2;
  const f1 =
    0.09090887133436507 - 0.0769187620504483 * z + (0.06661073137387531 - 0.058335701337905735 * z) * z2;
  const f2 = 0.049768779946159324 - 0.036531572744216916 * z + 0.016285820115365782 * z2;
  return 2 * (1 - z * (f0 + f1 * z4 + f2 * (z4 * z4))) * inv;
}

function sincPolynomial(t2) {
  const u2 = t2 * t2;
  const u4 = u2 * u2;
  return (
    1 +
    t2 *
      (-0.16666666666666632 +
        0.00833333333332249 * t2 +
        (-0.0001984126982985795 + 0.0000027557313707070068 * t2) * u2 +
        (-2.5050760253406863e-8 + 1.58969099521155e-10 * t2) * u4)
  );
}

function cosPolynomial(t2) {
  const u2 = t2 * t2;
  const u4 = u2 * u2;
  const c =
    t2 *
    (0.0416666666666666 -
      0.001388888888887411 * t2 +
      (0.00002480158728947673 - 2.7557314351390663e-7 * t2) * u2 +
      (2.087572321298175e-9 - 1.1359647557788195e-11 * t2) * u4);
  return 1 - (0.5 * t2 - t2 * c);
}

/** The damper's loop; `full` false: without the transcendental parts. */
function makeLoop(full) {
  return (value, valueNext, motion, motionNext, input, inputOffset, joints, decay, y, dt) => {
    const ydt = y * dt;
    let valid = true;
    for (let j = 0; j < joints; j++) {
      const q = j << 2;
      const o = inputOffset + q;
      const gx = input[o];
      const gy = input[o + 1];
      const gz = input[o + 2];
      const gw = input[o + 3];
      const n2 = gx * gx + gy * gy + gz * gz + gw * gw;
      if (!(n2 > 1e-200 && n2 < 1e200)) valid = false;
      const xx = value[q];
      const xy = value[q | 1];
      const xz = value[q | 2];
      const xw = value[q | 3];
      const rx = -xw * gx + xx * gw - xy * gz + xz * gy;
      const ry = -xw * gy + xx * gz + xy * gw - xz * gx;
      const rz = -xw * gz - xx * gy + xy * gx + xz * gw;
      const rw = xw * gw + xx * gx + xy * gy + xz * gz;
      const s2 = rx * rx + ry * ry + rz * rz;
      const k = full ? logPolynomial(s2, rw) : 2 / rw;
      const f = k / (Math.abs(k) * Math.sqrt(n2));
      const e0x = k * rx;
      const e0y = k * ry;
      const e0z = k * rz;
      const vx = motion[q];
      const vy = motion[q | 1];
      const vz = motion[q | 2];
      const j1x = vx + e0x * y;
      const j1y = vy + e0y * y;
      const j1z = vz + e0z * y;
      motionNext[q] = decay * (vx - j1x * ydt);
      motionNext[q | 1] = decay * (vy - j1y * ydt);
      motionNext[q | 2] = decay * (vz - j1z * ydt);
      const hx = 0.5 * decay * (e0x + j1x * dt);
      const hy = 0.5 * decay * (e0y + j1y * dt);
      const hz = 0.5 * decay * (e0z + j1z * dt);
      const t2 = hx * hx + hy * hy + hz * hz;
      const sc = full ? sincPolynomial(t2) : 1;
      const cw = full ? cosPolynomial(t2) : 1 - 0.5 * t2;
      const fx = sc * hx;
      const fy = sc * hy;
      const fz = sc * hz;
      const ux = gx * f;
      const uy = gy * f;
      const uz = gz * f;
      const uw = gw * f;
      valueNext[q] = cw * ux + fx * uw + fy * uz - fz * uy;
      valueNext[q | 1] = cw * uy - fx * uz + fy * uw + fz * ux;
      valueNext[q | 2] = cw * uz + fx * uy - fy * ux + fz * uw;
      valueNext[q | 3] = cw * uw - fx * ux - fy * uy - fz * uz;
    }
    return valid;
  };
}

/** A bare stream through `loop`: the value and velocity double-buffered, out written by one set. */
function bare(loop) {
  const y = halfLifeToDamping(0.05) / 2;
  let value = new Float64Array(JOINTS * 4);
  let valueNext = new Float64Array(JOINTS * 4);
  let motion = new Float64Array(JOINTS * 4);
  let motionNext = new Float64Array(JOINTS * 4);
  for (let j = 0; j < JOINTS; j++) value[j * 4 + 3] = 1;
  let last = 0;
  return {
    pushAt(out, outOffset, input, inputOffset, time) {
      const dt = time - last;
      last = time;
      const decay = Math.exp(-y * dt);
      if (!loop(value, valueNext, motion, motionNext, input, inputOffset, JOINTS, decay, y, dt)) {
        throw new Error('bad sample');
      }
      const v = value;
      value = valueNext;
      valueNext = v;
      const m = motion;
      motion = motionNext;
      motionNext = m;
      out.set(value, outOffset);
      return out;
    },
  };
}

export default {
  name: 'live-floor',
  tasks: [
    pushTask('critical damper loop: loads and stores alone', () => bare(loadsAlone)),
    pushTask('critical damper loop: without transcendental parts', () => bare(makeLoop(false))),
    pushTask('critical damper loop: polynomials without range checks', () => bare(makeLoop(true))),
    pushTask('createDamper critical rotations (the library)', () =>
      createDamper({ joints: JOINTS, halfLife: 0.05 }),
    ),
  ],
};
