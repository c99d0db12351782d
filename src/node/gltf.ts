import { closeSync, fstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import type { Document } from '@gltf-transform/core';
import { GltfError } from '../io/gltf/errors.js';
import { type GltfReadResult, type ReadGltfOptions, readGltf } from '../io/gltf/read.js';
import { type GltfWriteResult, type WriteGltfOptions, writeGltf } from '../io/gltf/write.js';
import type { Clip, KeyedClip } from '../series/clip.js';
import { type GroupFile, writeFileAtomic, writeFilesAtomic } from './atomic.js';
import { checkOptionsObject, checkPath, fileError, onFile, systemReason } from './checks.js';
import { withDracoDecoder, withDracoEncoder } from './draco.js';
import { INPUT_LIMITS, type OpenedInput, openInput, readOpenedInput, takePreloaded } from './input.js';
import { realTarget } from './plan.js';
import { resourceName } from './resource-name.js';

export { isGltfPath } from './task-route.js';

/** Real path of `path`, or undefined when it cannot be had. */
function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function inside(path: string, folder: string): boolean {
  return path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** A `.gltf` file read with its resources, and the files it read (`dev:ino`), for the checks of a later write. */
export interface GltfFileRead {
  read: GltfReadResult;
  /** Identities (`device:inode`) of the files read: the model and each resource. */
  files: Set<string>;
}

/**
 * {@link readGltfFile} with the identities of the files it read (see {@link GltfFileRead}).
 *
 * @internal
 */
export async function readGltfFileWithSources(
  path: string,
  options: ReadGltfOptions = {},
): Promise<GltfFileRead> {
  checkPath('readGltfFile', 'path', path);
  checkOptionsObject('readGltfFile', options);
  options ??= {};
  const files = new Set<string>();
  const early = takePreloaded(path);
  let view: Uint8Array;
  if (early !== undefined) view = early;
  else {
    const input = openInput('readGltfFile', path);
    try {
      if (!input.pipe) files.add(identity(fstatSync(input.fd)));
      view = readOpenedInput('readGltfFile', path, input);
    } finally {
      closeSync(input.fd);
    }
  }
  const file = options.file ?? path;
  const isGlb =
    view.length >= 4 && view[0] === 0x67 && view[1] === 0x6c && view[2] === 0x54 && view[3] === 0x46;
  const resources: Record<string, Uint8Array> = { ...(options.resources ?? {}) };
  const refused: { kind: 'buffer' | 'image'; index: number; uri: string; reason: string }[] = [];
  if (!isGlb) {
    let json: { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
    try {
      json = JSON.parse(view.length ? new TextDecoder().decode(view) : '');
    } catch {
      // readGltf reports the parse error with its message
      return { read: await readGltf(view, { ...options, file }), files };
    }
    const base = dirname(path);
    // A resource is read only when its real path lies inside the model's folder: the folder as named, or
    // the folder of the model's real file (a tree of links to models keeps working).
    const folders = [realOrUndefined(base), dirname(realOrUndefined(path) ?? resolve(path))].filter(
      (f): f is string => f !== undefined,
    );
    const byIdentity = new Map<string, Uint8Array>();
    let total = 0;
    const lists = [
      ['buffer', Array.isArray(json?.buffers) ? json.buffers : []],
      ['image', Array.isArray(json?.images) ? json.images : []],
    ] as const;
    for (const [kind, list] of lists) {
      list.forEach((item, index) => {
        const uri = item?.uri;
        if (typeof uri !== 'string' || uri.startsWith('data:') || uri in resources) return;
        const got = readResource(base, folders, uri, byIdentity, INPUT_LIMITS.wholeFile * 2 - total);
        if ('reason' in got) refused.push({ kind, index, uri, reason: got.reason });
        else if (got.bytes !== undefined) {
          if (!byIdentity.has(got.id)) total += got.bytes.length;
          byIdentity.set(got.id, got.bytes);
          files.add(got.id);
          resources[uri] = got.bytes;
        }
      });
    }
    const buffer = refused.find((r) => r.kind === 'buffer');
    if (buffer !== undefined)
      throw new GltfError(
        `buffer ${buffer.index} ('${buffer.uri}') is not read: ${buffer.reason}`,
        { file },
        'gltf-resource',
      );
  }
  const dependencies = await withDracoDecoder(view, options.dependencies);
  const read = await readGltf(view, {
    ...options,
    file,
    resources,
    ...(dependencies ? { dependencies } : {}),
  });
  for (const r of refused) {
    const message = `image ${r.index} ('${r.uri}') is not read: ${r.reason}; the reference is kept as it is`;
    const missing = `image ${r.index} ('${r.uri}') is missing; the reference is kept as it is`;
    const at = read.warnings.findIndex((w) => w.message === missing);
    if (at >= 0) read.warnings[at] = { ...read.warnings[at], message };
    else read.warnings.push({ code: 'resource', message, ...(file ? { file } : {}) });
  }
  return { read, files };
}

/**
 * One resource of a `.gltf` at `uri` beside it: its bytes and identity, nothing when there is no such
 * file (the reader reports it missing), or why it is not read.
 */
function readResource(
  base: string,
  folders: readonly string[],
  uri: string,
  byIdentity: ReadonlyMap<string, Uint8Array>,
  budget: number,
): { bytes?: Uint8Array; id: string } | { reason: string } {
  const named = resourceName(uri);
  if ('reason' in named) return named;
  const target = join(base, named.name);
  let input: OpenedInput;
  try {
    input = openInput('readGltfFile', target);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return { id: '' };
    if (code === 'ENOTREG' || code === 'EISDIR')
      return { reason: (error as Error).message.replace(/^.*?: it is /, 'it is ') };
    return { reason: systemReason(error) };
  }
  try {
    if (input.pipe) return { reason: 'it is a pipe, not a regular file' };
    const stats = fstatSync(input.fd);
    const id = identity(stats);
    // the real path of the name, checked to be the file that is open (a name swapped meanwhile fails)
    const real = realOrUndefined(target);
    const realStats = real === undefined ? undefined : statSync(real, { throwIfNoEntry: false });
    if (real === undefined || realStats === undefined || identity(realStats) !== id)
      return { reason: 'its real path cannot be checked' };
    if (!folders.some((f) => inside(real, f)))
      return { reason: "it leads outside the model's folder through a symbolic link" };
    const known = byIdentity.get(id);
    if (known !== undefined) return { bytes: known, id };
    if (input.size > budget)
      return { reason: `it holds ${input.size} bytes, more than the resources of one model may (2 GiB)` };
    try {
      return { bytes: readOpenedInput('readGltfFile', target, input), id };
    } catch (error) {
      return { reason: systemReason(error) === 'EFBIG' ? 'it is larger than 1 GiB' : systemReason(error) };
    }
  } finally {
    closeSync(input.fd);
  }
}

function identity(stats: { dev: number; ino: number }): string {
  return `${stats.dev}:${stats.ino}`;
}

/**
 * Reads a `.glb` or `.gltf` file from disk; for a `.gltf`, the `.bin` buffers and images it references
 * by relative URI are read from beside it (percent-escapes decoded).
 *
 * Untrusted models are safe to read: the model and each resource are opened non-blocking and checked on
 * the open descriptor, so a FIFO, a device or a link to one never blocks or reads for ever (the model
 * itself may be a pipe). A resource is read only from a regular file whose real path lies inside the
 * model's folder (the folder as named, or the folder of the model's real file when the model is a link):
 * a URL, an absolute path, a `..` segment (also escaped, `..%2F`), a link that leads out of the folder,
 * a pipe or a device is not read. Each resource is at most 1 GiB, all of them 2 GiB, the model 1 GiB.
 *
 * A buffer that is missing or not read is a {@link GltfError} naming it and why; an image is a warning
 * (code `'resource'`) and its reference is kept.
 *
 * @throws {GltfError} on a malformed model or a buffer that is missing or refused.
 * @throws {FileError} when the model cannot be read (`'ENOENT'`, `'ENOTREG'` for a device, `'EFBIG'`).
 * @example
 * const { document, clips } = await readGltfFile('Fox.glb');
 */
export async function readGltfFile(path: string, options: ReadGltfOptions = {}): Promise<GltfReadResult> {
  return (await readGltfFileWithSources(path, options)).read;
}

/**
 * Writes clips as a `.glb` or `.gltf` file (by the path's extension), atomically, creating missing
 * directories. A document with `KHR_draco_mesh_compression` is encoded with draco3dgltf's encoder,
 * loaded then (unless `options.dependencies` gives one). A `.gltf` gets its buffer as `<name>.bin` beside it; images of the document that were
 * files keep their URIs and are written beside it (see {@link writeGltfOutput} for what is written and
 * what is refused). The `.gltf` and its companions are written as a group (`writeFilesAtomic`): all to
 * temporary names first, renamed into place companions first and the `.gltf` last, so a failure leaves
 * no partial output and the `.gltf` never names a companion that is not complete.
 *
 * @example
 * const { document, clips } = await readGltfFile('Fox.glb');
 * const smoothed = clips.map((c) => runKeyedSteps(c, [{ op: 'smooth', kernel: { name: 'gaussian', sigma: 0.02, unit: 'seconds' } }]));
 * await writeGltfFile('out/Fox.glb', document, smoothed);
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
  const notes = writeGltfOutput(path, out, new Set());
  for (const message of notes) out.warnings.push({ code: 'resource', message, file: path });
  return out;
}

/**
 * Writes what `writeGltf` made to `path`: GLB bytes atomically, or a `.gltf` with its resources as one
 * group (`writeFilesAtomic`). Returns warnings about resources not written. Rules for untrusted names:
 *
 * - The buffers (`<name>.bin`, named after the output) are the output's own companions: written like the
 *   output itself (over a file a previous run wrote), but never over a file this task read (`read`: the
 *   input and its resources, by `device:inode`), which fails the write before anything is written.
 * - Images keep the URIs they had in the input, so their names are untrusted: one is written only when
 *   it is a plain relative name (no `..`, no absolute path or URL, no hidden name such as `.bashrc`), it
 *   stays inside the output's folder by real path (no symbolic link out), and no file is at its path (a
 *   file with the same bytes counts as written). Otherwise a warning names it and the reference is kept.
 *
 * @throws {GltfError} when a buffer would be written over an input or outside the output's folder.
 * @throws {FileError} when a file cannot be written.
 * @internal
 */
export function writeGltfOutput(path: string, out: GltfWriteResult, read: ReadonlySet<string>): string[] {
  onFile('writeGltfFile', 'create the directory for', path, () =>
    mkdirSync(dirname(path), { recursive: true }),
  );
  const mainId = identityOf(path);
  if (mainId !== undefined && read.has(mainId))
    throw new GltfError(
      `${path} is a file this task read; it is not written over`,
      { file: path },
      'gltf-write',
    );
  if (out.glb !== undefined) {
    writeFileAtomic(path, out.glb);
    return [];
  }
  const notes: string[] = [];
  const dir = dirname(path);
  const realDir = realpathSync(dir);
  const buffers = new Set(
    (Array.isArray(out.json?.buffers) ? out.json.buffers : []).flatMap((b) =>
      typeof b?.uri === 'string' ? [b.uri] : [],
    ),
  );
  const group: GroupFile[] = [];
  for (const [uri, bytes] of Object.entries(out.resources ?? {})) {
    const buffer = buffers.has(uri);
    const named = buffer ? bufferName(uri) : resourceName(uri, true);
    const refuse = (reason: string) => {
      if (buffer)
        throw new GltfError(`buffer '${uri}' is not written: ${reason}`, { file: path }, 'gltf-write');
      notes.push(`image '${uri}' is not written: ${reason}; the reference is kept as it is`);
    };
    if ('reason' in named) {
      refuse(named.reason);
      continue;
    }
    const target = join(dir, named.name);
    if (resolve(target) === resolve(path)) {
      refuse('it would overwrite the .gltf itself');
      continue;
    }
    // the folder it goes to, by real path, before and after it is made: never through a link out
    if (!insideOrAt(realTarget(dirname(target)), realDir)) {
      refuse("it would be written outside the output's folder through a symbolic link");
      continue;
    }
    try {
      mkdirSync(dirname(target), { recursive: true });
    } catch (error) {
      if (buffer) throw fileError(error, 'writeGltfFile', 'create the directory for', target);
      refuse(`its folder cannot be made (${systemReason(error)})`);
      continue;
    }
    if (!insideOrAt(realpathSync(dirname(target)), realDir)) {
      refuse("it would be written outside the output's folder through a symbolic link");
      continue;
    }
    const id = identityOf(target);
    if (id !== undefined && read.has(id)) {
      refuse(`${target} is a file this task read (the input or one of its resources)`);
      continue;
    }
    group.push({ path: target, content: bytes, noClobber: !buffer });
  }
  group.push({ path, content: `${JSON.stringify(out.json, null, 2)}\n` });
  const report = writeFilesAtomic(group);
  for (const kept of report.kept)
    notes.push(`image ${kept} is not written: another file is in the way; the reference is kept as it is`);
  if (report.replaced.length > 0)
    throw new GltfError(
      `${report.replaced.join(', ')} changed while ${path} was written (another writer of the same files); ${path} may not match ${report.replaced.length === 1 ? 'it' : 'them'}`,
      { file: path },
      'gltf-write',
    );
  return notes;
}

/** A buffer URI the writer made (`<name>.bin`, `<name>_1.bin`): one plain name in the output's folder. */
function bufferName(uri: string): { name: string } | { reason: string } {
  const named = resourceName(uri);
  if ('reason' in named) return named;
  return named.name.includes('/') ? { reason: 'it is not a plain file name' } : named;
}

function insideOrAt(path: string, folder: string): boolean {
  return path === folder || inside(path, folder);
}

function identityOf(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : identity(stats);
}
