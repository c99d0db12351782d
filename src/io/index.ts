/**
 * rotsig/io: file formats as text or bytes in, data out (BVH reader and writer, glTF/GLB animation reader
 * and writer, NumPy `.npy` writer).
 * Browser-safe: no `node:*`; reading files from disk is the caller's (or `rotsig/node`'s) job.
 *
 * @packageDocumentation
 */
export * from './bvh/errors.js';
export * from './bvh/parse.js';
export * from './bvh/write.js';
export * from './gltf/index.js';
export * from './npy.js';
