// An independent glTF 2.0 reader and animation evaluator for tests, written from the specification
// (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html: "Binary glTF", "Accessors", "Animations",
// "Appendix C: Interpolation"), sharing no code with rotsig: it checks what rotsig writes.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseGlb } from './gltf-seam.js';

/** A parsed file: its JSON and its buffers' bytes. */
export interface RefGltf {
  // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
  json: any;
  buffers: Uint8Array[];
}

/** One animation channel with its sampler's data, decoded. */
export interface RefChannel {
  node: number;
  path: 'translation' | 'rotation' | 'scale' | 'weights';
  interpolation: 'STEP' | 'LINEAR' | 'CUBICSPLINE';
  /** Key times exactly as stored (float32). */
  times: Float32Array;
  /** Values as numbers (normalized integers decoded); CUBICSPLINE: in-tangent, value, out-tangent per key. */
  values: Float64Array;
  /** Components per value (4 rotation, 3 translation/scale, targets for weights). */
  width: number;
}

/** One animation: name and channels. */
export interface RefAnimation {
  name: string;
  channels: RefChannel[];
}

/** Reads a .glb or a .gltf (buffers as data URIs or files beside it). */
export function loadGltf(path: string): RefGltf {
  const bytes = new Uint8Array(readFileSync(path));
  if (new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === 0x46546c67) {
    // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
    const { json, bin } = parseGlb(bytes) as { json: any; bin: Uint8Array };
    const buffers = (json.buffers ?? []).map((b: { uri?: string }) =>
      b.uri === undefined ? bin : uriBytes(b.uri, dirname(path)),
    );
    return { json, buffers };
  }
  const json = JSON.parse(new TextDecoder().decode(bytes));
  const buffers = (json.buffers ?? []).map((b: { uri: string }) => uriBytes(b.uri, dirname(path)));
  return { json, buffers };
}

function uriBytes(uri: string, dir: string): Uint8Array {
  const m = /^data:[^,]*;base64,(.*)$/s.exec(uri);
  if (m) return new Uint8Array(Buffer.from(m[1], 'base64'));
  return new Uint8Array(readFileSync(join(dir, decodeURIComponent(uri))));
}

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
const SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

function component(view: DataView, at: number, type: number, normalized: boolean): number {
  switch (type) {
    case 5126:
      return view.getFloat32(at, true);
    case 5120: {
      const c = view.getInt8(at);
      return normalized ? Math.max(c / 127, -1) : c;
    }
    case 5121: {
      const c = view.getUint8(at);
      return normalized ? c / 255 : c;
    }
    case 5122: {
      const c = view.getInt16(at, true);
      return normalized ? Math.max(c / 32767, -1) : c;
    }
    case 5123: {
      const c = view.getUint16(at, true);
      return normalized ? c / 65535 : c;
    }
    default:
      return view.getUint32(at, true);
  }
}

/** An accessor's elements as numbers (byteStride, normalization and sparse substitution applied). */
export function readAccessor(doc: RefGltf, index: number): { data: Float64Array; width: number } {
  const a = doc.json.accessors[index];
  const width = COMPONENTS[a.type];
  const data = new Float64Array(a.count * width);
  const normalized = a.normalized === true;
  if (a.bufferView !== undefined) {
    const bv = doc.json.bufferViews[a.bufferView];
    const buf = doc.buffers[bv.buffer];
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const stride = bv.byteStride ?? width * SIZE[a.componentType];
    const base = (bv.byteOffset ?? 0) + (a.byteOffset ?? 0);
    for (let i = 0; i < a.count; i++)
      for (let c = 0; c < width; c++)
        data[i * width + c] = component(
          view,
          base + i * stride + c * SIZE[a.componentType],
          a.componentType,
          normalized,
        );
  }
  if (a.sparse) {
    const s = a.sparse;
    const ib = doc.json.bufferViews[s.indices.bufferView];
    const vb = doc.json.bufferViews[s.values.bufferView];
    const ibuf = doc.buffers[ib.buffer];
    const vbuf = doc.buffers[vb.buffer];
    const iv = new DataView(ibuf.buffer, ibuf.byteOffset, ibuf.byteLength);
    const vv = new DataView(vbuf.buffer, vbuf.byteOffset, vbuf.byteLength);
    for (let k = 0; k < s.count; k++) {
      const i = component(
        iv,
        (ib.byteOffset ?? 0) + (s.indices.byteOffset ?? 0) + k * SIZE[s.indices.componentType],
        s.indices.componentType,
        false,
      );
      for (let c = 0; c < width; c++)
        data[i * width + c] = component(
          vv,
          (vb.byteOffset ?? 0) + (s.values.byteOffset ?? 0) + (k * width + c) * SIZE[a.componentType],
          a.componentType,
          normalized,
        );
    }
  }
  return { data, width };
}

/** Every animation of the file with its channels decoded (channels without a node are left out). */
export function animationsOf(doc: RefGltf): RefAnimation[] {
  return (doc.json.animations ?? []).map(
    // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
    (a: any, i: number): RefAnimation => ({
      name: a.name ?? `animation ${i}`,
      channels: a.channels
        // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
        .filter((c: any) => c.target.node !== undefined)
        // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
        .map((c: any): RefChannel => {
          const s = a.samplers[c.sampler];
          const times = Float32Array.from(readAccessor(doc, s.input).data);
          const out = readAccessor(doc, s.output);
          const interpolation = s.interpolation ?? 'LINEAR';
          const per = interpolation === 'CUBICSPLINE' ? 3 : 1;
          const width = out.data.length / Math.max(1, times.length * per);
          return { node: c.target.node, path: c.target.path, interpolation, times, values: out.data, width };
        })
        .filter((c: RefChannel) => c.times.length > 0),
    }),
  );
}

/** The channel's value at time `t` (clamped outside its keys), by the specification's interpolation. */
export function sampleChannel(ch: RefChannel, t: number): number[] {
  const { times, values, width } = ch;
  const n = times.length;
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const value = (k: number) => {
    const at = cubic ? (3 * k + 1) * width : k * width;
    return Array.from(values.subarray(at, at + width));
  };
  if (t <= times[0] || n === 1) return norm(ch, value(0));
  if (t >= times[n - 1]) return norm(ch, value(n - 1));
  let k = 0;
  while (k + 1 < n - 1 && times[k + 1] <= t) k++;
  const t0 = times[k];
  const t1 = times[k + 1];
  const td = t1 - t0;
  const s = (t - t0) / td;
  if (ch.interpolation === 'STEP') return norm(ch, value(k));
  const a = value(k);
  const b = value(k + 1);
  if (ch.interpolation === 'LINEAR') {
    if (ch.path === 'rotation') return slerp(a, b, s);
    return a.map((x, c) => x + s * (b[c] - x));
  }
  // Appendix C, cubic Hermite: v_k, out-tangent b_k of key k, in-tangent a_{k+1} of key k+1, scaled by td
  const outT = Array.from(values.subarray((3 * k + 2) * width, (3 * k + 3) * width));
  const inT = Array.from(values.subarray(3 * (k + 1) * width, (3 * (k + 1) + 1) * width));
  const s2 = s * s;
  const s3 = s2 * s;
  const r = a.map(
    (x, c) =>
      (2 * s3 - 3 * s2 + 1) * x +
      td * (s3 - 2 * s2 + s) * outT[c] +
      (-2 * s3 + 3 * s2) * b[c] +
      td * (s3 - s2) * inT[c],
  );
  return norm(ch, r);
}

function norm(ch: RefChannel, v: number[]): number[] {
  if (ch.path !== 'rotation') return v;
  const l = Math.hypot(v[0], v[1], v[2], v[3]);
  return v.map((x) => x / l);
}

/** Spherical linear interpolation on the shorter arc (the specification's slerp). */
export function slerp(a: number[], b0: number[], s: number): number[] {
  const la = Math.hypot(a[0], a[1], a[2], a[3]);
  const lb = Math.hypot(b0[0], b0[1], b0[2], b0[3]);
  const qa = a.map((x) => x / la);
  let qb = b0.map((x) => x / lb);
  let d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
  if (d < 0) {
    qb = qb.map((x) => -x);
    d = -d;
  }
  if (d > 1 - 1e-12)
    return norm(
      { path: 'rotation' } as RefChannel,
      qa.map((x, c) => x + s * (qb[c] - x)),
    );
  const theta = Math.acos(Math.min(1, d));
  const sn = Math.sin(theta);
  const wa = Math.sin((1 - s) * theta) / sn;
  const wb = Math.sin(s * theta) / sn;
  return qa.map((x, c) => wa * x + wb * qb[c]);
}

/** Column-major 4x4 from T, R (x, y, z, w), S, as glTF composes them: T·R·S. */
export function trs(t: number[], q: number[], s: number[]): Float64Array {
  const [x, y, z, w] = q;
  const m = new Float64Array(16);
  const r = [
    1 - 2 * (y * y + z * z),
    2 * (x * y + z * w),
    2 * (x * z - y * w),
    2 * (x * y - z * w),
    1 - 2 * (x * x + z * z),
    2 * (y * z + x * w),
    2 * (x * z + y * w),
    2 * (y * z - x * w),
    1 - 2 * (x * x + y * y),
  ];
  for (let c = 0; c < 3; c++) for (let row = 0; row < 3; row++) m[c * 4 + row] = r[c * 3 + row] * s[c];
  m[12] = t[0];
  m[13] = t[1];
  m[14] = t[2];
  m[15] = 1;
  return m;
}

function mul(a: Float64Array, b: Float64Array): Float64Array {
  const m = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
      m[c * 4 + r] = v;
    }
  return m;
}

/** Each node's parent (-1 for roots). */
export function parentsOf(doc: RefGltf): Int32Array {
  const nodes = doc.json.nodes ?? [];
  const parents = new Int32Array(nodes.length).fill(-1);
  nodes.forEach((n: { children?: number[] }, i: number) => {
    for (const c of n.children ?? []) parents[c] = i;
  });
  return parents;
}

/**
 * Forward kinematics: every node's world matrix (column-major 4x4) at time `t` with `animation`'s
 * channels overriding the nodes' own TRS (a node given by `matrix` and animated is decomposed by its TRS
 * defaults, which the specification forbids, so such files do not occur).
 */
export function worldMatrices(doc: RefGltf, animation: RefAnimation | null, t: number): Float64Array[] {
  // biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
  const nodes: any[] = doc.json.nodes ?? [];
  const local = nodes.map((n) => ({
    t: n.translation ?? [0, 0, 0],
    r: n.rotation ?? [0, 0, 0, 1],
    s: n.scale ?? [1, 1, 1],
    m: n.matrix as number[] | undefined,
  }));
  for (const ch of animation?.channels ?? []) {
    if (ch.path === 'weights') continue;
    const v = sampleChannel(ch, t);
    const l = local[ch.node];
    if (ch.path === 'translation') l.t = v;
    else if (ch.path === 'rotation') l.r = v;
    else l.s = v;
    l.m = undefined;
  }
  const parents = parentsOf(doc);
  const world: Float64Array[] = new Array(nodes.length);
  const get = (i: number): Float64Array => {
    if (world[i]) return world[i];
    const l = local[i];
    const m = l.m ? Float64Array.from(l.m) : trs(l.t, l.r, l.s);
    world[i] = parents[i] < 0 ? m : mul(get(parents[i]), m);
    return world[i];
  };
  for (let i = 0; i < nodes.length; i++) get(i);
  return world;
}

/** The point `p` (x, y, z) transformed by the column-major matrix `m`. */
export function transformPoint(m: Float64Array, p: number[]): number[] {
  return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}

/** Angle (radians) between two rotations, sign-blind. */
export function rotationAngle(a: number[], b: number[]): number {
  const la = Math.hypot(a[0], a[1], a[2], a[3]);
  const lb = Math.hypot(b[0], b[1], b[2], b[3]);
  const d = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) / (la * lb);
  return 2 * Math.acos(Math.min(1, d));
}
