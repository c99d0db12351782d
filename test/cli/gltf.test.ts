import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Primitive } from '@gltf-transform/core';
import { Object3D, Vector3 } from 'three';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvh, readGltf } from '../../src/io/index.js';
import { readGltfFile } from '../../src/node/gltf.js';
import { bakeClip } from '../../src/ops/keys/bake-clip.js';
import { forwardKinematics } from '../../src/ops/skeleton/forward-kinematics.js';
import { makeClip } from '../../src/series/clip-create.js';
import {
  FIXTURE_GLTF_DIR,
  HAS_SHARED_GLTF,
  resourcesBeside,
  SHARED_GLTF_DIR,
  SHARED_GLTF_FILES,
  sharedGltfPath,
  validatorErrors,
} from '../support/gltf-data.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt, 180_000);

const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');

describe('rotsig commands on glTF files', () => {
  it('rotsig info Fox.glb lists the animations, channels per node, interpolation, keys and spacing', () => {
    const r = rotsig(['info', FOX]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/animation 0 'Survey': 21 channels on 25 joints/);
    expect(r.stdout).toMatch(/b_Hip_01 +translation linear 25 keys .* non-uniform/);
    const json = JSON.parse(rotsig(['info', FOX, '--json']).stdout);
    expect(json.animations.map((a: { name: string }) => a.name)).toEqual(['Survey', 'Walk', 'Run']);
    expect(json.animations[1].channels[0]).toMatchObject({
      interpolation: 'linear',
      keys: 18,
      spacing: 'uniform 24 Hz',
    });
  });

  it('rotsig unroll x.glb -o y.glb writes GLB; -o y.gltf writes JSON and its .bin', async () => {
    const dir = tempDir();
    expect(rotsig(['unroll', FOX, '-o', join(dir, 'fox.glb')]).code).toBe(0);
    expect(readFileSync(join(dir, 'fox.glb')).subarray(0, 4).toString()).toBe('glTF');
    expect(rotsig(['unroll', FOX, '-o', join(dir, 'fox.gltf')]).code).toBe(0);
    expect(existsSync(join(dir, 'fox.bin'))).toBe(true);
    const read = await readGltfFile(join(dir, 'fox.gltf'));
    expect(read.clips.length).toBe(3);
  });

  it('rotsig resample --rate 30 keys every glTF animation at 30 Hz from its first key, and keeps its end', async () => {
    const dir = tempDir();
    expect(rotsig(['resample', FOX, '-o', join(dir, 'fox30.glb'), '--rate', '30']).code).toBe(0);
    const { clips } = await readGltfFile(join(dir, 'fox30.glb'));
    for (const c of clips)
      for (const t of c.tracks) {
        const n = t.times.length;
        for (let k = 1; k < n - 1; k++) expect(t.times[k] - t.times[k - 1]).toBeCloseTo(1 / 30, 6);
        // the last key is the clip's end: one step of 1/30 s or less after the grid's last
        expect(t.times[n - 1] - t.times[n - 2]).toBeLessThanOrEqual(1 / 30 + 1e-6);
        expect(t.interpolation).toBe('linear');
      }
  });

  it('rotsig velocity, spectrum and export read the first animation of a GLB (and warn that there are more)', () => {
    const dir = tempDir();
    const v = rotsig(['velocity', FOX, '-o', join(dir, 'v.csv'), '--verbose']);
    expect(v.code).toBe(0);
    expect(v.stderr).toMatch(/3 animations; this output takes 'Survey'/);
    expect(readFileSync(join(dir, 'v.csv'), 'utf8').split('\n')[0]).toMatch(
      /^frame,time,root\.x|^frame,time,/,
    );
    expect(rotsig(['spectrum', FOX, '--animation', 'Walk', '-o', join(dir, 's.svg')]).code).toBe(0);
    expect(readFileSync(join(dir, 's.svg'), 'utf8')).toMatch(/<svg/);
    const e = rotsig(['export', FOX, '--animation', '1', '--as', 'quat', '-o', join(dir, 'walk.json')]);
    expect(e.code).toBe(0);
    // Walk: 18 keys at 24 Hz baked on their own grid
    expect(JSON.parse(readFileSync(join(dir, 'walk.json'), 'utf8')).frames).toBe(18);
  });

  it('rotsig convert capture.bvh -o capture.glb: node world positions equal the BVH forward kinematics times the scale', async () => {
    const dir = tempDir();
    const bvh = join(ROOT, 'samples', '01_01.bvh');
    expect(rotsig(['convert', bvh, '-o', join(dir, 'c.glb')]).code).toBe(0);
    const clip = parseBvh(readFileSync(bvh, 'utf8'));
    const { clips } = await readGltf(new Uint8Array(readFileSync(join(dir, 'c.glb'))));
    expect(clips[0].skeleton.names).toEqual(clip.skeleton.names);
    // the file's keys as stored, frame by frame (every frame is a key): no evaluation between float32 times
    const keyed = clips[0];
    const J0 = clip.skeleton.names.length;
    const rot = new Float64Array(clip.frames * J0 * 4);
    const tra = new Float64Array(clip.frames * J0 * 3);
    for (let f = 0; f < clip.frames; f++) {
      for (let j = 0; j < J0; j++) {
        for (let i = 0; i < 4; i++) rot[(f * J0 + j) * 4 + i] = keyed.skeleton.restRotations[j * 4 + i];
        for (let i = 0; i < 3; i++) tra[(f * J0 + j) * 3 + i] = keyed.skeleton.restTranslations[j * 3 + i];
      }
    }
    for (const t of keyed.tracks) {
      expect(t.times.length).toBe(clip.frames);
      const target = t.path === 'rotation' ? rot : tra;
      for (let f = 0; f < clip.frames; f++)
        for (let i = 0; i < t.width; i++)
          target[(f * J0 + t.joint) * t.width + i] = t.values[f * t.width + i];
    }
    const baked = makeClip({
      skeleton: keyed.skeleton,
      frameTime: clip.frameTime,
      rotations: { data: rot, frames: clip.frames, joints: J0 },
      translations: { data: tra, frames: clip.frames, joints: J0 },
    });
    // and baked at the clip's rate, the times agree to float32 rounding
    expect(bakeClip(keyed, { rate: clip.rate }).frames).toBe(clip.frames);
    const a = forwardKinematics(clip).positions.data;
    const b = forwardKinematics(baked).positions.data;
    // skeleton size: the largest distance of a joint from the root over the clip, in BVH units
    let size = 0;
    const J1 = clip.skeleton.names.length;
    for (let f = 0; f < clip.frames; f++)
      for (let j = 0; j < J1; j++) {
        const o = (f * J1 + j) * 3;
        const r = f * J1 * 3;
        size = Math.max(size, Math.hypot(a[o] - a[r], a[o + 1] - a[r + 1], a[o + 2] - a[r + 2]));
      }
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] * 0.01 - b[i]));
    expect(worst).toBeLessThan(1e-6 * size * 0.01);
    // independent of rotsig's forward kinematics: three.js world positions from the glTF node TRS at frame 100
    const J = clip.skeleton.names.length;
    const f = 100;
    const objects = clip.skeleton.names.map(() => new Object3D());
    for (let j = 0; j < J; j++) {
      const t = baked.translations.data;
      const q = baked.rotations.data;
      objects[j].position.set(t[(f * J + j) * 3], t[(f * J + j) * 3 + 1], t[(f * J + j) * 3 + 2]);
      objects[j].quaternion.set(
        q[(f * J + j) * 4],
        q[(f * J + j) * 4 + 1],
        q[(f * J + j) * 4 + 2],
        q[(f * J + j) * 4 + 3],
      );
      const p = clip.skeleton.parents[j];
      if (p >= 0) objects[p].add(objects[j]);
    }
    objects[0].updateMatrixWorld(true);
    for (let j = 0; j < J; j++) {
      const w = objects[j].getWorldPosition(new Vector3());
      const o = (f * J + j) * 3;
      expect(Math.abs(w.x - a[o] * 0.01)).toBeLessThan(1e-6 * size * 0.01);
      expect(Math.abs(w.y - a[o + 1] * 0.01)).toBeLessThan(1e-6 * size * 0.01);
      expect(Math.abs(w.z - a[o + 2] * 0.01)).toBeLessThan(1e-6 * size * 0.01);
    }
    expect(await validatorErrors(new Uint8Array(readFileSync(join(dir, 'c.glb'))))).toEqual([]);
  });

  it('rotsig convert Fox.glb -o walk.bvh --animation Walk writes a BVH of the skeleton', () => {
    const dir = tempDir();
    expect(rotsig(['convert', FOX, '--animation', 'Walk', '-o', join(dir, 'walk.bvh')]).code).toBe(0);
    const clip = parseBvh(readFileSync(join(dir, 'walk.bvh'), 'utf8'));
    expect(clip.frames).toBe(18);
    expect(clip.skeleton.names.length).toBe(25);
  });

  it('rotsig unroll on a truncated GLB fails with a message naming the file and writes nothing', () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.glb');
    writeFileSync(bad, readFileSync(FOX).subarray(0, 1000));
    const r = rotsig(['unroll', bad, '-o', join(dir, 'out.glb')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.glb.*truncated GLB/);
    expect(existsSync(join(dir, 'out.glb'))).toBe(false);
  });
});

const OPS: [string, string[]][] = [
  ['unroll', ['unroll']],
  ['smooth', ['smooth', '--sigma', '2f']],
  ['resample', ['resample', '--rate', '30']],
  ['reduce', ['reduce']],
  ['reduce --meshopt', ['reduce', '--meshopt']],
];

/**
 * Every accessor no animation sampler reads (meshes, skins), as sorted `type:values` strings. Triangle
 * lists are compared with each triangle rotated to start at its smallest index: meshoptimizer's index
 * codec keeps triangles and their winding but may rotate a triangle's corners.
 */
function staticAccessors(doc: import('@gltf-transform/core').Document): string[] {
  return doc
    .getRoot()
    .listAccessors()
    .filter((a) => !a.listParents().some((p) => p.propertyType === 'AnimationSampler'))
    .map((a) => {
      let values: number[] = Array.from(a.getArray() ?? []);
      const triangles = a
        .listParents()
        .some(
          (p) => p instanceof Primitive && p.getIndices() === a && p.getMode() === Primitive.Mode.TRIANGLES,
        );
      if (triangles) values = canonicalTriangles(values);
      return `${a.getType()}:${a.getNormalized()}:${a.getArray()?.constructor.name}:${values.join(',')}`;
    })
    .sort();
}

/** Each triangle (i, j, k) rotated, winding kept, to its lexicographically smallest rotation. */
function canonicalTriangles(indices: number[]): number[] {
  const out = indices.slice();
  const less = (x: number[], y: number[]) =>
    x[0] < y[0] || (x[0] === y[0] && (x[1] < y[1] || (x[1] === y[1] && x[2] < y[2])));
  for (let t = 0; t + 2 < out.length; t += 3) {
    const [a, b, c] = [out[t], out[t + 1], out[t + 2]];
    let best = [a, b, c];
    for (const r of [
      [b, c, a],
      [c, a, b],
    ])
      if (less(r, best)) best = r;
    out.splice(t, 3, ...best);
  }
  return out;
}

describe.skipIf(!HAS_SHARED_GLTF)(
  'rotsig unroll, smooth, resample --rate 30 and reduce (plain and --meshopt) on every shared glTF file',
  () => {
    const outputs = new Map<string, string>();
    beforeAll(() => {
      for (const [name, args] of OPS) {
        const dir = tempDir();
        const r = rotsig([...args, SHARED_GLTF_DIR, '-o', `${dir}/`, '--jobs', '1']);
        // reduce prints "object error max ..." for each file: only lines that report a failure count
        expect(r.stderr).not.toMatch(/^Error:|failed/im);
        expect(r.code).toBe(0);
        outputs.set(name, dir);
      }
    }, 300_000);

    for (const file of SHARED_GLTF_FILES) {
      it(`rotsig unroll/smooth/resample/reduce ${file}: the Khronos validator finds no new error and none in animations; meshes and skins equal`, async () => {
        const path = sharedGltfPath(file);
        const before = await validatorErrors(new Uint8Array(readFileSync(path)), resourcesBeside(path));
        const codes = new Set(before.map((m) => m.code));
        const counts: number[] = [];
        for (const [name] of OPS) {
          const out = join(outputs.get(name)!, file);
          const after = await validatorErrors(new Uint8Array(readFileSync(out)), resourcesBeside(out));
          counts.push(after.length);
          expect(after.filter((m) => m.pointer?.startsWith('/animations'))).toEqual([]);
          // what stays is the input's own mesh errors (non-normalized skin weights) and its missing image
          expect(after.filter((m) => !codes.has(m.code) && m.code !== 'IO_ERROR')).toEqual([]);
          const read = await readGltfFile(out);
          expect(read.clips.length).toBeGreaterThan(0);
          // meshes and skins come through value for value (meshopt is lossless on them)
          expect(staticAccessors(read.document), `${name} ${file}`).toEqual(
            staticAccessors((await readGltfFile(path)).document),
          );
        }
        if (process.env.GLTF_REPORT)
          console.log(
            `${file}\tvalidator errors before ${before.length}, after unroll/smooth/resample ${counts.join('/')}`,
          );
      });
    }
  },
);
