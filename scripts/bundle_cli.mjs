// Bundles the built command line into dist/cli-bundle/, which bin/rotsig.js runs. Its entries are
// dist/cli/main.js and the batch pool's worker, dist/node/worker.js. Loading the ~160 ES modules of a
// command one by one (resolve, read, compile each) is most of its start-up; a dozen files load in a
// fraction of that time (`rotsig info` on one BVH: about 80 ms less, a batch about 15% less).
// The code is tsc's output as it is. Packages and node: built-ins stay imports, resolved from
// node_modules as before.
//
// Run after tsc: `npm run build` does both. Usage: node scripts/bundle_cli.mjs
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'cli-bundle');

for (const entry of ['cli/main.js', 'node/worker.js']) {
  if (!existsSync(join(dist, entry))) throw new Error(`bundle_cli: dist/${entry} is missing: run tsc first`);
}
rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(dist, 'cli', 'main.js'), worker: join(dist, 'node', 'worker.js') },
  platform: 'node',
  // what is not a relative or absolute path is a package or a node: built-in: left to Node to resolve
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  logLevel: 'warn',
});
await bundle.write({ dir: out, format: 'esm' });
await bundle.close();

// The batch pool starts its threads from `new URL('./worker.js', import.meta.url)`: the worker entry must
// sit beside every chunk that says so.
const files = readdirSync(out);
if (!files.includes('worker.js')) throw new Error('bundle_cli: no worker.js in dist/cli-bundle');
const referencing = files.filter((f) =>
  /new URL\(["']\.\/worker\.js["'], import\.meta\.url\)/.test(readFileSync(join(out, f), 'utf8')),
);
if (referencing.length === 0) throw new Error("bundle_cli: no chunk starts the batch pool's worker");
console.log(`dist/cli-bundle: ${files.length} files (entries main.js, worker.js)`);
