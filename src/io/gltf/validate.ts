// Structural checks and size limits of glTF JSON, run by the reader before glTF-Transform sees the file.
import type { GLTF } from '@gltf-transform/core';
import { GltfError, type GltfLocation } from './errors.js';
import { EXT_MESHOPT_COMPRESSION } from './meshopt.js';

/**
 * Default of `ReadGltfOptions.maxBytes`: 256 MiB that the reader may allocate for data the file does
 * not hold byte for byte.
 */
export const GLTF_MAX_BYTES = 2 ** 28;

/** Values per element of each glTF accessor type. */
export const ELEMENT_SIZE: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
};
/** Bytes per component of each glTF component type (5120 BYTE ... 5126 FLOAT). */
export const COMPONENT_BYTES: Record<number, number> = {
  5120: 1,
  5121: 1,
  5122: 2,
  5123: 2,
  5125: 4,
  5126: 4,
};

type Json = Record<string, unknown>;

/** A checker bound to one file: each failure is a {@link GltfError} whose message starts with the JSON path. */
class Checker {
  /** The animation and channel being checked, for the error's location fields. */
  at: GltfLocation = {};
  constructor(private readonly file: string | undefined) {}

  fail(path: string, message: string, code = 'gltf'): never {
    throw new GltfError(`${path} ${message}`, { file: this.file, ...this.at, jsonPath: path }, code);
  }

  /** `value` as an array of objects (an absent `value` is `[]` unless `required`). */
  objects(value: unknown, path: string, required = false): Json[] {
    if (value === undefined && !required) return [];
    if (!Array.isArray(value)) this.fail(path, `is ${describe(value)}, not an array`);
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === null || typeof item !== 'object' || Array.isArray(item))
        this.fail(`${path}[${i}]`, `is ${describe(item)}, not an object`);
    }
    return value as Json[];
  }

  /** An optional object (`{}` when absent). */
  object(value: unknown, path: string, required = false): Json {
    if (value === undefined && !required) return {};
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      this.fail(path, `is ${describe(value)}, not an object`);
    return value as Json;
  }

  /** An optional index into a list of `length` items (`undefined` when absent). */
  index(value: unknown, path: string, length: number, what: string, required = false): number | undefined {
    if (value === undefined && !required) return undefined;
    if (!Number.isInteger(value)) this.fail(path, `is ${describe(value)}, not an index`, 'gltf-target');
    if (!((value as number) >= 0 && (value as number) < length))
      this.fail(
        path,
        `is ${value}: there is no ${what} ${value} (${length ? `${plural(what)} 0 to ${length - 1}` : `no ${plural(what)}`})`,
        'gltf-target',
      );
    return value as number;
  }

  /** An optional integer in `[min, max]` (`fallback` when absent). */
  integer(value: unknown, path: string, min: number, max: number, fallback: number, code = 'gltf'): number {
    if (value === undefined) return fallback;
    if (!(Number.isInteger(value) && (value as number) >= min && (value as number) <= max))
      this.fail(path, `is ${describe(value)}, not an integer from ${min} to ${max}`, code);
    return value as number;
  }

  /** An optional array of `length` finite numbers (any length when `length` is 0). */
  numbers(value: unknown, path: string, length: number): void {
    if (value === undefined) return;
    if (!Array.isArray(value) || (length > 0 && value.length !== length))
      this.fail(path, `is ${describe(value)}, not an array of ${length || 'some'} numbers`);
    for (let i = 0; i < value.length; i++)
      if (!(typeof value[i] === 'number' && Number.isFinite(value[i])))
        this.fail(`${path}[${i}]`, `is ${describe(value[i])}, not a finite number`);
  }

  string(value: unknown, path: string): void {
    if (value !== undefined && typeof value !== 'string')
      this.fail(path, `is ${describe(value)}, not a string`);
  }
}

function plural(what: string): string {
  return what.endsWith('sh') ? `${what}es` : `${what}s`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return `'${value.length > 40 ? `${value.slice(0, 40)}...` : value}'`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

const TEXTURE_INFOS = [
  ['pbrMetallicRoughness', 'baseColorTexture'],
  ['pbrMetallicRoughness', 'metallicRoughnessTexture'],
  ['', 'normalTexture'],
  ['', 'occlusionTexture'],
  ['', 'emissiveTexture'],
] as const;

/**
 * Checks the structure of glTF JSON against the glTF 2.0 schema where the reader or glTF-Transform
 * would otherwise fail untyped, loop or read out of place: every top-level list an array of objects,
 * every index an integer naming an existing item, `byteOffset`, `byteLength`, `byteStride` and `count`
 * integers in range (never negative), node transforms arrays of finite numbers (`null` is refused),
 * animations with `channels` and `samplers` arrays, and the node hierarchy a forest: no node its own
 * child, no node with two parents, no cycle of any length (walked iteratively, so any depth is read).
 *
 * Then the bytes the file makes the reader allocate beyond its own are summed, before anything is
 * allocated: accessors without a `bufferView` (zero-filled, glTF 2.0 §3.6.2.2, with or without sparse
 * values) take `count x components x (component bytes + 8)` bytes (stored, then decoded to float64), `EXT_meshopt_compression` views `count x byteStride`
 * decoded bytes. More than `maxBytes` in all is refused: a few hundred bytes of JSON could otherwise ask
 * for gigabytes.
 *
 * @throws {GltfError} naming the JSON path (`animations[3].channels is 5, not an array`), with
 * `jsonPath` set.
 */
export function checkGltfStructure(json: GLTF.IGLTF, file: string | undefined, maxBytes: number): void {
  const c: Checker = new Checker(file);
  const root = json as unknown as Json;
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const list = root[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) c.fail(key, `is ${describe(list)}, not an array`);
    for (let i = 0; i < list.length; i++) c.string(list[i], `${key}[${i}]`);
  }
  const buffers = c.objects(root.buffers, 'buffers');
  const views = c.objects(root.bufferViews, 'bufferViews');
  const accessors = c.objects(root.accessors, 'accessors');
  const nodes = c.objects(root.nodes, 'nodes');
  const meshes = c.objects(root.meshes, 'meshes');
  const skins = c.objects(root.skins, 'skins');
  const scenes = c.objects(root.scenes, 'scenes');
  const images = c.objects(root.images, 'images');
  const textures = c.objects(root.textures, 'textures');
  const materials = c.objects(root.materials, 'materials');
  const cameras = c.objects(root.cameras, 'cameras');
  const samplers = c.objects(root.samplers, 'samplers');
  const animations = c.objects(root.animations, 'animations');
  // extension data is the extensions' own; only its container must be an object
  const extensions = (item: Json, path: string) => {
    c.object(item.extensions, `${path}.extensions`);
    return item.extensions as Json | undefined;
  };

  buffers.forEach((b, i) => {
    c.string(b.uri, `buffers[${i}].uri`);
    c.integer(b.byteLength, `buffers[${i}].byteLength`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-resource');
    extensions(b, `buffers[${i}]`);
  });
  let budget = 0;
  const spend = (bytes: number, path: string, what: string) => {
    budget += bytes;
    if (budget > maxBytes)
      c.fail(
        path,
        `${what} takes ${bytes} bytes, which with the rest of the file passes the reader's limit of ${maxBytes} bytes (options.maxBytes)`,
        'gltf-accessor',
      );
  };
  views.forEach((v, i) => {
    const p = `bufferViews[${i}]`;
    c.index(v.buffer, `${p}.buffer`, buffers.length, 'buffer', true);
    c.integer(v.byteOffset, `${p}.byteOffset`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
    c.integer(v.byteLength, `${p}.byteLength`, 0, Number.MAX_SAFE_INTEGER, -1, 'gltf-accessor') >= 0 ||
      c.fail(`${p}.byteLength`, 'is missing', 'gltf-accessor');
    c.integer(v.byteStride, `${p}.byteStride`, 4, 252, 4, 'gltf-accessor');
    const meshopt = extensions(v, p)?.[EXT_MESHOPT_COMPRESSION];
    if (meshopt !== undefined) {
      const q = `${p}.extensions.${EXT_MESHOPT_COMPRESSION}`;
      const def = c.object(meshopt, q);
      c.index(def.buffer, `${q}.buffer`, buffers.length, 'buffer', true);
      c.integer(def.byteOffset, `${q}.byteOffset`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
      c.integer(def.byteLength, `${q}.byteLength`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
      const count = c.integer(def.count, `${q}.count`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
      const stride = c.integer(def.byteStride, `${q}.byteStride`, 1, 256, 1, 'gltf-accessor');
      spend(count * stride, `${q}.count`, `decoding ${count} x ${stride} bytes`);
    }
  });
  accessors.forEach((a, i) => {
    const p = `accessors[${i}]`;
    const width = ELEMENT_SIZE[a.type as string];
    const bytes = COMPONENT_BYTES[a.componentType as number];
    if (width === undefined)
      c.fail(`${p}.type`, `is ${describe(a.type)}, which glTF does not define`, 'gltf-accessor');
    if (bytes === undefined)
      c.fail(
        `${p}.componentType`,
        `is ${describe(a.componentType)}, which glTF does not define`,
        'gltf-accessor',
      );
    const view = c.index(a.bufferView, `${p}.bufferView`, views.length, 'buffer view');
    c.integer(a.byteOffset, `${p}.byteOffset`, 0, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
    const count = c.integer(a.count, `${p}.count`, 0, Number.MAX_SAFE_INTEGER, -1, 'gltf-accessor');
    if (count < 0) c.fail(`${p}.count`, 'is missing', 'gltf-accessor');
    if (a.sparse !== undefined) {
      const s = c.object(a.sparse, `${p}.sparse`);
      c.integer(s.count, `${p}.sparse.count`, 1, Number.MAX_SAFE_INTEGER, 0, 'gltf-accessor');
      for (const part of ['indices', 'values']) {
        const d = c.object(s[part], `${p}.sparse.${part}`, true);
        c.index(d.bufferView, `${p}.sparse.${part}.bufferView`, views.length, 'buffer view', true);
        c.integer(
          d.byteOffset,
          `${p}.sparse.${part}.byteOffset`,
          0,
          Number.MAX_SAFE_INTEGER,
          0,
          'gltf-accessor',
        );
      }
    }
    // no view: the elements are zeros (then sparse values), all allocated by the reader, and decoded
    // to float64 when a sampler reads them
    if (view === undefined)
      spend(
        count * width * (bytes + 8),
        `${p}.count`,
        `a ${count} x ${a.type} accessor without a bufferView (stored and decoded)`,
      );
  });
  images.forEach((img, i) => {
    c.string(img.uri, `images[${i}].uri`);
    c.index(img.bufferView, `images[${i}].bufferView`, views.length, 'buffer view');
  });
  textures.forEach((t, i) => {
    c.index(t.source, `textures[${i}].source`, images.length, 'image');
    c.index(t.sampler, `textures[${i}].sampler`, samplers.length, 'sampler');
  });
  materials.forEach((m, i) => {
    for (const [group, name] of TEXTURE_INFOS) {
      const holder = group ? c.object(m[group], `materials[${i}].${group}`) : m;
      const p = `materials[${i}].${group ? `${group}.` : ''}${name}`;
      const info = c.object(holder[name], p);
      if (holder[name] !== undefined) c.index(info.index, `${p}.index`, textures.length, 'texture', true);
    }
  });
  meshes.forEach((m, i) => {
    c.objects(m.primitives, `meshes[${i}].primitives`, true).forEach((prim, k) => {
      const p = `meshes[${i}].primitives[${k}]`;
      const attributes = [c.object(prim.attributes, `${p}.attributes`, true)];
      for (const t of c.objects(prim.targets, `${p}.targets`)) attributes.push(t);
      attributes.forEach((set, t) => {
        const q = t === 0 ? `${p}.attributes` : `${p}.targets[${t - 1}]`;
        for (const [name, index] of Object.entries(set))
          c.index(index, `${q}.${name}`, accessors.length, 'accessor', true);
      });
      c.index(prim.indices, `${p}.indices`, accessors.length, 'accessor');
      c.index(prim.material, `${p}.material`, materials.length, 'material');
    });
    c.numbers(m.weights, `meshes[${i}].weights`, 0);
  });
  skins.forEach((s, i) => {
    const p = `skins[${i}]`;
    if (!Array.isArray(s.joints)) c.fail(`${p}.joints`, `is ${describe(s.joints)}, not an array`);
    const joints = s.joints as unknown[];
    for (let k = 0; k < joints.length; k++)
      c.index(joints[k], `${p}.joints[${k}]`, nodes.length, 'node', true);
    c.index(s.skeleton, `${p}.skeleton`, nodes.length, 'node');
    c.index(s.inverseBindMatrices, `${p}.inverseBindMatrices`, accessors.length, 'accessor');
  });
  checkNodes(c, nodes, meshes.length, skins.length, cameras.length);
  scenes.forEach((s, i) => {
    if (s.nodes === undefined) return;
    if (!Array.isArray(s.nodes)) c.fail(`scenes[${i}].nodes`, `is ${describe(s.nodes)}, not an array`);
    const list = s.nodes as unknown[];
    for (let k = 0; k < list.length; k++)
      c.index(list[k], `scenes[${i}].nodes[${k}]`, nodes.length, 'node', true);
  });
  c.index(root.scene, 'scene', scenes.length, 'scene');
  animations.forEach((anim, a) => {
    const p = `animations[${a}]`;
    c.at = { animation: a };
    const list = c.objects(anim.samplers, `${p}.samplers`, true);
    list.forEach((s, k) => {
      c.index(s.input, `${p}.samplers[${k}].input`, accessors.length, 'accessor', true);
      c.index(s.output, `${p}.samplers[${k}].output`, accessors.length, 'accessor', true);
      c.string(s.interpolation, `${p}.samplers[${k}].interpolation`);
    });
    c.objects(anim.channels, `${p}.channels`, true).forEach((ch, k) => {
      const q = `${p}.channels[${k}]`;
      c.at = { animation: a, channel: k };
      c.index(ch.sampler, `${q}.sampler`, list.length, 'sampler', true);
      const target = c.object(ch.target, `${q}.target`, true);
      c.index(target.node, `${q}.target.node`, nodes.length, 'node');
      c.string(target.path, `${q}.target.path`);
      extensions(target, `${q}.target`);
    });
    c.at = {};
  });
}

/**
 * Node references and transforms, then the hierarchy: each node at most one parent and none its own
 * ancestor. Iterative, O(nodes + children).
 */
function checkNodes(c: Checker, nodes: Json[], meshes: number, skins: number, cameras: number): void {
  const N = nodes.length;
  const parent = new Int32Array(N).fill(-1);
  for (let i = 0; i < N; i++) {
    const n = nodes[i];
    const p = `nodes[${i}]`;
    c.numbers(n.translation, `${p}.translation`, 3);
    c.numbers(n.rotation, `${p}.rotation`, 4);
    c.numbers(n.scale, `${p}.scale`, 3);
    c.numbers(n.matrix, `${p}.matrix`, 16);
    c.numbers(n.weights, `${p}.weights`, 0);
    c.index(n.mesh, `${p}.mesh`, meshes, 'mesh');
    c.index(n.skin, `${p}.skin`, skins, 'skin');
    c.index(n.camera, `${p}.camera`, cameras, 'camera');
    if (n.children === undefined) continue;
    if (!Array.isArray(n.children)) c.fail(`${p}.children`, `is ${describe(n.children)}, not an array`);
    const children = n.children as unknown[];
    for (let k = 0; k < children.length; k++) {
      const q = `${p}.children[${k}]`;
      const child = c.index(children[k], q, N, 'node', true) as number;
      if (child === i) c.fail(q, `is ${i}: the node is its own child`, 'gltf-target');
      if (parent[child] >= 0)
        c.fail(
          q,
          `is ${child}, which is already a child of node ${parent[child]}: a node has one parent`,
          'gltf-target',
        );
      parent[child] = i;
    }
  }
  // every node must reach a root through its parents; a node that does not sits on (or under) a cycle
  const state = new Uint8Array(N); // 0 unknown, 1 on the current walk, 2 reaches a root
  for (let i = 0; i < N; i++) {
    let n = i;
    while (n >= 0 && state[n] === 0) {
      state[n] = 1;
      n = parent[n];
    }
    if (n >= 0 && state[n] === 1) {
      // n is on a cycle: list it from n back to n
      const cycle = [n];
      for (let m = parent[n]; m !== n; m = parent[m]) cycle.push(m);
      cycle.push(n);
      cycle.reverse(); // parent before child
      c.fail(
        `nodes[${cycle[cycle.length - 2]}].children`,
        `make a cycle: nodes ${cycle.join(' -> ')} (each the parent of the next; the node hierarchy must be a tree)`,
        'gltf-target',
      );
    }
    for (let m = i; m >= 0 && state[m] === 1; m = parent[m]) state[m] = 2;
  }
}
