// Keyed tracks (issue 16). bakeClip of a 64-joint character with glTF-shaped tracks (Float32 times and
// values, LINEAR: slerp rotations, lerp root translation) onto a grid, counted in keys per second (the
// issue's target: at least 20 million/s): 60 s at 30 Hz keys baked at 30 Hz (every frame on a key: the
// Float32 key times are a rounding off the grid, which the default keyTimes: 'float32' takes as the key,
// and keyTimes: 'exact' interpolates, a slerp per sample), into new buffers and into reused ones
// (options.out); the same keys baked at 60 Hz (samples per second), non-uniform keys and CUBICSPLINE; evaluateTrack of one rotation track at a million times.
import { bakeClip, evaluateTrack, makeSkeleton } from '../dist/index.js';
import { prng } from './support.js';

const JOINTS = 64;

function quatAt(r, t, out, o) {
  const x = r[0] * Math.sin(r[3] * t + r[6]);
  const y = r[1] * Math.sin(r[4] * t + r[7]);
  const z = r[2] * Math.sin(r[5] * t + r[8]);
  const th = Math.hypot(x, y, z);
  const s = th > 0 ? Math.sin(th / 2) / th : 0.5;
  out[o] = s * x;
  out[o + 1] = s * y;
  out[o + 2] = s * z;
  out[o + 3] = Math.cos(th / 2);
}

/** A keyed clip: a rotation track per joint and a root translation track, `times` shared. */
function keyedClip(times, interpolation, seed) {
  const r = prng(seed);
  const n = times.length;
  const per = interpolation === 'cubicspline' ? 3 : 1;
  const tracks = [];
  const q = new Float64Array(4);
  for (let j = 0; j < JOINTS; j++) {
    const p = Array.from({ length: 9 }, (_, i) => (i < 3 ? 0.2 + 0.6 * r() : i < 6 ? 2 + 10 * r() : 6 * r()));
    const values = new Float32Array(n * per * 4);
    for (let k = 0; k < n; k++) {
      quatAt(p, times[k], q, 0);
      values.set(q, (k * per + (per === 3 ? 1 : 0)) * 4);
    }
    tracks.push({ joint: j, path: 'rotation', interpolation, times, values, width: 4 });
  }
  const tv = new Float32Array(n * per * 3);
  for (let k = 0; k < n; k++)
    for (let c = 0; c < 3; c++) tv[(k * per + (per === 3 ? 1 : 0)) * 3 + c] = Math.sin(times[k] + c);
  tracks.push({ joint: 0, path: 'translation', interpolation, times, values: tv, width: 3 });
  const parents = Array.from({ length: JOINTS }, (_, j) => j - 1);
  const skeleton = makeSkeleton({
    names: parents.map((_, j) => `j${j}`),
    parents,
    restTranslations: new Float64Array(JOINTS * 3).fill(0.1),
  });
  return { skeleton, tracks, orders: new Array(JOINTS).fill('XYZ') };
}

const SECONDS = 60;
const uniform = Float32Array.from({ length: SECONDS * 30 + 1 }, (_, i) => i / 30);
const r = prng(7);
const irregular = [0];
while (irregular[irregular.length - 1] < SECONDS)
  irregular.push(irregular[irregular.length - 1] + (1 + Math.floor(4 * r())) / 30);
const nonUniform = Float32Array.from(irregular);
const keysOf = (times) => times.length * (JOINTS + 1);

export default {
  name: 'keys',
  tasks: [
    {
      name: `bakeClip LINEAR Float32, ${SECONDS} s at 30 Hz keys -> 30 Hz (${JOINTS} joints)`,
      items: keysOf(uniform),
      unit: 'keys',
      target: 20e6,
      setup: () => keyedClip(uniform, 'linear', 1),
      run: (k) => bakeClip(k, { rate: 30 }),
    },
    {
      name: `bakeClip LINEAR Float32, ${SECONDS} s at 30 Hz keys -> 30 Hz (${JOINTS} joints), options.out reused`,
      items: keysOf(uniform),
      unit: 'keys',
      target: 20e6,
      setup: () => {
        const keyed = keyedClip(uniform, 'linear', 1);
        const n = uniform.length * JOINTS;
        const out = { rotations: new Float64Array(n * 4), translations: new Float64Array(n * 3) };
        return { keyed, out };
      },
      run: (s) => bakeClip(s.keyed, { rate: 30, out: s.out }),
    },
    {
      name: `bakeClip LINEAR Float32, ${SECONDS} s at 30 Hz keys -> 30 Hz (${JOINTS} joints), keyTimes 'exact' (every sample a slerp)`,
      items: keysOf(uniform),
      unit: 'keys',
      target: 20e6,
      setup: () => keyedClip(uniform, 'linear', 1),
      run: (k) => bakeClip(k, { rate: 30, keyTimes: 'exact' }),
    },
    {
      name: `bakeClip LINEAR Float32, ${SECONDS} s at 30 Hz keys -> 60 Hz (${JOINTS} joints)`,
      items: (SECONDS * 60 + 1) * (JOINTS + 1),
      unit: 'samples',
      setup: () => keyedClip(uniform, 'linear', 2),
      run: (k) => bakeClip(k, { rate: 60 }),
    },
    {
      name: `bakeClip LINEAR Float32, non-uniform keys (${nonUniform.length} per track) -> 30 Hz (${JOINTS} joints)`,
      items: keysOf(nonUniform),
      unit: 'keys',
      setup: () => keyedClip(nonUniform, 'linear', 3),
      run: (k) => bakeClip(k, { rate: 30 }),
    },
    {
      name: `bakeClip CUBICSPLINE Float32, ${SECONDS} s at 30 Hz keys -> 30 Hz (${JOINTS} joints)`,
      items: keysOf(uniform),
      unit: 'keys',
      setup: () => keyedClip(uniform, 'cubicspline', 4),
      run: (k) => bakeClip(k, { rate: 30 }),
    },
    {
      name: 'evaluateTrack LINEAR rotation, 1801 keys, 1e6 increasing times',
      items: 1e6,
      unit: 'samples',
      setup: () => {
        const k = keyedClip(uniform, 'linear', 5);
        const times = Float64Array.from({ length: 1e6 }, (_, i) => (i * SECONDS) / 1e6);
        return { track: k.tracks[3], times, out: new Float64Array(4e6) };
      },
      run: (s) => evaluateTrack(s.track, s.times, { out: s.out }),
    },
  ],
};
