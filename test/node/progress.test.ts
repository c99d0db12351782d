import { describe, expect, it } from 'vitest';
import { formatSeconds, ProgressBar } from '../../src/node/progress.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 100, write: (s: string) => writes.push(s) };
}

describe('ProgressBar(total, stream)', () => {
  it('draws files/s and ETA on a terminal', () => {
    const s = stream(true);
    const bar = new ProgressBar(3, s);
    bar.tick(true);
    bar.tick(false);
    bar.tick(true);
    const last = s.writes.at(-1)!;
    expect(last.startsWith('\r\u001b[2K[')).toBe(true);
    expect(last).toMatch(/\[#+\] 3\/3, 1 failed {2}[\d.]+ files\/s {2}ETA /);
    bar.message('error: x');
    expect(s.writes).toContain('error: x\n');
  });

  it('stays silent when the stream is not a terminal (CI logs, pipes)', () => {
    const s = stream(false);
    const bar = new ProgressBar(5, s);
    for (let i = 0; i < 5; i++) bar.tick(true);
    bar.clear();
    expect(s.writes).toEqual([]);
    bar.message('error: y');
    expect(s.writes).toEqual(['error: y\n']);
  });

  it('formatSeconds(75.3) is 1m15s and formatSeconds(4.2) is 4.2s', () => {
    expect(formatSeconds(75.3)).toBe('1m15s');
    expect(formatSeconds(4.2)).toBe('4.2s');
  });
});
