import {
  ANIMATED_ROTATION,
  animatedPaths,
  bvhSourceOf,
  type Clip,
  type PositionMode,
  quat,
  type Track,
} from 'rotsig';
import { writeBvh } from 'rotsig/io';
import { bindingNames } from 'rotsig/three';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { type CurveKind, curveLabels, decimationRows, type PostedCurves } from './curves.js';
import { ASK_KEYS, guardGltf, MAX_KEYS, uriFileName } from './gltf-guard.js';
import { mark, type OpenMark } from './marks.js';
import type {
  AnimationInfo,
  Difference,
  FromWorker,
  JointSpectrum,
  ProcessSettings,
  ReductionInfo,
  SpectrumData,
} from './messages.js';
import { type DotSet, LinePlot } from './plot.js';
import {
  localPoseAt,
  type PlayKernel,
  PoseSampler,
  poseClip,
  posePositions,
  RESAMPLED_KERNELS,
} from './pose.js';
import { ProcessingPanel } from './processing-panel.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The clip view: 3D skeleton, transport, joint tree, curves, processing and spectrum. */
export class ClipView {
  original: Clip | null = null;
  processed: Clip | null = null;
  name = '';
  selected = 0;
  /** Playback position in seconds. */
  time = 0;
  playing = false;
  curveRevision = 0;
  private speed = 1;
  private kernel: PlayKernel = 'linear';
  private rootMotion = true;
  private follow = true;
  private showAfter = true;
  private curveKind: CurveKind = 'quat';
  private lastTick = 0;
  private readonly frameTimes: number[] = [];
  private readonly workTimes: number[] = [];
  private worker: Worker | null = null;
  private requestId = 0;
  private difference: Difference | null = null;
  private spectrum: SpectrumData | null = null;
  private spectrumOriginal: SpectrumData | null = null;
  private curvePlot: LinePlot | null = null;
  private spectrumPlot: LinePlot | null = null;
  private readonly panel: ProcessingPanel;
  // pose buffers
  private rot = new Float64Array(0);
  private trans = new Float64Array(0);
  private grot = new Float64Array(0);
  private pos = new Float64Array(0);
  private scl: Float64Array | null = null;
  private ghostPos = new Float64Array(0);
  private rootRest = new Float64Array(0);
  /** One-frame clip around the pose buffers, the input of forwardKinematicsFrame. */
  private pose: Clip | null = null;
  poseChecksum = 0;

  constructor(
    readonly view: import('./viewer.js').SkeletonView,
    readonly onError: (message: string | null) => void,
  ) {
    this.panel = new ProcessingPanel($('processing-controls'), (s) => this.process(s));
    view.onPick = (j) => this.select(j);
    $('play').addEventListener('click', () => this.togglePlay());
    $('position-mode').addEventListener('change', (e) => {
      void this.setPositionMode((e.target as HTMLSelectElement).value as PositionMode);
    });
    $('position-mode-switch').addEventListener('click', (e) => {
      void this.setPositionMode((e.currentTarget as HTMLElement).dataset.mode as PositionMode);
    });
    const scrub = $<HTMLInputElement>('scrubber');
    scrub.addEventListener('input', () => {
      this.playing = false;
      this.updatePlayButton();
      this.seekFrame(Number(scrub.value));
    });
    $<HTMLSelectElement>('speed').addEventListener('change', (e) => {
      this.speed = Number((e.target as HTMLSelectElement).value);
    });
    for (const k of RESAMPLED_KERNELS) $<HTMLSelectElement>('play-kernel').add(new Option(k, k));
    $<HTMLSelectElement>('play-kernel').addEventListener('change', (e) => {
      this.kernel = (e.target as HTMLSelectElement).value as PlayKernel;
      this.drawPose();
    });
    $<HTMLInputElement>('root-motion').addEventListener('change', (e) => {
      this.rootMotion = (e.target as HTMLInputElement).checked;
      this.drawPose();
    });
    $<HTMLInputElement>('follow').addEventListener('change', (e) => {
      this.follow = (e.target as HTMLInputElement).checked;
      this.view.resetFollow();
    });
    $<HTMLInputElement>('show-after').addEventListener('change', (e) => {
      this.showAfter = (e.target as HTMLInputElement).checked;
      this.drawPose();
      this.rebuildCurvePlot();
      this.drawSpectrum();
    });
    $<HTMLSelectElement>('curve-kind').addEventListener('change', (e) => {
      this.curveKind = (e.target as HTMLSelectElement).value as CurveKind;
      this.rebuildCurvePlot();
    });
    $('download').addEventListener('click', () => this.download());
    $<HTMLSelectElement>('animation-select').addEventListener('change', (e) => {
      void this.selectAnimation(Number((e.target as HTMLSelectElement).value));
    });
    $<HTMLInputElement>('skeleton-overlay').addEventListener('change', (e) => {
      this.view.setOverlay((e.target as HTMLInputElement).checked);
    });
    window.addEventListener('keydown', (e) => {
      const tag = (e.target as HTMLElement).tagName;
      if (tag === 'INPUT' || tag === 'SELECT' || !this.isVisible() || !this.original) return;
      if (e.code === 'Space') {
        e.preventDefault();
        this.togglePlay();
      } else if (e.code === 'ArrowRight' || e.code === 'ArrowLeft') {
        // step one frame of the original clip
        e.preventDefault();
        this.playing = false;
        this.updatePlayButton();
        this.seekFrame(this.frame + (e.code === 'ArrowRight' ? 1 : -1));
      }
    });
    requestAnimationFrame((t) => this.tick(t));
  }

  private isVisible(): boolean {
    return $('view-clip').classList.contains('active');
  }

  /** The clip shown in 3D: the processed one when "after" is on and processing produced one. */
  get shown(): Clip | null {
    return this.showAfter && this.processed ? this.processed : this.original;
  }

  get duration(): number {
    const c = this.original;
    return c ? (c.frames - 1) * c.frameTime : 0;
  }

  /** The file's rotation channel values (see the worker's `fileEulerChannels`), for the Euler curves. */
  private fileEuler: Float64Array | null = null;
  /** The open file's name and text, kept so a position-mode switch can re-read it. */
  private source: { name: string; text: string } | null = null;
  positionMode: PositionMode = 'replace';

  /** Re-reads the open BVH file with another position mode (the switch under the clip info). */
  setPositionMode(mode: PositionMode): Promise<boolean> {
    this.positionMode = mode;
    ($('position-mode') as HTMLSelectElement).value = mode;
    if (!this.source) return Promise.resolve(false);
    return this.open(this.source.name, this.source.text, mode);
  }

  /** Parses BVH text and shows it; parse errors go to the error banner with line:column. */
  open(name: string, text: string, positionMode: PositionMode = 'replace'): Promise<boolean> {
    // parsing runs in the worker (the page stays responsive on large files); it keeps the clip for processing
    const id = this.startOpen(name);
    return new Promise((resolve) => {
      this.pendingOpen = { id, seq: this.openSeq, name, text, positionMode, character: null, resolve };
      this.worker!.postMessage({ type: 'parse', id, text, positionMode });
    });
  }

  /**
   * Opens a .glb or .gltf (embedded resources): the worker reads its animations with `readGltf` and bakes
   * the chosen one; three's `GLTFLoader` reads the same bytes here for the skinned mesh, whose nodes the
   * clip then drives (joint `j` drives the node the reader took it from). The file is untrusted:
   * `guardGltf` first checks its key count against the budgets (over `MAX_KEYS` refused, over `ASK_KEYS`
   * opened only when the user says so, with a warning), and GLTFLoader gets bytes in which no URI points
   * outside `resources` and no texture is over the pixel budget; what it left out is a warning in the page.
   */
  openGltf(name: string, bytes: ArrayBuffer, resources: Record<string, ArrayBuffer> = {}): Promise<boolean> {
    this.pageMarks = [];
    mark(this.pageMarks, 'page: file read');
    // what GLTFLoader may read: URIs only among the files opened with it, textures within the budget
    const guarded = guardGltf(bytes, resources);
    mark(this.pageMarks, 'page: guarded');
    if (guarded.keys > MAX_KEYS) {
      this.onError(
        `Not opened: ${name} has ${guarded.keys.toLocaleString('en')} animation keys, more than the studio opens ` +
          `(${MAX_KEYS.toLocaleString('en')}); reduce or convert it with the rotsig command line first`,
      );
      return Promise.resolve(false);
    }
    if (
      guarded.keys > ASK_KEYS &&
      !confirm(
        `${name} has ${guarded.keys.toLocaleString('en')} animation keys, more than the ${ASK_KEYS.toLocaleString('en')} ` +
          'the studio is sized for: opening it takes longer and more memory. Open it?',
      )
    ) {
      this.onError(`Not opened: ${name} (${guarded.keys.toLocaleString('en')} animation keys, declined)`);
      return Promise.resolve(false);
    }
    if (guarded.keys > ASK_KEYS)
      guarded.warnings.push(
        `${guarded.keys.toLocaleString('en')} animation keys, over the ${ASK_KEYS.toLocaleString('en')} the studio ` +
          'is sized for: opened on request',
      );
    const id = this.startOpen(name);
    // a .gltf's external files come from the files opened with it, by file name (folders in URIs ignored);
    // any other URL gets an empty data URI, never a request (guardGltf leaves none, this is the last guard)
    const manager = new THREE.LoadingManager();
    const urls: string[] = [];
    manager.setURLModifier((url) => {
      if (url.startsWith('data:') || url.startsWith('blob:')) return url;
      const data = resources[uriFileName(url)];
      if (!data) return 'data:,';
      const blob = URL.createObjectURL(new Blob([data]));
      urls.push(blob);
      return blob;
    });
    const character = guarded.bytes
      ? new GLTFLoader(manager)
          .parseAsync(guarded.bytes, '')
          .catch((e: Error) => {
            this.onError(`Could not load the mesh of ${name}: ${e.message}`);
            return null;
          })
          .finally(() => {
            mark(this.pageMarks, 'page: mesh loaded');
            for (const u of urls) URL.revokeObjectURL(u);
          })
      : Promise.resolve(null);
    return new Promise((resolve) => {
      this.pendingOpen = {
        id,
        seq: this.openSeq,
        name,
        text: '',
        positionMode: 'replace',
        character,
        warnings: guarded.warnings,
        resolve,
      };
      const copy = bytes.slice(0);
      const res: Record<string, ArrayBuffer> = {};
      for (const [k, v] of Object.entries(resources)) res[k] = v.slice(0);
      this.worker!.postMessage({ type: 'parse-gltf', id, bytes: copy, name, resources: res }, [
        copy,
        ...Object.values(res),
      ]);
    });
  }

  private startOpen(name: string, restart = true): number {
    // a busy worker is restarted (its work is for the clip being replaced); the same file's next
    // animation keeps it, since it holds the file
    if (!this.worker || (this.busy && restart)) this.startWorker();
    this.openSeq++;
    const id = ++this.requestId;
    this.busy = true;
    const bar = $('progress');
    bar.hidden = false;
    bar.title = `opening ${name}`;
    (bar.firstElementChild as HTMLElement).style.width = '10%';
    $('clip-info').textContent = `Opening ${name}…`;
    return id;
  }

  /** Shows another animation of the open glTF file (the worker bakes it); the mesh stays. */
  selectAnimation(index: number): Promise<boolean> {
    if (this.format !== 'gltf' || !this.worker) return Promise.resolve(false);
    const id = this.startOpen(this.name, false);
    ($('animation-select') as HTMLSelectElement).value = String(index);
    return new Promise((resolve) => {
      this.pendingOpen = {
        id,
        seq: this.openSeq,
        name: this.name,
        text: '',
        positionMode: 'replace',
        character: Promise.resolve(this.gltfScene),
        warnings: this.pageWarnings,
        resolve,
      };
      this.worker!.postMessage({ type: 'animation', id, index });
    });
  }

  private pendingOpen: {
    id: number;
    name: string;
    text: string;
    positionMode: PositionMode;
    /** Which open this is (a later one supersedes it). */
    seq: number;
    /** glTF: the scene `GLTFLoader` is reading. */
    character: Promise<import('three/examples/jsm/loaders/GLTFLoader.js').GLTF | null> | null;
    /** The page's own warnings on the file (URIs not fetched, textures over budget, keys over budget). */
    warnings?: string[];
    resolve: (ok: boolean) => void;
  } | null = null;

  /** `'gltf'` when a .glb/.gltf is open (Download writes .glb), else `'bvh'`. */
  format: 'bvh' | 'gltf' = 'bvh';
  /** glTF: the file's animations and the one shown. */
  animations: AnimationInfo[] = [];
  animation = 0;
  /** glTF: the shown animation's tracks as keyed (key times, values, interpolation). */
  keyedTracks: Track[] | null = null;
  /** The last reduce-keys result. */
  reduction: ReductionInfo | null = null;
  private openSeq = 0;
  /** The open glTF file's page warnings, shown again with each of its animations. */
  private pageWarnings: string[] = [];
  /** Joints that `bindingNames` binds to the node the reader took them from (see `opened`). */
  nameBound = 0;
  private gltfScene: import('three/examples/jsm/loaders/GLTFLoader.js').GLTF | null = null;

  private async opened(m: Extract<FromWorker, { type: 'parsed' | 'parse-error' }>): Promise<void> {
    const pending = this.pendingOpen;
    if (!pending || pending.id !== m.id) return;
    this.pendingOpen = null;
    const loaded = pending.character ? await pending.character : null;
    // another file or animation was asked for while the mesh loaded: that one wins
    if (pending.seq !== this.openSeq) {
      pending.resolve(false);
      return;
    }
    this.busy = false;
    $('progress').hidden = true;
    const name = pending.name;
    // the page's own warnings (what was not fetched or not decoded) come first, then the reader's
    const warnings = [...(pending.warnings ?? []), ...(m.type === 'parsed' ? m.warnings : [])];
    const w = $('warnings');
    w.hidden = warnings.length === 0;
    $('warnings-text').textContent = warnings.map((s) => `${name}: ${s}`).join('\n');
    if (m.type === 'parse-error') {
      this.onError(`Could not open ${name}: ${m.message}`);
      if (this.original) this.showClipInfo();
      else $('clip-info').textContent = 'Drop a BVH, .glb or .gltf file anywhere, or pick a sample.';
      pending.resolve(false);
      return;
    }
    this.parseMs = m.ms;
    this.onError(null);
    this.pageWarnings = pending.warnings ?? [];
    this.source = m.gltf ? null : { name, text: pending.text };
    this.positionMode = pending.positionMode;
    this.fileEuler = m.fileEuler;
    this.format = m.gltf ? 'gltf' : 'bvh';
    this.keyedTracks = m.gltf?.tracks ?? null;
    this.animations = m.gltf?.animations ?? [];
    this.animation = m.gltf?.animation ?? 0;
    this.reduction = null;
    const select = $<HTMLSelectElement>('animation-select');
    if (m.gltf) {
      select.textContent = '';
      for (const a of m.gltf.animations)
        select.add(
          new Option(
            `${a.name} (${a.tracks} tracks, ${a.keys} keys, ${a.duration.toFixed(2)} s)`,
            String(a.index),
          ),
        );
      select.value = String(m.gltf.animation);
    }
    $('animation-box').hidden = !m.gltf;
    $('overlay-box').hidden = !m.gltf;
    $('download').textContent = m.gltf ? 'Download GLB' : 'Download BVH';
    this.gltfScene = m.gltf ? loaded : null;
    if (this.gltfScene && m.gltf) {
      // joint j drives the node the reader took it from (node indices: exact, also where names repeat)
      const byNode = new Map<number, THREE.Object3D>();
      for (const [object, where] of this.gltfScene.parser.associations) {
        if (where.nodes !== undefined && object instanceof THREE.Object3D) byNode.set(where.nodes, object);
      }
      const nodes = Array.from(m.gltf.nodes, (n) => byNode.get(n) ?? null);
      this.view.setCharacter(this.gltfScene.scene, nodes);
      // how many joints `bindingNames` alone would bind to the same node (repeated names are numbered
      // differently by the reader and by GLTFLoader, so name binding can miss where node indices cannot)
      const scene = this.gltfScene.scene;
      this.nameBound = bindingNames(m.clip.skeleton.names).filter(
        (n, j) => nodes[j] !== null && scene.getObjectByName(n) === nodes[j],
      ).length;
    } else this.view.setCharacter(null);
    this.view.setOverlay($<HTMLInputElement>('skeleton-overlay').checked || !m.gltf);
    // the position-mode switch: under the clip info for files with root position channels, and on the
    // warning when the reader suspects the other mode
    const source = bvhSourceOf(m.clip);
    const hasPositions = source?.channels[0]?.some((c) => c.endsWith('position')) ?? false;
    $('position-mode-box').hidden = !hasPositions;
    ($('position-mode') as HTMLSelectElement).value = pending.positionMode;
    const other: PositionMode = pending.positionMode === 'replace' ? 'add' : 'replace';
    const suspect = m.warnings.some((s) => s.includes(`positionMode '${other}'`));
    const button = $('position-mode-switch');
    button.hidden = !suspect;
    button.textContent = `re-read with positions '${other}'`;
    button.dataset.mode = other;
    this.setClip(name, m.clip);
    mark(this.pageMarks, 'page: clip shown');
    pending.resolve(true);
  }

  private showClipInfo(): void {
    const clip = this.original!;
    $('clip-info').textContent =
      `${this.name}${this.format === 'gltf' && clip.name ? ` · ${clip.name}` : ''}\n` +
      `${clip.skeleton.names.length} joints · ${clip.frames} frames · ${clip.rate.toFixed(3)} Hz · ` +
      `${((clip.frames - 1) * clip.frameTime).toFixed(2)} s` +
      (this.keyedTracks
        ? `\n${this.keyedTracks.length} keyed tracks (${[...new Set(this.keyedTracks.map((t) => t.interpolation))].join(', ')}), baked at ${clip.rate.toFixed(0)} Hz`
        : '');
  }

  private setClip(name: string, clip: Clip): void {
    this.name = name;
    this.original = clip;
    this.processed = null;
    this.difference = null;
    this.spectrum = null;
    this.spectrumOriginal = null;
    this.lastCurve = null;
    this.askedCurves = null;
    const J = clip.skeleton.names.length;
    this.rot = new Float64Array(J * 4);
    this.trans = new Float64Array(J * 3);
    this.grot = new Float64Array(J * 4);
    this.pos = new Float64Array(J * 3);
    this.ghostPos = new Float64Array(J * 3);
    this.rootRest = new Float64Array(J * 3);
    this.scl = clip.scales ? new Float64Array(J * 3) : null;
    this.pose = poseClip(clip, this.rot, this.trans, this.scl);
    for (let j = 0; j < J; j++)
      for (let k = 0; k < 3; k++) this.rootRest[j * 3 + k] = clip.translations.data[j * 3 + k];
    this.time = 0;
    this.playing = false;
    this.updatePlayButton();
    this.selected = firstMovingJoint(clip);
    const scrub = $<HTMLInputElement>('scrubber');
    scrub.max = String(Math.max(0, clip.frames - 1));
    scrub.value = '0';
    this.showClipInfo();
    this.buildTree();
    this.frameCamera();
    this.view.select(this.selected);
    this.drawPose();
    // the curve plot first (empty, the request below brings its curves): its size is what the worker
    // thins the key dots for
    this.busy = true;
    this.rebuildCurvePlot();
    this.process(this.panel.settings);
    $<HTMLButtonElement>('download').disabled = false;
  }

  private frameCamera(): void {
    const clip = this.original!;
    const parents = clip.skeleton.parents;
    const min = new THREE.Vector3(Infinity, Infinity, Infinity);
    const max = new THREE.Vector3(-Infinity, -Infinity, -Infinity);
    const steps = Math.min(clip.frames, 40);
    let size = 0;
    const firstMin = new THREE.Vector3();
    const firstMax = new THREE.Vector3();
    for (let s = 0; s < steps; s++) {
      const f = Math.round((s * (clip.frames - 1)) / Math.max(1, steps - 1));
      localPoseAt(clip, f, 'nearest', this.rot, this.trans);
      posePositions(this.pose!, this.grot, this.pos, true, this.rootRest);
      const fmin = new THREE.Vector3(Infinity, Infinity, Infinity);
      const fmax = new THREE.Vector3(-Infinity, -Infinity, -Infinity);
      for (let j = 0; j < parents.length; j++) {
        const v = new THREE.Vector3(this.pos[j * 3], this.pos[j * 3 + 1], this.pos[j * 3 + 2]);
        min.min(v);
        max.max(v);
        fmin.min(v);
        fmax.max(v);
      }
      size = Math.max(size, fmax.distanceTo(fmin));
      if (s === 0) {
        firstMin.copy(fmin);
        firstMax.copy(fmax);
      }
    }
    // a glTF character is framed by its mesh as posed at the first frame (its joints may be few, or one)
    if (this.view.hasCharacter) {
      localPoseAt(clip, 0, 'nearest', this.rot, this.trans, this.scl);
      this.view.poseCharacter(this.rot, this.trans, this.scl);
      const box = this.view.characterBox();
      if (box) {
        min.min(box.min);
        max.max(box.max);
        firstMin.min(box.min);
        firstMax.max(box.max);
        size = Math.max(size, box.max.distanceTo(box.min));
      }
    }
    this.view.setSkeleton(parents, size || 1);
    const travel = Math.max(max.x - min.x, max.z - min.z);
    this.view.setFloor(min.y, (min.x + max.x) / 2, (min.z + max.z) / 2, Math.max(size * 4, travel * 1.3));
    // frame the body at the first frame (a little wider), then follow the root when "follow" is on
    const pad = firstMax.clone().sub(firstMin).multiplyScalar(0.35);
    this.view.frame(firstMin.clone().sub(pad), firstMax.clone().add(pad));
  }

  private buildTree(): void {
    const clip = this.original!;
    const ul = $('joint-tree');
    ul.textContent = '';
    const depth = new Int32Array(clip.skeleton.names.length);
    clip.skeleton.names.forEach((n, j) => {
      const p = clip.skeleton.parents[j];
      depth[j] = p < 0 ? 0 : depth[p] + 1;
      const li = document.createElement('li');
      li.textContent = n;
      li.style.paddingLeft = `${4 + depth[j] * 10}px`;
      li.dataset.joint = String(j);
      const ch: string[] = bvhSourceOf(clip)?.channels[j] ?? animatedPaths(clip.animated[j]);
      li.title = `${n}: ${ch.length ? ch.join(' ') : 'no channels'} (rotation order ${clip.orders[j]})`;
      if (!(clip.animated[j] & ANIMATED_ROTATION)) li.classList.add('static');
      li.addEventListener('click', () => this.select(j));
      ul.appendChild(li);
    });
    this.markTree();
  }

  private markTree(): void {
    for (const li of $('joint-tree').querySelectorAll('li')) {
      li.classList.toggle('selected', Number((li as HTMLElement).dataset.joint) === this.selected);
    }
    $('joint-tree').querySelector('li.selected')?.scrollIntoView({ block: 'nearest' });
  }

  select(joint: number): void {
    if (!this.original) return;
    this.selected = joint;
    this.view.select(joint);
    this.markTree();
    this.drawPose();
    this.drawCurves();
    this.showDifference();
    this.drawSpectrum();
  }

  togglePlay(): void {
    if (!this.original) return;
    this.playing = !this.playing;
    if (this.playing && this.time >= this.duration) this.time = 0;
    this.updatePlayButton();
  }

  private updatePlayButton(): void {
    $('play').textContent = this.playing ? '❚❚' : '▶';
  }

  seekFrame(frame: number): void {
    if (!this.original) return;
    this.seekTime(frame * this.original.frameTime);
  }

  seekTime(t: number): void {
    if (!this.original) return;
    this.time = Math.min(Math.max(0, t), this.duration);
    this.drawPose();
  }

  private tick(now: number): void {
    const dt = this.lastTick ? (now - this.lastTick) / 1000 : 0;
    this.lastTick = now;
    if (this.playing && this.original) {
      const t0 = performance.now();
      let t = this.time + dt * this.speed;
      const d = this.duration;
      if (t > d) {
        if ($<HTMLInputElement>('loop').checked && d > 0) t %= d;
        else {
          t = d;
          this.playing = false;
          this.updatePlayButton();
        }
      }
      this.time = t;
      this.drawPose();
      this.view.render();
      this.frameTimes.push(dt * 1000);
      if (this.frameTimes.length % 15 === 0) {
        const recent = this.frameTimes.slice(-30);
        const ms = recent.reduce((a, b) => a + b, 0) / recent.length;
        const work =
          this.workTimes.slice(-30).reduce((a, b) => a + b, 0) / Math.min(30, this.workTimes.length || 1);
        $('fps').textContent = `${(1000 / ms).toFixed(0)} fps · ${work.toFixed(1)} ms/frame`;
      }
      this.workTimes.push(performance.now() - t0);
      if (this.frameTimes.length > 2000) {
        this.frameTimes.shift();
        this.workTimes.shift();
      }
    } else {
      this.view.render();
    }
    requestAnimationFrame((t) => this.tick(t));
  }

  /** Poses the 3D skeleton at the current time and updates readouts and the curve playhead. */
  drawPose(): void {
    const clip = this.shown;
    if (!clip || !this.original) return;
    const p = this.time * clip.rate;
    this.samplerFor(clip).sample(p, this.kernel, this.rot, this.trans, this.scl);
    posePositions(this.pose!, this.grot, this.pos, this.rootMotion, this.rootRest);
    // the skinned mesh: the same local pose on its nodes (roots held as root motion says)
    if (this.view.hasCharacter) this.view.poseCharacter(this.rot, this.trans, this.scl);
    let ghost: Float64Array | null = null;
    if (this.processed && this.showAfter) {
      // the original as a faint ghost under the processed pose
      const o = this.original;
      this.samplerFor(o).sample(this.time * o.rate, this.kernel, this.rot, this.trans, this.scl);
      posePositions(this.pose!, this.grot, this.ghostPos, this.rootMotion, this.rootRest);
      ghost = this.ghostPos;
    }
    this.view.setPose(this.pos, ghost);
    if (this.follow && this.rootMotion) this.view.follow(this.pos[0], this.pos[2]);
    let sum = 0;
    for (let i = 0; i < this.pos.length; i++) sum += this.pos[i] * ((i % 7) + 1);
    this.poseChecksum = sum;
    const frame = Math.round(this.time * this.original.rate);
    $('frame-readout').textContent = `frame ${frame} / ${this.original.frames - 1}`;
    $('time-readout').textContent = `${this.time.toFixed(3)} s`;
    const scrub = $<HTMLInputElement>('scrubber');
    if (document.activeElement !== scrub) scrub.value = String(this.time * this.original.rate);
    this.curvePlot?.setCursor(this.time);
  }

  private samplers: PoseSampler[] = [];

  private samplerFor(clip: Clip): PoseSampler {
    let s = this.samplers.find((x) => x.clip === clip);
    if (!s) {
      s = new PoseSampler(clip);
      this.samplers = [
        ...this.samplers.filter((x) => x.clip === this.original || x.clip === this.processed),
        s,
      ];
    }
    return s;
  }

  get frame(): number {
    return this.original ? Math.round(this.time * this.original.rate) : 0;
  }

  private curveFaded = false;

  private get fadeOriginal(): boolean {
    return this.showAfter && this.processed !== null;
  }

  private rebuildCurvePlot(): void {
    this.curvePlot?.destroy();
    this.curvePlot = null;
    if (!this.original) return;
    const labels = curveLabels(this.curveKind, this.original.orders[this.selected] ?? 'ZYX');
    const colors = CURVE_COLOURS;
    const series = [];
    this.curveFaded = this.fadeOriginal;
    for (let i = 0; i < labels.length; i++) {
      const c = this.curveFaded ? `${colors[i]}55` : colors[i];
      series.push({ label: `${labels[i]} (original)`, color: c, width: this.curveFaded ? 1 : 1.25 });
    }
    for (let i = 0; i < labels.length; i++) {
      series.push({ label: `${labels[i]}`, color: colors[i], width: 1.5 });
    }
    this.curvePlot = new LinePlot($('curve-plot'), {
      series,
      xLabel: 's',
      onSeek: (x) => {
        this.playing = false;
        this.updatePlayButton();
        this.seekTime(x);
      },
      legend: false,
    });
    $('curve-legend').innerHTML = labels
      .map((l, i) => `<span><i class="swatch" style="background:${colors[i]}"></i>${l}</span>`)
      .join(' ');
    this.drawCurves();
  }

  /**
   * Draws the selected joint's curves (original and processed) and the discontinuity markers, as the worker
   * computed them (with each processing result, or on request when the joint or the kind changes): the
   * page evaluates no track and computes no curve, and long curves come thinned for the screen.
   */
  drawCurves(): void {
    if (!this.original || !this.curvePlot) return;
    const o = this.original;
    $('curve-title').textContent = `Curves · ${o.skeleton.names[this.selected]}`;
    const d = this.lastCurve;
    const grid = this.dotGrid();
    // the key dots come thinned for the plot's pixels: a plot resized since is asked for them again
    const stale = d !== null && Math.abs(d.grid.width - (grid?.width ?? d.grid.width)) > 1;
    if (!d || d.kind !== this.curveKind || d.joint !== this.selected || stale) {
      // a processing request in flight brings the shown joint's curves with its result
      if (this.busy) return;
      const asked = this.askedCurves;
      if (
        asked?.id === this.requestId &&
        asked.kind === this.curveKind &&
        asked.joint === this.selected &&
        asked.width === grid?.width
      ) {
        if (!d) return;
      } else {
        this.askedCurves = {
          id: this.requestId,
          kind: this.curveKind,
          joint: this.selected,
          width: grid?.width,
        };
        this.worker?.postMessage({
          type: 'curves',
          id: this.requestId,
          kind: this.curveKind,
          joint: this.selected,
          grid,
        });
        if (!stale) return;
      }
      // stale dots are drawn until the new ones come (off by a pixel at most where the size changed)
      if (d.kind !== this.curveKind || d.joint !== this.selected) return;
    }
    if (d.columns.length - 1 !== this.curvePlot.plot.series.length - 1) {
      this.rebuildCurvePlot();
      return;
    }
    // keys as dots: the file's own keys on the original curve, the kept keys (rings) on the processed one
    const half = (d.columns.length - 1) / 2;
    const dots: DotSet[] = [];
    for (const set of d.dots) {
      if (set.processed && !this.showAfter) continue;
      // with kept keys on top, the file's keys are drawn faint so the rings stand out
      const faint = !set.processed && this.fadeOriginal;
      dots.push({
        x: set.x,
        y: set.y,
        color: `${CURVE_COLOURS[(set.column - 1) % half]}${faint ? '88' : ''}`,
        radius: set.processed ? 5 : faint ? 2 : 2.5,
        ring: set.processed,
        keys: set.keys,
      });
    }
    this.lastDots = dots;
    // redrawing the same data on the same plot changes no pixel and costs a pass over every point
    const drawn = [this.curvePlot, d, this.showAfter, this.fadeOriginal];
    if (!this.lastDrawn?.every((v, i) => v === drawn[i]))
      this.curvePlot.setData(d.drawColumns, d.markers, dots);
    this.lastDrawn = drawn;
    for (let i = 0; i < half; i++) {
      this.curvePlot.setSeriesVisible(i, true);
      this.curvePlot.setSeriesVisible(half + i, d.hasProcessed && this.showAfter);
    }
    $('disc-summary').textContent = d.summary;
    this.curveRevision++;
    this.lastCurveDiff = d.processedDiff;
  }

  /** Takes the worker's curves of the shown clips (NaN where absent becomes null, which uPlot skips). */
  private receiveCurves(c: PostedCurves | null): void {
    if (!c) return;
    const drawColumns = c.columns.map((col) => {
      for (let i = 0; i < col.length; i++)
        if (Number.isNaN(col[i])) return Array.from(col, (v) => (Number.isNaN(v) ? null : v));
      return col;
    });
    this.lastCurve = { ...c, drawColumns };
  }

  lastCurveDiff = 0;
  /** The curves last asked of the worker (see `drawCurves`). */
  private askedCurves: { id: number; kind: CurveKind; joint: number; width?: number } | null = null;

  /** The curve plot's plotting area in canvas pixels (what the worker thins the key dots for), if drawn. */
  private dotGrid(): { width: number; height: number } | undefined {
    const b = this.curvePlot?.plot.bbox;
    return b && b.width > 0 && b.height > 0 ? { width: b.width, height: b.height } : undefined;
  }
  private lastDrawn: unknown[] | null = null;
  /** The key dots last drawn, for the tests. */
  lastDots: DotSet[] = [];
  /** The curves last received from the worker (columns thinned for the screen), for the tests. */
  lastCurve: (PostedCurves & { drawColumns: (Float64Array | (number | null)[])[] }) | null = null;

  private startWorker(): void {
    this.worker?.terminate();
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.onWorker(e.data);
    this.worker.onerror = (e) => this.onError(`Processing worker failed: ${e.message}`);
    // a restarted worker needs the open clip again
    if (this.original)
      this.worker.postMessage({
        type: 'load',
        clip: this.original,
        fileEuler: this.fileEuler,
        tracks: this.keyedTracks,
      });
  }

  busy = false;

  private process(settings: ProcessSettings): void {
    if (!this.worker || !this.original) return;
    this.busy = true;
    const id = ++this.requestId;
    const bar = $('progress');
    bar.hidden = false;
    (bar.firstElementChild as HTMLElement).style.width = '2%';
    this.worker.postMessage({
      type: 'process',
      id,
      settings,
      joint: this.selected,
      curves: this.curveKind,
      grid: this.dotGrid(),
    });
  }

  private onWorker(m: FromWorker): void {
    if (m.type === 'parsed' || m.type === 'parse-error') {
      mark(this.pageMarks, 'page: clip received');
      void this.opened(m);
      return;
    }
    if (m.type === 'downloaded') {
      this.save(
        m.glb as Uint8Array<ArrayBuffer>,
        'model/gltf-binary',
        `${this.name.replace(/\.(glb|gltf)$/i, '')}${this.processed ? '-processed' : ''}.glb`,
      );
      // what the writer changed beyond the animation (empty channels or animations it had to drop)
      if (m.warnings.length) {
        $('warnings').hidden = false;
        $('warnings-text').textContent = m.warnings.map((w) => `written .glb: ${w}`).join('\n');
      }
      return;
    }
    if (m.type === 'joint-spectrum') {
      const asked = this.askedJoint;
      if (m.id !== this.requestId || !asked || asked.id !== m.id) return;
      if (m.original?.joint !== asked.joint && m.processed?.joint !== asked.joint) return;
      asked.original = m.original;
      asked.processed = m.processed;
      if (asked.joint === this.selected) this.drawSpectrum();
      return;
    }
    if (m.type === 'curves') {
      if (m.id !== this.requestId) return;
      this.receiveCurves(m.curves);
      this.drawCurves();
      return;
    }
    if (m.id !== this.requestId) return;
    const bar = $('progress');
    if (m.type === 'progress') {
      (bar.firstElementChild as HTMLElement).style.width = `${Math.round(m.fraction * 100)}%`;
      bar.title = m.label;
      return;
    }
    bar.hidden = true;
    this.busy = false;
    if (m.type === 'error') {
      this.onError(`Processing failed: ${m.message}`);
      this.drawCurves();
      return;
    }
    this.onError(null);
    this.processed = m.clip;
    this.reduction = m.reduction;
    this.difference = m.difference;
    this.spectrum = m.spectrum;
    this.spectrumOriginal = m.spectrumOriginal;
    this.spectraComputed = m.spectraComputed;
    this.processMs = m.ms;
    this.workerMarks = m.marks;
    mark(this.pageMarks, 'page: result received');
    this.receiveCurves(m.curves);
    this.drawPose();
    // the original is drawn faint under a processed curve and in full colour when it is shown alone
    if (this.curveFaded !== this.fadeOriginal) this.rebuildCurvePlot();
    else this.drawCurves();
    mark(this.pageMarks, 'page: curves drawn');
    this.showDifference();
    this.drawSpectrum();
    mark(this.pageMarks, 'page: spectrum drawn');
  }

  /** Where the last open's time went (see `marks.ts`): this page's moments and the worker's. */
  private pageMarks: OpenMark[] = [];
  private workerMarks: OpenMark[] = [];
  /**
   * The last open's moments, page and worker, in time order, ms from the first (`at`: ms since the epoch,
   * the clock of `marks.ts`).
   */
  openMarks(): { label: string; ms: number; at: number }[] {
    const all = [...this.pageMarks, ...this.workerMarks].sort((a, b) => a[1] - b[1]);
    const t0 = all[0]?.[1] ?? 0;
    return all.map(([label, at]) => ({ label, ms: Math.round(at - t0), at }));
  }

  processMs = 0;
  parseMs = 0;

  private showDifference(): void {
    $('reduce-readout').textContent = this.reduction && this.processed ? reductionText(this.reduction) : '';
    const el = $('difference');
    const d = this.difference;
    if (!d || !this.original || !this.processed) {
      el.textContent = this.original ? 'No processing applied: the original is shown.' : '';
      return;
    }
    const names = this.original.skeleton.names;
    el.textContent =
      'difference to the original\n' +
      `max  ${d.maxDeg.toFixed(3)}° (${names[d.maxJoint]}, frame ${d.maxFrame})\n` +
      `mean ${d.meanDeg.toFixed(3)}°\n` +
      `${names[this.selected]}: max ${d.perJointMaxDeg[this.selected].toFixed(3)}°\n` +
      `result: ${this.processed.frames} frames at ${this.processed.rate.toFixed(3)} Hz (${this.processMs.toFixed(0)} ms)\n` +
      `(${d.note})`;
  }

  /**
   * Spectrum panel: the clip's maximum spectrum with its energy line and recommended rate, and the selected
   * joint's rotation channels (continuous Euler curves in the file's order, dB re 1 rad), all from the
   * worker's one `clipSpectrum` of the shown clip (its channel spectra kept): the page transforms nothing.
   * Another joint's channels are asked of the worker and drawn when they come.
   */
  private drawSpectrum(): void {
    const clip = this.shown;
    if (!clip || clip.frames < 4) return;
    const after = this.showAfter && this.processed !== null;
    const clipMax = after ? this.spectrum : this.spectrumOriginal;
    const joint = this.jointChannels(after, clipMax);
    const order = clip.orders[this.selected];
    const labels = [...order].map((c) => `${c}rot`);
    const colours = ['#ff6b6b', '#6bdc7b', '#5fb3ff'];
    if (!this.spectrumPlot) {
      this.spectrumPlot = new LinePlot($('spectrum-plot'), {
        series: [
          ...labels.map((l, i) => ({ label: l, color: `${colours[i]}bb`, width: 1 })),
          { label: 'clip max', color: '#e8ecf2', width: 1.5 },
        ],
        xLabel: 'Hz',
        yLabel: 'dB',
        legend: false,
        draw: (u) => {
          const sp = this.showAfter && this.processed ? this.spectrum : this.spectrumOriginal;
          if (!sp) return;
          const x = u.valToPos(sp.energyFrequency, 'x', true);
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#ffb454';
          ctx.setLineDash([4, 3]);
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        },
      });
    }
    if (!clipMax) {
      // the worker's spectrum of this clip is not here yet: nothing of another clip stays drawn
      this.spectrumPlot.setData([[], [], [], [], []]);
      $('spectrum-legend').innerHTML = '';
      $('spectrum-info').textContent = `${clip.skeleton.names[this.selected]} · spectrum in progress…`;
      return;
    }
    // one frequency grid: the joint's channels are channels of the same transform as the maximum
    const none = new Float64Array(clipMax.frequencies.length).fill(Number.NaN);
    const db = joint?.db ?? [none, none, none];
    this.spectrumColumns = {
      joint: joint ? this.selected : -1,
      columns: [clipMax.frequencies, ...db, clipMax.maxDb],
    };
    // drawn thinned for the screen as the curves are (each pixel column's first, last, lowest and highest
    // value of every series): a million-frame clip's spectrum is half a million bins per series
    const full = this.spectrumColumns.columns;
    const rows = decimationRows(full);
    this.spectrumPlot.setData(rows ? full.map((c) => Float64Array.from(rows, (r) => c[r])) : full);
    this.spectrumPlot.plot.setScale('y', { min: -90, max: 40 });
    const name = clip.skeleton.names[this.selected];
    const swatches = labels.map(
      (l, i) => `<span><i class="swatch" style="background:${colours[i]}"></i>${l}</span>`,
    );
    swatches.push('<span><i class="swatch" style="background:#e8ecf2"></i>max</span>');
    $('spectrum-legend').innerHTML = swatches.join(' ');
    $('spectrum-info').textContent =
      `${name} · ${Math.round(clipMax.energyShare * 100)}% of the clip's energy below ` +
      `${clipMax.energyFrequency.toFixed(2)} Hz (dashed) · recommended rate ${clipMax.recommendedRate.toFixed(1)} Hz ` +
      `(now ${clipMax.rate.toFixed(1)})`;
    this.spectrumRevision++;
  }

  /**
   * The selected joint's channel spectra of the shown clip: those the worker sent with its result or on
   * request; when neither has this joint, they are asked for (once per joint and result) and null for now.
   */
  private jointChannels(after: boolean, clipMax: SpectrumData | null): JointSpectrum | null {
    if (!clipMax) return null;
    if (clipMax.joint?.joint === this.selected) return clipMax.joint;
    const asked = this.askedJoint;
    if (!asked || asked.joint !== this.selected || asked.id !== this.requestId) {
      this.askedJoint = { joint: this.selected, id: this.requestId, original: null, processed: null };
      this.worker?.postMessage({ type: 'joint-spectrum', id: this.requestId, joint: this.selected });
      return null;
    }
    return after ? asked.processed : asked.original;
  }

  /** The last joint whose channel spectra were asked of the worker, and what came back. */
  private askedJoint: {
    joint: number;
    id: number;
    original: JointSpectrum | null;
    processed: JointSpectrum | null;
  } | null = null;
  /**
   * The spectrum last drawn, for the tests: frequencies, the joint's three channels (NaN until the worker
   * sent them; `joint` -1 then) and the clip maximum, dB.
   */
  spectrumColumns: { joint: number; columns: Float64Array[] } | null = null;
  /** Clip spectra the worker computed for the open clip (see the worker's `spectraComputed`). */
  spectraComputed = 0;

  spectrumRevision = 0;

  /**
   * Writes the result in the file's format: BVH with `writeBvh`; glTF in the worker with `writeGltf`, the
   * shown animation replaced by the processed one and everything else of the file as it was.
   */
  private download(): void {
    const clip = this.processed ?? this.original;
    if (!clip) return;
    if (this.format === 'gltf') {
      this.worker?.postMessage({ type: 'download-gltf', id: this.requestId });
      return;
    }
    const text = writeBvh(clip);
    this.save(
      text,
      'text/plain',
      `${this.name.replace(/\.bvh$/i, '')}${this.processed ? '-processed' : ''}.bvh`,
    );
  }

  private save(data: string | Uint8Array<ArrayBuffer>, type: string, name: string): void {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([data], { type }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }

  /** Playback statistics for the performance record. */
  stats(): {
    samples: number;
    meanFrameMs: number;
    p95FrameMs: number;
    meanWorkMs: number;
    maxWorkMs: number;
  } {
    const f = [...this.frameTimes].filter((x) => x > 0).sort((a, b) => a - b);
    const w = this.workTimes;
    const mean = (a: number[]) => (a.length ? a.reduce((s, x) => s + x, 0) / a.length : 0);
    return {
      samples: f.length,
      meanFrameMs: mean(f),
      p95FrameMs: f[Math.floor(f.length * 0.95)] ?? 0,
      meanWorkMs: mean(w),
      maxWorkMs: w.length ? Math.max(...w) : 0,
    };
  }

  resetStats(): void {
    this.frameTimes.length = 0;
    this.workTimes.length = 0;
  }

  /** Pixels of the curve plot in a colour (`#rrggbb`): whether a given series was drawn. */
  curveColourPixels(colour: string): number {
    return this.curvePlot?.colourPixels(colour) ?? 0;
  }

  plotStats(): { points: number; drawMs: number; inked: number; spectrumInked: number } {
    return {
      points: this.curvePlot?.points ?? 0,
      drawMs: this.curvePlot?.lastDrawMs ?? 0,
      inked: this.curvePlot?.inkedPixels() ?? 0,
      spectrumInked: this.spectrumPlot?.inkedPixels() ?? 0,
    };
  }
}

const CURVE_COLOURS = ['#ff6b6b', '#6bdc7b', '#5fb3ff', '#e0c15a', '#c58bff', '#5fe0d8'];

/** The reduce-keys readout: keys kept, bytes, achieved error against the tolerance. */
export function reductionText(r: ReductionInfo): string {
  const mm = (v: number) => `${(v / r.unitsPerMm).toPrecision(3)} mm`;
  const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;
  const pct = r.keysBefore ? ((100 * r.keysAfter) / r.keysBefore).toFixed(1) : '100';
  const error =
    r.metric === 'object'
      ? `object-space error max ${mm(r.maxError)}, p99 ${mm(r.p99Error)} (tolerance ${mm(r.tolerance)})`
      : `rotation error max ${((r.maxAngle * 180) / Math.PI).toPrecision(3)}°, translation max ${mm(r.maxError)}`;
  return (
    `reduce keys: ${r.keysAfter} of ${r.keysBefore} keys kept (${pct}%) in ${r.tracks} tracks\n` +
    `animation data ${kb(r.bytesAfter)} (was ${kb(r.bytesBefore)})\n${error}`
  );
}

/** The first joint whose rotation changes over the clip (the root usually), else 0. */
function firstMovingJoint(clip: Clip): number {
  const J = clip.skeleton.names.length;
  const R = clip.rotations.data;
  const last = (clip.frames - 1) * J * 4;
  for (let j = 0; j < J; j++) {
    if (quat.angle(R.subarray(j * 4, j * 4 + 4), R.subarray(last + j * 4, last + j * 4 + 4)) > 1e-3) return j;
  }
  return 0;
}
