import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The studio imports rotsig from source, exactly like a user imports the package.
export default defineConfig({
  root: here('.'),
  base: './',
  resolve: {
    alias: [
      { find: /^rotsig\/io$/, replacement: here('../src/io/index.ts') },
      { find: /^rotsig\/pipeline$/, replacement: here('../src/pipeline/index.ts') },
      { find: /^rotsig\/three$/, replacement: here('../src/three/index.ts') },
      { find: /^rotsig$/, replacement: here('../src/index.ts') },
    ],
  },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
