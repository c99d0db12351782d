// Clip file formats of the CLI, by extension: how a file becomes a clip and a clip becomes a file. One row
// per format, so adding a format is adding a row (the extensions themselves are in extensions.ts, which the
// main thread reads without loading any of this).
import { extname } from 'node:path';
import { type AmassSource, amassToClipWithReport } from '../io/amass/amass.js';
import { parseNpy } from '../io/npy.js';
import { listNpz, type NpzArrays, parseNpz } from '../io/npz.js';
import { BVH_WRITER, type ClipWriter, NPZ_WRITER } from '../pipeline/clip-writers.js';
import type { Clip, PositionMode } from '../series/clip.js';
import { BVH_TO_GLTF_SCALE } from './bvh-scale.js';
import { readInputFile } from './input.js';
import { readBvhFile } from './read.js';

/** A warning of a reader, as plain data. */
export interface FormatWarning {
  message: string;
  code?: string;
  line?: number;
  column?: number;
}

/** Options a reader may use. */
export interface ReadClipOptions {
  /** BVH: how position channels combine with OFFSETs. */
  positionMode?: PositionMode;
  /** AMASS: path of the joint template `J` (.npz with a `J` member, .npy, or JSON `{ "J": [[x, y, z], ...] }` or a bare array). */
  template?: string;
  /**
   * Repair damaged data, with warnings: BVH non-finite values interpolated and a cut-off last row dropped;
   * AMASS non-finite `poses`/`trans` values interpolated along their column.
   */
  repair?: boolean;
}

export type { WriteClipOptions } from '../pipeline/clip-writers.js';

/** One clip file format: its writer (src/pipeline/clip-writers.ts) and a reader of files. */
export interface ClipFormat extends ClipWriter {
  read(path: string, options: ReadClipOptions): { clip: Clip; warnings: FormatWarning[] };
}

const bvh: ClipFormat = {
  ...BVH_WRITER,
  read(path, options) {
    // in chunks: a file of any size, never one string
    const parsed = readBvhFile(path, {
      ...(options.positionMode ? { positionMode: options.positionMode } : {}),
      ...(options.repair ? { repair: true } : {}),
    });
    return {
      clip: parsed.clip,
      warnings: parsed.warnings.map((w) => ({
        message: w.message,
        code: w.code,
        ...(w.line ? { line: w.line } : {}),
        ...(w.column ? { column: w.column } : {}),
      })),
    };
  },
};

const npz: ClipFormat = {
  ...NPZ_WRITER,
  read(path, options) {
    // a regular file up to 1 GiB or a pipe, opened non-blocking (a device is refused, never read)
    const bytes = readInputFile('read', path);
    const template = options.template === undefined ? null : readTemplate(options.template);
    const { arrays, renamed } = safeMemberNames(parseNpz(bytes));
    const { clip, warnings } = amassToClipWithReport(arrays, {
      template,
      ...(options.repair ? { repair: true } : {}),
    });
    (clip.source as AmassSource).compression = listNpz(bytes).some((m) => m.compression === 'deflate')
      ? 'deflate'
      : 'stored';
    return {
      clip,
      warnings: [...renamed, ...warnings.map((w) => ({ message: w.message, code: w.code }))],
    };
  },
};

/**
 * A member name of an untrusted archive as a plain name, safe in any name written from it (the members of
 * a written `.npz`, a file per member): its last path segment (after `/` or `\\`), without leading dots,
 * control characters replaced by `_`; `member` when nothing is left.
 *
 * @example
 * safeMemberName('../../evil'); // 'evil'
 */
export function safeMemberName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const plain = last.replace(/^\.+/, '').replace(/[\u0000-\u001f\u007f]/g, '_');
  return plain === '' ? 'member' : plain;
}

/**
 * The arrays of an archive under {@link safeMemberName}s (a name taken already gets `_1`, `_2`, ...),
 * with a warning (code `'npz-member-name'`) for each member renamed.
 */
function safeMemberNames(arrays: NpzArrays): { arrays: NpzArrays; renamed: FormatWarning[] } {
  const out: NpzArrays = {};
  const renamed: FormatWarning[] = [];
  const names = Object.keys(arrays);
  const taken = new Set(names.filter((n) => safeMemberName(n) === n));
  for (const name of names) {
    let safe = safeMemberName(name);
    if (safe !== name) {
      const stem = safe;
      for (let i = 1; taken.has(safe); i++) safe = `${stem}_${i}`;
      taken.add(safe);
      renamed.push({
        code: 'npz-member-name',
        message: `member '${name}.npy' is named like a path; it is kept as '${safe}.npy'`,
      });
    }
    out[safe] = arrays[name];
  }
  return { arrays: out, renamed };
}

/** A joint template `J` from a file: `.npz` (member `J`), `.npy`, or JSON (`{ "J": ... }` or an array). */
function readTemplate(path: string) {
  const ext = extname(path).toLowerCase();
  if (ext === '.npy') return parseNpy(readInputFile('template', path));
  if (ext === '.npz') {
    const arrays = parseNpz(readInputFile('template', path));
    if (arrays.J === undefined) throw new Error(`template ${path} has no member 'J'`);
    return arrays.J;
  }
  const json = JSON.parse(new TextDecoder().decode(readInputFile('template', path))) as unknown;
  const J = Array.isArray(json) ? json : (json as { J?: unknown })?.J;
  if (!Array.isArray(J))
    throw new Error(`template ${path} must be a JSON array or an object with an array 'J'`);
  return J as number[][];
}

/** Every clip format, BVH first. */
export const CLIP_FORMATS: readonly ClipFormat[] = [bvh, npz];

/**
 * The format of a path by its extension (case-insensitive); BVH for an unknown extension, the format the
 * CLI has always assumed.
 *
 * @example
 * clipFormatOf('take.NPZ').name; // 'AMASS .npz'
 */
export function clipFormatOf(path: string): ClipFormat {
  const ext = extname(path).toLowerCase();
  return CLIP_FORMATS.find((f) => f.extensions.includes(ext)) ?? bvh;
}

/**
 * Factor from a clip file's lengths to glTF metres when it becomes glTF: `scale` when given, else
 * {@link BVH_TO_GLTF_SCALE} (0.01) for BVH, whose exporters mostly write centimetres, and 1 for AMASS
 * `.npz`, which is in metres.
 *
 * @example
 * gltfScaleOf('walk.bvh', undefined); // 0.01
 * gltfScaleOf('take.npz', undefined); // 1
 */
export function gltfScaleOf(path: string, scale: number | undefined): number {
  if (scale !== undefined) return scale;
  return clipFormatOf(path) === bvh ? BVH_TO_GLTF_SCALE : 1;
}
