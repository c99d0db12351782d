// Assembles src/numeric/simd.wat (the live filters' WebAssembly SIMD kernels) with wabt and writes the bytes,
// base64, into src/numeric/simd-bytes.ts, so the library builds with tsc alone. test/ops/live/simd.test.ts
// checks that the committed module equals a fresh build. Run: node scripts/build_simd.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WAT_PATH = join(root, 'src/numeric/simd.wat');
export const MODULE_PATH = join(root, 'src/numeric/simd-bytes.ts');

/** The index of the parenthesis that closes the one at `i` in `text` (`;;` comments skipped). */
function closing(text, i) {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    if (text.startsWith(';;', j)) {
      j = text.indexOf('\n', j);
      if (j < 0) break;
    } else if (text[j] === '(') depth++;
    else if (text[j] === ')' && --depth === 0) return j;
  }
  throw new Error(`simd.wat: the parenthesis at ${i} is not closed`);
}

/** The top-level expressions of `text`, comments dropped. */
function expressions(text) {
  const out = [];
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith(';;', i)) {
      i = text.indexOf('\n', i);
      if (i < 0) break;
    } else if (text[i] === '(') {
      const j = closing(text, i);
      out.push(text.slice(i, j + 1).replace(/;;[^\n]*/g, ''));
      i = j;
    }
  }
  return out;
}

/** `expr` with every `(v128.bitselect a b (local.get $mask))` of a mask known to be zero replaced by `b`. */
function foldSelects(expr, masks) {
  for (let i = expr.indexOf('(v128.bitselect'); i >= 0; i = expr.indexOf('(v128.bitselect', i + 1)) {
    const end = closing(expr, i);
    const [, b, mask] = expressions(expr.slice(i + 1, end));
    if (masks.some((m) => mask === `(local.get $${m})`)) expr = expr.slice(0, i) + b + expr.slice(end + 1);
  }
  return expr;
}

/** `expr` without its `(if (local.get $name) ...)` blocks, for locals known to be zero. */
function dropIfs(expr, names) {
  for (const name of names) {
    const head = `(if (local.get $${name})`;
    for (let i = expr.indexOf(head); i >= 0; i = expr.indexOf(head)) {
      expr = expr.slice(0, i) + expr.slice(closing(expr, i) + 1);
    }
  }
  return expr;
}

const STEP = /^\(local\.set \$(\w+) \(i32\.add \(local\.get \$\1\) \(i32\.const (\d+)\)\)\)$/;

/**
 * The loop `(block $done (loop $pair ...))` at `block`, over `$p` from 0 to `$pairs`, rewritten to take two
 * pairs per iteration: its statements once for pair p and once for pair p + 1, interleaved statement by
 * statement, so the processor has two independent chains of operations in its window instead of one. The
 * second pair's own locals (those the loop sets before it reads them) get the suffix `_2`, its loads and
 * stores move by `deltas[pointer]` bytes (the pointer its address reads), `$p` becomes `$p + 1`; statements
 * that set a pointer run once, a pointer's step doubles. The copy runs while two pairs are left and every
 * local of `zero` is zero (it drops their `(if (local.get $x) ...)` blocks) and folds the bitselects of the
 * v128 masks `masks` (zero then too); the original loop finishes what is left. Returns the copy and the new
 * locals' names.
 */
function pairedLoop(block, { deltas, zero, masks }) {
  const at = block.indexOf('(loop $pair');
  const body = expressions(block.slice(at + '(loop $pair'.length, closing(block, at)));
  const exit = '(br_if $done (i32.ge_u (local.get $p) (local.get $pairs)))';
  if (body[0] !== exit || body.at(-1) !== '(br $pair)') {
    throw new Error(`simd.wat: a @paired loop must start with ${exit} and end with (br $pair)`);
  }
  const pointers = Object.keys(deltas);
  const head = [];
  const steps = [];
  const work = [];
  for (const statement of body.slice(1, -1)) {
    const step = STEP.exec(statement);
    const set = /^\(local\.set \$(\w+)\s/.exec(statement);
    if (step && (step[1] === 'p' || pointers.includes(step[1]))) {
      steps.push(
        `(local.set $${step[1]} (i32.add (local.get $${step[1]}) (i32.const ${2 * Number(step[2])})))`,
      );
    } else if (set && pointers.includes(set[1])) head.push(statement);
    else work.push(foldSelects(dropIfs(statement, zero), masks));
  }
  // the pair's own locals: those the loop sets before it reads them (in the order of the text, a set's
  // value read before it, at any depth); the others (constants, running totals) are shared by both pairs
  const own = new Set();
  const seen = new Set();
  for (const statement of work) {
    for (const use of statement.matchAll(/\(local\.(get|set|tee) \$(\w+)/g)) {
      const name = use[2];
      if (seen.has(name)) continue;
      seen.add(name);
      if (use[1] === 'get') continue;
      const value = statement.slice(use.index + use[0].length, closing(statement, use.index));
      if (!new RegExp(`\\$${name}\\b`).test(value)) own.add(name);
    }
  }
  const second = work.map((statement) => {
    let s = statement;
    for (const name of own) s = s.replace(new RegExp(`\\$${name}\\b`, 'g'), `$${name}_2`);
    // move each load and store by its pointer's delta
    s = s.replace(
      /\(((?:v128|[if](?:32|64))\.(?:load|store)\w*)(?: offset=(\d+))? (?=\()/g,
      (match, op, offset, index) => {
        const address = s.slice(index + match.length, closing(s, index + match.length) + 1);
        const used = pointers.filter((p) => new RegExp(`\\(local\\.get \\$${p}\\)`).test(address));
        if (used.length > 1) throw new Error(`simd.wat: an address reads two pointers: ${address}`);
        return used.length === 0 ? match : `(${op} offset=${Number(offset ?? 0) + deltas[used[0]]} `;
      },
    );
    return s.replaceAll('(local.get $p)', '(i32.add (local.get $p) (i32.const 1))');
  });
  const interleaved = work.flatMap((statement, i) => [statement, second[i]]);
  const stop = zero.reduce(
    (test, name) => `(i32.or ${test} (local.get $${name}))`,
    '(i32.gt_u (i32.add (local.get $p) (i32.const 2)) (local.get $pairs))',
  );
  const text = [
    '(block $done2',
    '(loop $pair2',
    `(br_if $done2 ${stop})`,
    ...head,
    ...interleaved,
    ...steps,
    '(br $pair2)))',
  ].join('\n');
  return { text, locals: [...own] };
}

/**
 * simd.wat with its `@paired` loops expanded: a comment line `;; @paired pointer=bytes ... [zero=$a,$b]
 * [masks=$m]` before `(block $done (loop $pair ...))` puts {@link pairedLoop}'s two-pair copy before the
 * loop, and declares the copy's locals in the enclosing function (once, for all its copies).
 */
export function expandPairs(text) {
  const directive = /^[ \t]*;; @paired ([^\n]*)\n/m;
  for (let m = directive.exec(text); m !== null; m = directive.exec(text)) {
    const spec = { deltas: {}, zero: [], masks: [] };
    for (const word of m[1].trim().split(/\s+/)) {
      const [key, value] = word.split('=');
      if (key === 'zero' || key === 'masks') spec[key] = value.split(',').map((v) => v.replace(/^\$/, ''));
      else spec.deltas[key.replace(/^\$/, '')] = Number(value);
    }
    const start = m.index + m[0].length;
    const block = text.indexOf('(block $done', start);
    if (text.slice(start, block).trim() !== '')
      throw new Error('simd.wat: @paired must stand just before a loop');
    const { text: loop, locals } = pairedLoop(text.slice(block, closing(text, block) + 1), spec);
    text = `${text.slice(0, m.index)}${loop}\n${text.slice(block)}`;
    // declare the copy's locals with their types, before the function's first local
    const func = text.lastIndexOf('(func', m.index);
    const declared = new Map(
      [...text.slice(func, m.index).matchAll(/\((?:local|param) \$(\w+) (\w+)\)/g)].map((d) => [d[1], d[2]]),
    );
    const first = text.indexOf('(local ', func);
    const declarations = locals
      .filter((name) => !declared.has(`${name}_2`))
      .map((name) => `(local $${name}_2 ${declared.get(name)}) `)
      .join('');
    text = text.slice(0, first) + declarations + text.slice(first);
  }
  return text;
}

/** The WebAssembly bytes of simd.wat (no names section, so the bytes depend on the code alone). */
export async function assemble() {
  const wabt = await wabtInit();
  let parsed;
  try {
    parsed = wabt.parseWat('simd.wat', expandPairs(readFileSync(WAT_PATH, 'utf8')), { simd: true });
  } catch (error) {
    throw new Error(String(error.message).slice(-2000));
  }
  try {
    parsed.resolveNames();
    parsed.validate();
    return Uint8Array.from(parsed.toBinary({ log: false, write_debug_names: false }).buffer);
  } finally {
    parsed.destroy();
  }
}

/** The text of simd-bytes.ts for `bytes`. */
export function moduleText(bytes) {
  const base64 = Buffer.from(bytes).toString('base64');
  return `// Generated by scripts/build_simd.mjs from simd.wat; do not edit.
/** The live filters' WebAssembly SIMD kernels (${bytes.length} bytes), base64. @internal */
export const SIMD_WASM_BASE64 =
  '${base64}';
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = await assemble();
  writeFileSync(MODULE_PATH, moduleText(bytes));
  console.log(`${MODULE_PATH}: ${bytes.length} bytes`);
}
