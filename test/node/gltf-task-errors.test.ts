import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { formatTaskError } from '../../src/node/task.js';
import { runAnyFileTask } from '../../src/node/tasks.js';

const dir = mkdtempSync(join(tmpdir(), 'rotsig-gltf-task-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runAnyFileTask(task) on a bad glTF file', () => {
  test('runAnyFileTask({ input: bad.gltf }) reports the error with the file named once', async () => {
    const input = join(dir, 'bad.gltf');
    writeFileSync(
      input,
      JSON.stringify({
        asset: { version: '2.0' },
        accessors: [{ componentType: 5126, type: 'SCALAR', count: 2, bufferView: 7 }],
      }),
    );
    const result = await runAnyFileTask({ input, output: null, steps: [], emit: { kind: 'info' } });
    expect(result.ok).toBe(false);
    const line = formatTaskError(input, result.error!);
    expect(line).toBe(`${input}: accessors[0].bufferView is 7: there is no buffer view 7 (no buffer views)`);
    expect(line.split('bad.gltf')).toHaveLength(2);
  });
});
