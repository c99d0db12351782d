// An evaluator of glTF animation kept apart from rotsig's code, written from the glTF 2.0 specification
// (modelled on scripts/gltf_object_error.py): GLB chunks split by the test support's parseGlb, accessors decoded here (normalised integers
// by the specification's formulas), STEP/LINEAR sampling (slerp on the shorter arc, rotations
// normalised), forward kinematics T·R·S from the scene roots, and six virtual vertices per moving node
// at ±shell along each local axis, in scene units at the node's rest world scale.
import { parseGlb } from './gltf-seam.js';

/** A node's world transform: 3x3 linear part (row-major) and origin. */
interface World {
  m: number[];
  p: number[];
}

interface Channel {
  node: number;
  path: 'translation' | 'rotation' | 'scale';
  times: number[];
  values: number[];
  width: number;
  step: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: the glTF JSON is read field by field, as the spec names them
type Json = any;

const COMPONENT: Record<number, [number, (v: DataView, o: number) => number]> = {
  5120: [1, (v, o) => v.getInt8(o)],
  5121: [1, (v, o) => v.getUint8(o)],
  5122: [2, (v, o) => v.getInt16(o, true)],
  5123: [2, (v, o) => v.getUint16(o, true)],
  5125: [4, (v, o) => v.getUint32(o, true)],
  5126: [4, (v, o) => v.getFloat32(o, true)],
};
const WIDTH: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };

/** A glTF asset as a player sees it: nodes, parents, one animation's channels. */
export class Player {
  readonly json: Json;
  readonly parent: number[];
  readonly order: number[];
  readonly channels: Channel[] = [];
  /** Sum of the animation's key counts. */
  readonly keys: number;

  constructor(glb: Uint8Array, animation = 0) {
    const { json, bin } = parseGlb(glb) as { json: Json; bin: Uint8Array };
    this.json = json;
    const nodes: Json[] = json.nodes ?? [];
    this.parent = nodes.map(() => -1);
    nodes.forEach((n, i) => {
      for (const c of n.children ?? []) this.parent[c] = i;
    });
    this.order = [];
    const visit = nodes.map((_, i) => i).filter((i) => this.parent[i] < 0);
    while (visit.length) {
      const i = visit.shift() as number;
      this.order.push(i);
      visit.push(...(nodes[i].children ?? []));
    }
    const anim = json.animations[animation];
    let keys = 0;
    for (const ch of anim.channels) {
      const path = ch.target.path;
      if (ch.target.node === undefined || path === 'weights') continue;
      const sampler = anim.samplers[ch.sampler];
      const times = accessor(json, bin, sampler.input);
      const values = accessor(json, bin, sampler.output);
      const interpolation = sampler.interpolation ?? 'LINEAR';
      if (interpolation === 'CUBICSPLINE') throw new Error('this evaluator plays STEP and LINEAR only');
      keys += times.length;
      this.channels.push({
        node: ch.target.node,
        path,
        times,
        values,
        width: path === 'rotation' ? 4 : 3,
        step: interpolation === 'STEP',
      });
    }
    this.keys = keys;
  }

  /** The sorted union of the animation's key times. */
  keyTimes(): number[] {
    const s = new Set<number>();
    for (const c of this.channels) for (const t of c.times) s.add(t);
    return [...s].sort((a, b) => a - b);
  }

  /** Nodes an animation channel targets, and every node below them: what the animation moves. */
  moving(): number[] {
    const moved = new Set(this.channels.map((c) => c.node));
    for (const i of this.order) if (this.parent[i] >= 0 && moved.has(this.parent[i])) moved.add(i);
    return this.order.filter((i) => moved.has(i));
  }

  /** World transforms of every node at time `t` (`rest`: the nodes' own TRS, no animation). */
  world(t: number, rest = false): World[] {
    const nodes: Json[] = this.json.nodes;
    const anim = new Map<number, Record<string, number[]>>();
    if (!rest)
      for (const c of this.channels) {
        const a = anim.get(c.node) ?? {};
        a[c.path] = sample(c, t);
        anim.set(c.node, a);
      }
    const out: World[] = new Array(nodes.length);
    for (const i of this.order) {
      const n = nodes[i];
      if (n.matrix) throw new Error('this evaluator reads TRS nodes only');
      const a = anim.get(i) ?? {};
      const tr = a.translation ?? n.translation ?? [0, 0, 0];
      const r = a.rotation ?? n.rotation ?? [0, 0, 0, 1];
      const s = a.scale ?? n.scale ?? [1, 1, 1];
      const R = rotationMatrix(r);
      const L = [0, 1, 2].flatMap((row) => [0, 1, 2].map((col) => R[row * 3 + col] * s[col]));
      const up = this.parent[i];
      if (up < 0) out[i] = { m: L, p: [...tr] };
      else {
        const P = out[up];
        const m = new Array(9).fill(0);
        for (let row = 0; row < 3; row++)
          for (let col = 0; col < 3; col++)
            for (let k = 0; k < 3; k++) m[row * 3 + col] += P.m[row * 3 + k] * L[k * 3 + col];
        const p = [0, 1, 2].map(
          (row) => P.p[row] + P.m[row * 3] * tr[0] + P.m[row * 3 + 1] * tr[1] + P.m[row * 3 + 2] * tr[2],
        );
        out[i] = { m, p };
      }
    }
    return out;
  }
}

function accessor(json: Json, bin: Uint8Array, index: number): number[] {
  const acc = json.accessors[index];
  const [size, read] = COMPONENT[acc.componentType];
  const width = WIDTH[acc.type];
  const view = json.bufferViews[acc.bufferView];
  if (view.buffer !== 0 || json.buffers[0].uri !== undefined) throw new Error('GLB buffer 0 only');
  const data = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  const start = (view.byteOffset ?? 0) + (acc.byteOffset ?? 0);
  const stride = view.byteStride ?? size * width;
  const out: number[] = [];
  for (let i = 0; i < acc.count; i++)
    for (let c = 0; c < width; c++) {
      let v = read(data, start + i * stride + c * size);
      // glTF 2.0, "Animation samplers": normalised integers, max(c / (2^(n-1) - 1), -1) when signed
      if (acc.normalized) {
        if (acc.componentType === 5120) v = Math.max(v / 127, -1);
        else if (acc.componentType === 5122) v = Math.max(v / 32767, -1);
        else if (acc.componentType === 5121) v /= 255;
        else if (acc.componentType === 5123) v /= 65535;
      }
      out.push(v);
    }
  return out;
}

function sample(c: Channel, t: number): number[] {
  const { times, values, width } = c;
  const n = times.length;
  const at = (k: number) => values.slice(k * width, (k + 1) * width);
  let v: number[];
  if (n === 1 || t <= times[0]) v = at(0);
  else if (t >= times[n - 1]) v = at(n - 1);
  else {
    let k = 0;
    while (times[k + 1] <= t) k++;
    const u = (t - times[k]) / (times[k + 1] - times[k]);
    if (c.step) v = at(k);
    else if (c.path === 'rotation') v = slerp(normalised(at(k)), normalised(at(k + 1)), u);
    else v = at(k).map((x, i) => x * (1 - u) + values[(k + 1) * width + i] * u);
  }
  return c.path === 'rotation' ? normalised(v) : v;
}

function normalised(q: number[]): number[] {
  const l = Math.hypot(...q);
  return q.map((x) => x / l);
}

function slerp(a: number[], b0: number[], u: number): number[] {
  let d = a[0] * b0[0] + a[1] * b0[1] + a[2] * b0[2] + a[3] * b0[3];
  const b = d < 0 ? b0.map((x) => -x) : b0;
  d = Math.min(1, Math.abs(d));
  const theta = Math.acos(d);
  if (theta < 1e-12) return normalised(a.map((x, i) => x * (1 - u) + b[i] * u));
  const s = Math.sin(theta);
  return normalised(a.map((x, i) => (Math.sin((1 - u) * theta) * x + Math.sin(u * theta) * b[i]) / s));
}

function rotationMatrix(q0: number[]): number[] {
  const [x, y, z, w] = normalised(q0);
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y - z * w),
    2 * (x * z + y * w),
    2 * (x * y + z * w),
    1 - 2 * (x * x + z * z),
    2 * (y * z - x * w),
    2 * (x * z - y * w),
    2 * (y * z + x * w),
    1 - 2 * (x * x + y * y),
  ];
}

/**
 * Largest displacement between two files' plays of six virtual vertices per moving node of `a` (nodes
 * matched by index), at `times` (default: `a`'s key times). The vertices sit at ±shell along each local
 * axis, scaled so they are `shell` scene units from the node at its rest world scale: local offset
 * `shell / |column k of the rest world linear part|`.
 */
export function sceneObjectError(
  a: Player,
  b: Player,
  shell: number,
  times: number[] = a.keyTimes(),
  nodes: number[] = a.moving(),
): { max: number; at: { node: number; time: number } } {
  const rest = a.world(0, true);
  const offsets = nodes.map((i) =>
    [0, 1, 2].map((k) => shell / Math.hypot(rest[i].m[k], rest[i].m[3 + k], rest[i].m[6 + k])),
  );
  let max = 0;
  let at = { node: -1, time: Number.NaN };
  for (const t of times) {
    const wa = a.world(t);
    const wb = b.world(t);
    nodes.forEach((i, n) => {
      for (let k = 0; k < 6; k++) {
        const axis = k >> 1;
        const r = k & 1 ? -offsets[n][axis] : offsets[n][axis];
        let e2 = 0;
        for (let row = 0; row < 3; row++) {
          const d = wa[i].p[row] - wb[i].p[row] + (wa[i].m[row * 3 + axis] - wb[i].m[row * 3 + axis]) * r;
          e2 += d * d;
        }
        if (Math.sqrt(e2) > max) {
          max = Math.sqrt(e2);
          at = { node: i, time: t };
        }
      }
    });
  }
  return { max, at };
}
