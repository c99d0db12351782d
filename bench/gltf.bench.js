// glTF I/O (issue: glTF/GLB animation). readGltf and writeGltf of the largest shared GLB
// (RobotExpressive.glb, 464 KB, 14 animations; the committed Fox.glb when ../shared is absent) in kB/s,
// next to @gltf-transform/core's own readBinary / writeBinary of the same bytes (target: within +20%),
// and `process --unroll --smooth gaussian:2 --resample 30` on every GLB of the folder, in files/s.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebIO } from '@gltf-transform/core';
import { readGltf, writeGltf } from '../dist/io/index.js';
import { runAnyFileTask } from '../dist/node/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const shared = join(here, '..', '..', 'shared', 'data', 'gltf');
const largest = join(shared, 'robot-expressive', 'RobotExpressive.glb');
const file = existsSync(largest) ? largest : join(here, '..', 'test', 'fixtures', 'gltf', 'Fox.glb');
const bytes = new Uint8Array(readFileSync(file));
const KB = bytes.length / 1e3;

function glbs(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? glbs(join(dir, e.name)) : e.name.endsWith('.glb') ? [join(dir, e.name)] : [],
  );
}
const folder = existsSync(shared) ? shared : join(here, '..', 'test', 'fixtures', 'gltf');
const files = glbs(folder);
const out = mkdtempSync(join(tmpdir(), 'rotsig-bench-gltf-'));
const steps = [
  { op: 'unroll' },
  { op: 'smooth', kernel: { name: 'gaussian', sigma: 2 }, space: 'raw' },
  { op: 'resample', rate: 30 },
];

export default {
  name: 'gltf',
  tasks: [
    {
      name: `readGltf ${file.split('/').pop()} (kB)`,
      items: KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      run: () => readGltf(bytes),
    },
    {
      name: `@gltf-transform/core WebIO.readBinary ${file.split('/').pop()} (kB)`,
      items: KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      run: () => new WebIO().readBinary(bytes),
    },
    {
      name: `writeGltf (unchanged clips) ${file.split('/').pop()} (kB)`,
      items: KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      // the same document each run: writing unchanged clips back leaves it as it was, so every run does the same work
      setup: () => readGltf(bytes),
      run: (r) => writeGltf(r.document, r.clips),
    },
    {
      name: `@gltf-transform/core WebIO.writeBinary ${file.split('/').pop()} (kB)`,
      items: KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      setup: async () => ({ doc: await new WebIO().readBinary(bytes) }),
      run: (s) => new WebIO().writeBinary(s.doc),
    },
    {
      name: `process --unroll --smooth gaussian:2 --resample 30 on ${files.length} GLB files, one thread (files)`,
      items: files.length,
      unit: 'files',
      time: 3000,
      run: async () => {
        for (const [i, f] of files.entries()) {
          const r = await runAnyFileTask({
            input: f,
            output: join(out, `${i}.glb`),
            steps,
            emit: { kind: 'bvh' },
          });
          if (!r.ok) throw new Error(`${f}: ${r.error?.message}`);
        }
      },
    },
  ],
};
