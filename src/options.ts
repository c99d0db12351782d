/**
 * The one option resolver, shared by every option-taking function: {@link resolveOptions} checks an options
 * object against the function's frozen `XXX_DEFAULTS` and an {@link OptionSpec} (one {@link OptionRule} per
 * option name: a number range, an integer, an enum, a boolean, an `out` buffer, ...) and returns the defaults
 * with every given option laid over them. Policy, the same for every function:
 * - the options are an object or absent (`undefined`);
 * - a key present with the value `undefined` counts as absent (its default applies);
 * - an unknown key is an {@link OptionError} naming the key and the nearest valid one (a typo such as
 *   `{ sigme: 2 }` never passes silently);
 * - a value of the wrong type or outside its range is an {@link OptionError} with the message
 *   `where: option 'name' must be <expected>, got <value>` and `detail` naming the function, option, value
 *   and expectation;
 * - `out` is always `options.out`.
 *
 * Checks that need other arguments (an `out` buffer's length, a joint index below the clip's joint count)
 * stay with the function.
 *
 * @internal
 * @module
 */
import { OptionError, ShapeError } from './errors.js';

/**
 * What one option accepts: `expected` in words for the error message, `test` the check. Build rules with the
 * helpers below ({@link numberIn}, {@link integerIn}, {@link oneOf}, {@link BOOLEAN_OPTION}, ...).
 *
 * @internal
 */
export interface OptionRule {
  /** What the option takes, completing "must be ...", e.g. `'a finite number > 0'`. */
  readonly expected: string;
  /** True when `value` (never `undefined`: that means the default) is acceptable. */
  readonly test: (value: unknown) => boolean;
}

/** One rule per valid option name; the keys are the names {@link resolveOptions} accepts. @internal */
export type OptionSpec = Readonly<Record<string, OptionRule>>;

function rangeText(min: number, max: number, openMin: boolean): string {
  const lo = min === Number.NEGATIVE_INFINITY ? '' : `${openMin ? '>' : '>='} ${min}`;
  const hi = max === Number.POSITIVE_INFINITY ? '' : `<= ${max}`;
  if (lo !== '' && hi !== '') return openMin ? `in (${min}, ${max}]` : `in [${min}, ${max}]`;
  return lo !== '' ? lo : hi;
}

/**
 * A finite number in `[min, max]` (or `(min, max]` with `openMin`).
 *
 * @internal
 */
export function numberIn(
  min = Number.NEGATIVE_INFINITY,
  max = Number.POSITIVE_INFINITY,
  openMin = false,
): OptionRule {
  const range = rangeText(min, max, openMin);
  return {
    expected: range === '' ? 'a finite number' : `a finite number ${range}`,
    test: (v) => typeof v === 'number' && Number.isFinite(v) && (openMin ? v > min : v >= min) && v <= max,
  };
}

/** A finite number > 0. @internal */
export const POSITIVE_NUMBER: OptionRule = numberIn(0, Number.POSITIVE_INFINITY, true);
/** A finite number >= 0. @internal */
export const NON_NEGATIVE_NUMBER: OptionRule = numberIn(0);
/** Any finite number. @internal */
export const FINITE_NUMBER: OptionRule = numberIn();

/**
 * An integer in `[min, max]`.
 *
 * @internal
 */
export function integerIn(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): OptionRule {
  const range = rangeText(min, max, false);
  return {
    expected: `an integer ${range}`.trimEnd(),
    test: (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
  };
}

/**
 * One of the listed values (strings, numbers or booleans, compared with `===`).
 *
 * @internal
 */
export function oneOf(values: readonly (string | number | boolean)[]): OptionRule {
  const list = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');
  return { expected: `one of ${list}`, test: (v) => values.includes(v as string) };
}

/** `true` or `false`. @internal */
export const BOOLEAN_OPTION: OptionRule = { expected: 'true or false', test: (v) => typeof v === 'boolean' };
/** A string. @internal */
export const STRING_OPTION: OptionRule = { expected: 'a string', test: (v) => typeof v === 'string' };
/** A function. @internal */
export const FUNCTION_OPTION: OptionRule = { expected: 'a function', test: (v) => typeof v === 'function' };
/** A plain object (not null, not an array). @internal */
export const OBJECT_OPTION: OptionRule = {
  expected: 'an object',
  test: (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v),
};
/** An output buffer: a Float64Array or Float32Array (its length is the function's to check). @internal */
export const OUT_BUFFER: OptionRule = {
  expected: 'a Float64Array or Float32Array',
  test: (v) => v instanceof Float64Array || v instanceof Float32Array,
};
/** An output series: an object whose `data` is a Float64Array or Float32Array (its shape is the function's to check). @internal */
export const OUT_SERIES: OptionRule = {
  expected: 'a series with Float64Array or Float32Array data',
  test: (v) =>
    v !== null &&
    typeof v === 'object' &&
    ((v as { data?: unknown }).data instanceof Float64Array ||
      (v as { data?: unknown }).data instanceof Float32Array),
};
/** A filter kernel: an object with a numeric `radius` and an `evaluate` function (see `kernels`). @internal */
export const KERNEL_OPTION: OptionRule = {
  expected: 'a kernel (an object with radius and evaluate)',
  test: (v) =>
    v !== null &&
    typeof v === 'object' &&
    typeof (v as { radius?: unknown }).radius === 'number' &&
    typeof (v as { evaluate?: unknown }).evaluate === 'function',
};
/** An output buffer that may also be a plain array of numbers (the single-rotation functions). @internal */
export const OUT_ARRAY: OptionRule = {
  expected: 'a Float64Array, Float32Array or number[]',
  test: (v) => v instanceof Float64Array || v instanceof Float32Array || Array.isArray(v),
};
/** A list of numbers: a number[], Float64Array or Float32Array (values are the function's to check). @internal */
export const NUMBER_LIST: OptionRule = {
  expected: 'a number[], Float64Array or Float32Array',
  test: (v) => Array.isArray(v) || v instanceof Float64Array || v instanceof Float32Array,
};

/**
 * A rule accepting what any of `rules` accepts.
 *
 * @internal
 */
export function anyOf(...rules: OptionRule[]): OptionRule {
  return {
    expected: rules.map((r) => r.expected).join(' or '),
    test: (v) => rules.some((r) => r.test(v)),
  };
}

/**
 * `rule`, or `null` (for options whose default is `null`, meaning "none").
 *
 * @internal
 */
export function orNull(rule: OptionRule): OptionRule {
  return { expected: `${rule.expected} or null`, test: (v) => v === null || rule.test(v) };
}

/**
 * A rule with its own test and wording, for shapes the helpers do not cover.
 *
 * @internal
 */
export function customRule(expected: string, test: (value: unknown) => boolean): OptionRule {
  return { expected, test };
}

/**
 * Resolves `options` against `defaults` under `spec` (see the module comment for the policy): returns the
 * defaults with every option that is not `undefined` laid over them. With no options it returns `defaults`
 * itself (frozen; no allocation), so callers read the result and never write to it.
 *
 * @param where The function's name (and argument, when a function takes two option objects), first in messages.
 * @param options What the caller passed; `undefined` means all defaults.
 * @param defaults The function's frozen `XXX_DEFAULTS`; options without a default are absent from it.
 * @param spec One rule per valid option name (every key of `defaults` and every option without a default).
 * @throws {OptionError} on options that are not an object, an unknown name, or a value its rule refuses.
 * @internal
 */
export function resolveOptions<D extends object, O extends object>(
  where: string,
  options: O | undefined,
  defaults: D,
  spec: OptionSpec,
): Readonly<D & O> {
  if (checkOptions(where, options, spec) === undefined) return defaults as D & O;
  let merged: Record<string, unknown> | undefined;
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue;
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (merged === undefined) merged = { ...defaults } as Record<string, unknown>;
    merged[key] = value;
  }
  return (merged ?? defaults) as D & O;
}

/**
 * The checks of {@link resolveOptions} without the merge: throws as it does on options that are not an
 * object, an unknown name or a value its rule refuses, and returns `options` itself (`undefined` when none
 * were given). For functions called per small item (an average of a few rotations) whose every read is
 * `options?.x ?? DEFAULTS.x`: copying the defaults each call would cost more than their work.
 *
 * @internal
 */
export function checkOptions<O extends object>(
  where: string,
  options: O | undefined,
  spec: OptionSpec,
): O | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new OptionError(`${where}: options must be an object, got ${showValue(options)}`, {
      where,
      option: '',
      value: options,
      expected: 'an object',
    });
  }
  // the rules of the names this spec was last given, by position: a caller passes its options in one
  // order call after call, so the lookup is a comparison (the rule of a name is the spec's, which is fixed)
  const seen = lookupCache(spec);
  let at = 0;
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue;
    const value = (options as Record<string, unknown>)[key];
    let rule: OptionRule | undefined;
    if (seen !== null && seen.names[at] === key) rule = seen.rules[at];
    else {
      rule = Object.hasOwn(spec, key) ? spec[key] : undefined;
      if (rule === undefined) throw unknownOption(where, key, value, Object.keys(spec));
      if (seen !== null) {
        seen.names[at] = key;
        seen.rules[at] = rule;
      }
    }
    at++;
    if (value === undefined) continue;
    if (!rule.test(value)) {
      throw new OptionError(`${where}: option '${key}' must be ${rule.expected}, got ${showValue(value)}`, {
        where,
        option: key,
        value,
        expected: rule.expected,
      });
    }
  }
  return options;
}

/** Per spec: the names of the options it was last given, in their order, and their rules. */
interface LookupCache {
  names: string[];
  rules: OptionRule[];
}
const LOOKUP_CACHE = Symbol('option lookups');

/** The lookup cache of `spec`, kept on it as a hidden property; null for a spec that cannot take one (frozen). */
function lookupCache(spec: OptionSpec): LookupCache | null {
  const held = (spec as { [LOOKUP_CACHE]?: LookupCache })[LOOKUP_CACHE];
  if (held !== undefined) return held;
  if (!Object.isExtensible(spec)) return null;
  const cache: LookupCache = { names: [], rules: [] };
  Object.defineProperty(spec, LOOKUP_CACHE, { value: cache });
  return cache;
}

function unknownOption(where: string, key: string, value: unknown, valid: readonly string[]): OptionError {
  const near = nearest(key, valid);
  return new OptionError(
    `${where}: unknown option '${key}'` +
      (near === undefined ? ' (this function takes no options)' : `; did you mean '${near}'?`) +
      (valid.length > 0 ? ` Valid options: ${valid.join(', ')}` : ''),
    { where, option: key, value, expected: valid.length > 0 ? `one of ${valid.join(', ')}` : 'no options' },
  );
}

/**
 * A short description of a value for error messages: numbers and booleans as written, strings quoted and
 * cut at 40 characters, otherwise the kind (`an array of 3`, `a Float32Array of 4`, `an object`, ...).
 *
 * @internal
 */
export function showValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return 'an object';
}

/**
 * Freezes a defaults object (and the arrays and plain objects it holds) so no caller can change another's
 * defaults; returns it.
 *
 * @internal
 */
export function frozenDefaults<D extends object>(defaults: D): Readonly<D> {
  for (const value of Object.values(defaults))
    if (value !== null && typeof value === 'object') Object.freeze(value);
  return Object.freeze(defaults);
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
