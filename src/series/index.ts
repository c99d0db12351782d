export type * from './clip.js';
export * from './create.js';
export type * from './types.js';
