// The studio and the command line run one pipeline: the same steps on the same file give the same bytes,
// whether they run the way the studio's worker runs them (web/src/steps.ts: settings to steps, runSteps,
// the GLB download) or through `rotsig` (the built CLI, a file task in a worker).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBvhWithReport, readGltf, writeBvh } from '../../src/io/index.js';
import { bakeKeyed, runSteps } from '../../src/pipeline/index.js';
import { DEFAULT_SETTINGS, type ProcessSettings } from '../../web/src/messages.js';
import { processedGlb, stepsOf } from '../../web/src/steps.js';
import { ensureBuilt, ROOT, rotsig, tempDir } from '../cli/helpers.js';
import { FIXTURE_GLTF_DIR } from '../support/gltf-data.js';

beforeAll(ensureBuilt, 180_000);

const WALK = join(ROOT, 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
const FOX = join(FIXTURE_GLTF_DIR, 'Fox.glb');

/** The BVH text the studio downloads: the worker's result (runSteps on the parsed clip) written by `writeBvh`. */
function studioBvh(path: string, settings: ProcessSettings): string {
  const clip = parseBvhWithReport(readFileSync(path, 'utf8')).clip;
  return writeBvh(runSteps(clip, stepsOf(settings, clip.rate)));
}

/** The GLB the studio downloads for animation `animation` of a glTF file after `settings`. */
async function studioGlb(path: string, animation: number, settings: ProcessSettings): Promise<Uint8Array> {
  const bytes = new Uint8Array(readFileSync(path));
  const read = await readGltf(bytes, { file: path });
  const shown = bakeKeyed(read.clips[animation]);
  const steps = stepsOf(settings, shown.rate);
  expect(steps.length).toBeGreaterThan(0);
  return (await processedGlb({ name: path, bytes, resources: {}, animation }, steps, null)).glb;
}

function cli(args: string[]): Buffer {
  const dir = tempDir();
  const ext = args[0].endsWith('.bvh') ? 'bvh' : 'glb';
  const out = join(dir, `out.${ext}`);
  const r = rotsig([...args.slice(1), args[0], '-o', out]);
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  return readFileSync(out);
}

describe('the studio and rotsig give the same bytes for the same steps', () => {
  it('a capture: unroll + resample 30 Hz with optimal keys (rotsig process --unroll --resample 30 --optimal)', () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      unroll: true,
      resample: true,
      rate: 30,
      resampleKernel: 'lanczos3' as const,
      optimal: true,
    };
    const studio = studioBvh(WALK, settings);
    const command = cli([
      WALK,
      'process',
      '--unroll',
      '--resample',
      '30',
      '--kernel',
      'lanczos3',
      '--optimal',
      '--segments',
      'none',
    ]);
    expect(studio.length).toBeGreaterThan(1000);
    expect(command.toString('utf8') === studio).toBe(true);
  });

  it('a capture: smooth gaussian sigma 20 ms (rotsig smooth --sigma 20ms, its default ends and jump split)', () => {
    const settings = { ...DEFAULT_SETTINGS, smooth: true, sigmaMs: 20 };
    const studio = studioBvh(WALK, settings);
    const command = cli([WALK, 'smooth', '--sigma', '20ms']);
    expect(command.toString('utf8') === studio).toBe(true);
  });

  it('a glTF character (Fox, Walk): resample 12 Hz with optimal keys (rotsig resample --rate 12 --optimal)', async () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      resample: true,
      rate: 12,
      resampleKernel: 'lanczos3' as const,
      optimal: true,
    };
    const studio = await studioGlb(FOX, 1, settings);
    const command = cli([
      FOX,
      'resample',
      '--rate',
      '12',
      '--kernel',
      'lanczos3',
      '--optimal',
      '--segments',
      'none',
      '--animation',
      '1',
    ]);
    expect(studio.length).toBeGreaterThan(1000);
    expect(Buffer.from(studio).equals(command)).toBe(true);
  });

  it('a glTF character (Fox, Run): smooth gaussian sigma 20 ms (rotsig smooth --sigma 20ms, its defaults)', async () => {
    const settings = { ...DEFAULT_SETTINGS, smooth: true, sigmaMs: 20 };
    const studio = await studioGlb(FOX, 2, settings);
    const command = cli([FOX, 'smooth', '--sigma', '20ms', '--animation', '2']);
    expect(Buffer.from(studio).equals(command)).toBe(true);
  });
});
