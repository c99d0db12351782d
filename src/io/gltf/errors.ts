import { RotsigError } from '../../errors.js';

/** Where in a glTF file a problem sits; every field is optional. */
export interface GltfLocation {
  /** The file (or resource) name, when the reader was told it. */
  file?: string;
  /** Index of the animation in the file. */
  animation?: number;
  /** Index of the channel in its animation. */
  channel?: number;
  /** Index of the key (the input accessor's element) in its channel's sampler. */
  key?: number;
  /** Where in the glTF JSON, as a path such as `animations[3].channels` (structural errors). */
  jsonPath?: string;
}

/**
 * A glTF or GLB input that cannot be read or a document that cannot be written as asked: a truncated
 * GLB, a wrong magic, a missing `.bin`, an accessor out of its buffer view, key times that do not
 * increase, NaN outputs, a channel that points at a missing node. `code` is `'gltf'` for malformed
 * input and `'gltf-<what>'` for the specific cases (`'gltf-glb'`, `'gltf-resource'`, `'gltf-accessor'`,
 * `'gltf-times'`, `'gltf-values'`, `'gltf-target'`, `'gltf-write'`); the location fields say where.
 */
export class GltfError extends RotsigError {
  readonly file?: string;
  readonly animation?: number;
  readonly channel?: number;
  readonly key?: number;
  readonly jsonPath?: string;
  /** The message without the file name, for callers that show the file already. */
  readonly reason: string;
  constructor(message: string, location: GltfLocation = {}, code = 'gltf') {
    super(code, `${prefix(location)}${message}`);
    this.reason = `${prefix({ ...location, file: undefined })}${message}`;
    if (location.jsonPath !== undefined) this.jsonPath = location.jsonPath;
    if (location.file !== undefined) this.file = location.file;
    if (location.animation !== undefined) this.animation = location.animation;
    if (location.channel !== undefined) this.channel = location.channel;
    if (location.key !== undefined) this.key = location.key;
  }
}

function prefix(l: GltfLocation): string {
  const parts: string[] = [];
  if (l.file !== undefined && l.file !== '') parts.push(l.file);
  if (l.animation !== undefined) parts.push(`animation ${l.animation}`);
  if (l.channel !== undefined) parts.push(`channel ${l.channel}`);
  if (l.key !== undefined) parts.push(`key ${l.key}`);
  return parts.length ? `${parts.join(', ')}: ` : '';
}

/** Kinds of {@link GltfWarning}. */
export type GltfWarningCode =
  | 'matrix'
  | 'unsupported'
  | 'extension'
  | 'resource'
  | 'repaired'
  | 'empty'
  | 'quaternion';

/** Something odd but readable in a glTF file; the reader keeps going and reports it. */
export interface GltfWarning extends GltfLocation {
  code: GltfWarningCode;
  message: string;
}
