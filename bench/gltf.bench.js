// glTF I/O (issue: glTF/GLB animation). readGltf and writeGltf of the largest shared GLB
// (RobotExpressive.glb, 464 KB, 14 animations; the committed Fox.glb when ../shared is absent) in kB/s,
// next to @gltf-transform/core's own readBinary / writeBinary of the same bytes; the target is
// rotsig's cost within +20% of glTF-Transform's. The overhead tasks run both in one process, interleaved
// call by call (so both see the same load and JIT state), and print rotsig's extra time in % of
// glTF-Transform's, by wall clock and by this process's CPU time: for the largest GLB (read, write of
// the clips read, and read then write), and for read then write of every GLB of the shared folder.
// Last, `process --unroll --smooth gaussian:2 --resample 30` on every GLB of the folder, in files/s.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebIO } from '@gltf-transform/core';
import { KHRMeshQuantizationMarker, readGltf, writeGltf } from '../dist/io/index.js';
import { runAnyFileTask } from '../dist/node/tasks.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Wall-clock and CPU milliseconds of each side of an interleaved A/B, summed over the pairs run. */
function abState(make) {
  return { ...make, ours: { wall: 0, cpu: 0 }, theirs: { wall: 0, cpu: 0 }, pairs: 0 };
}

async function timed(acc, fn) {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await fn();
  acc.wall += performance.now() - t;
  const d = process.cpuUsage(c);
  acc.cpu += (d.user + d.system) / 1000;
  return r;
}

/** One pair, in alternating order so neither side always runs on the other's garbage. */
async function pair(s, ours, theirs) {
  if (s.pairs++ % 2 === 0) {
    await timed(s.ours, ours);
    await timed(s.theirs, theirs);
  } else {
    await timed(s.theirs, theirs);
    await timed(s.ours, ours);
  }
}

function overhead(s, what) {
  const pct = (a, b) => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(1)}%`;
  const n = s.pairs;
  return `${what}: rotsig ${(s.ours.wall / n).toFixed(2)} ms vs glTF-Transform ${(s.theirs.wall / n).toFixed(2)} ms, overhead ${pct(s.ours.wall, s.theirs.wall)} wall, ${pct(s.ours.cpu, s.theirs.cpu)} CPU (${n} interleaved pairs; target at most +20%)`;
}
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
const perFile = files.map((f) => {
  const data = new Uint8Array(readFileSync(f));
  return {
    name: f.slice(folder.length + 1),
    bytes: data,
    reps: Math.max(1, Math.round(200e3 / data.length)),
  };
});
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
      name: `overhead: readGltf vs WebIO.readBinary, interleaved, ${file.split('/').pop()} (kB)`,
      items: 2 * KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      setup: () => abState({}),
      run: (s) =>
        pair(
          s,
          () => readGltf(bytes),
          () => new WebIO().readBinary(bytes),
        ),
      report: (s) => [overhead(s, 'read')],
    },
    {
      name: `overhead: writeGltf vs WebIO.writeBinary, interleaved, ${file.split('/').pop()} (kB)`,
      items: 2 * KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      setup: async () => {
        const read = await readGltf(bytes);
        // the first write makes the stored rotations sign-continuous; later writes of the same clips change nothing
        await writeGltf(read.document, read.clips);
        return abState({ read, doc: await new WebIO().readBinary(bytes) });
      },
      run: (s) =>
        pair(
          s,
          () => writeGltf(s.read.document, s.read.clips),
          () => new WebIO().writeBinary(s.doc),
        ),
      report: (s) => [overhead(s, 'write')],
    },
    {
      name: `overhead: readGltf + writeGltf vs readBinary + writeBinary, interleaved, ${file.split('/').pop()} (kB)`,
      items: 2 * KB,
      unit: 'kB',
      time: 4000,
      iterations: 20,
      setup: () => abState({}),
      run: (s) =>
        pair(
          s,
          async () => {
            const r = await readGltf(bytes);
            return writeGltf(r.document, r.clips);
          },
          async () => {
            const io = new WebIO();
            return io.writeBinary(await io.readBinary(bytes));
          },
        ),
      report: (s) => [overhead(s, 'read + write')],
    },
    {
      // small files repeat (about 200 kB of input per file and run) so each gets enough pairs to read
      name: `overhead: readGltf + writeGltf vs readBinary + writeBinary, interleaved, each of ${files.length} GLB files (kB)`,
      items: perFile.reduce((sum, f) => sum + (f.reps * f.bytes.length) / 1e3, 0),
      unit: 'kB',
      time: 3000,
      iterations: 5,
      setup: () => perFile.map((f) => abState(f)),
      run: async (states) => {
        for (const s of states)
          for (let r = 0; r < s.reps; r++)
            await pair(
              s,
              async () => {
                const read = await readGltf(s.bytes);
                return writeGltf(read.document, read.clips);
              },
              async () => {
                // the gltfpack files require KHR_mesh_quantization, which readGltf registers too
                const io = new WebIO().registerExtensions([KHRMeshQuantizationMarker]);
                return io.writeBinary(await io.readBinary(s.bytes));
              },
            );
      },
      report: (states) =>
        states.map((s) => overhead(s, `read + write ${s.name} (${(s.bytes.length / 1e3).toFixed(0)} kB)`)),
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
