// Clip file writers by format name: how a uniform clip becomes the bytes of a file. Browser-safe (the
// readers, which open files, are in src/node/clip-formats.ts and use these writers).
import { type AmassSource, clipToAmass } from '../io/amass/amass.js';
import { writeBvhChunks } from '../io/bvh/write.js';
import { writeNpz } from '../io/npz.js';
import type { Clip } from '../series/clip.js';

/** What a step emits as file content: text, bytes, or chunks of either written in order. */
export type EmittedContent = string | Uint8Array | Iterable<string | Uint8Array>;

/** Options a writer may use. */
export interface WriteClipOptions {
  /** BVH: decimal places. */
  precision?: number;
}

/** One clip file format's writer. */
export interface ClipWriter {
  name: string;
  /** Lower-case extensions with the dot. */
  extensions: readonly string[];
  write(clip: Clip, options: WriteClipOptions): EmittedContent;
}

/** BVH, in chunks, each written to the file as it comes: memory for one chunk whatever the clip's length. */
export const BVH_WRITER: ClipWriter = {
  name: 'BVH',
  extensions: ['.bvh'],
  write: (clip, options) =>
    writeBvhChunks(clip, options.precision === undefined ? {} : { precision: options.precision }),
};

/** AMASS .npz, with the input's compression when the clip came from one (deflate otherwise). */
export const NPZ_WRITER: ClipWriter = {
  name: 'AMASS .npz',
  extensions: ['.npz'],
  write(clip) {
    const source = clip.source?.format === 'amass' ? (clip.source as AmassSource) : undefined;
    return writeNpz(clipToAmass(clip), { compression: source?.compression ?? 'deflate' });
  },
};

/** Every clip writer, BVH first. */
export const CLIP_WRITERS: readonly ClipWriter[] = [BVH_WRITER, NPZ_WRITER];
