// An independent glTF evaluator for loop tests, written from the glTF 2.0 specification (section 3.11,
// "Animations", and appendix "Interpolation"), not from rotsig's code: GLB and accessors parsed by hand,
// samplers evaluated (STEP, LINEAR with slerp for rotations), node transforms composed from the scene roots.
import { readFileSync } from 'node:fs';

interface Json {
  nodes?: {
    children?: number[];
    translation?: number[];
    rotation?: number[];
    scale?: number[];
    matrix?: number[];
  }[];
  scenes?: { nodes?: number[] }[];
  scene?: number;
  skins?: { joints: number[] }[];
  animations?: {
    name?: string;
    channels: { sampler: number; target: { node?: number; path: string } }[];
    samplers: { input: number; output: number; interpolation?: string }[];
  }[];
  accessors?: {
    bufferView?: number;
    byteOffset?: number;
    componentType: number;
    normalized?: boolean;
    count: number;
    type: string;
    sparse?: unknown;
  }[];
  bufferViews?: { buffer: number; byteOffset?: number; byteLength: number; byteStride?: number }[];
  buffers?: { uri?: string; byteLength: number }[];
}

/** A parsed GLB: its JSON and binary chunk. */
export interface Glb {
  json: Json;
  bin: Uint8Array;
}

/** Parses a GLB file (header, JSON chunk, BIN chunk) by the specification's layout. */
export function parseGlb(bytes: Uint8Array): Glb {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0x46546c67) throw new Error('not a GLB');
  let at = 12;
  let json: Json | undefined;
  let bin: Uint8Array = new Uint8Array(0);
  while (at < bytes.byteLength) {
    const length = view.getUint32(at, true);
    const type = view.getUint32(at + 4, true);
    const chunk = bytes.subarray(at + 8, at + 8 + length);
    if (type === 0x4e4f534a) json = JSON.parse(new TextDecoder().decode(chunk)) as Json;
    else if (type === 0x004e4942) bin = chunk;
    at += 8 + length;
  }
  if (json === undefined) throw new Error('GLB without JSON');
  return { json, bin };
}

/** Reads a GLB file. */
export function readGlb(path: string): Glb {
  return parseGlb(new Uint8Array(readFileSync(path)));
}

const WIDTH: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
const SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

/** An accessor's elements as floats (normalized integers mapped as the specification says). */
export function accessor(glb: Glb, index: number): { data: Float64Array; width: number } {
  const a = glb.json.accessors![index];
  if (a.sparse !== undefined) throw new Error('sparse accessors are not needed here');
  const width = WIDTH[a.type];
  const size = SIZE[a.componentType];
  const bv = glb.json.bufferViews![a.bufferView!];
  const stride = bv.byteStride ?? width * size;
  const base = (bv.byteOffset ?? 0) + (a.byteOffset ?? 0);
  const view = new DataView(glb.bin.buffer, glb.bin.byteOffset, glb.bin.byteLength);
  const data = new Float64Array(a.count * width);
  for (let i = 0; i < a.count; i++)
    for (let c = 0; c < width; c++) {
      const o = base + i * stride + c * size;
      let v: number;
      switch (a.componentType) {
        case 5126:
          v = view.getFloat32(o, true);
          break;
        case 5120:
          v = a.normalized ? Math.max(view.getInt8(o) / 127, -1) : view.getInt8(o);
          break;
        case 5121:
          v = a.normalized ? view.getUint8(o) / 255 : view.getUint8(o);
          break;
        case 5122:
          v = a.normalized ? Math.max(view.getInt16(o, true) / 32767, -1) : view.getInt16(o, true);
          break;
        case 5123:
          v = a.normalized ? view.getUint16(o, true) / 65535 : view.getUint16(o, true);
          break;
        default:
          v = view.getUint32(o, true);
      }
      data[i * width + c] = v;
    }
  return { data, width };
}

/** A sampler's value at time `t` (clamped to its keys): STEP, or LINEAR with slerp for 4-wide rotations. */
function sample(
  times: Float64Array,
  values: Float64Array,
  width: number,
  interpolation: string,
  rotation: boolean,
  t: number,
): number[] {
  const n = times.length;
  const at = (k: number) => Array.from(values.subarray(k * width, (k + 1) * width));
  if (interpolation === 'CUBICSPLINE') throw new Error('CUBICSPLINE is not needed here');
  if (t <= times[0]) return at(0);
  if (t >= times[n - 1]) return at(n - 1);
  let k = 0;
  while (k + 1 < n && times[k + 1] <= t) k++;
  if (interpolation === 'STEP') return at(k);
  const u = (t - times[k]) / (times[k + 1] - times[k]);
  const a = at(k);
  const b = at(k + 1);
  if (!rotation) return a.map((x, i) => x + u * (b[i] - x));
  // slerp along the shorter arc (specification, appendix "Interpolation": spherical linear interpolation)
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = d < 0 ? -1 : 1;
  d = Math.abs(d);
  if (d > 1 - 1e-12) return a.map((x, i) => x + u * (s * b[i] - x));
  const theta = Math.acos(d);
  const wa = Math.sin((1 - u) * theta) / Math.sin(theta);
  const wb = (s * Math.sin(u * theta)) / Math.sin(theta);
  return a.map((x, i) => wa * x + wb * b[i]);
}

type Mat = Float64Array;

function trs(t: number[], r: number[], s: number[]): Mat {
  const [x, y, z, w] = r;
  const n = Math.hypot(x, y, z, w);
  const [qx, qy, qz, qw] = [x / n, y / n, z / n, w / n];
  const m = new Float64Array(16);
  // column-major, as glTF stores matrices
  m[0] = (1 - 2 * (qy * qy + qz * qz)) * s[0];
  m[1] = 2 * (qx * qy + qz * qw) * s[0];
  m[2] = 2 * (qx * qz - qy * qw) * s[0];
  m[4] = 2 * (qx * qy - qz * qw) * s[1];
  m[5] = (1 - 2 * (qx * qx + qz * qz)) * s[1];
  m[6] = 2 * (qy * qz + qx * qw) * s[1];
  m[8] = 2 * (qx * qz + qy * qw) * s[2];
  m[9] = 2 * (qy * qz - qx * qw) * s[2];
  m[10] = (1 - 2 * (qx * qx + qy * qy)) * s[2];
  m[12] = t[0];
  m[13] = t[1];
  m[14] = t[2];
  m[15] = 1;
  return m;
}

function mul(a: Mat, b: Mat): Mat {
  const m = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
      m[c * 4 + r] = v;
    }
  return m;
}

/** The time range an animation's channels span (min first key, max last key). */
export function animationRange(glb: Glb, animation: number): { start: number; end: number } {
  const anim = glb.json.animations![animation];
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const ch of anim.channels) {
    const times = accessor(glb, anim.samplers[ch.sampler].input).data;
    start = Math.min(start, times[0]);
    end = Math.max(end, times[times.length - 1]);
  }
  return { start, end };
}

/** Key times of the first channel of an animation. */
export function channelTimes(glb: Glb, animation: number, channel = 0): Float64Array {
  const anim = glb.json.animations![animation];
  return accessor(glb, anim.samplers[anim.channels[channel].sampler].input).data;
}

/**
 * World positions (scene space, every node of the default scene, node order) of the pose an animation
 * gives at time `t`: each animated node's translation, rotation and scale sampled, the others at rest.
 */
export function worldPositions(glb: Glb, animation: number, t: number): Map<number, number[]> {
  const json = glb.json;
  const nodes = json.nodes ?? [];
  const local = nodes.map((n) => ({
    t: n.translation ?? [0, 0, 0],
    r: n.rotation ?? [0, 0, 0, 1],
    s: n.scale ?? [1, 1, 1],
  }));
  const anim = json.animations![animation];
  for (const ch of anim.channels) {
    const node = ch.target.node;
    if (node === undefined || ch.target.path === 'weights') continue;
    const sm = anim.samplers[ch.sampler];
    const times = accessor(glb, sm.input).data;
    const out = accessor(glb, sm.output);
    const v = sample(
      times,
      out.data,
      out.width,
      sm.interpolation ?? 'LINEAR',
      ch.target.path === 'rotation',
      t,
    );
    if (ch.target.path === 'translation') local[node].t = v;
    else if (ch.target.path === 'rotation') local[node].r = v;
    else if (ch.target.path === 'scale') local[node].s = v;
  }
  const positions = new Map<number, number[]>();
  const visit = (i: number, parent: Mat) => {
    const n = nodes[i];
    const own = n.matrix ? Float64Array.from(n.matrix) : trs(local[i].t, local[i].r, local[i].s);
    const world = mul(parent, own);
    positions.set(i, [world[12], world[13], world[14]]);
    for (const c of n.children ?? []) visit(c, world);
  };
  const identity = trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
  const scene = json.scenes?.[json.scene ?? 0];
  const roots =
    scene?.nodes ?? nodes.map((_, i) => i).filter((i) => !nodes.some((n) => n.children?.includes(i)));
  for (const r of roots) visit(r, identity);
  return positions;
}

/**
 * The seam of an animation: the largest distance, over the joints of every skin (every node when there
 * is no skin), between a joint's world position at the animation's last time and at its first, in scene units.
 */
export function seam(glb: Glb, animation: number): number {
  const { start, end } = animationRange(glb, animation);
  const a = worldPositions(glb, animation, start);
  const b = worldPositions(glb, animation, end);
  const skins = glb.json.skins ?? [];
  const joints = skins.length > 0 ? [...new Set(skins.flatMap((s) => s.joints))] : [...a.keys()];
  let worst = 0;
  for (const j of joints) {
    const p = a.get(j);
    const q = b.get(j);
    if (p === undefined || q === undefined) continue;
    worst = Math.max(worst, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
  }
  return worst;
}

/** Index of the animation named `name`. */
export function animationIndex(glb: Glb, name: string): number {
  const i = (glb.json.animations ?? []).findIndex((a) => a.name === name);
  if (i < 0) throw new Error(`no animation '${name}'`);
  return i;
}
