import type { Document } from '@gltf-transform/core';
import { type Accessor, Extension, type ReaderContext, type WriterContext } from '@gltf-transform/core';
import { ShapeError } from '../../errors.js';
import type { ClipSource, Interpolation } from '../../series/clip.js';
import { AS_IS, decodeComponent, decodeKind, rotationScale } from './decode.js';

/**
 * What the glTF reader keeps in `clip.source` so {@link writeGltf} can put a processed animation back
 * where it came from. Operations carry it through and never read it.
 */
export interface GltfSource extends ClipSource {
  format: 'gltf';
  /** The document the clip was read from; `writeGltf` writes into it. */
  document: Document;
  /** Node index (in the document's node list) of each joint of the clip's skeleton. */
  nodes: Int32Array;
  /** Index of the animation in the document. */
  animation: number;
  /** The animation's name, `''` when it has none. */
  animationName: string;
  /** The file name the reader was told, for messages. */
  file?: string;
}

/**
 * The clip's glTF source when it has one (`source.format === 'gltf'`) that fits its skeleton, else
 * `undefined`.
 */
export function gltfSourceOf(clip: {
  source?: ClipSource;
  skeleton: { names: string[] };
}): GltfSource | undefined {
  if (clip === null || typeof clip !== 'object')
    throw new ShapeError('gltfSourceOf: clip must be a Clip or KeyedClip');
  const s = clip.source as GltfSource | undefined;
  if (s === undefined || s === null || s.format !== 'gltf') return undefined;
  if (!(s.nodes instanceof Int32Array) || s.nodes.length !== clip.skeleton.names.length) return undefined;
  if (s.document === undefined || s.document === null) return undefined;
  return s;
}

/** The glTF interpolation name of a track's interpolation. */
export function gltfInterpolation(i: Interpolation): 'STEP' | 'LINEAR' | 'CUBICSPLINE' {
  return i === 'step' ? 'STEP' : i === 'cubicspline' ? 'CUBICSPLINE' : 'LINEAR';
}

/** The track interpolation of a glTF sampler interpolation, or `undefined` for an unknown one. */
export function trackInterpolation(name: string): Interpolation | undefined {
  return name === 'STEP'
    ? 'step'
    : name === 'LINEAR'
      ? 'linear'
      : name === 'CUBICSPLINE'
        ? 'cubicspline'
        : undefined;
}

/**
 * An accessor's elements as float64, normalized integers decoded as glTF 2.0 (§3.11,
 * KHR_mesh_quantization) specifies: `max(c / 127, -1)` for BYTE, `c / 255` for UNSIGNED_BYTE,
 * `max(c / 32767, -1)` for SHORT, `c / 65535` for UNSIGNED_SHORT. Non-normalized integers are taken as
 * they are.
 */
export function decodeAccessor(accessor: Accessor): Float64Array {
  if (accessor === null || typeof accessor !== 'object' || typeof accessor.getArray !== 'function') {
    throw new ShapeError('decodeAccessor: expected a glTF-Transform Accessor');
  }
  const array = accessor.getArray();
  if (array === null) return new Float64Array(0);
  const out = new Float64Array(array.length);
  const kind = decodeKind(accessor);
  if (kind === AS_IS) {
    out.set(array);
    return out;
  }
  for (let i = 0; i < out.length; i++) out[i] = decodeComponent(array[i], kind);
  return out;
}

/**
 * A sampler output as the reader gives it: decoded (see {@link decodeAccessor}) and, for rotations,
 * each key's quaternion (not the CUBICSPLINE tangents) divided by its length when the output is a
 * normalized integer (quantization leaves lengths like 1.0022) or when the length is off 1 by more than
 * 1e-3 (`onRepair` is told the key and length first); float keys within 1e-3 of unit length are kept
 * as stored, so a file read and written back keeps its bytes.
 */
export function decodeTrackValues(
  accessor: Accessor,
  path: string,
  perKey: number,
  onRepair?: (key: number, length: number) => void,
): Float64Array {
  const values = decodeAccessor(accessor);
  if (path !== 'rotation') return values;
  const quantized = accessor.getNormalized() && accessor.getComponentType() !== 5126;
  const keys = Math.floor(values.length / (4 * perKey));
  const at = perKey === 3 ? 4 : 0;
  for (let k = 0; k < keys; k++) {
    const o = k * perKey * 4 + at;
    const x = values[o];
    const y = values[o + 1];
    const z = values[o + 2];
    const w = values[o + 3];
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    const s = rotationScale(len, quantized);
    if (s === 1) continue;
    if (!quantized) onRepair?.(k, len);
    values[o] = x * s;
    values[o + 1] = y * s;
    values[o + 2] = z * s;
    values[o + 3] = w * s;
  }
  return values;
}

/**
 * `KHR_mesh_quantization` as a glTF-Transform extension: the extension adds no properties, it only
 * allows integer attribute and animation-output types, so registering it is enough to read and write
 * files that require it (the same as `@gltf-transform/extensions`' `KHRMeshQuantization`).
 */
export class KHRMeshQuantizationMarker extends Extension {
  public static override readonly EXTENSION_NAME = 'KHR_mesh_quantization';
  public override readonly extensionName = 'KHR_mesh_quantization';
  read(_context: ReaderContext): this {
    return this;
  }
  write(_context: WriterContext): this {
    return this;
  }
}
