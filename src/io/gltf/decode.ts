// Decoding rules shared by the reader and the writer's comparison; internal (not re-exported).
import type { Accessor } from '@gltf-transform/core';

/** glTF component types. */
const BYTE = 5120;
const UNSIGNED_BYTE = 5121;
const SHORT = 5122;
const UNSIGNED_SHORT = 5123;

/** {@link decodeKind} of components taken as they are. */
export const AS_IS = 0;

/** How the components of an accessor decode: 0 as they are, else the normalized component type's rule. */
export function decodeKind(accessor: Accessor): number {
  if (!accessor.getNormalized()) return AS_IS;
  switch (accessor.getComponentType()) {
    case BYTE:
      return 1;
    case UNSIGNED_BYTE:
      return 2;
    case SHORT:
      return 3;
    case UNSIGNED_SHORT:
      return 4;
    default:
      return AS_IS;
  }
}

/** One stored component decoded by its {@link decodeKind}. */
export function decodeComponent(c: number, kind: number): number {
  switch (kind) {
    case 1:
      return Math.max(c / 127, -1);
    case 2:
      return c / 255;
    case 3:
      return Math.max(c / 32767, -1);
    case 4:
      return c / 65535;
    default:
      return c;
  }
}

/**
 * The factor a rotation key of length `len` is multiplied by on read: `1 / len` when the output is
 * quantized (lengths like 1.0022) or the length is off 1 by more than 1e-3, else 1 (kept as stored).
 */
export function rotationScale(len: number, quantized: boolean): number {
  const off = Math.abs(len - 1) > 1e-3;
  return (quantized || off) && len > 0 && len !== 1 ? 1 / len : 1;
}

/**
 * True when `values` are exactly what {@link decodeTrackValues} gives for the accessor with no repair
 * (`path` `'rotation'` normalizes as it does; any other path compares the decoded components), found
 * without allocating; false when a rotation key would be repaired, so the writer writes it again.
 */
export function matchesAccessor(
  accessor: Accessor,
  values: ArrayLike<number>,
  path: string,
  perKey: number,
): boolean {
  const array = accessor.getArray();
  if (array === null) return values.length === 0;
  const n = array.length;
  if (n !== values.length) return false;
  const kind = decodeKind(accessor);
  if (path !== 'rotation') {
    if (kind === AS_IS) {
      for (let i = 0; i < n; i++) if (array[i] !== values[i]) return false;
    } else {
      for (let i = 0; i < n; i++) if (decodeComponent(array[i], kind) !== values[i]) return false;
    }
    return true;
  }
  const quantized = accessor.getNormalized() && accessor.getComponentType() !== 5126;
  const stride = perKey * 4;
  if (n % stride !== 0) return false;
  const at = perKey === 3 ? 4 : 0;
  for (let o = 0; o < n; o += stride) {
    const q = o + at;
    const x = decodeComponent(array[q], kind);
    const y = decodeComponent(array[q + 1], kind);
    const z = decodeComponent(array[q + 2], kind);
    const w = decodeComponent(array[q + 3], kind);
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    const s = rotationScale(len, quantized);
    if (s !== 1 && !quantized) return false;
    if (x * s !== values[q] || y * s !== values[q + 1] || z * s !== values[q + 2] || w * s !== values[q + 3])
      return false;
    for (let i = o; i < o + stride; i++) {
      if (i === q) i += 4;
      if (i < o + stride && decodeComponent(array[i], kind) !== values[i]) return false;
    }
  }
  return true;
}
