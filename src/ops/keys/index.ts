/**
 * Keyed tracks: evaluate glTF-style tracks at any time, bake them onto a uniform grid, turn a clip back
 * into keys, cut time ranges and make clips additive.
 *
 * @module
 */
export * from './additive.js';
export * from './bake-clip.js';
export * from './evaluate-track.js';
export * from './keys-from-clip.js';
export * from './rotation-spline.js';
export * from './subclip.js';
export { assertKeyedClip, assertTrack, INTERPOLATIONS, pathWidth, TRACK_PATHS } from './track-checks.js';
export { vectorSplineTrack } from './vector-spline.js';
