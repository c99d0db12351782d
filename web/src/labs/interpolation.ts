import { quat } from 'rotsig';
import * as THREE from 'three';
import { interpolate } from '../ops.js';
import { LinePlot } from '../plot.js';
import {
  button,
  checkbox,
  enableFrameDrag,
  INTERP_COLOURS,
  labLayout,
  MultiView,
  rng,
  screenOf,
  setQuat,
  slider,
  triad,
  unitSphere,
} from './lab-kit.js';

const METHODS = ['slerp', 'nlerp', 'log', 'matrix'] as const;
type Method = (typeof METHODS)[number];
const DEG = 180 / Math.PI;
const STEPS = 240;
const TICKS = 10;

/**
 * Interpolation lab (after Casey Muratori's visualiser): two rotations and the path of a rotated arrow tip
 * under slerp, nlerp, the exponential-map blend and matrix lerp, with tick marks at equal t (the arc and
 * the speed at once), plus the angular speed along t. Every point is `interpolate(out, a, b, t, method)`.
 */
export class InterpolationLab {
  private readonly view: MultiView;
  private readonly scene: THREE.Scene;
  private angle = 150;
  private twist = 60;
  private seed = 3;
  private animate = true;
  private t = 0;
  private readonly visible: Record<Method, boolean> = { slerp: true, nlerp: true, log: true, matrix: true };
  private a = new Float64Array([0, 0, 0, 1]);
  private b = new Float64Array([0, 0, 0, 1]);
  private readonly arrow = new THREE.Vector3(0.35, 0.25, 0.9).normalize();
  private readonly paths = {} as Record<Method, THREE.Line>;
  private readonly ticks = {} as Record<Method, THREE.InstancedMesh>;
  private readonly movers = {} as Record<Method, THREE.Mesh>;
  private readonly frameA = triad(0.6, 0.5, 0.12);
  private readonly frameB = triad(0.6, 0.5, 0.12);
  private readonly moving = triad(0.75, 1, 0.12);
  private readonly speedPlot: LinePlot;
  private readonly arcPlot: LinePlot;
  private readonly table: HTMLTableElement;
  private summary: Record<Method, { speedSpread: number; arcDeviation: number }> = {} as never;
  updates = 0;

  constructor(host: HTMLElement) {
    const ui = labLayout(
      host,
      'The tip of an arrow rotated by <code>interpolate(out, a, b, t, method)</code> for t from 0 to 1, with a ' +
        'tick at every 0.1. <b>nlerp</b> follows the slerp arc but its ticks bunch (wrong speed); <b>log</b> ' +
        '(exponential-map blend about the identity) keeps even ticks but leaves the arc when the axes differ; ' +
        '<b>matrix</b> lerp does neither.',
    );
    const c = ui.controls;
    slider(
      c,
      'angle',
      'interp-angle',
      10,
      179,
      1,
      this.angle,
      (v) => `${v}°`,
      (v) => {
        this.angle = v;
        this.update();
      },
    );
    slider(
      c,
      'axis spread',
      'interp-twist',
      0,
      90,
      1,
      this.twist,
      (v) => `${v}°`,
      (v) => {
        this.twist = v;
        this.update();
      },
    );
    checkbox(c, 'animate t', 'interp-animate', this.animate, (v) => {
      this.animate = v;
    });
    for (const m of METHODS) {
      checkbox(
        c,
        `<span class="swatch" style="background:${INTERP_COLOURS[m]}"></span>${m}`,
        `interp-show-${m}`,
        true,
        (v) => {
          this.visible[m] = v;
          this.paths[m].visible = v;
          this.ticks[m].visible = v;
          this.movers[m].visible = v;
        },
      );
    }
    const row = document.createElement('div');
    row.className = 'row';
    c.appendChild(row);
    button(row, 'Randomise', 'interp-randomise', () => {
      this.seed++;
      this.update();
    });
    this.table = document.createElement('table');
    this.table.dataset.testid = 'interp-table';
    c.appendChild(this.table);

    this.view = new MultiView(ui.stage);
    this.view.camera.position.set(1.6, 1.3, 2.6);
    this.scene = this.view.addScene();
    this.scene.add(unitSphere());
    this.scene.add(this.frameA, this.frameB, this.moving);
    for (const m of METHODS) {
      const colour = new THREE.Color(INTERP_COLOURS[m]);
      const geo = new THREE.BufferGeometry();
      geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array((STEPS + 1) * 3), 3));
      this.paths[m] = new THREE.Line(geo, new THREE.LineBasicMaterial({ color: colour }));
      this.paths[m].frustumCulled = false;
      this.ticks[m] = new THREE.InstancedMesh(
        new THREE.SphereGeometry(0.018, 10, 6),
        new THREE.MeshBasicMaterial({ color: colour }),
        TICKS + 1,
      );
      this.ticks[m].frustumCulled = false;
      this.movers[m] = new THREE.Mesh(
        new THREE.SphereGeometry(0.035, 14, 8),
        new THREE.MeshBasicMaterial({ color: colour }),
      );
      this.scene.add(this.paths[m], this.ticks[m], this.movers[m]);
    }
    enableFrameDrag(
      this.view,
      0,
      () => [this.frameA, this.frameB],
      (i, r) => {
        const target = i === 0 ? this.a : this.b;
        quat.multiply(target, r, target);
        this.redraw();
      },
    );
    this.view.onFrame = (dt) => {
      if (!this.animate) return;
      this.t = (this.t + dt * 0.35) % 1;
      this.placeMovers();
    };
    const h1 = document.createElement('div');
    const h2 = document.createElement('div');
    ui.plots.append(h1, h2);
    this.speedPlot = new LinePlot(h1, {
      series: METHODS.map((m) => ({ label: m, color: INTERP_COLOURS[m] })),
      xLabel: 't',
      yLabel: 'angular speed (°/unit t)',
    });
    this.arcPlot = new LinePlot(h2, {
      series: METHODS.map((m) => ({ label: m, color: INTERP_COLOURS[m] })),
      xLabel: 't',
      yLabel: 'off the slerp arc (°)',
    });
    this.update();
  }

  show(): void {
    this.view.start();
    this.speedPlot.resize();
    this.arcPlot.resize();
  }

  hide(): void {
    this.view.stop();
  }

  private update(): void {
    // a: a random rotation; b: a rotated by `angle` about an axis tilted `twist` away from a's own axis
    const r = rng(this.seed * 104729);
    const axisA = unit([r() - 0.5, r() - 0.5, r() - 0.5]);
    const perp = unit(cross(axisA, unit([r() - 0.5, r() - 0.5, r() - 0.5])));
    const tw = this.twist / DEG;
    const axisB = unit(axisA.map((v, i) => v * Math.cos(tw) + perp[i] * Math.sin(tw)));
    // b = a · rel, where rel turns by `angle` about an axis `twist` away from a's own axis: the rotation from
    // a to b is exactly `angle`, and with twist 0 both share one axis (where the log blend is geodesic)
    quat.fromAxisAngle(this.a, axisA, (this.angle / DEG) * 0.5);
    const rel = quat.fromAxisAngle(quat.create(), axisB, this.angle / DEG);
    quat.multiply(this.b, this.a, rel);
    this.redraw();
  }

  /** Paths, ticks, plots and table for the current a and b. */
  private redraw(): void {
    setQuat(this.frameA, this.a);
    setQuat(this.frameB, this.b);
    const q = new Float64Array(4);
    const qs = new Float64Array(4);
    // orthonormal basis (a, e2) of the plane of the great circle through a and b, b taken in a's hemisphere
    const s = quat.dot(this.a, this.b) < 0 ? -1 : 1;
    const e2 = new Float64Array(4);
    for (let k = 0; k < 4; k++) e2[k] = s * this.b[k] - quat.dot(this.a, this.b) * s * this.a[k];
    const len = Math.hypot(e2[0], e2[1], e2[2], e2[3]);
    for (let k = 0; k < 4; k++) e2[k] /= len || 1;
    const qn = new Float64Array(4);
    const v = new Float64Array(3);
    const arrow = [this.arrow.x, this.arrow.y, this.arrow.z];
    const ts = Float64Array.from({ length: STEPS + 1 }, (_, i) => i / STEPS);
    const speeds: Float64Array[] = [];
    const arcs: Float64Array[] = [];
    const m4 = new THREE.Matrix4();
    for (const m of METHODS) {
      const pos = this.paths[m].geometry.getAttribute('position') as THREE.BufferAttribute;
      const speed = new Float64Array(STEPS + 1);
      const arc = new Float64Array(STEPS + 1);
      for (let i = 0; i <= STEPS; i++) {
        const t = i / STEPS;
        interpolate(q, this.a, this.b, t, m);
        quat.rotateVector(v, q, arrow);
        pos.setXYZ(i, v[0], v[1], v[2]);
        // central-difference angular speed in degrees per unit t
        const h = 1e-4;
        interpolate(qn, this.a, this.b, Math.min(1, t + h), m);
        interpolate(qs, this.a, this.b, Math.max(0, t - h), m);
        speed[i] = (quat.angle(qs, qn) / (Math.min(1, t + h) - Math.max(0, t - h))) * DEG;
        arc[i] = offArc(q, this.a, e2) * DEG;
      }
      pos.needsUpdate = true;
      for (let k = 0; k <= TICKS; k++) {
        interpolate(q, this.a, this.b, k / TICKS, m);
        quat.rotateVector(v, q, arrow);
        m4.makeTranslation(v[0], v[1], v[2]);
        this.ticks[m].setMatrixAt(k, m4);
      }
      this.ticks[m].instanceMatrix.needsUpdate = true;
      speeds.push(speed);
      arcs.push(arc);
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = 0; i <= STEPS; i++) {
        lo = Math.min(lo, speed[i]);
        hi = Math.max(hi, speed[i]);
      }
      this.summary[m] = {
        speedSpread: (hi - lo) / Math.max(1e-12, (hi + lo) / 2),
        arcDeviation: Math.max(...arc),
      };
    }
    this.speedPlot.setData([ts, ...speeds]);
    this.arcPlot.setData([ts, ...arcs]);
    this.placeMovers();
    let html =
      `<caption style="text-align:left;color:#8a93a3">a to b: ${(quat.angle(this.a, this.b) * DEG).toFixed(1)}°` +
      ' (drag a or b by its arrows)</caption><tr><th>method</th><th>speed spread</th><th>max off the arc</th></tr>';
    for (const m of METHODS) {
      const s = this.summary[m];
      html +=
        `<tr data-method="${m}"><td><span class="swatch" style="background:${INTERP_COLOURS[m]}"></span>${m}</td>` +
        `<td>${(s.speedSpread * 100).toFixed(1)}%</td><td>${s.arcDeviation.toFixed(2)}°</td></tr>`;
    }
    this.table.innerHTML = html;
    this.updates++;
  }

  private placeMovers(): void {
    const q = new Float64Array(4);
    const v = new Float64Array(3);
    const arrow = [this.arrow.x, this.arrow.y, this.arrow.z];
    for (const m of METHODS) {
      interpolate(q, this.a, this.b, this.t, m);
      quat.rotateVector(v, q, arrow);
      this.movers[m].position.set(v[0], v[1], v[2]);
      if (m === 'slerp') setQuat(this.moving, q);
    }
  }

  state(): Record<string, unknown> {
    return {
      angle: this.angle,
      twist: this.twist,
      updates: this.updates,
      summary: this.summary,
      a: Array.from(this.a),
      b: Array.from(this.b),
      tipB: screenOf(this.view, 0, this.frameB, new THREE.Vector3(0.56, 0, 0)),
      pixels: this.view.pixelStats(),
    };
  }
}

function unit(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/**
 * Rotation angle between q and the nearest rotation on the great circle through a with direction e2 (both unit
 * and orthogonal in R⁴): twice the angle between q and its projection on that plane.
 */
function offArc(q: Float64Array, a: Float64Array, e2: Float64Array): number {
  const ca = quat.dot(q, a);
  const ce = quat.dot(q, e2);
  // the component of q off the plane, measured directly (no cancellation near the arc)
  let off = 0;
  for (let k = 0; k < 4; k++) off += (q[k] - ca * a[k] - ce * e2[k]) ** 2;
  return 2 * Math.atan2(Math.sqrt(off), Math.hypot(ca, ce));
}
