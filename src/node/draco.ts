import { Document } from '@gltf-transform/core';
import { GltfError } from '../io/gltf/errors.js';
import { type GltfDependencies, KHR_DRACO_MESH_COMPRESSION } from '../io/gltf/extensions.js';

// draco3dgltf's Emscripten modules instantiate WebAssembly (which fails under a low `ulimit -v`): they
// are imported only for files that use Draco, once per process.
let decoderLoad: Promise<unknown> | undefined;
let encoderLoad: Promise<unknown> | undefined;

interface Draco3d {
  createDecoderModule(options?: object): Promise<unknown>;
  createEncoderModule(options?: object): Promise<unknown>;
}

async function draco3d(): Promise<Draco3d> {
  // @ts-expect-error: draco3dgltf ships no types
  const m = (await import('draco3dgltf')) as { default?: Draco3d } & Draco3d;
  return m.default ?? m;
}

/**
 * draco3dgltf's decoder (`'decoder'`) or encoder (`'encoder'`) module, loaded on first call.
 *
 * @throws {GltfError} when the package cannot be imported or its WebAssembly cannot be instantiated
 * (for example under an address-space limit), naming the cause.
 */
export async function dracoModule(which: 'decoder' | 'encoder'): Promise<unknown> {
  try {
    if (which === 'decoder') {
      decoderLoad ??= draco3d().then((d) => d.createDecoderModule());
      return await decoderLoad;
    }
    encoderLoad ??= draco3d().then((d) => d.createEncoderModule());
    return await encoderLoad;
  } catch (error) {
    throw new GltfError(
      `${KHR_DRACO_MESH_COMPRESSION}: draco3dgltf's ${which} cannot be loaded here (${(error as Error)?.message ?? String(error)})`,
      {},
      which === 'decoder' ? 'gltf' : 'gltf-write',
    );
  }
}

/**
 * `dependencies` with draco3dgltf's decoder added when the file's bytes name `KHR_draco_mesh_compression`
 * and the caller gave no decoder; the same object otherwise.
 */
export async function withDracoDecoder(
  bytes: Uint8Array,
  dependencies: GltfDependencies | undefined,
): Promise<GltfDependencies | undefined> {
  if (dependencies?.['draco3d.decoder'] !== undefined) return dependencies;
  if (!Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(KHR_DRACO_MESH_COMPRESSION))
    return dependencies;
  return { ...dependencies, 'draco3d.decoder': await dracoModule('decoder') };
}

/**
 * `dependencies` with draco3dgltf's encoder added when one of `docs` (anything else is skipped) uses `KHR_draco_mesh_compression`
 * and the caller gave no encoder; the same object otherwise.
 */
export async function withDracoEncoder(
  docs: readonly unknown[],
  dependencies: GltfDependencies | undefined,
): Promise<GltfDependencies | undefined> {
  if (dependencies?.['draco3d.encoder'] !== undefined) return dependencies;
  const draco = docs.some(
    (d) =>
      d instanceof Document &&
      d
        .getRoot()
        .listExtensionsUsed()
        .some((e) => e.extensionName === KHR_DRACO_MESH_COMPRESSION),
  );
  if (!draco) return dependencies;
  return { ...dependencies, 'draco3d.encoder': await dracoModule('encoder') };
}
