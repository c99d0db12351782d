// The studio labs' kit: the lab layout, controls (sliders, checkboxes, buttons), three.js views and helpers (axes triads,
// the unit sphere, colours, frame dragging) that every lab builds on.
import { quat } from 'rotsig';
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

/** Builds the lab layout (controls | stage, plots) inside a view section and returns its parts. */
export function labLayout(host: HTMLElement, intro: string) {
  host.innerHTML = `<aside class="controls"><p>${intro}</p><div class="lab-controls"></div></aside>
    <div class="lab-stage"><div class="label-layer"></div></div><div class="lab-plots"></div>`;
  return {
    controls: host.querySelector('.lab-controls') as HTMLElement,
    stage: host.querySelector('.lab-stage') as HTMLElement,
    labels: host.querySelector('.label-layer') as HTMLElement,
    plots: host.querySelector('.lab-plots') as HTMLElement,
  };
}

/** A labelled range slider row; returns the input. */
export function slider(
  parent: HTMLElement,
  label: string,
  testid: string,
  min: number,
  max: number,
  step: number,
  value: number,
  format: (v: number) => string,
  onInput: (v: number) => void,
): HTMLInputElement {
  const row = document.createElement('div');
  row.className = 'row';
  row.innerHTML = `<label>${label}</label><input type="range" min="${min}" max="${max}" step="${step}" value="${value}" data-testid="${testid}" /><span></span>`;
  const input = row.querySelector('input')!;
  const out = row.querySelector('span')!;
  out.textContent = format(value);
  input.addEventListener('input', () => {
    out.textContent = format(Number(input.value));
    onInput(Number(input.value));
  });
  parent.appendChild(row);
  return input;
}

export function checkbox(
  parent: HTMLElement,
  label: string,
  testid: string,
  value: boolean,
  onChange: (v: boolean) => void,
): HTMLInputElement {
  const row = document.createElement('div');
  row.className = 'row';
  row.innerHTML = `<label style="min-width:0"><input type="checkbox" data-testid="${testid}" ${value ? 'checked' : ''}/> ${label}</label>`;
  const input = row.querySelector('input')!;
  input.addEventListener('change', () => onChange(input.checked));
  parent.appendChild(row);
  return input;
}

export function button(
  parent: HTMLElement,
  label: string,
  testid: string,
  onClick: () => void,
): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = label;
  b.dataset.testid = testid;
  b.addEventListener('click', onClick);
  parent.appendChild(b);
  return b;
}

/** A coordinate frame: x red, y green, z blue arrows, rotated by a quaternion (x, y, z, w). */
export function triad(length = 1, opacity = 1, head = 0.18): THREE.Group {
  const g = new THREE.Group();
  const colours = [0xff5f5f, 0x6bdc7b, 0x5fb3ff];
  const dirs = [new THREE.Vector3(1, 0, 0), new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1)];
  for (let i = 0; i < 3; i++) {
    const a = new THREE.ArrowHelper(
      dirs[i],
      new THREE.Vector3(),
      length,
      colours[i],
      head * length,
      head * 0.5 * length,
    );
    for (const m of [a.line.material, a.cone.material] as THREE.Material[]) {
      m.transparent = opacity < 1;
      m.opacity = opacity;
    }
    g.add(a);
  }
  return g;
}

export function setQuat(obj: THREE.Object3D, q: ArrayLike<number>): void {
  obj.quaternion.set(q[0], q[1], q[2], q[3]);
}

/** A renderer with several scissored viewports sharing one orbit camera. */
export class MultiView {
  readonly renderer = new THREE.WebGLRenderer({ antialias: true });
  readonly camera = new THREE.PerspectiveCamera(35, 1, 0.01, 100);
  readonly controls: OrbitControls;
  readonly scenes: THREE.Scene[] = [];
  /** Viewport rectangles as fractions of the stage: [x, y (from top), w, h]. */
  rects: [number, number, number, number][] = [];
  private running = false;
  onFrame: ((dt: number) => void) | null = null;
  private last = 0;
  renders = 0;

  constructor(readonly host: HTMLElement) {
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.renderer.setClearColor(0x101216);
    this.renderer.setScissorTest(true);
    host.prepend(this.renderer.domElement);
    this.renderer.domElement.dataset.testid = 'lab-canvas';
    this.camera.position.set(2.2, 1.6, 3.2);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    new ResizeObserver(() => this.resize()).observe(host);
  }

  addScene(): THREE.Scene {
    const s = new THREE.Scene();
    s.add(new THREE.HemisphereLight(0xffffff, 0x303040, 2));
    this.scenes.push(s);
    return s;
  }

  resize(): void {
    const w = Math.max(1, this.host.clientWidth);
    const h = Math.max(1, this.host.clientHeight);
    this.renderer.setSize(w, h);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.resize();
    const loop = (t: number) => {
      if (!this.running) return;
      const dt = this.last ? Math.min(0.1, (t - this.last) / 1000) : 0;
      this.last = t;
      this.onFrame?.(dt);
      this.render();
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  stop(): void {
    this.running = false;
    this.last = 0;
  }

  render(): void {
    const w = this.host.clientWidth;
    const h = this.host.clientHeight;
    this.renderer.setScissor(0, 0, w, h);
    this.renderer.setViewport(0, 0, w, h);
    this.renderer.clear();
    this.scenes.forEach((s, i) => {
      const [fx, fy, fw, fh] = this.rects[i] ?? [0, 0, 1, 1];
      const x = Math.round(fx * w);
      const vw = Math.round(fw * w);
      const vh = Math.round(fh * h);
      const y = Math.round(h - (fy + fh) * h);
      this.renderer.setViewport(x, y, vw, vh);
      this.renderer.setScissor(x, y, vw, vh);
      this.camera.aspect = vw / Math.max(1, vh);
      this.camera.updateProjectionMatrix();
      this.renderer.render(s, this.camera);
    });
    this.renders++;
  }

  /** Non-background pixels of the stage (sampled), for the e2e check. */
  pixelStats(): { lit: number; total: number } {
    this.render();
    const src = this.renderer.domElement;
    const c = document.createElement('canvas');
    c.width = 160;
    c.height = Math.max(1, Math.round((160 * src.height) / Math.max(1, src.width)));
    const ctx = c.getContext('2d')!;
    ctx.drawImage(src, 0, 0, c.width, c.height);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let lit = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (Math.abs(px[i] - 0x10) + Math.abs(px[i + 1] - 0x12) + Math.abs(px[i + 2] - 0x16) > 24) lit++;
    }
    return { lit, total: px.length / 4 };
  }
}

/** A faint unit sphere with a few great circles, for arrow-tip paths. */
export function unitSphere(): THREE.Object3D {
  const g = new THREE.Group();
  const m = new THREE.MeshBasicMaterial({
    color: 0x2a3340,
    transparent: true,
    opacity: 0.25,
    depthWrite: false,
  });
  g.add(new THREE.Mesh(new THREE.SphereGeometry(0.995, 48, 24), m));
  const lines = new THREE.LineBasicMaterial({ color: 0x39414f });
  for (let i = 0; i < 3; i++) {
    const pts: THREE.Vector3[] = [];
    for (let k = 0; k <= 96; k++) {
      const a = (k / 96) * Math.PI * 2;
      const p = [Math.cos(a), Math.sin(a), 0];
      pts.push(new THREE.Vector3(p[(i + 0) % 3], p[(i + 1) % 3], p[(i + 2) % 3]));
    }
    g.add(new THREE.Line(new THREE.BufferGeometry().setFromPoints(pts), lines));
  }
  return g;
}

/** Deterministic pseudo-random numbers (mulberry32), so a seed reproduces a lab state. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const METHOD_COLOURS: Record<string, string> = {
  flip: '#ff6b6b',
  nlerp: '#ffb454',
  raw: '#e0c15a',
  log: '#6bdc7b',
  eigen: '#5fb3ff',
  geodesic: '#c58bff',
};

/** Interpolation methods in Casey Muratori's colours: slerp green, nlerp red, log blue (matrix added). */
export const INTERP_COLOURS: Record<string, string> = {
  slerp: '#6bdc7b',
  nlerp: '#ff6b6b',
  log: '#5fb3ff',
  matrix: '#c58bff',
};

/**
 * Lets the user rotate frames by dragging them in viewport `rect` of a {@link MultiView}: a press on one of
 * `targets()` picks it, the drag direction on screen gives the rotation axis (in the view plane,
 * perpendicular to the drag) and its length the angle; `onRotate(index, r)` receives the world-frame
 * rotation `r` (x, y, z, w) to pre-multiply. Orbiting works everywhere else.
 */
export function enableFrameDrag(
  view: MultiView,
  rect: number,
  targets: () => THREE.Object3D[],
  onRotate: (index: number, r: Float64Array) => void,
): void {
  const canvas = view.renderer.domElement;
  const ray = new THREE.Raycaster();
  let dragging = -1;
  let lastX = 0;
  let lastY = 0;
  const r = new Float64Array(4);
  const ndc = (e: PointerEvent) => {
    const box = canvas.getBoundingClientRect();
    const [fx, fy, fw, fh] = view.rects[rect] ?? [0, 0, 1, 1];
    const x = ((e.clientX - box.left) / box.width - fx) / fw;
    const y = ((e.clientY - box.top) / box.height - fy) / fh;
    view.camera.aspect = (fw * box.width) / Math.max(1, fh * box.height);
    view.camera.updateProjectionMatrix();
    return x >= 0 && x <= 1 && y >= 0 && y <= 1 ? new THREE.Vector2(x * 2 - 1, 1 - y * 2) : null;
  };
  canvas.addEventListener('pointerdown', (e) => {
    const p = ndc(e);
    if (!p) return;
    const list = targets();
    ray.setFromCamera(p, view.camera);
    const hit = ray.intersectObjects(list, true)[0];
    if (!hit) return;
    let o: THREE.Object3D | null = hit.object;
    while (o && !list.includes(o)) o = o.parent;
    dragging = o ? list.indexOf(o) : -1;
    if (dragging < 0) return;
    lastX = e.clientX;
    lastY = e.clientY;
    view.controls.enabled = false;
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (dragging < 0) return;
    const dx = e.clientX - lastX;
    const dy = e.clientY - lastY;
    lastX = e.clientX;
    lastY = e.clientY;
    const len = Math.hypot(dx, dy);
    if (len === 0) return;
    const cam = view.camera;
    const right = new THREE.Vector3(1, 0, 0).applyQuaternion(cam.quaternion);
    const up = new THREE.Vector3(0, 1, 0).applyQuaternion(cam.quaternion);
    const axis = up.multiplyScalar(dx).add(right.multiplyScalar(dy)).normalize();
    quat.fromAxisAngle(r, [axis.x, axis.y, axis.z], len * 0.01);
    onRotate(dragging, r);
  });
  const end = () => {
    dragging = -1;
    view.controls.enabled = true;
  };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
}

/** Page coordinates of a point given in an object's frame, as drawn in viewport `rect` (for tests). */
export function screenOf(
  view: MultiView,
  rect: number,
  obj: THREE.Object3D,
  local: THREE.Vector3,
): { x: number; y: number } {
  const box = view.renderer.domElement.getBoundingClientRect();
  const [fx, fy, fw, fh] = view.rects[rect] ?? [0, 0, 1, 1];
  const cam = view.camera;
  cam.aspect = (fw * box.width) / Math.max(1, fh * box.height);
  cam.updateProjectionMatrix();
  obj.updateMatrixWorld();
  const v = local.clone().applyMatrix4(obj.matrixWorld).project(cam);
  return {
    x: box.left + (fx + ((v.x + 1) / 2) * fw) * box.width,
    y: box.top + (fy + ((1 - v.y) / 2) * fh) * box.height,
  };
}
