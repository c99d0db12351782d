// Runs once before the suite: says in one line which real-data tests a clone without ../shared skips, and
// why, instead of skipping them silently.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HAS_SHARED_BVH, SHARED_BVH_DIR } from './shared-data.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

export default function setup(): void {
  if (HAS_SHARED_BVH) return;
  const files = testFiles(join(root, 'test')).filter((f) =>
    readFileSync(f, 'utf8').includes('HAS_SHARED_BVH'),
  );
  const blocks = files.reduce(
    (n, f) => n + (readFileSync(f, 'utf8').match(/skipIf\(!HAS_SHARED_BVH\)/g)?.length ?? 0),
    0,
  );
  console.warn(
    `real-data tests skipped: ${relative(root, SHARED_BVH_DIR)} not found (${blocks} test blocks in ${files.length} files need it); ` +
      'the captures in samples/ (CMU 01_01, the Meredith walk) and test/fixtures/ still run',
  );
}
