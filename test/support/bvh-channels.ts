import type { Clip } from '../../src/series/clip.js';
import { bvhOf } from './bvh-source.js';

/**
 * Test-only reader of the raw BVH motion rows: the numbers after `Frame Time:`, one row per frame, exactly
 * as written (no Euler conversion), so tests can compare against the source's own Euler curves.
 */
export function readMotionRows(text: string): number[][] {
  const lines = text.split(/\r?\n/);
  let i = lines.findIndex((l) => /^\s*Frame Time:/.test(l));
  if (i < 0) throw new Error('no Frame Time line');
  const rows: number[][] = [];
  for (i++; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t === '') continue;
    rows.push(t.split(/\s+/).map(Number));
  }
  return rows;
}

/**
 * The source Euler curves of every joint as a `frames x joints x 3` Float64Array in radians, channels in the
 * order the joint's rotation channels are written (which is `clip.orders[j]`, e.g. `'ZXY'` for
 * `Zrotation Xrotation Yrotation`). Joints without three rotation channels get zeros.
 */
export function sourceEulerCurves(text: string, clip: Clip): Float64Array {
  const rows = readMotionRows(text);
  const J = clip.skeleton.names.length;
  const frames = Math.min(rows.length, clip.frames);
  const out = new Float64Array(frames * J * 3);
  const deg = Math.PI / 180;
  let column = 0;
  const columns: number[][] = [];
  for (let j = 0; j < J; j++) {
    const rot: number[] = [];
    for (const name of bvhOf(clip).channels[j]) {
      if (name.endsWith('rotation')) rot.push(column);
      column++;
    }
    columns.push(rot);
  }
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < J; j++) {
      const c = columns[j];
      if (c.length !== 3) continue;
      for (let k = 0; k < 3; k++) out[(f * J + j) * 3 + k] = rows[f][c[k]] * deg;
    }
  }
  return out;
}

/** Joints with three rotation channels (the ones whose Euler curves mean something). */
export function rotatingJoints(clip: Clip): number[] {
  const out: number[] = [];
  bvhOf(clip).channels.forEach((ch, j) => {
    if (ch.filter((c) => c.endsWith('rotation')).length === 3) out.push(j);
  });
  return out;
}
