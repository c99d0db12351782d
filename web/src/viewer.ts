import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

/**
 * Whether the 3D view should multisample. Not on a software rasteriser (SwiftShader, llvmpipe, ...: headless
 * browsers, machines without a GPU): there multisampling multiplies the cost of every pixel, and a
 * 100-joint skeleton drops from 60 to about 40 frames per second in headless Chromium. `?aa=1` or `?aa=0`
 * in the address overrides the guess.
 */
export function wantsAntialias(): boolean {
  const forced = new URLSearchParams(location.search).get('aa');
  if (forced === '1' || forced === '0') return forced === '1';
  return !isSoftwareWebGL();
}

/** True when WebGL 2 is missing or its renderer string names a software rasteriser. */
export function isSoftwareWebGL(): boolean {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return true;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return /swiftshader|llvmpipe|softpipe|software|basic render/i.test(name);
}

/** A three.js view of a skeleton: joints as spheres, bones as lines, an orbit camera and a ground grid. */
export class SkeletonView {
  readonly renderer: THREE.WebGLRenderer;
  readonly scene = new THREE.Scene();
  readonly camera = new THREE.PerspectiveCamera(40, 1, 0.01, 10_000);
  readonly controls: OrbitControls;
  private joints: THREE.InstancedMesh | null = null;
  private bones: THREE.LineSegments | null = null;
  private ghost: THREE.LineSegments | null = null;
  private parents: Int32Array = new Int32Array(0);
  private grid: THREE.GridHelper;
  private readonly raycaster = new THREE.Raycaster();
  private readonly matrix = new THREE.Matrix4();
  private readonly color = new THREE.Color();
  private selected = -1;
  private jointRadius = 1;
  private dirty = true;
  onPick: ((joint: number) => void) | null = null;
  /** Milliseconds spent in the last few renders (for the performance record). */
  readonly renderTimes: number[] = [];

  constructor(readonly host: HTMLElement) {
    this.renderer = new THREE.WebGLRenderer({ antialias: wantsAntialias() });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.renderer.setClearColor(0x101216);
    host.appendChild(this.renderer.domElement);
    this.renderer.domElement.dataset.testid = 'viewport-canvas';
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.controls.addEventListener('change', () => this.invalidate());
    this.grid = new THREE.GridHelper(10, 20, 0x3a4150, 0x262b33);
    this.scene.add(this.grid);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x303040, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.2);
    sun.position.set(3, 5, 2);
    this.scene.add(sun);
    this.camera.position.set(3, 2, 4);
    new ResizeObserver(() => this.resize()).observe(host);
    this.resize();
    let downX = 0;
    let downY = 0;
    this.renderer.domElement.addEventListener('pointerdown', (e) => {
      downX = e.clientX;
      downY = e.clientY;
    });
    this.renderer.domElement.addEventListener('pointerup', (e) => {
      if (Math.hypot(e.clientX - downX, e.clientY - downY) < 4) this.pick(e);
    });
  }

  resize(): void {
    const w = Math.max(1, this.host.clientWidth);
    const h = Math.max(1, this.host.clientHeight);
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.invalidate();
  }

  invalidate(): void {
    this.dirty = true;
  }

  private character: THREE.Object3D | null = null;
  private characterNodes: (THREE.Object3D | null)[] = [];
  private overlay = true;

  /**
   * Shows a character (a glTF scene from `GLTFLoader`) whose node `nodes[j]` is driven by joint `j` of the
   * clip ({@link poseCharacter}); null removes it. With a character the stick figure is an overlay drawn
   * over the mesh, shown or hidden by {@link setOverlay}.
   */
  setCharacter(root: THREE.Object3D | null, nodes: (THREE.Object3D | null)[] = []): void {
    this.characterNodes = nodes;
    if (root === this.character) {
      this.invalidate();
      return;
    }
    if (this.character) {
      this.scene.remove(this.character);
      this.character.traverse((o) => {
        const m = o as THREE.Mesh;
        if (m.isMesh) m.geometry.dispose();
      });
    }
    this.character = root;
    if (root) {
      // skinned bounds are the bind pose's; animated limbs leave them, so never cull the character
      root.traverse((o) => {
        o.frustumCulled = false;
      });
      this.scene.add(root);
    }
    this.applyOverlay();
  }

  get hasCharacter(): boolean {
    return this.character !== null;
  }

  /** The character's bounding box in world space as posed now (skinned meshes by their posed vertices), or null. */
  characterBox(): THREE.Box3 | null {
    if (!this.character) return null;
    this.character.updateMatrixWorld(true);
    const box = new THREE.Box3().setFromObject(this.character, true);
    return box.isEmpty() ? null : box;
  }

  /** Shows or hides the stick figure (always shown when there is no character). */
  setOverlay(on: boolean): void {
    this.overlay = on;
    this.applyOverlay();
  }

  private applyOverlay(): void {
    const show = this.overlay || !this.character;
    for (const o of [this.joints, this.bones]) {
      if (!o) continue;
      o.visible = show;
      // over the mesh, not hidden inside it
      (o.material as THREE.Material).depthTest = !this.character;
      o.renderOrder = this.character ? 10 : 0;
    }
    this.invalidate();
  }

  /** Sets the character's nodes to a local pose (joints x 4 rotations, x 3 translations and scales). */
  poseCharacter(rot: ArrayLike<number>, trans: ArrayLike<number>, scale: ArrayLike<number> | null): void {
    const nodes = this.characterNodes;
    for (let j = 0; j < nodes.length; j++) {
      const n = nodes[j];
      if (!n) continue;
      n.quaternion.set(rot[j * 4], rot[j * 4 + 1], rot[j * 4 + 2], rot[j * 4 + 3]);
      n.position.set(trans[j * 3], trans[j * 3 + 1], trans[j * 3 + 2]);
      if (scale) n.scale.set(scale[j * 3], scale[j * 3 + 1], scale[j * 3 + 2]);
    }
    this.invalidate();
  }

  /** What the scene graph holds of the character: skinned meshes, driven nodes, material colours (sRGB hex). */
  characterInfo(): {
    skinnedMeshes: number;
    bound: number;
    joints: number;
    colours: string[];
    /** Width and height of every texture image the materials hold. */
    textures: { width: number; height: number }[];
  } {
    let skinned = 0;
    const colours = new Set<string>();
    const textures: { width: number; height: number }[] = [];
    this.character?.traverse((o) => {
      const m = o as THREE.SkinnedMesh;
      if (m.isSkinnedMesh && m.parent) skinned++;
      if (m.isMesh) {
        for (const mat of Array.isArray(m.material) ? m.material : [m.material]) {
          const c = (mat as THREE.MeshStandardMaterial).color;
          if (c) colours.add(`#${c.getHexString()}`);
          const image = (mat as THREE.MeshStandardMaterial).map?.image as
            | { width?: number; height?: number }
            | undefined;
          if (image) textures.push({ width: image.width ?? 0, height: image.height ?? 0 });
        }
      }
    });
    return {
      skinnedMeshes: skinned,
      bound: this.characterNodes.filter((n) => n !== null).length,
      joints: this.characterNodes.length,
      colours: [...colours],
      textures,
    };
  }

  /**
   * Renders now and counts canvas pixels (sampled like {@link pixelStats}) whose hue is within `hueTol`
   * degrees of `colour`'s and whose saturation is at least 0.35: a lit, shaded surface keeps its material's
   * hue under white lights, so this finds the mesh's pixels whatever its shading.
   */
  huePixels(colour: string, hueTol = 12): number {
    this.render(true);
    const target = hueOf(
      Number.parseInt(colour.slice(1, 3), 16),
      Number.parseInt(colour.slice(3, 5), 16),
      Number.parseInt(colour.slice(5, 7), 16),
    );
    const src = this.renderer.domElement;
    const c = document.createElement('canvas');
    c.width = 320;
    c.height = Math.max(1, Math.round((320 * src.height) / src.width));
    const ctx = c.getContext('2d')!;
    ctx.drawImage(src, 0, 0, c.width, c.height);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) {
      const h = hueOf(px[i], px[i + 1], px[i + 2]);
      if (h.s < 0.35 || h.v < 0.08) continue;
      const d = Math.abs(h.h - target.h);
      if (Math.min(d, 360 - d) <= hueTol) n++;
    }
    return n;
  }

  /** Builds the meshes for a skeleton; `size` is a typical body size in file units (for radii and grid). */
  setSkeleton(parents: Int32Array, size: number): void {
    for (const o of [this.joints, this.bones, this.ghost]) {
      if (o) {
        this.scene.remove(o);
        o.geometry.dispose();
      }
    }
    this.parents = parents;
    const n = parents.length;
    this.jointRadius = size * 0.012;
    const sphere = new THREE.SphereGeometry(1, 12, 8);
    const mat = new THREE.MeshStandardMaterial({ roughness: 0.5, metalness: 0.1 });
    this.joints = new THREE.InstancedMesh(sphere, mat, n);
    this.joints.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    for (let j = 0; j < n; j++) this.joints.setColorAt(j, this.color.set(0xcfd6e0));
    this.scene.add(this.joints);
    const geo = new THREE.BufferGeometry();
    geo.setAttribute(
      'position',
      new THREE.BufferAttribute(new Float32Array(n * 6), 3).setUsage(THREE.DynamicDrawUsage),
    );
    this.bones = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: 0x5fb3ff }));
    this.bones.frustumCulled = false;
    this.scene.add(this.bones);
    const ghostGeo = new THREE.BufferGeometry();
    ghostGeo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(n * 6), 3));
    this.ghost = new THREE.LineSegments(
      ghostGeo,
      new THREE.LineBasicMaterial({ color: 0x8a93a3, transparent: true, opacity: 0.35 }),
    );
    this.ghost.frustumCulled = false;
    this.ghost.visible = false;
    this.scene.add(this.ghost);
    this.scene.remove(this.grid);
    this.grid.geometry.dispose();
    const grid = new THREE.GridHelper(1, 24, 0x3a4150, 0x262b33);
    this.grid = grid;
    this.scene.add(grid);
    this.selected = -1;
    this.applyOverlay();
  }

  /** Puts the ground grid at height y under the clip's centre. */
  setFloor(y: number, x: number, z: number, extent: number): void {
    this.grid.position.set(x, y, z);
    this.grid.scale.setScalar(extent);
    this.invalidate();
  }

  private readonly followAt = new THREE.Vector3(Number.NaN, 0, 0);

  /** Moves camera and orbit target with a point on the ground plane (the root), keeping the view angle. */
  follow(x: number, z: number): void {
    if (Number.isNaN(this.followAt.x)) this.followAt.set(x, 0, z);
    const dx = x - this.followAt.x;
    const dz = z - this.followAt.z;
    if (dx === 0 && dz === 0) return;
    this.camera.position.x += dx;
    this.camera.position.z += dz;
    this.controls.target.x += dx;
    this.controls.target.z += dz;
    this.controls.update();
    this.followAt.set(x, 0, z);
    this.invalidate();
  }

  /** Forgets the followed point (after framing or when following is switched on). */
  resetFollow(): void {
    this.followAt.set(Number.NaN, 0, 0);
  }

  /** Frames the camera on a bounding box (min, max). */
  frame(min: THREE.Vector3, max: THREE.Vector3): void {
    const centre = min.clone().add(max).multiplyScalar(0.5);
    const radius = Math.max(1e-6, max.clone().sub(min).length() * 0.5);
    this.controls.target.copy(centre);
    const dist = radius / Math.tan((this.camera.fov * Math.PI) / 360);
    this.camera.position
      .copy(centre)
      .add(new THREE.Vector3(0.55, 0.35, 1).normalize().multiplyScalar(dist * 1.1));
    this.camera.near = dist / 100;
    this.camera.far = dist * 100;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    this.resetFollow();
    this.invalidate();
  }

  /** Poses the skeleton from global joint positions (`joints x 3`), optionally with a faint ghost pose. */
  setPose(positions: ArrayLike<number>, ghost?: ArrayLike<number> | null): void {
    if (!this.joints || !this.bones || !this.ghost) return;
    this.lastPose = positions;
    const n = this.parents.length;
    const r = this.jointRadius;
    for (let j = 0; j < n; j++) {
      const s = j === this.selected ? r * 1.9 : r;
      this.matrix.makeScale(s, s, s);
      this.matrix.setPosition(positions[j * 3], positions[j * 3 + 1], positions[j * 3 + 2]);
      this.joints.setMatrixAt(j, this.matrix);
    }
    this.joints.instanceMatrix.needsUpdate = true;
    this.joints.computeBoundingSphere();
    writeBones(this.bones, this.parents, positions);
    this.ghost.visible = !!ghost;
    if (ghost) writeBones(this.ghost, this.parents, ghost);
    this.invalidate();
  }

  private lastPose: ArrayLike<number> = [];

  /** Client (page) coordinates of a joint in the last pose, for tests and tooltips. */
  screenOf(joint: number): { x: number; y: number } {
    const p = this.lastPose;
    const v = new THREE.Vector3(p[joint * 3], p[joint * 3 + 1], p[joint * 3 + 2]).project(this.camera);
    const r = this.renderer.domElement.getBoundingClientRect();
    return { x: r.left + ((v.x + 1) / 2) * r.width, y: r.top + ((1 - v.y) / 2) * r.height };
  }

  select(joint: number): void {
    if (!this.joints) return;
    if (this.selected >= 0) this.joints.setColorAt(this.selected, this.color.set(0xcfd6e0));
    this.selected = joint;
    if (joint >= 0) this.joints.setColorAt(joint, this.color.set(0xffb454));
    if (this.joints.instanceColor) this.joints.instanceColor.needsUpdate = true;
    this.invalidate();
  }

  private pick(e: PointerEvent): void {
    if (!this.joints) return;
    const rect = this.renderer.domElement.getBoundingClientRect();
    const p = new THREE.Vector2(
      ((e.clientX - rect.left) / rect.width) * 2 - 1,
      -((e.clientY - rect.top) / rect.height) * 2 + 1,
    );
    this.raycaster.setFromCamera(p, this.camera);
    const hit = this.raycaster.intersectObject(this.joints, false)[0];
    if (hit && hit.instanceId !== undefined) this.onPick?.(hit.instanceId);
  }

  /** Renders if something changed; returns true when it did. */
  render(force = false): boolean {
    if (!this.dirty && !force) return false;
    const t0 = performance.now();
    this.renderer.render(this.scene, this.camera);
    this.renderTimes.push(performance.now() - t0);
    if (this.renderTimes.length > 600) this.renderTimes.shift();
    this.dirty = false;
    return true;
  }

  /** Renders now and reports how many sampled pixels differ from the background (the e2e pixel check). */
  pixelStats(): { lit: number; total: number; colours: number } {
    this.render(true);
    const src = this.renderer.domElement;
    const c = document.createElement('canvas');
    c.width = 160;
    c.height = Math.max(1, Math.round((160 * src.height) / src.width));
    const ctx = c.getContext('2d')!;
    ctx.drawImage(src, 0, 0, c.width, c.height);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let lit = 0;
    const colours = new Set<number>();
    for (let i = 0; i < px.length; i += 4) {
      const d = Math.abs(px[i] - 0x10) + Math.abs(px[i + 1] - 0x12) + Math.abs(px[i + 2] - 0x16);
      if (d > 24) lit++;
      colours.add(((px[i] >> 3) << 10) | ((px[i + 1] >> 3) << 5) | (px[i + 2] >> 3));
    }
    return { lit, total: px.length / 4, colours: colours.size };
  }
}

/** Hue (degrees), saturation and value of an sRGB colour (0..255 components). */
function hueOf(r: number, g: number, b: number): { h: number; s: number; v: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
  }
  return { h: (h * 60 + 360) % 360, s: max ? d / max : 0, v: max / 255 };
}

function writeBones(lines: THREE.LineSegments, parents: Int32Array, pos: ArrayLike<number>): void {
  const attr = lines.geometry.getAttribute('position') as THREE.BufferAttribute;
  const a = attr.array as Float32Array;
  const n = parents.length;
  for (let j = 0; j < n; j++) {
    const p = parents[j] < 0 ? j : parents[j];
    a[j * 6] = pos[p * 3];
    a[j * 6 + 1] = pos[p * 3 + 1];
    a[j * 6 + 2] = pos[p * 3 + 2];
    a[j * 6 + 3] = pos[j * 3];
    a[j * 6 + 4] = pos[j * 3 + 1];
    a[j * 6 + 5] = pos[j * 3 + 2];
  }
  attr.needsUpdate = true;
}
