// The file extensions the CLI takes clips from, without the dot: the default glob of directory inputs.
// Kept apart from the readers (clip-formats.ts) so the CLI's main thread can list inputs without loading them.

/** Extensions of clip files the CLI reads and writes. */
export const CLIP_EXTENSIONS: readonly string[] = ['bvh', 'gltf', 'glb', 'npz'];

/** The default glob of directory inputs: every clip file at any depth (`**\/*.{bvh,gltf,glb,npz}`). */
export const DEFAULT_CLIP_GLOB = `**/*.{${CLIP_EXTENSIONS.join(',')}}`;
