/**
 * rotsig/io: file formats as text or bytes in, data out (BVH reader and writer, glTF/GLB animation reader
 * and writer, NumPy `.npy` and `.npz` reader and writer).
 * Browser-safe: no `node:*`; reading files from disk is the caller's (or `rotsig/node`'s) job.
 *
 * @packageDocumentation
 */

export * from './amass/index.js';
export * from './bvh/errors.js';
export * from './bvh/parse.js';
export * from './bvh/write.js';
export * from './gltf/index.js';
export {
  type NdArray,
  type NpyArray,
  type NpyDtype,
  PARSE_NPY_DEFAULTS,
  type ParseNpyOptions,
  parseNpy,
  writeNpy,
} from './npy.js';
export * from './npy-errors.js';
export * from './npz.js';
export * from './smpl-params.js';
