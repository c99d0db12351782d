import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBvh } from '../../src/io/index.js';
import { batchOrder, runBatch, runsInline } from '../../src/node/batch.js';
import type { FileTask } from '../../src/node/task.js';
import { runFileTask } from '../../src/node/tasks.js';

function tasksOfSizes(sizes: number[]): FileTask[] {
  const dir = mkdtempSync(join(tmpdir(), 'rotsig-order-'));
  return sizes.map((size, i) => {
    const input = join(dir, `f${i}.bvh`);
    if (size >= 0) writeFileSync(input, 'x'.repeat(size));
    return { input, output: null, steps: [], emit: { kind: 'bvh' } };
  });
}

describe('batchOrder(tasks, jobs)', () => {
  it('batchOrder(tasks, 2) starts with the 8 smallest files, smallest first, then the rest largest first', () => {
    const sizes = [50, 10, 90, 30, 70, 20, 60, 40, 80, 100, 5, 15, 25, 35, 45, 55, 65, 75, 85, 95];
    const order = batchOrder(tasksOfSizes(sizes), 2);
    const ordered = order.map((i) => sizes[i]);
    expect(ordered.slice(0, 8)).toEqual([5, 10, 15, 20, 25, 30, 35, 40]);
    expect(ordered.slice(8)).toEqual([100, 95, 90, 85, 80, 75, 70, 65, 60, 55, 50, 45]);
    expect([...order].sort((a, b) => a - b)).toEqual(sizes.map((_, i) => i));
  });

  it('batchOrder(tasks, jobs) warms up on at most half of a small batch and keeps input order on ties', () => {
    const order = batchOrder(tasksOfSizes([7, 7, 3, 9]), 4);
    // 2 warm-up files (half of 4): sizes 3 then 7 (the later of the two 7s, as the tail of the
    // largest-first list), then 9 and the first 7
    expect(order).toEqual([2, 1, 3, 0]);
  });

  it('batchOrder(tasks, jobs) counts a missing file as empty', () => {
    const order = batchOrder(tasksOfSizes([30, -1, 20, 10]), 1);
    expect(order[0]).toBe(1);
    expect(order.length).toBe(4);
  });
});

describe('runBatch(tasks, options)', () => {
  it('runBatch(tasks, { jobs: 1 }) runs every task on this thread and reports the bad file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-inline-'));
    const good = join(dir, 'good.bvh');
    writeFileSync(
      good,
      [
        'HIERARCHY',
        'ROOT Hips',
        '{',
        '  OFFSET 0 0 0',
        '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
        '  End Site',
        '  {',
        '    OFFSET 0 1 0',
        '  }',
        '}',
        'MOTION',
        'Frames: 3',
        'Frame Time: 0.1',
        '0 0 0 0 0 0',
        '0 0 0 10 20 30',
        '0 0 0 20 40 60',
        '',
      ].join('\n'),
    );
    const bad = join(dir, 'bad.bvh');
    writeFileSync(bad, 'HIERARCHY\nROOT Hips\n{\n');
    const tasks: FileTask[] = [good, bad].map((input) => ({
      input,
      output: input.replace('.bvh', '.out.bvh'),
      steps: [{ op: 'unroll' }],
      emit: { kind: 'bvh' },
    }));
    const summary = await runBatch(tasks, { jobs: 1 });
    expect([summary.ok, summary.failed, summary.frames]).toEqual([1, 1, 3]);
    expect(summary.results[1]?.error?.line).toBeGreaterThan(0);
    expect(parseBvh(readFileSync(join(dir, 'good.out.bvh'), 'utf8')).frames).toBe(3);
    expect(existsSync(join(dir, 'bad.out.bvh'))).toBe(false);
  });
});

describe('runsInline(tasks, jobs)', () => {
  it('runsInline(tasks, 1) runs a batch of small files on this thread; at 2 jobs they go to workers', () => {
    const tasks = tasksOfSizes([10, 20, 30]);
    expect(runsInline(tasks, 1)).toBe(true);
    expect(runsInline(tasks, 2)).toBe(false);
    // a single task runs here whatever the jobs
    expect(runsInline(tasks.slice(0, 1), 2)).toBe(true);
  });
});

describe('runFileTask(task) and the splits of its summary', () => {
  it('names the splits by default and skips them with splits: false, writing the same file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotsig-splits-'));
    const task: FileTask = {
      input: join('samples', '01_01.bvh'),
      output: join(dir, 'a.bvh'),
      steps: [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 2 } }],
      emit: { kind: 'bvh' },
    };
    const named = runFileTask(task);
    // LeftForeArm turns 136 degrees between the T-pose frame 0 and frame 1 of CMU 01_01: a cut
    expect(named.splits?.some((s) => s.joint === 'LeftForeArm' && s.frame === 1)).toBe(true);
    const skipped = runFileTask({ ...task, output: join(dir, 'b.bvh'), splits: false });
    expect(skipped.ok).toBe(true);
    expect(skipped.splits).toBeUndefined();
    expect(readFileSync(join(dir, 'b.bvh'))).toEqual(readFileSync(join(dir, 'a.bvh')));
  });
});
