// The command line says what it does: warnings of a single file, usage errors, help texts, JSON units,
// repaired files and empty directories (issue: every claim true).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh, parseNpz, writeNpz } from '../../src/io/index.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const CMU = join(ROOT, 'samples', '01_01.bvh');

/**
 * A two-joint BVH: a root with OFFSET 0 100 0 whose position channels stay near zero (an iClone-style
 * additive file read as 'replace'), and, with `limbChannels`, a child with 6 channels that sit on its
 * OFFSET (how Blender writes joints not connected to their parent: 'replace').
 */
function additiveLooking(limbChannels: boolean, frames = 4): string {
  const child = limbChannels
    ? 'CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation'
    : 'CHANNELS 3 Zrotation Yrotation Xrotation';
  const rows = Array.from({ length: frames }, (_, f) => {
    const root = `${0.5 * f} ${2 + 0.1 * f} 0 ${f} 0 0`;
    const limb = limbChannels ? `0 40 2 0 ${2 * f} 0` : `0 ${2 * f} 0`;
    return `${root} ${limb}`;
  });
  return `HIERARCHY
ROOT Hips
{
  OFFSET 0 100 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Spine
  {
    OFFSET 0 40 2
    ${child}
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: ${frames}
Frame Time: 0.033333
${rows.join('\n')}
`;
}

describe('rotsig on one file prints its reader warnings', () => {
  it('rotsig export <additive-looking file> --as positions warns about the position mode, exit 0', () => {
    const dir = tempDir();
    const file = join(dir, 'iclone.bvh');
    writeFileSync(file, additiveLooking(false));
    const r = rotsig(['export', file, '--as', 'positions', '-o', join(dir, 'pos.npy')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*iclone\.bvh:\d+:\d+: the position channels of root 'Hips'.*positionMode 'add'/,
    );
    expect(r.stderr).toMatch(/judged from the root alone/);
    expect(r.stderr).toMatch(/wrote .*pos\.npy/);
  });

  it('a Blender-style file (other joints on their OFFSETs) reads as replace without a warning', () => {
    const dir = tempDir();
    const file = join(dir, 'blender.bvh');
    writeFileSync(file, additiveLooking(true));
    const r = rotsig(['export', file, '--as', 'positions', '-o', join(dir, 'pos.npy')]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    // the one note: how the Frame Time was read
    expect(r.stderr).toMatch(/note: .*Frame Time .* is read as \d+ Hz/);
    const info = JSON.parse(rotsig(['info', file, '--json']).stdout);
    expect(info.positions.guess).toBe('replace');
    expect(info.positions.confidence).toBe('high');
  });
});

describe('rotsig usage errors and help texts', () => {
  it('rotsig process without a step is a usage error that says there is nothing to do', () => {
    const r = rotsig(['process', CMU, '-o', join(tempDir(), 'x.bvh')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing to do/);
  });

  it('rotsig resample --rate 240 --optimal on a 120 Hz file exits 2 (usage), naming the rate', () => {
    const r = rotsig(['resample', CMU, '--rate', '240', '--optimal', '-o', join(tempDir(), 'x.bvh')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--optimal .*--rate 240 is not below the file's 120 Hz/);
  });

  it.each(['export', 'velocity', 'spectrum'])('rotsig %s --help does not list --in-place', (cmd) => {
    const r = rotsig([cmd, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/in-place/);
  });

  it('rotsig process --help states both --space defaults', () => {
    const help = rotsig(['process', '--help']).stdout;
    expect(help).toMatch(
      /--space <space>\s+raw, log or eigen \(default: raw for --smooth, log for --resample\)/,
    );
  });

  it('rotsig info <directory without .bvh files> names the directory', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'empty'));
    const r = rotsig(['info', join(dir, 'empty')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`directory ${join(dir, 'empty')}`);
  });
});

describe('rotsig resample to the file rate and info --json units', () => {
  it('rotsig resample --rate 120 on CMU 01_01 (120 Hz) writes all 2752 frames', () => {
    const out = join(tempDir(), 'r.bvh');
    const r = rotsig(['resample', CMU, '--rate', '120', '-o', out]);
    expect(r.code).toBe(0);
    expect(parseBvh(readFileSync(out, 'utf8')).frames).toBe(2752);
  });

  it('rotsig info --json names the unit of every number it gives in radians', () => {
    const j = JSON.parse(rotsig(['info', CMU, '--json']).stdout);
    expect(j.units['perJoint[].peakSpeed']).toBe('rad/s');
    expect(j.units['perJoint[].worst[].angle']).toBe('rad');
    expect(j.units['discontinuities.jumpThreshold']).toMatch(/^rad/);
    expect(j.units.duration).toBe('s');
  });
});

describe('rotsig --repair on a file cut off mid-row', () => {
  it('keeps the complete frames and warns; without --repair the file fails', () => {
    const dir = tempDir();
    const text = readFileSync(CMU, 'utf8');
    const cut = text.slice(0, text.lastIndexOf('\n', text.length - 2) + 40); // the last row, cut after 40 characters
    const file = join(dir, 'cut.bvh');
    writeFileSync(file, cut);
    const broken = rotsig(['unroll', file, '-o', join(dir, 'a.bvh')]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/expected 96 numbers for frame 2751/);
    const r = rotsig(['unroll', file, '--repair', '-o', join(dir, 'b.bvh')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*the last row \(frame 2751\) has \d+ of 96 numbers.*kept 2751 complete frames/,
    );
    expect(parseBvh(readFileSync(join(dir, 'b.bvh'), 'utf8')).frames).toBe(2751);
  });
});

/** A one-node glTF (JSON, data URI buffer) whose rotation channel has the given keys, as float32. */
function gltfWithRotations(times: number[], rotations: number[][]): string {
  const bytes = new Float32Array([...times, ...rotations.flat()]);
  const n = times.length;
  const uri = `data:application/octet-stream;base64,${Buffer.from(bytes.buffer).toString('base64')}`;
  return JSON.stringify({
    asset: { version: '2.0' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name: 'bone' }],
    buffers: [{ byteLength: bytes.byteLength, uri }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: n * 4 },
      { buffer: 0, byteOffset: n * 4, byteLength: n * 16 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: n, type: 'SCALAR', min: [times[0]], max: [times[n - 1]] },
      { bufferView: 1, componentType: 5126, count: n, type: 'VEC4' },
    ],
    animations: [
      {
        name: 'turn',
        samplers: [{ input: 0, output: 1, interpolation: 'LINEAR' }],
        channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
      },
    ],
  });
}

const NPZ_FIXTURES = join(ROOT, 'test', 'fixtures', 'npz');

describe('the same promises on .npz and glTF inputs', () => {
  it('rotsig unroll <one .npz without a frame rate> prints the reader warning', () => {
    const dir = tempDir();
    const arrays = parseNpz(new Uint8Array(readFileSync(join(NPZ_FIXTURES, 'amass_smplh.npz'))));
    delete arrays.mocap_framerate;
    delete arrays.mocap_frame_rate;
    delete arrays.mocap_time_length;
    const file = join(dir, 'norate.npz');
    writeFileSync(file, writeNpz(arrays));
    const r = rotsig(['unroll', file, '-o', join(dir, 'out.npz')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: .*norate\.npz: .*rate/);
  });

  it('rotsig unroll <one glTF with a rotation key of length 2> prints the reader warning', () => {
    const dir = tempDir();
    const file = join(dir, 'long.gltf');
    writeFileSync(
      file,
      gltfWithRotations(
        [0, 0.5, 1],
        [
          [0, 0, 0, 1],
          [0, 0, 0, 2],
          [0, 0, 0.6, 0.8],
        ],
      ),
    );
    const r = rotsig(['unroll', file, '-o', join(dir, 'out.gltf')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: .*long\.gltf: .*1 rotation key of length off 1/);
  });

  it('rotsig unroll --repair on a glTF with a NaN key drops the key and warns; without it the file fails', () => {
    const dir = tempDir();
    const file = join(dir, 'nan.gltf');
    writeFileSync(
      file,
      gltfWithRotations(
        [0, 0.5, 1, 1.5],
        [
          [0, 0, 0, 1],
          [Number.NaN, 0, 0, 1],
          [0, 0, 0.6, 0.8],
          [0, 0, 0.8, 0.6],
        ],
      ),
    );
    const broken = rotsig(['unroll', file, '-o', join(dir, 'a.gltf')]);
    expect(broken.code).toBe(1);
    const r = rotsig(['unroll', file, '--repair', '-o', join(dir, 'b.gltf')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: .*dropped 1 of 4 keys with a non-finite time or value/);
    // read back from the written JSON itself: the channel's input accessor holds the 3 finite keys
    const json = JSON.parse(readFileSync(join(dir, 'b.gltf'), 'utf8'));
    const sampler = json.animations[0].samplers[json.animations[0].channels[0].sampler];
    expect(json.accessors[sampler.input].count).toBe(3);
    expect(json.accessors[sampler.input].max[0]).toBeCloseTo(1.5, 6);
  });

  it('rotsig unroll --repair on an .npz with a NaN pose value interpolates it and warns', () => {
    const dir = tempDir();
    const arrays = parseNpz(new Uint8Array(readFileSync(join(NPZ_FIXTURES, 'amass_smplh.npz'))));
    const poses = arrays.poses.data as Float64Array | Float32Array;
    const width = arrays.poses.shape[1];
    const before = poses[2 * width + 5];
    const after = poses[4 * width + 5];
    poses[3 * width + 5] = Number.NaN;
    const file = join(dir, 'nan.npz');
    writeFileSync(file, writeNpz(arrays));
    expect(rotsig(['unroll', file, '-o', join(dir, 'a.npz')]).code).toBe(1);
    const r = rotsig(['unroll', file, '--repair', '-o', join(dir, 'b.npz')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: .*repaired 1 non-finite value\(s\) of 'poses'.*row 3/);
    const back = parseNpz(new Uint8Array(readFileSync(join(dir, 'b.npz'))));
    const out = back.poses.data as Float64Array | Float32Array;
    expect(out.every((x) => Number.isFinite(x))).toBe(true);
    // unroll may move a rotation vector by a whole turn; this axis-angle component is far from that
    expect(out[3 * width + 5]).toBeCloseTo(0.5 * (before + after), 5);
  });

  it('rotsig info <directory without clip files> names the directory and the default glob of every format', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'readme.txt'), 'no clips here\n');
    const r = rotsig(['info', join(dir, 'notes')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`directory ${join(dir, 'notes')}`);
    expect(r.stderr).toMatch(/gltf/);
    expect(r.stderr).toMatch(/npz/);
  });

  it('rotsig info --json names its units on an .npz and on a glTF file', () => {
    const npz = JSON.parse(rotsig(['info', join(NPZ_FIXTURES, 'amass_smplh.npz'), '--json']).stdout);
    expect(npz.units['perJoint[].peakSpeed']).toBe('rad/s');
    const fox = JSON.parse(
      rotsig(['info', join(ROOT, 'test', 'fixtures', 'gltf', 'Fox.glb'), '--json']).stdout,
    );
    expect(fox.units['animations[].duration']).toBe('s');
    expect(fox.units['animations[].channels[].start']).toBe('s');
  });
});

/** The float32 data of accessor `index` of a written `.gltf` (JSON and its .bin beside it), read directly. */
function accessorData(path: string, index: number): Float32Array {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const a = json.accessors[index];
  const view = json.bufferViews[a.bufferView];
  const bin = readFileSync(join(path, '..', json.buffers[view.buffer].uri));
  const width = { SCALAR: 1, VEC3: 3, VEC4: 4 }[a.type as 'SCALAR' | 'VEC3' | 'VEC4'];
  const start = bin.byteOffset + (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
  return new Float32Array(bin.buffer.slice(start, start + a.count * width * 4));
}

describe('segment-aware smoothing and resampling, the CLI default, on every format', () => {
  const angleBetween = (a: ArrayLike<number>, b: ArrayLike<number>) =>
    2 * Math.acos(Math.min(1, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3])));

  it("rotsig process CMU 01_01 --unroll --smooth gaussian:2f --resample 30: frame 0 stays near the input's T-pose", () => {
    const dir = tempDir();
    const out = join(dir, 'p.bvh');
    const none = join(dir, 'n.bvh');
    const steps = ['--unroll', '--smooth', 'gaussian:2f', '--resample', '30'];
    expect(rotsig(['process', CMU, ...steps, '-o', out]).code).toBe(0);
    expect(rotsig(['process', CMU, ...steps, '--segments', 'none', '-o', none]).code).toBe(0);
    const input = parseBvh(readFileSync(CMU, 'utf8'));
    const worst = (path: string) => {
      const c = parseBvh(readFileSync(path, 'utf8'));
      let w = 0;
      for (let j = 0; j < input.rotations.joints; j++)
        w = Math.max(
          w,
          angleBetween(
            c.rotations.data.subarray(j * 4, j * 4 + 4),
            input.rotations.data.subarray(j * 4, j * 4 + 4),
          ),
        );
      return (w * 180) / Math.PI;
    };
    // across the 136° step the T-pose is smeared away (62° with the default 'linear' ends)
    expect(worst(none)).toBeGreaterThan(45);
    expect(worst(out)).toBeLessThan(10);
  });

  it('rotsig smooth <glTF with a 120° step after its first key> keeps the first key; --segments none smears it', () => {
    const dir = tempDir();
    const file = join(dir, 'step.gltf');
    const n = 30;
    const times = Array.from({ length: n }, (_, k) => k / 30);
    // key 0 at rest, then 120° about Z and a slow turn (1° per key) from there
    const rotations = times.map((_, k) => {
      const a = k === 0 ? 0 : ((120 + k) * Math.PI) / 180;
      return [0, 0, Math.sin(a / 2), Math.cos(a / 2)];
    });
    writeFileSync(file, gltfWithRotations(times, rotations));
    const split = join(dir, 'split.gltf');
    const smeared = join(dir, 'smeared.gltf');
    expect(rotsig(['smooth', file, '--sigma', '2f', '-o', split]).code).toBe(0);
    expect(rotsig(['smooth', file, '--sigma', '2f', '--segments', 'none', '-o', smeared]).code).toBe(0);
    const first = (path: string) => {
      const json = JSON.parse(readFileSync(path, 'utf8'));
      const channel = json.animations[0].channels.find(
        (c: { target: { path: string } }) => c.target.path === 'rotation',
      );
      return accessorData(path, json.animations[0].samplers[channel.sampler].output).subarray(0, 4);
    };
    expect(angleBetween(first(split), [0, 0, 0, 1])).toBeLessThan(1e-6);
    expect((angleBetween(first(smeared), [0, 0, 0, 1]) * 180) / Math.PI).toBeGreaterThan(20);
  });

  it('rotsig info CMU 01_01 names the leading T-pose and the --start that trims it; rotsig subclip --start 1 trims it', () => {
    const text = rotsig(['info', CMU]).stdout;
    expect(text).toMatch(
      /start\s+frame 0 precedes a jump in \d+ joints \(LeftForeArm 136 deg @1\).*rotsig subclip --start 1/,
    );
    const out = join(tempDir(), 't.bvh');
    const r = rotsig(['subclip', CMU, '--start', '1', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const input = parseBvh(readFileSync(CMU, 'utf8'));
    const cut = parseBvh(readFileSync(out, 'utf8'));
    expect(cut.frames).toBe(2751);
    // frame 0 of the cut is frame 1 of the input
    expect(cut.rotations.data[0]).toBeCloseTo(input.rotations.data[input.rotations.joints * 4], 6);
    expect(rotsig(['info', out]).stdout).not.toMatch(/\n {2}start/);
  });

  it('rotsig subclip <glTF> --start 1 --end 3 keeps keys 1 and 2 exactly', () => {
    const dir = tempDir();
    const file = join(dir, 'k.gltf');
    const times = [0, 0.1, 0.2, 0.3, 0.4];
    const rotations = times.map((t) => [0, 0, Math.sin(t), Math.cos(t)]);
    writeFileSync(file, gltfWithRotations(times, rotations));
    const out = join(dir, 'cut.gltf');
    const r = rotsig(['subclip', file, '--start', '1', '--end', '3', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    const sampler = json.animations[0].samplers[json.animations[0].channels[0].sampler];
    expect(Array.from(accessorData(out, sampler.input))).toEqual([Math.fround(0.1), Math.fround(0.2)]);
    expect(rotsig(['subclip', file, '--start', '7', '-o', join(dir, 'x.gltf')]).stderr).toMatch(
      /not in a clip of 5 frames/,
    );
  });
});
