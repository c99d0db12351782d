export * from './clip.js';
export * from './clip-create.js';
export * from './create.js';
export * from './random.js';
export type * from './types.js';
