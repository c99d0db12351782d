/**
 * BVH reader: text, bytes or a stream of byte chunks in, {@link Clip} out. The hierarchy is read token by
 * token from text; the frame data is scanned as UTF-8 bytes, one stream of numbers parsed by hand (see
 * `scan.ts`), and converted to quaternions and translations in chunks of 64 KiB of numbers, so a 100,000-frame
 * file needs the output arrays and little else, and a file never has to be one string.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
import { simdScratch } from '../../numeric/simd.js';
import { standardRate } from '../../ops/analysis/rate.js';
import { checkOptions } from '../../options.js';
import { composeEuler, type EulerOrder, type EulerSpec, eulerSpec } from '../../quat/euler.js';
import {
  ANIMATED_ROTATION,
  ANIMATED_TRANSLATION,
  type BvhSource,
  type ChannelName,
  type Clip,
  type EndSite,
  type PositionMode,
} from '../../series/clip.js';
import { BvhParseError, type BvhWarning } from './errors.js';
import { BVH_MAX_DEPTH } from './layout.js';
import { QUOTE_LIMIT, quoteToken } from './quote.js';
import { recycledOrNew } from './recycle.js';
import { type FrameData, FrameScanner, type ScanChannel } from './scan.js';

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

/** Defaults of {@link ParseBvhOptions}. */
export const PARSE_BVH_DEFAULTS: Required<Omit<ParseBvhOptions, 'onWarning'>> = {
  positionMode: 'replace',
  strict: false,
  repair: false,
  maxValues: 2 ** 28,
};

/** What {@link parseBvhWithReport} returns: the clip and the warnings met while reading it. */
export interface BvhParseResult {
  clip: Clip;
  warnings: BvhWarning[];
}

const DEG = Math.PI / 180;
/** Nesting limit of JOINT blocks, the writer's too (see `BVH_MAX_DEPTH`). */
const MAX_DEPTH = BVH_MAX_DEPTH;
/** Frames x joints a file without channel data may declare (its clip is allocated from `Frames:` alone). */
const MAX_STATIC_FRAMES = 1_000_000;

const CHANNELS_BY_KEY: Record<string, ChannelName> = {
  xposition: 'Xposition',
  yposition: 'Yposition',
  zposition: 'Zposition',
  xrotation: 'Xrotation',
  yrotation: 'Yrotation',
  zrotation: 'Zrotation',
};

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whitespace of BVH text, the same set the frame scanner treats as blanks. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xfeff || c === 0xa0;
}

interface Token {
  text: string;
  line: number;
  column: number;
}

/** Thrown by a {@link Reader} that is not `final` when it reaches the end of its text: more bytes are needed. */
const NEED_MORE = { needMore: true };

/**
 * Mutable reader state over the text of the hierarchy and MOTION header; positions are UTF-16 indices.
 * A reader that is not `final` holds only the first part of the file: wherever what it reads could go on
 * past the end of its text, it throws {@link NEED_MORE}, and the caller reads again with more text.
 */
class Reader {
  pos = 0;
  line = 1;
  lineStart = 0;
  constructor(
    readonly text: string,
    readonly final = true,
  ) {}

  column(at = this.pos): number {
    return at - this.lineStart + 1;
  }

  fail(reason: string, line = this.line, column = this.column()): never {
    throw new BvhParseError(reason, line, column);
  }

  /** Throws {@link NEED_MORE} unless the reader is final. */
  private more(): void {
    if (!this.final) throw NEED_MORE;
  }

  /** The character code at the current position, NaN at the end. */
  peek(): number {
    if (this.pos >= this.text.length) this.more();
    return this.text.charCodeAt(this.pos);
  }

  /** Skips all whitespace, counting lines. */
  skipSpace(): void {
    const text = this.text;
    const n = text.length;
    let i = this.pos;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 13 && i + 1 >= n) this.more();
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        this.line++;
        this.lineStart = i + 1;
      } else if (!isSpace(c)) break;
      i++;
    }
    if (i >= n) this.more();
    this.pos = i;
  }

  /** Skips spaces and tabs but not line breaks. */
  skipInlineSpace(): void {
    const text = this.text;
    let i = this.pos;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13 || !isSpace(c)) break;
      i++;
    }
    if (i >= text.length) this.more();
    this.pos = i;
  }

  /** Next whitespace-delimited word; `{` and `}` are words of their own. Returns null at the end. */
  word(): Token | null {
    this.skipSpace();
    const text = this.text;
    const start = this.pos;
    if (start >= text.length) return null;
    const line = this.line;
    const column = this.column();
    let i = start;
    const first = text.charCodeAt(i);
    if (first === 123 || first === 125) {
      i++;
    } else {
      while (i < text.length) {
        const c = text.charCodeAt(i);
        if (isSpace(c) || c === 123 || c === 125) break;
        i++;
      }
      if (i >= text.length) this.more();
    }
    this.pos = i;
    return { text: text.slice(start, i), line, column };
  }

  /**
   * The rest of the current line up to a `{` (consumed, reported in `brace`) or the line end, trimmed.
   * Used for joint names, which may contain spaces and punctuation.
   */
  restOfLine(): { text: string; brace: boolean } {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let brace = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) break;
      if (c === 123) {
        brace = true;
        break;
      }
      i++;
    }
    if (i >= text.length) this.more();
    const out = text.slice(start, i).trim();
    this.pos = brace ? i + 1 : i;
    return { text: out, brace };
  }

  /** Matches a case-insensitive ASCII word at the current position (no skipping). */
  matchWord(lower: string): boolean {
    const text = this.text;
    if (this.pos + lower.length > text.length) {
      this.more();
      return false;
    }
    for (let k = 0; k < lower.length; k++) {
      if ((text.charCodeAt(this.pos + k) | 0x20) !== lower.charCodeAt(k)) return false;
    }
    this.pos += lower.length;
    return true;
  }
}

function describe(token: Token | null): string {
  return token === null ? 'the end of the file' : `${quoteToken(token.text)}`;
}

/** Reads a decimal number token of the hierarchy or header; `noun` names it in messages ("OFFSET value"). */
function parseDecimal(r: Reader, token: Token | null, noun: string): number {
  const article = /^[aeiouAEIOU]/.test(noun) ? 'an' : 'a';
  if (token === null) r.fail(`expected ${article} ${noun}, found the end of the file`);
  if (!DECIMAL.test(token.text)) {
    r.fail(`expected ${article} ${noun}, found ${quoteToken(token.text)}`, token.line, token.column);
  }
  const value = Number(token.text);
  if (!Number.isFinite(value))
    r.fail(`the ${noun} ${quoteToken(token.text)} is not finite`, token.line, token.column);
  return value;
}

interface JointBuild {
  name: string;
  parent: number;
  offset: [number, number, number];
  channels: ChannelName[];
  line: number;
  column: number;
  hasOffset: boolean;
  hasChannels: boolean;
}

interface Hierarchy {
  joints: JointBuild[];
  endSites: EndSite[];
}

function parseHierarchy(r: Reader, warn: (w: BvhWarning) => void): Hierarchy {
  const joints: JointBuild[] = [];
  const endSites: EndSite[] = [];
  const head = r.word();
  if (head === null) r.fail('the file is empty; expected HIERARCHY', 1, 1);
  if (head.text.toLowerCase() !== 'hierarchy') {
    r.fail(
      `expected HIERARCHY at the start of the file, found ${quoteToken(head.text)}`,
      head.line,
      head.column,
    );
  }
  for (;;) {
    const token = r.word();
    if (token === null) r.fail('the file ends before MOTION');
    const key = token.text.toLowerCase();
    if (key === 'root') {
      parseJoint(r, joints, endSites, -1, token, warn);
    } else if (key === 'motion') {
      break;
    } else {
      r.fail(`expected ROOT or MOTION, found ${quoteToken(token.text)}`, token.line, token.column);
    }
  }
  if (joints.length === 0) {
    warn({ code: 'empty-hierarchy', message: 'the hierarchy has no ROOT', line: r.line, column: 1 });
  }
  return { joints, endSites };
}

function parseJoint(
  r: Reader,
  joints: JointBuild[],
  endSites: EndSite[],
  parent: number,
  keyword: Token,
  warn: (w: BvhWarning) => void,
  depth = 0,
): void {
  const kind = keyword.text.toUpperCase();
  if (depth >= MAX_DEPTH) {
    r.fail(`joints are nested more than ${MAX_DEPTH} levels deep`, keyword.line, keyword.column);
  }
  r.skipInlineSpace();
  const nameLine = r.line;
  const nameColumn = r.column();
  const { text: name, brace } = r.restOfLine();
  if (name === '') r.fail(`${kind} has no name`, nameLine, nameColumn);
  if (!brace) {
    const open = r.word();
    if (open === null || open.text !== '{') {
      r.fail(
        `expected '{' after ${kind} ${name.length > QUOTE_LIMIT ? quoteToken(name) : name}, found ${describe(open)}`,
        open?.line,
        open?.column,
      );
    }
  }
  const index = joints.length;
  const joint: JointBuild = {
    name,
    parent,
    offset: [0, 0, 0],
    channels: [],
    line: keyword.line,
    column: keyword.column,
    hasOffset: false,
    hasChannels: false,
  };
  joints.push(joint);
  for (;;) {
    const token = r.word();
    if (token === null) {
      r.fail(`the file ends inside joint ${quoteToken(name)} (opened at ${keyword.line}:${keyword.column})`);
    }
    const key = token.text.toLowerCase();
    if (key === '}') break;
    if (key === 'offset') {
      if (joint.hasOffset) r.fail(`joint ${quoteToken(name)} has a second OFFSET`, token.line, token.column);
      joint.offset = readOffset(r);
      joint.hasOffset = true;
    } else if (key === 'channels') {
      if (joint.hasChannels)
        r.fail(`joint ${quoteToken(name)} has a second CHANNELS line`, token.line, token.column);
      joint.channels = readChannels(r, name);
      joint.hasChannels = true;
    } else if (key === 'joint') {
      parseJoint(r, joints, endSites, index, token, warn, depth + 1);
    } else if (key === 'end' || key === 'endsite') {
      parseEndSite(r, endSites, index, token);
    } else {
      r.fail(
        `unexpected ${quoteToken(token.text)} in joint ${quoteToken(name)}; expected OFFSET, CHANNELS, JOINT, End Site or '}'`,
        token.line,
        token.column,
      );
    }
  }
  if (!joint.hasOffset) {
    warn({
      code: 'missing-offset',
      message: `joint ${quoteToken(name)} has no OFFSET; using 0 0 0`,
      line: joint.line,
      column: joint.column,
    });
  }
  if (!joint.hasChannels) {
    warn({
      code: 'missing-channels',
      message: `joint ${quoteToken(name)} has no CHANNELS line; reading it as CHANNELS 0`,
      line: joint.line,
      column: joint.column,
    });
  }
}

function readOffset(r: Reader): [number, number, number] {
  const x = parseDecimal(r, r.word(), 'OFFSET value');
  const y = parseDecimal(r, r.word(), 'OFFSET value');
  const z = parseDecimal(r, r.word(), 'OFFSET value');
  return [x, y, z];
}

function readChannels(r: Reader, jointName: string): ChannelName[] {
  const countToken = r.word();
  if (countToken === null) r.fail('expected a channel count after CHANNELS, found the end of the file');
  if (!/^\d+$/.test(countToken.text) || Number(countToken.text) > 6) {
    r.fail(
      `expected a channel count from 0 to 6 after CHANNELS, found ${quoteToken(countToken.text)}`,
      countToken.line,
      countToken.column,
    );
  }
  const count = Number(countToken.text);
  const channels: ChannelName[] = [];
  for (let k = 0; k < count; k++) {
    const before = { line: r.line, pos: r.pos };
    const token = r.word();
    const channel = token === null ? undefined : CHANNELS_BY_KEY[token.text.toLowerCase()];
    if (token === null || channel === undefined) {
      const known =
        token !== null && /^(offset|joint|end|endsite|\}|\{|root|motion|channels)$/i.test(token.text);
      if (token === null || known) {
        if (token !== null) {
          // give the keyword back so the message points at the short list, not at the keyword
          r.pos = before.pos;
          r.line = before.line;
        }
        r.fail(
          `CHANNELS of joint ${quoteToken(jointName)} declares ${count} channels but lists ${k}`,
          countToken.line,
          countToken.column,
        );
      }
      r.fail(`unknown channel ${quoteToken(token.text)}`, token.line, token.column);
    }
    if (channels.includes(channel)) {
      r.fail(
        `channel ${quoteToken(token.text)} appears twice in joint ${quoteToken(jointName)}`,
        token.line,
        token.column,
      );
    }
    channels.push(channel);
  }
  return channels;
}

function parseEndSite(r: Reader, endSites: EndSite[], parent: number, keyword: Token): void {
  if (keyword.text.toLowerCase() === 'end') {
    r.skipInlineSpace();
    if (!r.matchWord('site')) {
      r.fail(`expected 'Site' after 'End'`, r.line, r.column());
    }
  }
  r.skipInlineSpace();
  const { text: label, brace } = r.restOfLine();
  if (!brace) {
    const open = r.word();
    if (open === null || open.text !== '{') {
      r.fail(`expected '{' after End Site, found ${describe(open)}`, open?.line, open?.column);
    }
  }
  let offset: [number, number, number] = [0, 0, 0];
  let hasOffset = false;
  for (;;) {
    const token = r.word();
    if (token === null)
      r.fail(`the file ends inside the End Site opened at ${keyword.line}:${keyword.column}`);
    const key = token.text.toLowerCase();
    if (key === '}') break;
    if (key === 'offset' && !hasOffset) {
      offset = readOffset(r);
      hasOffset = true;
    } else {
      r.fail(
        `unexpected ${quoteToken(token.text)} in End Site; expected OFFSET or '}'`,
        token.line,
        token.column,
      );
    }
  }
  const site: EndSite = { parent, offset };
  if (label !== '') site.label = label;
  endSites.push(site);
}

interface MotionHeader {
  declaredFrames: number;
  framesLine: number;
  frameTime: number;
  frameTimeText: string;
  /** The standard rate the frame time was read as (see `standardRate`), when it stands for one. */
  rate?: number;
}

function parseMotionHeader(r: Reader): MotionHeader {
  r.skipSpace();
  const framesLine = r.line;
  const framesColumn = r.column();
  if (!r.matchWord('frames')) {
    const token = r.word();
    r.fail(`expected 'Frames:' after MOTION, found ${describe(token)}`, framesLine, framesColumn);
  }
  r.skipInlineSpace();
  if (r.peek() !== 58) r.fail(`expected ':' after 'Frames'`);
  r.pos++;
  r.skipInlineSpace();
  const countToken = r.word();
  if (countToken === null || !/^\d+$/.test(countToken.text)) {
    r.fail(
      `expected a frame count after 'Frames:', found ${describe(countToken)}`,
      countToken?.line,
      countToken?.column,
    );
  }
  const declaredFrames = Number(countToken.text);
  r.skipSpace();
  const timeLine = r.line;
  const timeColumn = r.column();
  let ok = r.matchWord('frame');
  if (ok) {
    r.skipInlineSpace();
    ok = r.matchWord('time');
  }
  if (!ok) {
    const token = r.word();
    r.fail(`expected 'Frame Time:' after the frame count, found ${describe(token)}`, timeLine, timeColumn);
  }
  r.skipInlineSpace();
  if (r.peek() !== 58) r.fail(`expected ':' after 'Frame Time'`);
  r.pos++;
  r.skipInlineSpace();
  const timeToken = r.word();
  const frameTime = parseDecimal(r, timeToken, 'frame time in seconds');
  if (!(frameTime > 0) || !Number.isFinite(1 / frameTime)) {
    r.fail(
      `Frame Time must be a positive number of seconds with a finite rate, found ${quoteToken(timeToken?.text ?? '')}`,
      timeToken?.line,
      timeToken?.column,
    );
  }
  return { declaredFrames, framesLine, frameTime, frameTimeText: (timeToken as Token).text };
}

/** Fills non-finite values by linear interpolation along their channel; throws if a channel has none finite. */
function repairValues(data: FrameData, width: number, channels: ChannelInfo[], names: string[]): void {
  const { values, rows } = data;
  const columns = new Set<number>();
  for (const index of data.bad) columns.add(index % width);
  for (const col of columns) {
    let previous = -1;
    for (let f = 0; f <= rows; f++) {
      const finite = f < rows && Number.isFinite(values[f * width + col]);
      if (f < rows && !finite) continue;
      // fill the gap (previous, f)
      if (f - previous > 1) {
        if (previous < 0 && f >= rows) {
          const ch = channels[col];
          throw new BvhParseError(
            `channel ${ch.name} of joint ${quoteToken(names[ch.joint])} has no finite value to repair from`,
            1,
            1,
            'bvh-non-finite',
          );
        }
        const a = previous < 0 ? values[f * width + col] : values[previous * width + col];
        const b = f >= rows ? values[previous * width + col] : values[f * width + col];
        for (let g = previous + 1; g < f; g++) {
          const t = previous < 0 || f >= rows ? 0 : (g - previous) / (f - previous);
          values[g * width + col] = a + (b - a) * t;
        }
      }
      previous = f;
    }
  }
}

type ChannelInfo = ScanChannel;

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
  if (options === null || typeof options !== 'object')
    throw new OptionError(`${where}: options must be an object`);
  checkOptions(options, PARSE_BVH_DEFAULTS, where, ['onWarning', 'byteLength']);
  const maxValues = options.maxValues ?? PARSE_BVH_DEFAULTS.maxValues;
  if (typeof maxValues !== 'number' || !(maxValues >= 0))
    throw new OptionError(`${where}: maxValues must be a non-negative number, got ${String(maxValues)}`);
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function')
    throw new OptionError(`${where}: onWarning must be a function`);
  const positionMode = options.positionMode ?? PARSE_BVH_DEFAULTS.positionMode;
  if (positionMode !== 'replace' && positionMode !== 'add') {
    throw new OptionError(`${where}: positionMode must be 'replace' or 'add', got '${String(positionMode)}'`);
  }
  const strict = options.strict ?? PARSE_BVH_DEFAULTS.strict;
  const repair = options.repair ?? PARSE_BVH_DEFAULTS.repair;
  const warnings: BvhWarning[] = [];
  const warn = (w: BvhWarning): void => {
    if (strict)
      throw new BvhParseError(`${w.message} (strict mode)`, w.line ?? 1, w.column ?? 1, `bvh-${w.code}`);
    warnings.push(w);
    options.onWarning?.(w);
  };
  const note = (w: BvhWarning): void => {
    warnings.push(w);
    options.onWarning?.(w);
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
    if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) {
      throw new OptionError(
        `BvhChunkParser: byteLength must be a whole number of bytes, got ${String(size)}`,
      );
    }
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
 * @throws {BvhParseError} on malformed data, with line and column; on any warning when `strict` is set.
 * @example
 * const { clip } = parseBvhBytes(new Uint8Array(await (await fetch(url)).arrayBuffer()));
 */
export function parseBvhBytes(bytes: Uint8Array, options: ParseBvhOptions = {}): BvhParseResult {
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
 * @throws {BvhParseError} with `line`, `column` and a sentence (`unknown channel 'Wrotation' at 14:22`).
 * @throws {OptionError} on an unknown `positionMode`.
 * @example
 * const clip = parseBvh(text);
 * clip.frames; clip.skeleton.names; clip.rotations.data; // x, y, z, w per joint per frame
 */
export function parseBvh(text: string, options: ParseBvhOptions = {}): Clip {
  return parseBvhWithReport(text, options).clip;
}

const ROTATION_AXIS: Partial<Record<ChannelName, number>> = { Xrotation: 0, Yrotation: 1, Zrotation: 2 };
const POSITION_AXIS: Partial<Record<ChannelName, number>> = { Xposition: 0, Yposition: 1, Zposition: 2 };
const AXES = 'XYZ';

/**
 * The intrinsic Euler order (SciPy notation) that a joint's BVH rotation channels spell, in the order
 * listed; with fewer than three rotation channels the missing axes are appended (their angle is 0), and
 * `'ZYX'` stands for a joint without rotation channels. Position channels are ignored wherever they are.
 *
 * @example
 * channelEulerOrder(['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation']); // 'ZXY'
 * channelEulerOrder(['Yrotation']); // 'YXZ'
 */
export function channelEulerOrder(channels: readonly ChannelName[]): EulerOrder {
  if (!Array.isArray(channels))
    throw new OptionError('channelEulerOrder: channels must be an array of channel names');
  let order = '';
  for (const c of channels) {
    const axis = Object.hasOwn(ROTATION_AXIS, c) ? ROTATION_AXIS[c as ChannelName] : undefined;
    if (axis !== undefined) order += AXES[axis];
  }
  if (order === '') return 'ZYX';
  for (const a of AXES) if (!order.includes(a)) order += a;
  return order as EulerOrder;
}

/** Bytes of values (or of quaternions) the WebAssembly converter takes per call. */
const CONVERT_BYTES = 1 << 20;

/**
 * Turns rows of raw channel values into local rotations (quaternions from each joint's Euler channels)
 * and translations (OFFSET with position channels replacing or added), growing its arrays as rows come.
 * Also sums every position channel for {@link checkRootPositions} (non-root joints are its best evidence).
 */
class FrameConverter {
  readonly joints: number;
  readonly offsets: Float64Array;
  readonly parents: Int32Array;
  readonly orders: EulerOrder[] = [];
  rotations: Float64Array;
  translations: Float64Array;
  rows = 0;
  /** Sum over frames of each channel column (filled for root position columns only). */
  readonly sums: Float64Array;
  private capacity = 0;
  /** Rows `Frames:` declared (bounded by what the data can hold, when its size is known). */
  private readonly declaredRows: number;
  /**
   * Rows the first {@link add} allocates at most: all the declared rows by default; fewer when the size of
   * the data is unknown, so that a false `Frames:` costs no memory before rows arrive (the arrays then
   * double up to the declared rows).
   */
  firstRows = Number.POSITIVE_INFINITY;
  /** Per joint, the columns of its 3 Euler angles in `order` (-1 = missing, angle 0) and of X/Y/Z position. */
  private readonly rotColumn: Int32Array;
  private readonly posColumn: Int32Array;
  /** Joints with rotation channels, and those without (identity in every frame). */
  private readonly rotating: Int32Array;
  private readonly still: Int32Array;
  /**
   * Per position channel: its index in a frame's translations (joint * 3 + axis) and its column. A frame's
   * translations start as a copy of the OFFSETs and only these are written over.
   */
  private readonly posTarget: Int32Array;
  private readonly posSource: Int32Array;
  private readonly sumColumns: Int32Array;
  private readonly additive: boolean;
  /** Per joint, its rotation sequence resolved once (not looked up for every frame). */
  private readonly specs: EulerSpec[] = [];
  /**
   * Per joint, the three angles (radians) its last computed quaternion came from; NaN before the first, so
   * that no angle equals them. The previous frame's quaternion is then that of these angles.
   */
  private readonly last: Float64Array;
  /** Per joint, 8 numbers for the WebAssembly converter; and the joints it leaves to `composeEuler`. */
  private readonly desc: Int32Array;
  private readonly proper: Int32Array;
  private readonly positions: Int32Array;

  constructor(
    joints: JointBuild[],
    private readonly width: number,
    capacityRows: number,
    positionMode: PositionMode,
  ) {
    const J = joints.length;
    this.joints = J;
    this.additive = positionMode === 'add';
    this.offsets = new Float64Array(J * 3);
    this.parents = new Int32Array(J);
    this.rotColumn = new Int32Array(J * 3).fill(-1);
    this.last = new Float64Array(J * 3).fill(Number.NaN);
    this.posColumn = new Int32Array(J * 3).fill(-1);
    const hasRotation = new Uint8Array(J);
    this.sums = new Float64Array(width);
    const sumColumns: number[] = [];
    let column = 0;
    for (let j = 0; j < J; j++) {
      const joint = joints[j];
      this.parents[j] = joint.parent;
      this.offsets.set(joint.offset, j * 3);
      const order = channelEulerOrder(joint.channels);
      this.orders.push(order);
      this.specs.push(eulerSpec(order));
      for (const c of joint.channels) {
        const r = ROTATION_AXIS[c];
        if (r !== undefined) {
          this.rotColumn[j * 3 + order.indexOf(AXES[r])] = column;
          hasRotation[j] = 1;
        } else {
          this.posColumn[j * 3 + (POSITION_AXIS[c] as number)] = column;
          sumColumns.push(column);
        }
        column++;
      }
    }
    this.sumColumns = Int32Array.from(sumColumns);
    const rotating: number[] = [];
    const still: number[] = [];
    const posTarget: number[] = [];
    const posSource: number[] = [];
    for (let j = 0; j < J; j++) {
      (hasRotation[j] ? rotating : still).push(j);
      for (let a = 0; a < 3; a++) {
        if (this.posColumn[j * 3 + a] < 0) continue;
        posTarget.push(j * 3 + a);
        posSource.push(this.posColumn[j * 3 + a]);
      }
    }
    this.rotating = Int32Array.from(rotating);
    this.still = Int32Array.from(still);
    // per joint, what the WebAssembly converter needs (see bvhEuler in numeric/simd.wat): kind (0 no rotation,
    // 1 Tait-Bryan, 2 proper: left to composeEuler), the columns of the intrinsic product's angles, the byte
    // offsets of its axes and its parity
    const desc = new Int32Array(J * 8);
    const proper: number[] = [];
    for (let j = 0; j < J; j++) {
      if (!hasRotation[j]) continue;
      const spec = this.specs[j];
      const c = this.rotColumn;
      desc.set(
        [
          spec.proper ? 2 : 1,
          c[j * 3 + (spec.extrinsic ? 2 : 0)],
          c[j * 3 + 1],
          c[j * 3 + (spec.extrinsic ? 0 : 2)],
          spec.i0 * 8,
          spec.i1 * 8,
          spec.i2 * 8,
          spec.sigma,
        ],
        j * 8,
      );
      if (spec.proper) proper.push(j);
    }
    this.desc = desc;
    this.proper = Int32Array.from(proper);
    // and for its translations: per position channel, the byte offsets in the frame's translations and in the row
    this.positions = new Int32Array(posTarget.length * 2);
    for (let k = 0; k < posTarget.length; k++) {
      this.positions[2 * k] = posTarget[k] * 8;
      this.positions[2 * k + 1] = posSource[k] * 8;
    }
    this.posTarget = Int32Array.from(posTarget);
    this.posSource = Int32Array.from(posSource);
    this.declaredRows = Math.max(0, capacityRows);
    // allocated by the first add, through the same branch that grows them: that branch has then always
    // run before add is optimised, and a file longer than it declares costs no deoptimisation
    this.rotations = new Float64Array(0);
    this.translations = new Float64Array(0);
  }

  /** Converts `rowCount` rows of `values` (`width` per row) into the next frames. */
  add(values: Float64Array, rowCount: number): void {
    const J = this.joints;
    const width = this.width;
    if (this.rows + rowCount > this.capacity) {
      // the declared rows first; past them, more rows than `Frames:` said: grow by at least an eighth so a
      // long tail stays linear
      // (both sizes read on every call, so neither property read is new to the optimised code)
      const declared = this.declaredRows;
      const first = Math.min(declared, this.firstRows);
      const grown =
        this.capacity < declared
          ? Math.min(declared, 2 * this.capacity)
          : this.capacity + Math.max(1024, this.capacity >> 3);
      const capacity = Math.max(this.rows + rowCount, this.rows === 0 ? first : grown);
      const rotations = recycledOrNew(capacity * J * 4);
      rotations.set(this.rotations.subarray(0, this.rows * J * 4));
      const translations = recycledOrNew(capacity * J * 3);
      translations.set(this.translations.subarray(0, this.rows * J * 3));
      this.rotations = rotations;
      this.translations = translations;
      this.capacity = capacity;
    }
    // rotations and translations of all rows by the WebAssembly converter where there is one; else the loop below
    const converted = this.convertRows(values, rowCount);
    const { rotations, translations, rotColumn, rotating, still, posTarget, posSource, offsets, specs } =
      this;
    const { sums, sumColumns, last } = this;
    const add = this.additive;
    for (let r = 0; r < rowCount; r++) {
      const row = r * width;
      const f = this.rows + r;
      const q0 = f * J * 4;
      if (!converted) {
        for (let k = 0; k < rotating.length; k++) {
          const j = rotating[k];
          const q = q0 + j * 4;
          const c0 = rotColumn[j * 3];
          const c1 = rotColumn[j * 3 + 1];
          const c2 = rotColumn[j * 3 + 2];
          const a0 = c0 < 0 ? 0 : values[row + c0] * DEG;
          const a1 = c1 < 0 ? 0 : values[row + c1] * DEG;
          const a2 = c2 < 0 ? 0 : values[row + c2] * DEG;
          const l = j * 3;
          // the same three angles as the joint's last frame (a still joint, common in real files) give the
          // same quaternion: copied, bit for bit, without trig. Zeros must match in sign too (a -0 angle may
          // give a -0 component), which 1 / a tells apart.
          if (
            a0 === last[l] &&
            a1 === last[l + 1] &&
            a2 === last[l + 2] &&
            (a0 * a1 * a2 !== 0 ||
              (1 / a0 === 1 / last[l] && 1 / a1 === 1 / last[l + 1] && 1 / a2 === 1 / last[l + 2]))
          ) {
            const p = q - 4 * J;
            rotations[q] = rotations[p];
            rotations[q + 1] = rotations[p + 1];
            rotations[q + 2] = rotations[p + 2];
            rotations[q + 3] = rotations[p + 3];
            continue;
          }
          last[l] = a0;
          last[l + 1] = a1;
          last[l + 2] = a2;
          // three +0 angles compose to exactly (0, 0, 0, 1): no trig. A -0 among them may give a -0
          // component, so that case (1/-0 = -Infinity) takes the full path.
          if (!(a0 === 0 && a1 === 0 && a2 === 0 && 1 / a0 + 1 / a1 + 1 / a2 > 0)) {
            composeEuler(rotations, q, specs[j], a0, a1, a2);
          } else {
            rotations[q] = 0;
            rotations[q + 1] = 0;
            rotations[q + 2] = 0;
            rotations[q + 3] = 1;
          }
        }
        for (let k = 0; k < still.length; k++) rotations[q0 + still[k] * 4 + 3] = 1;
        // the OFFSETs, then the position channels over them (most joints have none)
        const t0 = f * J * 3;
        translations.set(offsets, t0);
        for (let k = 0; k < posTarget.length; k++) {
          const v = values[row + posSource[k]];
          translations[t0 + posTarget[k]] = add ? offsets[posTarget[k]] + v : v;
        }
      }
      for (let k = 0; k < sumColumns.length; k++) sums[sumColumns[k]] += values[row + sumColumns[k]];
    }
    this.rows += rowCount;
  }

  /**
   * The quaternions and translations of rows `this.rows ..` from `rowCount` rows of `values`, by the
   * WebAssembly converter (`bvhEuler`, `bvhTranslations`: the same bits as the loop in {@link add}), a block
   * of rows at a time; the joints and angles it leaves (proper Euler orders, half angles beyond ±π/2,
   * non-finite values) by `composeEuler`. False, converting nothing, where there is no WebAssembly.
   */
  private convertRows(values: Float64Array, rowCount: number): boolean {
    const J = this.joints;
    const width = this.width;
    if (rowCount === 0 || J === 0) return false;
    const block = Math.max(1, Math.min(rowCount, Math.floor(CONVERT_BYTES / Math.max(width * 8, J * 32))));
    const descAt = 256;
    const valuesAt = descAt + J * 32;
    const outAt = valuesAt + ((block * width * 8 + 15) & ~15);
    const flagsAt = outAt + block * J * 32;
    const offsetsAt = flagsAt + block * J * 8;
    const positionsAt = offsetsAt + J * 24;
    const translationsAt = positionsAt + ((this.positions.length * 4 + 15) & ~15);
    const instance = simdScratch(translationsAt + block * J * 24);
    if (instance === null) return false;
    const buffer = instance.buffer;
    new Int32Array(buffer, descAt, J * 8).set(this.desc);
    new Float64Array(buffer, offsetsAt, J * 3).set(this.offsets);
    new Int32Array(buffer, positionsAt, this.positions.length).set(this.positions);
    const translationsOut = new Float64Array(buffer, translationsAt, block * J * 3);
    const positionCount = this.positions.length / 2;
    const additive = this.additive ? 1 : 0;
    const valuesIn = new Float64Array(buffer, valuesAt, block * width);
    const out = new Float64Array(buffer, outAt, block * J * 4);
    const flags = new Int32Array(buffer, flagsAt, block * J * 2);
    const proper = this.proper;
    for (let r0 = 0; r0 < rowCount; r0 += block) {
      const n = Math.min(block, rowCount - r0);
      valuesIn.set(values.subarray(r0 * width, (r0 + n) * width));
      const left = instance.kernels.bvhEuler(valuesAt, n, width, descAt, J, outAt, flagsAt);
      this.rotations.set(n === block ? out : out.subarray(0, n * J * 4), (this.rows + r0) * J * 4);
      for (let i = 0; i < left; i++) this.convertOne(values, r0 + flags[2 * i], flags[2 * i + 1]);
      for (let r = r0; r < r0 + n; r++)
        for (let k = 0; k < proper.length; k++) this.convertOne(values, r, proper[k]);
      instance.kernels.bvhTranslations(
        valuesAt,
        n,
        width,
        offsetsAt,
        J * 3,
        positionsAt,
        positionCount,
        additive,
        translationsAt,
      );
      this.translations.set(
        n === block ? translationsOut : translationsOut.subarray(0, n * J * 3),
        (this.rows + r0) * J * 3,
      );
    }
    // the loop's memory of each joint's last angles no longer describes the frame before
    this.last.fill(Number.NaN);
    return true;
  }

  /** Joint `j` of row `r` of `values` (frame `this.rows + r`), as the loop in {@link add} computes it. */
  private convertOne(values: Float64Array, r: number, j: number): void {
    const row = r * this.width;
    const c = this.rotColumn;
    const c0 = c[j * 3];
    const c1 = c[j * 3 + 1];
    const c2 = c[j * 3 + 2];
    composeEuler(
      this.rotations,
      ((this.rows + r) * this.joints + j) * 4,
      this.specs[j],
      c0 < 0 ? 0 : values[row + c0] * DEG,
      c1 < 0 ? 0 : values[row + c1] * DEG,
      c2 < 0 ? 0 : values[row + c2] * DEG,
    );
  }

  /** Trims the arrays to the rows read (copies only when the file had fewer or more rows than declared). */
  finish(): void {
    const J = this.joints;
    if (this.capacity !== this.rows) {
      this.rotations = this.rotations.slice(0, this.rows * J * 4);
      this.translations = this.translations.slice(0, this.rows * J * 3);
      this.capacity = this.rows;
    }
  }
}

function buildClip(
  joints: JointBuild[],
  endSites: EndSite[],
  header: MotionHeader,
  converter: FrameConverter,
  positionMode: PositionMode,
): Clip {
  const J = joints.length;
  const frames = converter.rows;
  // filled by push rather than `map`, whose result's element kind varies between calls: code that reads
  // these arrays (the writer, FK) would otherwise meet several array maps and be compiled again
  const names: string[] = [];
  const channels: ChannelName[][] = [];
  for (const joint of joints) {
    names.push(joint.name);
    channels.push(joint.channels);
  }
  const animated = new Uint8Array(J);
  for (let j = 0; j < J; j++) {
    for (const c of channels[j])
      animated[j] |= c.endsWith('rotation') ? ANIMATED_ROTATION : ANIMATED_TRANSLATION;
  }
  const restRotations = new Float64Array(J * 4);
  for (let j = 0; j < J; j++) restRotations[j * 4 + 3] = 1;
  const source: BvhSource = {
    format: 'bvh',
    channels,
    endSites,
    positionMode,
    frameTimeText: header.frameTimeText,
    frameTime: header.frameTime,
  };
  return {
    skeleton: {
      names,
      parents: converter.parents,
      restTranslations: converter.offsets,
      restRotations,
      restScales: new Float64Array(J * 3).fill(1),
    },
    frameTime: header.frameTime,
    rate: header.rate ?? 1 / header.frameTime,
    frames,
    rotations: { data: converter.rotations, frames, joints: J },
    translations: { data: converter.translations, frames, joints: J },
    animated,
    orders: converter.orders,
    source,
  };
}

/**
 * Warns when a root's position channels look like they were meant for the other position mode: in
 * `'replace'` mode, channels that sit near zero while the OFFSET is far from zero (an additive file such
 * as CMU-via-iClone `OFFSET 0 105 0` with channels of a few units); in `'add'` mode, channels that sit on
 * the OFFSET (adding would double it). Only OFFSET components of at least a quarter of the largest one
 * take part, and all of them must agree.
 *
 * A root alone is weak evidence: a capture can stand away from its rest position. Non-root joints with
 * position channels are strong evidence, since bones do not stretch: in Blender's exports (position
 * channels on every joint that is not connected to its parent) they sit exactly on their OFFSETs, which
 * says `'replace'` whatever the root does. So a root that looks like the other mode is not reported when
 * other joints' channels confirm the mode read, and the message says which evidence it rests on (the root
 * alone, or other joints that agree).
 */
function checkRootPositions(
  clip: Clip,
  joints: JointBuild[],
  converter: FrameConverter,
  positionMode: PositionMode,
  warn: (w: BvhWarning) => void,
): void {
  if (clip.frames === 0) return;
  const limbs = limbEvidence(joints, converter, clip.frames);
  let column = 0;
  for (let j = 0; j < joints.length; j++) {
    const joint = joints[j];
    const start = column;
    column += joint.channels.length;
    if (joint.parent !== -1) continue;
    const off = joint.offset;
    const largest = Math.max(Math.abs(off[0]), Math.abs(off[1]), Math.abs(off[2]));
    if (largest === 0) continue;
    let considered = 0;
    let suspicious = 0;
    joint.channels.forEach((c, k) => {
      const axis = POSITION_AXIS[c];
      if (axis === undefined || Math.abs(off[axis]) < 0.25 * largest) return;
      const mean = converter.sums[start + k] / clip.frames;
      considered++;
      const fromOffset = Math.abs(mean - off[axis]);
      const fromZero = Math.abs(mean);
      if (positionMode === 'replace' && fromOffset > 0.5 * Math.abs(off[axis]) && fromZero < fromOffset)
        suspicious++;
      if (positionMode === 'add' && fromOffset < 0.1 * Math.abs(off[axis])) suspicious++;
    });
    if (considered > 0 && suspicious === considered) {
      const other = positionMode === 'replace' ? 'add' : 'replace';
      // other joints sitting on their OFFSETs confirm 'replace' (Blender's exports); near zero, 'add'
      const confirmed = positionMode === 'replace' ? limbs.onOffset : limbs.nearZero;
      const against = positionMode === 'replace' ? limbs.nearZero : limbs.onOffset;
      if (confirmed > against) continue;
      const basis =
        against > 0
          ? `; ${against} position channel(s) of other joints agree`
          : '; judged from the root alone (no other joint has position channels), so it may also be a capture that stands away from its rest position';
      warn({
        code: 'position-offset',
        message:
          positionMode === 'replace'
            ? `the position channels of root ${quoteToken(joint.name)} sit far from its OFFSET (${off.join(' ')}) and near zero; the file may be meant for positionMode '${other}'${basis}`
            : `the position channels of root ${quoteToken(joint.name)} sit on its OFFSET (${off.join(' ')}); adding doubles it, the file may be meant for positionMode '${other}'${basis}`,
        line: joint.line,
        column: joint.column,
      });
    }
  }
}

/**
 * How the position channels of non-root joints relate to their OFFSETs, counted per component with an
 * OFFSET of at least 1e-3 file units: the mean channel value within 10% of the OFFSET (`onOffset`: the
 * channel restates it, 'replace') or within 10% of the OFFSET's size from zero (`nearZero`: 'add').
 * The means are of the channel values as written (the converter sums them before any OFFSET is added).
 */
function limbEvidence(
  joints: JointBuild[],
  converter: FrameConverter,
  frames: number,
): { onOffset: number; nearZero: number } {
  let onOffset = 0;
  let nearZero = 0;
  let column = 0;
  for (let j = 0; j < joints.length; j++) {
    const joint = joints[j];
    const start = column;
    column += joint.channels.length;
    if (joint.parent === -1) continue;
    joint.channels.forEach((c, k) => {
      const axis = POSITION_AXIS[c];
      if (axis === undefined) return;
      const off = joint.offset[axis];
      if (Math.abs(off) < 1e-3) return;
      const mean = converter.sums[start + k] / frames;
      if (Math.abs(mean - off) <= 0.1 * Math.abs(off)) onOffset++;
      else if (Math.abs(mean) <= 0.1 * Math.abs(off)) nearZero++;
    });
  }
  return { onOffset, nearZero };
}

function checkAddedTranslations(translations: Float64Array, joints: JointBuild[], line: number): void {
  const J = joints.length;
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i])) {
      const item = Math.floor(i / 3);
      const joint = joints[item % J];
      throw new BvhParseError(
        `OFFSET + position channel of joint ${quoteToken(joint.name)} at frame ${Math.floor(item / J)} overflows to ${translations[i]}`,
        line,
        1,
      );
    }
  }
}
