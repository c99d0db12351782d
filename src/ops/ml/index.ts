export * from './clip-defaults.js';
export * from './foot-contacts.js';
export * from './motion-features.js';
export * from './root-motion.js';
