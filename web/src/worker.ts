/// <reference lib="webworker" />
// Heavy processing off the main thread: unroll, smooth, resample, compare, spectra. Everything is a rotsig call.
import { bvhSourceOf, type Clip, type Kernel, kernels, type PositionMode, quat, unrollClip } from 'rotsig';
import { BvhParseError, parseBvhWithReport } from 'rotsig/io';
import type { Difference, FromWorker, ProcessSettings, SpectrumData, ToWorker } from './messages.js';
import { clipSpectrum, downsampleOptimal, filterClip, resampleClip, resampleVectors } from './ops.js';

const DEG = 180 / Math.PI;

let original: Clip | null = null;
let originalSpectrum: SpectrumData | null = null;
const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === 'load') {
    original = m.clip;
    originalSpectrum = null;
    return;
  }
  if (m.type === 'parse') {
    parse(m.id, m.text, m.positionMode);
    return;
  }
  if (!original) return;
  try {
    run(m.id, m.settings, original);
  } catch (err) {
    post({ type: 'error', id: m.id, message: (err as Error).message });
  }
};

/** Parses BVH text; on success the clip becomes the one processing works on. */
function parse(id: number, text: string, positionMode: PositionMode): void {
  const t0 = performance.now();
  try {
    const report = parseBvhWithReport(text, { positionMode });
    original = report.clip;
    originalSpectrum = null;
    const warnings = report.warnings.map((w) => (w.line ? `${w.message} (line ${w.line})` : w.message));
    const ms = performance.now() - t0;
    const fileEuler = fileEulerChannels(text, report.clip);
    post({ type: 'parsed', id, clip: report.clip, warnings, ms, fileEuler });
  } catch (e) {
    const msg = (e as Error).message;
    // BvhParseError messages end with "at line:column"; make sure the location is always shown
    const where =
      e instanceof BvhParseError && !msg.includes(`${e.line}:${e.column}`) ? ` at ${e.line}:${e.column}` : '';
    post({ type: 'parse-error', id, message: `${msg}${where}` });
  }
}

/**
 * The rotation channel values of a BVH file as written (degrees), frames x joints x 3 in each joint's Euler
 * order (`clip.orders`), NaN where a joint has no such channel: what "Euler, file order" plots for the
 * original, so a file's unrolled or multi-turn curves are shown as stored. Null when the rows cannot be
 * matched to the channel layout.
 */
function fileEulerChannels(text: string, clip: Clip): Float64Array | null {
  const source = bvhSourceOf(clip);
  if (!source) return null;
  const head = /frame\s*time\s*:[^\n]*\n/i.exec(text);
  if (!head) return null;
  const J = clip.skeleton.names.length;
  const F = clip.frames;
  // the column of each rotation channel in a row, and where it goes in the output
  const cols: number[] = [];
  const dest: number[] = [];
  let width = 0;
  for (let j = 0; j < J; j++) {
    const order = clip.orders[j].toUpperCase();
    for (const c of source.channels[j]) {
      if (c.endsWith('rotation')) {
        cols.push(width);
        dest.push(j * 3 + order.indexOf(c[0]));
      }
      width++;
    }
  }
  const out = new Float64Array(F * J * 3).fill(Number.NaN);
  const row = new Float64Array(width);
  let i = head.index + head[0].length;
  const n = text.length;
  for (let f = 0; f < F; f++) {
    for (let c = 0; c < width; c++) {
      while (i < n && text.charCodeAt(i) <= 32) i++;
      const start = i;
      while (i < n && text.charCodeAt(i) > 32) i++;
      row[c] = start < i ? Number(text.slice(start, i)) : Number.NaN;
    }
    for (let k = 0; k < cols.length; k++) out[f * J * 3 + dest[k]] = row[cols[k]];
  }
  return out;
}

function smoothingKernel(s: ProcessSettings): Kernel {
  switch (s.smoothKernel) {
    case 'gaussian':
      return kernels.gaussian(s.sigma);
    case 'tent':
      return kernels.scaleKernel(kernels.tent, s.sigma);
    case 'catmull-rom':
      return kernels.scaleKernel(kernels.catmullRom, s.sigma);
    case 'cubic6':
      return kernels.scaleKernel(kernels.cubic6, s.sigma);
    case 'lanczos2':
      return kernels.scaleKernel(kernels.lanczos(2), s.sigma);
    case 'unsharp':
      return kernels.unsharp(kernels.gaussian(s.sigma), 1);
  }
}

function run(id: number, s: ProcessSettings, src: Clip): void {
  const t0 = performance.now();
  const steps = [s.unroll, s.smooth, s.resample].filter(Boolean).length + 2;
  let step = 0;
  const progress = (label: string) => post({ type: 'progress', id, fraction: ++step / steps, label });
  if (!originalSpectrum) originalSpectrum = spectrumOf(src);
  progress('spectrum');
  let clip: Clip | null = null;
  let optimal: { before: number; after: number; steps: number } | null = null;
  if (s.unroll) {
    clip = unrollClip(clip ?? src);
    progress('unroll');
  }
  if (s.smooth) {
    clip = filterClip(clip ?? src, smoothingKernel(s), { space: s.space, boundary: 'clamp' });
    progress('smooth');
  }
  if (s.resample && Math.abs(s.rate - src.rate) > 1e-9) {
    const from = clip ?? src;
    if (s.optimal && s.rate < from.rate) {
      // keys that reconstruct the source best under linear playback, optionally with the FK position term
      const sk = from.skeleton;
      const r = downsampleOptimal(from.rotations, {
        sourceRate: from.rate,
        targetRate: s.rate,
        playback: 'linear',
        ...(s.fk
          ? {
              fk: {
                parents: sk.parents,
                offsets: sk.restTranslations,
                weight: 1e-3,
                translations: from.translations,
              },
            }
          : {}),
      });
      const translations = resampleVectors(from.translations, {
        sourceRate: from.rate,
        times: r.times,
        kernel: 'linear',
        boundary: 'clamp',
      });
      // scales (glTF) are resampled at the same key times as the translations
      const scales = from.scales
        ? resampleVectors(from.scales, {
            sourceRate: from.rate,
            times: r.times,
            kernel: 'linear',
            boundary: 'clamp',
          })
        : undefined;
      clip = {
        ...from,
        rotations: r.keys,
        translations,
        ...(scales ? { scales } : {}),
        frames: r.keys.frames,
        rate: r.rate,
        frameTime: 1 / r.rate,
      };
      optimal = { before: r.before.meanAngle * DEG, after: r.after.meanAngle * DEG, steps: r.steps };
    } else {
      clip = resampleClip(from, { targetRate: s.rate, kernel: s.resampleKernel });
    }
    progress('resample');
  }
  const difference = clip ? compare(src, clip) : null;
  if (difference && optimal) {
    difference.note +=
      `; optimal keys: mean playback error ${optimal.after.toFixed(3)}° vs ${optimal.before.toFixed(3)}° ` +
      `for plain decimation (${optimal.steps} Gauss-Newton steps)`;
  }
  const spectrum = clip ? spectrumOf(clip) : null;
  post({
    type: 'result',
    id,
    clip,
    difference,
    spectrum,
    spectrumOriginal: originalSpectrum,
    ms: performance.now() - t0,
  });
}

function spectrumOf(clip: Clip): SpectrumData | null {
  if (clip.frames < 4) return null;
  const r = clipSpectrum(clip, { energyShare: 0.99 });
  return {
    frequencies: r.frequencies,
    maxDb: r.maxDb,
    energyFrequency: r.energyFrequency,
    energyShare: 0.99,
    recommendedRate: r.recommendedRate,
    rate: clip.rate,
  };
}

/** Angles between the processed and original rotations, on the original's frames. */
function compare(src: Clip, out: Clip): Difference {
  let other = out;
  let note = 'same frames';
  if (out.frames !== src.frames || Math.abs(out.rate - src.rate) > 1e-9) {
    other = resampleClip(out, { targetRate: src.rate, kernel: 'linear' });
    note = `result resampled back to ${src.rate.toFixed(2)} Hz with linear`;
  }
  const J = src.skeleton.names.length;
  const F = Math.min(src.frames, other.frames);
  const per = new Float64Array(J);
  const a = new Float64Array(4);
  const b = new Float64Array(4);
  let max = 0;
  let sum = 0;
  let maxJoint = 0;
  let maxFrame = 0;
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const o = (f * J + j) * 4;
      for (let k = 0; k < 4; k++) {
        a[k] = src.rotations.data[o + k];
        b[k] = other.rotations.data[o + k];
      }
      const d = (quat.angle(a, b) * 180) / Math.PI;
      sum += d;
      if (d > per[j]) per[j] = d;
      if (d > max) {
        max = d;
        maxJoint = j;
        maxFrame = f;
      }
    }
  }
  return { perJointMaxDeg: per, maxDeg: max, meanDeg: sum / Math.max(1, F * J), maxJoint, maxFrame, note };
}
