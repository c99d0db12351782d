import {
  Accessor,
  AnimationChannel,
  AnimationSampler,
  BufferUtils,
  Extension,
  GLB_BUFFER,
  type GLTF,
  type Buffer as GltfBuffer,
  Primitive,
  PropertyType,
  type ReaderContext,
  WriterContext,
} from '@gltf-transform/core';
import type { MeshoptDecoder as Decoder } from 'meshoptimizer/decoder';
import type { MeshoptEncoder as Encoder } from 'meshoptimizer/encoder';
import { decodeExpFilter } from '../../ops/reduce/exp-filter.js';
import { decodeQuatFilter } from '../../ops/reduce/quat-filter.js';
import { GltfError } from './errors.js';

/** Name of the extension in a glTF file. */
export const EXT_MESHOPT_COMPRESSION = 'EXT_meshopt_compression';

/** The extension's JSON on a buffer view (glTF `EXT_meshopt_compression`, "bufferView" schema). */
interface MeshoptViewDef {
  buffer: number;
  byteOffset?: number;
  byteLength: number;
  byteStride: number;
  count: number;
  mode: 'ATTRIBUTES' | 'TRIANGLES' | 'INDICES';
  filter?: 'NONE' | 'OCTAHEDRAL' | 'QUATERNION' | 'EXPONENTIAL' | 'COLOR';
}

type MeshoptMode = MeshoptViewDef['mode'];

// meshoptimizer instantiates its WebAssembly when its module is evaluated, and that fails (a rejected
// promise nobody awaits) where the address space is limited (`ulimit -v`): it is imported on first use
// of meshopt data only, and its failure becomes a GltfError there.
let decoder: typeof Decoder | undefined;
let encoder: typeof Encoder | undefined;
let decoderLoad: Promise<typeof Decoder> | undefined;
let encoderLoad: Promise<typeof Encoder> | undefined;

/**
 * Loads meshoptimizer's WebAssembly decoder (`'decoder'`) or encoder (`'encoder'`) on first call and
 * waits until it is ready; later calls return at once (or throw the same error again).
 * {@link EXTMeshoptCompression} needs the decoder loaded before reading and the encoder before writing;
 * {@link readGltf} and {@link writeGltf} call this only when a file has meshopt data or one is asked to
 * write it, so nothing else ever loads meshoptimizer.
 *
 * @throws {GltfError} (code `'gltf'` for the decoder, `'gltf-write'` for the encoder) when the module
 * cannot be imported or its WebAssembly cannot be instantiated (no WebAssembly, or an address-space
 * limit such as `ulimit -v` below what the engine reserves for a WebAssembly memory), naming the cause.
 */
export async function meshoptReady(which: 'decoder' | 'encoder'): Promise<void> {
  const code = which === 'decoder' ? 'gltf' : 'gltf-write';
  try {
    if (which === 'decoder') {
      decoderLoad ??= import('meshoptimizer/decoder').then(async (m) => {
        await m.MeshoptDecoder.ready;
        return m.MeshoptDecoder;
      });
      const codec = await decoderLoad;
      if (!codec.supported) throw new Error('no WebAssembly');
      decoder = codec;
    } else {
      encoderLoad ??= import('meshoptimizer/encoder').then(async (m) => {
        await m.MeshoptEncoder.ready;
        return m.MeshoptEncoder;
      });
      const codec = await encoderLoad;
      if (!codec.supported) throw new Error('no WebAssembly');
      encoder = codec;
    }
  } catch (error) {
    throw new GltfError(
      `EXT_meshopt_compression: meshoptimizer's ${which} cannot be loaded here (${(error as Error)?.message ?? String(error)})`,
      {},
      code,
    );
  }
}

/** A filter's input to store instead of an accessor's values: quaternion or exponential codes. */
type FilterCodes =
  | { filter: 'QUATERNION'; codes: Int16Array }
  | { filter: 'EXPONENTIAL'; codes: Uint32Array };

/**
 * Per accessor, the filter input to store instead of its values (see {@link setQuaternionFilterCodes}
 * and {@link setExponentialFilterCodes}).
 */
const filterCodes = new WeakMap<Accessor, FilterCodes>();

/**
 * Asks {@link EXTMeshoptCompression} to store a rotation output accessor (normalised SHORT VEC4) with the
 * quaternion filter (`filter: 'QUATERNION'`): `codes` is the filter's input, four 16-bit integers per key
 * (three components at K bits and `1.0` with the largest's index, K chosen per key; `reduceKeys` with
 * `quantization: 'variable'` makes them). A decoder turns them back into 16-bit components; the accessor's
 * values must be exactly those (up to the sign of a key, the same rotation), which is checked here.
 *
 * @throws {GltfError} (code `'gltf-write'`) when `accessor` is not an Accessor or `codes` not an
 * Int16Array, the accessor is not a normalised SHORT VEC4, the codes
 * do not have four entries per key, or they decode to other values than the accessor holds.
 * @example
 * import { Document } from '@gltf-transform/core';
 * // codes of the identity rotation at 12 bits: x, y, z = 0, then 1.0 at 12 bits with w's index (3)
 * const codes = new Int16Array([0, 0, 0, (2047 & ~3) | 3]);
 * const accessor = new Document().createAccessor().setType('VEC4').setNormalized(true);
 * accessor.setArray(new Int16Array([0, 0, 0, 32767]));
 * setQuaternionFilterCodes(accessor, codes); // written with filter 'QUATERNION' under EXTMeshoptCompression
 */
export function setQuaternionFilterCodes(accessor: Accessor, codes: Int16Array): void {
  if (!(accessor instanceof Accessor) || !(codes instanceof Int16Array))
    throw new GltfError(
      'setQuaternionFilterCodes: needs a glTF-Transform Accessor and an Int16Array of codes',
      {},
      'gltf-write',
    );
  const values = accessor.getArray();
  if (
    !(values instanceof Int16Array) ||
    accessor.getType() !== 'VEC4' ||
    !accessor.getNormalized() ||
    codes.length !== values.length
  )
    throw new GltfError(
      `EXT_meshopt_compression: quaternion filter codes need a normalised SHORT VEC4 accessor of ${codes.length / 4} keys`,
      {},
      'gltf-write',
    );
  const out = new Int16Array(4);
  for (let i = 0; i < values.length; i += 4) {
    decodeQuatFilter(codes, i, out, 0);
    const same =
      out[0] === values[i] &&
      out[1] === values[i + 1] &&
      out[2] === values[i + 2] &&
      out[3] === values[i + 3];
    const negated =
      out[0] === -values[i] &&
      out[1] === -values[i + 1] &&
      out[2] === -values[i + 2] &&
      out[3] === -values[i + 3];
    if (!same && !negated)
      throw new GltfError(
        `EXT_meshopt_compression: quaternion filter codes of key ${i / 4} decode to (${out.join(', ')}), not the stored (${Array.from(values.subarray(i, i + 4)).join(', ')})`,
        { key: i / 4 },
        'gltf-write',
      );
  }
  filterCodes.set(accessor, { filter: 'QUATERNION', codes });
}

/**
 * Asks {@link EXTMeshoptCompression} to store a FLOAT VEC3 accessor (a translation output) with the
 * exponential filter (`filter: 'EXPONENTIAL'`, byte stride 12): `codes` is the filter's input, one 32-bit
 * code per component (a signed 24-bit mantissa in the low bits, an exponent in the high 8; `reduceKeys`
 * with `quantization: 'variable'` makes them, `encodeFilterExp` of meshoptimizer too). A decoder turns
 * them back into `m · 2^e` in float32; the accessor's values must be exactly those, which is checked here.
 *
 * @throws {GltfError} (code `'gltf-write'`) when `accessor` is not an Accessor or `codes` not a
 * Uint32Array, the accessor is not a FLOAT VEC3 (not normalised), the codes do not have three entries
 * per element, or they decode to other values than the accessor holds.
 * @example
 * import { Document } from '@gltf-transform/core';
 * // (1.5, -0.25, 0) at 8-bit mantissas: 96 * 2^-6, -64 * 2^-8, and 0 (exponent -107)
 * const codes = new Uint32Array([
 *   ((96 & 0xffffff) | (-6 << 24)) >>> 0,
 *   ((-64 & 0xffffff) | (-8 << 24)) >>> 0,
 *   (-107 << 24) >>> 0,
 * ]);
 * const accessor = new Document().createAccessor().setType('VEC3');
 * accessor.setArray(new Float32Array([1.5, -0.25, 0]));
 * setExponentialFilterCodes(accessor, codes); // written with filter 'EXPONENTIAL' under EXTMeshoptCompression
 */
export function setExponentialFilterCodes(accessor: Accessor, codes: Uint32Array): void {
  if (!(accessor instanceof Accessor) || !(codes instanceof Uint32Array))
    throw new GltfError(
      'setExponentialFilterCodes: needs a glTF-Transform Accessor and a Uint32Array of codes',
      {},
      'gltf-write',
    );
  const values = accessor.getArray();
  if (
    !(values instanceof Float32Array) ||
    accessor.getType() !== 'VEC3' ||
    accessor.getNormalized() ||
    codes.length !== values.length
  )
    throw new GltfError(
      `EXT_meshopt_compression: exponential filter codes need a FLOAT VEC3 accessor of ${Math.floor(codes.length / 3)} elements`,
      {},
      'gltf-write',
    );
  const out = new Float32Array(codes.length);
  decodeExpFilter(codes, out);
  for (let i = 0; i < values.length; i++) {
    // bit for bit: a zero of the other sign is another value too
    if (Object.is(out[i], values[i])) continue;
    const key = Math.floor(i / 3);
    throw new GltfError(
      `EXT_meshopt_compression: exponential filter codes of key ${key} decode to (${Array.from(out.subarray(key * 3, key * 3 + 3)).join(', ')}), not the stored (${Array.from(values.subarray(key * 3, key * 3 + 3)).join(', ')})`,
      { key },
      'gltf-write',
    );
  }
  filterCodes.set(accessor, { filter: 'EXPONENTIAL', codes });
}

function loadedDecoder(): typeof Decoder {
  if (decoder === undefined)
    throw new GltfError("EXT_meshopt_compression: await meshoptReady('decoder') before reading", {}, 'gltf');
  return decoder;
}

function loadedEncoder(): typeof Encoder {
  if (encoder === undefined)
    throw new GltfError(
      "EXT_meshopt_compression: await meshoptReady('encoder') before writing",
      {},
      'gltf-write',
    );
  return encoder;
}

/**
 * `EXT_meshopt_compression` as a glTF-Transform extension, with meshoptimizer's WebAssembly codecs.
 *
 * Reading decodes every compressed buffer view (any mode and filter the specification allows, so files
 * from gltfpack read too) and drops the fallback buffer. Writing compresses every accessor except
 * morph-weight outputs and sparse accessors losslessly: accessor bytes are stored as they are (no
 * filter, no quantisation; vertex codec version 0, which `EXT_meshopt_compression` requires), grouped
 * into one compressed buffer view per usage, mode and stride, with an uncompressed fallback buffer
 * that has no data (so the extension is required). An accessor whose element size is not a multiple of
 * 4 bytes outside a vertex buffer (which the `ATTRIBUTES` mode cannot hold without a stride) is written
 * uncompressed. A rotation output given codes by {@link setQuaternionFilterCodes} is stored as those codes
 * in a buffer view with `filter: 'QUATERNION'`, a translation output given codes by
 * {@link setExponentialFilterCodes} in one with `filter: 'EXPONENTIAL'` (both lossless on the codes). Await {@link meshoptReady} before
 * reading or writing.
 *
 * Follows glTF-Transform's `EXTMeshoptCompression` (`@gltf-transform/extensions`, MIT) with its
 * `'quantize'` method, which leaves values untouched; the quantisation is the caller's.
 */
export class EXTMeshoptCompression extends Extension {
  public static override readonly EXTENSION_NAME = EXT_MESHOPT_COMPRESSION;
  public override readonly extensionName = EXT_MESHOPT_COMPRESSION;
  public override readonly prereadTypes = [PropertyType.BUFFER, PropertyType.PRIMITIVE];
  public override readonly prewriteTypes = [PropertyType.BUFFER, PropertyType.ACCESSOR];

  private fallbackMap = new Map<GltfBuffer, GltfBuffer>();
  private fallbackBuffer: GltfBuffer | null = null;
  private views: Record<string, GLTF.IBufferView & { extensions: Record<string, MeshoptViewDef> }> = {};
  private viewData: Record<string, Uint8Array[]> = {};
  private viewAccessors: Record<string, GLTF.IAccessor[]> = {};

  override preread(context: ReaderContext, propertyType: PropertyType): this {
    if (propertyType === PropertyType.BUFFER) this.prereadBuffers(context);
    else if (propertyType === PropertyType.PRIMITIVE) this.prereadFallbacks(context);
    return this;
  }

  private prereadBuffers(context: ReaderContext): void {
    const json = context.jsonDoc.json;
    const views = json.bufferViews ?? [];
    for (let index = 0; index < views.length; index++) {
      const def = views[index].extensions?.[EXT_MESHOPT_COMPRESSION] as MeshoptViewDef | undefined;
      if (!def) continue;
      const bufferDef = json.buffers?.[def.buffer];
      const resource = bufferDef
        ? bufferDef.uri
          ? context.jsonDoc.resources[bufferDef.uri]
          : context.jsonDoc.resources[GLB_BUFFER]
        : undefined;
      const offset = def.byteOffset ?? 0;
      if (
        resource === undefined ||
        !(Number.isInteger(def.count) && def.count >= 0) ||
        !(Number.isInteger(def.byteStride) && def.byteStride > 0) ||
        offset + def.byteLength > resource.byteLength
      ) {
        throw new GltfError(
          `EXT_meshopt_compression: buffer view ${index} points outside its buffer or has no count and stride`,
          {},
          'gltf',
        );
      }
      const codec = loadedDecoder();
      const result = new Uint8Array(def.count * def.byteStride);
      const source = BufferUtils.toView(resource, offset, def.byteLength);
      try {
        codec.decodeGltfBuffer(result, def.count, def.byteStride, source, def.mode, def.filter);
      } catch (error) {
        throw new GltfError(
          `EXT_meshopt_compression: buffer view ${index} does not decode (${(error as Error).message})`,
          {},
          'gltf',
        );
      }
      context.bufferViews[index] = result;
    }
  }

  private prereadFallbacks(context: ReaderContext): void {
    const json = context.jsonDoc.json;
    for (const view of json.bufferViews ?? []) {
      const def = view.extensions?.[EXT_MESHOPT_COMPRESSION] as MeshoptViewDef | undefined;
      if (!def) continue;
      const fallbackDef = json.buffers?.[view.buffer];
      const fallback = (fallbackDef?.extensions?.[EXT_MESHOPT_COMPRESSION] as { fallback?: boolean })
        ?.fallback;
      if (fallback) this.fallbackMap.set(context.buffers[view.buffer], context.buffers[def.buffer]);
    }
  }

  read(_context: ReaderContext): this {
    // accessors read from a fallback buffer now live in the buffer that held the compressed data
    for (const [fallback, buffer] of this.fallbackMap) {
      for (const parent of fallback.listParents()) {
        if (parent.propertyType === PropertyType.ACCESSOR) (parent as Accessor).swap(fallback, buffer);
      }
      fallback.dispose();
    }
    this.fallbackMap.clear();
    return this;
  }

  override prewrite(context: WriterContext, propertyType: PropertyType): this {
    if (propertyType === PropertyType.ACCESSOR) this.prewriteAccessors(context);
    else if (propertyType === PropertyType.BUFFER) this.prewriteBuffers(context);
    return this;
  }

  private prewriteAccessors(context: WriterContext): void {
    const json = context.jsonDoc.json;
    const root = this.document.getRoot();
    const graph = this.document.getGraph();
    const fallback = this.document.createBuffer();
    const fallbackIndex = root.listBuffers().indexOf(fallback);
    this.fallbackBuffer = fallback;
    this.views = {};
    this.viewData = {};
    this.viewAccessors = {};
    let nextId = 1;
    const parentIds = new Map<Accessor, number>();
    const parentId = (accessor: Accessor): number => {
      for (const parent of graph.listParents(accessor)) {
        if (parent.propertyType === PropertyType.ROOT) continue;
        let id = parentIds.get(accessor);
        if (id === undefined) parentIds.set(accessor, (id = nextId++));
        return id;
      }
      return -1;
    };
    json.accessors ??= [];
    for (const accessor of root.listAccessors()) {
      if (targetPath(accessor) === 'weights' || accessor.getSparse()) continue;
      const usage = context.getAccessorUsage(accessor);
      const mode = meshoptMode(accessor, usage);
      const codes = filterCodes.get(accessor);
      const array = codes?.codes ?? accessor.getArray();
      if (array === null) continue;
      const filter = codes?.filter ?? 'NONE';
      let data = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      let byteStride = accessor.getElementSize() * accessor.getComponentSize();
      if (mode === 'ATTRIBUTES' && byteStride % 4) {
        // a vertex buffer can carry a padded stride; other data cannot, so it stays uncompressed
        if (usage !== WriterContext.BufferViewUsage.ARRAY_BUFFER) continue;
        const padded = padElements(array, accessor.getElementSize());
        data = new Uint8Array(padded.buffer, padded.byteOffset, padded.byteLength);
        byteStride = padded.byteLength / accessor.getCount();
      }
      // the index modes hold 16- and 32-bit indices only; 8-bit indices stay uncompressed
      if (mode !== 'ATTRIBUTES' && byteStride !== 2 && byteStride !== 4) continue;
      const buffer = accessor.getBuffer();
      if (!buffer)
        throw new GltfError('EXT_meshopt_compression: an accessor has no buffer', {}, 'gltf-write');
      const bufferIndex = root.listBuffers().indexOf(buffer);
      const grouped = context.accessorUsageGroupedByParent.has(usage) ? parentId(accessor) : null;
      const key = [usage, grouped, mode, byteStride, bufferIndex, filter].join(':');
      let view = this.views[key];
      if (view === undefined) {
        this.viewAccessors[key] = [];
        this.viewData[key] = [];
        view = this.views[key] = {
          buffer: fallbackIndex,
          target: WriterContext.USAGE_TO_TARGET[usage],
          byteOffset: 0,
          byteLength: 0,
          byteStride: usage === WriterContext.BufferViewUsage.ARRAY_BUFFER ? byteStride : undefined,
          extensions: {
            [EXT_MESHOPT_COMPRESSION]: {
              buffer: bufferIndex,
              byteOffset: 0,
              byteLength: 0,
              mode,
              byteStride,
              count: 0,
              ...(filter !== 'NONE' ? { filter } : {}),
            },
          },
        };
      }
      const def = context.createAccessorDef(accessor);
      def.byteOffset = view.byteLength;
      context.accessorIndexMap.set(accessor, json.accessors.length);
      json.accessors.push(def);
      this.viewAccessors[key].push(def);
      this.viewData[key].push(data);
      view.byteLength += data.byteLength;
      view.extensions[EXT_MESHOPT_COMPRESSION].count += accessor.getCount();
    }
  }

  private prewriteBuffers(context: WriterContext): void {
    const root = this.document.getRoot();
    const codec = loadedEncoder();
    for (const key in this.views) {
      const view = this.views[key];
      const def = view.extensions[EXT_MESHOPT_COMPRESSION];
      const buffer = root.listBuffers()[def.buffer];
      const others = context.otherBufferViews.get(buffer) ?? [];
      const source = BufferUtils.concat(this.viewData[key]);
      const encoded = codec.encodeGltfBuffer(source, def.count, def.byteStride, def.mode, 0);
      def.byteLength = encoded.byteLength;
      const padded = BufferUtils.pad(encoded);
      this.viewData[key] = [padded];
      others.push(padded);
      context.otherBufferViews.set(buffer, others);
    }
  }

  write(context: WriterContext): this {
    const json = context.jsonDoc.json;
    let fallbackOffset = 0;
    for (const key in this.views) {
      const view = this.views[key];
      const data = this.viewData[key][0];
      const viewIndex = context.otherBufferViewsIndexMap.get(data);
      if (viewIndex === undefined || json.bufferViews === undefined) continue;
      for (const def of this.viewAccessors[key]) def.bufferView = viewIndex;
      const finalDef = json.bufferViews[viewIndex];
      const compressedOffset = finalDef.byteOffset ?? 0;
      Object.assign(finalDef, view);
      finalDef.byteOffset = fallbackOffset;
      (finalDef.extensions as Record<string, MeshoptViewDef>)[EXT_MESHOPT_COMPRESSION].byteOffset =
        compressedOffset;
      fallbackOffset += BufferUtils.padNumber(view.byteLength);
    }
    const fallback = this.fallbackBuffer;
    if (fallback !== null) {
      const index = context.bufferIndexMap.get(fallback);
      const def = index === undefined ? undefined : json.buffers?.[index];
      if (def) {
        def.byteLength = fallbackOffset;
        def.extensions = { [EXT_MESHOPT_COMPRESSION]: { fallback: true } };
      }
      fallback.dispose();
      this.fallbackBuffer = null;
    }
    return this;
  }
}

function meshoptMode(accessor: Accessor, usage: string): MeshoptMode {
  if (usage === WriterContext.BufferViewUsage.ELEMENT_ARRAY_BUFFER) {
    // TRIANGLES may rotate a triangle's vertices (winding kept): only for lists every user draws as triangles
    const primitives = accessor.listParents().filter((p) => p instanceof Primitive);
    const triangles =
      primitives.length > 0 &&
      primitives.every((p) => p.getMode() === Primitive.Mode.TRIANGLES) &&
      accessor.getCount() % 3 === 0;
    return triangles ? 'TRIANGLES' : 'INDICES';
  }
  return 'ATTRIBUTES';
}

function targetPath(accessor: Accessor): string | null {
  for (const sampler of accessor.listParents()) {
    if (!(sampler instanceof AnimationSampler)) continue;
    for (const channel of sampler.listParents()) {
      if (channel instanceof AnimationChannel) return channel.getTargetPath();
    }
  }
  return null;
}

/** Elements padded to a multiple of 4 bytes, as the `ATTRIBUTES` mode requires. */
function padElements<T extends ArrayLike<number> & { BYTES_PER_ELEMENT: number; length: number }>(
  src: T,
  size: number,
): T & ArrayBufferView {
  const stride = BufferUtils.padNumber(src.BYTES_PER_ELEMENT * size) / src.BYTES_PER_ELEMENT;
  const count = src.length / size;
  const Ctor = (src as unknown as { constructor: new (n: number) => T & ArrayBufferView }).constructor;
  const dst = new Ctor(count * stride) as T & ArrayBufferView & { [i: number]: number };
  for (let i = 0; i < count; i++) for (let k = 0; k < size; k++) dst[i * stride + k] = src[i * size + k];
  return dst;
}
