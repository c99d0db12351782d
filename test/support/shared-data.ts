import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Root of the shared real-data folder that sits beside the repository (`../shared/data/bvh`). */
export const SHARED_BVH_DIR = resolve(here, '..', '..', '..', 'shared', 'data', 'bvh');

/** True when the shared BVH folder is present; tests that need it use `describe.skipIf(!HAS_SHARED_BVH)`. */
export const HAS_SHARED_BVH = existsSync(SHARED_BVH_DIR);

/** The real BVH files in the shared folder, relative to it, as listed in its README. */
export const SHARED_BVH_FILES = [
  'cmu/01_01.bvh',
  'cmu-iclone/005_11.bvh',
  'bandai-namco/dataset-1_dance-short_normal_001.bvh',
  'bandai-namco/dataset-2_walk-turn-left_normal_001.bvh',
  'axis-neuron/test.bvh',
  'assimp/Boxing_Toes.bvh',
  'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh',
  'lafan1-resolved/Geno_bind.bvh',
] as const;

/**
 * Shared files the repository also carries, byte for byte (see samples/README.md for their sources and
 * terms), so a clone without `../shared` still tests real captures with them.
 */
const BUNDLED: Record<string, string> = {
  'cmu/01_01.bvh': resolve(here, '..', '..', 'samples', '01_01.bvh'),
  'pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh': resolve(
    here,
    '..',
    '..',
    'samples',
    'AV_8Walk_Meredith_HVHA_Rep1.bvh',
  ),
};

/** True when a shared BVH file can be read: from `../shared`, or from the copy the repository carries. */
export function hasRealBvh(relative: string): boolean {
  return HAS_SHARED_BVH || relative in BUNDLED;
}

/** Absolute path of a shared BVH file (the repository's own copy when `../shared` is missing). */
export function sharedBvhPath(relative: string): string {
  return !HAS_SHARED_BVH && relative in BUNDLED ? BUNDLED[relative] : join(SHARED_BVH_DIR, relative);
}

/** Text of a shared BVH file (the repository's own copy when `../shared` is missing). */
export function readSharedBvh(relative: string): string {
  return readFileSync(sharedBvhPath(relative), 'utf8');
}

/** Reads a committed JSON fixture from `test/fixtures/`. */
export function readFixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(resolve(here, '..', 'fixtures', name), 'utf8')) as T;
}
