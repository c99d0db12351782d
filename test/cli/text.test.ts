import { describe, expect, it } from 'vitest';
import { escapeControl, escapeLines } from '../../src/cli/text.js';

describe('escapeControl(text)', () => {
  it.each([
    ['Hips\x1b]0;pwned\x07', 'Hips\\x1b]0;pwned\\x07'],
    ['a\nb\r\tc', 'a\\nb\\r\\tc'],
    ['nul\0', 'nul\\x00'],
    ['del\x7f', 'del\\x7f'],
    ['csi\u009b2J', 'csi\\x9b2J'],
    ['abc\u202edcba', 'abc\\u202edcba'],
    ['iso\u2066late\u2069', 'iso\\u2066late\\u2069'],
    ['line\u2028sep', 'line\\u2028sep'],
  ])('escapeControl(%j) is %j', (text, expected) => {
    expect(escapeControl(text)).toBe(expected);
  });

  it('keeps printable text of any script, right-to-left marks and backslashes as they are', () => {
    for (const text of ['LeftUpLeg', 'Hüfte', 'ヒップ', 'ورك\u200f', 'C:\\captures\\a.bvh', ''])
      expect(escapeControl(text)).toBe(text);
  });

  it('its output holds no control character at all, for every code unit below U+3000', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    const out = escapeControl(all);
    const bad = [...out].filter((ch) => {
      const c = ch.charCodeAt(0);
      return (
        c < 0x20 ||
        (c >= 0x7f && c <= 0x9f) ||
        c === 0x2028 ||
        c === 0x2029 ||
        (c >= 0x202a && c <= 0x202e) ||
        (c >= 0x2066 && c <= 0x2069)
      );
    });
    expect(bad).toEqual([]);
  });
});

describe('escapeLines(text)', () => {
  it('escapes like escapeControl but keeps newlines', () => {
    expect(escapeLines('a\n\x1b[2Jb\r\n')).toBe('a\n\\x1b[2Jb\\r\n');
  });
});
