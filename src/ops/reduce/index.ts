export * from './reduce-keys.js';
