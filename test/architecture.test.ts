import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"`;]*?from\s*['"]([^'"]+)['"]/g))
    specs.push(m[1]);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
  return specs;
}

const CORE = ['quat', 'series', 'numeric', 'ops', 'io', 'pipeline'];
/** What each layer may import, following quat, numeric -> series -> ops -> io -> pipeline -> node -> cli. */
const LAYER_ORDER = ['quat', 'numeric', 'series', 'ops', 'io', 'pipeline', 'node', 'cli'];

describe('the dependency direction of src/', () => {
  const files = sourceFiles(src);

  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it('core modules (quat, series, numeric, ops, io, pipeline) import no node:*, DOM libraries or three.js', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const layer = relative(src, file).split('/')[0];
      // files directly under src/ (index, errors, version) are part of the core entry point too
      if (!CORE.includes(layer) && !layer.endsWith('.ts')) continue;
      for (const spec of importsOf(file)) {
        if (
          spec.startsWith('node:') ||
          /^(fs|path|os|url|worker_threads|child_process)$/.test(spec) ||
          spec === 'three' ||
          spec.startsWith('three/')
        ) {
          offenders.push(`${relative(root, file)} imports ${spec}`);
        }
      }
      const text = readFileSync(file, 'utf8');
      if (
        /(?<![\w$./-])(document|window)\.(?!ts\b|js\b)[a-zA-Z]/.test(
          text.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ''),
        )
      ) {
        offenders.push(`${relative(root, file)} touches the DOM`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('no module imports a layer that comes after it', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const layer = relative(src, file).split('/')[0];
      const rank = LAYER_ORDER.indexOf(layer);
      if (rank < 0) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(src, resolve(dirname(file), spec)).split('/')[0];
        const targetRank = LAYER_ORDER.indexOf(target);
        // quat and numeric are peers at the bottom
        const peers =
          (layer === 'quat' || layer === 'numeric') && (target === 'quat' || target === 'numeric');
        if (targetRank > rank && !peers)
          offenders.push(`${relative(root, file)} (${layer}) imports ${spec} (${target})`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('only src/three imports three.js, and nothing imports src/three', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const layer = relative(src, file).split('/')[0];
      for (const spec of importsOf(file)) {
        if ((spec === 'three' || spec.startsWith('three/')) && layer !== 'three')
          offenders.push(`${relative(root, file)} imports ${spec}`);
        if (spec.startsWith('.') && layer !== 'three') {
          const target = relative(src, resolve(dirname(file), spec)).split('/')[0];
          if (target === 'three') offenders.push(`${relative(root, file)} imports ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('three is an optional peer dependency, never a runtime dependency', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies?.three).toBeUndefined();
    expect(pkg.peerDependencies?.three).toBeDefined();
    expect(pkg.peerDependenciesMeta?.three?.optional).toBe(true);
  });
});

/** Relative modules `file` imports, type-only imports included (a cycle of types is a cycle of modules too). */
function relativeImportsOf(file: string): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

describe('src/node', () => {
  it('has no import cycle (type-only imports included)', () => {
    const dir = join(src, 'node');
    expect(importCycles(sourceFiles(dir), dir)).toEqual([]);
  });
});

/**
 * Every import cycle among `files` along `edges` (default: every import, type-only ones included), each as
 * `a -> b -> a` relative to src/.
 */
function importCycles(files: string[], within: string, edges = relativeImportsOf): string[] {
  const graph = new Map(files.map((f) => [f, edges(f).filter((t) => t.startsWith(within))]));
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): void => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(src, p)).join(' -> '));
      return;
    }
    state.set(f, 'open');
    path.push(f);
    for (const t of graph.get(f) ?? []) visit(t);
    path.pop();
    state.set(f, 'done');
  };
  for (const f of files) visit(f);
  return cycles;
}

/** Longest unit of src/ in lines: a file past it holds more than one thing and is split along its seams. */
const UNIT_LINES = 700;
/** Units allowed past {@link UNIT_LINES}, each for a stated reason, and never past {@link MAX_EXCEPTION_LINES}. */
const UNIT_SIZE_EXCEPTIONS: Record<string, string> = {
  'io/bvh/scan.ts': 'one hand-written number scanner whose state machine is one class',
  'io/gltf/read.ts': 'the glTF reader: accessors, samplers and channels to clips, not yet split',
  'ops/resample/downsample-optimal.ts': 'least squares and Gauss-Newton of one fit, not yet split',
  'pipeline/steps.ts': 'the step parser and runner, being changed for loops and time defaults',
};
const MAX_EXCEPTION_LINES = 1000;

describe('the size of units', () => {
  const files = sourceFiles(src);
  const lines = (file: string): number => readFileSync(file, 'utf8').split('\n').length - 1;

  it(`no file in src/ is over ${UNIT_LINES} lines, but the listed exceptions (each under ${MAX_EXCEPTION_LINES})`, () => {
    const offenders: string[] = [];
    for (const file of files) {
      const name = relative(src, file);
      const n = lines(file);
      const excepted = Object.hasOwn(UNIT_SIZE_EXCEPTIONS, name);
      const cap = excepted ? MAX_EXCEPTION_LINES : UNIT_LINES;
      if (n > cap) offenders.push(`${name}: ${n} lines (at most ${cap})`);
    }
    expect(offenders).toEqual([]);
  });

  it('every exception names a file that exists', () => {
    const missing = Object.keys(UNIT_SIZE_EXCEPTIONS).filter((name) => !existsSync(join(src, name)));
    expect(missing).toEqual([]);
  });
});

/** Lines of code that a repetition is made of: no blank, comment, import or lone-punctuation line. */
const RUN_LINES = 10;

/**
 * The code lines of a file, whitespace-normalised, with their line numbers: blank lines, comment lines,
 * import statements (over several lines too) and lines of only brackets and separators left out.
 */
function codeLines(text: string): { line: string; at: number }[] {
  const lines: { line: string; at: number }[] = [];
  let inImport = false;
  const lastImportLine = /from\s+'[^']*';?$|^import\s+'[^']*';?$/;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim().replace(/\s+/g, ' ');
    if (inImport) {
      inImport = !lastImportLine.test(line);
      return;
    }
    if (/^import\b/.test(line)) {
      inImport = !lastImportLine.test(line);
      return;
    }
    if (line === '' || /^(\/\/|\/\*|\*)/.test(line) || /^[\s{}()[\];,]*$/.test(line)) return;
    lines.push({ line, at: i + 1 });
  });
  return lines;
}

/**
 * Every run of `RUN_LINES` code lines that stands twice in `sources` (in two files, or twice in one file
 * without overlapping), as `a.ts:10-24 ~ b.ts:40-54`: windows of `RUN_LINES` lines, keyed by their text.
 */
function repeatedRuns(sources: { file: string; text: string }[]): string[] {
  const first = new Map<string, { file: string; from: number; to: number }>();
  const repeats: string[] = [];
  for (const { file, text } of sources) {
    const lines = codeLines(text);
    for (let i = 0; i + RUN_LINES <= lines.length; i++) {
      const key = lines
        .slice(i, i + RUN_LINES)
        .map((l) => l.line)
        .join('\n');
      const here = { file, from: lines[i].at, to: lines[i + RUN_LINES - 1].at };
      const seen = first.get(key);
      if (seen === undefined) first.set(key, here);
      else if (seen.file !== here.file || here.from > seen.to)
        repeats.push(`${seen.file}:${seen.from}-${seen.to} ~ ${here.file}:${here.from}-${here.to}`);
    }
  }
  return repeats;
}

/**
 * Hot kernels that keep their own copy of shared code in locals, because sharing it measured slower: the
 * repetition check reads them as blank lines.
 */
const HOT_KERNELS = [
  {
    file: 'src/numeric/eigen4-average.ts',
    name: 'fastAverage',
    // its repeated squaring in locals: calling squareToRankOne() on the packed copy instead, paired against
    // it, measured 19-27% slower on sets of 8 rotations (its one accumulation loop is shared by both
    // addressing modes: sets given by offsets are gathered first)
  },
];

/** `text` with the body of each hot kernel of `file` blanked (its lines kept, empty). */
function withoutHotKernels(file: string, text: string): string {
  let out = text;
  for (const k of HOT_KERNELS) {
    if (k.file !== file) continue;
    const start = out.indexOf(`\nfunction ${k.name}(`);
    const end = out.indexOf('\n}\n', start);
    if (start < 0 || end < 0) continue;
    out = out.slice(0, start) + out.slice(start, end).replace(/[^\n]/g, '') + out.slice(end);
  }
  return out;
}

describe('repetition in src/', () => {
  it('finds a repeated run of code and passes over comments, imports and punctuation', () => {
    const run = Array.from({ length: RUN_LINES }, (_, i) => `const v${i} = a[${i}] * b;`);
    expect(
      codeLines(['import {', '  x,', "} from './x.js';", '// note', '', '  }', ...run].join('\n')),
    ).toEqual(run.map((line, i) => ({ line, at: i + 7 })));
    const twice = ['function f() {', ...run, '}', 'function g() {', ...run.map((l) => `  ${l}`), '}'].join(
      '\n',
    );
    expect(repeatedRuns([{ file: 'a.ts', text: twice }])).toEqual(['a.ts:2-11 ~ a.ts:14-23']);
    const once = ['function f() {', ...run, '}'].join('\n');
    expect(repeatedRuns([{ file: 'a.ts', text: once }])).toEqual([]);
    expect(
      repeatedRuns([
        { file: 'a.ts', text: once },
        { file: 'b.ts', text: once.replace('a[5]', 'c[5]') },
      ]),
    ).toEqual([]);
  });

  it(`no run of ${RUN_LINES} identical code lines stands twice in src/ (shared code lives in one place)`, () => {
    const sources = sourceFiles(src).map((f) => {
      const file = relative(root, f);
      return { file, text: withoutHotKernels(file, readFileSync(f, 'utf8')) };
    });
    expect(repeatedRuns(sources)).toEqual([]);
  });

  it('every hot kernel exempted from it exists', () => {
    for (const { file, name } of HOT_KERNELS)
      expect(readFileSync(join(root, file), 'utf8'), `${file} ${name}`).toContain(`\nfunction ${name}(`);
  });
});

describe('the units split from one file', () => {
  it('import each other in one direction: no runtime import cycle anywhere in src/', () => {
    expect(importCycles(sourceFiles(src), src, loadedModulesOf)).toEqual([]);
  });

  it('BVH: parse.ts builds on header.ts and motion.ts, write.ts on number-text.ts and motion-rows.ts', () => {
    const uses = (from: string, to: string): boolean =>
      relativeImportsOf(join(src, from)).includes(join(src, to));
    expect(uses('io/bvh/parse.ts', 'io/bvh/header.ts')).toBe(true);
    expect(uses('io/bvh/parse.ts', 'io/bvh/motion.ts')).toBe(true);
    expect(uses('io/bvh/write.ts', 'io/bvh/motion-rows.ts')).toBe(true);
    expect(uses('io/bvh/motion-rows.ts', 'io/bvh/number-text.ts')).toBe(true);
    expect(uses('numeric/eigen4-average.ts', 'numeric/eigen4.ts')).toBe(true);
    expect(uses('ops/live/damper.ts', 'ops/live/damper-kernels.ts')).toBe(true);
  });

  it('kernels and the tap-window engine live in ops/kernel/: velocity, resample and live take nothing from ops/filter/', () => {
    expect(existsSync(join(src, 'ops', 'filter', 'kernels.ts'))).toBe(false);
    for (const unit of ['kernels.ts', 'tap-window.ts', 'rotation-blend.ts', 'tap-reach.ts'])
      expect(existsSync(join(src, 'ops', 'kernel', unit)), unit).toBe(true);
    const offenders: string[] = [];
    const users = new Set<string>();
    for (const folder of ['velocity', 'resample', 'live'])
      for (const file of sourceFiles(join(src, 'ops', folder)))
        for (const spec of importsOf(file)) {
          const target = relative(src, resolve(dirname(file), spec));
          if (target.startsWith('ops/kernel/')) users.add(folder);
          if (target.startsWith('ops/filter/')) offenders.push(`${relative(src, file)} imports ${target}`);
        }
    expect(offenders).toEqual([]);
    expect([...users].sort()).toEqual(['live', 'resample', 'velocity']);
  });
});

describe('the studio (web/src) and the pipeline', () => {
  const web = join(root, 'web', 'src');
  const files = sourceFiles(web);
  const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*/g, '');

  it('defines no bake-rate or optimal-key rule of its own: inferKeyRate and downsampleOptimal are not called there', () => {
    const offenders = files.filter((f) => /\b(inferKeyRate|downsampleOptimal)\b/.test(code(f)));
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });

  it('bakes and runs steps with rotsig/pipeline (bakeKeyed, runSteps, runKeyedSteps), as the CLI does', () => {
    const used = new Set<string>();
    for (const f of files)
      for (const m of readFileSync(f, 'utf8').matchAll(
        /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'rotsig\/pipeline'/g,
      ))
        for (const name of m[1].split(',')) used.add(name.replace(/\btype\b/, '').trim());
    expect([...used]).toEqual(expect.arrayContaining(['bakeKeyed', 'runSteps', 'runKeyedSteps']));
    const node = sourceFiles(join(src, 'node')).concat(sourceFiles(join(src, 'cli')));
    const cliUses = node.some((f) => /from '\.\.\/pipeline\/keyed\.js'/.test(readFileSync(f, 'utf8')));
    expect(cliUses).toBe(true);
  });
});

describe('capability folders', () => {
  it('files in src/ and the studio are named for what they hold: no support, common, utils, helpers or misc', () => {
    const vague = /(^|[-_.])(support|common|utils?|helpers?|misc)([-_.]|$)/;
    const named = [...sourceFiles(src), ...sourceFiles(join(root, 'web', 'src'))]
      .map((f) => relative(root, f))
      .filter((f) => vague.test(f.split('/').pop()?.replace(/\.ts$/, '') ?? ''));
    expect(named).toEqual([]);
    expect(vague.test('resample-support')).toBe(true);
    expect(vague.test('track-checks')).toBe(false);
  });

  it('the index.ts of every folder under src/ops that has one (ml/ and src/io/amass must) only re-exports', () => {
    const folders = [
      ...readdirSync(join(src, 'ops'))
        .map((n) => join(src, 'ops', n))
        .filter((p) => statSync(p).isDirectory() && existsSync(join(p, 'index.ts'))),
      join(src, 'io', 'amass'),
    ];
    expect(folders.map((f) => relative(src, f))).toEqual(expect.arrayContaining(['ops/ml', 'io/amass']));
    for (const folder of folders) {
      const index = join(folder, 'index.ts');
      const statements = readFileSync(index, 'utf8')
        .replace(/\/\*[\s\S]*?\*\/|\/\/.*/g, '')
        .split(';')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      const reexport = /^export (type )?(\*|\{[^}]*\}) from '\.\/[\w-]+\.js'$/;
      expect(
        statements.filter((t) => !reexport.test(t)),
        relative(src, index),
      ).toEqual([]);
    }
  });
});

/** Relative modules `file` loads when it is evaluated: static imports and re-exports, not `import type`. */
function loadedModulesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)(\s+type\b)?[^'"`;]*?from\s*['"](\.[^'"]+)['"]/g))
    if (!m[2]) out.push(resolve(dirname(file), m[3].replace(/\.js$/, '.ts')));
  return out;
}

describe('capability folders under src/ops', () => {
  it('src/ops holds only capability folders, each named in the README layout', () => {
    const entries = readdirSync(join(src, 'ops'));
    const files = entries.filter((n) => !statSync(join(src, 'ops', n)).isDirectory());
    expect(files).toEqual([]);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const folder of entries) expect(readme).toMatch(new RegExp(`^\\s+${folder}/\\s`, 'm'));
  });

  it('src/ops/live imports only quat, numeric, series, errors, options and ops, and its other files are exported from the root', () => {
    const dir = join(src, 'ops', 'live');
    const files = sourceFiles(dir);
    expect(files.length).toBeGreaterThan(5);
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of importsOf(file)) {
        const target = relative(src, resolve(dirname(file), spec));
        if (!spec.startsWith('.') || !/^(quat|numeric|series|ops)\/|^(errors|options)\.js$/.test(target))
          offenders.push(`${relative(root, file)} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
    const index = readFileSync(join(src, 'index.ts'), 'utf8');
    // tangent.ts holds the internal kernels the filters share, stream-clock.ts the stream position they share,
    // *-kernels.ts one filter's per-sample loops (their WebAssembly kernels are in numeric/simd.ts)
    for (const file of files.filter((f) => !/(tangent|stream-clock|-kernels)\.ts$/.test(f))) {
      const name = relative(src, file).replace(/\.ts$/, '.js');
      expect(index, name).toContain(`./${name}`);
    }
  });
});

describe('the CLI main thread', () => {
  it('src/cli/main.ts loads no BVH reader, writer or pipeline code before a command runs', () => {
    // The workers load those; the main thread only plans and hands out files, and starts sooner without them.
    const seen = new Set<string>();
    const stack = [join(src, 'cli', 'main.ts')];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      stack.push(...loadedModulesOf(file));
    }
    const loaded = [...seen].map((f) => relative(src, f));
    expect(loaded).toContain('node/batch.ts');
    // a module of options and defaults only (`*-options.ts`), which the help names, may be loaded if it
    // loads nothing itself but the option resolver
    const optionsOnly = (f: string) =>
      /-options\.ts$/.test(f) &&
      loadedModulesOf(join(src, f)).every((m) => relative(src, m) === 'options.ts');
    expect(
      loaded.filter(
        (f) =>
          (f.startsWith('io/') || f.startsWith('pipeline/') || /^node\/tasks\.ts$/.test(f)) &&
          !optionsOnly(f),
      ),
    ).toEqual([]);
  });
});

describe('package metadata', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('VERSION equals package.json version', () => {
    expect(VERSION).toBe(pkg.version);
  });
  it('is ESM-only with the documented entry points and Node >= 20.19', () => {
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.exports)).toEqual([
      '.',
      './io',
      './pipeline',
      './node',
      './three',
      './package.json',
    ]);
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.engines.node).toBe('>=20.19');
    expect(pkg.bin.rotsig).toBe('./bin/rotsig.js');
  });
});

describe('the keyed-track capability (src/ops/keys)', () => {
  it('is exported from the browser-safe root under the names the glTF reader and writer use', async () => {
    const root = await import('../src/index.js');
    for (const name of [
      'evaluateTrack',
      'TrackSampler',
      'bakeClip',
      'inferKeyRate',
      'keysFromClip',
      'subclip',
      'makeClipAdditive',
      'applyAdditive',
      'assertTrack',
      'assertKeyedClip',
    ]) {
      expect(typeof (root as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});

describe('the public entry points', () => {
  it('export nothing whose documentation says @internal', async () => {
    const entries: Record<string, Record<string, unknown>> = {
      'src/index.ts': await import('../src/index.js'),
      'src/io/index.ts': await import('../src/io/index.js'),
    };
    const internal = new Set<string>();
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*export (?:function|const|class) (\w+)/g,
      ))
        if (m[1].includes('@internal')) internal.add(m[2]);
    }
    expect(internal.size).toBeGreaterThan(0);
    const leaked = Object.entries(entries).flatMap(([entry, mod]) =>
      Object.keys(mod)
        .filter((name) => internal.has(name))
        .map((name) => `${entry}: ${name}`),
    );
    expect(leaked).toEqual([]);
  });
});
