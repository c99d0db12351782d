/// <reference lib="webworker" />
// Heavy work off the main thread: reading BVH and glTF, unroll, smooth, resample, reduce keys, compare, spectra,
// writing .glb. Everything is a rotsig call.
import {
  ANIMATED_ROTATION,
  ANIMATED_SCALE,
  ANIMATED_TRANSLATION,
  bakeClip,
  bvhSourceOf,
  type Clip,
  type KeyedClip,
  type PositionMode,
  quat,
  reduceKeys,
  type Track,
} from 'rotsig';
import {
  BvhParseError,
  type GltfReadResult,
  gltfSourceOf,
  KHR_DRACO_MESH_COMPRESSION,
  parseBvhWithReport,
  readGltf,
} from 'rotsig/io';
import { bakeKeyed, type ClipStep, runSteps } from 'rotsig/pipeline';
import {
  type CurveKind,
  curveData,
  DEFAULT_DOT_GRID,
  type DotGrid,
  type PostedCurves,
  postCurves,
} from './curves.js';
import { mark, type OpenMark } from './marks.js';
import type {
  AnimationInfo,
  Difference,
  FromWorker,
  JointSpectrum,
  ProcessSettings,
  ReductionInfo,
  SpectrumData,
  ToWorker,
} from './messages.js';
import { clipSpectrum, resampleClip } from './ops.js';
import { processedGlb, stepsOf } from './steps.js';

const DEG = 180 / Math.PI;

let original: Clip | null = null;
/**
 * The clip spectra, each computed once per clip (`clipSpectrum` with its channel spectra kept): the
 * original's on open, the processed clip's with each result. The page shows one joint's channels from
 * them and never transforms a channel itself.
 */
let originalSpectrum: ClipSpectra | null = null;
let processedSpectrum: ClipSpectra | null = null;
/** Clip spectra computed since the clip was opened (for the tests: one per clip, never twice for the same clip). */
let spectraComputed = 0;
/**
 * What the curves are drawn from besides the clips: the BVH file's own Euler values, the shown glTF
 * animation's keyed tracks, and the last processing's unroll setting and kept keys.
 */
let curveSource: {
  fileEuler: Float64Array | null;
  tracks: Track[] | null;
  unroll: boolean;
  kept: Track[] | null;
} = { fileEuler: null, tracks: null, unroll: false, kept: null };
/** Where the last open's time went in this thread (see `marks.ts`), posted with each result. */
let marks: OpenMark[] = [];
const post = (m: FromWorker, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(m, transfer);

/** The open glTF file: its bytes (re-read for every download, so the written document starts clean) and what was read. */
let gltf: {
  name: string;
  bytes: Uint8Array;
  resources: Record<string, Uint8Array>;
  read: GltfReadResult;
  animation: number;
} | null = null;
/** The last processing result (the processed clip, or the reduced keys) and its steps, for the download. */
let lastResult: { clip: Clip | null; reduced: KeyedClip | null; steps: ClipStep[] } = {
  clip: null,
  reduced: null,
  steps: [],
};

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  if (m.type === 'load') {
    original = m.clip;
    curveSource = { fileEuler: m.fileEuler, tracks: m.tracks, unroll: false, kept: null };
    lastResult = { clip: null, reduced: null, steps: [] };
    originalSpectrum = null;
    processedSpectrum = null;
    spectraComputed = 0;
    return;
  }
  if (m.type === 'joint-spectrum') {
    post({
      type: 'joint-spectrum',
      id: m.id,
      original: jointOf(originalSpectrum, m.joint),
      processed: jointOf(processedSpectrum, m.joint),
    });
    return;
  }
  if (m.type === 'curves') {
    try {
      const c = original ? curvesOf(m.kind, m.joint, original, m.grid) : null;
      post({ type: 'curves', id: m.id, curves: c?.curves ?? null }, c?.transfer ?? []);
    } catch (err) {
      post({ type: 'error', id: m.id, message: (err as Error).message });
    }
    return;
  }
  if (m.type === 'parse') {
    parse(m.id, m.text, m.positionMode);
    return;
  }
  if (m.type === 'parse-gltf') {
    marks = [];
    mark(marks, 'worker: file received');
    const resources: Record<string, Uint8Array> = {};
    for (const [k, v] of Object.entries(m.resources)) resources[k] = new Uint8Array(v);
    void parseGltf(m.id, new Uint8Array(m.bytes), m.name, resources);
    return;
  }
  if (m.type === 'animation') {
    if (gltf) showAnimation(m.id, m.index, 0, []);
    return;
  }
  if (m.type === 'download-gltf') {
    downloadGltf(m.id).catch((err: Error) => post({ type: 'error', id: m.id, message: err.message }));
    return;
  }
  if (!original) return;
  try {
    run(m.id, m.settings, m.joint, m.curves, original, m.grid);
  } catch (err) {
    post({ type: 'error', id: m.id, message: (err as Error).message });
  }
};

/** Parses BVH text; on success the clip becomes the one processing works on. */
function parse(id: number, text: string, positionMode: PositionMode): void {
  const t0 = performance.now();
  try {
    const report = parseBvhWithReport(text, { positionMode });
    gltf = null;
    original = report.clip;
    originalSpectrum = null;
    processedSpectrum = null;
    spectraComputed = 0;
    const warnings = report.warnings.map((w) => (w.line ? `${w.message} (line ${w.line})` : w.message));
    const ms = performance.now() - t0;
    const fileEuler = fileEulerChannels(text, report.clip);
    lastResult = { clip: null, reduced: null, steps: [] };
    curveSource = { fileEuler, tracks: null, unroll: false, kept: null };
    post({ type: 'parsed', id, clip: report.clip, warnings, ms, fileEuler });
  } catch (e) {
    const msg = (e as Error).message;
    // BvhParseError messages end with "at line:column"; make sure the location is always shown
    const where =
      e instanceof BvhParseError && !msg.includes(`${e.line}:${e.column}`) ? ` at ${e.line}:${e.column}` : '';
    post({ type: 'parse-error', id, message: `${msg}${where}` });
  }
}

/** Reads a .glb or .gltf (with the files given alongside) with `readGltf`; shows its first animation with tracks. */
async function parseGltf(
  id: number,
  bytes: Uint8Array,
  name: string,
  resources: Record<string, Uint8Array>,
): Promise<void> {
  const t0 = performance.now();
  // the page's progress bar during a long open: reading, then baking (the spectrum follows the clip)
  post({ type: 'progress', id, fraction: 0.15, label: `reading ${name}` });
  try {
    const read = await readGltf(bytes, { file: name, resources: withUriKeys(bytes, resources) });
    mark(marks, 'worker: read');
    post({ type: 'progress', id, fraction: 0.5, label: 'baking the animation' });
    if (read.clips.length === 0) throw new Error('the file has no animations');
    gltf = { name, bytes, resources, read, animation: 0 };
    const first = Math.max(
      0,
      read.clips.findIndex((c) => c.tracks.some((t) => t.path !== 'weights')),
    );
    const warnings = read.warnings.map((w) => w.message);
    showAnimation(id, first, performance.now() - t0, warnings);
  } catch (e) {
    const message = (e as Error).message;
    // draco3dgltf is built for Node: the studio has no Draco decoder, so it says so plainly
    const draco = message.includes(KHR_DRACO_MESH_COMPRESSION) && message.includes('draco3d.decoder');
    post({
      type: 'parse-error',
      id,
      message: draco
        ? `${name} has Draco-compressed meshes (${KHR_DRACO_MESH_COMPRESSION}); the studio cannot decode Draco. The rotsig command reads and writes such files (its readGltfFile loads the Draco decoder).`
        : message,
    });
  }
}

/**
 * A `.gltf`'s resources keyed by the URIs its buffers and images name (URI-decoded, folders ignored), from
 * files given by name: a `.bin` picked or dropped with its `.gltf` is found whatever folder the URI names.
 */
function withUriKeys(bytes: Uint8Array, files: Record<string, Uint8Array>): Record<string, Uint8Array> {
  const glb = bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46; // 'glTF'
  if (Object.keys(files).length === 0 || glb) return {};
  let json: { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return {};
  }
  const out: Record<string, Uint8Array> = {};
  for (const item of [...(json.buffers ?? []), ...(json.images ?? [])]) {
    const uri = item.uri;
    if (!uri || uri.startsWith('data:')) continue;
    const file = decodeURIComponent(uri).split('/').pop()!;
    if (files[file]) out[uri] = files[file];
  }
  return out;
}

/** Bakes one animation of the open glTF file onto a uniform grid (`bakeClip`) and makes it the clip processing works on. */
function showAnimation(id: number, index: number, ms: number, warnings: string[]): void {
  if (!gltf) return;
  const t0 = performance.now();
  try {
    const keyed = gltf.read.clips[index];
    if (!keyed) throw new Error(`no animation ${index}`);
    const clip = bakeKeyed(keyed);
    mark(marks, 'worker: baked');
    gltf.animation = index;
    original = clip;
    originalSpectrum = null;
    processedSpectrum = null;
    spectraComputed = 0;
    lastResult = { clip: null, reduced: null, steps: [] };
    const tracks = keyed.tracks.filter((t) => t.path !== 'weights');
    curveSource = { fileEuler: null, tracks, unroll: false, kept: null };
    const animations: AnimationInfo[] = gltf.read.clips.map((c, i) => {
      let keys = 0;
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const t of c.tracks) {
        keys += t.times.length;
        lo = Math.min(lo, t.times[0] ?? lo);
        hi = Math.max(hi, t.times[t.times.length - 1] ?? hi);
      }
      return {
        index: i,
        name: c.name || `animation ${i}`,
        tracks: c.tracks.length,
        keys,
        duration: hi - lo || 0,
      };
    });
    const source = gltfSourceOf(clip);
    // the page gets copies of the large arrays, transferred: one copy here instead of a structured clone's
    // serialising here and deserialising there (the worker keeps its own for processing)
    const transfer: ArrayBuffer[] = [];
    post(
      {
        type: 'parsed',
        id,
        // the glTF document stays here (it cannot be posted); the page gets the plain arrays
        clip: {
          ...clip,
          source: undefined,
          rotations: copied(clip.rotations, transfer),
          translations: copied(clip.translations, transfer),
          scales: clip.scales ? copied(clip.scales, transfer) : undefined,
        },
        warnings,
        ms: ms + performance.now() - t0,
        fileEuler: null,
        gltf: {
          animations,
          animation: index,
          tracks: tracks.map((t) => {
            const times = t.times.slice();
            const values = t.values.slice();
            transfer.push(times.buffer as ArrayBuffer, values.buffer as ArrayBuffer);
            return { ...t, times, values };
          }),
          nodes: source ? Int32Array.from(source.nodes) : new Int32Array(0),
        },
      },
      transfer,
    );
    mark(marks, 'worker: clip posted');
  } catch (e) {
    post({ type: 'parse-error', id, message: (e as Error).message });
  }
}

/**
 * The processed animation written back into the file (`processedGlb`): the file is read again, so every
 * mesh, skin, material and other animation is written as it was read, and only the shown animation's
 * channels change (to the reduced keys, or to the steps run on its keys as `rotsig` runs them).
 */
async function downloadGltf(id: number): Promise<void> {
  if (!gltf) throw new Error('no glTF file is open');
  const { glb, warnings } = await processedGlb(
    {
      name: gltf.name,
      bytes: gltf.bytes,
      resources: withUriKeys(gltf.bytes, gltf.resources),
      animation: gltf.animation,
    },
    lastResult.steps,
    lastResult.reduced,
  );
  post({ type: 'downloaded', id, glb, warnings }, [glb.buffer]);
}

/** A series with a copy of its data, whose buffer is added to `transfer`. */
function copied<S extends { data: Float64Array | Float32Array }>(s: S, transfer: ArrayBuffer[]): S {
  const data = s.data.slice();
  transfer.push(data.buffer as ArrayBuffer);
  return { ...s, data };
}

/** Bytes of keyed tracks as glTF stores them: float32 key times and values, one time accessor per track. */
function trackBytes(tracks: readonly Track[]): number {
  let n = 0;
  for (const t of tracks) n += (t.times.length + t.values.length) * 4;
  return n;
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

/**
 * One joint's curves of the original and the last processed clip (`curveData`, as the page drew them when
 * it computed them), thinned for the screen and ready to post: the page only draws.
 */
function curvesOf(
  kind: CurveKind,
  joint: number,
  src: Clip,
  grid: DotGrid = DEFAULT_DOT_GRID,
): { curves: PostedCurves; transfer: ArrayBuffer[] } {
  const processed = lastResult.clip;
  const d = curveData(kind, src, processed, joint, curveSource.unroll, curveSource.fileEuler, {
    tracks: curveSource.tracks,
    kept: processed ? curveSource.kept : null,
  });
  return postCurves(kind, joint, d, undefined, grid);
}

function run(
  id: number,
  s: ProcessSettings,
  joint: number,
  kind: CurveKind,
  src: Clip,
  grid?: DotGrid,
): void {
  const t0 = performance.now();
  mark(marks, 'worker: processing asked');
  const pipeline = stepsOf(s, src.rate);
  const steps = pipeline.length + (s.reduce ? 1 : 0) + 2;
  let step = 0;
  const progress = (label: string) => post({ type: 'progress', id, fraction: ++step / steps, label });
  // the first request for a clip (the page sends it as soon as it shows the clip): the original's curves
  // first, posted at once, so that the page draws them while this thread computes the spectrum
  let early = false;
  if (!originalSpectrum || originalSpectrum.clip !== src) {
    if (!lastResult.clip) {
      const c = curvesOf(kind, joint, src, grid);
      post({ type: 'curves', id, curves: c.curves }, c.transfer);
      mark(marks, 'worker: curves');
      early = true;
    }
    originalSpectrum = clipSpectra(src);
    mark(marks, 'worker: spectrum');
  }
  progress('spectrum');
  let optimal: { before: number; after: number; steps: number } | null = null;
  // the steps `rotsig` runs for the same options (rotsig/pipeline), reporting each as it is done
  const processed = runSteps(src, pipeline, {
    onStep: (r) => {
      if (r.optimal)
        optimal = { before: r.optimal.before * DEG, after: r.optimal.after * DEG, steps: r.optimal.steps };
      progress(r.op);
    },
  });
  let clip: Clip | null = pipeline.length > 0 ? processed : null;
  let reduction: ReductionInfo | null = null;
  let reduced: KeyedClip | null = null;
  if (s.reduce) {
    // an unprocessed glTF animation is reduced on its own keys (a subset of them, as `rotsig reduce` does);
    // a processed clip, or a BVH, on its frames
    const keyed = clip === null && gltf ? gltf.read.clips[gltf.animation] : undefined;
    const from: Clip | KeyedClip = keyed ?? clip ?? src;
    // lengths in the clip's units: glTF is in metres, BVH files are usually centimetres
    const unitsPerMm = gltf ? 0.001 : 0.1;
    const r = reduceKeys(from, {
      // no channel dropped at its rest value: the studio writes back every track it shows and counts
      keepAtRest: 'all',
      metric: s.reduceMetric,
      unitsPerMeter: unitsPerMm * 1000,
      tolerance: s.toleranceMm * unitsPerMm,
      ...(s.reduceMetric === 'object'
        ? { shellDistance: 30 * unitsPerMm }
        : { toleranceAngle: (s.toleranceDeg * Math.PI) / 180 }),
    });
    reduced = r.clip;
    const before = keyed ? trackBytes(keyed.tracks) : trackBytesOfClip(clip ?? src);
    reduction = {
      metric: r.report.metric,
      keysBefore: r.report.keysBefore,
      keysAfter: r.report.keysAfter,
      tracks: r.report.tracks,
      bytesBefore: before,
      bytesAfter: trackBytes(r.clip.tracks),
      maxError: r.report.maxError,
      p99Error: r.report.p99Error,
      maxAngle: r.report.maxAngle,
      tolerance: r.report.tolerance,
      unitsPerMm,
      keptTracks: r.clip.tracks.map((t) => ({ ...t })),
    };
    // what a player evaluates between the kept keys, on the clip's frames: the processed clip shown
    const shown = clip ?? src;
    clip = { ...bakeClip(r.clip, { rate: shown.rate, duration: 'keep-end' }), source: shown.source };
    progress('reduce');
  }
  lastResult = { clip, reduced, steps: pipeline };
  const difference = clip ? compare(src, clip) : null;
  const fit = optimal as { before: number; after: number; steps: number } | null;
  if (difference && fit) {
    difference.note +=
      `; optimal keys: mean playback error ${fit.after.toFixed(3)}° vs ${fit.before.toFixed(3)}° ` +
      `for plain decimation (${fit.steps} Gauss-Newton steps)`;
  }
  processedSpectrum = clip ? clipSpectra(clip) : null;
  curveSource = { ...curveSource, unroll: s.unroll, kept: reduction?.keptTracks ?? null };
  mark(marks, 'worker: processed');
  // without a processed clip the curves are the ones posted first, which the page keeps
  const curves = early && !clip ? null : curvesOf(kind, joint, src, grid);
  if (curves) mark(marks, 'worker: curves');
  // the spectra's arrays (megabytes at a million frames) as transferred copies, like the curves
  const transfer: ArrayBuffer[] = [...(curves?.transfer ?? [])];
  post(
    {
      type: 'result',
      id,
      clip: clip && gltf ? { ...clip, source: undefined } : clip,
      difference,
      spectrum: spectrumData(processedSpectrum, joint, transfer),
      spectrumOriginal: spectrumData(originalSpectrum, joint, transfer),
      spectraComputed,
      reduction,
      curves: curves?.curves ?? null,
      ms: performance.now() - t0,
      marks,
    },
    transfer,
  );
}

/** Bytes of a uniform clip keyed at every frame in every animated channel (float32 times and values). */
function trackBytesOfClip(clip: Clip): number {
  let channels = 0;
  let values = 0;
  for (let j = 0; j < clip.animated.length; j++) {
    const a = clip.animated[j];
    if (a & ANIMATED_TRANSLATION) {
      channels++;
      values += 3;
    }
    if (a & ANIMATED_ROTATION) {
      channels++;
      values += 4;
    }
    if (a & ANIMATED_SCALE) {
      channels++;
      values += 3;
    }
  }
  return clip.frames * (channels * 4 + values * 4);
}

/** A clip's spectrum with every joint's channel spectra (null below 4 frames), and the clip it is of. */
interface ClipSpectra {
  clip: Clip;
  result: ReturnType<typeof clipSpectrum> | null;
}

/** `clipSpectrum` of a clip, its channel spectra kept: the one transform of every channel the studio makes. */
function clipSpectra(clip: Clip): ClipSpectra {
  if (clip.frames < 4) return { clip, result: null };
  spectraComputed++;
  return { clip, result: clipSpectrum(clip, { energyShare: 0.99, channelSpectra: true }) };
}

/** One joint's kept channel spectra, or null. */
function jointOf(s: ClipSpectra | null, joint: number): JointSpectrum | null {
  const db = s?.result?.channelDb?.[joint];
  return db ? { joint, db } : null;
}

/**
 * What the page plots of a clip spectrum: the maximum, the energy line, and the shown joint's channels.
 * With `transfer`, its arrays are copies whose buffers are added to it (the worker keeps the spectra).
 */
function spectrumData(s: ClipSpectra | null, joint: number, transfer?: ArrayBuffer[]): SpectrumData | null {
  const r = s?.result;
  if (!s || !r) return null;
  const own = (a: Float64Array) => {
    if (!transfer) return a;
    const c = a.slice();
    transfer.push(c.buffer);
    return c;
  };
  const j = jointOf(s, joint);
  return {
    frequencies: own(r.frequencies),
    maxDb: own(r.maxDb),
    energyFrequency: r.energyFrequency,
    energyShare: 0.99,
    recommendedRate: r.recommendedRate,
    rate: s.clip.rate,
    joint: j ? { joint: j.joint, db: j.db.map(own) } : null,
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
