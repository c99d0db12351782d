import type { Animation, AnimationChannel, Document } from '@gltf-transform/core';
import { GltfError } from './errors.js';
import { KHRMeshQuantizationMarker } from './source.js';

/** Largest magnitude of a normalised signed 16-bit component (glTF: `c / 32767`). */
const SHORT_MAX = 32767;

/**
 * Stores the rotation keys of `animations` as normalised signed 16-bit integers (glTF componentType
 * SHORT, `normalized: true`): each component `x` becomes `round(x·32767)`, which a player decodes as
 * `max(c / 32767, −1)` and normalises after interpolating. glTF 2.0 allows such rotation outputs in the
 * core specification; `KHR_mesh_quantization` is declared used and required as well, so that
 * pipelines which check for it (and the quantised translations or scales some tools add) accept the file.
 *
 * Only LINEAR and STEP rotation samplers with FLOAT outputs change (CUBICSPLINE tangents are not bounded
 * by 1). Keys already on the 16-bit grid (from `reduceKeys` with `quantization: 'int16'`) are stored
 * exactly, so the error `reduceKeys` reports is the error of the file; other keys are rounded here. An
 * output accessor that another sampler shares is copied, never changed under it; a FLOAT accessor left
 * without users is disposed. A channel for which `keepFloat` returns true keeps its float output (variable
 * bit rates store the rotations no filter width holds as float32). Returns the number of samplers changed.
 *
 * @throws {GltfError} (code `'gltf-write'`) when a rotation output holds a non-finite value or a
 * component beyond ±1.0001 (not a unit quaternion), since neither fits the normalised range.
 * @example
 * const reduced = reduceKeys(keyed, { preset: 'acl' }).clip;
 * const { document } = await writeGltf(null, [reduced]);
 * quantizeRotations(document, document.getRoot().listAnimations()); // then write the document again
 */
export function quantizeRotations(
  doc: Document,
  animations: readonly Animation[],
  keepFloat?: (channel: AnimationChannel, animation: Animation) => boolean,
): number {
  let changed = 0;
  const ext = doc.createExtension(KHRMeshQuantizationMarker);
  for (const animation of animations) {
    const a = doc.getRoot().listAnimations().indexOf(animation);
    const channels = animation.listChannels();
    for (let c = 0; c < channels.length; c++) {
      const channel = channels[c];
      const sampler = channel.getSampler();
      if (channel.getTargetPath() !== 'rotation' || sampler === null) continue;
      if (sampler.getInterpolation() === 'CUBICSPLINE') continue;
      if (keepFloat?.(channel, animation)) continue;
      const output = sampler.getOutput();
      if (output === null || output.getType() !== 'VEC4') continue;
      const src = output.getArray();
      if (!(src instanceof Float32Array)) continue;
      const dst = new Int16Array(src.length);
      for (let i = 0; i < src.length; i++) {
        const x = src[i];
        if (!Number.isFinite(x) || Math.abs(x) > 1.0001)
          throw new GltfError(
            `rotation output value ${x} is not a unit quaternion component; cannot store it as 16-bit`,
            { animation: a, channel: c, key: Math.floor(i / 4) },
            'gltf-write',
          );
        dst[i] = Math.max(-SHORT_MAX, Math.min(SHORT_MAX, Math.round(x * SHORT_MAX)));
      }
      const quantized = doc
        .createAccessor(output.getName())
        .setType('VEC4')
        .setArray(dst)
        .setNormalized(true)
        .setBuffer(output.getBuffer());
      sampler.setOutput(quantized);
      changed++;
      // disposed when no sampler uses it any more (the root is always a parent)
      if (output.listParents().every((p) => p === doc.getRoot())) output.dispose();
    }
  }
  if (changed > 0) ext.setRequired(true);
  else ext.dispose();
  return changed;
}
