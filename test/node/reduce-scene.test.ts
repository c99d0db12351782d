// `reduce` on glTF holds its bound in scene units: the written file played by an evaluator written from
// the glTF specification (test/support/gltf-evaluator.ts), not by rotsig's reader or reducer.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../src/errors.js';
import type { ReduceSummary } from '../../src/node/reduce-task.js';
import { runReduceTask } from '../../src/node/reduce-task.js';
import type { ReduceKeysOptions } from '../../src/ops/reduce/reduce-keys.js';
import { Player, sceneObjectError } from '../support/gltf-evaluator.js';
import { mixamoRig, type RigOptions } from '../support/mixamo-rig.js';

/** Float32 keys in the written file: the evaluator may see the bound exceeded by this much. */
const FLOAT32_SLACK = 1 + 1e-3;

async function reduceRig(options: ReduceKeysOptions, rig: RigOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rotsig-reduce-scene-'));
  const input = join(dir, 'rig.glb');
  const output = join(dir, 'reduced.glb');
  writeFileSync(input, await mixamoRig(rig));
  const r = await runReduceTask({ input, output, steps: [], emit: { kind: 'reduce', options } }, (e) => ({
    message: e instanceof Error ? e.message : String(e),
    code: e instanceof OptionError ? 'option' : '',
  }));
  expect(r.error?.message, 'the reduce task failed').toBeUndefined();
  const report = (r.data as ReduceSummary).animations[0].report;
  const a = new Player(new Uint8Array(readFileSync(input)));
  const b = new Player(new Uint8Array(readFileSync(output)));
  return { report, a, b };
}

describe('reduce in scene units', () => {
  it('Mixamo-style rig (Armature scaled 0.01, joints in cm): --preset acl holds 0.01 cm at a 3 cm shell in the scene', async () => {
    const { report, a, b } = await reduceRig({ preset: 'acl' });
    expect(report.tolerance).toBe(1e-4);
    expect(report.shellDistance).toBe(0.03);
    expect(b.keys).toBeLessThan(a.keys);
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    // the report is the file's error, measured apart
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
  });

  it('an explicit shell and tolerance are scene units too', async () => {
    const { report, a, b } = await reduceRig({ shellDistance: 0.1, tolerance: 5e-4 });
    const measured = sceneObjectError(a, b, 0.1);
    expect(measured.max).toBeLessThanOrEqual(5e-4 * FLOAT32_SLACK);
    expect(measured.max).toBeGreaterThan(1e-4); // it used the room it was given
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
  });

  it('a mesh node hung 0.4 m off an animated hand (a staff) is in the bound with its real offset', async () => {
    const rig: RigOptions = { attachment: { joint: 'LeftHand', offset: [10, 0, 39] } };
    const { report, a, b } = await reduceRig({ preset: 'acl' }, rig);
    const face = (a.json.nodes as { name?: string }[]).findIndex((n) => n.name === 'Attachment');
    expect(a.moving()).toContain(face);
    const onFace = sceneObjectError(a, b, 0.03, undefined, [face]);
    expect(onFace.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    const measured = sceneObjectError(a, b, 0.03);
    expect(measured.max).toBeLessThanOrEqual(1e-4 * FLOAT32_SLACK);
    expect(Math.abs(report.maxError - measured.max)).toBeLessThanOrEqual(0.01 * measured.max);
    // the mesh, skins and node tree are written back: the attachment is still a node without a channel
    expect(b.json.nodes[face].name).toBe('Attachment');
    expect(b.channels.some((c) => c.node === face)).toBe(false);
  });
});
