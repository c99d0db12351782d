/**
 * `checkOptions` remembers, per spec, the rules of the option names it was last given in order, so a
 * caller that passes the same names call after call pays a comparison instead of a lookup. The memory
 * must never change an answer: every call decides as a fresh spec would.
 */
import { describe, expect, it } from 'vitest';
import { OptionError } from '../src/errors.js';
import { checkOptions, customRule, type OptionSpec, oneOf } from '../src/options.js';

const spec = (): OptionSpec => ({
  method: oneOf(['eigen', 'nlerp']),
  count: customRule('an integer', (v) => Number.isInteger(v)),
  out: customRule('an array', (v) => Array.isArray(v)),
});

/** What a call does: 'ok', or the message it throws. */
function outcome(s: OptionSpec, options: object): string {
  try {
    checkOptions('f', options, s);
    return 'ok';
  } catch (e) {
    if (!(e instanceof OptionError)) throw e;
    return e.message;
  }
}

describe('checkOptions with its lookup memory', () => {
  const calls: object[] = [
    { method: 'eigen', count: 2 },
    { count: 2, method: 'eigen' },
    { method: 'eigen', count: 2.5 },
    { method: 'eigen', cuont: 2 },
    { method: 'eigen', count: 2, out: [] },
    { method: 'eigen', count: 2, out: 3 },
    { method: 'flip' },
    { count: undefined, method: 'nlerp' },
    { out: [], count: 1, method: 'nlerp', extra: 1 },
    Object.create({ inherited: 1 }, { method: { value: 'nlerp', enumerable: true } }),
    { method: 'eigen', count: 2 },
  ];

  it('decides every call of a sequence as a fresh spec does, in either order of names', () => {
    const remembering = spec();
    const expected = calls.map((c) => outcome(spec(), c));
    expect(calls.map((c) => outcome(remembering, c))).toEqual(expected);
    // and the same sequence backwards on the now-warm spec
    expect([...calls].reverse().map((c) => outcome(remembering, c))).toEqual([...expected].reverse());
    // the answers themselves: unknown names named with the nearest valid one, bad values with their rule
    expect(expected[0]).toBe('ok');
    expect(expected[1]).toBe('ok');
    expect(expected[2]).toMatch(/option 'count' must be an integer, got 2\.5/);
    expect(expected[3]).toMatch(/unknown option 'cuont'; did you mean 'count'\?/);
    expect(expected[5]).toMatch(/option 'out' must be an array/);
    expect(expected[6]).toMatch(/option 'method' must be one of 'eigen', 'nlerp'/);
    expect(expected[7]).toBe('ok');
    expect(expected[8]).toMatch(/unknown option 'extra'/);
    // an inherited name is not the caller's option
    expect(expected[9]).toBe('ok');
  });

  it('works on a frozen spec (no memory kept on it) and keeps none in the spec’s own names', () => {
    const frozen = Object.freeze(spec());
    expect(calls.map((c) => outcome(frozen, c))).toEqual(calls.map((c) => outcome(spec(), c)));
    const s = spec();
    outcome(s, calls[0]);
    expect(Object.keys(s)).toEqual(['method', 'count', 'out']);
  });
});
