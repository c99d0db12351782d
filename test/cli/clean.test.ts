import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNpz, writeNpz } from '../../src/io/npz.js';
import { ensureBuilt, rotsig, tempDir } from './helpers.js';

beforeAll(ensureBuilt);

const N = 150;

/** A VIBE-style file: pose (N, 72) axis-angle swinging smoothly, with jitter, one 35° spike and 2π shells on the root. */
function vibeFile(): { pose: Float64Array; truth: Float64Array } {
  const truth = new Float64Array(N * 72);
  for (let f = 0; f < N; f++)
    for (let j = 0; j < 24; j++) truth[f * 72 + j * 3 + (j % 3)] = 0.4 * Math.sin((2 * Math.PI * f) / 60 + j);
  const pose = Float64Array.from(truth);
  let seed = 12345;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < pose.length; i++) pose[i] += ((rand() - 0.5) * 6 * Math.PI) / 180;
  pose[40 * 72 + 5 * 3] += (35 * Math.PI) / 180;
  for (let f = 3; f < N; f += 7) {
    const t = Math.hypot(pose[f * 72], pose[f * 72 + 1], pose[f * 72 + 2]);
    for (let k = 0; k < 3; k++) pose[f * 72 + k] *= (t - 2 * Math.PI) / t;
  }
  return { pose, truth };
}

describe('rotsig clean', () => {
  it('rotsig clean vibe.npz -o out.npz --rate 30 --json writes the same layout, without shells, closer to the truth', () => {
    const dir = tempDir();
    const { pose, truth } = vibeFile();
    const betas = new Float32Array(10).fill(0.5);
    writeFileSync(
      join(dir, 'vibe.npz'),
      writeNpz({
        pose: { data: pose, shape: [N, 72], dtype: 'float64' },
        betas: { data: betas, shape: [10], dtype: 'float32' },
      }),
    );
    const r = rotsig(['clean', join(dir, 'vibe.npz'), '-o', join(dir, 'out.npz'), '--rate', '30', '--json']);
    expect(r.stderr).toMatch(/spikes replaced/);
    expect(r.code).toBe(0);
    const [summary] = JSON.parse(r.stdout);
    expect(summary.ok).toBe(true);
    expect(summary.report.outputFlips).toBe(0);
    expect(summary.report.signFlips).toBeGreaterThan(0);
    expect(summary.report.spikes).toBeGreaterThan(0);
    const out = parseNpz(readFileSync(join(dir, 'out.npz')));
    expect(Object.keys(out)).toEqual(['pose', 'betas']);
    expect(out.pose.shape).toEqual([N, 72]);
    expect(out.pose.dtype).toBe('float64');
    expect(out.betas.dtype).toBe('float32');
    const p = out.pose.data as Float64Array;
    // the root's vectors follow the truth (no 2π shell), and the whole pose is nearer the truth than the input
    let before = 0;
    let after = 0;
    for (let i = 0; i < p.length; i++) {
      after += Math.abs(p[i] - truth[i]);
      before += Math.abs(pose[i] - truth[i]);
    }
    expect(after).toBeLessThan(0.5 * before);
  });

  it('rotsig clean --beta without --filter one-euro is a usage error (exit 2)', () => {
    const r = rotsig(['clean', 'samples/01_01.bvh', '-o', join(tempDir(), 'x.bvh'), '--beta', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--beta applies to --filter one-euro only/);
  });
});
