export * from './clean-clip.js';
export * from './mean-acceleration.js';
export * from './smoothing-from-spectrum.js';
export * from './spikes.js';
