import {
  eulerFromQuatSeries,
  findDiscontinuities,
  type QuatSeries,
  quat,
  toMatrixSeries,
  unrollQuaternions,
  unrollRotationVectors,
} from 'rotsig';
import * as THREE from 'three';
import { LinePlot } from '../plot.js';
import { checkbox, labLayout, MultiView, setQuat, slider, triad } from './lab-kit.js';

const DEG = 180 / Math.PI;
const FRAMES = 360;
const RATE = 60;
const COLOURS = ['#ff6b6b', '#6bdc7b', '#5fb3ff', '#e0c15a'];

/**
 * Unrolling lab: a rotation spinning through several turns about a tilted axis, stored the way many
 * exporters store it (quaternions in the w ≥ 0 hemisphere, principal Euler angles, rotation vectors of at
 * most 180°), and its quaternion, Euler, rotation-vector and matrix curves before (faint) and after (solid)
 * the library's unrolling.
 */
export class UnrollingLab {
  private readonly view: MultiView;
  private turns = 2.5;
  private tilt = 25;
  private wobble = 20;
  private showBefore = true;
  private readonly body = triad(1, 1, 0.14);
  private readonly plots: LinePlot[] = [];
  private readonly info: HTMLElement;
  private series: QuatSeries<Float64Array> | null = null;
  private frame = 0;
  private counts: Record<string, number> = {};
  updates = 0;

  constructor(host: HTMLElement) {
    const ui = labLayout(
      host,
      'A rotation spinning through several turns. Faint: as stored (quaternions with w ≥ 0, principal Euler ' +
        'angles, rotation vectors up to 180°). Solid: after <code>unrollQuaternions</code>, ' +
        '<code>eulerFromQuatSeries</code> (equivalent-triple filter) and <code>unrollRotationVectors</code>. ' +
        'Matrices are continuous already; rotation vectors must still jump at the 2π shells.',
    );
    const c = ui.controls;
    slider(
      c,
      'turns',
      'unroll-turns',
      0.25,
      5,
      0.25,
      this.turns,
      (v) => `${v}`,
      (v) => {
        this.turns = v;
        this.update();
      },
    );
    slider(
      c,
      'axis tilt',
      'unroll-tilt',
      0,
      90,
      1,
      this.tilt,
      (v) => `${v}°`,
      (v) => {
        this.tilt = v;
        this.update();
      },
    );
    slider(
      c,
      'wobble',
      'unroll-wobble',
      0,
      60,
      1,
      this.wobble,
      (v) => `${v}°`,
      (v) => {
        this.wobble = v;
        this.update();
      },
    );
    checkbox(c, 'show stored (before)', 'unroll-before', this.showBefore, (v) => {
      this.showBefore = v;
      for (const p of this.plots) {
        const n = p.plot.series.length - 1;
        for (let i = 0; i < n / 2; i++) p.setSeriesVisible(i, v);
      }
    });
    this.info = document.createElement('div');
    this.info.className = 'difference';
    this.info.dataset.testid = 'unroll-info';
    c.appendChild(this.info);

    this.view = new MultiView(ui.stage);
    this.view.camera.position.set(1.8, 1.4, 2.6);
    const scene = this.view.addScene();
    const grid = new THREE.GridHelper(3, 12, 0x3a4150, 0x262b33);
    grid.position.y = -1.1;
    scene.add(grid, this.body);
    const box = new THREE.Mesh(
      new THREE.BoxGeometry(0.5, 0.16, 0.3),
      new THREE.MeshStandardMaterial({ color: 0x8a93a3, roughness: 0.6 }),
    );
    this.body.add(box);
    this.view.onFrame = (dt) => {
      if (!this.series) return;
      this.frame = (this.frame + dt * RATE * 0.5) % FRAMES;
      const f = Math.floor(this.frame);
      setQuat(this.body, this.series.data.subarray(f * 4, f * 4 + 4));
      for (const p of this.plots) p.setCursor(f / RATE);
    };
    const names: [string, string[]][] = [
      ['quaternion', ['x', 'y', 'z', 'w']],
      ['Euler ZYX (°)', ['Z', 'Y', 'X']],
      ['rotation vector (°)', ['rx', 'ry', 'rz']],
      ['matrix (first column)', ['m00', 'm10', 'm20']],
    ];
    for (const [title, labels] of names) {
      const h = document.createElement('div');
      ui.plots.appendChild(h);
      this.plots.push(
        new LinePlot(h, {
          series: [
            ...labels.map((l, i) => ({ label: `${l} stored`, color: `${COLOURS[i]}55`, width: 1 })),
            ...labels.map((l, i) => ({ label: l, color: COLOURS[i], width: 1.5 })),
          ],
          xLabel: title,
          legend: false,
        }),
      );
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

  private update(): void {
    // the spin: angle grows linearly to `turns` full turns about an axis tilted from y, with a wobble about x
    const stored = new Float64Array(FRAMES * 4);
    const tilt = this.tilt / DEG;
    const axis = [Math.sin(tilt), Math.cos(tilt), 0];
    const spin = quat.create();
    const wob = quat.create();
    const q = quat.create();
    for (let f = 0; f < FRAMES; f++) {
      const u = f / (FRAMES - 1);
      quat.fromAxisAngle(spin, axis, u * this.turns * 2 * Math.PI);
      quat.fromAxisAngle(wob, [1, 0, 0], (this.wobble / DEG) * Math.sin(u * 6 * Math.PI));
      quat.multiply(q, spin, wob);
      quat.abs(q, q); // stored as many exporters do: w >= 0, so the sign flips every half turn
      stored.set(q, f * 4);
    }
    const before: QuatSeries<Float64Array> = { data: stored, frames: FRAMES, joints: 1 };
    const after = unrollQuaternions(before, {
      out: { data: new Float64Array(FRAMES * 4), frames: FRAMES, joints: 1 },
    });
    this.series = after as QuatSeries<Float64Array>;
    const t = Float64Array.from({ length: FRAMES }, (_, i) => i / RATE);
    const col = (src: ArrayLike<number>, stride: number, k: number, scale = 1) =>
      Float64Array.from({ length: FRAMES }, (_, f) => src[f * stride + k] * scale);
    // quaternions
    this.plots[0].setData([
      t,
      ...[0, 1, 2, 3].map((k) => col(stored, 4, k)),
      ...[0, 1, 2, 3].map((k) => col(after.data, 4, k)),
    ]);
    // Euler
    const eBefore = eulerFromQuatSeries(before, 'ZYX', { unroll: 'none' });
    const eAfter = eulerFromQuatSeries(before, 'ZYX', { unroll: 'equivalent' });
    this.plots[1].setData([
      t,
      ...[0, 1, 2].map((k) => col(eBefore.data, 3, k, DEG)),
      ...[0, 1, 2].map((k) => col(eAfter.data, 3, k, DEG)),
    ]);
    // rotation vectors
    const rv = new Float64Array(FRAMES * 3);
    for (let f = 0; f < FRAMES; f++) quat.toRotationVectorFlat(rv, f * 3, stored, f * 4);
    const rvAfter = unrollRotationVectors(rv);
    this.plots[2].setData([
      t,
      ...[0, 1, 2].map((k) => col(rv, 3, k, DEG)),
      ...[0, 1, 2].map((k) => col(rvAfter.vectors, 3, k, DEG)),
    ]);
    // matrices: continuous in both (the sign of q does not reach them)
    const mBefore = toMatrixSeries(before).data;
    const mAfter = toMatrixSeries(after).data;
    this.plots[3].setData([
      t,
      ...[0, 3, 6].map((k) => col(mBefore, 9, k)),
      ...[0, 3, 6].map((k) => col(mAfter, 9, k)),
    ]);
    // discontinuities before and after, found by the library
    const flipsBefore = findDiscontinuities(before, { rate: RATE }).filter(
      (d) => d.kind === 'sign-flip',
    ).length;
    const flipsAfter = findDiscontinuities(after, { rate: RATE }).filter(
      (d) => d.kind === 'sign-flip',
    ).length;
    const wrapsBefore = findDiscontinuities(eBefore, { rate: RATE, order: 'ZYX' }).length;
    const wrapsAfter = findDiscontinuities(eAfter, { rate: RATE, order: 'ZYX' }).length;
    this.counts = {
      flipsBefore,
      flipsAfter,
      wrapsBefore,
      wrapsAfter,
      rotvecJumps: rvAfter.jumps.length,
    };
    this.info.textContent =
      `quaternion sign flips: ${flipsBefore} → ${flipsAfter}\n` +
      `Euler wraps / branch switches: ${wrapsBefore} → ${wrapsAfter}\n` +
      `rotation-vector jumps left: ${rvAfter.jumps.length}` +
      (rvAfter.jumps.length ? ` (frames ${rvAfter.jumps.map((j) => j.frame).join(', ')})` : '');
    this.updates++;
  }

  state(): Record<string, unknown> {
    return { turns: this.turns, updates: this.updates, counts: this.counts, pixels: this.view.pixelStats() };
  }
}
