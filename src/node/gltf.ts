import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve, sep } from 'node:path';
import type { Document } from '@gltf-transform/core';
import { GltfError } from '../io/gltf/errors.js';
import { type GltfReadResult, type ReadGltfOptions, readGltf } from '../io/gltf/read.js';
import { type GltfWriteResult, type WriteGltfOptions, writeGltf } from '../io/gltf/write.js';
import type { Clip, KeyedClip } from '../series/clip.js';
import { writeFileAtomic } from './atomic.js';
import { checkOptionsObject, checkPath, onFile } from './checks.js';
import { withDracoDecoder, withDracoEncoder } from './draco.js';

export { isGltfPath } from './task-route.js';

/**
 * Reads a `.glb` or `.gltf` file from disk; for a `.gltf`, the `.bin` buffers and images it references
 * by relative URI are read from beside it (percent-escapes decoded). A missing buffer is a
 * {@link GltfError} naming it; a missing image is a warning and its reference is kept. A file that uses
 * `KHR_draco_mesh_compression` is decoded with draco3dgltf's decoder, loaded then (unless
 * `options.dependencies` gives one).
 *
 * @example
 * const { document, clips } = await readGltfFile('Fox.glb');
 */
export async function readGltfFile(path: string, options: ReadGltfOptions = {}): Promise<GltfReadResult> {
  checkPath('readGltfFile', 'path', path);
  checkOptionsObject('readGltfFile', options);
  options ??= {};
  const bytes = onFile('readGltfFile', 'read', path, () => readFileSync(path));
  const file = options.file ?? path;
  const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isGlb =
    view.length >= 4 && view[0] === 0x67 && view[1] === 0x6c && view[2] === 0x54 && view[3] === 0x46;
  const resources: Record<string, Uint8Array> = { ...(options.resources ?? {}) };
  if (!isGlb) {
    let json: { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
    try {
      json = JSON.parse(view.length ? new TextDecoder().decode(view) : '');
    } catch {
      // readGltf reports the parse error with its message
      return readGltf(view, { ...options, file });
    }
    const base = dirname(path);
    for (const list of [json?.buffers ?? [], json?.images ?? []]) {
      for (const item of list) {
        const uri = item?.uri;
        if (typeof uri !== 'string' || uri.startsWith('data:') || uri in resources) continue;
        let target: string;
        try {
          target = resolve(base, decodeURIComponent(uri));
        } catch {
          target = resolve(base, uri);
        }
        if (existsSync(target)) {
          const b = onFile('readGltfFile', 'read', target, () => readFileSync(target));
          resources[uri] = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        }
      }
    }
  }
  const dependencies = await withDracoDecoder(view, options.dependencies);
  return readGltf(view, { ...options, file, resources, ...(dependencies ? { dependencies } : {}) });
}

/**
 * Writes clips as a `.glb` or `.gltf` file (by the path's extension), atomically, creating missing
 * directories. A document with `KHR_draco_mesh_compression` is encoded with draco3dgltf's encoder,
 * loaded then (unless `options.dependencies` gives one). A `.gltf` gets its buffer as `<name>.bin` beside it; images of the document that were
 * files keep their URIs and are written beside it only when they are not there yet. Every file is
 * written to a temporary name first, so a failure leaves no partial output.
 *
 * @example
 * const { document, clips } = await readGltfFile('Fox.glb');
 * await writeGltfFile('out/Fox.glb', document, clips.map((c) => unrollKeyedClip(c)));
 */
export async function writeGltfFile(
  path: string,
  doc: Document | null,
  clips: readonly (KeyedClip | Clip)[],
  options: Omit<WriteGltfOptions, 'format' | 'basename'> = {},
): Promise<GltfWriteResult> {
  checkPath('writeGltfFile', 'path', path);
  checkOptionsObject('writeGltfFile', options);
  const gltf = extname(path).toLowerCase() === '.gltf';
  const name = basename(path, extname(path));
  // the documents writeGltf may write: the one given, or those the clips were read from
  const sources = Array.isArray(clips)
    ? clips.map((c) => (c?.source as { document?: unknown } | undefined)?.document)
    : [];
  const dependencies =
    options?.compression === 'none'
      ? options.dependencies
      : await withDracoEncoder([doc, ...sources], options?.dependencies);
  const out = await writeGltf(doc, clips, {
    ...options,
    format: gltf ? 'gltf' : 'glb',
    basename: name,
    ...(dependencies ? { dependencies } : {}),
  });
  onFile('writeGltfFile', 'create the directory for', path, () =>
    mkdirSync(dirname(path), { recursive: true }),
  );
  if (!gltf) {
    writeFileAtomic(path, out.glb as Uint8Array);
    return out;
  }
  const dir = dirname(path);
  // resources first, the JSON last: a reader never sees a .gltf whose .bin is not there yet
  for (const [uri, bytes] of Object.entries(out.resources ?? {})) {
    const target = resolve(dir, uri);
    if (target === resolve(path))
      throw new GltfError(`resource '${uri}' would overwrite the .gltf itself`, { file: path }, 'gltf-write');
    // a URI that leaves the output folder (../) is not written; the reference stays as it is
    if (!target.startsWith(`${resolve(dir)}${sep}`)) continue;
    onFile('writeGltfFile', 'create the directory for', target, () =>
      mkdirSync(dirname(target), { recursive: true }),
    );
    writeFileAtomic(target, bytes);
  }
  writeFileAtomic(path, `${JSON.stringify(out.json, null, 2)}\n`);
  return out;
}
