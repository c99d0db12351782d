import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Format, NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
// @ts-expect-error: gltf-validator ships no types
import * as validator from 'gltf-validator';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { glbBytes } from '../../src/io/gltf/glb-json.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Root of the shared real glTF folder beside the repository (`../shared/data/gltf`). */
export const SHARED_GLTF_DIR = resolve(here, '..', '..', '..', 'shared', 'data', 'gltf');

/** True when the shared glTF folder is present. */
export const HAS_SHARED_GLTF = existsSync(SHARED_GLTF_DIR);

/** The glTF fixtures committed with the repository (with their attribution in its README). */
export const FIXTURE_GLTF_DIR = resolve(here, '..', 'fixtures', 'gltf');

/** The 18 glTF/GLB files of the shared folder, as its README lists them. */
export const SHARED_GLTF_FILES = [
  'khronos-samples/Fox.glb',
  'khronos-samples/rigged_figure.glb',
  'khronos-samples/BoxAnimated.glb',
  'khronos-samples/AnimatedMorphCube.glb',
  'khronos-samples/cesium_man.gltf',
  'khronos-samples/rigged_simple.gltf',
  'khronos-samples/interpolation_test.gltf',
  'robot-expressive/RobotExpressive.glb',
  'gltfpack/RobotExpressive.gltfpack.glb',
  'gltfpack/AnimatedMorphCube.gltfpack.glb',
  'asset-generator/Animation_SamplerType_00.gltf',
  'asset-generator/Animation_SamplerType_01.gltf',
  'asset-generator/Animation_SamplerType_02.gltf',
  'magnum/animation.gltf',
  'magnum/animation.glb',
  'magnum/animation-splines-sharing.gltf',
  'magnum/animation-patching.gltf',
  'blender-io/07_nla-anim.gltf',
] as const;

/** Absolute path of a shared glTF file. */
export function sharedGltfPath(relative: string): string {
  return join(SHARED_GLTF_DIR, relative);
}

/** One issue of the Khronos validator's report. */
export interface ValidatorIssue {
  code: string;
  message: string;
  severity: number;
  pointer?: string;
}

/**
 * Runs the Khronos glTF validator on bytes (GLB or .gltf JSON); `resources` answers external URIs.
 * Returns every issue: errors (severity 0), warnings (1), infos (2) and hints (3).
 */
export async function validatorIssues(
  bytes: Uint8Array,
  resources: (uri: string) => Uint8Array | undefined = () => undefined,
): Promise<ValidatorIssue[]> {
  const report = await validator.validateBytes(bytes, {
    maxIssues: 0,
    writeTimestamp: false,
    externalResourceFunction: (uri: string) => {
      const data = resources(decodeURIComponent(uri));
      return data ? Promise.resolve(data) : Promise.reject(new Error(`missing ${uri}`));
    },
  });
  return report.issues.messages as ValidatorIssue[];
}

/**
 * Runs the Khronos glTF validator on bytes (GLB or .gltf JSON); `resources` answers external URIs.
 * Returns the errors (severity 0).
 */
export async function validatorErrors(
  bytes: Uint8Array,
  resources: (uri: string) => Uint8Array | undefined = () => undefined,
): Promise<ValidatorIssue[]> {
  return (await validatorIssues(bytes, resources)).filter((m) => m.severity === 0);
}

/** Resources of a .gltf on disk, by URI, for {@link validatorErrors}. */
export function resourcesBeside(path: string): (uri: string) => Uint8Array | undefined {
  return (uri) => {
    const target = resolve(dirname(path), uri);
    return existsSync(target) ? new Uint8Array(readFileSync(target)) : undefined;
  };
}

/** The GLB with EXT_meshopt_compression decoded by glTF-Transform and meshoptimizer (else as it is). */
export async function meshoptDecoded(glb: Uint8Array): Promise<Uint8Array> {
  await MeshoptDecoder.ready;
  const doc = await new NodeIO()
    .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
    .readBinary(glb);
  const ext = doc
    .getRoot()
    .listExtensionsUsed()
    .find((e) => e.extensionName === 'EXT_meshopt_compression');
  if (!ext) return glb;
  ext.dispose();
  const { json, resources } = await new NodeIO()
    .registerExtensions([KHRMeshQuantization])
    .writeJSON(doc, { format: Format.GLB });
  // the nodes' transforms as the file holds them: glTF-Transform's writer leaves out any within 1e-5 of
  // the default, which would move what hangs below such a node (gltfpack's leg bones scaled 0.999993)
  const source = glbJson(glb);
  (source.nodes ?? []).forEach((node: Record<string, unknown>, i: number) => {
    const def = (json.nodes ?? [])[i] as Record<string, unknown> | undefined;
    if (def)
      for (const k of ['translation', 'rotation', 'scale']) if (node[k] !== undefined) def[k] = node[k];
  });
  return glbBytes(json, Object.values(resources)[0]);
}

/** The JSON chunk of GLB bytes, parsed (the raw JSON: no reader in between). */
// biome-ignore lint/suspicious/noExplicitAny: raw glTF JSON
export function glbJson(glb: Uint8Array): any {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + view.getUint32(12, true))));
}
