// The accessors a written track uses: inputs shared by equal times, outputs as FLOAT, with negated keys
// in their stored type, or the kept keys of a quantized output in its own component type.
import type { Accessor, Document } from '@gltf-transform/core';
import type { Track } from '../../series/clip.js';
import { matchesAccessor } from './decode.js';

/** Input accessors by their float32 times, so tracks with equal times share one. */
export class InputCache {
  private readonly byKey = new Map<string, Accessor[]>();
  constructor(private readonly doc: Document) {}
  get(times: ArrayLike<number>, existing?: Accessor | null): Accessor {
    const f32 = Float32Array.from(times as ArrayLike<number>);
    const key = `${f32.length}:${f32[0]}:${f32[f32.length - 1]}`;
    const list = this.byKey.get(key) ?? [];
    for (const a of list) if (sameArray(a.getArray() as Float32Array, f32)) return a;
    if (
      existing &&
      existing.getComponentType() === 5126 &&
      sameArray(existing.getArray() as Float32Array, f32)
    ) {
      list.push(existing);
      this.byKey.set(key, list);
      return existing;
    }
    const accessor = this.doc.createAccessor().setType('SCALAR').setArray(f32);
    const buffer = this.doc.getRoot().listBuffers()[0] ?? this.doc.createBuffer();
    accessor.setBuffer(buffer);
    list.push(accessor);
    this.byKey.set(key, list);
    return accessor;
  }
}

function sameArray(a: ArrayLike<number> | null, b: ArrayLike<number>): boolean {
  if (a === null || a.length !== b.length) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Rotation values made sign-continuous; the same array when nothing flips, else a copy. CUBICSPLINE
 * tracks are kept as given: their Hermite curve runs through the stored components, so negating a key
 * (with its tangents) would change the motion between keys.
 */
export function continuous(t: Track): Float64Array | Float32Array | ArrayLike<number> {
  if (t.path !== 'rotation' || t.interpolation === 'cubicspline') return t.values;
  const n = t.times.length;
  const v = t.values;
  let out: Float64Array | null = null;
  let prev = 0;
  for (let k = 1; k < n; k++) {
    const o = k * 4;
    const src = out ?? v;
    const d =
      src[o] * src[prev] +
      src[o + 1] * src[prev + 1] +
      src[o + 2] * src[prev + 2] +
      src[o + 3] * src[prev + 3];
    if (d < 0) {
      if (out === null) out = Float64Array.from(v as ArrayLike<number>);
      for (let i = o; i < o + 4; i++) out[i] = -out[i];
    }
    prev = o;
  }
  return out ?? v;
}

/**
 * `stored` with the keys whose sign `values` flipped relative to `t.values` negated: written into
 * `reuse` when given (an accessor no one else reads), else into a new accessor.
 */
export function negatedKeys(
  doc: Document,
  stored: Accessor,
  t: Track,
  values: ArrayLike<number>,
  reuse: Accessor | null,
): Accessor {
  const array = stored.getArray()!.slice();
  const perKey = (t.interpolation === 'cubicspline' ? 3 : 1) * 4;
  const at = perKey === 12 ? 4 : 0;
  // the most negative BYTE/SHORT decodes to -1, as does the next one up: its negation is the maximum
  const min = array instanceof Int8Array ? -128 : array instanceof Int16Array ? -32768 : Number.NaN;
  for (let k = 0; k < t.times.length; k++) {
    const o = k * perKey;
    let d = 0;
    for (let i = 0; i < 4; i++) d += values[o + at + i] * t.values[o + at + i];
    if (d >= 0) continue;
    for (let i = o; i < o + perKey; i++) array[i] = array[i] === min ? -min - 1 : -array[i];
  }
  if (reuse !== null) return reuse.setArray(array).setSparse(false);
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  return doc
    .createAccessor()
    .setType(stored.getType())
    .setArray(array)
    .setNormalized(stored.getNormalized())
    .setBuffer(buffer);
}

/**
 * The keys of a quantized output (normalized integers, `KHR_mesh_quantization`) that `t` kept, in their
 * stored component type: `t`'s times a subset of `input`'s and its values those the reader decoded from
 * the stored integers at those keys (so writing them as FLOAT would only grow the file: 16-bit rotations
 * become 32-bit, and a reduction of a gltfpack file would be larger than its input). Null when a time is
 * not one of the input's or a value is not the stored one (the values changed): then FLOAT is written.
 */
export function storedSubset(doc: Document, input: Accessor, output: Accessor, t: Track): Accessor | null {
  const times = input.getArray();
  const stored = output.getArray();
  if (times === null || stored === null || !output.getNormalized() || output.getComponentType() === 5126)
    return null;
  const perKey = t.interpolation === 'cubicspline' ? 3 : 1;
  const stride = perKey * t.width;
  if (stored.length !== times.length * stride) return null;
  const out = new (stored.constructor as new (n: number) => typeof stored)(t.times.length * stride);
  let i = 0;
  for (let k = 0; k < t.times.length; k++) {
    while (i < times.length && times[i] !== t.times[k]) i++;
    if (i === times.length) return null;
    for (let c = 0; c < stride; c++) out[k * stride + c] = stored[i * stride + c];
    i++;
  }
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  const accessor = doc
    .createAccessor()
    .setType(output.getType())
    .setArray(out)
    .setNormalized(true)
    .setBuffer(buffer);
  if (matchesAccessor(accessor, t.values, t.path, perKey)) return accessor;
  accessor.dispose();
  return null;
}

/** A FLOAT output accessor of `values`: `reuse` rewritten when given (no one else reads it), else a new one. */
export function outputAccessor(
  doc: Document,
  values: ArrayLike<number>,
  width: number,
  reuse: Accessor | null = null,
): Accessor {
  const type = width === 4 ? 'VEC4' : width === 3 ? 'VEC3' : 'SCALAR';
  if (reuse !== null)
    return reuse.setType(type).setArray(Float32Array.from(values)).setNormalized(false).setSparse(false);
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  return doc.createAccessor().setType(type).setArray(Float32Array.from(values)).setBuffer(buffer);
}

export function disposeIfUnused(accessor: Accessor | null): void {
  if (accessor === null || accessor.isDisposed()) return;
  // the root is always a parent; anything else still uses it
  if (accessor.listParents().length <= 1) accessor.dispose();
}
