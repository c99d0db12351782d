import type { BvhSource, Clip } from '../../src/series/clip.js';

/** The BVH layout a clip read from BVH carries (`clip.source`); fails the test when there is none. */
export function bvhOf(clip: Clip): BvhSource {
  const source = clip.source as BvhSource | undefined;
  if (source?.format !== 'bvh') throw new Error('expected a clip read from BVH (clip.source.format "bvh")');
  return source;
}
