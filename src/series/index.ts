export * from './clip.js';
export * from './clip-create.js';
export * from './create.js';
export type * from './types.js';
