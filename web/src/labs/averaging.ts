import { quat } from 'rotsig';
import * as THREE from 'three';
import { averageCost, averageQuaternions } from '../ops.js';
import { LinePlot } from '../plot.js';
import {
  button,
  checkbox,
  enableFrameDrag,
  labLayout,
  METHOD_COLOURS,
  MultiView,
  rng,
  screenOf,
  setQuat,
  slider,
  triad,
} from './lab-kit.js';

const METHODS = ['flip', 'nlerp', 'raw', 'log', 'eigen', 'geodesic'] as const;
type Method = (typeof METHODS)[number];
const DEG = 180 / Math.PI;
const HISTORY = 600;
/** Samples of the plot's preview over one cycle of the perturbation. */
const PREVIEW_STEPS = 240;

/**
 * Averaging lab: a handful of rotations as coordinate frames, the average by each of the six methods of
 * `averageQuaternions` side by side with its `averageCost`, a reverse-order toggle, and a slow animated
 * perturbation of the first input that shows which methods jump.
 */
export class AveragingLab {
  private readonly view: MultiView;
  private n = 4;
  private spread = 100;
  private seed = 7;
  private randomSigns = true;
  private reverse = false;
  private perturb = false;
  private phase = 0;
  private elapsed = 0;
  private base: Float64Array = new Float64Array(0);
  private inputs: Float64Array = new Float64Array(0);
  private weights: number[] = [];
  private readonly results: Record<Method, Float64Array> = Object.fromEntries(
    METHODS.map((m) => [m, new Float64Array([0, 0, 0, 1])]),
  ) as Record<Method, Float64Array>;
  private readonly previous: Record<Method, Float64Array | null> = Object.fromEntries(
    METHODS.map((m) => [m, null]),
  ) as Record<Method, Float64Array | null>;
  private readonly maxJump: Record<Method, number> = Object.fromEntries(METHODS.map((m) => [m, 0])) as Record<
    Method,
    number
  >;
  private readonly costs: Record<Method, number> = Object.fromEntries(METHODS.map((m) => [m, 0])) as Record<
    Method,
    number
  >;
  private readonly errors: Record<Method, string | null> = Object.fromEntries(
    METHODS.map((m) => [m, null]),
  ) as Record<Method, string | null>;
  private readonly orderDelta: Record<Method, number> = Object.fromEntries(
    METHODS.map((m) => [m, 0]),
  ) as Record<Method, number>;
  private inputTriads: THREE.Group[][] = [];
  private resultTriads: THREE.Group[] = [];
  private readonly table: HTMLTableElement;
  private readonly weightBox: HTMLElement;
  private readonly labels: HTMLElement;
  private readonly plot: LinePlot;
  private readonly previewNote: HTMLDivElement;
  private previewPoints = 0;
  private readonly history: number[][] = [[], ...METHODS.map(() => [])];
  private step = 0;
  updates = 0;

  constructor(host: HTMLElement) {
    const ui = labLayout(
      host,
      'Each input is a coordinate frame (left: drag one by its arrows to rotate it). On the right, the weighted average by every method of ' +
        '<code>averageQuaternions</code>, with its <code>averageCost</code> (Σ wᵢ sin²(θᵢ/2), lower is better). ' +
        'Stored signs are random (q and −q are the same rotation): watch <b>raw</b>. Reverse the order to see ' +
        'which methods depend on it (<b>flip</b>); perturb input 1 slowly to see which methods jump.',
    );
    this.labels = ui.labels;
    const c = ui.controls;
    slider(c, 'inputs', 'avg-count', 2, 8, 1, this.n, String, (v) => {
      this.n = v;
      this.generate();
    });
    slider(
      c,
      'spread',
      'avg-spread',
      5,
      180,
      1,
      this.spread,
      (v) => `${v}°`,
      (v) => {
        this.spread = v;
        this.generate();
      },
    );
    checkbox(c, 'random stored signs', 'avg-signs', this.randomSigns, (v) => {
      this.randomSigns = v;
      this.generate();
    });
    checkbox(c, 'reverse order', 'avg-reverse', this.reverse, (v) => {
      this.reverse = v;
      this.compute();
    });
    checkbox(c, 'perturb input 1 (animated)', 'avg-perturb', this.perturb, (v) => {
      this.perturb = v;
      for (const m of METHODS) {
        this.maxJump[m] = 0;
        this.previous[m] = null;
      }
      this.view.controls.autoRotate = false;
    });
    const row = document.createElement('div');
    row.className = 'row';
    c.appendChild(row);
    button(row, 'Randomise', 'avg-randomise', () => {
      this.seed++;
      this.generate();
    });
    this.weightBox = document.createElement('div');
    c.appendChild(this.weightBox);
    this.table = document.createElement('table');
    this.table.dataset.testid = 'avg-table';
    c.appendChild(this.table);

    this.view = new MultiView(ui.stage);
    this.view.camera.position.set(2.4, 1.8, 3.4);
    this.view.onFrame = (dt) => this.frame(dt);
    this.enableDragging();
    this.previewNote = document.createElement('div');
    this.previewNote.className = 'plot-note';
    this.previewNote.dataset.testid = 'avg-preview-note';
    this.previewNote.textContent =
      "Preview: one 12 s cycle of the perturbation, computed ahead (input 1 turned through 720° at 60°/s). Tick 'perturb input 1' to animate it and measure each method's largest jump.";
    const plotHost = document.createElement('div');
    ui.plots.appendChild(plotHost);
    plotHost.appendChild(this.previewNote);
    this.plot = new LinePlot(plotHost, {
      series: METHODS.map((m) => ({ label: m, color: METHOD_COLOURS[m] })),
      xLabel: 'time (s) while input 1 is perturbed',
      yLabel: 'angle to eigen (°)',
    });
    this.generate();
  }

  show(): void {
    this.view.start();
    this.plot.resize();
  }

  hide(): void {
    this.view.stop();
  }

  private generate(): void {
    const r = rng(this.seed * 7919 + this.n);
    const n = this.n;
    this.base = new Float64Array(n * 4);
    const centre = quat.fromAxisAngle(quat.create(), unit([r() - 0.5, r() - 0.5, r() - 0.5]), r() * Math.PI);
    const q = quat.create();
    for (let i = 0; i < n; i++) {
      const axis = unit([r() - 0.5, r() - 0.5, r() - 0.5]);
      quat.fromAxisAngle(q, axis, ((r() * this.spread) / DEG) * 0.5 + (this.spread / DEG) * 0.5 * (i / n));
      quat.multiply(q, centre, q);
      if (this.randomSigns && r() < 0.5) for (let k = 0; k < 4; k++) q[k] = -q[k];
      this.base.set(q, i * 4);
    }
    this.weights = Array.from({ length: n }, () => 1);
    this.weightBox.innerHTML = '<h2 style="margin-top:10px">weights</h2>';
    for (let i = 0; i < n; i++) {
      slider(
        this.weightBox,
        `input ${i + 1}`,
        `avg-weight-${i}`,
        -1,
        3,
        0.05,
        1,
        (v) => v.toFixed(2),
        (v) => {
          this.weights[i] = v;
          this.compute();
        },
      );
    }
    this.phase = 0;
    for (const m of METHODS) {
      this.maxJump[m] = 0;
      this.previous[m] = null;
    }
    for (const h of this.history) h.length = 0;
    this.buildScenes();
    this.compute();
  }

  /** Drag an input frame in the inputs view (by its arrows) to rotate it. */
  private enableDragging(): void {
    enableFrameDrag(
      this.view,
      0,
      () => this.inputTriads[0],
      (shown, r) => {
        const i = this.reverse ? this.n - 1 - shown : shown;
        quat.multiplyFlat(this.base, i * 4, r, 0, this.base, i * 4);
        this.compute();
      },
    );
  }

  /** Page coordinates of the x-arrow tip of an input frame as drawn (for the e2e drag test). */
  inputTipScreen(i: number): { x: number; y: number } {
    return screenOf(this.view, 0, this.inputTriads[0][i], new THREE.Vector3(0.94, 0, 0));
  }

  private buildScenes(): void {
    for (const s of this.view.scenes) s.clear();
    this.view.scenes.length = 0;
    this.inputTriads = [];
    this.resultTriads = [];
    this.view.rects = [[0, 0, 0.4, 1]];
    const main = this.view.addScene();
    const tints = [1, 0.85, 0.7, 0.6, 0.5, 0.45, 0.4, 0.35];
    const inMain: THREE.Group[] = [];
    for (let i = 0; i < this.n; i++) {
      const t = triad(1, tints[i] ?? 0.4, 0.12);
      main.add(t);
      inMain.push(t);
    }
    this.inputTriads.push(inMain);
    this.labels.innerHTML = '<div style="left:20%;top:6px">inputs</div>';
    METHODS.forEach((m, k) => {
      const col = k % 3;
      const rowI = Math.floor(k / 3);
      this.view.rects.push([0.4 + col * 0.2, rowI * 0.5, 0.2, 0.5]);
      const s = this.view.addScene();
      const faint: THREE.Group[] = [];
      for (let i = 0; i < this.n; i++) {
        const t = triad(0.8, 0.16, 0.1);
        s.add(t);
        faint.push(t);
      }
      this.inputTriads.push(faint);
      const r = triad(1.15, 1, 0.16);
      s.add(r);
      this.resultTriads.push(r);
      const label = document.createElement('div');
      label.style.left = `${(0.4 + col * 0.2 + 0.1) * 100}%`;
      label.style.top = `${rowI * 50 + 1}%`;
      label.dataset.method = m;
      this.labels.appendChild(label);
    });
  }

  private currentInputs(phase = this.phase, perturbed = this.perturb || this.phase !== 0): Float64Array {
    const n = this.n;
    const out = new Float64Array(this.base);
    if (perturbed) {
      // rotate input 1 about a fixed tilted axis by the perturbation phase (its stored sign follows the
      // product, so it flips when the phase passes 360 degrees, as a real signal would)
      const p = quat.fromAxisAngle(quat.create(), unit([0.3, 1, 0.2]), phase);
      quat.multiplyFlat(out, 0, p, 0, this.base, 0);
    }
    if (this.reverse) {
      const rev = new Float64Array(n * 4);
      for (let i = 0; i < n; i++) rev.set(out.subarray((n - 1 - i) * 4, (n - i) * 4), i * 4);
      return rev;
    }
    return out;
  }

  private compute(): void {
    const n = this.n;
    this.inputs = this.currentInputs();
    const w = this.reverse ? [...this.weights].reverse() : this.weights;
    const weights = Float64Array.from(w);
    const fwdInputs = this.reverse ? reverseQuats(this.inputs, n) : this.inputs;
    const revInputs = reverseQuats(fwdInputs, n);
    const fwdW = Float64Array.from(this.weights);
    const revW = Float64Array.from([...this.weights].reverse());
    for (const m of METHODS) {
      let q: Float64Array;
      try {
        q = Float64Array.from(averageQuaternions(this.inputs, weights, { method: m }));
        const other = averageQuaternions(this.reverse ? fwdInputs : revInputs, this.reverse ? fwdW : revW, {
          method: m,
        });
        this.orderDelta[m] = quat.angle(q, other) * DEG;
        this.costs[m] = averageCost(q, this.inputs, weights);
        this.errors[m] = null;
      } catch (e) {
        // e.g. weights summing to zero: the library's typed error, shown in the table
        q = new Float64Array([Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
        this.costs[m] = Number.NaN;
        this.orderDelta[m] = Number.NaN;
        this.errors[m] = (e as Error).message;
      }
      const prev = this.previous[m];
      if (prev && this.perturb && Number.isFinite(q[0])) {
        this.maxJump[m] = Math.max(this.maxJump[m], quat.angle(prev, q) * DEG);
      }
      this.previous[m] = Number.isFinite(q[0]) ? new Float64Array(q) : null;
      this.results[m] = q;
    }
    // scenes: inputs everywhere, results in their panels
    for (const group of this.inputTriads) {
      for (let i = 0; i < n; i++) setQuat(group[i], this.inputs.subarray(i * 4, i * 4 + 4));
    }
    METHODS.forEach((m, k) => {
      const q = this.results[m];
      this.resultTriads[k].visible = Number.isFinite(q[0]);
      if (Number.isFinite(q[0])) setQuat(this.resultTriads[k], q);
    });
    if (!this.perturb && this.history[0].length === 0) this.drawPreview();
    this.previewNote.hidden = this.perturb || this.history[0].length > 0;
    if (this.perturb) {
      this.history[0].push(this.elapsed);
      METHODS.forEach((m, k) => {
        this.history[k + 1].push(quat.angle(this.results[m], this.results.eigen) * DEG);
      });
      if (this.history[0].length > HISTORY) for (const h of this.history) h.shift();
      if (this.step++ % 4 === 0)
        this.plot.setData(this.history.map((h) => h.map((v) => (Number.isFinite(v) ? v : null))));
    }
    this.renderTable();
    this.updates++;
  }

  /**
   * Before "perturb" is ticked: what the plot will show, computed ahead for one cycle of the perturbation
   * (input 1 turned through 720° at 60°/s about the same axis), each method's angle to the eigen average.
   */
  private drawPreview(): void {
    const n = this.n;
    const w = Float64Array.from(this.reverse ? [...this.weights].reverse() : this.weights);
    const steps = PREVIEW_STEPS;
    const cols: (number | null)[][] = [[], ...METHODS.map(() => [])];
    for (let i = 0; i <= steps; i++) {
      const phase = (4 * Math.PI * i) / steps;
      const inputs = this.currentInputs(phase, true);
      cols[0].push(phase / (60 / DEG));
      let eigen: Float64Array | null = null;
      const q: (Float64Array | null)[] = METHODS.map((m) => {
        try {
          return Float64Array.from(averageQuaternions(inputs, w, { method: m }));
        } catch {
          return null;
        }
      });
      eigen = q[METHODS.indexOf('eigen')];
      METHODS.forEach((_, k) => {
        const a = q[k];
        cols[k + 1].push(a && eigen ? quat.angle(a, eigen) * DEG : null);
      });
    }
    this.previewPoints = n > 0 ? cols[0].length : 0;
    this.plot.setData(cols);
  }

  private renderTable(): void {
    const best = Math.min(...METHODS.map((m) => this.costs[m]).filter(Number.isFinite));
    let html =
      '<tr><th>method</th><th>cost</th><th>to eigen</th><th>reversed Δ</th>' +
      `${this.perturb ? '<th>max jump</th>' : ''}</tr>`;
    const eigenOk = Number.isFinite(this.results.eigen[0]);
    for (const m of METHODS) {
      const c = this.costs[m];
      const jump = this.maxJump[m];
      const err = this.errors[m];
      if (err || !eigenOk) {
        html +=
          `<tr data-method="${m}"><td><span class="swatch" style="background:${METHOD_COLOURS[m]}"></span>${m}</td>` +
          `<td colspan="${this.perturb ? 4 : 3}" class="jumped" style="text-align:left;white-space:normal">${
            err ?? 'no eigen average to compare with'
          }</td></tr>`;
        continue;
      }
      html +=
        `<tr data-method="${m}"><td><span class="swatch" style="background:${METHOD_COLOURS[m]}"></span>${m}</td>` +
        `<td${c <= best + 1e-12 ? ' style="color:#6bdc7b"' : ''}>${c.toFixed(5)}</td>` +
        `<td>${(quat.angle(this.results[m], this.results.eigen) * DEG).toFixed(2)}°</td>` +
        `<td${this.orderDelta[m] > 0.01 ? ' class="jumped"' : ''}>${this.orderDelta[m].toFixed(2)}°</td>` +
        `${this.perturb ? `<td${jump > 10 ? ' class="jumped"' : ''}>${jump.toFixed(1)}°</td>` : ''}</tr>`;
    }
    this.table.innerHTML = html;
    for (const el of this.labels.querySelectorAll<HTMLElement>('[data-method]')) {
      const m = el.dataset.method as Method;
      const cost = this.errors[m] ? 'no average' : `cost ${this.costs[m].toFixed(4)}`;
      el.innerHTML = `<span style="color:${METHOD_COLOURS[m]}">${m}</span><br>${cost}`;
    }
  }

  private frame(dt: number): void {
    if (!this.perturb) return;
    this.elapsed += dt;
    this.phase += dt * (60 / DEG);
    if (this.phase > 4 * Math.PI) this.phase -= 4 * Math.PI;
    this.compute();
  }

  state(): Record<string, unknown> {
    return {
      n: this.n,
      reverse: this.reverse,
      perturb: this.perturb,
      preview: !this.previewNote.hidden,
      previewPoints: this.previewPoints,
      previewNote: this.previewNote.hidden ? '' : this.previewNote.textContent,
      plotPixels: Object.fromEntries(METHODS.map((m) => [m, this.plot.colourPixels(METHOD_COLOURS[m])])),
      updates: this.updates,
      results: Object.fromEntries(METHODS.map((m) => [m, Array.from(this.results[m])])),
      costs: { ...this.costs },
      orderDelta: { ...this.orderDelta },
      maxJump: { ...this.maxJump },
      tip: this.inputTipScreen(0),
      inputs: Array.from(this.inputs),
      weights: this.reverse ? [...this.weights].reverse() : [...this.weights],
      pixels: this.view.pixelStats(),
    };
  }
}

function unit(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}

function reverseQuats(q: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) out.set(q.subarray((n - 1 - i) * 4, (n - i) * 4), i * 4);
  return out;
}
