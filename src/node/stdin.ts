// Standard input as an input file: read whole, its format told from its first bytes, spooled to a
// private temporary directory so every reader (which reads by path and extension) takes it as a file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileError } from '../errors.js';

/** A spooled standard input: the file to read, and how to remove it. */
export interface SpooledInput {
  /** Path of the spooled copy, named `stdin.<ext>` after the format found. */
  path: string;
  /** The extension chosen: `.bvh`, `.npz`, `.glb` or `.gltf`. */
  extension: string;
  /** Removes the copy and its directory (idempotent). */
  remove(): void;
}

/**
 * The format of input bytes from their start: `PK` is a zip (`.npz`), `glTF` a GLB, `HIERARCHY` (after
 * a byte-order mark and white space) a BVH file, `{` a glTF JSON document; anything else is null.
 *
 * @example
 * sniffClipFormat(new TextEncoder().encode('HIERARCHY\nROOT Hips')); // '.bvh'
 */
export function sniffClipFormat(bytes: Uint8Array): string | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) return '.npz';
  if (bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46)
    return '.glb';
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (
    i < bytes.length &&
    (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)
  )
    i++;
  const head = new TextDecoder().decode(bytes.subarray(i, i + 9));
  if (head.toUpperCase() === 'HIERARCHY') return '.bvh';
  if (head.startsWith('{')) return '.gltf';
  return null;
}

/**
 * Reads standard input to its end and writes it to `stdin.<ext>` in a new private temporary directory,
 * the extension told by {@link sniffClipFormat}. A `.gltf` on standard input cannot name files beside it.
 *
 * @throws {FileError} when standard input cannot be read, is empty, or holds no format rotsig reads.
 * @example
 * const input = spoolStdin(); // cat walk.bvh | rotsig info -
 * try { readBvhFile(input.path); } finally { input.remove(); }
 */
export function spoolStdin(read: () => Uint8Array = () => readFileSync(0)): SpooledInput {
  let bytes: Uint8Array;
  try {
    bytes = read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    throw new FileError(
      code ?? 'EIO',
      '-',
      `cannot read standard input: ${(error as Error)?.message ?? String(error)}`,
    );
  }
  if (bytes.length === 0) throw new FileError('empty', '-', 'standard input is empty');
  const extension = sniffClipFormat(bytes);
  if (extension === null)
    throw new FileError(
      'unknown-format',
      '-',
      'standard input is not a BVH, glTF/GLB or .npz file (told from its first bytes: HIERARCHY, glTF, {, or PK)',
    );
  const dir = mkdtempSync(join(tmpdir(), 'rotsig-stdin-'));
  const path = join(dir, `stdin${extension}`);
  writeFileSync(path, bytes, { mode: 0o600 });
  return { path, extension, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
