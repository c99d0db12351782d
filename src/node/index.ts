/**
 * rotsig/node: the parts of rotsig that touch the file system: reading and writing BVH and glTF files
 * (atomically: a reader sees the old file or the complete new one), atomic writes of any content, and
 * walking input trees with a glob. Every function checks its arguments and reports a failed file
 * operation as a {@link FileError} naming the file, with the system's code (`'ENOENT'`, `'EACCES'`, ...).
 *
 * The command line's machinery (output planning, the worker pool, the batch runner, progress) lives beside
 * these modules and is not part of this interface.
 *
 * @packageDocumentation
 */
export { FileError } from '../errors.js';
export { type AtomicContent, writeFileAtomic, writeFileAtomicAsync } from './atomic.js';
export { BVH_TO_GLTF_SCALE } from './bvh-scale.js';
export {
  COLLECT_DEFAULTS,
  type CollectOptions,
  collectInputs,
  type InputFile,
  type MissingInput,
  type SkippedInput,
} from './files.js';
export { readGltfFile, writeGltfFile } from './gltf.js';
export { READ_BVH_FILE_DEFAULTS, type ReadBvhFileOptions, readBvhFile, writeBvhFile } from './read.js';
