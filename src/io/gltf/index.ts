export * from './errors.js';
export {
  type GltfDependencies,
  KHR_DRACO_MESH_COMPRESSION,
  registeredExtensions,
} from './extensions.js';
export * from './meshopt.js';
export * from './pointer.js';
export * from './read.js';
export * from './skin-shells.js';
export * from './source.js';
export {
  type GltfWriteResult,
  WRITE_GLTF_DEFAULTS,
  type WriteGltfOptions,
  writeGltf,
} from './write.js';
