import { describe, expect, it } from 'vitest';
import { InvalidValueError } from '../../src/errors.js';
import { csvTextCell, type FrameTable, frameTableCsv, frameTableJson } from '../../src/pipeline/formats.js';

function table(names: string[], data: number[], rate = 10): FrameTable {
  return {
    data,
    frames: data.length / names.length,
    joints: names.length,
    width: 1,
    names,
    components: ['x'],
    rate,
    kind: 'test',
  };
}

describe('frameTableCsv(table) against formula injection', () => {
  it.each([
    ['=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"").x"'],
    ['+cmd', '"\'+cmd.x"'],
    ['-2+3', '"\'-2+3.x"'],
    ['@SUM(A1)', '"\'@SUM(A1).x"'],
    ['\tTab', '"\'\tTab.x"'],
    ['\rCR', '"\'\rCR.x"'],
    ['Hips', 'Hips.x'],
    ['a,b', '"a,b.x"'],
    ['say "hi"', '"say ""hi"".x"'],
  ])('a joint named %j becomes the header cell %s', (name, cell) => {
    const header = [...frameTableCsv(table([name], [1]))].join('').split('\n')[0];
    expect(header).toBe(`frame,time,${cell}`);
  });

  it('numeric cells stay numbers, negative ones included', () => {
    const text = [...frameTableCsv(table(['Hips'], [-0.5, 1e-7, -12]))].join('');
    expect(text).toBe('frame,time,Hips.x\n0,0,-0.5\n1,0.1,1e-7\n2,0.2,-12\n');
  });

  it('csvTextCell leaves ordinary text alone and neutralises each formula lead', () => {
    expect(csvTextCell('LeftArm.qx')).toBe('LeftArm.qx');
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) expect(csvTextCell(`${lead}1`)).toBe(`"'${lead}1"`);
  });
});

describe('frameTableCsv(table) and frameTableJson(table) never write a non-finite number', () => {
  it.each([
    ['NaN', [0, Number.NaN], 10],
    ['Infinity', [0, 1, Number.POSITIVE_INFINITY, 2], 10],
    ['-Infinity', [Number.NEGATIVE_INFINITY], 10],
    ['an infinite rate', [0, 1], Number.POSITIVE_INFINITY],
  ])('%s is an InvalidValueError', (_what, data, rate) => {
    const t = table(data.length === 4 ? ['A', 'B'] : ['A'], data, rate);
    expect(() => [...frameTableCsv(t)]).toThrow(InvalidValueError);
    expect(() => [...frameTableJson(t)]).toThrow(InvalidValueError);
  });

  it('names the frame and the column of the first bad value', () => {
    const t = table(['A', 'B'], [0, 1, 2, Number.NaN]);
    expect(() => [...frameTableCsv(t)]).toThrow('NaN at frame 1, B.x');
  });
});
