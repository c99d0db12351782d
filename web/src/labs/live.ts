import { createDamper, createOneEuroFilter, quat } from 'rotsig';
import * as THREE from 'three';
import { LinePlot } from '../plot.js';
import { labLayout, MultiView, rng, setQuat, slider, triad } from './lab-kit.js';

const DEG = 180 / Math.PI;
const DURATION = 6;
const RATES = [30, 60, 90, 144];
/** The spin: 270° about a tilted axis from 1.5 s to 3.5 s (135°/s), still before and after. */
const SPIN_FROM = 1.5;
const SPIN_TO = 3.5;
const SPIN_ANGLE = 1.5 * Math.PI;
const SPIN_SPEED = SPIN_ANGLE / (SPIN_TO - SPIN_FROM);
const AXIS = [0.35, 0.9, 0.25];
const FILTERS = ['input', 'one euro', 'damper', 'naive lerp'] as const;
type FilterName = (typeof FILTERS)[number];
const COLOURS: Record<FilterName, string> = {
  input: '#8a93a3',
  'one euro': '#6bdc7b',
  damper: '#5fb3ff',
  'naive lerp': '#ff6b6b',
};
type SignPolicy = 'random' | 'y >= 0' | 'w >= 0' | 'none';

/** Readouts of one filter: steady lag during the spin and residual jitter when still. */
interface Readout {
  /** Mean angle from the truth over the last second of the spin (°). */
  lag: number;
  /** The lag as time: angle over spin speed (ms). */
  lagMs: number;
  /** RMS angle from the truth over the last 1.5 s, when the tracker is still (°). */
  jitter: number;
}

/**
 * Live filter lab: a tracker at a chosen rate (jittered timestamps, noise, stored signs flipping at random or
 * forced to y ≥ 0 / w ≥ 0) reports a rotation that rests, spins 270° at 135°/s and rests again. Its samples go
 * through `createOneEuroFilter`, `createDamper` and, for comparison, the naive per-sample component lerp many
 * ports use (a fixed factor, no hemisphere alignment). The plots show each output's angle from the truth and
 * its quaternion x component; the readouts give lag and jitter per filter, and the frame-rate switch shows which
 * filters change behaviour with the rate (computed at all four rates on every change).
 */
export class LiveFilterLab {
  private readonly view: MultiView;
  private rate = 60;
  private jitter = 30;
  private noise = 1;
  private signs: SignPolicy = 'random';
  private minCutoff = 1;
  private beta = 1;
  private halfLife = 0.05;
  private factor = 0.15;
  private readonly bodies: THREE.Group[] = [];
  private readonly plots: LinePlot[] = [];
  private readonly info: HTMLElement;
  private times: Float64Array = new Float64Array(0);
  private input: Float64Array = new Float64Array(0);
  private outputs: Record<FilterName, Float64Array> = {
    input: new Float64Array(0),
    'one euro': new Float64Array(0),
    damper: new Float64Array(0),
    'naive lerp': new Float64Array(0),
  };
  private readouts: Record<string, Readout> = {};
  private lagByRate: Record<string, number[]> = {};
  private changes: string[] = [];
  private clock = 0;
  updates = 0;

  constructor(host: HTMLElement) {
    const ui = labLayout(
      host,
      'A tracker reports a rotation that rests, spins 270° at 135°/s and rests again, at a chosen rate with ' +
        'timestamp jitter, noise and flipping quaternion signs. Its samples go through ' +
        '<code>createOneEuroFilter</code>, <code>createDamper</code> (linear target path) and the naive fixed-factor component lerp ' +
        'of many ports. Switch the rate: the library filters keep their lag, the naive one does not.',
    );
    const c = ui.controls;
    const rateRow = document.createElement('div');
    rateRow.className = 'row';
    rateRow.innerHTML = `<label>tracker rate</label><select data-testid="live-rate">${RATES.map(
      (r) => `<option value="${r}"${r === this.rate ? ' selected' : ''}>${r} Hz</option>`,
    ).join('')}</select>`;
    const rateSelect = rateRow.querySelector('select')!;
    rateSelect.addEventListener('change', () => {
      this.rate = Number(rateSelect.value);
      this.update();
    });
    c.appendChild(rateRow);
    const signRow = document.createElement('div');
    signRow.className = 'row';
    signRow.innerHTML = `<label>stored signs</label><select data-testid="live-signs">${(
      ['random', 'y >= 0', 'w >= 0', 'none'] as const
    )
      .map((s) => `<option value="${s}">${s === 'none' ? 'continuous' : s}</option>`)
      .join('')}</select>`;
    const signSelect = signRow.querySelector('select')!;
    signSelect.addEventListener('change', () => {
      this.signs = signSelect.value as SignPolicy;
      this.update();
    });
    c.appendChild(signRow);
    const num = (
      label: string,
      id: string,
      min: number,
      max: number,
      step: number,
      value: number,
      unit: string,
      set: (v: number) => void,
    ) =>
      slider(
        c,
        label,
        id,
        min,
        max,
        step,
        value,
        (v) => `${v}${unit}`,
        (v) => {
          set(v);
          this.update();
        },
      );
    num('timing jitter', 'live-jitter', 0, 40, 1, this.jitter, '%', (v) => {
      this.jitter = v;
    });
    num('noise', 'live-noise', 0, 3, 0.1, this.noise, '°', (v) => {
      this.noise = v;
    });
    num('1€ min cutoff', 'live-mincutoff', 0.1, 5, 0.1, this.minCutoff, ' Hz', (v) => {
      this.minCutoff = v;
    });
    num('1€ beta', 'live-beta', 0, 5, 0.1, this.beta, ' Hz·s/rad', (v) => {
      this.beta = v;
    });
    num('damper half-life', 'live-halflife', 0.01, 0.3, 0.01, this.halfLife, ' s', (v) => {
      this.halfLife = v;
    });
    num('naive factor', 'live-factor', 0.02, 1, 0.01, this.factor, '', (v) => {
      this.factor = v;
    });
    this.info = document.createElement('div');
    this.info.className = 'difference';
    this.info.dataset.testid = 'live-info';
    c.appendChild(this.info);

    this.view = new MultiView(ui.stage);
    this.view.camera.position.set(1.6, 1.3, 2.4);
    FILTERS.forEach((name, i) => {
      const scene = this.view.addScene();
      const body = triad(0.9, 1, 0.14);
      const box = new THREE.Mesh(
        new THREE.BoxGeometry(0.45, 0.14, 0.28),
        new THREE.MeshStandardMaterial({ color: new THREE.Color(COLOURS[name]), roughness: 0.6 }),
      );
      body.add(box);
      scene.add(body);
      this.bodies.push(body);
      this.view.rects.push([i * 0.25, 0, 0.25, 1]);
    });
    this.view.onFrame = (dt) => {
      if (this.times.length === 0) return;
      this.clock = (this.clock + dt) % DURATION;
      // the latest sample at the playback time, as a display would show the stream
      let k = 0;
      while (k + 1 < this.times.length && this.times[k + 1] <= this.clock) k++;
      FILTERS.forEach((name, i) => {
        setQuat(this.bodies[i], this.outputs[name].subarray(k * 4, k * 4 + 4));
      });
      for (const p of this.plots) p.setCursor(this.clock);
    };
    const series = FILTERS.map((name) => ({
      label: name,
      color: COLOURS[name],
      width: name === 'input' ? 1 : 1.5,
    }));
    for (const title of ['angle from the truth (°)', 'quaternion x as output']) {
      const h = document.createElement('div');
      ui.plots.appendChild(h);
      this.plots.push(new LinePlot(h, { series, xLabel: title, legend: true }));
    }
    this.update();
  }

  show(): void {
    this.view.start();
    for (const p of this.plots) p.resize();
  }

  hide(): void {
    this.view.stop();
  }

  /** The true rotation at `t` seconds. */
  private truth(out: Float64Array, o: number, t: number): void {
    const u = Math.min(Math.max(t - SPIN_FROM, 0), SPIN_TO - SPIN_FROM);
    quat.fromAxisAngle(out.subarray(o, o + 4), AXIS, 0.3 + SPIN_SPEED * u);
  }

  /** Tracker samples at `rate` Hz (same seed, so the jitter pattern scales with the rate). */
  private samples(rate: number): { times: Float64Array; input: Float64Array } {
    const random = rng(7);
    const times: number[] = [];
    const n = Math.floor(DURATION * rate);
    for (let k = 0; k <= n; k++) {
      const j = k === 0 ? 0 : ((this.jitter / 100) * (2 * random() - 1)) / rate;
      times.push(Math.min(DURATION, k / rate + j));
    }
    const input = new Float64Array(times.length * 4);
    const noise = new Float64Array(4);
    const s = this.noise / DEG;
    for (let k = 0; k < times.length; k++) {
      this.truth(input, k * 4, times[k]);
      const g = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      quat.fromRotationVector(noise, [s * g(), s * g(), s * g()]);
      quat.multiplyFlat(input, k * 4, noise, 0, input, k * 4);
      const o = k * 4;
      const flip =
        this.signs === 'random'
          ? random() < 0.5
          : this.signs === 'y >= 0'
            ? input[o + 1] < 0
            : this.signs === 'w >= 0'
              ? input[o + 3] < 0
              : false;
      if (flip) for (let c = 0; c < 4; c++) input[o + c] = -input[o + c];
    }
    return { times: Float64Array.from(times), input };
  }

  /** Every filter's outputs for one tracker stream. */
  private filterAll(times: Float64Array, input: Float64Array): Record<FilterName, Float64Array> {
    const n = times.length;
    const oneEuro = createOneEuroFilter({ joints: 1, minCutoff: this.minCutoff, beta: this.beta });
    const damper = createDamper({ joints: 1, halfLife: this.halfLife, targetPath: 'linear' });
    const out: Record<FilterName, Float64Array> = {
      input,
      'one euro': new Float64Array(n * 4),
      damper: new Float64Array(n * 4),
      'naive lerp': new Float64Array(n * 4),
    };
    for (let k = 0; k < n; k++) {
      oneEuro.pushAt(out['one euro'], k * 4, input, k * 4, times[k]);
      damper.pushAt(out.damper, k * 4, input, k * 4, times[k]);
      // the naive port: y ← normalise((1 − a)·y + a·x) per component, whatever the signs
      const o = k * 4;
      const y = out['naive lerp'];
      if (k === 0) for (let c = 0; c < 4; c++) y[c] = input[c];
      else {
        let n2 = 0;
        for (let c = 0; c < 4; c++) {
          y[o + c] = (1 - this.factor) * y[o - 4 + c] + this.factor * input[o + c];
          n2 += y[o + c] ** 2;
        }
        const inv = n2 > 1e-12 ? 1 / Math.sqrt(n2) : 0;
        for (let c = 0; c < 4; c++) y[o + c] = inv > 0 ? y[o + c] * inv : y[o - 4 + c];
      }
    }
    return out;
  }

  private measure(times: Float64Array, outputs: Record<FilterName, Float64Array>): Record<string, Readout> {
    const truth = new Float64Array(4);
    const result: Record<string, Readout> = {};
    for (const name of FILTERS) {
      let lag = 0;
      let nl = 0;
      let jit = 0;
      let nj = 0;
      for (let k = 0; k < times.length; k++) {
        const t = times[k];
        this.truth(truth, 0, t);
        const a = quat.angle(outputs[name].subarray(k * 4, k * 4 + 4), truth);
        if (t > SPIN_TO - 1 && t <= SPIN_TO) {
          lag += a;
          nl++;
        } else if (t > DURATION - 1.5) {
          jit += a * a;
          nj++;
        }
      }
      const lagRad = lag / Math.max(1, nl);
      result[name] = {
        lag: lagRad * DEG,
        lagMs: (lagRad / SPIN_SPEED) * 1000,
        jitter: Math.sqrt(jit / Math.max(1, nj)) * DEG,
      };
    }
    return result;
  }

  private update(): void {
    const { times, input } = this.samples(this.rate);
    this.times = times;
    this.input = input;
    this.outputs = this.filterAll(times, input);
    this.readouts = this.measure(times, this.outputs);
    // the same settings at every rate: which filters' lag moves with the rate
    this.lagByRate = {};
    for (const r of RATES) {
      const s = r === this.rate ? { times, input } : this.samples(r);
      const m = r === this.rate ? this.readouts : this.measure(s.times, this.filterAll(s.times, s.input));
      for (const name of FILTERS) (this.lagByRate[name] ??= []).push(m[name].lag);
    }
    this.changes = FILTERS.filter((name) => {
      const l = this.lagByRate[name];
      return (Math.max(...l) - Math.min(...l)) / Math.max(1e-9, Math.max(...l)) > 0.2;
    });
    const n = times.length;
    const t = Array.from(times);
    const truth = new Float64Array(4);
    const angles = FILTERS.map((name) =>
      Float64Array.from({ length: n }, (_, k) => {
        this.truth(truth, 0, times[k]);
        return quat.angle(this.outputs[name].subarray(k * 4, k * 4 + 4), truth) * DEG;
      }),
    );
    this.plots[0].setData([t, ...angles]);
    this.plots[1].setData([
      t,
      ...FILTERS.map((name) => Float64Array.from({ length: n }, (_, k) => this.outputs[name][k * 4])),
    ]);
    const row = (name: string) => {
      const r = this.readouts[name];
      return `${name.padEnd(11)} lag ${r.lag.toFixed(1).padStart(5)}° (${r.lagMs.toFixed(0).padStart(3)} ms)  jitter ${r.jitter.toFixed(2)}°`;
    };
    this.info.textContent =
      `${n} samples at ${this.rate} Hz\n${FILTERS.map(row).join('\n')}\n` +
      `lag changes with the rate (30-144 Hz, > 20%): ${this.changes.length ? this.changes.join(', ') : 'none'}`;
    this.updates++;
  }

  state(): Record<string, unknown> {
    return {
      rate: this.rate,
      updates: this.updates,
      params: { minCutoff: this.minCutoff, beta: this.beta, halfLife: this.halfLife, factor: this.factor },
      series: this.plots.map((p) => ({
        names: p.plot.series.slice(1).map((s) => s.label),
        lengths: (p.plot.data as unknown as ArrayLike<number>[]).map((d) => d.length),
      })),
      times: Array.from(this.times),
      input: Array.from(this.input),
      outputs: Object.fromEntries(FILTERS.map((name) => [name, Array.from(this.outputs[name])])),
      readouts: this.readouts,
      lagByRate: this.lagByRate,
      changes: this.changes,
      info: this.info.textContent,
      pixels: this.view.pixelStats(),
    };
  }
}
