// Which runner a file task needs, decided from its paths and its output kind alone. Kept apart from the
// runners (gltf-task.ts, reduce-task.ts) so that a batch of BVH files never loads the glTF and key
// reduction code: a worker imports a runner only for a task that needs it.
import { extname } from 'node:path';
import type { FileTask } from './task.js';

/** True for the extensions the glTF reader takes: `.gltf` and `.glb`, any case. */
export function isGltfPath(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return ext === '.gltf' || ext === '.glb';
}

/** The format a task writes: the output path's when it names one, else the input's. */
export function outputFormat(task: FileTask): 'bvh' | 'glb' | 'gltf' {
  const named = task.output && task.output !== '-' ? extname(task.output).toLowerCase() : '';
  if (named === '.bvh' || named === '.glb' || named === '.gltf')
    return named.slice(1) as 'bvh' | 'glb' | 'gltf';
  const input = extname(task.input).toLowerCase();
  return input === '.gltf' ? 'gltf' : input === '.glb' ? 'glb' : 'bvh';
}

/** Whether a task writes a motion clip (in the format of its output), as opposed to a table or a report. */
export function writesClip(task: FileTask): boolean {
  return task.emit.kind === 'bvh' || task.emit.kind === 'clip';
}

/** True when the task reads or writes glTF, so `runGltfTask` runs it. */
export function isGltfTask(task: FileTask): boolean {
  return isGltfPath(task.input) || (writesClip(task) && outputFormat(task) !== 'bvh');
}
