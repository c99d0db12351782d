import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Every ```ts block of the README that imports rotsig is run against the sources, so the examples users
// copy are known to work.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
  .map((m) => m[1])
  .filter((b) => /from 'rotsig/.test(b));
const tmp = join(root, 'test', '.readme-examples');

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('README examples', () => {
  it('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((b, i) => [i + 1, b] as const))('example %i runs without throwing', async (i, block) => {
    mkdirSync(tmp, { recursive: true });
    const code = block
      .replaceAll("from 'rotsig/io'", `from '${join(root, 'src/io/index.ts')}'`)
      .replaceAll("from 'rotsig/node'", `from '${join(root, 'src/node/index.ts')}'`)
      .replaceAll("from 'rotsig/three'", `from '${join(root, 'src/three/index.ts')}'`)
      .replaceAll("from 'rotsig'", `from '${join(root, 'src/index.ts')}'`);
    const file = join(tmp, `example-${i}.ts`);
    writeFileSync(file, code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockRestore();
    }
  });
});
