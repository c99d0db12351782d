import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { amassToClip, parseNpy, parseNpz, writeNpz } from '../../src/io/index.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const FIXTURES = join(ROOT, 'test', 'fixtures', 'npz');
const readNpz = (path: string) => parseNpz(new Uint8Array(readFileSync(path)));

describe('rotsig on AMASS .npz files', () => {
  it('rotsig resample dir/ -o out/ --rate 30 writes .npz files at 30 Hz and summarises the rates found', () => {
    const dir = tempDir();
    const input = join(dir, 'amass');
    mkdirSync(join(input, 'CMU', '01'), { recursive: true });
    mkdirSync(join(input, 'KIT'), { recursive: true });
    copyFileSync(join(FIXTURES, 'amass_smplh.npz'), join(input, 'CMU', '01', 'walk_poses.npz'));
    copyFileSync(join(FIXTURES, 'amass_smplx.npz'), join(input, 'KIT', 'turn_stageii.npz'));
    // a file whose two rate keys disagree
    const arrays = readNpz(join(FIXTURES, 'amass_smplh.npz'));
    arrays.mocap_frame_rate = { data: Float64Array.of(100), shape: [], dtype: 'float64' };
    const odd = join(input, 'KIT', 'odd_poses.npz');
    writeFileSync(odd, writeNpz(arrays));
    const out = join(dir, 'amass30');
    const r = rotsig([
      'resample',
      input,
      '-o',
      `${out}/`,
      '--rate',
      '30',
      '--kernel',
      'lanczos3',
      '--jobs',
      '2',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('input rates: 120 Hz x 2, 60 Hz x 1');
    expect(r.stderr).toContain(
      'odd_poses.npz: frame rates disagree (mocap_framerate = 120, mocap_frame_rate = 100); using 120 Hz',
    );
    const walk = readNpz(join(out, 'CMU', '01', 'walk_poses.npz'));
    expect(Number((walk.mocap_framerate.data as Float64Array)[0])).toBe(30);
    expect(walk.poses.shape).toEqual([12, 156]);
    expect(walk.gender.data).toEqual(['male']);
    const turn = readNpz(join(out, 'KIT', 'turn_stageii.npz'));
    expect(Number((turn.mocap_frame_rate.data as Float64Array)[0])).toBe(30);
    expect(amassToClip(turn).frames).toBe(turn.poses.shape[0]);
  });

  it('rotsig convert and reduce take AMASS .npz to glTF in metres (scale 1), the root moving as trans', async () => {
    const dir = tempDir();
    const source = join(FIXTURES, 'amass_smplh.npz');
    const trans = readNpz(source).trans.data as Float64Array;
    const frames = trans.length / 3;
    const { NodeIO } = await import('@gltf-transform/core');
    const rootTrack = async (file: string) => {
      const doc = await new NodeIO().read(file);
      const channel = doc
        .getRoot()
        .listAnimations()[0]
        .listChannels()
        .find((c) => c.getTargetPath() === 'translation' && c.getTargetNode()?.getName() === 'pelvis')!;
      const s = channel.getSampler()!;
      const times: number[] = Array.from(s.getInput()!.getArray() as Float32Array);
      const values: number[] = Array.from(s.getOutput()!.getArray() as Float32Array);
      return { times, values };
    };
    const full = join(dir, 'full.glb');
    const c = rotsig(['convert', source, '-o', full]);
    expect(c.code, c.stderr).toBe(0);
    const a = await rootTrack(full);
    expect(a.times.length).toBe(frames);
    // displacements from the first frame are trans's, in metres (the rest offset cancels)
    for (let f = 0; f < frames; f++)
      for (let k = 0; k < 3; k++)
        expect(a.values[f * 3 + k] - a.values[k]).toBeCloseTo(trans[f * 3 + k] - trans[k], 6);
    const reduced = join(dir, 'reduced.glb');
    const r = rotsig(['reduce', source, '-o', reduced, '--preset', 'acl']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/tolerance 0\.000100 file units/);
    const b = await rootTrack(reduced);
    expect(b.times.length).toBeLessThanOrEqual(frames);
    for (let i = 0; i < b.times.length; i++) {
      const f = a.times.indexOf(b.times[i]);
      expect(f).toBeGreaterThanOrEqual(0);
      for (let k = 0; k < 3; k++) expect(b.values[i * 3 + k]).toBe(a.values[f * 3 + k]);
    }
  });

  it('rotsig resample without --kernel down-samples with lanczos3 (the library default), not catmull-rom', () => {
    const dir = tempDir();
    const source = join(FIXTURES, 'amass_smplh.npz');
    const run = (name: string, extra: string[]) => {
      const out = join(dir, name);
      const r = rotsig(['resample', source, '-o', out, '--rate', '30', ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return readNpz(out).poses.data as Float64Array;
    };
    const byDefault = run('default.npz', []);
    expect(byDefault).toEqual(run('lanczos3.npz', ['--kernel', 'lanczos3']));
    expect(byDefault).not.toEqual(run('catmull-rom.npz', ['--kernel', 'catmull-rom']));
  });

  it('rotsig export --as features writes the matrix and a JSON sidecar naming every column', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.npy');
    const r = rotsig([
      'export',
      join(FIXTURES, 'amass_smplh.npz'),
      '-o',
      out,
      '--as',
      'features',
      '--up',
      'z',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const a = parseNpy(new Uint8Array(readFileSync(out)));
    const sidecar = JSON.parse(readFileSync(join(dir, 'walk.json'), 'utf8'));
    expect(a.shape).toEqual([48, sidecar.columns.length]);
    expect(sidecar.rate).toBe(120);
    expect(sidecar.up).toBe('z');
    expect(sidecar.columns[0]).toEqual({
      index: 0,
      name: 'root.angular_velocity',
      joint: 'pelvis',
      unit: 'rad/s',
    });
    // without --template every joint sits at the root: no position, velocity or contact columns, and a warning
    expect(sidecar.positions).toBe(false);
    expect(sidecar.columns.filter((c: { name: string }) => c.name === 'contact')).toEqual([]);
    expect(r.stderr).toContain('--template');
    expect(
      rotsig(['export', join(FIXTURES, 'amass_smplh.npz'), '-o', join(dir, 'x.csv'), '--as', 'features'])
        .code,
    ).toBe(2);
  });

  it('rotsig export --as features --template J gives joint positions with the template bone lengths', () => {
    const dir = tempDir();
    const out = join(dir, 'walk.npz');
    const template = join(FIXTURES, 'template_smplh.json');
    const r = rotsig([
      'export',
      join(FIXTURES, 'amass_smplh.npz'),
      '-o',
      out,
      '--as',
      'features',
      '--up',
      'z',
      '--template',
      template,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const f = readNpz(out).features;
    const columns = JSON.parse(readFileSync(join(dir, 'walk.json'), 'utf8')).columns as {
      name: string;
      joint: string;
    }[];
    const at = (joint: string) => columns.findIndex((c) => c.name === 'position.x' && c.joint === joint);
    const J = JSON.parse(readFileSync(template, 'utf8')).J as number[][];
    const C = columns.length;
    const data = f.data as Float64Array;
    for (const frame of [0, 20, 47]) {
      const a = at('pelvis');
      const b = at('left_knee');
      const d = Math.hypot(...[0, 1, 2].map((k) => data[frame * C + b + k] - data[frame * C + a + k]));
      // pelvis -> left_hip -> left_knee is not straight, but the hip-knee bone is rigid: compare that one
      const h = at('left_hip');
      const bone = Math.hypot(...[0, 1, 2].map((k) => data[frame * C + b + k] - data[frame * C + h + k]));
      expect(bone).toBeCloseTo(Math.hypot(...[0, 1, 2].map((k) => J[4][k] - J[1][k])), 9);
      expect(d).toBeGreaterThan(0);
    }
  });

  it('rotsig resample of a .npz to a .bvh converts; a truncated .npz is reported with its path', () => {
    const dir = tempDir();
    const bvh = join(dir, 'walk.bvh');
    expect(rotsig(['resample', join(FIXTURES, 'amass_smplh.npz'), '-o', bvh, '--rate', '60']).code).toBe(0);
    expect(readFileSync(bvh, 'utf8')).toMatch(/^HIERARCHY\s+ROOT pelvis/);
    const bad = join(dir, 'bad.npz');
    writeFileSync(bad, readFileSync(join(FIXTURES, 'amass_smplh.npz')).subarray(0, 3000));
    const r = rotsig(['info', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.npz');
    expect(existsSync(join(dir, 'bad.bvh'))).toBe(false);
  });

  it('rotsig export --as 6d --sixd rows --format npz names its joints, components, rate and 6D layout', () => {
    const dir = tempDir();
    const out = join(dir, 'rows.npz');
    const r = rotsig([
      'export',
      join(FIXTURES, 'amass_smplh.npz'),
      '-o',
      out,
      '--as',
      '6d',
      '--sixd',
      'rows',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const z = readNpz(out);
    const clip = amassToClip(readNpz(join(FIXTURES, 'amass_smplh.npz')));
    expect(z.data.shape).toEqual([48, 52, 6]);
    expect(z.joint_names.data).toEqual(clip.skeleton.names);
    expect(z.components.data).toEqual(['m00', 'm01', 'm02', 'm10', 'm11', 'm12']);
    expect(Array.from(z.rate.data as Float64Array)).toEqual([120]);
    expect(z.sixd.data).toEqual(['rows']);
    // the rows of frame 3, joint 1 are those of the rotation matrix of its quaternion (x, y, z, w)
    const [x, y, zz, w] = clip.rotations.data.subarray((3 * 52 + 1) * 4, (3 * 52 + 2) * 4);
    const rowsExpected = [
      1 - 2 * (y * y + zz * zz),
      2 * (x * y - zz * w),
      2 * (x * zz + y * w),
      2 * (x * y + zz * w),
      1 - 2 * (x * x + zz * zz),
      2 * (y * zz - x * w),
    ];
    const got = (z.data.data as Float64Array).subarray((3 * 52 + 1) * 6, (3 * 52 + 2) * 6);
    for (let k = 0; k < 6; k++) expect(got[k]).toBeCloseTo(rowsExpected[k], 14);
    expect(
      rotsig(['export', join(FIXTURES, 'amass_smplh.npz'), '-o', out, '--as', 'quat', '--sixd', 'rows']).code,
    ).toBe(2);
  });

  it('rotsig export --as features --format npz carries column_names, joint_names and rate; -o - warns of the sidecar', () => {
    const dir = tempDir();
    const out = join(dir, 'f.npz');
    const args = ['export', join(FIXTURES, 'amass_smplh.npz'), '--as', 'features', '--up', 'z'];
    const r = rotsig([...args, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const z = readNpz(out);
    const sidecar = JSON.parse(readFileSync(join(dir, 'f.json'), 'utf8'));
    expect(z.column_names.data).toEqual(
      sidecar.columns.map((c: { name: string; joint: string | null }) =>
        c.joint ? `${c.joint}.${c.name}` : c.name,
      ),
    );
    expect(z.joint_names.data).toHaveLength(52);
    expect(Array.from(z.rate.data as Float64Array)).toEqual([120]);
    expect(sidecar.sixd).toBe('columns');
    const piped = rotsig([...args, '-o', '-', '--format', 'npy']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toContain('sidecar');
  });

  it('rotsig <command> - reads standard input (BVH text or .npz bytes) and names it -', () => {
    const bvh = readFileSync(join(ROOT, 'samples', '01_01.bvh'));
    const info = rotsig(['info', '-'], { input: bvh });
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain('2752');
    expect(info.stdout + info.stderr).not.toContain('rotsig-stdin-');
    const dir = tempDir();
    const out = join(dir, 'q.npy');
    const r = rotsig(['export', '-', '-o', out, '--as', 'quat'], {
      input: readFileSync(join(FIXTURES, 'amass_smplh.npz')),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(parseNpy(new Uint8Array(readFileSync(out))).shape).toEqual([48, 52, 4]);
    expect(rotsig(['info', '-'], { input: 'not a motion file' }).code).toBe(1);
    expect(rotsig(['info', '-', join(ROOT, 'samples', '01_01.bvh')]).code).toBe(2);
  });
});
