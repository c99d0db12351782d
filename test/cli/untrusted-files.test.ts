// The command line on untrusted model and data files: resources that point out of their folder, image
// names that would write over files or through links, FIFOs and devices in place of files. Each case
// builds a minimal hostile folder in a temporary directory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listNpz, parseNpz, writeNpz } from '../../src/io/index.js';
import { ensureBuilt, ROOT, rotsigAsync, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const SECRET = 'TOP-SECRET-3f9c2a';

/** Key times 0 and 1 s and two rotations (identity, 90° about y): the bytes of the model's first buffer. */
function animationBytes(): Buffer {
  const times = new Float32Array([0, 1]);
  const rotations = new Float32Array([0, 0, 0, 1, 0, Math.SQRT1_2, 0, Math.SQRT1_2]);
  return Buffer.concat([Buffer.from(times.buffer), Buffer.from(rotations.buffer)]);
}

/**
 * A one-node `.gltf` with one rotation animation. Its buffer is `bufferUri` (default: a data URI), and
 * `images` become images of a material, by URI, so a writer keeps them.
 */
function model(options: { bufferUri?: string; images?: string[]; extraBuffers?: string[] } = {}): string {
  const bin = animationBytes();
  const images = options.images ?? [];
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name: 'root' }],
    buffers: [
      {
        byteLength: bin.length,
        uri: options.bufferUri ?? `data:application/octet-stream;base64,${bin.toString('base64')}`,
      },
      ...(options.extraBuffers ?? []).map((uri) => ({ byteLength: 4, uri })),
    ],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 8 },
      { buffer: 0, byteOffset: 8, byteLength: 32 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC4' },
    ],
    animations: [
      {
        channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
        samplers: [{ input: 0, output: 1 }],
      },
    ],
    ...(images.length
      ? {
          images: images.map((uri) => ({ uri, mimeType: 'image/png' })),
          textures: images.map((_, i) => ({ source: i })),
          materials: images.map((_, i) => ({ pbrMetallicRoughness: { baseColorTexture: { index: i } } })),
        }
      : {}),
  });
}

/** Runs the CLI with a 30 s limit: a run that hangs is killed and shows as `signal: 'SIGKILL'`. */
function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rotsig.js'), ...args], {
    cwd,
    timeout: 30_000,
    killSignal: 'SIGKILL',
    maxBuffer: 1 << 26,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function mkfifo(path: string): boolean {
  return spawnSync('mkfifo', [path]).status === 0;
}

describe('rotsig reads the resources of a .gltf only from its own folder', () => {
  it('images named ../secret.txt, ..%2Fsecret.txt, an absolute path and /proc/self/status are not read into the output', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    writeFileSync(
      join(dir, 'in', 'm.gltf'),
      model({
        images: ['../secret.txt', '..%2Fsecret.txt', join(dir, 'secret.txt'), '/proc/self/status'],
      }),
    );
    const r = run(['unroll', 'in/m.gltf', '-o', 'm.glb'], dir);
    expect(r.code, r.stderr).toBe(0);
    const glb = readFileSync(join(dir, 'm.glb'));
    expect(glb.includes(SECRET)).toBe(false);
    expect(glb.includes('VmRSS')).toBe(false);
    expect(r.stderr).toMatch(/image 0 \('\.\.\/secret\.txt'\) is not read: it leaves the model's folder/);
    expect(r.stderr).toMatch(/image 1 \('\.\.%2Fsecret\.txt'\) is not read: it leaves the model's folder/);
    expect(r.stderr).toMatch(/image 2 \('.*secret\.txt'\) is not read: it is an absolute path/);
    expect(r.stderr).toMatch(/image 3 \('\/proc\/self\/status'\) is not read: it is an absolute path/);
  });

  it('a buffer reached through a symbolic link out of the folder fails the file (exit 1) and is not read', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'secret.bin'), animationBytes());
    symlinkSync(join(dir, 'secret.bin'), join(dir, 'in', 'm.bin'));
    writeFileSync(join(dir, 'in', 'm.gltf'), model({ bufferUri: 'm.bin' }));
    const r = run(['unroll', 'in/m.gltf', '-o', 'out.glb'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: in\/m\.gltf: .*buffer 0 \('m\.bin'\) is not read: it leads outside the model's folder through a symbolic link\n/,
    );
    expect(existsSync(join(dir, 'out.glb'))).toBe(false);
  });
});

describe('rotsig writes the images of a .gltf output only as new files inside the output folder', () => {
  it('an image named .bashrc never replaces out/.bashrc; lnk/pwned.txt is never written through a link', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in', 'lnk'), { recursive: true });
    mkdirSync(join(dir, 'out'));
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'in', '.bashrc'), 'image bytes');
    writeFileSync(join(dir, 'in', 'lnk', 'pwned.txt'), 'image bytes');
    writeFileSync(join(dir, 'in', 'taken.png'), 'new image bytes');
    writeFileSync(join(dir, 'out', '.bashrc'), 'my shell setup');
    writeFileSync(join(dir, 'out', 'taken.png'), 'a file already there');
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'out', 'lnk'));
    writeFileSync(join(dir, 'in', 'm.gltf'), model({ images: ['.bashrc', 'lnk/pwned.txt', 'taken.png'] }));
    const r = run(['unroll', 'in/m.gltf', '-o', 'out/m.gltf'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'out', '.bashrc'), 'utf8')).toBe('my shell setup');
    expect(existsSync(join(dir, 'elsewhere', 'pwned.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'out', 'taken.png'), 'utf8')).toBe('a file already there');
    expect(r.stderr).toMatch(/image '\.bashrc' is not written: it is a hidden name/);
    expect(r.stderr).toMatch(
      /image 'lnk\/pwned\.txt' is not written: it would be written outside the output's folder/,
    );
    expect(r.stderr).toMatch(/image .*taken\.png is not written: another file is in the way/);
    // the references are kept as they were
    const json = JSON.parse(readFileSync(join(dir, 'out', 'm.gltf'), 'utf8'));
    expect(json.images.map((i: { uri: string }) => i.uri)).toEqual(['.bashrc', 'lnk/pwned.txt', 'taken.png']);
  });

  it("resample in/model.gltf -o in/ok.gltf never replaces in/ok.bin, the input's own buffer (exit 2)", () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'ok.bin'), animationBytes());
    writeFileSync(join(dir, 'in', 'model.gltf'), model({ bufferUri: 'ok.bin' }));
    const r = run(['resample', 'in/model.gltf', '-o', 'in/ok.gltf', '--rate', '10'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /in\/ok\.bin, the buffer in\/ok\.gltf writes beside it, is a resource of input in\/model\.gltf/,
    );
    expect(readFileSync(join(dir, 'in', 'ok.bin')).equals(animationBytes())).toBe(true);
    expect(existsSync(join(dir, 'in', 'ok.gltf'))).toBe(false);
  });

  it('the buffer of a .gltf output is never written over an input, however the output is named (exit 2)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'walk.bin'), readFileSync(join(ROOT, 'samples', '01_01.bvh')));
    const r = run(['convert', 'walk.bin', '-o', 'walk.gltf'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/walk\.bin, the buffer walk\.gltf writes beside it, is input walk\.bin/);
    expect(readFileSync(join(dir, 'walk.bin')).equals(readFileSync(join(ROOT, 'samples', '01_01.bvh')))).toBe(
      true,
    );
  });
});

describe('rotsig never blocks or reads for ever on a FIFO, a device, or a link to one', () => {
  it.each([
    ['info z.bvh', ['info', 'z.bvh']],
    ['info z.npz', ['info', 'z.npz']],
    ['info z.gltf', ['info', 'z.gltf']],
    ['unroll z.bvh -o o.bvh', ['unroll', 'z.bvh', '-o', 'o.bvh']],
    ['convert z.bvh -o o.glb', ['convert', 'z.bvh', '-o', 'o.glb']],
  ])('rotsig %s with z -> /dev/zero fails the file at once (exit 1, one error line)', (_name, args) => {
    const dir = tempDir();
    for (const ext of ['bvh', 'npz', 'gltf']) symlinkSync('/dev/zero', join(dir, `z.${ext}`));
    const r = run(args, dir);
    expect(r.signal).toBe(null);
    expect(r.code).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual([expect.stringMatching(/^error: z\.\w+: it is a character device/)]);
  });

  it('rotsig info on a FIFO without a writer ends at once (exit 1: the file is empty)', () => {
    const dir = tempDir();
    if (!mkfifo(join(dir, 'f.bvh')) || !mkfifo(join(dir, 'f.gltf'))) return;
    for (const name of ['f.bvh', 'f.gltf']) {
      const r = run(['info', name], dir);
      expect(r.signal).toBe(null);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: ${name.replace('.', '\\.')}`));
    }
  });

  it('a .gltf whose image is a FIFO or a link to /dev/zero is read without them (warnings)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    if (!mkfifo(join(dir, 'in', 'pipe.png'))) return;
    symlinkSync('/dev/zero', join(dir, 'in', 'zero.png'));
    writeFileSync(join(dir, 'in', 'm.gltf'), model({ images: ['pipe.png', 'zero.png'] }));
    const r = run(['unroll', 'in/m.gltf', '-o', 'm.glb'], dir);
    expect(r.signal).toBe(null);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/image 0 \('pipe\.png'\) is not read: it is a pipe, not a regular file/);
    expect(r.stderr).toMatch(/image 1 \('zero\.png'\) is not read: it is a character device/);
  });

  it('SIGTERM ends a run reading a FIFO whose writer sends nothing (exit 143)', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'f.bvh');
    if (!mkfifo(fifo)) return;
    // a writer that holds the FIFO open and never writes: this test's own descriptor
    const { openSync, closeSync, constants } = await import('node:fs');
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    try {
      const child = rotsigAsync(['info', 'f.bvh'], dir);
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // the run has started reading once its module graph is loaded; a second is plenty on any machine
      await new Promise((r) => setTimeout(r, 2000));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(killer);
      expect(code, stderr).toBe(143);
    } finally {
      closeSync(writer);
      closeSync(reader);
    }
  }, 40_000);
});

describe('rotsig writes no npz member name that is a path', () => {
  it('members ../../evil.npy and a\\b.npy of an AMASS file are written back as evil.npy and b.npy, with warnings', () => {
    const dir = tempDir();
    const arrays = parseNpz(readFileSync(join(ROOT, 'test', 'fixtures', 'npz', 'amass_smplh.npz')));
    const payload = { data: Float64Array.of(1, 2, 3), shape: [3], dtype: 'float64' as const };
    writeFileSync(
      join(dir, 'take.npz'),
      writeNpz({ ...arrays, '../../evil': payload, 'a\\b': payload }, { compression: 'stored' }),
    );
    // the hostile names are in the input, as a zip lister shows them
    expect(listNpz(readFileSync(join(dir, 'take.npz'))).map((m) => m.name)).toContain('../../evil.npy');
    const r = run(['unroll', 'take.npz', '-o', 'out.npz'], dir);
    expect(r.code, r.stderr).toBe(0);
    const names = listNpz(readFileSync(join(dir, 'out.npz'))).map((m) => m.name);
    expect(names.filter((n) => n.includes('/') || n.includes('\\') || n.includes('..'))).toEqual([]);
    expect(names).toContain('evil.npy');
    expect(names).toContain('b.npy');
    expect(r.stderr).toContain(
      "warning: take.npz: member '../../evil.npy' is named like a path; it is kept as 'evil.npy'",
    );
  });
});
