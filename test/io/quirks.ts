import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Text of a hand-written BVH quirk fixture in `test/fixtures/bvh/quirks/`. */
export function readQuirk(name: string): string {
  return readFileSync(resolve(here, '..', 'fixtures', 'bvh', 'quirks', name), 'utf8');
}

/** Names of all quirk fixtures. */
export const QUIRK_FILES = [
  'additive-root.bvh',
  'braces-on-line.bvh',
  'case-insensitive.bvh',
  'channels.bvh',
  'extra-row.bvh',
  'frames-no-space.bvh',
  'frames-tab.bvh',
  'missing-row.bvh',
  'multi-root.bvh',
  'names.bvh',
  'numbers.bvh',
  'orders.bvh',
  'whitespace.bvh',
  'wrapped-rows.bvh',
] as const;
