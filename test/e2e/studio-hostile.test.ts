// End-to-end tests of the studio (web/) with untrusted model files, in Debian's Chromium driven by
// playwright-core: a Content-Security-Policy that keeps the page and its worker on their own origin, URIs
// resolved only against the files opened with a model, a texture pixel budget and key budgets. The built
// app is served on 127.0.0.1 with the policy header the preview server sends; a second server on another
// port plays the other origin a model names, counting every request it gets. Skips without /usr/bin/chromium.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigPng, bigTextureGlb, externalUriGltf, manyKeysGlb } from './hostile-files.js';
import { serveStatic } from './serve.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Its own build folder, so this file and studio.test.ts can build at the same time. */
const DIST = join(ROOT, 'test-results', 'studio-hostile', 'dist');
const OUT = join(ROOT, 'test-results', 'studio-hostile');
if (!HAS_CHROMIUM) console.warn(`studio hostile-file tests skipped: ${CHROMIUM} not found`);

// Browser globals used inside page.evaluate callbacks (this file compiles without the DOM lib).
declare const window: {
  // biome-ignore lint/suspicious/noExplicitAny: the studio's test hooks
  __studio: any;
};
declare const document: {
  addEventListener(type: string, f: (e: { blockedURI: string; violatedDirective: string }) => void): void;
  querySelector(s: string): { textContent: string | null } | null;
  createElement(tag: string): { textContent: string };
  body: { appendChild(e: unknown): void };
};
declare function fetch(url: string): Promise<unknown>;
declare function setTimeout(f: () => void, ms: number): unknown;
declare const WebAssembly: { Module: new (bytes: Uint8Array) => unknown };

/** A server on another port of 127.0.0.1 (another origin) that answers anything, CORS-open, and counts requests. */
async function otherOrigin(files: Record<string, Uint8Array>): Promise<{
  url: string;
  server: Server;
  hits: string[];
}> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = files[(req.url ?? '/').slice(1)];
    res.writeHead(body ? 200 : 404, { 'access-control-allow-origin': '*' }).end(body ?? 'not found');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server, hits };
}

describe.skipIf(!HAS_CHROMIUM)('studio with untrusted files (Chromium, built app)', () => {
  let browser: Browser;
  let page: Page;
  let server: Server;
  let url: string;
  let policy: string;
  let other: Awaited<ReturnType<typeof otherOrigin>>;
  /** Every request the page and its worker made that is not to the studio's origin (data: and blob: aside). */
  const foreign: string[] = [];
  const record: Record<string, unknown> = {};
  const studioText = (id: string) => page.textContent(`[data-testid=${id}]`).then((t) => t ?? '');

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
        'build',
        '--config',
        'web/vite.config.ts',
        '--outDir',
        DIST,
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    // the policy the build put in the page, sent as a header too, as the preview server does
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(
      readFileSync(join(DIST, 'index.html'), 'utf8'),
    );
    policy = (meta?.[1] ?? '').replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    ({ url, server } = await serveStatic(DIST, policy ? { 'Content-Security-Policy': policy } : {}));
    const ext = await externalUriGltf('x', 'y');
    other = await otherOrigin({ 'model.bin': ext.bin, 'tex.png': bigPng(2, 2), probe: new Uint8Array(1) });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--enable-unsafe-swiftshader'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(30_000);
    page.on('request', (r) => {
      const u = r.url();
      if (!u.startsWith(url) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
    });
    await page.goto(url);
    await page.waitForSelector('#sample-select[data-ready="true"]');
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of [server, other?.server]) await new Promise((ok) => (s ? s.close(ok) : ok(undefined)));
    writeFileSync(join(OUT, 'performance.json'), `${JSON.stringify(record, null, 2)}\n`);
    if (process.env.STUDIO_BENCH) {
      mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
      writeFileSync(
        join(ROOT, 'bench', 'results', 'studio-hostile.json'),
        `${JSON.stringify(record, null, 2)}\n`,
      );
    }
  });

  it('the built page carries a Content-Security-Policy: WebAssembly compiles, an inline script does not run', async () => {
    expect(policy).toContain("connect-src 'self' blob: data:");
    expect(policy).toContain("'wasm-unsafe-eval'");
    const r = await page.evaluate(async () => {
      let wasm = 'compiled';
      try {
        // the smallest module: magic and version
        new WebAssembly.Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
      } catch (e) {
        wasm = String(e);
      }
      // an inline script, as a model's text injected into the page would be, is refused and reported
      const seen = new Promise<string>((ok) =>
        document.addEventListener('securitypolicyviolation', (e) => ok(e.violatedDirective)),
      );
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true;';
      document.body.appendChild(script);
      return { wasm, ran: (window as { __inlineRan?: boolean }).__inlineRan === true, directive: await seen };
    });
    expect(r).toEqual({ wasm: 'compiled', ran: false, directive: 'script-src-elem' });
  });

  it('a fetch to another origin is refused and reported as a violation, from the page and from its worker', async () => {
    // the worker starts with the first file opened
    await page.selectOption('[data-testid=sample-select]', 'AV_8Walk_Meredith_HVHA_Rep1.bvh');
    await page.waitForFunction(() => window.__studio.state().frames > 0 && !window.__studio.state().busy);
    const probe = `${other.url}probe`;
    const violation = await page.evaluate(async (target) => {
      const seen = new Promise<{ blockedURI: string; violatedDirective: string }>((ok) =>
        document.addEventListener('securitypolicyviolation', (e) =>
          ok({ blockedURI: e.blockedURI, violatedDirective: e.violatedDirective }),
        ),
      );
      const result = await fetch(target).then(
        () => 'fetched',
        () => 'refused',
      );
      // without a policy no violation ever comes: give up after 5 s with none
      const none = new Promise<null>((ok) => setTimeout(() => ok(null), 5000));
      return { result, violation: await Promise.race([seen, none]) };
    }, probe);
    expect(violation).toEqual({
      result: 'refused',
      violation: { blockedURI: probe, violatedDirective: 'connect-src' },
    });
    const workers = page.workers();
    expect(workers.length).toBeGreaterThan(0);
    const fromWorker = await workers[0].evaluate(
      (target) =>
        fetch(target).then(
          () => 'fetched',
          () => 'refused',
        ),
      probe,
    );
    expect(fromWorker).toBe('refused');
    expect(other.hits).toEqual([]);
  });

  it('a .gltf whose buffer and image are on another origin fetches neither, names them, and opens with its .bin', async () => {
    const bufferUri = `${other.url}model.bin`;
    const imageUri = `${other.url}tex.png`;
    const { gltf, bin } = await externalUriGltf(bufferUri, imageUri);
    foreign.length = 0;
    // alone: the buffer is not among the opened files, so the file cannot be read; nothing is fetched
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'remote.gltf',
      mimeType: 'model/gltf+json',
      buffer: Buffer.from(gltf),
    });
    await page.locator('[data-testid=error]').waitFor({ state: 'visible' });
    await page.waitForFunction(() => !window.__studio.state().busy);
    expect(foreign).toEqual([]);
    expect(other.hits).toEqual([]);
    const warnings = await studioText('warnings');
    expect(warnings).toContain(
      `buffer 0 ('${bufferUri}') is not among the files opened with it and is not fetched`,
    );
    expect(warnings).toContain(`('${imageUri}') is not among the files opened with it and is not fetched`);
    expect(await studioText('error')).toContain('remote.gltf');
    // with its .bin (matched by file name): it opens, the image is still not fetched and still named
    await page.setInputFiles('[data-testid=file-input]', [
      { name: 'remote.gltf', mimeType: 'model/gltf+json', buffer: Buffer.from(gltf) },
      { name: 'model.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(bin) },
    ]);
    await page.waitForFunction(
      () => window.__studio.state().name === 'remote.gltf' && window.__studio.state().frames > 0,
    );
    await page.waitForFunction(() => !window.__studio.state().busy);
    expect(await page.locator('[data-testid=error]').isHidden()).toBe(true);
    expect(await studioText('warnings')).toContain(`('${imageUri}') is not among the files opened with it`);
    expect((await page.evaluate(() => window.__studio.character())).colours.length).toBeGreaterThan(0);
    expect(foreign).toEqual([]);
    expect(other.hits).toEqual([]);
  });

  it('a texture above the pixel budget is never decoded: a placeholder is drawn, with a message', async () => {
    // 8192 x 8192 greyscale (256 MiB as RGBA), four times the budget of 4096 x 4096
    const glb = await bigTextureGlb(8192);
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'big-texture.glb',
      mimeType: 'model/gltf-binary',
      buffer: Buffer.from(glb),
    });
    await page.waitForFunction(
      () => window.__studio.state().name === 'big-texture.glb' && !window.__studio.state().busy,
    );
    const info = await page.evaluate(() => window.__studio.character());
    expect(info.textures.length).toBe(1);
    for (const t of info.textures) expect(t.width * t.height).toBeLessThanOrEqual(4096 * 4096);
    expect(await studioText('warnings')).toContain(
      "image 0 'big' is 8192 x 8192 (67.1 Mpx), above the studio's texture budget of 4096 x 4096",
    );
    expect(foreign).toEqual([]);
  });

  it('a file over the hard key budget is refused before anything reads it, with the reason', async () => {
    // over the hard budget: the JSON alone says 9,000,000 keys; refused before anything reads it
    const huge = {
      asset: { version: '2.0' },
      nodes: [{ name: 'J0' }],
      scenes: [{ nodes: [0] }],
      buffers: [{ byteLength: 4, uri: 'huge.bin' }],
      bufferViews: [{ buffer: 0, byteLength: 4 }],
      accessors: [
        { bufferView: 0, componentType: 5126, count: 9_000_000, type: 'SCALAR', min: [0], max: [1] },
        { bufferView: 0, componentType: 5126, count: 9_000_000, type: 'VEC4' },
      ],
      animations: [
        {
          samplers: [{ input: 0, output: 1 }],
          channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }],
        },
      ],
    };
    await page.setInputFiles('[data-testid=file-input]', {
      name: 'huge.gltf',
      mimeType: 'model/gltf+json',
      buffer: Buffer.from(JSON.stringify(huge)),
    });
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=error]')?.textContent?.includes('huge.gltf'),
    );
    expect(await studioText('error')).toBe(
      'Not opened: huge.gltf has 9,000,000 animation keys, more than the studio opens (8,000,000); ' +
        'reduce or convert it with the rotsig command line first',
    );
  });

  it('a file with a million keys asks first, opens with a message, and draws its million keys’ dots (thinned for the plot)', async () => {
    // a million keys in one track (LINEAR rotations at 30 Hz for 9.3 hours): asked, accepted, opened
    const million = join(OUT, 'million.glb');
    writeFileSync(million, await manyKeysGlb(1, 1_000_000));
    const t0 = performance.now();
    const dialog = page.waitForEvent('dialog', { timeout: 120_000 });
    await page.setInputFiles('[data-testid=file-input]', million, { timeout: 120_000 });
    const asked = await dialog;
    const question = asked.message();
    await asked.accept();
    await page.waitForFunction(
      () => window.__studio.state().name === 'million.glb' && window.__studio.state().frames > 0,
      undefined,
      { timeout: 600_000, polling: 250 },
    );
    const shownMs = performance.now() - t0;
    await page.waitForFunction(() => !window.__studio.state().busy, undefined, {
      timeout: 600_000,
      polling: 250,
    });
    const idleMs = performance.now() - t0;
    expect(question).toBe(
      'million.glb has 1,000,000 animation keys, more than the 500,000 the studio is sized for: ' +
        'opening it takes longer and more memory. Open it?',
    );
    const s = await page.evaluate(() => window.__studio.state());
    expect(s.frames).toBe(1_000_000);
    expect(await studioText('warnings')).toContain(
      'million.glb: 1,000,000 animation keys, over the 500,000 the studio is sized for: opened on request',
    );
    // the key dots stand for the track's own keys (a million), thinned for the plot's pixels
    const dots: { x: number; keys: number }[] = await page.evaluate(() =>
      window.__studio.dots().map((d: { x: number[]; keys: number }) => ({ x: d.x.length, keys: d.keys })),
    );
    expect(dots.map((d) => d.keys)).toEqual([1_000_000, 1_000_000, 1_000_000, 1_000_000]);
    // per pixel column of the plot at most one dot per value cell (the canvas keeps no more) and the
    // column's two extremes: not a million
    const grid: { width: number; height: number } = await page.evaluate(() => window.__studio.dotGrid());
    for (const d of dots) {
      expect(d.x).toBeLessThanOrEqual((Math.ceil(grid.width) + 1) * (Math.floor(grid.height) + 3));
      expect(d.x).toBeLessThan(500_000);
    }
    record.millionKeys = {
      file: '1 joint, 1,000,000 LINEAR rotation keys at 30 Hz (.glb, 16 MB)',
      shownMs: Math.round(shownMs),
      idleMs: Math.round(idleMs),
      parseMs: Math.round(s.parseMs),
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    };
    console.info(`studio hostile files: ${JSON.stringify(record)}`);
    expect(foreign).toEqual([]);
  }, 900_000);
});
