import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The studio's Content-Security-Policy: the page and its worker load and connect to their own origin only
 * (plus blob: and data: URLs, which GLTFLoader makes from the files opened with a model), so a model file
 * naming a URL elsewhere can make no request. WebAssembly compiles ('wasm-unsafe-eval': the SIMD kernels),
 * eval does not; inline style attributes are allowed (uPlot and the legends set them), inline scripts not.
 * It goes in a meta tag of index.html and in the headers of the dev and preview servers (a worker takes
 * the policy of its own response, not the page's meta tag).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self' blob: data:",
  "img-src 'self' blob: data:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Puts the policy first in the page's head (before any script or style the build adds). */
const cspMeta: Plugin = {
  name: 'rotsig-csp-meta',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
      injectTo: 'head-prepend',
    },
  ],
};
const headers = { 'Content-Security-Policy': CONTENT_SECURITY_POLICY };

// The studio imports rotsig from source, exactly like a user imports the package.
export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [cspMeta],
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
  server: { host: '127.0.0.1', headers },
  preview: { host: '127.0.0.1', headers },
});
