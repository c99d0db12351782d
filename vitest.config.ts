import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  // tests of the studio's modules (web/src) import rotsig from source, as the studio's build does
  resolve: {
    alias: [
      { find: /^rotsig\/io$/, replacement: here('src/io/index.ts') },
      { find: /^rotsig\/pipeline$/, replacement: here('src/pipeline/index.ts') },
      { find: /^rotsig$/, replacement: here('src/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
