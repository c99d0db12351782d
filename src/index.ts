/**
 * rotsig: signal processing on rotations. The root entry point is browser-safe: no `node:*`, no DOM.
 * Formats live in `rotsig/io`, files and workers in `rotsig/node`.
 *
 * @packageDocumentation
 */
export * from './errors.js';
export type { EulerOrder } from './quat/euler.js';
export * as quat from './quat/index.js';
export * from './series/index.js';
// operations (one file each) are re-exported below, one line per file
