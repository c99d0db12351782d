import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchOrder } from '../../src/node/batch.js';
import type { FileTask } from '../../src/node/tasks.js';

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
