import './style.css';
import { benchPlot } from './bench.js';
import { ClipView } from './clip-view.js';
import { isSoftwareWebGL, SkeletonView } from './viewer.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function showError(message: string | null): void {
  const el = $('error');
  el.hidden = message === null;
  el.textContent = message ?? '';
}

const viewer = new SkeletonView($('viewport'));
const clipView = new ClipView(viewer, showError);

// ---- labs, mounted on first visit ----------------------------------------------------------------------
interface Lab {
  show(): void;
  hide(): void;
  state(): Record<string, unknown>;
}
const labs: Record<string, Lab> = {};
const labLoaders: Record<string, () => Promise<Lab>> = {
  averaging: async () => new (await import('./labs/averaging.js')).AveragingLab($('view-averaging')),
  interpolation: async () =>
    new (await import('./labs/interpolation.js')).InterpolationLab($('view-interpolation')),
  unrolling: async () => new (await import('./labs/unrolling.js')).UnrollingLab($('view-unrolling')),
  live: async () => new (await import('./labs/live.js')).LiveFilterLab($('view-live')),
};

async function showView(name: string): Promise<void> {
  for (const b of document.querySelectorAll<HTMLButtonElement>('.tabs button')) {
    b.classList.toggle('active', b.dataset.view === name);
  }
  for (const v of document.querySelectorAll('.view')) v.classList.toggle('active', v.id === `view-${name}`);
  for (const [k, lab] of Object.entries(labs)) if (k !== name) lab.hide();
  if (name in labLoaders) {
    labs[name] ??= await labLoaders[name]();
    labs[name].show();
  } else {
    viewer.resize();
  }
  history.replaceState(null, '', `#${name}`);
}

for (const b of document.querySelectorAll<HTMLButtonElement>('.tabs button')) {
  b.addEventListener('click', () => void showView(b.dataset.view!));
}

// ---- opening files ---------------------------------------------------------------------------------------
const isGltf = (name: string) => /\.(glb|gltf)$/i.test(name);

/**
 * Opens the first BVH, .glb or .gltf among the files picked or dropped; the other files are a .gltf's
 * resources (its .bin and images), found by file name.
 */
async function openFiles(files: File[]): Promise<void> {
  const file = files.find((f) => isGltf(f.name) || /\.bvh$/i.test(f.name)) ?? files[0];
  if (!file) return;
  sampleSelect.value = '';
  let ok: boolean;
  if (isGltf(file.name)) {
    const resources: Record<string, ArrayBuffer> = {};
    for (const f of files) if (f !== file) resources[f.name] = await f.arrayBuffer();
    ok = await clipView.openGltf(file.name, await file.arrayBuffer(), resources);
  } else ok = await clipView.open(file.name, await file.text());
  if (ok) await showView('clip');
}

$<HTMLInputElement>('file-input').addEventListener('change', (e) => {
  const input = e.target as HTMLInputElement;
  if (input.files?.length) void openFiles([...input.files]);
  input.value = '';
});

const overlay = $('drop-overlay');
let dragDepth = 0;
window.addEventListener('dragenter', (e) => {
  e.preventDefault();
  dragDepth++;
  overlay.hidden = false;
});
window.addEventListener('dragleave', () => {
  if (--dragDepth <= 0) {
    dragDepth = 0;
    overlay.hidden = true;
  }
});
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  overlay.hidden = true;
  if (e.dataTransfer?.files?.length) void openFiles([...e.dataTransfer.files]);
});

interface Sample {
  file: string;
  label: string;
}
const sampleSelect = $<HTMLSelectElement>('sample-select');
async function loadSample(file: string): Promise<void> {
  const res = await fetch(`./samples/${file}`);
  if (!res.ok) {
    showError(`Could not fetch sample ${file}: HTTP ${res.status}`);
    return;
  }
  const ok = isGltf(file)
    ? await clipView.openGltf(file, await res.arrayBuffer())
    : await clipView.open(file, await res.text());
  if (ok) await showView('clip');
}
sampleSelect.addEventListener('change', () => {
  if (sampleSelect.value) void loadSample(sampleSelect.value);
});
fetch('./samples/index.json')
  .then((r) => r.json() as Promise<Sample[]>)
  .then((list) => {
    for (const s of list) sampleSelect.add(new Option(s.label, s.file));
    sampleSelect.dataset.ready = 'true';
  })
  .catch((e: Error) => showError(`Could not list the samples: ${e.message}`));

// ---- hooks for the end-to-end tests and the performance record ------------------------------------------
const softwareWebGL = isSoftwareWebGL();
const studio = {
  clip: clipView,
  ready: true,
  state() {
    const c = clipView.original;
    return {
      name: clipView.name,
      frames: c?.frames ?? 0,
      joints: c?.skeleton.names.length ?? 0,
      frame: clipView.frame,
      time: clipView.time,
      selected: clipView.selected,
      playing: clipView.playing,
      busy: clipView.busy,
      processed: clipView.processed
        ? { frames: clipView.processed.frames, rate: clipView.processed.rate }
        : null,
      poseChecksum: clipView.poseChecksum,
      format: clipView.format,
      animations: clipView.animations.map((a) => a.name),
      animation: clipView.animation,
      clipName: c?.name ?? '',
      reduction: clipView.reduction
        ? { ...clipView.reduction, keptTracks: clipView.reduction.keptTracks.length }
        : null,
      curveRevision: clipView.curveRevision,
      curveDiff: clipView.lastCurveDiff,
      spectrumRevision: clipView.spectrumRevision,
      spectraComputed: clipView.spectraComputed,
      playKernels: [...document.querySelectorAll<HTMLOptionElement>('#play-kernel option')].map(
        (o) => o.value,
      ),
      parseMs: clipView.parseMs,
      positionMode: clipView.positionMode,
      plot: clipView.plotStats(),
      antialias: viewer.renderer.getContext().getContextAttributes()?.antialias ?? false,
      softwareWebGL,
    };
  },
  pixels: () => viewer.pixelStats(),
  character: () => ({ ...viewer.characterInfo(), nameBound: clipView.nameBound }),
  huePixels: (colour: string) => viewer.huePixels(colour),
  setOverlay(on: boolean) {
    const box = document.getElementById('skeleton-overlay') as HTMLInputElement;
    box.checked = on;
    box.dispatchEvent(new Event('change'));
  },
  /**
   * Key dots last drawn on the curves (x in seconds from the clip's start; `keys`: how many keys they
   * stand for, more than the dots when thinned for the plot's pixels) and the plotting area they were
   * thinned for (canvas pixels).
   */
  dots: () =>
    clipView.lastDots.map((d) => ({
      x: Array.from(d.x),
      y: Array.from(d.y),
      ring: !!d.ring,
      keys: d.keys ?? d.x.length,
    })),
  dotGrid: () => clipView.lastCurve?.grid ?? null,
  /** The shown animation's keyed tracks (times as seconds), for the tests. */
  tracks: () =>
    (clipView.keyedTracks ?? []).map((t) => ({
      joint: t.joint,
      path: t.path,
      interpolation: t.interpolation,
      times: Array.from(t.times),
    })),
  curveColourPixels: (colour: string) => clipView.curveColourPixels(colour),
  /** The spectrum last drawn: the joint whose channels it shows (-1: not yet) and its columns, dB. */
  spectrum: () => {
    const s = clipView.spectrumColumns;
    return s ? { joint: s.joint, columns: s.columns.map((c) => Array.from(c)) } : null;
  },
  /** The curves last drawn: columns as plain arrays (null where absent), markers and the summary. */
  curves: () => {
    const d = clipView.lastCurve;
    if (!d) return null;
    return {
      columns: d.columns.map((c) => Array.from(c, (v) => (v === null || Number.isNaN(v) ? null : v))),
      markers: d.markers.map((m) => ({ x: m.x, title: m.title ?? '' })),
      summary: d.summary,
    };
  },
  jointScreen: (j: number) => {
    viewer.render(true);
    return viewer.screenOf(j);
  },
  play(on: boolean) {
    if (clipView.playing !== on) clipView.togglePlay();
  },
  seekFrame: (f: number) => clipView.seekFrame(f),
  playbackStats: () => clipView.stats(),
  /** Where the last open's time went, page and worker (ms from the file read). */
  openMarks: () => clipView.openMarks(),
  resetPlaybackStats: () => clipView.resetStats(),
  benchPlot,
  lab: (name: string) => labs[name]?.state() ?? null,
};
(window as unknown as { __studio: typeof studio }).__studio = studio;

const initial = location.hash.slice(1);
if (initial && initial !== 'clip' && initial in labLoaders) void showView(initial);
