// End-to-end tests of the studio (web/) in Debian's Chromium driven by playwright-core, against the built app
// served on 127.0.0.1. Skips with a message when /usr/bin/chromium is absent. Screenshots go to test-results/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeIO } from '@gltf-transform/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  averageCost,
  averageQuaternions,
  clipSpectrum,
  createDamper,
  createOneEuroFilter,
  evaluateTrack,
  inferKeyRate,
  type KeyedClip,
  quat,
  reduceKeys,
} from '../../src/index.js';
import { parseBvh, readGltf } from '../../src/io/index.js';
import { bakeClip } from '../../src/ops/keys/index.js';
import { keyedBakeRate } from '../../src/pipeline/keyed.js';
import { HAS_SHARED_BVH, SHARED_BVH_FILES, sharedBvhPath } from '../support/shared-data.js';
import { manyKeysGlb } from './hostile-files.js';
import { serveStatic } from './serve.js';

const CHROMIUM = '/usr/bin/chromium';
const ROBOT = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'),
  'web',
  'public',
  'samples',
  'RobotExpressive.glb',
);
/** A GLB with CUBICSPLINE tracks keyed at non-uniform times (0.5, 3.5, 4, 5 s), from the shared glTF files. */
const MAGNUM_GLB = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'shared',
  'data',
  'gltf',
  'magnum',
  'animation.glb',
);

/** The keyed clips of a glTF file, read in Node. */
async function gltfClips(path: string): Promise<KeyedClip[]> {
  return (await readGltf(new Uint8Array(readFileSync(path)), { file: path })).clips;
}

/** The grid the studio bakes a keyed animation on: the library's rule (the pipeline's keyedBakeRate). */
function studioBakeRate(keyed: KeyedClip): number {
  return keyedBakeRate(keyed);
}
const HAS_CHROMIUM = existsSync(CHROMIUM);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHOTS = join(ROOT, 'test-results', 'studio');
if (!HAS_CHROMIUM) {
  console.warn(
    `studio e2e tests skipped: ${CHROMIUM} not found (install Debian's chromium package to run them)`,
  );
}

type StudioState = {
  name: string;
  frames: number;
  joints: number;
  frame: number;
  selected: number;
  busy: boolean;
  processed: { frames: number; rate: number } | null;
  poseChecksum: number;
  curveRevision: number;
  curveDiff: number;
  parseMs: number;
  spectraComputed: number;
  plot: { points: number; drawMs: number; inked: number; spectrumInked: number };
  antialias: boolean;
  softwareWebGL: boolean;
  playKernels: string[];
  format: 'bvh' | 'gltf';
  animations: string[];
  animation: number;
  clipName: string;
  reduction: {
    keysBefore: number;
    keysAfter: number;
    bytesBefore: number;
    bytesAfter: number;
    maxError: number;
    p99Error: number;
  } | null;
};
// Browser globals used inside page.evaluate callbacks (this file compiles without the DOM lib).
declare const window: {
  // biome-ignore lint/suspicious/noExplicitAny: the studio's test hooks, typed by the calls below
  __studio: any;
  dispatchEvent(e: unknown): boolean;
};
declare const document: { querySelector(s: string): { textContent: string | null } | null };
declare function requestAnimationFrame(f: (now: number) => void): number;
declare const DataTransfer: new () => { items: { add(f: unknown): void } };
declare const DragEvent: new (type: string, init: Record<string, unknown>) => unknown;
declare const File: new (parts: string[], name: string, init: { type: string }) => unknown;
declare const Event: new (type: string, init: { bubbles: boolean }) => unknown;
type InputElement = { value: string; dispatchEvent(e: unknown): boolean };

/** A small valid BVH: a root and two joints, 40 frames at 30 Hz, spinning about Y. */
function tinyBvh(): string {
  const rows: string[] = [];
  for (let f = 0; f < 40; f++)
    rows.push(`0 90 ${f * 0.5} ${f * 12} 0 ${f} 0 0 ${10 * Math.sin(f / 5)} 0 0 0`);
  return [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 0 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation',
    '  JOINT Spine',
    '  {',
    '    OFFSET 0 20 0',
    '    CHANNELS 3 Zrotation Yrotation Xrotation',
    '    JOINT Head',
    '    {',
    '      OFFSET 0 25 0',
    '      CHANNELS 3 Zrotation Yrotation Xrotation',
    '      End Site',
    '      {',
    '        OFFSET 0 10 0',
    '      }',
    '    }',
    '  }',
    '}',
    'MOTION',
    'Frames: 40',
    'Frame Time: 0.0333333',
    ...rows,
    '',
  ].join('\n');
}

/**
 * A one-joint BVH whose root channels are stored as an unrolling exporter writes them: Xrotation continuous
 * from 3.2 to -187.8 degrees, Zrotation turning to -728 degrees (two turns), 40 frames at 30 Hz.
 */
function unrolledBvh(): { text: string; rows: number[][] } {
  const rows: number[][] = [];
  for (let f = 0; f < 40; f++)
    rows.push([0, 0, 0, (-728 * f) / 39, 5 * Math.sin(f / 6), 3.2 - (191 * f) / 39]);
  const text = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 0 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation',
    '  End Site',
    '  {',
    '    OFFSET 0 10 0',
    '  }',
    '}',
    'MOTION',
    'Frames: 40',
    'Frame Time: 0.0333333',
    ...rows.map((r) => r.map((v) => v.toFixed(6)).join(' ')),
    '',
  ].join('\n');
  return { text, rows };
}

/** tinyBvh with a 170° step of the Spine's Yrotation at frame 20 (a jump that is also an Euler jump). */
function jumpBvh(): string {
  const rows: string[] = [];
  for (let f = 0; f < 40; f++) rows.push(`0 90 0 0 0 0 0 ${f < 20 ? 2 : 172} 0 0 0 0`);
  return tinyBvh()
    .split('\n')
    .filter((l) => !/^[-\d]/.test(l))
    .join('\n')
    .replace('Frame Time: 0.0333333\n', `Frame Time: 0.0333333\n${rows.join('\n')}\n`);
}

/** A root whose OFFSET is 90 units up and whose Yposition channel moves about zero: an 'add' file. */
function addModeBvh(): string {
  const rows: string[] = [];
  for (let f = 0; f < 30; f++) rows.push(`${f * 0.5} ${Math.sin(f / 4).toFixed(4)} 0 0 ${f * 3} 0`);
  return [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 90 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation',
    '  End Site',
    '  {',
    '    OFFSET 0 10 0',
    '  }',
    '}',
    'MOTION',
    'Frames: 30',
    'Frame Time: 0.0333333',
    ...rows,
    '',
  ].join('\n');
}

/** A synthetic clip of `joints` joints in a branching chain and `frames` frames, as BVH text. */
function largeBvh(joints: number, frames: number): string {
  const lines = ['HIERARCHY'];
  const close: string[] = [];
  for (let j = 0; j < joints; j++) {
    lines.push(`${j === 0 ? 'ROOT' : 'JOINT'} J${j}`, '{', `OFFSET ${j === 0 ? '0 0 0' : '0 3 0.5'}`);
    lines.push(
      j === 0
        ? 'CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation'
        : 'CHANNELS 3 Zrotation Yrotation Xrotation',
    );
    if (j % 10 === 9 || j === joints - 1) {
      lines.push('End Site', '{', 'OFFSET 0 2 0', '}', '}');
      // close back to the root's child level so the tree branches every 10 joints
      while (close.length > 1) lines.push(close.pop()!);
    } else close.push('}');
  }
  while (close.length) lines.push(close.pop()!);
  lines.push('MOTION', `Frames: ${frames}`, 'Frame Time: 0.0166667');
  const row = new Array(6 + (joints - 1) * 3);
  for (let f = 0; f < frames; f++) {
    row[0] = (f * 0.05).toFixed(2);
    row[1] = '100';
    row[2] = '0';
    for (let c = 3; c < row.length; c++) row[c] = (20 * Math.sin(f * 0.02 + c * 0.37)).toFixed(2);
    lines.push(row.join(' '));
  }
  return `${lines.join('\n')}\n`;
}

describe.skipIf(!HAS_CHROMIUM)('studio (Chromium, built app)', () => {
  let browser: Browser;
  let page: Page;
  let server: Server;
  let url: string;
  const consoleErrors: string[] = [];
  const state = (): Promise<StudioState> => page.evaluate(() => window.__studio.state());
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        '--config',
        'web/vite.config.ts',
        '--logLevel',
        'warn',
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    ({ url, server } = await serveStatic(join(ROOT, 'web', 'dist')));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--enable-unsafe-swiftshader',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    page.setDefaultTimeout(20_000);
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    await page.goto(url);
    await page.waitForSelector('#sample-select[data-ready="true"]');
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => (server ? server.close(ok) : ok(undefined)));
  });

  it('opens a bundled sample from the sample menu', async () => {
    await page.selectOption('[data-testid=sample-select]', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
    await page.waitForFunction(
      () => window.__studio.state().frames > 0 || document.querySelector('[data-testid=error]')?.textContent,
    );
    expect(await page.textContent('[data-testid=error]')).toBe('');
    const s = await state();
    expect(s.joints).toBe(23);
    expect(s.frames).toBe(1064);
    await expect(page.textContent('[data-testid=clip-info]')).resolves.toContain('23 joints');
    expect(await page.locator('[data-testid=joint-tree] li').count()).toBe(23);
    await page.waitForFunction(() => !window.__studio.state().busy);
    await shot('clip');
  });

  it('draws the skeleton: the 3D canvas is not blank', async () => {
    const px = await page.evaluate(() => window.__studio.pixels());
    // the grid alone lights some pixels; joints, bones and grid together light a few hundred of ~13,000
    expect(px.lit).toBeGreaterThan(150);
    expect(px.colours).toBeGreaterThan(8);
  });

  it('multisamples the 3D view on a GPU only: not on this software rasteriser, unless ?aa=1 asks', async () => {
    const s = await state();
    expect(s.softwareWebGL).toBe(true); // headless Chromium with --disable-gpu renders with SwiftShader
    expect(s.antialias).toBe(false);
    const other = await browser.newPage({ viewport: { width: 800, height: 600 } });
    try {
      await other.goto(`${url}?aa=1`);
      await other.waitForFunction(() => window.__studio?.ready === true);
      const forced = await other.evaluate(() => window.__studio.state());
      expect(forced.antialias).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('draws the selected joint’s curves, with discontinuity markers summarised', async () => {
    const s = await state();
    expect(s.plot.points).toBeGreaterThanOrEqual(1064 * 4);
    expect(s.plot.inked).toBeGreaterThan(200);
    await expect(page.textContent('[data-testid=disc-summary]')).resolves.toMatch(
      /discontinuit|sign-flip|jump|euler/,
    );
    for (const kind of ['euler', 'rotvec', 'sixd', 'speed', 'quat']) {
      const before = (await state()).curveRevision;
      await page.selectOption('[data-testid=curve-kind]', kind);
      await page.waitForFunction((r) => window.__studio.state().curveRevision > r, before);
      expect((await state()).plot.inked).toBeGreaterThan(100);
    }
  });

  it('shows the selected joint’s spectrum', async () => {
    const s = await state();
    expect(s.plot.spectrumInked).toBeGreaterThan(100);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=spectrum-info]')?.textContent?.includes('recommended rate'),
    );
    const info = (await page.textContent('[data-testid=spectrum-info]')) ?? '';
    expect(info).toContain('Hips');
    // the energy line and the recommended rate are clipSpectrum's, as Node computes them for the same file
    const ref = clipSpectrum(
      parseBvh(
        readFileSync(join(ROOT, 'web', 'public', 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'), 'utf8'),
      ),
      { energyShare: 0.99 },
    );
    expect(info).toContain(`below ${ref.energyFrequency.toFixed(2)} Hz`);
    expect(info).toContain(`recommended rate ${ref.recommendedRate.toFixed(1)} Hz`);
  });

  it('scrubbing to a frame changes the frame number and the pose', async () => {
    const before = await state();
    await page.$eval('[data-testid=scrubber]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '500';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect(page.textContent('[data-testid=frame-readout]')).resolves.toMatch(/^frame 500 \/ 1063/);
    const after = await state();
    expect(after.frame).toBe(500);
    expect(after.poseChecksum).not.toBe(before.poseChecksum);
    // arrow keys step one frame
    await page.locator('[data-testid=viewport] canvas').focus();
    await page.keyboard.press('ArrowRight');
    expect((await state()).frame).toBe(501);
    await page.keyboard.press('ArrowLeft');
    expect((await state()).frame).toBe(500);
    // root motion off keeps the walker on the spot; on again restores the pose
    await page.uncheck('[data-testid=root-motion]');
    expect((await state()).poseChecksum).not.toBe(after.poseChecksum);
    await page.check('[data-testid=root-motion]');
    expect((await state()).poseChecksum).toBe(after.poseChecksum);
    await page.click('[data-testid=curve-plot] .u-over', { position: { x: 40, y: 40 } });
    expect((await state()).frame).toBeLessThan(500);
  });

  it('playback interpolates between frames with the chosen kernel', async () => {
    const poseAt = async (kernel: string, frame: number) => {
      await page.selectOption('[data-testid=play-kernel]', kernel);
      await page.evaluate((f) => window.__studio.seekFrame(f), frame);
      return (await state()).poseChecksum;
    };
    const c500 = await poseAt('nearest', 500);
    const c501 = await poseAt('nearest', 501);
    expect(await poseAt('nearest', 500.4)).toBe(c500);
    const linear = await poseAt('linear', 500.5);
    expect(linear).not.toBe(c500);
    expect(linear).not.toBe(c501);
    const kernels: string[] = (await page.evaluate(() => window.__studio.state())).playKernels;
    for (const k of ['catmull-rom', 'lanczos3'].filter((x) => kernels.includes(x))) {
      // interpolating kernels reproduce the frames and differ from linear between them
      expect(await poseAt(k, 500)).toBeCloseTo(c500, 6);
      expect(await poseAt(k, 500.5)).not.toBeCloseTo(linear, 9);
    }
    await poseAt('linear', 500);
  });

  it('clicking a joint in the 3D view selects it', async () => {
    await page.selectOption('[data-testid=play-kernel]', 'linear');
    const names = await page.locator('[data-testid=joint-tree] li').allTextContents();
    const head = names.indexOf('Head');
    const p = await page.evaluate((j) => window.__studio.jointScreen(j), head);
    await page.mouse.click(p.x, p.y);
    expect((await state()).selected).toBe(head);
    await expect(page.textContent('#curve-title')).resolves.toContain('Head');
  });

  it('selecting a joint in the tree switches the curves', async () => {
    const before = await state();
    await page.click('[data-testid=joint-tree] li:nth-child(5)');
    // the new joint's curves come from the worker: drawn when they arrive, not within the click
    await page.waitForFunction((r) => window.__studio.state().curveRevision > r, before.curveRevision);
    const after = await state();
    expect(after.selected).toBe(4);
    expect(after.curveRevision).toBeGreaterThan(before.curveRevision);
  });

  it('unroll and smoothing are live: the processed curve differs, the difference is shown in degrees', async () => {
    await page.click('[data-testid=joint-tree] li:nth-child(1)');
    await page.check('[data-testid=unroll]');
    await page.waitForFunction(
      () => window.__studio.state().processed !== null && !window.__studio.state().busy,
    );
    // the walk's root has sign flips and Euler wraps; after unrollClip none are left
    await expect(page.textContent('[data-testid=disc-summary]')).resolves.toMatch(
      /sign-flip.*→ processed: 0$/,
    );
    const rev = (await state()).curveRevision;
    await page.check('[data-testid=smooth]');
    await page.$eval('[data-testid=sigma]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '8';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    // unrolling alone changes no rotation (max 0.000°); wait for the smoothed result
    await page.waitForFunction((r) => {
      const s = window.__studio.state();
      const m = /max\s+(\d+\.\d+)°/.exec(
        document.querySelector('[data-testid=difference]')?.textContent ?? '',
      );
      return !s.busy && s.curveRevision > r && s.curveDiff > 0.01 && m !== null && Number(m[1]) > 0.01;
    }, rev);
    const shown = /max\s+(\d+\.\d+)°/.exec((await page.textContent('[data-testid=difference]')) ?? '');
    expect(shown).not.toBeNull();
    await shot('clip-smoothed');
    // the difference shown is the largest angle between original and processed rotations: recompute it in
    // Node from the sample and the downloaded result (BVH text keeps 6 decimals of a degree)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    const path = join(SHOTS, 'smoothed.bvh');
    await download.saveAs(path);
    const a = parseBvh(
      readFileSync(join(ROOT, 'web', 'public', 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'), 'utf8'),
    );
    const b = parseBvh(readFileSync(path, 'utf8'));
    expect(b.frames).toBe(a.frames);
    let max = 0;
    for (let i = 0; i < a.rotations.data.length; i += 4) {
      const qa = a.rotations.data.subarray(i, i + 4);
      const qb = b.rotations.data.subarray(i, i + 4);
      max = Math.max(max, (quat.angle(qa, qb) * 180) / Math.PI);
    }
    expect(Math.abs(max - Number(shown?.[1]))).toBeLessThan(0.01);
    // the difference curve of the selected joint peaks at the panel's figure for that joint
    const jointMax = /Hips: max (\d+\.\d+)°/.exec((await page.textContent('[data-testid=difference]')) ?? '');
    const diffRev = (await state()).curveRevision;
    await page.selectOption('[data-testid=curve-kind]', 'diff');
    // the difference curves come from the worker: wait for them before reading the summary
    await page.waitForFunction(
      (r) =>
        window.__studio.state().curveRevision > r &&
        /^largest /.test(document.querySelector('[data-testid=disc-summary]')?.textContent ?? ''),
      diffRev,
    );
    await expect(page.textContent('[data-testid=disc-summary]')).resolves.toBe(`largest ${jointMax?.[1]}°`);
    expect((await state()).plot.inked).toBeGreaterThan(50);
    await page.selectOption('[data-testid=curve-kind]', 'quat');
  });

  it('the difference plot draws its own curve, in its colour (not only the grid)', async () => {
    const rev = (await state()).curveRevision;
    await page.selectOption('[data-testid=curve-kind]', 'diff');
    await page.waitForFunction(
      (r) =>
        window.__studio.state().curveRevision > r &&
        /^largest /.test(document.querySelector('[data-testid=disc-summary]')?.textContent ?? ''),
      rev,
    );
    await expect(page.textContent('[data-testid=disc-summary]')).resolves.toMatch(/largest \d+\.\d+°/);
    // the difference series is drawn in the first channel colour; grid, axes and labels are grey
    const px = await page.evaluate(() => window.__studio.curveColourPixels('#ff6b6b'));
    expect(px).toBeGreaterThan(40);
    await shot('clip-difference');
    await page.selectOption('[data-testid=curve-kind]', 'quat');
  });

  it('resampling is live, and optimal keys report their playback error against decimation', async () => {
    await page.check('[data-testid=resample]');
    await page.fill('[data-testid=rate]', '30');
    await page.waitForFunction(() => {
      const s = window.__studio.state();
      return !s.busy && s.processed !== null && Math.abs(s.processed.rate - 30) < 1e-6;
    });
    const s = await state();
    expect(s.processed?.frames).toBeGreaterThan(260);
    expect(s.processed?.frames).toBeLessThan(270);
    await expect(page.textContent('[data-testid=difference]')).resolves.toMatch(/max\s+\d+\.\d+°/);
    await page.check('[data-testid=optimal]');
    await page.waitForFunction(() => !window.__studio.state().busy);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=difference]')?.textContent?.includes('optimal keys'),
    );
    const text = (await page.textContent('[data-testid=difference]')) ?? '';
    const m = /playback error (\d+\.\d+)° vs (\d+\.\d+)°/.exec(text);
    expect(m).not.toBeNull();
    expect(Number(m?.[1])).toBeLessThan(Number(m?.[2]));
    await shot('clip-resampled');
  });

  it('downloads the result as a BVH that parses', async () => {
    const s = await state();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    const path = join(SHOTS, download.suggestedFilename());
    await download.saveAs(path);
    const clip = parseBvh(readFileSync(path, 'utf8'));
    expect(clip.skeleton.names.length).toBe(23);
    expect(clip.frames).toBe(s.processed?.frames ?? s.frames);
    if (s.processed) expect(clip.rate).toBeCloseTo(s.processed.rate, 3);
  });

  it('a corrupt file shows the parse error with line:column and keeps the open clip', async () => {
    const broken = tinyBvh().replace(
      'CHANNELS 3 Zrotation Yrotation Xrotation',
      'CHANNELS 3 Zrotation Yrotation Wrotation',
    );
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'broken.bvh',
      mimeType: 'text/plain',
      buffer: Buffer.from(broken),
    });
    const error = page.locator('[data-testid=error]');
    await error.waitFor({ state: 'visible' });
    const text = await error.textContent();
    expect(text).toContain('broken.bvh');
    expect(text).toContain('Wrotation');
    expect(text).toMatch(/\b9:\d+\b/);
    expect((await state()).joints).toBe(23);
    await shot('parse-error');
  });

  it('opens a file dropped on the window', async () => {
    const text = tinyBvh();
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped.bvh', { type: 'text/plain' }));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    await page.waitForFunction(() => window.__studio.state().name === 'dropped.bvh');
    expect((await state()).joints).toBe(3);
    expect(await page.locator('[data-testid=error]').isHidden()).toBe(true);
  });

  it("'Euler, file order' plots the file's own channel values, and after processing what the writer writes", async () => {
    for (const id of ['smooth', 'resample', 'optimal']) await page.uncheck(`[data-testid=${id}]`);
    const { text, rows } = unrolledBvh();
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'unrolled.bvh',
      mimeType: 'text/plain',
      buffer: Buffer.from(text),
    });
    await page.waitForFunction(
      () => window.__studio.state().name === 'unrolled.bvh' && !window.__studio.state().busy,
    );
    await page.selectOption('[data-testid=curve-kind]', 'euler');
    await page.check('[data-testid=unroll]');
    await page.waitForFunction(() => {
      const s = window.__studio.state();
      const c = window.__studio.curves();
      return (
        !s.busy && s.processed !== null && c !== null && c.columns.length === 7 && c.columns[4][0] !== null
      );
    });
    const c = await page.evaluate(() => window.__studio.curves());
    // original: Z, Y, X as stored (6 decimals; Zrotation down to -728, Xrotation continuous to -187.8)
    for (let f = 0; f < 40; f++)
      for (let k = 0; k < 3; k++)
        expect(Math.abs(c.columns[1 + k][f] - rows[f][3 + k]), `${f} ${k}`).toBeLessThan(1e-6);
    expect(Math.min(...c.columns[1])).toBeLessThan(-727);
    // the discontinuity ticks are those of the curves drawn: the stored curves do not wrap
    expect(c.summary.split('→')[0]).not.toContain('euler-wrap');
    // processed: continuous (no 360° step) and equal to the rows the BVH writer writes
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    const path = join(SHOTS, 'unrolled-processed.bvh');
    await download.saveAs(path);
    const written = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => /^-?\d/.test(l.trim()) && l.trim().split(/\s+/).length === 6)
      .map((l) => l.trim().split(/\s+/).map(Number));
    expect(written.length).toBe(40);
    for (let f = 0; f < 40; f++) {
      for (let k = 0; k < 3; k++) {
        expect(Math.abs(c.columns[4 + k][f] - written[f][3 + k]), `${f} ${k}`).toBeLessThan(1e-5);
        if (f > 0) expect(Math.abs(c.columns[4 + k][f] - c.columns[4 + k][f - 1])).toBeLessThan(30);
      }
    }
    await shot('clip-euler-file-order');
    await page.uncheck('[data-testid=unroll]');
    await page.waitForFunction(() => !window.__studio.state().busy);
  });

  it('a jump found in both the quaternions and the Euler curves is one event, with its kinds', async () => {
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'jump.bvh',
      mimeType: 'text/plain',
      buffer: Buffer.from(jumpBvh()),
    });
    await page.waitForFunction(
      () => window.__studio.state().name === 'jump.bvh' && !window.__studio.state().busy,
    );
    await page.click('[data-testid=joint-tree] li:nth-child(2)');
    await page.selectOption('[data-testid=curve-kind]', 'quat');
    await page.waitForFunction(() => window.__studio.curves()?.markers.length > 0);
    const c = await page.evaluate(() => window.__studio.curves());
    const frames = c.markers.map((m: { x: number }) => Math.round(m.x * 30));
    // the file has one step, at frame 20: one marker there, naming every kind found at that frame
    expect(frames).toEqual([20]);
    expect(c.markers[0].title).toContain('jump');
    expect(c.summary).toMatch(/^1 event: /);
  });

  it("a 'replace'/'add' position-mode switch re-reads the file", async () => {
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'add-mode.bvh',
      mimeType: 'text/plain',
      buffer: Buffer.from(addModeBvh()),
    });
    await page.waitForFunction(
      () => window.__studio.state().name === 'add-mode.bvh' && !window.__studio.state().busy,
    );
    await expect(page.textContent('[data-testid=warnings]')).resolves.toContain("positionMode 'add'");
    expect(await page.locator('[data-testid=position-mode-switch]').isVisible()).toBe(true);
    const rootY = () => page.evaluate(() => window.__studio.clip.original.translations.data[1] as number);
    expect(await rootY()).toBeCloseTo(0, 9); // replace: the channel value (sin 0)
    await page.click('[data-testid=position-mode-switch]');
    await page.waitForFunction(
      () => window.__studio.state().positionMode === 'add' && !window.__studio.state().busy,
    );
    expect(await rootY()).toBeCloseTo(90, 9); // add: OFFSET + channel
    // the positionMode warning is gone ('add' is what the file means); a note on its Frame Time may stay
    expect(await page.textContent('[data-testid=warnings]')).not.toContain("positionMode 'add'");
    expect(await page.inputValue('[data-testid=position-mode]')).toBe('add');
    await page.selectOption('[data-testid=position-mode]', 'replace');
    await page.waitForFunction(
      () => window.__studio.state().positionMode === 'replace' && !window.__studio.state().busy,
    );
    expect(await rootY()).toBeCloseTo(0, 9);
  });

  it.skipIf(!HAS_SHARED_BVH)('opens every shared real BVH file without an error', async () => {
    for (const rel of SHARED_BVH_FILES) {
      await page.setInputFiles('[data-testid=file-input]', sharedBvhPath(rel));
      const name = rel.split('/').pop();
      await page.waitForFunction(
        (n) => {
          const s = window.__studio.state();
          return (s.name === n && !s.busy) || document.querySelector('[data-testid=error]')?.textContent;
        },
        name,
        { timeout: 30_000 },
      );
      expect(await page.textContent('[data-testid=error]'), rel).toBe('');
      const s = await state();
      expect(s.frames, rel).toBeGreaterThan(1);
      expect(s.plot.inked, rel).toBeGreaterThan(0);
      if (rel === 'assimp/Boxing_Toes.bvh') {
        // Frames: 3069 declared, 3070 rows: read, with the parser's warning shown
        expect(s.frames).toBe(3070);
        await expect(page.textContent('[data-testid=warnings]')).resolves.toContain('Boxing_Toes.bvh');
      }
    }
  });

  it("the averaging lab's plot shows what perturbing will show before 'perturb' is ticked", async () => {
    await page.click('[data-testid=tab-averaging]');
    await page.waitForFunction(() => window.__studio.lab('averaging') !== null);
    const s = await page.evaluate(() => window.__studio.lab('averaging'));
    expect(s.perturb).toBe(false);
    expect(s.preview).toBe(true);
    expect(s.previewNote).toContain('perturb');
    expect(s.previewPoints).toBeGreaterThan(100);
    // at least one method's curve (not eigen, which is 0 against itself) drawn in its own colour
    const drawn = Object.entries(s.plotPixels as Record<string, number>).filter(
      ([m, n]) => m !== 'eigen' && n > 20,
    );
    expect(drawn.length).toBeGreaterThan(0);
  });

  it('the averaging lab renders and reacts to its controls', async () => {
    await page.click('[data-testid=tab-averaging]');
    const lab = () => page.evaluate(() => window.__studio.lab('averaging'));
    await page.waitForFunction(() => window.__studio.lab('averaging') !== null);
    const s0 = await lab();
    expect(s0.pixels.lit).toBeGreaterThan(200);
    expect(Object.keys(s0.results)).toEqual(['flip', 'nlerp', 'raw', 'log', 'eigen', 'geodesic']);
    // the eigen average minimises the cost
    for (const c of Object.values(s0.costs) as number[])
      expect(s0.costs.eigen).toBeLessThanOrEqual(c + 1e-12);
    // what the lab shows is averageQuaternions / averageCost on the drawn inputs, as Node computes them
    for (const m of ['flip', 'nlerp', 'raw', 'log', 'eigen', 'geodesic'] as const) {
      const q = averageQuaternions(s0.inputs, s0.weights, { method: m });
      expect(quat.angle(q, s0.results[m]), m).toBeLessThan(1e-9);
      expect(averageCost(q, s0.inputs, s0.weights), m).toBeCloseTo(s0.costs[m], 9);
    }
    await page.check('[data-testid=avg-reverse]');
    const s1 = await lab();
    expect(s1.reverse).toBe(true);
    expect(s1.updates).toBeGreaterThan(s0.updates);
    expect(s1.orderDelta.eigen).toBeLessThan(1e-6);
    // drag an input frame by its arrow: the inputs and every average move
    await page.mouse.move(s1.tip.x, s1.tip.y);
    await page.mouse.down();
    await page.mouse.move(s1.tip.x + 60, s1.tip.y + 30, { steps: 6 });
    await page.mouse.up();
    const sd = await lab();
    expect(sd.updates).toBeGreaterThan(s1.updates);
    expect(sd.results.eigen).not.toEqual(s1.results.eigen);
    await page.check('[data-testid=avg-perturb]');
    await page.waitForTimeout(2500);
    const s2 = await lab();
    expect(s2.updates).toBeGreaterThan(s1.updates + 10);
    // input 1 turns at 60°/s (at most 6° per animation frame): the eigen average follows without jumping
    expect(s2.maxJump.eigen).toBeLessThan(10);
    await shot('lab-averaging');
    await page.uncheck('[data-testid=avg-perturb]');
  });

  it('the interpolation lab renders and reacts to its controls', async () => {
    await page.click('[data-testid=tab-interpolation]');
    const lab = () => page.evaluate(() => window.__studio.lab('interpolation'));
    await page.waitForFunction(() => window.__studio.lab('interpolation') !== null);
    const s0 = await lab();
    expect(s0.pixels.lit).toBeGreaterThan(200);
    // Casey Muratori's observations at 150°: nlerp stays on the slerp arc but its speed varies; the log
    // blend leaves the arc when the axes differ
    expect(s0.summary.slerp.speedSpread).toBeLessThan(1e-3);
    expect(s0.summary.nlerp.arcDeviation).toBeLessThan(1e-9);
    expect(s0.summary.nlerp.speedSpread).toBeGreaterThan(0.2);
    expect(s0.summary.log.arcDeviation).toBeGreaterThan(1);
    // drag b by its arrow: b turns and the paths are recomputed
    await page.uncheck('[data-testid=interp-animate]');
    await page.mouse.move(s0.tipB.x, s0.tipB.y);
    await page.mouse.down();
    await page.mouse.move(s0.tipB.x - 40, s0.tipB.y + 25, { steps: 5 });
    await page.mouse.up();
    const sd = await lab();
    expect(sd.updates).toBeGreaterThan(s0.updates);
    expect(quat.angle(sd.b, s0.b)).toBeGreaterThan(0.05);
    expect(sd.a).toEqual(s0.a);
    await page.check('[data-testid=interp-animate]');
    await page.$eval('[data-testid=interp-angle]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '40';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const s1 = await lab();
    expect(s1.angle).toBe(40);
    expect(s1.summary.nlerp.speedSpread).toBeLessThan(s0.summary.nlerp.speedSpread);
    await page.$eval('[data-testid=interp-angle]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '150';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await shot('lab-interpolation');
  });

  it('the unrolling lab renders and reacts to its controls', async () => {
    await page.click('[data-testid=tab-unrolling]');
    const lab = () => page.evaluate(() => window.__studio.lab('unrolling'));
    await page.waitForFunction(() => window.__studio.lab('unrolling') !== null);
    const s0 = await lab();
    expect(s0.pixels.lit).toBeGreaterThan(100);
    expect(s0.counts.flipsBefore).toBeGreaterThan(0);
    expect(s0.counts.flipsAfter).toBe(0);
    expect(s0.counts.wrapsAfter).toBe(0);
    await page.$eval('[data-testid=unroll-turns]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '4.5';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const s1 = await lab();
    expect(s1.turns).toBe(4.5);
    expect(s1.counts.flipsBefore).toBeGreaterThan(s0.counts.flipsBefore);
    expect(s1.counts.flipsAfter).toBe(0);
    await shot('lab-unrolling');
  });

  it('the live filter lab plots every filter, matches the library, and shows which filters change with the rate', async () => {
    await page.click('[data-testid=tab-live]');
    const lab = () => page.evaluate(() => window.__studio.lab('live'));
    await page.waitForFunction(() => window.__studio.lab('live') !== null);
    const s0 = await lab();
    expect(s0.rate).toBe(60);
    expect(s0.pixels.lit).toBeGreaterThan(100);
    // both plots hold the input and the three filters, one point per tracker sample
    const n = s0.times.length;
    expect(n).toBe(361);
    for (const p of s0.series) {
      expect(p.names).toEqual(['input', 'one euro', 'damper', 'naive lerp']);
      expect(p.lengths).toEqual([n, n, n, n, n]);
    }
    // what the lab plots is the library's output on the lab's samples, as Node computes it
    const check = (filter: { pushAt: (...a: never[]) => unknown }, name: string) => {
      const got = new Float64Array(n * 4);
      const push = filter.pushAt as unknown as (
        o: Float64Array,
        oo: number,
        i: number[],
        io: number,
        t: number,
      ) => void;
      for (let k = 0; k < n; k++) push(got, k * 4, s0.input, k * 4, s0.times[k]);
      let worst = 0;
      for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - s0.outputs[name][i]));
      expect(worst, name).toBeLessThan(1e-12);
    };
    check(
      createOneEuroFilter({ joints: 1, minCutoff: s0.params.minCutoff, beta: s0.params.beta }),
      'one euro',
    );
    check(createDamper({ joints: 1, halfLife: s0.params.halfLife, targetPath: 'linear' }), 'damper');
    // random stored signs: the library filters stay continuous, the naive component lerp does not follow
    expect(s0.readouts['one euro'].jitter).toBeLessThan(s0.readouts.input.jitter);
    expect(s0.readouts['naive lerp'].jitter).toBeGreaterThan(10);
    await page.selectOption('[data-testid=live-signs]', 'none');
    const s1 = await lab();
    expect(s1.updates).toBeGreaterThan(s0.updates);
    // at 60 Hz, then at 144 Hz: the One Euro filter and the damper keep their lag, the naive lerp's shrinks
    await page.selectOption('[data-testid=live-rate]', '144');
    const s2 = await lab();
    expect(s2.rate).toBe(144);
    expect(s2.times.length).toBe(865);
    for (const name of ['one euro', 'damper']) {
      expect(Math.abs(s2.readouts[name].lag / s1.readouts[name].lag - 1), name).toBeLessThan(0.1);
    }
    expect(s2.readouts['naive lerp'].lag).toBeLessThan(0.6 * s1.readouts['naive lerp'].lag);
    expect(s2.changes).toEqual(['naive lerp']);
    expect(s2.info).toContain('lag changes with the rate (30-144 Hz, > 20%): naive lerp');
    // a slider re-runs the filters: a larger beta lowers the One Euro lag
    await page.$eval('[data-testid=live-beta]', (el) => {
      const input = el as unknown as InputElement;
      input.value = '4';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const s3 = await lab();
    expect(s3.params.beta).toBe(4);
    expect(s3.readouts['one euro'].lag).toBeLessThan(s2.readouts['one euro'].lag);
    await shot('lab-live');
    // leave the lab: its animation stops, so the timing records below measure the clip view alone
    await page.click('[data-testid=tab-clip]');
  });

  it('reduce keys on a BVH clip: the readout is reduceKeys in Node (lengths in centimetres), the download a BVH', async () => {
    await page.click('[data-testid=tab-clip]');
    for (const box of ['unroll', 'smooth', 'resample', 'optimal', 'fk', 'reduce'])
      await page.uncheck(`[data-testid=${box}]`);
    await page.selectOption('[data-testid=sample-select]', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
    await page.waitForFunction(
      () =>
        window.__studio.state().name === 'AV_8Walk_Meredith_HVHA_Rep1.bvh' && !window.__studio.state().busy,
    );
    await page.check('[data-testid=reduce]');
    await page.selectOption('[data-testid=reduce-metric]', 'local');
    await page.fill('[data-testid=tolerance-deg]', '0.5');
    await page.fill('[data-testid=tolerance-mm]', '1');
    await page.waitForFunction(() => {
      const s = window.__studio.state();
      return (
        !s.busy && s.reduction !== null && s.reduction.metric === 'local' && s.reduction.tolerance === 0.1
      );
    });
    const s = await state();
    const clip = parseBvh(
      readFileSync(join(ROOT, 'web', 'public', 'samples', 'AV_8Walk_Meredith_HVHA_Rep1.bvh'), 'utf8'),
    );
    // 1 mm is 0.1 of the file's centimetres; 0.5° in radians
    // keepAtRest 'all': the studio writes back every channel it shows, so it drops none at its rest value
    const ref = reduceKeys(clip, {
      metric: 'local',
      tolerance: 0.1,
      toleranceAngle: (0.5 * Math.PI) / 180,
      keepAtRest: 'all',
    });
    const r = s.reduction!;
    expect(r.keysAfter).toBe(ref.report.keysAfter);
    expect(r.keysAfter).toBeLessThan(r.keysBefore / 2);
    const text = (await page.textContent('[data-testid=reduce-readout]')) ?? '';
    expect(text).toContain(`${ref.report.keysAfter} of ${ref.report.keysBefore} keys kept`);
    expect(text).toContain(`rotation error max ${((ref.report.maxAngle * 180) / Math.PI).toPrecision(3)}°`);
    expect(ref.report.maxAngle).toBeLessThanOrEqual((0.5 * Math.PI) / 180);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.bvh$/);
    const path = join(SHOTS, 'reduced.bvh');
    await download.saveAs(path);
    const back = parseBvh(readFileSync(path, 'utf8'));
    expect(back.frames).toBe(clip.frames);
    await page.selectOption('[data-testid=reduce-metric]', 'object');
    await page.fill('[data-testid=tolerance-mm]', '0.1');
    await page.uncheck('[data-testid=reduce]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().reduction === null,
    );
  });

  it('the spectrum panel draws the worker’s one transform of each channel: a direct DFT of the keyed angles', async () => {
    await page.click('[data-testid=tab-clip]');
    for (const box of ['unroll', 'smooth', 'resample', 'optimal', 'fk', 'reduce'])
      await page.uncheck(`[data-testid=${box}]`);
    // two joints turning about Z, joint j by 0.6·sin(0.05·k + j) rad at key k (30 Hz, 240 LINEAR keys)
    const frames = 240;
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'two-joints.glb',
      mimeType: 'model/gltf-binary',
      buffer: Buffer.from(await manyKeysGlb(2, frames)),
    });
    await page.waitForFunction(
      () => window.__studio.state().name === 'two-joints.glb' && !window.__studio.state().busy,
    );
    expect((await state()).frames).toBe(frames);
    // the reference: the angles the file was made from, a periodic Hann window, the mean removed and a
    // direct O(N²) DFT; one-sided amplitude 2|X_k| / Σw in dB re 1 rad
    const direct = (joint: number): number[] => {
      const x = Array.from({ length: frames }, (_, k) => 0.6 * Math.sin(0.05 * k + joint));
      const w = x.map((_, k) => 0.5 - 0.5 * Math.cos((2 * Math.PI * k) / frames));
      const sw = w.reduce((a, b) => a + b, 0);
      const mean = x.reduce((a, b) => a + b, 0) / frames;
      return Array.from({ length: frames / 2 + 1 }, (_, b) => {
        let re = 0;
        let im = 0;
        for (let k = 0; k < frames; k++) {
          re += (x[k] - mean) * w[k] * Math.cos((2 * Math.PI * b * k) / frames);
          im -= (x[k] - mean) * w[k] * Math.sin((2 * Math.PI * b * k) / frames);
        }
        return 20 * Math.log10(((b === 0 || b === frames / 2 ? 1 : 2) * Math.hypot(re, im)) / sw);
      });
    };
    type Drawn = { joint: number; columns: number[][] };
    const drawn = async (joint: number): Promise<Drawn> => {
      await page.waitForFunction((j) => window.__studio.spectrum()?.joint === j, joint);
      return page.evaluate(() => window.__studio.spectrum());
    };
    const refs = [direct(0), direct(1)];
    const check = (d: Drawn, joint: number) => {
      const [freq, x, y, z, max] = d.columns;
      expect(freq.length).toBe(frames / 2 + 1);
      expect(freq[1]).toBeCloseTo(30 / frames, 12);
      // glTF joints are read in XYZ order: the turn is the Z angle; X and Y never move (floor, -300 dB)
      for (let b = 0; b < freq.length; b++) {
        expect(Math.max(x[b], y[b])).toBeLessThan(-200);
        // the angles are stored as float32 quaternions: 1e-7 rad of noise, far below -80 dB
        if (refs[joint][b] > -80) expect(Math.abs(z[b] - refs[joint][b])).toBeLessThan(0.01);
        if (Math.max(refs[0][b], refs[1][b]) > -80)
          expect(Math.abs(max[b] - Math.max(refs[0][b], refs[1][b]))).toBeLessThan(0.01);
      }
    };
    const first = (await state()).selected;
    check(await drawn(first), first);
    // another joint: its channels come from the same transform, asked of the worker, not computed again
    const other = 1 - first;
    await page.click(`[data-testid=joint-tree] li:text-is("J${other}")`);
    check(await drawn(other), other);
    // one clip spectrum for the opened clip, none on the page; a processed clip adds its own, once
    expect((await state()).spectraComputed).toBe(1);
    await page.check('[data-testid=smooth]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().processed !== null,
    );
    expect((await state()).spectraComputed).toBe(2);
    await page.uncheck('[data-testid=smooth]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().processed === null,
    );
  });

  it('opens the bundled glTF character: its skinned mesh is drawn, the animation list has its animations', async () => {
    await page.click('[data-testid=tab-clip]');
    for (const box of ['unroll', 'smooth', 'resample', 'optimal', 'fk', 'reduce'])
      await page.uncheck(`[data-testid=${box}]`);
    await page.selectOption('[data-testid=sample-select]', 'RobotExpressive.glb');
    await page.waitForFunction(
      () => window.__studio.state().name === 'RobotExpressive.glb' && !window.__studio.state().busy,
    );
    const s = await state();
    expect(s.format).toBe('gltf');
    const clips = await gltfClips(ROBOT);
    expect(s.animations).toEqual(clips.map((c) => c.name));
    expect(s.animations).toContain('Walking');
    expect(s.clipName).toBe(clips[s.animation].name);
    // the options of the animation list are the file's animations, in file order
    const options = await page.$$eval('[data-testid=animation-select] option', (o) =>
      o.map((x) => (x as unknown as { textContent: string }).textContent),
    );
    expect(options.map((o) => o.split(' (')[0])).toEqual(clips.map((c) => c.name));
    // a skinned mesh in the scene graph, every joint of the clip driving one of its nodes
    const ch = await page.evaluate(() => window.__studio.character());
    expect(ch.skinnedMeshes).toBeGreaterThan(0);
    expect(ch.bound).toBe(ch.joints);
    expect(ch.joints).toBe(s.joints);
    console.info(
      `RobotExpressive: ${ch.joints} joints bound by node index; bindingNames alone finds the same node for ${ch.nameBound}`,
    );
    // pixels of the body's material colour ('Main', orange; the file stores it linear, the canvas is sRGB)
    // in the canvas, with the skeleton overlay off
    const main = (await new NodeIO().read(ROBOT))
      .getRoot()
      .listMaterials()
      .find((m) => m.getName() === 'Main')!
      .getBaseColorFactor();
    const srgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
    const hex = `#${main
      .slice(0, 3)
      .map((c) =>
        Math.round(srgb(c) * 255)
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
    expect(ch.colours).toContain(hex);
    await page.evaluate(() => window.__studio.setOverlay(false));
    const body = await page.evaluate((c) => window.__studio.huePixels(c), hex);
    expect(body).toBeGreaterThan(400);
    // the overlay toggle: bone lines (#5fb3ff) drawn over the mesh only when it is on
    const boneOff = await page.evaluate(() => window.__studio.huePixels('#5fb3ff'));
    await page.evaluate(() => window.__studio.setOverlay(true));
    const boneOn = await page.evaluate(() => window.__studio.huePixels('#5fb3ff'));
    expect(boneOn).toBeGreaterThan(boneOff + 20);
    await page.evaluate(() => window.__studio.setOverlay(false));
    await shot('gltf-character');
  });

  it('choosing an animation from the list changes the clip to that animation', async () => {
    const clips = await gltfClips(ROBOT);
    const before = await state();
    const walking = clips.findIndex((c) => c.name === 'Walking');
    await page.selectOption('[data-testid=animation-select]', String(walking));
    await page.waitForFunction(
      () => window.__studio.state().clipName === 'Walking' && !window.__studio.state().busy,
    );
    const s = await state();
    const baked = bakeClip(clips[walking], { rate: studioBakeRate(clips[walking]) });
    expect(s.animation).toBe(walking);
    expect(s.frames).toBe(baked.frames);
    expect(s.frames).not.toBe(before.frames);
    await page.evaluate(() => window.__studio.seekFrame(10));
    expect((await state()).poseChecksum).not.toBe(before.poseChecksum);
    // the mesh stays and is driven by the new clip
    expect((await page.evaluate(() => window.__studio.character())).bound).toBe(s.joints);
  });

  it('reduce keys shows keys kept, bytes and the achieved error that reduceKeys gives in Node for the same clip', async () => {
    await page.check('[data-testid=reduce]');
    await page.waitForFunction(() => {
      const s = window.__studio.state();
      return !s.busy && s.reduction !== null;
    });
    const s = await state();
    const keyed = (await gltfClips(ROBOT))[s.animation];
    const baked = bakeClip(keyed, { rate: studioBakeRate(keyed) });
    // the panel's defaults: object metric, 0.1 mm (ACL's 0.01 cm) at a 3 cm shell, in metres; an
    // unprocessed glTF animation is reduced on its own keys, as `rotsig reduce` does
    const ref = reduceKeys(keyed, {
      metric: 'object',
      tolerance: 1e-4,
      shellDistance: 0.03,
      keepAtRest: 'all',
    });
    const r = s.reduction!;
    expect(r.keysAfter).toBe(ref.report.keysAfter);
    expect(r.keysBefore).toBe(ref.report.keysBefore);
    expect(r.keysAfter).toBeLessThan(r.keysBefore);
    expect(r.maxError).toBeCloseTo(ref.report.maxError, 12);
    expect(r.maxError).toBeLessThanOrEqual(1e-4);
    // glTF stores a key as a float32 time and float32 values (4 for a rotation, 3 otherwise)
    const bytes = ref.clip.tracks.reduce((n, t) => n + 4 * (t.times.length + t.values.length), 0);
    expect(r.bytesAfter).toBe(bytes);
    const text = (await page.textContent('[data-testid=reduce-readout]')) ?? '';
    expect(text).toContain(`${ref.report.keysAfter} of ${ref.report.keysBefore} keys kept`);
    expect(text).toContain(`animation data ${(bytes / 1000).toFixed(1)} kB`);
    expect(text).toContain(`max ${(ref.report.maxError * 1000).toPrecision(3)} mm`);
    // the kept keys are drawn on the processed curves (rings) at their own times
    const joint = ref.clip.tracks.find((t) => t.path === 'rotation' && t.times.length < baked.frames)!.joint;
    await page.click(`[data-testid=joint-tree] li[data-joint="${joint}"]`);
    await page.selectOption('[data-testid=curve-kind]', 'quat');
    await page.waitForFunction(() => window.__studio.dots().some((d: { ring: boolean }) => d.ring));
    const kept = ref.clip.tracks.find((t) => t.joint === joint && t.path === 'rotation')!;
    const start = baked.startTime ?? 0;
    const rings = (await page.evaluate(() => window.__studio.dots())).filter(
      (d: { ring: boolean }) => d.ring,
    );
    expect(rings).toHaveLength(4);
    expect(rings[0].x).toHaveLength(kept.times.length);
    rings[0].x.forEach((x: number, i: number) => {
      expect(x).toBeCloseTo(kept.times[i] - start, 6);
    });
    await shot('gltf-reduced');
  });

  it('downloads a .glb with the processed animation and everything else of the file as it was', async () => {
    const s = await state();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    expect(download.suggestedFilename()).toBe('RobotExpressive-processed.glb');
    const path = join(SHOTS, download.suggestedFilename());
    await download.saveAs(path);
    const io = new NodeIO();
    const out = await io.read(path);
    const orig = await io.read(ROBOT);
    const root = out.getRoot();
    const root0 = orig.getRoot();
    // the mesh intact: same meshes, primitives, vertex counts, skins and joints
    expect(root.listMeshes().length).toBe(root0.listMeshes().length);
    const vertices = (r: typeof root) =>
      r.listMeshes().flatMap((m) => m.listPrimitives().map((p) => p.getAttribute('POSITION')?.getCount()));
    expect(vertices(root)).toEqual(vertices(root0));
    expect(root.listSkins().map((k) => k.listJoints().length)).toEqual(
      root0.listSkins().map((k) => k.listJoints().length),
    );
    expect(root.listAnimations().map((a) => a.getName())).toEqual(
      root0.listAnimations().map((a) => a.getName()),
    );
    // the processed animation holds the reduced keys; the others are untouched
    const keysOf = (a: ReturnType<typeof root.listAnimations>[number]) =>
      a
        .listChannels()
        .filter((c) => c.getTargetPath() !== 'weights')
        .reduce((n, c) => n + (c.getSampler()?.getInput()?.getCount() ?? 0), 0);
    const anims = root.listAnimations();
    const anims0 = root0.listAnimations();
    expect(keysOf(anims[s.animation])).toBe(s.reduction?.keysAfter);
    expect(keysOf(anims0[s.animation])).toBeGreaterThan(s.reduction?.keysAfter ?? 0);
    for (let a = 0; a < anims.length; a++) {
      if (a === s.animation) continue;
      const ch = anims[a].listChannels();
      const ch0 = anims0[a].listChannels();
      expect(ch.length).toBe(ch0.length);
      for (let c = 0; c < ch.length; c++) {
        expect(Array.from(ch[c].getSampler()!.getOutput()!.getArray()!)).toEqual(
          Array.from(ch0[c].getSampler()!.getOutput()!.getArray()!),
        );
      }
    }
    // read back by rotsig, the processed animation covers the original's time span
    const back = (await gltfClips(path))[s.animation];
    const keyed = (await gltfClips(ROBOT))[s.animation];
    const rate = studioBakeRate(keyed);
    const a = bakeClip(back, { rate });
    const b = bakeClip(keyed, { rate });
    expect(a.frames).toBe(b.frames);
    await page.uncheck('[data-testid=reduce]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().reduction === null,
    );
  });

  it('smoothing, unrolling and optimal keys run on a glTF clip; the .glb written keys every processed frame', async () => {
    const s0 = await state();
    await page.check('[data-testid=unroll]');
    await page.check('[data-testid=smooth]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().processed !== null,
    );
    await expect(page.textContent('[data-testid=difference]')).resolves.toMatch(/max\s+\d+\.\d+°/);
    await page.check('[data-testid=resample]');
    await page.fill('[data-testid=rate]', '12');
    await page.check('[data-testid=optimal]');
    await page.waitForFunction(() => {
      const s = window.__studio.state();
      return !s.busy && s.processed !== null && Math.abs(s.processed.rate - 12) < 1e-6;
    });
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=difference]')?.textContent?.includes('optimal keys'),
    );
    const s = await state();
    expect(s.processed?.frames).toBe(Math.ceil((s0.frames - 1) / 2) + 1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=download]'),
    ]);
    const path = join(SHOTS, 'processed-12hz.glb');
    await download.saveAs(path);
    const doc = await new NodeIO().read(path);
    const anim = doc.getRoot().listAnimations()[s.animation];
    const counts = anim
      .listChannels()
      .filter((c) => c.getTargetPath() !== 'weights')
      .map((c) => c.getSampler()?.getInput()?.getCount());
    expect(counts.length).toBeGreaterThan(5);
    expect(new Set(counts)).toEqual(new Set([s.processed?.frames]));
    const back = (await gltfClips(path))[s.animation];
    // (the morph-weights channel stays as the file had it, at 24 Hz)
    const rotsAndMoves = { ...back, tracks: back.tracks.filter((t) => t.path !== 'weights') };
    expect(inferKeyRate(rotsAndMoves).rate).toBeCloseTo(12, 6);
    for (const box of ['unroll', 'smooth', 'resample', 'optimal']) await page.uncheck(`[data-testid=${box}]`);
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().processed === null,
    );
  });

  it.skipIf(!existsSync(MAGNUM_GLB))(
    'opens a .gltf from the file picker and a .glb dropped on the window',
    async () => {
      const gltfPath = join(dirname(MAGNUM_GLB), '..', 'khronos-samples', 'rigged_simple.gltf');
      await page.setInputFiles('[data-testid=file-input]', gltfPath);
      await page.waitForFunction(
        () => window.__studio.state().name === 'rigged_simple.gltf' && !window.__studio.state().busy,
      );
      const s = await state();
      expect(s.format).toBe('gltf');
      expect(s.joints).toBe((await gltfClips(gltfPath))[0].skeleton.names.length);
      const ch = await page.evaluate(() => window.__studio.character());
      expect(ch.skinnedMeshes).toBe(1);
      expect(ch.bound).toBe(s.joints);
      const box = join(dirname(MAGNUM_GLB), '..', 'khronos-samples', 'BoxAnimated.glb');
      const bytes = Array.from(readFileSync(box));
      await page.evaluate((b) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(b) as unknown as string], 'BoxAnimated.glb', { type: '' }));
        window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, bytes);
      await page.waitForFunction(
        () => window.__studio.state().name === 'BoxAnimated.glb' && !window.__studio.state().busy,
      );
      expect((await state()).format).toBe('gltf');
      expect((await page.evaluate(() => window.__studio.character())).skinnedMeshes).toBe(0);
      expect(await page.locator('[data-testid=error]').isHidden()).toBe(true);
    },
  );

  it.skipIf(!existsSync(MAGNUM_GLB))(
    'curves of a keyed track: dots at its own (non-uniform) key times, the curve in its own interpolation',
    async () => {
      await page.setInputFiles('[data-testid=file-input]', MAGNUM_GLB);
      await page.waitForFunction(
        () => window.__studio.state().name === 'animation.glb' && !window.__studio.state().busy,
      );
      const clips = await gltfClips(MAGNUM_GLB);
      const index = clips.findIndex((c) => c.tracks.some((t) => t.interpolation === 'cubicspline'));
      await page.selectOption('[data-testid=animation-select]', String(index));
      await page.waitForFunction(
        (i) => window.__studio.state().animation === i && !window.__studio.state().busy,
        index,
      );
      const keyed = clips[index];
      const track = keyed.tracks.find((t) => t.path === 'rotation')!;
      expect(track.interpolation).toBe('cubicspline');
      await page.click(`[data-testid=joint-tree] li[data-joint="${track.joint}"]`);
      await page.selectOption('[data-testid=curve-kind]', 'euler');
      await page.selectOption('[data-testid=curve-kind]', 'quat');
      await page.waitForFunction(() => window.__studio.dots().length === 4);
      const start = Math.min(...keyed.tracks.map((t) => t.times[0]));
      const dots = await page.evaluate(() => window.__studio.dots());
      // one dot per key, at the key's own time: 0, 3, 3.5 and 4.5 s from the start (spacing not uniform)
      for (const d of dots) {
        expect(d.x).toHaveLength(track.times.length);
        d.x.forEach((x: number, i: number) => {
          expect(x).toBeCloseTo(track.times[i] - start, 9);
        });
      }
      const gaps = dots[0].x.slice(1).map((x: number, i: number) => x - dots[0].x[i]);
      expect(Math.max(...gaps) / Math.min(...gaps)).toBeGreaterThan(5);
      // the dots' values are the keys' values; the curve between them is the Hermite spline glTF defines
      for (let c = 0; c < 4; c++)
        dots[c].y.forEach((y: number, i: number) => {
          expect(y).toBeCloseTo(track.values[(i * 3 + 1) * 4 + c], 6);
        });
      const curves = await page.evaluate(() => window.__studio.curves());
      const x: number[] = curves.columns[0];
      const ref = evaluateTrack(
        track,
        x.map((t) => t + start),
      );
      let worst = 0;
      for (let i = 0; i < x.length; i++)
        for (let c = 0; c < 4; c++)
          worst = Math.max(worst, Math.abs(curves.columns[1 + c][i] - ref[i * 4 + c]));
      expect(worst).toBeLessThan(1e-12);
      // between the first two keys (3 s apart) the curve is sampled densely, not drawn as one straight line
      expect(x.filter((t) => t > 0 && t < 3).length).toBeGreaterThan(100);
      await shot('gltf-keys');
    },
  );

  it.skipIf(!existsSync(MAGNUM_GLB))(
    'opens a .gltf picked with its .bin; a STEP track is drawn as steps that hold each key',
    async () => {
      const gltfPath = join(dirname(MAGNUM_GLB), '..', 'khronos-samples', 'interpolation_test.gltf');
      const binPath = gltfPath.replace(/\.gltf$/, '.bin');
      await page.setInputFiles('[data-testid=file-input]', [gltfPath, binPath]);
      await page.waitForFunction(
        () =>
          (window.__studio.state().name === 'interpolation_test.gltf' && !window.__studio.state().busy) ||
          document.querySelector('[data-testid=error]')?.textContent,
      );
      expect(await page.textContent('[data-testid=error]')).toBe('');
      const read = await readGltf(new Uint8Array(readFileSync(gltfPath)), {
        resources: { 'interpolation_test.bin': new Uint8Array(readFileSync(binPath)) },
      });
      expect((await state()).animations).toEqual(read.clips.map((c) => c.name));
      // the image the file names but nobody gave is reported, not fetched
      await expect(page.textContent('[data-testid=warnings]')).resolves.toContain("'l.jpg') is missing");
      const index = read.clips.findIndex((c) => c.name === 'Step Rotation');
      await page.selectOption('[data-testid=animation-select]', String(index));
      await page.waitForFunction(
        (i) => window.__studio.state().animation === i && !window.__studio.state().busy,
        index,
      );
      const track = read.clips[index].tracks.find((t) => t.path === 'rotation')!;
      expect(track.interpolation).toBe('step');
      await page.click(`[data-testid=joint-tree] li[data-joint="${track.joint}"]`);
      await page.selectOption('[data-testid=curve-kind]', 'euler');
      await page.selectOption('[data-testid=curve-kind]', 'quat');
      await page.waitForFunction(() => window.__studio.dots().length === 4);
      const start = Math.min(...read.clips[index].tracks.map((t) => t.times[0]));
      const curves = await page.evaluate(() => window.__studio.curves());
      const x: number[] = curves.columns[0];
      const ref = evaluateTrack(
        track,
        x.map((t) => t + start),
      );
      for (let i = 0; i < x.length; i++)
        for (let c = 0; c < 4; c++) expect(curves.columns[1 + c][i]).toBeCloseTo(ref[i * 4 + c], 12);
      // just before every key after the first, the curve still holds the previous key's value
      for (let k = 1; k < track.times.length; k++) {
        const i = x.findIndex((t) => Math.abs(t - (track.times[k] - start - 1e-6)) < 1e-9);
        expect(i, `key ${k}`).toBeGreaterThan(0);
        for (let c = 0; c < 4; c++) {
          expect(curves.columns[1 + c][i]).toBeCloseTo(track.values[(k - 1) * 4 + c], 6);
          expect(curves.columns[1 + c][i + 1]).toBeCloseTo(track.values[k * 4 + c], 6);
        }
      }
      await shot('gltf-step');
    },
  );

  it.skipIf(!existsSync(MAGNUM_GLB))(
    'opens every shared GLB and self-contained .gltf, every animation, without an error',
    async () => {
      const dir = join(dirname(MAGNUM_GLB), '..');
      const files = [
        'khronos-samples/Fox.glb',
        'khronos-samples/rigged_figure.glb',
        'khronos-samples/AnimatedMorphCube.glb',
        'khronos-samples/cesium_man.gltf',
        'gltfpack/RobotExpressive.gltfpack.glb',
        'gltfpack/AnimatedMorphCube.gltfpack.glb',
        'robot-expressive/RobotExpressive.glb',
      ];
      for (const rel of files) {
        const path = join(dir, rel);
        await page.setInputFiles('[data-testid=file-input]', path);
        const name = rel.split('/').pop();
        await page.waitForFunction(
          (n) => {
            const s = window.__studio.state();
            return (s.name === n && !s.busy) || document.querySelector('[data-testid=error]')?.textContent;
          },
          name,
          { timeout: 30_000 },
        );
        expect(await page.textContent('[data-testid=error]'), rel).toBe('');
        const clips = await gltfClips(path);
        const s = await state();
        expect(s.animations, rel).toEqual(clips.map((c, i) => c.name || `animation ${i}`));
        const ch = await page.evaluate(() => window.__studio.character());
        expect(ch.bound, rel).toBe(s.joints);
        if (!rel.includes('MorphCube')) expect(ch.skinnedMeshes, rel).toBeGreaterThan(0);
        for (let a = 0; a < clips.length; a++) {
          if (a === s.animation) continue;
          await page.selectOption('[data-testid=animation-select]', String(a));
          await page.waitForFunction((i) => {
            const t = window.__studio.state();
            return (
              (t.animation === i && !t.busy) || document.querySelector('[data-testid=error]')?.textContent
            );
          }, a);
          expect(await page.textContent('[data-testid=error]'), `${rel} animation ${a}`).toBe('');
          const baked = bakeClip(clips[a], { rate: studioBakeRate(clips[a]) });
          expect((await state()).frames, `${rel} animation ${a}`).toBe(baked.frames);
        }
      }
    },
    120_000,
  );

  it('records playback frame time on large clips and the draw time of a 100,000-point curve', async () => {
    const record: Record<string, unknown> = {
      date: new Date().toISOString(),
      // the machine's 1, 5 and 15 minute load averages (2 cores) when the measurement started and ended
      loadAverageAtStart: loadavg().map((l) => Number(l.toFixed(2))),
      browser: `${browser.version()} headless, software WebGL (--disable-gpu)`,
      antialias: (await state()).antialias,
      note:
        '2-core machine (its load in loadAverageAtStart/End). meanFrameMs/p95FrameMs: interval between displayed frames in headless ' +
        'Chromium with software WebGL (SwiftShader), bound by rasterisation there; meanWorkMs/maxWorkMs: main-thread ' +
        'time per frame to evaluate the pose with the playback kernel, run FK, update buffers (and a glTF ' +
        "character's nodes) and submit the render; gltfCharacter: RobotExpressive.glb's first animation, skinned " +
        'mesh drawn, skeleton overlay off; gltfCharacterDisplayRate and gltfCharacterAt960x600: the same played ' +
        "again after measuring the browser's idle animation-frame interval (its display rate here) at the same " +
        'window size; displayRateRatio = idle interval / played interval (1 = every display frame shown)',
    };
    // the display rate of this headless browser: its animation-frame interval with nothing playing
    const idleFrame = () =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const t: number[] = [];
            let last = 0;
            const step = (now: number) => {
              if (last) t.push(now - last);
              last = now;
              if (t.length < 60) requestAnimationFrame(step);
              else resolve(t.reduce((a, b) => a + b, 0) / t.length);
            };
            requestAnimationFrame(step);
          }),
      );
    const playback = async (label: string) => {
      await page.click('[data-testid=tab-clip]');
      await page.evaluate(() => {
        window.__studio.seekFrame(0);
        window.__studio.resetPlaybackStats();
        window.__studio.play(true);
      });
      // at least 2 s and 30 displayed frames (a loaded machine can starve animation frames for a while)
      await page.waitForTimeout(2000);
      await page
        .waitForFunction(() => window.__studio.playbackStats().samples >= 30, undefined, { timeout: 60_000 })
        .catch(async (e: Error) => {
          const now = await page.evaluate(() => ({
            ...window.__studio.playbackStats(),
            ...window.__studio.state(),
          }));
          throw new Error(`${label}: playback stalled: ${JSON.stringify(now)} (${e.message})`);
        });
      const stats = await page.evaluate(() => {
        window.__studio.play(false);
        return window.__studio.playbackStats();
      });
      const s = await state();
      record[label] = { name: s.name, joints: s.joints, frames: s.frames, parseMs: s.parseMs, ...stats };
      expect(stats.samples).toBeGreaterThan(10);
      // the studio's own work per displayed frame (pose with the kernel, FK, render submission) fits 60 fps
      expect(stats.meanWorkMs).toBeLessThan(1000 / 60);
    };
    // playback alone: no processing running in the worker while measuring
    await page.click('[data-testid=tab-clip]');
    for (const box of ['unroll', 'smooth', 'resample', 'optimal', 'fk']) {
      if ((await page.locator(`[data-testid=${box}]`).count()) > 0)
        await page.uncheck(`[data-testid=${box}]`);
    }
    // the largest bundled sample
    await page.selectOption('[data-testid=sample-select]', '01_01.bvh');
    await page.waitForFunction(
      () => window.__studio.state().name === '01_01.bvh' && !window.__studio.state().busy,
    );
    await playback('largestSample');
    if (HAS_SHARED_BVH) {
      const files = ['cmu-iclone/005_11.bvh', 'axis-neuron/test.bvh'].map((f) => sharedBvhPath(f));
      const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
      await page.setInputFiles('[data-testid=file-input]', largest);
      // wait for this file by name (the previous clip also has more than 2000 frames)
      await page.waitForFunction(
        (n) => window.__studio.state().name === n && !window.__studio.state().busy,
        largest.split('/').pop(),
      );
      await playback('largestSharedFile');
    }
    // a skinned glTF character: pose, FK and the mesh's nodes per frame; skinning happens in the render
    await page.selectOption('[data-testid=sample-select]', 'RobotExpressive.glb');
    await page.waitForFunction(
      () => window.__studio.state().name === 'RobotExpressive.glb' && !window.__studio.state().busy,
    );
    await page.evaluate(() => window.__studio.setOverlay(false));
    await playback('gltfCharacter');
    // display rate: the character against this browser's idle frame interval, measured just before it at
    // the same window size, full size and 960 x 600 (software rasterisation of the larger window is the
    // browser's limit, not the studio's)
    const characterRate = async (label: string) => {
      const idle = await idleFrame();
      await playback(label);
      const played = record[label] as { meanFrameMs: number };
      record[label] = { ...played, idleFrameMs: idle, displayRateRatio: idle / played.meanFrameMs };
    };
    await characterRate('gltfCharacterDisplayRate');
    await page.setViewportSize({ width: 960, height: 600 });
    await characterRate('gltfCharacterAt960x600');
    await page.setViewportSize({ width: 1440, height: 900 });
    // the large case: 100 joints x 10,000 frames
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'synthetic-100x10000.bvh',
      mimeType: 'text/plain',
      buffer: Buffer.from(largeBvh(100, 10_000)),
    });
    await page.waitForFunction(() => window.__studio.state().frames === 10_000, undefined, {
      timeout: 60_000,
    });
    await page.waitForFunction(() => !window.__studio.state().busy, undefined, { timeout: 60_000 });
    await playback('synthetic100x10000');
    const kernels: string[] = (await state()).playKernels;
    if (kernels.includes('catmull-rom')) {
      // the same clip evaluated with Catmull-Rom by resampleRotations/resampleVectors at every displayed frame
      await page.selectOption('[data-testid=play-kernel]', 'catmull-rom');
      await playback('synthetic100x10000CatmullRom');
      await page.selectOption('[data-testid=play-kernel]', 'linear');
    }
    // the same clip in a smaller window: software rasterisation is the limit above, not the studio's work
    await page.setViewportSize({ width: 960, height: 600 });
    await playback('synthetic100x10000At960x600');
    await page.setViewportSize({ width: 1440, height: 900 });
    // baseline: the animation-frame interval of this headless browser with nothing to draw
    record.idleFrameMs = await idleFrame();
    const plot = await page.evaluate(() => window.__studio.benchPlot(100_000));
    record.plot100k = plot;
    expect(plot.drawMs).toBeLessThan(100);
    record.loadAverageAtEnd = loadavg().map((l) => Number(l.toFixed(2)));
    // every run keeps its record with the artifacts; `npm run bench:studio` also updates the committed one
    writeFileSync(join(SHOTS, 'performance.json'), `${JSON.stringify(record, null, 2)}\n`);
    if (process.env.STUDIO_BENCH) {
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      writeFileSync(join(ROOT, 'bench', 'results', 'studio.json'), `${JSON.stringify(record, null, 2)}\n`);
    }
    console.info(`studio performance: ${JSON.stringify(record)}`);
    await shot('clip-large');
  }, 180_000);

  it.runIf(process.env.STUDIO_SCREENSHOT)('saves the README screenshot (web/screenshot.png)', async () => {
    await page.setViewportSize({ width: 1440, height: 860 });
    await page.click('[data-testid=tab-clip]');
    for (const box of ['unroll', 'smooth', 'resample', 'optimal', 'reduce']) {
      if ((await page.locator(`[data-testid=${box}]`).count()) > 0)
        await page.uncheck(`[data-testid=${box}]`);
    }
    await page.selectOption('[data-testid=sample-select]', '');
    await page.selectOption('[data-testid=sample-select]', 'RobotExpressive.glb');
    await page.waitForFunction(
      () => window.__studio.state().name === 'RobotExpressive.glb' && !window.__studio.state().busy,
    );
    const walking = (await state()).animations.indexOf('Walking');
    await page.selectOption('[data-testid=animation-select]', String(walking));
    await page.waitForFunction(
      () => window.__studio.state().clipName === 'Walking' && !window.__studio.state().busy,
    );
    await page.evaluate(() => window.__studio.setOverlay(true));
    await page.check('[data-testid=reduce]');
    await page.waitForFunction(
      () => !window.__studio.state().busy && window.__studio.state().reduction !== null,
    );
    await page.click('[data-testid=joint-tree] li:text-is("UpperLeg.L")');
    await page.selectOption('[data-testid=curve-kind]', 'euler');
    await page.evaluate(() => window.__studio.seekFrame(6));
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(ROOT, 'web', 'screenshot.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('logs no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
