#!/usr/bin/env node
// Type-checks every `@example` of the TSDoc in src/**/*.ts against the package's sources, so the examples
// in the API documentation cannot drift from the signatures they show.
//
//   node scripts/check_examples.mjs [--keep] [--list] [--strict]
//
// Each example (a ```ts block inside an @example, or the whole @example text when it has no fence) becomes a
// module of its own in node_modules/.cache/rotsig-examples/. The names it uses are imported for it: first
// from the module whose documentation holds it (internal helpers included), then from the public entry
// points (rotsig, rotsig/io, rotsig/pipeline, rotsig/node, rotsig/three), and for examples in src/node and
// src/cli last from the command line's task modules (MACHINERY below); `import` lines the example writes
// itself are kept, with `rotsig/*` mapped to src/. The inputs an example only names (the text of a BVH file,
// a clip) are declared once, with their types, in EXAMPLE_INPUTS below: an example that calls a function
// with the wrong type, reads a property that does not exist or names anything else unknown fails.
// `fs` and `THREE` are imported as node:fs and three when an example uses them without importing them.
//
// Exit code 0 when every example compiles, 1 otherwise (each failure printed as src/file.ts:line: message).
// An example that uses a name it neither defines nor finds (`win`, `tasks`: inputs not yet declared) is
// listed and counted but fails the run only with --strict (what `npm run check` runs); every other error
// fails it.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const out = join(root, 'node_modules', '.cache', 'rotsig-examples');
const keep = process.argv.includes('--keep');
const strict = process.argv.includes('--strict');

/** Namespaces an example may use without importing them. */
const IMPLICIT_NAMESPACES = { fs: 'node:fs', THREE: 'three' };
/** Diagnostics of a name not found: `Cannot find name`, its `Did you mean`, a shorthand property of none. */
const UNDEFINED_NAME_CODES = new Set([2304, 2552, 18004]);

/** Public entry points, in the order a name is looked up in them. */
const ENTRY_POINTS = {
  rotsig: 'index.ts',
  'rotsig/io': 'io/index.ts',
  'rotsig/pipeline': 'pipeline/index.ts',
  'rotsig/node': 'node/index.ts',
  'rotsig/three': 'three/index.ts',
};

/**
 * The command line's machinery that rotsig/node does not export (file tasks, their results and messages):
 * examples in src/node and src/cli may use its names, after their own module's and the entry points'.
 */
const MACHINERY = ['node/task.ts', 'node/tasks.ts'];
const MACHINERY_USERS = [join(src, 'node'), join(src, 'cli')];

/**
 * What examples may name without defining: the usual inputs of a call, with their types. Anything else an
 * example uses must be defined in it or exported by rotsig.
 */
const EXAMPLE_INPUTS = `
import type { Clip, KeyedClip, QuatSeries, Vec3Series } from 'rotsig';
import type { FrameTable } from 'rotsig/pipeline';
import type { NpzArrays } from '${relative(out, join(src, 'io/npz.js'))}';
import type { FileTask } from '${relative(out, join(src, 'node/task.js'))}';
declare global {
  /** The text of a BVH file. */
  const text: string;
  /** The text of CMU subject 01, take 01 (a BVH file). */
  const cmu0101Text: string;
  /** The bytes of a file (BVH, glTF/GLB, .npz, .npy). */
  const bytes: Uint8Array;
  /** A clip (e.g. from parseBvh); the others are clips of one skeleton (a walk, a wave, ...). */
  const clip: Clip;
  const walk: Clip;
  const wave: Clip;
  const breathing: Clip;
  /** A keyed clip (e.g. from a glTF animation). */
  const keyed: KeyedClip;
  /** A series of quaternions. */
  const series: QuatSeries;
  /** A series of 3-vectors. */
  const positions: Vec3Series;
  /** Quaternions: one (a, b, q), or many packed x, y, z, w (quats). */
  const a: ArrayLike<number>;
  const b: ArrayLike<number>;
  const q: ArrayLike<number>;
  const quats: Float64Array;
  /** The members of a .npz file (from parseNpz). */
  const npz: NpzArrays;
  /** A table of per-frame values (what export and velocity write). */
  const table: FrameTable;
  /** File tasks of a batch. */
  const tasks: FileTask[];
}
export {};
`;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The examples of one file's documentation comments: `{ line, code }`, `line` 1-based in the file. */
function examplesOf(text) {
  const found = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const start = text.slice(0, comment.index).split('\n').length;
    const lines = comment[0]
      .split('\n')
      .map((l) => l.replace(/^\s*\/?\*\*?\/?\s?/, '').replace(/\s*\*\/$/, ''));
    for (let i = 0; i < lines.length; i++) {
      const tag = lines[i].match(/^@example\b\s*(.*)$/);
      if (!tag) continue;
      const body = tag[1] ? [tag[1]] : [];
      let j = i + 1;
      for (; j < lines.length && !/^@\w/.test(lines[j]); j++) body.push(lines[j]);
      const whole = body.join('\n');
      const fenced = [...whole.matchAll(/```(?:ts|typescript)\n([\s\S]*?)```/g)];
      const line = start + i + (tag[1] ? 0 : 1);
      if (fenced.length > 0) for (const f of fenced) found.push({ line, code: f[1] });
      else if (!whole.includes('```') && whole.trim() !== '') found.push({ line, code: whole });
      i = j - 1;
    }
  }
  return found;
}

const config = ts.getParsedCommandLineOfConfigFile(
  join(root, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
const files = sourceFiles(src);
const options = {
  ...config.options,
  noEmit: true,
  declaration: false,
  declarationMap: false,
  sourceMap: false,
  paths: Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, file]) => [name, [join(src, file)]])),
};
const sourceProgram = ts.createProgram(files, options);
const checker = sourceProgram.getTypeChecker();

/** Name -> 'value' | 'type' of everything a module exports. */
function exportsOf(file) {
  const sf = sourceProgram.getSourceFile(file);
  const symbol = sf && checker.getSymbolAtLocation(sf);
  const names = new Map();
  if (!symbol) return names;
  for (const s of checker.getExportsOfModule(symbol)) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    names.set(s.name, target.flags & ts.SymbolFlags.Value ? 'value' : 'type');
  }
  return names;
}

const entryExports = Object.entries(ENTRY_POINTS).map(([name, file]) => [name, exportsOf(join(src, file))]);
const machineryExports = MACHINERY.map((file) => [join(src, file), exportsOf(join(src, file))]);

/** Names an example defines itself (so they are not imported for it). */
function declaredIn(code) {
  const names = new Set();
  for (const m of code.matchAll(/\b(?:const|let|var|function|class|interface|type)\s+([A-Za-z_$][\w$]*)/g))
    names.add(m[1]);
  for (const m of code.matchAll(/\b(?:const|let|var)\s*[{[]([^=]*)[}\]]\s*=/g))
    for (const n of m[1].split(',')) {
      const local = n
        .split(':')
        .pop()
        .trim()
        .replace(/^\.\.\./, '');
      if (/^[A-Za-z_$][\w$]*$/.test(local)) names.add(local);
    }
  for (const m of code.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const n of m[1].split(','))
      names.add(
        n
          .replace(/\btype\b/, '')
          .split(' as ')
          .pop()
          .trim(),
      );
  for (const m of code.matchAll(/^import\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s+from/gm)) names.add(m[1]);
  return names;
}

if (existsSync(out)) rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'example-inputs.d.mts'), EXAMPLE_INPUTS);
const origin = new Map();
let count = 0;
for (const file of files) {
  const examples = examplesOf(ts.sys.readFile(file));
  if (examples.length === 0) continue;
  const own = exportsOf(file);
  const ownSpec = relative(out, file).replace(/\.ts$/, '.js');
  for (const { line, code } of examples) {
    const used = new Set(code.match(/(?<![\w$.'"`])[A-Za-z_$][\w$]*/g) ?? []);
    const defined = declaredIn(code);
    const imports = new Map();
    const add = (spec, name, kind) => {
      if (!imports.has(spec)) imports.set(spec, []);
      imports.get(spec).push(kind === 'type' ? `type ${name}` : name);
    };
    for (const name of used) {
      if (defined.has(name)) continue;
      if (own.has(name)) add(ownSpec, name, own.get(name));
      else {
        const entry = entryExports.find(([, names]) => names.has(name));
        const machinery =
          !entry && MACHINERY_USERS.some((dir) => file.startsWith(`${dir}/`))
            ? machineryExports.find(([, names]) => names.has(name))
            : undefined;
        if (entry) add(entry[0], name, entry[1].get(name));
        else if (machinery)
          add(relative(out, machinery[0]).replace(/\.ts$/, '.js'), name, machinery[1].get(name));
      }
    }
    const own_imports = code.match(/^import[\s\S]*?from\s+'[^']+';?$/gm) ?? [];
    const rest = code.replace(/^import[\s\S]*?from\s+'[^']+';?$/gm, '');
    const header = [...imports].map(([spec, names]) => `import { ${names.join(', ')} } from '${spec}';`);
    for (const [ns, spec] of Object.entries(IMPLICIT_NAMESPACES))
      if (used.has(ns) && !defined.has(ns) && !own.has(ns)) header.push(`import * as ${ns} from '${spec}';`);
    const name = `example-${++count}.mts`;
    origin.set(join(out, name), `${relative(root, file)}:${line}`);
    writeFileSync(join(out, name), `${[...header, ...own_imports].join('\n')}\n${rest}\nexport {};\n`);
  }
}

const exampleFiles = [...origin.keys()];
const program = ts.createProgram(
  [join(out, 'example-inputs.d.mts'), ...exampleFiles],
  options,
  undefined,
  sourceProgram,
);
let failed = 0;
let undefinedNames = 0;
for (const file of exampleFiles) {
  const sf = program.getSourceFile(file);
  const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
  if (diagnostics.length === 0) continue;
  const onlyNames = diagnostics.every((d) => UNDEFINED_NAME_CODES.has(d.code));
  if (onlyNames && !strict) undefinedNames++;
  else failed++;
  for (const d of diagnostics) {
    const where = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const message = `${origin.get(file)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    if (onlyNames && !strict) {
      if (process.argv.includes('--list')) console.log(`${message} (not failing without --strict)`);
    } else console.error(`${message} (${relative(root, file)}:${where})`);
  }
}
if (!keep && failed === 0) rmSync(out, { recursive: true, force: true });
console.log(
  `${count} @examples type-checked: ${count - failed - undefinedNames} compile, ${failed} failed` +
    (strict
      ? ''
      : `, ${undefinedNames} use names they do not define (--list names them, --strict fails them)`),
);
process.exit(failed === 0 && count > 0 ? 0 : 1);
