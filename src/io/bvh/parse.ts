/**
 * BVH reader: text in, {@link Clip} out. One pass over the string with char codes: the hierarchy is read
 * token by token, the frame data as one stream of numbers parsed by hand (no per-value strings; decimals
 * of up to 15 digits take Clinger's exact fast path, longer ones `Number()`, so every value is the
 * correctly rounded float64). Rows are converted to quaternions and translations in chunks of 1,024, so a
 * 100,000-frame file needs the output arrays and little else.
 *
 * @module
 */
import { OptionError } from '../../errors.js';
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
   * Repair NaN/Inf values in the frame data by linear interpolation along their channel (holding the
   * nearest finite value at the ends) and report it as a `'repaired'` warning, instead of throwing.
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
/** Nesting limit of JOINT blocks; far beyond real skeletons, it keeps hostile input from overflowing the stack. */
const MAX_DEPTH = 1000;
/** Rows of raw channel values buffered before they are converted: the buffer stays in cache. */
const CHUNK_ROWS = 1024;
/** Frames x joints a file without channel data may declare (its clip is allocated from `Frames:` alone). */
const MAX_STATIC_FRAMES = 1_000_000;
/** Largest integer mantissa for which `m * 10^k` (|k| <= 22) is correctly rounded (Clinger's fast path). */
const MANTISSA_LIMIT = 2 ** 53;
const POW10 = new Float64Array(23);
for (let k = 0, p = 1; k < 23; k++, p *= 10) POW10[k] = p;

const CHANNELS_BY_KEY: Record<string, ChannelName> = {
  xposition: 'Xposition',
  yposition: 'Yposition',
  zposition: 'Zposition',
  xrotation: 'Xrotation',
  yrotation: 'Yrotation',
  zrotation: 'Zrotation',
};

const NON_FINITE_WORD = /^[+-]?(nan|inf|infinity)(\(.*\))?$|^[+-]?\d*\.?\d*#(inf|ind|qnan|snan)\d*$/i;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Classes of the ASCII characters for the frame-data scanner: a table lookup instead of a chain of
 * comparisons, so that every file (spaces or tabs, LF or CRLF, a number at the end of a line or not) runs
 * the same operations and the compiled scanner never meets a comparison it has not seen before.
 */
const OTHER = 0;
const BLANK = 1;
const LF = 2;
const CR = 3;
const SCAN_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isSpace(c)) SCAN_CLASS[c] = BLANK;
SCAN_CLASS[10] = LF;
SCAN_CLASS[13] = CR;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12 || c === 0xfeff || c === 0xa0;
}

interface Token {
  text: string;
  line: number;
  column: number;
}

/** Mutable reader state over the text; positions are UTF-16 indices. */
class Reader {
  pos = 0;
  line = 1;
  lineStart = 0;
  constructor(readonly text: string) {}

  column(at = this.pos): number {
    return at - this.lineStart + 1;
  }

  fail(reason: string, line = this.line, column = this.column()): never {
    throw new BvhParseError(reason, line, column);
  }

  /** Skips all whitespace, counting lines. */
  skipSpace(): void {
    const text = this.text;
    const n = text.length;
    let i = this.pos;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        this.line++;
        this.lineStart = i + 1;
      } else if (!isSpace(c)) break;
      i++;
    }
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
    this.pos = i;
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
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
    const out = text.slice(start, i).trim();
    this.pos = brace ? i + 1 : i;
    return { text: out, brace };
  }

  /** Matches a case-insensitive ASCII word at the current position (no skipping). */
  matchWord(lower: string): boolean {
    const text = this.text;
    if (this.pos + lower.length > text.length) return false;
    for (let k = 0; k < lower.length; k++) {
      if ((text.charCodeAt(this.pos + k) | 0x20) !== lower.charCodeAt(k)) return false;
    }
    this.pos += lower.length;
    return true;
  }
}

function describe(token: Token | null): string {
  return token === null ? 'the end of the file' : `'${token.text}'`;
}

/** Reads a decimal number token of the hierarchy or header; `noun` names it in messages ("OFFSET value"). */
function parseDecimal(r: Reader, token: Token | null, noun: string): number {
  const article = /^[aeiouAEIOU]/.test(noun) ? 'an' : 'a';
  if (token === null) r.fail(`expected ${article} ${noun}, found the end of the file`);
  if (!DECIMAL.test(token.text)) {
    r.fail(`expected ${article} ${noun}, found '${token.text}'`, token.line, token.column);
  }
  const value = Number(token.text);
  if (!Number.isFinite(value)) r.fail(`the ${noun} '${token.text}' is not finite`, token.line, token.column);
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
    r.fail(`expected HIERARCHY at the start of the file, found '${head.text}'`, head.line, head.column);
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
      r.fail(`expected ROOT or MOTION, found '${token.text}'`, token.line, token.column);
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
      r.fail(`expected '{' after ${kind} ${name}, found ${describe(open)}`, open?.line, open?.column);
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
      r.fail(`the file ends inside joint '${name}' (opened at ${keyword.line}:${keyword.column})`);
    }
    const key = token.text.toLowerCase();
    if (key === '}') break;
    if (key === 'offset') {
      if (joint.hasOffset) r.fail(`joint '${name}' has a second OFFSET`, token.line, token.column);
      joint.offset = readOffset(r);
      joint.hasOffset = true;
    } else if (key === 'channels') {
      if (joint.hasChannels) r.fail(`joint '${name}' has a second CHANNELS line`, token.line, token.column);
      joint.channels = readChannels(r, name);
      joint.hasChannels = true;
    } else if (key === 'joint') {
      parseJoint(r, joints, endSites, index, token, warn, depth + 1);
    } else if (key === 'end' || key === 'endsite') {
      parseEndSite(r, endSites, index, token);
    } else {
      r.fail(
        `unexpected '${token.text}' in joint '${name}'; expected OFFSET, CHANNELS, JOINT, End Site or '}'`,
        token.line,
        token.column,
      );
    }
  }
  if (!joint.hasOffset) {
    warn({
      code: 'missing-offset',
      message: `joint '${name}' has no OFFSET; using 0 0 0`,
      line: joint.line,
      column: joint.column,
    });
  }
  if (!joint.hasChannels) {
    warn({
      code: 'missing-channels',
      message: `joint '${name}' has no CHANNELS line; reading it as CHANNELS 0`,
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
      `expected a channel count from 0 to 6 after CHANNELS, found '${countToken.text}'`,
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
          `CHANNELS of joint '${jointName}' declares ${count} channels but lists ${k}`,
          countToken.line,
          countToken.column,
        );
      }
      r.fail(`unknown channel '${token.text}'`, token.line, token.column);
    }
    if (channels.includes(channel)) {
      r.fail(`channel '${token.text}' appears twice in joint '${jointName}'`, token.line, token.column);
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
      r.fail(`unexpected '${token.text}' in End Site; expected OFFSET or '}'`, token.line, token.column);
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
  if (r.text.charCodeAt(r.pos) !== 58) r.fail(`expected ':' after 'Frames'`);
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
  if (r.text.charCodeAt(r.pos) !== 58) r.fail(`expected ':' after 'Frame Time'`);
  r.pos++;
  r.skipInlineSpace();
  const timeToken = r.word();
  const frameTime = parseDecimal(r, timeToken, 'frame time in seconds');
  if (!(frameTime > 0) || !Number.isFinite(1 / frameTime)) {
    r.fail(
      `Frame Time must be a positive number of seconds with a finite rate, found '${timeToken?.text}'`,
      timeToken?.line,
      timeToken?.column,
    );
  }
  return { declaredFrames, framesLine, frameTime, frameTimeText: (timeToken as Token).text };
}

interface ChannelInfo {
  joint: number;
  name: ChannelName;
}

interface FrameData {
  /** All values, `rows x width`, only with `repair` (otherwise they went to the sink chunk by chunk). */
  values: Float64Array;
  rows: number;
  /** Flat indices of non-finite values (only collected with `repair`). */
  bad: number[];
}

/**
 * Reads the frame data as one stream of numbers, `width` per frame. If the first data line holds exactly
 * `width` numbers the file is taken to be one frame per line and every line must hold `width`; otherwise
 * rows may wrap and only the total must divide. Complete rows are handed to `sink` in chunks of
 * {@link CHUNK_ROWS} (all at the end with `repair`, which the caller then applies before calling `sink`).
 */
function parseFrameData(
  r: Reader,
  width: number,
  declared: number,
  channels: ChannelInfo[],
  names: string[],
  repair: boolean,
  sink: FrameConverter,
): FrameData {
  const text = r.text;
  const n = text.length;
  // every number takes at least two characters with its separator, which bounds the row count
  const boundRows = width > 0 ? Math.floor((n - r.pos) / (2 * width)) + 1 : 0;
  // without repair, rows go to `sink` in chunks that stay in cache; repair needs every row at the end
  const chunkRows = Math.max(1, Math.min(repair ? declared : CHUNK_ROWS, declared, boundRows));
  let capacity = chunkRows * width;
  let values = new Float64Array(capacity);
  /** Values handed to `sink` already; `base + count` is the index of the next value in the file. */
  let base = 0;
  let count = 0;
  let i = r.pos;
  let line = r.line;
  let lineStart = r.lineStart;
  let inLine = 0;
  let lineMode = 0; // 0 unknown, 1 one frame per line, 2 wrapped
  let inRow = 0;
  let rowLine = line;
  let rowColumn = 1;
  const bad: number[] = [];

  // One chunk per pass of the outer loop. Every file, however small, passes through the same hand-over to
  // `sink` and the same end-of-data checks, so the engine has seen them run before it compiles this loop
  // for a large file (code first reached inside optimised code costs a deoptimisation and a recompile).
  for (;;) {
    let atEnd = true;
    for (;;) {
      let c = 0;
      while (i < n) {
        c = text.charCodeAt(i);
        const k = c < 128 ? SCAN_CLASS[c] : isSpace(c) ? BLANK : OTHER;
        if (k === OTHER) break;
        if (k !== BLANK) {
          // LF, or a CR not followed by LF, ends a line; the look-ahead runs for both, so that LF-only
          // and CRLF files take the same path (and never reads past the end, which would deoptimise)
          const crlf = (i + 1 < n ? text.charCodeAt(i + 1) : 0) === 10;
          if (k === LF || !crlf) {
            if (inLine !== 0) {
              lineMode = checkLine(inLine, lineMode, width, base + count, line);
              inLine = 0;
            }
            line++;
            lineStart = i + 1;
          }
        }
        i++;
      }
      if (i >= n) break;
      const start = i;
      if (width === 0) {
        throw new BvhParseError(
          'found frame data but the hierarchy declares no channels',
          line,
          start - lineStart + 1,
        );
      }
      // hand-parsed decimal: sign, digits, fraction, exponent
      let negative = false;
      if (c === 45) {
        negative = true;
        i++;
      } else if (c === 43) {
        i++;
      }
      let mantissa = 0;
      let exp10 = 0;
      let digits = 0;
      let slow = false;
      // charCodeAt past the end is NaN, which fails the digit test: no separate bounds check
      for (;;) {
        const d = text.charCodeAt(i) - 48;
        if (!(d >= 0 && d <= 9)) break;
        if (mantissa < MANTISSA_LIMIT / 10) mantissa = mantissa * 10 + d;
        else {
          slow = true;
        }
        digits++;
        i++;
      }
      if (text.charCodeAt(i) === 46) {
        i++;
        for (;;) {
          const d = text.charCodeAt(i) - 48;
          if (!(d >= 0 && d <= 9)) break;
          if (mantissa < MANTISSA_LIMIT / 10) {
            mantissa = mantissa * 10 + d;
            exp10--;
          } else {
            slow = true;
          }
          digits++;
          i++;
        }
      }
      let ok = digits > 0;
      if (ok && (text.charCodeAt(i) | 0x20) === 101) {
        i++;
        let expNegative = false;
        const s = text.charCodeAt(i);
        if (s === 45) {
          expNegative = true;
          i++;
        } else if (s === 43) {
          i++;
        }
        let e = 0;
        let expDigits = 0;
        for (;;) {
          const d = text.charCodeAt(i) - 48;
          if (!(d >= 0 && d <= 9)) break;
          if (e < 100000) e = e * 10 + d;
          expDigits++;
          i++;
        }
        if (expDigits === 0) ok = false;
        exp10 += expNegative ? -e : e;
      }
      let value: number;
      const t = text.charCodeAt(i);
      if (ok && (t < 128 ? SCAN_CLASS[t] !== OTHER : i >= n || isSpace(t))) {
        if (slow || exp10 > 22 || exp10 < -22) {
          value = Number(text.slice(start, i));
        } else {
          value = exp10 < 0 ? mantissa / POW10[-exp10] : mantissa * POW10[exp10];
          if (negative) value = -value;
        }
      } else {
        // not a plain decimal: a non-finite spelling or garbage
        let end = start;
        while (end < n && !isSpace(text.charCodeAt(end))) end++;
        const word = text.slice(start, end);
        if (!NON_FINITE_WORD.test(word)) {
          throw new BvhParseError(`'${word}' is not a number`, line, start - lineStart + 1);
        }
        value = Number.NaN;
        i = end;
      }
      if (!Number.isFinite(value)) {
        if (!repair) {
          const frame = Math.floor((base + count) / width);
          const ch = channels[(base + count) % width];
          throw new BvhParseError(
            `non-finite value '${text.slice(start, i)}' for frame ${frame}, channel ${ch.name} of joint '${names[ch.joint]}'`,
            line,
            start - lineStart + 1,
            'bvh-non-finite',
          );
        }
        bad.push(count);
        value = Number.NaN;
      }
      if (count === capacity) {
        // only with repair, which keeps every row (without, a full chunk has left the loop)
        capacity = Math.max(capacity * 2, 1024 * width);
        const grown = new Float64Array(capacity);
        grown.set(values);
        values = grown;
      }
      if (inRow === 0) {
        rowLine = line;
        rowColumn = start - lineStart + 1;
      }
      values[count++] = value;
      inLine++;
      if (++inRow === width) inRow = 0;
      if (count === capacity && !repair) {
        atEnd = false;
        break;
      }
    }
    if (atEnd) {
      if (inLine !== 0) lineMode = checkLine(inLine, lineMode, width, base + count, line);
      if (inRow !== 0) {
        throw new BvhParseError(
          `expected ${width} numbers for frame ${Math.floor((base + count) / width)}, found ${inRow}`,
          rowLine,
          rowColumn,
        );
      }
    }
    // complete rows only: a chunk holds whole rows, and at the end an incomplete row has thrown
    if (!repair && count > 0) {
      sink.add(values, count / width);
      base += count;
      count = 0;
    }
    if (atEnd) break;
  }
  r.pos = i;
  r.line = line;
  r.lineStart = lineStart;
  const rows = width === 0 ? declared : (base + count) / width;
  return { values: repair ? values : new Float64Array(0), rows, bad };
}

/**
 * Checks the count of numbers on a finished line of frame data against the row width and returns the line
 * mode (1 = one frame per line, 2 = rows wrapped over lines) that the first line decides. `next` is the
 * index of the next value in the file. A top-level function rather than a closure in the scanner, so that
 * the scanner's optimised code does not depend on a per-call closure object.
 */
function checkLine(inLine: number, lineMode: number, width: number, next: number, line: number): number {
  if (lineMode === 0) {
    // one frame per line, or wrapped rows; a first line longer than a frame that does not hold
    // whole frames is a broken first row, not wrapping
    if (inLine > width && inLine % width !== 0) {
      throw new BvhParseError(`expected ${width} numbers for frame 0, found ${inLine}`, line, 1);
    }
    lineMode = inLine === width ? 1 : 2;
  }
  if (lineMode === 1 && inLine !== width) {
    const frame = Math.floor((next - inLine) / width);
    throw new BvhParseError(`expected ${width} numbers for frame ${frame}, found ${inLine}`, line, 1);
  }
  return lineMode;
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
            `channel ${ch.name} of joint '${names[ch.joint]}' has no finite value to repair from`,
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
  checkOptions(options, PARSE_BVH_DEFAULTS, 'parseBvh', ['onWarning']);
  const maxValues = options.maxValues ?? PARSE_BVH_DEFAULTS.maxValues;
  if (typeof maxValues !== 'number' || !(maxValues >= 0))
    throw new OptionError(`parseBvh: maxValues must be a non-negative number, got ${String(maxValues)}`);
  if (options.onWarning !== undefined && typeof options.onWarning !== 'function')
    throw new OptionError('parseBvh: onWarning must be a function');
  const positionMode = options.positionMode ?? PARSE_BVH_DEFAULTS.positionMode;
  if (positionMode !== 'replace' && positionMode !== 'add') {
    throw new OptionError(`parseBvh: positionMode must be 'replace' or 'add', got '${String(positionMode)}'`);
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

  const r = new Reader(text);
  const { joints, endSites } = parseHierarchy(r, warn);
  const header = parseMotionHeader(r);

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
  const boundRows = width > 0 ? Math.floor((text.length - r.pos) / (2 * width)) + 1 : header.declaredFrames;
  // the data cannot hold more rows than boundRows, so this bounds what the clip allocates
  const values = Math.min(header.declaredFrames, boundRows) * joints.length * 7;
  if (values > maxValues) {
    throw new BvhParseError(
      `'Frames:' declares ${header.declaredFrames} frames of ${joints.length} joints, up to ${values} values; at most maxValues = ${maxValues} are read`,
      header.framesLine,
      1,
      'bvh-too-large',
    );
  }
  const converter = new FrameConverter(
    joints,
    width,
    Math.min(header.declaredFrames, boundRows),
    positionMode,
  );
  const data = parseFrameData(r, width, header.declaredFrames, channelInfo, names, repair, converter);
  const frames = data.rows;
  if (width > 0 && frames !== header.declaredFrames) {
    warn({
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
    warn({
      code: 'repaired',
      message: `repaired ${data.bad.length} non-finite value(s) by interpolation along their channel; the first at frame ${Math.floor(first / width)}, channel ${ch.name} of joint '${names[ch.joint]}'`,
    });
  }
  if (repair || width === 0) converter.add(data.values, frames);
  converter.finish();
  // OFFSET + channel can overflow to infinity in 'add' mode even though both were finite in the text
  if (positionMode === 'add') checkAddedTranslations(converter.translations, joints, header.framesLine);

  const clip = buildClip(joints, endSites, header, converter, positionMode);
  checkRootPositions(clip, joints, converter, positionMode, warn);
  return { clip, warnings };
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

/**
 * Turns rows of raw channel values into local rotations (quaternions from each joint's Euler channels)
 * and translations (OFFSET with position channels replacing or added), growing its arrays as rows come.
 * Also sums the root position channels for {@link checkRootPositions}.
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
  /** Rows `Frames:` declared: the first {@link add} allocates this many. */
  private readonly declaredRows: number;
  /** Per joint, the columns of its 3 Euler angles in `order` (-1 = missing, angle 0) and of X/Y/Z position. */
  private readonly rotColumn: Int32Array;
  private readonly posColumn: Int32Array;
  private readonly hasRotation: Uint8Array;
  private readonly sumColumns: Int32Array;
  private readonly additive: boolean;
  private readonly angles = new Float64Array(3);
  /** Per joint, its rotation sequence resolved once (not looked up for every frame). */
  private readonly specs: EulerSpec[] = [];

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
    this.posColumn = new Int32Array(J * 3).fill(-1);
    this.hasRotation = new Uint8Array(J);
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
          this.hasRotation[j] = 1;
        } else {
          this.posColumn[j * 3 + (POSITION_AXIS[c] as number)] = column;
          if (joint.parent === -1) sumColumns.push(column);
        }
        column++;
      }
    }
    this.sumColumns = Int32Array.from(sumColumns);
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
      const grown = this.capacity + Math.max(1024, this.capacity >> 3);
      const capacity = Math.max(this.rows + rowCount, this.rows === 0 ? declared : grown);
      const rotations = new Float64Array(capacity * J * 4);
      rotations.set(this.rotations.subarray(0, this.rows * J * 4));
      const translations = new Float64Array(capacity * J * 3);
      translations.set(this.translations.subarray(0, this.rows * J * 3));
      this.rotations = rotations;
      this.translations = translations;
      this.capacity = capacity;
    }
    const {
      rotations,
      translations,
      rotColumn,
      posColumn,
      hasRotation,
      offsets,
      specs,
      angles,
      sums,
      sumColumns,
    } = this;
    const add = this.additive;
    for (let r = 0; r < rowCount; r++) {
      const row = r * width;
      const f = this.rows + r;
      for (let j = 0; j < J; j++) {
        const q = (f * J + j) * 4;
        if (hasRotation[j]) {
          for (let k = 0; k < 3; k++) {
            const c = rotColumn[j * 3 + k];
            angles[k] = c < 0 ? 0 : values[row + c] * DEG;
          }
          composeEuler(rotations, q, specs[j], angles[0], angles[1], angles[2]);
        } else {
          rotations[q + 3] = 1;
        }
        const t = (f * J + j) * 3;
        for (let a = 0; a < 3; a++) {
          const c = posColumn[j * 3 + a];
          const o = offsets[j * 3 + a];
          translations[t + a] = c < 0 ? o : add ? o + values[row + c] : values[row + c];
        }
      }
      for (let k = 0; k < sumColumns.length; k++) sums[sumColumns[k]] += values[row + sumColumns[k]];
    }
    this.rows += rowCount;
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
    rate: 1 / header.frameTime,
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
 */
function checkRootPositions(
  clip: Clip,
  joints: JointBuild[],
  converter: FrameConverter,
  positionMode: PositionMode,
  warn: (w: BvhWarning) => void,
): void {
  if (clip.frames === 0) return;
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
      warn({
        code: 'position-offset',
        message:
          positionMode === 'replace'
            ? `the position channels of root '${joint.name}' sit far from its OFFSET (${off.join(' ')}) and near zero; the file may be meant for positionMode '${other}'`
            : `the position channels of root '${joint.name}' sit on its OFFSET (${off.join(' ')}); adding doubles it, the file may be meant for positionMode '${other}'`,
        line: joint.line,
        column: joint.column,
      });
    }
  }
}

function checkAddedTranslations(translations: Float64Array, joints: JointBuild[], line: number): void {
  const J = joints.length;
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i])) {
      const item = Math.floor(i / 3);
      const joint = joints[item % J];
      throw new BvhParseError(
        `OFFSET + position channel of joint '${joint.name}' at frame ${Math.floor(item / J)} overflows to ${translations[i]}`,
        line,
        1,
      );
    }
  }
}
