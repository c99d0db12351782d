// `cleanClip` against the smoothing script users write, on real captures with pose-estimator-like noise.
//
// For every BVH capture under the given directories (default: samples/), the clean capture is the ground
// truth. Seeded noise is added to every animated joint's local rotation: a rotation vector with normal
// components of --noise degrees (default 2, so an rms angle of about 3.5°), then on --spike-rate of the
// samples (default 1%) a spike of 20-40° about a uniformly random axis, and on --flip-rate of the samples
// (default 5%) a sign flip (q -> -q, the same rotation). Translations are left clean. Then:
//
// - clean:    cleanClip with its defaults (spikes, flips, log-space Gaussian with the cutoff from the spectrum);
// - savgol:   Savitzky-Golay, window 9, order 2, per quaternion component, renormalised; edges as
//             scipy.signal.savgol_filter's default mode 'interp' (the polynomial fitted to the first or last
//             window). Coefficients from the least-squares definition, computed here;
// - gaussian: a Gaussian of the same 9-frame window (sigma 4/3, radius 4, as scipy.ndimage.gaussian_filter1d
//             with truncate 3), per quaternion component, edges mirrored ('reflect'), renormalised.
// Both baselines are also run on sign-aligned input (hemisphere continuity first: the careful version
// of the script), reported as savgol-aligned and gaussian-aligned.
//
// Errors against the clean capture, over all joints and frames, with forward kinematics:
// - MPJPE: mean joint-position error |x − x_gt|;
// - Accel error: mean |Δ²x − Δ²x_gt| (second difference of the joint positions, per frame²), as in
//   Kanazawa et al. 2019 / VIBE / SmoothNet.
// Both in mm, with the file's units per metre estimated from the skeleton's height in the first frame
// (taken as 1.7 m). The margins are ratios and do not depend on that estimate.
// Flips: output frames where a joint's quaternion changes hemisphere (dot < 0 with the previous frame).
//
// Usage: node bench/clean.js [dirs or files...] [--seed 1] [--noise 2] [--spike-rate 0.01] [--flip-rate 0.05]
//        [--options '{"cutoff": 4}'] (cleanClip options)   [--record]   (--record writes bench/results/clean.json and clean.md)
// Needs the build (npm run build).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanClipWithReport, forwardKinematics, seededRandom, unrollClip } from '../dist/index.js';
import { parseBvh } from '../dist/io/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seed: { type: 'string', default: '1' },
    noise: { type: 'string', default: '2' },
    'spike-rate': { type: 'string', default: '0.01' },
    'flip-rate': { type: 'string', default: '0.05' },
    record: { type: 'boolean', default: false },
    options: { type: 'string', default: '{}' },
  },
});
const seed = Number(values.seed);
const noiseDeg = Number(values.noise);
const spikeRate = Number(values['spike-rate']);
const flipRate = Number(values['flip-rate']);
const DEG = Math.PI / 180;
const cleanOptions = JSON.parse(values.options);

function listBvh(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((n) => listBvh(join(path, n)))
    .filter((p) => p.toLowerCase().endsWith('.bvh'));
}

// ---- noise ---------------------------------------------------------------------------------------------

function normal(rand) {
  let u = 0;
  while (u === 0) u = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** q ⊗ exp(v) for a rotation vector v (radians), written into q at offset o. */
function rotateBy(q, o, vx, vy, vz) {
  const a = Math.hypot(vx, vy, vz);
  if (a === 0) return;
  const s = Math.sin(a / 2) / a;
  const bx = vx * s;
  const by = vy * s;
  const bz = vz * s;
  const bw = Math.cos(a / 2);
  const [ax, ay, az, aw] = [q[o], q[o + 1], q[o + 2], q[o + 3]];
  q[o] = aw * bx + ax * bw + ay * bz - az * by;
  q[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  q[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  q[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

function addNoise(clip, rand) {
  const q = Float64Array.from(clip.rotations.data);
  const { frames, joints } = clip.rotations;
  const sigma = noiseDeg * DEG;
  let spikes = 0;
  let flips = 0;
  for (let f = 0; f < frames; f++)
    for (let j = 0; j < joints; j++) {
      if ((clip.animated[j] & 2) === 0) continue; // ANIMATED_ROTATION
      const o = (f * joints + j) * 4;
      rotateBy(q, o, sigma * normal(rand), sigma * normal(rand), sigma * normal(rand));
      if (rand() < spikeRate) {
        const z = 2 * rand() - 1;
        const phi = 2 * Math.PI * rand();
        const r = Math.sqrt(1 - z * z);
        const angle = (20 + 20 * rand()) * DEG;
        rotateBy(q, o, angle * r * Math.cos(phi), angle * r * Math.sin(phi), angle * z);
        spikes++;
      }
      if (rand() < flipRate) {
        for (let k = 0; k < 4; k++) q[o + k] = -q[o + k];
        flips++;
      }
    }
  return { clip: { ...clip, rotations: { data: q, frames, joints } }, spikes, flips };
}

// ---- baselines (independent of the library's filters) -----------------------------------------------

/** Solves the small dense system A x = b (Gaussian elimination with partial pivoting). */
function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const k = M[r][c] / M[c][c];
      for (let k2 = c; k2 <= n; k2++) M[r][k2] -= k * M[c][k2];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let c = r + 1; c < n; c++) s -= M[r][c] * x[c];
    x[r] = s / M[r][r];
  }
  return x;
}

/**
 * Savitzky-Golay weights from the least-squares definition: row p of the hat matrix V (VᵀV)⁻¹ Vᵀ of the
 * polynomial basis on window positions 0..n-1: the fitted value at position p as weights of the samples.
 */
function savgolHat(n, order) {
  const V = Array.from({ length: n }, (_, i) => Array.from({ length: order + 1 }, (_, k) => i ** k));
  const VtV = Array.from({ length: order + 1 }, (_, a) =>
    Array.from({ length: order + 1 }, (_, b) => V.reduce((s, row) => s + row[a] * row[b], 0)),
  );
  // weights for position p: V[p] (VᵀV)⁻¹ Vᵀ
  return Array.from({ length: n }, (_, p) => {
    const c = solve(VtV, V[p]);
    return V.map((row) => row.reduce((s, v, k) => s + v * c[k], 0));
  });
}

const SG = savgolHat(9, 2);

/** Per-component filter of a quaternion series, then renormalised. `weights(f, frames)` -> [[frame, w], ...]. */
function perComponent(series, taps) {
  const { data, frames, joints } = series;
  const out = new Float64Array(data.length);
  for (let f = 0; f < frames; f++) {
    const t = taps(f, frames);
    for (let j = 0; j < joints; j++) {
      const o = (f * joints + j) * 4;
      let x = 0;
      let y = 0;
      let z = 0;
      let w = 0;
      for (const [g, c] of t) {
        const i = (g * joints + j) * 4;
        x += c * data[i];
        y += c * data[i + 1];
        z += c * data[i + 2];
        w += c * data[i + 3];
      }
      const n = Math.hypot(x, y, z, w);
      if (n > 1e-12) {
        out[o] = x / n;
        out[o + 1] = y / n;
        out[o + 2] = z / n;
        out[o + 3] = w / n;
      } else out.set(data.subarray(o, o + 4), o);
    }
  }
  return { data: out, frames, joints };
}

function savgolTaps(f, frames) {
  const n = 9;
  if (frames < n) return [[f, 1]];
  const start = Math.min(Math.max(f - 4, 0), frames - n);
  const row = SG[f - start];
  return row.map((c, i) => [start + i, c]);
}

const GAUSS_SIGMA = 4 / 3;
const GAUSS = (() => {
  const w = [];
  for (let t = -4; t <= 4; t++) w.push(Math.exp(-(t * t) / (2 * GAUSS_SIGMA * GAUSS_SIGMA)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
})();

function gaussTaps(f, frames) {
  // scipy 'reflect' (d c b a | a b c d | d c b a)
  const reflect = (g) => {
    const period = 2 * frames;
    let m = ((g % period) + period) % period;
    if (m >= frames) m = period - 1 - m;
    return m;
  };
  return GAUSS.map((c, i) => [reflect(f + i - 4), c]);
}

function withRotations(clip, rotations) {
  return { ...clip, rotations };
}

// ---- metrics ----------------------------------------------------------------------------------------

function metrics(truthPositions, clip, mmPerUnit) {
  const x = forwardKinematics(clip).positions.data;
  const t = truthPositions.data;
  const { frames, joints } = truthPositions;
  let pos = 0;
  for (let i = 0; i < t.length; i += 3)
    pos += Math.hypot(x[i] - t[i], x[i + 1] - t[i + 1], x[i + 2] - t[i + 2]);
  const s = joints * 3;
  let acc = 0;
  for (let i = s; i < t.length - s; i += 3) {
    let e = 0;
    for (let k = 0; k < 3; k++) {
      const a = x[i + s + k] - 2 * x[i + k] + x[i - s + k];
      const b = t[i + s + k] - 2 * t[i + k] + t[i - s + k];
      e += (a - b) ** 2;
    }
    acc += Math.sqrt(e);
  }
  const q = clip.rotations.data;
  let flips = 0;
  for (let i = joints * 4; i < q.length; i += 4) {
    const p = i - joints * 4;
    if (q[i] * q[p] + q[i + 1] * q[p + 1] + q[i + 2] * q[p + 2] + q[i + 3] * q[p + 3] < 0) flips++;
  }
  return {
    mpjpe: (pos / (frames * joints)) * mmPerUnit,
    // no second difference below 3 frames
    accel: frames < 3 ? null : (acc / ((frames - 2) * joints)) * mmPerUnit,
    flips,
  };
}

function mmPerUnit(positions) {
  const { joints } = positions;
  let lo = Infinity;
  let hi = -Infinity;
  for (let j = 0; j < joints; j++) {
    const y = positions.data[j * 3 + 1];
    lo = Math.min(lo, y);
    hi = Math.max(hi, y);
  }
  return hi > lo ? 1700 / (hi - lo) : 10;
}

const f = (x) => (x === null ? 'n/a' : x.toFixed(2));
const pct = (x) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

// ---- run --------------------------------------------------------------------------------------------

const inputs = (positionals.length ? positionals : [join(root, 'samples')]).flatMap(listBvh);
const rows = [];
for (const path of inputs) {
  const truth = parseBvh(readFileSync(path, 'utf8'));
  // the seed from the capture's name, so a capture gets the same noise whatever else is run with it
  let hash = seed;
  for (const ch of basename(path)) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) >>> 0;
  const rand = seededRandom(hash);
  const noisy = addNoise(truth, rand);
  const truthX = forwardKinematics(truth).positions;
  const mm = mmPerUnit(truthX);
  const unitsPerMeter = 1000 / mm;
  const t0 = performance.now();
  const { clip: cleaned, report } = cleanClipWithReport(noisy.clip, { unitsPerMeter, ...cleanOptions });
  const ms = performance.now() - t0;
  const aligned = unrollClip(noisy.clip).rotations;
  const results = {
    noisy: metrics(truthX, noisy.clip, mm),
    clean: metrics(truthX, cleaned, mm),
    savgol: metrics(truthX, withRotations(noisy.clip, perComponent(noisy.clip.rotations, savgolTaps)), mm),
    gaussian: metrics(truthX, withRotations(noisy.clip, perComponent(noisy.clip.rotations, gaussTaps)), mm),
    'savgol-aligned': metrics(truthX, withRotations(noisy.clip, perComponent(aligned, savgolTaps)), mm),
    'gaussian-aligned': metrics(truthX, withRotations(noisy.clip, perComponent(aligned, gaussTaps)), mm),
  };
  const c = results.clean;
  // a clip too short for cleanClip to estimate anything from (its 'too-short' warning: only flips removed)
  // is no test of the method: reported as not applicable, with the reason, rather than as a pass or a fail
  const tooShort = report.warnings.find((w) => w.code === 'too-short');
  const margin = (m) =>
    tooShort !== undefined || c[m] === null
      ? null
      : Math.min(
          ...['savgol', 'gaussian', 'savgol-aligned', 'gaussian-aligned'].map(
            (b) => 1 - c[m] / results[b][m],
          ),
        );
  const row = {
    capture: relative(root, path).startsWith('..') ? basename(path) : relative(root, path),
    rate: truth.rate,
    frames: truth.frames,
    joints: truth.rotations.joints,
    mmPerUnit: mm,
    injected: { spikes: noisy.spikes, flips: noisy.flips },
    report: {
      spikes: report.spikes,
      signFlips: report.signFlips,
      sigma: report.sigma,
      cutoff: report.cutoff,
      warnings: report.warnings,
    },
    applicable: tooShort === undefined,
    ...(tooShort === undefined
      ? {}
      : { notApplicable: `not applicable (${truth.frames} frames): ${tooShort.message}` }),
    ms,
    results,
    marginMpjpe: margin('mpjpe'),
    marginAccel: margin('accel'),
  };
  rows.push(row);
  console.log(
    `${row.capture} (${truth.rate.toFixed(0)} Hz, ${truth.frames} frames): sigma ${f(report.sigma)} (cutoff ${f(report.cutoff)} Hz), spikes ${report.spikes}/${noisy.spikes}, flips ${report.signFlips}, ${ms.toFixed(0)} ms`,
  );
  for (const [name, m] of Object.entries(results))
    console.log(
      `  ${name.padEnd(17)} MPJPE ${f(m.mpjpe).padStart(7)} mm  Accel ${f(m.accel).padStart(7)} mm/f²  flips ${m.flips}`,
    );
  if (row.notApplicable) console.log(`  ${row.notApplicable}`);
  else
    console.log(
      `  margin vs the best baseline: MPJPE ${pct(row.marginMpjpe)}, Accel ${pct(row.marginAccel)}`,
    );
}

if (values.record) {
  const record = {
    date: new Date().toISOString(),
    node: process.version,
    seed,
    noiseDegrees: noiseDeg,
    spikeRate,
    flipRate,
    rows,
  };
  writeFileSync(join(root, 'bench/results/clean.json'), `${JSON.stringify(record, null, 2)}\n`);
  const lines = [
    '# cleanClip against per-component Savitzky-Golay (9, 2) and Gaussian (sigma 4/3, 9 taps)',
    '',
    `Noise: ${noiseDeg}° per rotation-vector component, ${100 * spikeRate}% spikes of 20-40°, ${100 * flipRate}% sign flips; seed ${seed}. Written by \`node bench/clean.js --record\`.`,
    'Errors against the clean capture (forward kinematics), mm and mm/frame² (units estimated from a 1.7 m height).',
    'Margin: 1 − clean / best baseline, over the four baselines (naive and sign-aligned).',
    "Captures too short for cleanClip to estimate noise from (its 'too-short' warning: fewer than 8 frames, only sign flips removed) are not applicable: no margin is given for them.",
    '',
    '| capture | Hz | frames | sigma | clean MPJPE | SG MPJPE | Gauss MPJPE | clean Accel | SG Accel | Gauss Accel | MPJPE margin | Accel margin | output flips |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const x = r.results;
      const best = (m) => (x.savgol[m] === null ? null : Math.min(x.savgol[m], x['savgol-aligned'][m]));
      const bestG = (m) =>
        x.gaussian[m] === null ? null : Math.min(x.gaussian[m], x['gaussian-aligned'][m]);
      const na = `not applicable (${r.frames} frames)`;
      const margins = r.applicable ? `${pct(r.marginMpjpe)} | ${pct(r.marginAccel)}` : `${na} | ${na}`;
      return `| ${r.capture} | ${r.rate.toFixed(0)} | ${r.frames} | ${f(r.report.sigma)} | ${f(x.clean.mpjpe)} | ${f(best('mpjpe'))} | ${f(bestG('mpjpe'))} | ${f(x.clean.accel)} | ${f(best('accel'))} | ${f(bestG('accel'))} | ${margins} | ${x.clean.flips} |`;
    }),
    '',
    ...rows.filter((r) => !r.applicable).map((r) => `- ${r.capture}: ${r.notApplicable}`),
    '',
  ];
  writeFileSync(join(root, 'bench/results/clean.md'), lines.join('\n'));
}
