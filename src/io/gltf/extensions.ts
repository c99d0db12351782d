import type { Extension } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { OptionError } from '../../errors.js';
import { GltfError } from './errors.js';
import { EXTMeshoptCompression } from './meshopt.js';
import { KHRAnimationPointer } from './pointer.js';
import { KHRMeshQuantizationMarker } from './source.js';

/** Name of the Draco mesh compression extension in a glTF file. */
export const KHR_DRACO_MESH_COMPRESSION = 'KHR_draco_mesh_compression';

/**
 * Modules some extensions need, by glTF-Transform's dependency names (`io.registerDependencies`):
 * `'draco3d.decoder'` (reading `KHR_draco_mesh_compression`) and `'draco3d.encoder'` (writing it) are
 * the modules of the `draco3dgltf` package (`await draco3d.createDecoderModule()`,
 * `await draco3d.createEncoderModule()`). `rotsig/node`'s `readGltfFile` and `writeGltfFile` load them
 * when a file needs them; in a browser, load a browser build of the Draco decoder and pass it here.
 */
export type GltfDependencies = Record<string, unknown>;

/**
 * The extensions {@link readGltf} and {@link writeGltf} register: every extension glTF-Transform
 * supports (`ALL_EXTENSIONS` of `@gltf-transform/extensions`: the Khronos extensions, Draco, WebP,
 * AVIF, instancing, mesh features, structural metadata), with rotsig's own `KHR_mesh_quantization`,
 * `KHR_animation_pointer` (glTF-Transform has none) and `EXT_meshopt_compression`
 * ({@link EXTMeshoptCompression}, which loads meshoptimizer only for meshopt data and turns its failure
 * into a {@link GltfError}; glTF-Transform's needs the codecs given up front). `extra` comes last and
 * replaces a built-in extension of the same name.
 *
 * @throws {OptionError} when `extra` is not an array of extension classes.
 */
export function registeredExtensions(extra: readonly (typeof Extension)[] = []): (typeof Extension)[] {
  if (
    !Array.isArray(extra) ||
    extra.some((e) => typeof e !== 'function' || typeof e.EXTENSION_NAME !== 'string')
  )
    throw new OptionError('registeredExtensions: extra must be an array of glTF-Transform extension classes');
  const byName = new Map<string, typeof Extension>();
  for (const e of ALL_EXTENSIONS) byName.set(e.EXTENSION_NAME, e);
  for (const e of [KHRMeshQuantizationMarker, KHRAnimationPointer, EXTMeshoptCompression, ...extra])
    byName.set(e.EXTENSION_NAME, e as typeof Extension);
  return [...byName.values()];
}

/**
 * Throws a {@link GltfError} when a file uses Draco and the Draco module the step needs is missing:
 * glTF-Transform would otherwise fail with its own message, or write the meshes without their data.
 */
export function checkDraco(
  extensionsUsed: readonly string[],
  dependencies: GltfDependencies,
  step: 'read' | 'write',
  file?: string,
): void {
  if (!extensionsUsed.includes(KHR_DRACO_MESH_COMPRESSION)) return;
  const key = step === 'read' ? 'draco3d.decoder' : 'draco3d.encoder';
  if (dependencies[key] !== undefined && dependencies[key] !== null) return;
  throw new GltfError(
    step === 'read'
      ? `${KHR_DRACO_MESH_COMPRESSION}: the meshes are Draco-compressed and no Draco decoder was given; pass draco3dgltf's decoder module as options.dependencies['draco3d.decoder'] (rotsig/node's readGltfFile loads it)`
      : `${KHR_DRACO_MESH_COMPRESSION}: the document has Draco-compressed meshes and no Draco encoder was given; pass draco3dgltf's encoder module as options.dependencies['draco3d.encoder'] (rotsig/node's writeGltfFile loads it), or write with compression: 'none'`,
    file !== undefined ? { file } : {},
    step === 'read' ? 'gltf' : 'gltf-write',
  );
}
