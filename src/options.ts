/**
 * Checking of option objects, shared by every option-taking function: the options must be an object (or
 * absent), and every key must be one the function knows, so a typo such as `{ sigme: 2 }` is an
 * {@link OptionError} naming the key and the nearest valid one instead of a silently ignored option.
 * A key present with the value `undefined` counts as absent (its default applies).
 *
 * @internal
 * @module
 */
import { OptionError, ShapeError } from './errors.js';

/**
 * Throws unless `options` is `undefined` or a plain object whose keys are all in `known` (the keys of a
 * defaults object, or a list) or `extra`; returns the options, `{}` when absent.
 *
 * @throws {OptionError} on a non-object or an unknown key, naming `where`, the key and the nearest valid one.
 * @internal
 */
export function checkOptions<O extends object>(
  options: O | undefined,
  known: object | readonly string[],
  where: string,
  extra: readonly string[] = [],
): O {
  if (options === undefined) return {} as O;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new OptionError(`${where}: options must be an object, got ${describe(options)}`);
  }
  const names = Array.isArray(known) ? (known as readonly string[]) : Object.keys(known);
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue;
    if (names.includes(key) || extra.includes(key)) continue;
    const valid = [...names, ...extra];
    const near = nearest(key, valid);
    throw new OptionError(
      `${where}: unknown option '${key}'` +
        (near === undefined ? ' (this function takes no options)' : `; did you mean '${near}'?`) +
        (valid.length > 0 ? ` Valid options: ${valid.join(', ')}` : ''),
    );
  }
  return options;
}

/**
 * {@link checkOptions}, then the defaults with every option that is not `undefined` laid over them.
 *
 * @internal
 */
export function withDefaults<D extends object, O extends object>(
  options: O | undefined,
  defaults: D,
  where: string,
  extra: readonly string[] = [],
): D & O {
  const o = checkOptions(options, defaults, where, extra);
  const merged = { ...defaults } as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[key];
    if (v !== undefined) merged[key] = v;
  }
  return merged as D & O;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The valid name closest to `key` by edit distance (case-insensitive), if any. */
function nearest(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const k = key.toLowerCase();
  for (const name of names) {
    const d = editDistance(k, name.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = name;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.abs(a.length - b.length) + 64;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/**
 * Throws unless `out` is a buffer a kernel can write `length` numbers into: a Float64Array or Float32Array
 * of at least `length` values, or a plain array (which grows as written).
 *
 * @throws {ShapeError} naming `where` and what `out` is.
 * @internal
 */
export function checkOut(out: unknown, length: number, where: string, name = 'out'): void {
  if (out instanceof Float64Array || out instanceof Float32Array) {
    if (out.length < length) {
      throw new ShapeError(`${where}: ${name} has ${out.length} values, needs at least ${length}`);
    }
    return;
  }
  if (Array.isArray(out)) return;
  throw new ShapeError(
    `${where}: ${name} must be a Float64Array, Float32Array or number[] of ${length} values, got ${
      out === null ? 'null' : ArrayBuffer.isView(out) ? out.constructor.name : typeof out
    }`,
  );
}
