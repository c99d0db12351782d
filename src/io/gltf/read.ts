import {
  type Accessor,
  type Animation,
  BufferUtils,
  Document,
  type Extension,
  type GLTF,
  type JSONDocument,
  type Node,
  WebIO,
} from '@gltf-transform/core';
import { OptionError } from '../../errors.js';
import { firstUnorderedTime } from '../../ops/keys/track-checks.js';
import {
  BOOLEAN_OPTION,
  customRule,
  frozenDefaults,
  integerIn,
  OBJECT_OPTION,
  type OptionSpec,
  oneOf,
  resolveOptions,
  STRING_OPTION,
} from '../../options.js';
import type { EulerOrder } from '../../quat/euler.js';
import type { KeyedClip, Track, TrackPath } from '../../series/clip.js';
import { makeSkeleton } from '../../series/clip-create.js';
import { GltfError, type GltfLocation, type GltfWarning } from './errors.js';
import { checkDraco, type GltfDependencies, registeredExtensions } from './extensions.js';
import { EXT_MESHOPT_COMPRESSION, meshoptReady } from './meshopt.js';
import type { AnimationPointer } from './pointer.js';
import { decodeAccessor, decodeTrackValues, type GltfSource, trackInterpolation } from './source.js';
import { COMPONENT_BYTES, checkGltfStructure, ELEMENT_SIZE, GLTF_MAX_BYTES } from './validate.js';

/** A `.gltf` file's JSON (parsed or as text) with the files it references, by URI as written in the JSON. */
export interface GltfJsonInput {
  json: GLTF.IGLTF | string;
  /** Bytes of each external `.bin` and image, keyed by the URI the JSON uses (data URIs need no entry). */
  resources?: Record<string, Uint8Array>;
}

/** What {@link readGltf} reads: GLB bytes (or `.gltf` JSON as UTF-8 bytes), `.gltf` JSON with its resources, or a glTF-Transform `Document`. */
export type GltfInput = Uint8Array | GltfJsonInput | Document;

/** Options of {@link readGltf}. */
export interface ReadGltfOptions {
  /** Which animations to read: `'all'` (one clip each), an index, or a name. */
  animation?: 'all' | number | string;
  /** File name for messages and for `source.file`. */
  file?: string;
  /** Resources of a `.gltf` given as bytes (external `.bin` and images, by URI). */
  resources?: Record<string, Uint8Array>;
  /**
   * More glTF-Transform extensions to register, beside every one glTF-Transform supports, which is
   * always registered (see {@link registeredExtensions}); one of the same name replaces the built-in
   * one. Extensions a file uses that are not registered are reported and dropped on write.
   */
  extensions?: readonly (typeof Extension)[];
  /**
   * Modules extensions need ({@link GltfDependencies}): a file that uses `KHR_draco_mesh_compression`
   * needs `'draco3d.decoder'` (a {@link GltfError} without it); `rotsig/node`'s `readGltfFile` gives it.
   */
  dependencies?: GltfDependencies;
  /**
   * Rotation outputs whose length is off 1 by more than 1e-3 (a valid glTF has unit quaternions):
   * `'normalize'` divides them by their length and warns; `'error'` throws a {@link GltfError}.
   */
  quaternions?: 'normalize' | 'error';
  /**
   * Repair damaged channels instead of throwing, with a `'repaired'` warning for each: keys whose time
   * or output holds NaN/Inf, or whose rotation is the zero quaternion, are dropped (the keys around them
   * then interpolate across the gap). A channel left without keys still throws. Default `false`.
   */
  repair?: boolean;
  /**
   * Most bytes the reader may allocate for data the file does not hold byte for byte: accessors
   * without a buffer view (zero-filled, sparse), `EXT_meshopt_compression` views (`count x byteStride`
   * decoded), and track values decoded again for each further channel that shares an accessor. Checked
   * before anything is allocated; more is a {@link GltfError}. Default 2^28 (256 MiB).
   */
  maxBytes?: number;
}

/** Defaults of {@link ReadGltfOptions} (frozen). */
export const READ_GLTF_DEFAULTS: Readonly<Required<ReadGltfOptions>> = frozenDefaults({
  animation: 'all',
  file: '',
  resources: {},
  extensions: [],
  dependencies: {},
  quaternions: 'normalize',
  repair: false,
  maxBytes: GLTF_MAX_BYTES,
});

const READ_GLTF_SPEC: OptionSpec = {
  animation: customRule(
    "'all', an index or a name",
    (v) => typeof v === 'string' || (Number.isInteger(v) && (v as number) >= 0),
  ),
  file: STRING_OPTION,
  resources: OBJECT_OPTION,
  extensions: customRule('an array of extensions', Array.isArray),
  dependencies: OBJECT_OPTION,
  quaternions: oneOf(['normalize', 'error']),
  repair: BOOLEAN_OPTION,
  maxBytes: integerIn(0),
};

/** Result of {@link readGltf}. */
export interface GltfReadResult {
  /** The whole document (meshes, skins, materials, every animation), for {@link writeGltf}. */
  document: Document;
  /** One keyed clip per animation read, in document order. */
  clips: KeyedClip[];
  /** Content kept but not turned into tracks, repairs, and dropped extensions. */
  warnings: GltfWarning[];
}

const GLB_MAGIC = 0x46546c67;
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
const GLB_BUFFER = '@glb.bin';

/**
 * Reads the animations of a glTF 2.0 asset as keyed clips, keeping the document for the writer.
 *
 * Each animation becomes a {@link KeyedClip}: one {@link Track} per channel that targets a node's
 * `translation`, `rotation`, `scale` or `weights`, with its key times (seconds, as stored), its
 * interpolation (`'step'`, `'linear'`, `'cubicspline'`) and its values as float64 (normalized-integer
 * outputs of `KHR_mesh_quantization` decoded: `max(c / 127, -1)` for BYTE, `c / 255` for UNSIGNED_BYTE,
 * `max(c / 32767, -1)` for SHORT, `c / 65535` for UNSIGNED_SHORT). Morph-weight tracks are carried as
 * they are.
 *
 * The skeleton of a clip is: the nodes its channels animate, every joint of each skin that lists one of
 * them, and all their ancestors; in depth-first order from the scene roots (a parent before its
 * children, children in the order the file lists them). Rest transforms come from the nodes (a node
 * given by `matrix` is decomposed, with a warning). Names are the node names; an unnamed node is
 * `node<index>` and a repeated name gets `_<index>` appended. glTF conventions hold: y up, metres,
 * right-handed, quaternions x, y, z, w; rotsig changes no axis or unit.
 *
 * Kept and reported as warnings, never dropped silently: channels of `KHR_animation_pointer` (kept in
 * the document with their pointer, see {@link KHRAnimationPointer}, and written back as they are),
 * channels of other paths, channels without a target node, empty samplers, extensions that are not
 * registered. Sparse accessors are decoded (glTF-Transform substitutes the sparse values into the base
 * view, or zeros) after {@link readGltf} checks their indices and views.
 *
 * @param options - Defaults in {@link READ_GLTF_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {GltfError} on a truncated GLB or one with a wrong magic, a missing resource, an accessor out
 * of its buffer view, a channel naming a missing node or sampler, key times that are not finite and
 * strictly increasing, and non-finite outputs; the error names the file, animation, channel and key.
 * @throws {OptionError} on an unknown option or an animation that is not in the file.
 * @example
 * const glbBytes = fs.readFileSync('Fox.glb');
 * const { clips } = await readGltf(glbBytes, { file: 'Fox.glb' });
 * const walk = clips.find((c) => c.name === 'Walk');
 */
export async function readGltf(input: GltfInput, options: ReadGltfOptions = {}): Promise<GltfReadResult> {
  const opts = resolveOptions('readGltf', options, READ_GLTF_DEFAULTS, READ_GLTF_SPEC);
  const warnings: GltfWarning[] = [];
  const file = opts.file || undefined;
  let doc: Document;
  let json: GLTF.IGLTF | undefined;
  if (input instanceof Document) {
    doc = input;
  } else {
    const jsonDoc = toJsonDocument(input, opts, file);
    json = jsonDoc.json;
    checkJson(jsonDoc, file, warnings);
    const io = new WebIO();
    const meshopt =
      (json.extensionsUsed ?? []).includes(EXT_MESHOPT_COMPRESSION) &&
      !opts.extensions.some((e) => e.EXTENSION_NAME === EXT_MESHOPT_COMPRESSION);
    // compressed buffer views are decoded on reading (meshoptimizer's decoder, loaded only when needed)
    if (meshopt) await meshoptReady('decoder');
    checkDraco(json.extensionsUsed ?? [], opts.dependencies, 'read', file);
    const registered = registeredExtensions(opts.extensions);
    io.registerExtensions(registered).registerDependencies(opts.dependencies);
    const known = new Set(registered.map((e) => e.EXTENSION_NAME));
    for (const name of json.extensionsUsed ?? []) {
      if (!known.has(name)) {
        warnings.push({
          code: 'extension',
          message: `extension ${name} is not registered (pass it in options.extensions); its data is dropped on write`,
          ...(file ? { file } : {}),
        });
      }
    }
    try {
      doc = await io.readJSON(jsonDoc);
    } catch (error) {
      throw new GltfError(`cannot read the document: ${(error as Error).message}`, { file }, 'gltf');
    }
  }
  const clips = extractClips(doc, json, opts, file, warnings);
  return { document: doc, clips, warnings };
}

/** The JSON and resources of GLB bytes, `.gltf` bytes or a JSON input, with data URIs decoded. */
function toJsonDocument(
  input: Uint8Array | GltfJsonInput,
  opts: Required<ReadGltfOptions>,
  file?: string,
): JSONDocument {
  let json: GLTF.IGLTF;
  const resources: Record<string, Uint8Array> = {};
  if (input instanceof Uint8Array) {
    let first = 0;
    while (
      first < input.length &&
      (input[first] === 0x20 ||
        input[first] === 0x0a ||
        input[first] === 0x0d ||
        input[first] === 0x09 ||
        input[first] === 0xef ||
        input[first] === 0xbb ||
        input[first] === 0xbf)
    )
      first++;
    if (input.length >= 4 && readU32(input, 0) === GLB_MAGIC) {
      const glb = splitGlb(input, file);
      json = glb.json;
      if (glb.bin !== undefined) resources[GLB_BUFFER] = glb.bin;
    } else if (input[first] === 0x7b) {
      json = parseJson(BufferUtils.decodeText(input), file);
    } else {
      const magic = Array.from(input.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
      throw new GltfError(
        `not a GLB (magic 'glTF') nor glTF JSON: the file starts with bytes ${magic || '(none)'}`,
        { file },
        'gltf-glb',
      );
    }
  } else if (input !== null && typeof input === 'object' && 'json' in input) {
    json = typeof input.json === 'string' ? parseJson(input.json, file) : structuredCloneJson(input.json);
    Object.assign(resources, input.resources ?? {});
  } else {
    throw new GltfError('input must be GLB bytes, glTF JSON with resources, or a Document', { file });
  }
  Object.assign(resources, opts.resources);
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new GltfError('the glTF JSON is not an object', { file });
  if (
    json.asset === undefined ||
    json.asset === null ||
    typeof json.asset !== 'object' ||
    !String(json.asset.version ?? '').startsWith('2')
  )
    throw new GltfError(`not glTF 2.0 (asset.version is ${String(json.asset?.version)})`, { file });
  checkGltfStructure(json, file, opts.maxBytes);
  // Decode data URIs here, under names glTF-Transform treats as internal (they are not written back as URIs).
  let n = 0;
  for (const list of [json.buffers ?? [], json.images ?? []] as { uri?: string }[][]) {
    for (const item of list) {
      if (typeof item?.uri === 'string' && item.uri.startsWith('data:')) {
        let bytes: Uint8Array;
        try {
          bytes = BufferUtils.createBufferFromDataURI(item.uri);
        } catch (error) {
          throw new GltfError(
            `cannot decode a data URI: ${(error as Error).message}`,
            { file },
            'gltf-resource',
          );
        }
        const ext = /^data:[a-z]+\/([a-z0-9.+-]+)/i.exec(item.uri)?.[1] ?? 'bin';
        const key = `__rotsig${n++}.${ext === 'octet-stream' || ext === 'gltf-buffer' ? 'bin' : ext}`;
        resources[key] = bytes;
        item.uri = key;
      }
    }
  }
  return { json, resources } as JSONDocument;
}

function structuredCloneJson(json: GLTF.IGLTF): GLTF.IGLTF {
  // buffers and images are rewritten (data URIs); the rest is shared (not arrays: refused later)
  if (json === null || typeof json !== 'object') return json;
  return {
    ...json,
    ...(Array.isArray(json.buffers) ? { buffers: json.buffers.map((b) => ({ ...b })) } : {}),
    ...(Array.isArray(json.images) ? { images: json.images.map((i) => ({ ...i })) } : {}),
  };
}

function parseJson(text: string, file?: string): GLTF.IGLTF {
  try {
    return JSON.parse(text) as GLTF.IGLTF;
  } catch (error) {
    throw new GltfError(`the glTF JSON does not parse: ${(error as Error).message}`, { file }, 'gltf');
  }
}

function readU32(bytes: Uint8Array, offset: number): number {
  return (
    (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) | (bytes[offset + 3] << 24)) >>> 0
  );
}

/** Checks a GLB's header and chunk lengths (glTF 2.0 §4.4) before any byte is read past them. */
function splitGlb(bytes: Uint8Array, file?: string): { json: GLTF.IGLTF; bin?: Uint8Array } {
  const where = { file };
  if (bytes.length < 20)
    throw new GltfError(
      `truncated GLB: ${bytes.length} bytes, a header and JSON chunk need at least 20`,
      where,
      'gltf-glb',
    );
  const version = readU32(bytes, 4);
  if (version !== 2) throw new GltfError(`GLB version ${version}, only version 2 is read`, where, 'gltf-glb');
  const length = readU32(bytes, 8);
  if (length > bytes.length)
    throw new GltfError(
      `truncated GLB: the header says ${length} bytes, the data has ${bytes.length}`,
      where,
      'gltf-glb',
    );
  const jsonLength = readU32(bytes, 12);
  if (readU32(bytes, 16) !== CHUNK_JSON)
    throw new GltfError('GLB: the first chunk is not JSON', where, 'gltf-glb');
  if (20 + jsonLength > length)
    throw new GltfError(
      `truncated GLB: the JSON chunk needs ${jsonLength} bytes past offset 20, the file has ${length}`,
      where,
      'gltf-glb',
    );
  const json = parseJson(BufferUtils.decodeText(bytes.subarray(20, 20 + jsonLength)), file);
  let offset = 20 + jsonLength;
  while (offset + 8 <= length) {
    const chunkLength = readU32(bytes, offset);
    const type = readU32(bytes, offset + 4);
    if (offset + 8 + chunkLength > length)
      throw new GltfError(
        `truncated GLB: a chunk of ${chunkLength} bytes at offset ${offset} runs past the end (${length})`,
        where,
        'gltf-glb',
      );
    if (type === CHUNK_BIN) return { json, bin: bytes.subarray(offset + 8, offset + 8 + chunkLength) };
    offset += 8 + chunkLength;
  }
  return { json };
}

/** Structural checks glTF-Transform leaves to the caller: resources present, views and accessors in range, animation references valid. */
function checkJson(jsonDoc: JSONDocument, file: string | undefined, warnings: GltfWarning[]): void {
  const { json, resources } = jsonDoc;
  const buffers = json.buffers ?? [];
  const datas: (Uint8Array | undefined)[] = [];
  const sizes = buffers.map((b, i) => {
    // an EXT_meshopt_compression fallback buffer may have no data: its views are decoded from another
    const fallback = (b.extensions?.[EXT_MESHOPT_COMPRESSION] as { fallback?: boolean } | undefined)
      ?.fallback;
    if (fallback === true && (i > 0 || b.uri !== undefined)) return b.byteLength ?? 0;
    const data = b.uri === undefined ? resources[GLB_BUFFER] : resources[b.uri];
    if (data === undefined) {
      throw new GltfError(
        b.uri === undefined
          ? `buffer ${i} has no uri and the GLB has no BIN chunk`
          : `missing resource '${b.uri}' (buffer ${i})`,
        { file },
        'gltf-resource',
      );
    }
    if (data.byteLength < (b.byteLength ?? 0))
      throw new GltfError(
        `buffer ${i} ('${b.uri ?? 'GLB BIN chunk'}') holds ${data.byteLength} bytes, the JSON says ${b.byteLength}`,
        { file },
        'gltf-resource',
      );
    datas[i] = data;
    return data.byteLength;
  });
  const views = json.bufferViews ?? [];
  views.forEach((v, i) => {
    const size = sizes[v.buffer];
    if (size === undefined)
      throw new GltfError(
        `bufferView ${i} names buffer ${v.buffer}, which does not exist`,
        { file },
        'gltf-accessor',
      );
    if ((v.byteOffset ?? 0) + v.byteLength > size)
      throw new GltfError(
        `bufferView ${i} (offset ${v.byteOffset ?? 0}, ${v.byteLength} bytes) runs past its buffer (${size} bytes)`,
        { file },
        'gltf-accessor',
      );
  });
  const accessors = json.accessors ?? [];
  accessors.forEach((a, i) => {
    const width = ELEMENT_SIZE[a.type];
    const bytes = COMPONENT_BYTES[a.componentType];
    if (width === undefined || bytes === undefined)
      throw new GltfError(
        `accessor ${i} has type ${a.type} and componentType ${a.componentType}, which glTF does not define`,
        { file },
        'gltf-accessor',
      );
    if (a.bufferView === undefined) return;
    const view = views[a.bufferView];
    if (view === undefined)
      throw new GltfError(
        `accessor ${i} names bufferView ${a.bufferView}, which does not exist`,
        { file },
        'gltf-accessor',
      );
    const elementBytes = width * bytes;
    const stride = view.byteStride ?? elementBytes;
    const need = a.count > 0 ? (a.byteOffset ?? 0) + stride * (a.count - 1) + elementBytes : 0;
    if (!Number.isInteger(a.count) || a.count < 0 || need > view.byteLength) {
      // the first element that does not fit, and its key when a sampler reads the accessor
      const fits = Math.floor((view.byteLength - (a.byteOffset ?? 0) - elementBytes) / stride) + 1;
      const element = Math.max(0, Math.min(fits, a.count));
      const user = channelUsing(json, i);
      const key = user.perKey !== undefined ? { key: Math.floor(element / user.perKey) } : {};
      throw new GltfError(
        `accessor ${i} (${a.count} x ${a.type}) needs ${need} bytes of bufferView ${a.bufferView}, which has ${view.byteLength}: element ${element} runs past it`,
        { file, animation: user.animation, channel: user.channel, ...key },
        'gltf-accessor',
      );
    }
  });
  if (accessors.some((a) => a.sparse !== undefined))
    json.accessors = accessors.map((a, i) =>
      a.sparse === undefined ? a : checkSparse(a, i, views, datas, sparseWhere(json, i, file)),
    );
  (json.images ?? []).forEach((img, i) => {
    if (img.uri !== undefined && !(img.uri in resources)) {
      warnings.push({
        code: 'resource',
        message: `image ${i} ('${img.uri}') is missing; the reference is kept as it is`,
        ...(file ? { file } : {}),
      });
    }
  });
  const nodeCount = (json.nodes ?? []).length;
  (json.animations ?? []).forEach((anim, a) => {
    const samplers = anim.samplers ?? [];
    samplers.forEach((s, k) => {
      if (accessors[s.input] === undefined || accessors[s.output] === undefined)
        throw new GltfError(
          `sampler ${k} names accessors ${s.input} and ${s.output}; there are ${accessors.length}`,
          { file, animation: a },
          'gltf-accessor',
        );
    });
    (anim.channels ?? []).forEach((c, k) => {
      if (samplers[c.sampler] === undefined)
        throw new GltfError(
          `names sampler ${c.sampler}; the animation has ${samplers.length}`,
          { file, animation: a, channel: k },
          'gltf-target',
        );
      const node = c.target?.node;
      if (node !== undefined && !(Number.isInteger(node) && node >= 0 && node < nodeCount))
        throw new GltfError(
          `targets node ${node}; the file has ${nodeCount} nodes`,
          { file, animation: a, channel: k },
          'gltf-target',
        );
    });
  });
}

/** The first animation channel whose sampler reads accessor `i` (for error locations), or nothing. */
function channelUsing(
  json: GLTF.IGLTF,
  i: number,
): { animation?: number; channel?: number; perKey?: number } {
  const animations = json.animations ?? [];
  for (let a = 0; a < animations.length; a++) {
    const samplers = animations[a].samplers ?? [];
    const channels = animations[a].channels ?? [];
    for (let c = 0; c < channels.length; c++) {
      const s = samplers[channels[c]?.sampler];
      if (s !== undefined && (s.input === i || s.output === i))
        return {
          animation: a,
          channel: c,
          perKey: s.input === i || s.interpolation !== 'CUBICSPLINE' ? 1 : 3,
        };
    }
  }
  return {};
}

function sparseWhere(json: GLTF.IGLTF, i: number, file: string | undefined): GltfLocation {
  const { animation, channel } = channelUsing(json, i);
  return { file, animation, channel };
}

const INDEX_BYTES: Record<number, number> = { 5121: 1, 5123: 2, 5125: 4 };

/**
 * Checks a sparse accessor (glTF 2.0 §3.6.2.3): a count within the accessor's, indices of an unsigned
 * type that increase strictly and stay below the count, index and value views in range without a
 * stride. Returns the accessor with `byteOffset: 0` written out on the indices and values where the
 * file leaves it out: glTF-Transform builds their definitions on top of the accessor's own, so an
 * accessor `byteOffset` would otherwise shift them.
 */
function checkSparse(
  a: GLTF.IAccessor,
  i: number,
  views: GLTF.IBufferView[],
  datas: (Uint8Array | undefined)[],
  where: GltfLocation,
): GLTF.IAccessor {
  const sparse = a.sparse as GLTF.IAccessorSparse;
  const fail = (message: string): never => {
    throw new GltfError(`accessor ${i} (sparse): ${message}`, where, 'gltf-accessor');
  };
  const count = sparse.count;
  if (!Number.isInteger(count) || count < 1 || count > a.count)
    fail(`count ${count} is not between 1 and the accessor's count ${a.count}`);
  const indexBytes = INDEX_BYTES[sparse.indices?.componentType];
  if (indexBytes === undefined)
    fail(`indices have componentType ${sparse.indices?.componentType}, not an unsigned integer type`);
  const range = (viewIndex: number, offset: number, bytes: number, what: string): GLTF.IBufferView => {
    const view = views[viewIndex];
    if (view === undefined) return fail(`${what} name bufferView ${viewIndex}, which does not exist`);
    if (view.byteStride !== undefined) fail(`${what} bufferView ${viewIndex} has a byteStride`);
    if (!Number.isInteger(offset) || offset < 0 || offset + bytes > view.byteLength)
      fail(
        `${what} need ${bytes} bytes at offset ${offset} of bufferView ${viewIndex}, which has ${view.byteLength}`,
      );
    return view;
  };
  const indicesOffset = sparse.indices.byteOffset ?? 0;
  const valuesOffset = sparse.values?.byteOffset ?? 0;
  const view = range(sparse.indices.bufferView, indicesOffset, count * indexBytes, 'indices');
  range(
    sparse.values?.bufferView,
    valuesOffset,
    count * ELEMENT_SIZE[a.type] * COMPONENT_BYTES[a.componentType],
    'values',
  );
  const data = datas[view.buffer];
  // indices in an EXT_meshopt_compression fallback buffer are checked by the decoder, not here
  if (data === undefined) return a;
  const start = data.byteOffset + (view.byteOffset ?? 0) + indicesOffset;
  const dv = new DataView(data.buffer, start, count * indexBytes);
  let previous = -1;
  for (let k = 0; k < count; k++) {
    const index =
      indexBytes === 1
        ? dv.getUint8(k)
        : indexBytes === 2
          ? dv.getUint16(k * 2, true)
          : dv.getUint32(k * 4, true);
    if (index <= previous || index >= a.count)
      fail(`index ${k} is ${index}; indices must increase strictly and stay below ${a.count}`);
    previous = index;
  }
  return {
    ...a,
    sparse: {
      ...sparse,
      indices: { ...sparse.indices, byteOffset: indicesOffset },
      values: { ...sparse.values, byteOffset: valuesOffset },
    },
  };
}

/** Picks the animations, builds one keyed clip each. */
function extractClips(
  doc: Document,
  json: GLTF.IGLTF | undefined,
  opts: Required<ReadGltfOptions>,
  file: string | undefined,
  warnings: GltfWarning[],
): KeyedClip[] {
  const root = doc.getRoot();
  const nodes = root.listNodes();
  const nodeIndex = new Map<Node, number>();
  for (let i = 0; i < nodes.length; i++) nodeIndex.set(nodes[i], i);
  const animations = root.listAnimations();
  let chosen: number[];
  const a = opts.animation;
  if (a === 'all') chosen = animations.map((_, i) => i);
  else if (typeof a === 'number') {
    if (a >= animations.length)
      throw new OptionError(`readGltf: animation ${a} is not in the file, which has ${animations.length}`);
    chosen = [a];
  } else {
    const i = animations.findIndex((x) => x.getName() === a);
    if (i < 0)
      throw new OptionError(
        `readGltf: no animation named '${a}' (animations: ${animations.map((x) => `'${x.getName()}'`).join(', ') || 'none'})`,
      );
    chosen = [i];
  }
  if (json !== undefined) {
    (json.nodes ?? []).forEach((n, i) => {
      if (n.matrix !== undefined)
        warnings.push({
          code: 'matrix',
          message: `node ${i} ('${n.name ?? ''}') is given by a matrix; it was decomposed into translation, rotation and scale`,
          ...(file ? { file } : {}),
        });
    });
  }
  const topology = topologyOf(doc, nodes, nodeIndex);
  const budget: DecodeBudget = { seen: new Set(), spent: 0 };
  return chosen.map((i) =>
    extractClip(animations[i], i, topology, nodeIndex, opts, file, warnings, doc, budget),
  );
}

/** Accessors decoded so far, and the bytes of decoding some of them again (charged to `maxBytes`). */
interface DecodeBudget {
  seen: Set<Accessor>;
  spent: number;
}

/** The node tree as indices, built once per document and shared by every clip. */
interface Topology {
  nodes: Node[];
  /** Parent node index of each node, -1 for a root. */
  parent: Int32Array;
  /** Child node indices of each node, in the order the file lists them. */
  children: number[][];
  /** Node indices of each skin's joints. */
  skins: Int32Array[];
}

function topologyOf(doc: Document, nodes: Node[], nodeIndex: Map<Node, number>): Topology {
  const parent = new Int32Array(nodes.length).fill(-1);
  const children: number[][] = [];
  for (let i = 0; i < nodes.length; i++) {
    const list = nodes[i].listChildren().map((c) => nodeIndex.get(c) as number);
    for (const c of list) if (parent[c] < 0) parent[c] = i;
    children.push(list);
  }
  const skins = doc
    .getRoot()
    .listSkins()
    .map((skin) => Int32Array.from(skin.listJoints(), (j) => nodeIndex.get(j) as number));
  return { nodes, parent, children, skins };
}

interface RawTrack {
  node: number;
  path: TrackPath;
  interpolation: Track['interpolation'];
  times: Float64Array;
  values: Float64Array;
  width: number;
}

function extractClip(
  anim: Animation,
  a: number,
  topology: Topology,
  nodeIndex: Map<Node, number>,
  opts: Required<ReadGltfOptions>,
  file: string | undefined,
  warnings: GltfWarning[],
  doc: Document,
  budget: DecodeBudget,
): KeyedClip {
  const raw: RawTrack[] = [];
  const where = (channel: number, key?: number) => ({
    file,
    animation: a,
    channel,
    ...(key !== undefined ? { key } : {}),
  });
  const warn = (code: GltfWarning['code'], message: string, channel?: number) =>
    warnings.push({
      code,
      message,
      ...(file ? { file } : {}),
      animation: a,
      ...(channel !== undefined ? { channel } : {}),
    });
  anim.listChannels().forEach((channel, c) => {
    const path = channel.getTargetPath() as string;
    if (path !== 'translation' && path !== 'rotation' && path !== 'scale' && path !== 'weights') {
      const pointer = channel.getExtension<AnimationPointer>('KHR_animation_pointer');
      warn(
        'unsupported',
        pointer !== null
          ? `KHR_animation_pointer channel (pointer '${pointer.getPointer()}') is not read as a track; it is kept and written back as it is`
          : `channel path '${path}' is not read, and writeGltf drops it (with a warning)`,
        c,
      );
      return;
    }
    const node = channel.getTargetNode();
    if (node === null) {
      warn('unsupported', 'channel has no target node; it is kept in the document but not read', c);
      return;
    }
    const sampler = channel.getSampler();
    const input = sampler?.getInput();
    const output = sampler?.getOutput();
    if (!sampler || !input || !output)
      throw new GltfError('channel has no sampler with input and output', where(c), 'gltf-target');
    const interpolation = trackInterpolation(sampler.getInterpolation());
    if (interpolation === undefined)
      throw new GltfError(`unknown interpolation '${sampler.getInterpolation()}'`, where(c), 'gltf-target');
    if (input.getCount() === 0 || output.getCount() === 0) {
      warn('empty', 'channel has no keys; it is not read', c);
      return;
    }
    if (input.getElementSize() !== 1)
      throw new GltfError(`input accessor is ${input.getType()}, not SCALAR`, where(c), 'gltf-accessor');
    // an accessor's first decoding is bounded by the file; channels sharing it decode it again
    for (const accessor of [input, output]) {
      if (!budget.seen.has(accessor)) budget.seen.add(accessor);
      else budget.spent += accessor.getCount() * accessor.getElementSize() * 8;
    }
    if (budget.spent > opts.maxBytes)
      throw new GltfError(
        `channels sharing accessors decode ${budget.spent} bytes again, more than the reader's limit of ${opts.maxBytes} bytes (options.maxBytes)`,
        where(c),
        'gltf-accessor',
      );
    let times = decodeAccessor(input);
    const perKey = interpolation === 'cubicspline' ? 3 : 1;
    let repaired = 0;
    let values = decodeTrackValues(output, path, perKey, (k, len) => {
      if (opts.quaternions === 'error')
        throw new GltfError(`rotation has length ${len}, not 1`, where(c, k), 'gltf-values');
      repaired++;
    });
    let keys = input.getCount();
    if (opts.repair && output.getCount() === keys * perKey && values.length % (keys * perKey) === 0) {
      const kept = dropDamagedKeys(times, values, values.length / (keys * perKey), perKey, path);
      if (kept.dropped > 0) {
        if (kept.times.length === 0)
          throw new GltfError('every key has a non-finite time or value', where(c), 'gltf-values');
        warn(
          'repaired',
          `dropped ${kept.dropped} of ${keys} keys with a non-finite time or value${path === 'rotation' ? ' or a zero quaternion' : ''}; the first at key ${kept.first}`,
          c,
        );
        times = kept.times;
        values = kept.values;
        keys = times.length;
      }
    }
    // (each check over every key is a function of its own: optimised once for all channels)
    const late = firstUnorderedTime(times);
    if (late >= 0) {
      const k = late;
      if (!Number.isFinite(times[k]))
        throw new GltfError(`key time is ${times[k]}`, where(c, k), 'gltf-times');
      throw new GltfError(
        `key times do not increase: ${times[k - 1]} then ${times[k]}`,
        where(c, k),
        'gltf-times',
      );
    }
    let width: number;
    if (path === 'weights') {
      width = values.length / (keys * perKey);
      if (!Number.isInteger(width) || width < 1)
        throw new GltfError(
          `weights output has ${values.length} values, not a multiple of ${keys * perKey} (keys${perKey === 3 ? ' x 3' : ''})`,
          where(c),
          'gltf-accessor',
        );
    } else {
      width = path === 'rotation' ? 4 : 3;
      if (output.getElementSize() !== width)
        throw new GltfError(
          `${path} output is ${output.getType()}, expected ${width === 4 ? 'VEC4' : 'VEC3'}`,
          where(c),
          'gltf-accessor',
        );
      if (output.getCount() !== input.getCount() * perKey)
        throw new GltfError(
          `output has ${output.getCount()} elements for ${keys} keys${perKey === 3 ? ' (x 3 for CUBICSPLINE)' : ''}`,
          where(c),
          'gltf-accessor',
        );
    }
    const bad = firstNonFinite(values);
    if (bad >= 0)
      throw new GltfError(
        `output value ${bad % width} is ${values[bad]}`,
        where(c, Math.floor(bad / (width * perKey))),
        'gltf-values',
      );
    const zero = path === 'rotation' ? firstZeroQuaternion(values, keys, perKey) : -1;
    if (zero >= 0) throw new GltfError('rotation is the zero quaternion', where(c, zero), 'gltf-values');
    if (repaired)
      warn(
        'quaternion',
        `${repaired} rotation key${repaired > 1 ? 's' : ''} of length off 1 by more than 1e-3 normalized`,
        c,
      );
    raw.push({ node: nodeIndex.get(node) as number, path, interpolation, times, values, width });
  });
  return buildClip(anim, a, raw, topology, file, doc);
}

/** The index of the first value that is not finite, or -1. */
function firstNonFinite(values: ArrayLike<number>): number {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return i;
  return -1;
}

/** The first key whose rotation (the value, not a CUBICSPLINE tangent) is the zero quaternion, or -1. */
function firstZeroQuaternion(values: ArrayLike<number>, keys: number, perKey: number): number {
  for (let k = 0; k < keys; k++) {
    const o = (k * perKey + (perKey === 3 ? 1 : 0)) * 4;
    if (values[o] === 0 && values[o + 1] === 0 && values[o + 2] === 0 && values[o + 3] === 0) return k;
  }
  return -1;
}

/**
 * The keys of one channel without those whose time or output holds NaN/Inf, or (rotations) whose value
 * is the zero quaternion; `width` numbers per element, `perKey` elements per key (3 for CUBICSPLINE).
 */
function dropDamagedKeys(
  times: Float32Array | Float64Array,
  values: Float32Array | Float64Array,
  width: number,
  perKey: number,
  path: string,
): { times: Float64Array; values: Float64Array; dropped: number; first: number } {
  const keys = times.length;
  const stride = width * perKey;
  const keptTimes: number[] = [];
  const keptValues: number[] = [];
  let first = -1;
  for (let k = 0; k < keys; k++) {
    let ok = Number.isFinite(times[k]);
    for (let i = k * stride; ok && i < (k + 1) * stride; i++) ok = Number.isFinite(values[i]);
    if (ok && path === 'rotation') {
      const o = (k * perKey + (perKey === 3 ? 1 : 0)) * 4;
      ok = !(values[o] === 0 && values[o + 1] === 0 && values[o + 2] === 0 && values[o + 3] === 0);
    }
    if (!ok) {
      if (first < 0) first = k;
      continue;
    }
    keptTimes.push(times[k]);
    for (let i = k * stride; i < (k + 1) * stride; i++) keptValues.push(values[i]);
  }
  return {
    times: Float64Array.from(keptTimes),
    values: Float64Array.from(keptValues),
    dropped: keys - keptTimes.length,
    first,
  };
}

function buildClip(
  anim: Animation,
  a: number,
  raw: RawTrack[],
  topology: Topology,
  file: string | undefined,
  doc: Document,
): KeyedClip {
  const { nodes, parent, children, skins } = topology;
  // joints: animated nodes, the joints of skins listing one of them, and every ancestor
  const wanted = new Uint8Array(nodes.length);
  for (const t of raw) wanted[t.node] = 1;
  for (const joints of skins) {
    let used = false;
    for (let i = 0; i < joints.length && !used; i++) used = wanted[joints[i]] === 1;
    if (used) for (let i = 0; i < joints.length; i++) wanted[joints[i]] = 1;
  }
  for (let i = 0; i < nodes.length; i++) {
    if (wanted[i] !== 1) continue;
    for (let p = parent[i]; p >= 0 && wanted[p] === 0; p = parent[p]) wanted[p] = 2;
  }
  // depth-first from the roots, in node order
  const order: number[] = [];
  const parents: number[] = [];
  const jointOf = new Int32Array(nodes.length).fill(-1);
  // an explicit stack (children pushed in reverse), so a hierarchy of any depth is walked
  const stack: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (wanted[i] === 0 || jointOf[i] >= 0 || parent[i] >= 0) continue;
    stack.push(i, -1);
    while (stack.length > 0) {
      const up = stack.pop() as number;
      const n = stack.pop() as number;
      if (jointOf[n] >= 0) continue;
      jointOf[n] = order.length;
      order.push(n);
      parents.push(up);
      const me = order.length - 1;
      const list = children[n];
      for (let k = list.length - 1; k >= 0; k--) {
        const c = list[k];
        if (wanted[c] !== 0 && jointOf[c] < 0) stack.push(c, me);
      }
    }
  }
  const J = order.length;
  const names: string[] = [];
  const seen = new Set<string>();
  const restT = new Float64Array(J * 3);
  const restR = new Float64Array(J * 4);
  const restS = new Float64Array(J * 3);
  for (let j = 0; j < J; j++) {
    const node = nodes[order[j]];
    let name = node.getName() || `node${order[j]}`;
    if (seen.has(name)) name = `${name}_${order[j]}`;
    seen.add(name);
    names.push(name);
    restT.set(node.getTranslation(), j * 3);
    const r = node.getRotation();
    const len = Math.hypot(r[0], r[1], r[2], r[3]) || 1;
    for (let i = 0; i < 4; i++) restR[j * 4 + i] = r[i] / len;
    restS.set(node.getScale(), j * 3);
  }
  const skeleton = makeSkeleton({
    names,
    parents,
    restTranslations: restT,
    restRotations: restR,
    restScales: restS,
  });
  const tracks: Track[] = raw.map((t) => ({
    joint: jointOf[t.node],
    path: t.path,
    interpolation: t.interpolation,
    times: t.times,
    values: t.values,
    width: t.width,
  }));
  const source: GltfSource = {
    format: 'gltf',
    document: doc,
    nodes: Int32Array.from(order),
    animation: a,
    animationName: anim.getName(),
    ...(file !== undefined ? { file } : {}),
  };
  const name = anim.getName();
  return {
    ...(name ? { name } : {}),
    skeleton,
    tracks,
    orders: new Array<EulerOrder>(J).fill('XYZ'),
    source,
  };
}
