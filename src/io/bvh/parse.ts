/**
 * BVH reader: text, bytes or a stream of byte chunks in, {@link Clip} out. The hierarchy is read token by
 * token from text; the frame data is scanned as UTF-8 bytes, one stream of numbers parsed by hand (see
 * `scan.ts`), and converted to quaternions and translations in chunks of 64 KiB of numbers, so a 100,000-frame
 * file needs the output arrays and little else, and a file never has to be one string.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import { standardRate } from '../../ops/analysis/rate.js';
import {
  BOOLEAN_OPTION,
  customRule,
  FUNCTION_OPTION,
  frozenDefaults,
  integerIn,
  type OptionSpec,
  oneOf,
  resolveOptions,
} from '../../options.js';
import type { Clip, EndSite, PositionMode } from '../../series/clip.js';
import { BvhParseError, type BvhWarning } from './errors.js';
import {
  type Hierarchy,
  type JointBuild,
  type MotionHeader,
  NEED_MORE,
  parseHierarchy,
  parseMotionHeader,
  Reader,
} from './header.js';
import {
  buildClip,
  type ChannelInfo,
  checkAddedTranslations,
  checkRootPositions,
  FrameConverter,
  repairValues,
} from './motion.js';
import { quoteToken } from './quote.js';
import { FrameScanner } from './scan.js';

/** Options of {@link parseBvh}. */
export interface ParseBvhOptions {
  /**
   * How position channels combine with a joint's OFFSET. `'replace'` (default): the channel value is that
   * component of the local translation (Blender, BVHView, files with 6 channels on every joint). `'add'`:
   * local translation = OFFSET + channel value (some CMU conversions).
   */
  positionMode?: PositionMode;
  /** Turn every warning (frame-count mismatch, repaired values, ...) into a {@link BvhParseError}. */
  strict?: boolean;
  /**
   * Repair instead of throwing, with a warning for each: NaN/Inf values in the frame data are interpolated
   * linearly along their channel (holding the nearest finite value at the ends; `'repaired'`), and an
   * incomplete last row (a file cut off mid-row) is dropped, keeping the complete frames (`'truncated'`).
   */
  repair?: boolean;
  /** Called with each warning as it is found (in addition to the list {@link parseBvhWithReport} returns). */
  onWarning?: (warning: BvhWarning) => void;
  /**
   * Most float64 values the clip may hold, `frames x joints x 7` (a quaternion and a translation per joint
   * and frame), checked at the `Frames:` line before anything is allocated, so a small file cannot demand
   * gigabytes. Default 2^28 (2 GiB of float64); raise it for larger clips.
   */
  maxValues?: number;
}

/**
 * Defaults of {@link ParseBvhOptions} and {@link ParseBvhStreamOptions} (frozen; `onWarning` and
 * `byteLength` have none).
 */
export const PARSE_BVH_DEFAULTS: Readonly<Required<Omit<ParseBvhOptions, 'onWarning'>>> = frozenDefaults({
  positionMode: 'replace',
  strict: false,
  repair: false,
  maxValues: 2 ** 28,
});

/** The rules of {@link ParseBvhStreamOptions} (`byteLength` is accepted, and unused, by every reader). */
const PARSE_BVH_SPEC: OptionSpec = {
  positionMode: oneOf(['replace', 'add']),
  strict: BOOLEAN_OPTION,
  repair: BOOLEAN_OPTION,
  maxValues: customRule('a number >= 0', (v) => typeof v === 'number' && v >= 0),
  onWarning: FUNCTION_OPTION,
  byteLength: integerIn(0),
};

/** What {@link parseBvhWithReport} returns: the clip and the warnings met while reading it. */
export interface BvhParseResult {
  clip: Clip;
  warnings: BvhWarning[];
}

/** Frames x joints a file without channel data may declare (its clip is allocated from `Frames:` alone). */
const MAX_STATIC_FRAMES = 1_000_000;

/** The checked options of one read and the warnings it collects. */
interface ReadSettings {
  positionMode: PositionMode;
  strict: boolean;
  repair: boolean;
  maxValues: number;
  warnings: BvhWarning[];
  warn: (w: BvhWarning) => void;
  /** A warning that is only information (never an error in strict mode): how the file was read. */
  note: (w: BvhWarning) => void;
}

function readSettings(options: ParseBvhOptions, where: string): ReadSettings {
  const o = resolveOptions(where, options as ParseBvhStreamOptions, PARSE_BVH_DEFAULTS, PARSE_BVH_SPEC);
  const { positionMode, strict, repair, maxValues, onWarning } = o;
  const warnings: BvhWarning[] = [];
  const warn = (w: BvhWarning): void => {
    if (strict)
      throw new BvhParseError(`${w.message} (strict mode)`, w.line ?? 1, w.column ?? 1, `bvh-${w.code}`);
    warnings.push(w);
    onWarning?.(w);
  };
  const note = (w: BvhWarning): void => {
    warnings.push(w);
    onWarning?.(w);
  };
  return { positionMode, strict, repair, maxValues, warnings, warn, note };
}

/** A read past the MOTION header: the hierarchy, and the scanner that feeds the frame converter. */
interface MotionBody {
  joints: JointBuild[];
  endSites: EndSite[];
  header: MotionHeader;
  channelInfo: ChannelInfo[];
  names: string[];
  width: number;
  converter: FrameConverter;
  scanner: FrameScanner;
}

/**
 * Sets up the frame data reading after the MOTION header, which `r` has just read. `remaining` is the
 * size of the data after it (UTF-16 units or bytes: at least one per character), Infinity when unknown.
 */
function startMotion(
  r: Reader,
  hierarchy: Hierarchy,
  header: MotionHeader,
  s: ReadSettings,
  remaining: number,
): MotionBody {
  const { joints, endSites } = hierarchy;
  const channelInfo: ChannelInfo[] = [];
  for (let j = 0; j < joints.length; j++) {
    for (const name of joints[j].channels) channelInfo.push({ joint: j, name });
  }
  const width = channelInfo.length;
  const names = joints.map((j) => j.name);
  if (width === 0 && header.declaredFrames * Math.max(1, joints.length) > MAX_STATIC_FRAMES) {
    throw new BvhParseError(
      `'Frames:' declares ${header.declaredFrames} frames of ${joints.length} joints for a file without channel data; at most ${MAX_STATIC_FRAMES} frames x joints are read`,
      header.framesLine,
      1,
    );
  }
  // every number takes at least two characters with its separator, which bounds the row count
  const boundRows = width > 0 ? Math.floor(remaining / (2 * width)) + 1 : header.declaredFrames;
  // the data cannot hold more rows than boundRows, so this bounds what the clip allocates
  const values = Math.min(header.declaredFrames, boundRows) * joints.length * 7;
  if (values > s.maxValues) {
    throw new BvhParseError(
      `'Frames:' declares ${header.declaredFrames} frames of ${joints.length} joints, up to ${values} values; at most maxValues = ${s.maxValues} are read`,
      header.framesLine,
      1,
      'bvh-too-large',
    );
  }
  const converter = new FrameConverter(
    joints,
    width,
    Math.min(header.declaredFrames, boundRows),
    s.positionMode,
  );
  const scanner = new FrameScanner({
    width,
    declared: header.declaredFrames,
    boundRows,
    repair: s.repair,
    channels: channelInfo,
    names,
    sink: converter,
    line: r.line,
    column: r.column(),
  });
  return { joints, endSites, header, channelInfo, names, width, converter, scanner };
}

/** Finishes the frame data and builds the clip. */
function finishMotion(body: MotionBody, s: ReadSettings): BvhParseResult {
  const { joints, endSites, header, channelInfo, names, width, converter, scanner } = body;
  const data = scanner.finish();
  const frames = data.rows;
  if (data.dropped !== null) {
    const d = data.dropped;
    s.warn({
      code: 'truncated',
      message: `the last row (frame ${d.frame}) has ${d.found} of ${width} numbers, as if the file was cut off; dropped it and kept ${frames} complete frames`,
      line: d.line,
      column: 1,
    });
  }
  if (width > 0 && frames !== header.declaredFrames) {
    s.warn({
      code: 'frame-count',
      message: `'Frames:' declares ${header.declaredFrames} frames but the data has ${frames} rows; using ${frames}`,
      line: header.framesLine,
      column: 1,
    });
  }
  if (data.bad.length > 0) {
    repairValues(data, width, channelInfo, names);
    const first = data.bad[0];
    const ch = channelInfo[first % width];
    s.warn({
      code: 'repaired',
      message: `repaired ${data.bad.length} non-finite value(s) by interpolation along their channel; the first at frame ${Math.floor(first / width)}, channel ${ch.name} of joint ${quoteToken(names[ch.joint])}`,
    });
  }
  if (s.repair || width === 0) converter.add(data.values, frames);
  converter.finish();
  // OFFSET + channel can overflow to infinity in 'add' mode even though both were finite in the text
  if (s.positionMode === 'add') checkAddedTranslations(converter.translations, joints, header.framesLine);

  const standard = standardRate(header.frameTime, header.frameTimeText);
  if (standard !== null && 1 / standard !== header.frameTime) {
    // one rate everywhere: the clip's rate and frame time are the standard rate the digits stand for
    s.note({
      code: 'frame-rate',
      message: `Frame Time ${header.frameTimeText} is read as ${standard} Hz (frame time 1/${standard} s; as written it is ${Number((1 / header.frameTime).toFixed(5))} Hz); the writer keeps the text`,
      line: header.framesLine + 1,
      column: 1,
    });
    header.frameTime = 1 / standard;
    header.rate = standard;
  }
  const clip = buildClip(joints, endSites, header, converter, s.positionMode);
  checkRootPositions(clip, joints, converter, s.positionMode, s.warn);
  return { clip, warnings: s.warnings };
}

/** UTF-16 units of text encoded per step when a string's frame data is scanned as UTF-8. */
const ENCODE_UNITS = 1 << 16;
const ENCODER = new TextEncoder();

/** Hands `text` from `from` to the scanner as UTF-8, a piece at a time (never a surrogate pair split). */
function scanText(scanner: FrameScanner, text: string, from: number): void {
  const buffer = new Uint8Array(3 * ENCODE_UNITS);
  for (let at = from; at < text.length; ) {
    let end = Math.min(text.length, at + ENCODE_UNITS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last < 0xdc00) end--;
    const { written } = ENCODER.encodeInto(text.slice(at, end), buffer);
    scanner.push(buffer.subarray(0, written));
    at = end;
  }
}

/**
 * Reads a BVH motion-capture file into a {@link Clip}, returning the warnings too.
 *
 * Same as {@link parseBvh}; use this form to show the user what was odd in the file (more data rows than
 * `Frames:` declares, repaired values, a root whose position channels look additive).
 *
 * @param options - Defaults in {@link PARSE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {BvhParseError} on malformed text, with line and column; on any warning when `strict` is set.
 * @example
 * const { clip, warnings } = parseBvhWithReport(text);
 * for (const w of warnings) console.warn(`${w.line}: ${w.message}`);
 */
export function parseBvhWithReport(text: string, options: ParseBvhOptions = {}): BvhParseResult {
  if (typeof text !== 'string') throw new OptionError('parseBvh: text must be a string');
  const s = readSettings(options, 'parseBvh');
  const r = new Reader(text);
  const hierarchy = parseHierarchy(r, s.warn);
  const header = parseMotionHeader(r);
  const body = startMotion(r, hierarchy, header, s, text.length - r.pos);
  scanText(body.scanner, text, r.pos);
  return finishMotion(body, s);
}

/** Options of {@link BvhChunkParser}, {@link parseBvhBytes} and {@link parseBvhStream}. */
export interface ParseBvhStreamOptions extends ParseBvhOptions {
  /**
   * Size of the whole file in bytes, when known (a file's size, a `Content-Length`): the clip's arrays
   * are then allocated once from `Frames:` however large it claims to be, bounded by what the bytes can
   * hold. Without it they are allocated from `Frames:` up to 65,536 frames at first and grow as rows come.
   */
  byteLength?: number;
}

/** The hierarchy and MOTION header are read from a prefix of this many bytes first, then twice as many, ... */
const HEADER_FIRST_BYTES = 1 << 16;
/** Longest hierarchy and MOTION header read (far beyond real skeletons; a string this long is still legal). */
const MAX_HEADER_BYTES = 1 << 28;
/** Frames allocated at first when `Frames:` cannot be checked against the size of the file. */
const UNSIZED_FIRST_ROWS = 1 << 16;
const HEAD_DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

/** Bytes of `text.slice(from, end)` in UTF-8 (text decoded from UTF-8: surrogates come in pairs). */
function utf8Length(text: string, end: number, from = 0): number {
  let bytes = 0;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    // a surrogate pair is one code point of 4 bytes: 2 for each half
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xe000 ? 2 : 3;
  }
  return bytes;
}

/** Length of the longest prefix of `b` that does not end inside a UTF-8 sequence. */
function completeUtf8(b: Uint8Array, length: number): number {
  for (let k = 1; k <= 3 && k <= length; k++) {
    const c = b[length - k];
    if (c < 0x80) return length;
    if (c >= 0xc0) {
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return need > k ? length - k : length;
    }
  }
  return length;
}

/**
 * Reads a BVH file from UTF-8 bytes that arrive in chunks of any size: the same clip, warnings and errors
 * (with line and column) as {@link parseBvhWithReport} on the decoded text, without the text ever
 * existing as one string, so a file's size is bounded by the memory its numbers take, not by the longest
 * string the engine allows. Only the hierarchy and MOTION header are decoded to text; the frame data is
 * scanned as bytes and converted 64 KiB of numbers at a time, and a number, CRLF or multi-byte character cut by
 * a chunk boundary waits for the next chunk. Invalid UTF-8 reads as U+FFFD, a leading byte-order mark as
 * whitespace, as `TextDecoder` and Node's `'utf8'` decoding give them.
 *
 * Memory: the clip's arrays (allocated once when {@link ParseBvhStreamOptions.byteLength} is given and
 * `Frames:` is right), 64 KiB of numbers, and the header's text.
 *
 * @throws {BvhParseError} from {@link push} or {@link finish} as soon as the text read so far is malformed.
 * @throws {OptionError} on a chunk that is not a `Uint8Array`, a push after `finish`, or a bad option.
 * @example
 * const file = new File([text], 'walk.bvh'); // or from an <input type="file">
 * const parser = new BvhChunkParser({ byteLength: file.size });
 * for await (const chunk of file.stream()) parser.push(chunk);
 * const { clip, warnings } = parser.finish();
 */
export class BvhChunkParser {
  private readonly settings: ReadSettings;
  private readonly byteLength: number;
  /** Bytes held until the hierarchy and MOTION header are read. */
  private head: Uint8Array = new Uint8Array(0);
  private headLength = 0;
  /** Bytes of the next attempt at the header. */
  private tryLength = HEADER_FIRST_BYTES;
  private body: MotionBody | undefined;
  private result: BvhParseResult | undefined;

  constructor(options: ParseBvhStreamOptions = {}) {
    this.settings = readSettings(options, 'BvhChunkParser');
    const size = options.byteLength;
    this.byteLength = size ?? Number.POSITIVE_INFINITY;
  }

  /** Reads the next chunk. The parser keeps no reference to it: its buffer may be reused. */
  push(chunk: Uint8Array): void {
    if (!(chunk instanceof Uint8Array))
      throw new OptionError('BvhChunkParser.push: chunk must be a Uint8Array');
    if (this.result !== undefined) throw new OptionError('BvhChunkParser.push: called after finish');
    if (this.body !== undefined) {
      this.body.scanner.push(chunk);
      return;
    }
    if (this.headLength === 0 && chunk.length >= this.tryLength) {
      // a large first chunk (a whole file): read the header from it directly
      while (this.body === undefined && chunk.length >= this.tryLength)
        this.#readHeader(chunk, chunk.length, false);
      if (this.body !== undefined) return;
    }
    if (this.headLength + chunk.length > this.head.length) {
      const grown = new Uint8Array(Math.max(2 * this.head.length, this.headLength + chunk.length, 1024));
      grown.set(this.head.subarray(0, this.headLength));
      this.head = grown;
    }
    this.head.set(chunk, this.headLength);
    this.headLength += chunk.length;
    while (this.body === undefined && this.headLength >= this.tryLength)
      this.#readHeader(this.head, this.headLength, false);
    if (this.body !== undefined) this.head = new Uint8Array(0);
  }

  /**
   * Reads the end of the data and returns the clip and warnings (the same object on a second call).
   *
   * @throws {BvhParseError} when the data is malformed or ends early.
   */
  finish(): BvhParseResult {
    if (this.result !== undefined) return this.result;
    if (this.body === undefined) {
      this.#readHeader(this.head, this.headLength, true);
      this.head = new Uint8Array(0);
    }
    this.result = finishMotion(this.body as MotionBody, this.settings);
    return this.result;
  }

  /**
   * Reads the hierarchy and MOTION header from the first `min(tryLength, length)` bytes of `b` (all of
   * them when `final`); on success starts the frame data with the rest, otherwise doubles `tryLength`.
   */
  #readHeader(b: Uint8Array, length: number, final: boolean): void {
    const limit = final ? length : Math.min(this.tryLength, length);
    const end = final ? limit : completeUtf8(b, limit);
    const text = HEAD_DECODER.decode(b.subarray(0, end));
    const r = new Reader(text, final);
    const s = this.settings;
    // warnings of an attempt that runs out of text would come again in the next one: held until it succeeds
    const pending: BvhWarning[] = [];
    let hierarchy: Hierarchy;
    let header: MotionHeader;
    try {
      hierarchy = parseHierarchy(r, (w) => (s.strict ? s.warn(w) : pending.push(w)));
      header = parseMotionHeader(r);
    } catch (error) {
      if (error !== NEED_MORE) throw error;
      if (this.tryLength >= MAX_HEADER_BYTES) {
        throw new BvhParseError(
          `the hierarchy and MOTION header go on past ${MAX_HEADER_BYTES} bytes`,
          r.line,
          r.column(),
        );
      }
      this.tryLength *= 2;
      return;
    }
    for (const w of pending) s.warn(w);
    // where the header's text ends in the bytes; a U+FFFD may stand for any invalid bytes, so after one the
    // rest of the decoded text is encoded again instead (the scanner reads U+FFFD as the same non-number)
    const exact = text.lastIndexOf('\ufffd', r.pos) < 0;
    const headerBytes = exact ? utf8Length(text, r.pos) : end - utf8Length(text, text.length, r.pos);
    const body = startMotion(r, hierarchy, header, s, Math.max(0, this.byteLength - headerBytes));
    if (!Number.isFinite(this.byteLength)) body.converter.firstRows = UNSIZED_FIRST_ROWS;
    if (exact) body.scanner.push(b.subarray(headerBytes, length));
    else {
      body.scanner.push(ENCODER.encode(text.slice(r.pos)));
      body.scanner.push(b.subarray(end, length));
    }
    this.body = body;
  }
}

/**
 * Reads a BVH file from its UTF-8 bytes: {@link parseBvhWithReport} without decoding them to one string
 * (see {@link BvhChunkParser}), so files larger than the engine's longest string can be read.
 *
 * @param options - Defaults in {@link PARSE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {BvhParseError} on malformed data, with line and column; on any warning when `strict` is set.
 * @example
 * const url = 'https://example.com/walk.bvh';
 * const { clip } = parseBvhBytes(new Uint8Array(await (await fetch(url)).arrayBuffer()));
 */
export function parseBvhBytes(bytes: Uint8Array, options: ParseBvhOptions = {}): BvhParseResult {
  resolveOptions('parseBvhBytes', options, PARSE_BVH_DEFAULTS, PARSE_BVH_SPEC);
  if (!(bytes instanceof Uint8Array)) throw new OptionError('parseBvhBytes: bytes must be a Uint8Array');
  const parser = new BvhChunkParser({ ...options, byteLength: bytes.length });
  parser.push(bytes);
  return parser.finish();
}

/** The part of a web `ReadableStream` that {@link parseBvhStream} uses. */
export interface ByteStream {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/**
 * Reads a BVH file from a web `ReadableStream` of bytes (`fetch(...).body`, `Blob.stream()`) or any async
 * iterable of `Uint8Array` chunks (a Node `fs.createReadStream`), chunk by chunk as they arrive (see
 * {@link BvhChunkParser}). On a parse error the stream is cancelled.
 *
 * @param options - Defaults in {@link PARSE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {BvhParseError} on malformed data (the promise rejects), with line and column.
 * @example
 * const response = await fetch('walk.bvh');
 * const { clip } = await parseBvhStream(response.body!, {
 *   byteLength: Number(response.headers.get('content-length')) || undefined,
 * });
 */
export async function parseBvhStream(
  source: ByteStream | AsyncIterable<Uint8Array>,
  options: ParseBvhStreamOptions = {},
): Promise<BvhParseResult> {
  resolveOptions('parseBvhStream', options, PARSE_BVH_DEFAULTS, PARSE_BVH_SPEC);
  const parser = new BvhChunkParser(options);
  if (
    source !== null &&
    typeof source === 'object' &&
    typeof (source as ByteStream).getReader === 'function'
  ) {
    const reader = (source as ByteStream).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value as Uint8Array);
      }
    } catch (error) {
      await reader.cancel(error).catch(() => undefined);
      throw error;
    } finally {
      reader.releaseLock();
    }
    return parser.finish();
  }
  if (source === null || typeof source !== 'object' || !(Symbol.asyncIterator in source)) {
    throw new OptionError(
      'parseBvhStream: source must be a ReadableStream or an async iterable of Uint8Array',
    );
  }
  for await (const chunk of source) parser.push(chunk);
  return parser.finish();
}

/**
 * Reads a BVH motion-capture file into a {@link Clip}.
 *
 * Conventions: each joint's rotation channels, in the order listed, form an intrinsic Euler sequence
 * (`Zrotation Xrotation Yrotation` = `'ZXY'` = Rz·Rx·Ry), angles in degrees in the file and quaternions
 * (x, y, z, w) in the clip; a joint with fewer than three rotation channels gets the missing axes appended
 * at zero angle (its `order` lists them last), and one without any gets identity and order `'ZYX'`.
 * Translations are local, in the file's units; position channels replace the matching OFFSET component
 * (`positionMode: 'replace'`) or add to it (`'add'`). Keywords and channel names are case-insensitive;
 * joint names are the rest of their line. The frame data is one stream of numbers split by the total
 * channel count, so rows may wrap; when the rows differ from `Frames:` the rows present are used and a
 * warning is reported. Frame numbers in messages are 0-based.
 *
 * Method: the de-facto BVH format of Biovision / Meredith & Maddock, "Motion Capture File Formats
 * Explained" (2001), with the quirks of the exporters in use (CMU/cgspeed, MotionBuilder, Axis Neuron,
 * Bandai Namco, iClone).
 *
 * @param options - Defaults in {@link PARSE_BVH_DEFAULTS}; a left-out or `undefined` option takes
 *   its default, an unknown or ill-typed one is an `OptionError`.
 * @throws {BvhParseError} with `line`, `column` and a sentence (`unknown channel 'Wrotation' at 14:22`).
 * @throws {OptionError} on an unknown `positionMode`.
 * @example
 * const clip = parseBvh(text);
 * clip.frames; clip.skeleton.names; clip.rotations.data; // x, y, z, w per joint per frame
 */
export function parseBvh(text: string, options: ParseBvhOptions = {}): Clip {
  return parseBvhWithReport(text, options).clip;
}

export { channelEulerOrder } from './motion.js';
