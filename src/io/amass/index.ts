export * from './amass.js';
export * from './skeletons.js';
