/**
 * BVH header reader: the HIERARCHY (joints, OFFSETs, CHANNELS, End Sites) and the MOTION header (`Frames:`,
 * `Frame Time:`), read token by token from text by a {@link Reader} that can ask for more bytes.
 *
 * @module
 */
import type { ChannelName, EndSite } from '../../series/clip.js';
import { BvhParseError, type BvhWarning } from './errors.js';
import { BVH_MAX_DEPTH } from './layout.js';
import { QUOTE_LIMIT, quoteToken } from './quote.js';

/** Nesting limit of JOINT blocks, the writer's too (see `BVH_MAX_DEPTH`). */
const MAX_DEPTH = BVH_MAX_DEPTH;

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

export interface Token {
  text: string;
  line: number;
  column: number;
}

/** Thrown by a {@link Reader} that is not `final` when it reaches the end of its text: more bytes are needed. */
export const NEED_MORE = { needMore: true };

/**
 * Mutable reader state over the text of the hierarchy and MOTION header; positions are UTF-16 indices.
 * A reader that is not `final` holds only the first part of the file: wherever what it reads could go on
 * past the end of its text, it throws {@link NEED_MORE}, and the caller reads again with more text.
 */
export class Reader {
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

export interface JointBuild {
  name: string;
  parent: number;
  offset: [number, number, number];
  channels: ChannelName[];
  line: number;
  column: number;
  hasOffset: boolean;
  hasChannels: boolean;
}

export interface Hierarchy {
  joints: JointBuild[];
  endSites: EndSite[];
}

export function parseHierarchy(r: Reader, warn: (w: BvhWarning) => void): Hierarchy {
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

export interface MotionHeader {
  declaredFrames: number;
  framesLine: number;
  frameTime: number;
  frameTimeText: string;
  /** The standard rate the frame time was read as (see `standardRate`), when it stands for one. */
  rate?: number;
}

export function parseMotionHeader(r: Reader): MotionHeader {
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
