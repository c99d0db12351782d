/**
 * The BVH frame-data scanner: UTF-8 bytes in, numbers out, chunk by chunk. Bytes may arrive in pieces of
 * any size; a number, a CRLF or a multi-byte character cut by a chunk boundary is carried over to the next
 * chunk (a few bytes), so the text never has to exist in one piece and its length is not bounded by the
 * engine's longest string. Decimals of up to 15 significant digits take Clinger's exact fast path, longer
 * ones `Number()`, so every value is the correctly rounded float64 of its text.
 *
 * Lines, columns and messages are those of the text reader: columns count UTF-16 units, a lone CR, an LF
 * or a CRLF ends a line, and U+00A0 and U+FEFF separate numbers like spaces do.
 *
 * @module
 */
import { type SimdInstance, simdScratch, simdScratchCalls } from '../../numeric/simd.js';
import type { ChannelName } from '../../series/clip.js';
import { BvhParseError } from './errors.js';
import { quoteToken } from './quote.js';

/**
 * A mantissa below this takes one more digit and stays an exact integer below 2^53, for which `m * 10^k`
 * and `m / 10^k` (k <= 22) are correctly rounded (Clinger's fast path). (2^53 / 10 itself would let
 * `m * 10 + 9` pass 2^53 and round before the scaling.)
 */
const MANTISSA_LIMIT = Math.floor(2 ** 53 / 10) - 1;
const POW10 = new Float64Array(23);
for (let k = 0, p = 1; k < 23; k++, p *= 10) POW10[k] = p;

/** Spellings of NaN and infinity that exporters write (C runtimes, .NET, MSVC's `1.#INF`). */
export const NON_FINITE_WORD = /^[+-]?(nan|inf|infinity)(\(.*\))?$|^[+-]?\d*\.?\d*#(inf|ind|qnan|snan)\d*$/i;

/**
 * Classes of bytes: a table lookup instead of a chain of comparisons, so that every file (spaces or tabs,
 * LF or CRLF, a number at the end of a line or not) runs the same operations and the compiled scanner never
 * meets a comparison it has not seen before. Bytes from 0x80 up start a multi-byte character, of which
 * U+00A0 and U+FEFF are blanks and the others start a word that is not a number.
 */
const OTHER = 0;
const BLANK = 1;
const LF = 2;
const CR = 3;
const HIGH = 4;
const SCAN_CLASS = new Uint8Array(256);
for (const c of [9, 11, 12, 32]) SCAN_CLASS[c] = BLANK;
SCAN_CLASS[10] = LF;
SCAN_CLASS[13] = CR;
SCAN_CLASS.fill(HIGH, 128);

/** Where the scanner stopped in a chunk that ended inside a token, so that the token waits for more bytes. */
const MORE = -1;

/**
 * Length in bytes of the blank character (U+00A0 = C2 A0, U+FEFF = EF BB BF) at `i`, 0 if the bytes there
 * are not one, {@link MORE} if the chunk ends before that is known.
 */
function blankLength(b: Uint8Array, i: number, n: number): number {
  const c = b[i];
  if (c === 0xc2) {
    if (i + 1 >= n) return MORE;
    return b[i + 1] === 0xa0 ? 2 : 0;
  }
  if (c === 0xef) {
    if (i + 1 >= n) return MORE;
    if (b[i + 1] !== 0xbb) return 0;
    if (i + 2 >= n) return MORE;
    return b[i + 2] === 0xbf ? 3 : 0;
  }
  return 0;
}

/**
 * The six digits at `b[i..i+5]` as one integer (0 to 999999), or −1 when any of them is not a digit: six
 * decimals (what most exporters and this library's writer print) in one step instead of six turns of a digit
 * loop, the same exact integer. The caller makes sure the six bytes exist.
 */
function sixDigits(b: Uint8Array, i: number): number {
  const d0 = b[i] - 48;
  const d1 = b[i + 1] - 48;
  const d2 = b[i + 2] - 48;
  const d3 = b[i + 3] - 48;
  const d4 = b[i + 4] - 48;
  const d5 = b[i + 5] - 48;
  // d and 9 - d are both >= 0 exactly for a digit: one sign test for all six
  const all = d0 | (9 - d0) | d1 | (9 - d1) | d2 | (9 - d2) | d3 | (9 - d3) | d4 | (9 - d4) | d5 | (9 - d5);
  return all >= 0 ? ((d0 * 10 + d1) * 10 + d2) * 1000 + ((d3 * 10 + d4) * 10 + d5) : -1;
}

/** Most bytes of a chunk copied into the WebAssembly row scanner's memory at a time. */
const WINDOW_BYTES = 1 << 20;

/**
 * The WebAssembly row scanner (`bvhRows` in `numeric/simd.wat`) for one {@link FrameScanner.scan} call:
 * plain rows read about 3.5 times as fast as by {@link plainRow}, to the same doubles. The chunk is copied
 * into the kernel's memory a window at a time; the values come back into the scanner's buffer. Memory:
 * the powers of ten at 0, the kernel's state at 192, the values at 256, the window after them.
 */
class RowKernel {
  private readonly kernels: SimdInstance['kernels'];
  private readonly bytes: Uint8Array;
  private readonly powers: Float64Array;
  private readonly out: Float64Array;
  private readonly state: Int32Array;
  private readonly windowAt: number;
  /** The bytes of the chunk in the window: `[from, to)`, or none (from > to). */
  private from = 1;
  private to = 0;
  /** Where the last call left the next row, in the chunk. */
  pos = 0;
  /** Bytes per row of the rows read last (0: none yet), to size the next window. */
  private rowBytes = 0;
  /**
   * {@link simdScratchCalls} when the window and the powers of ten were copied in: another user of the
   * memory since then (the sink's converter) may have written over them.
   */
  private epoch = -1;

  private constructor(instance: SimdInstance, capacity: number) {
    this.kernels = instance.kernels;
    const buffer = instance.buffer;
    this.powers = new Float64Array(buffer, 0, 23);
    this.state = new Int32Array(buffer, 192, 2);
    this.out = new Float64Array(buffer, 256, capacity);
    this.windowAt = 256 + ((capacity * 8 + 15) & ~15);
    this.bytes = new Uint8Array(buffer, this.windowAt, WINDOW_BYTES + 16);
  }

  /** A row kernel for a values buffer of `capacity`, or null where there is no WebAssembly (the JavaScript path then). */
  static create(capacity: number): RowKernel | null {
    const instance = simdScratch(256 + capacity * 8 + 16 + WINDOW_BYTES + 16);
    return instance === null ? null : new RowKernel(instance, capacity);
  }

  /**
   * Reads up to `maxRows` whole plain rows of `width` values from `b[i..n)` into `values[at..]`; returns
   * the rows read and sets {@link pos} to the byte after them. Stops early at a row that is not plain (the
   * general path reads it) or that the chunk cuts.
   */
  rows(
    b: Uint8Array,
    i: number,
    n: number,
    values: Float64Array,
    at: number,
    width: number,
    maxRows: number,
  ): number {
    let total = 0;
    let p = i;
    if (this.rowBytes === 0) this.rowBytes = width * 16;
    for (;;) {
      let fresh = false;
      let want = 0;
      if (p < this.from || p >= this.to || this.epoch !== simdScratchCalls()) {
        // a new window from p, ended by a 0 byte (the kernel's digit loops stop there): the bytes of the
        // rows asked for, by the rows read so far, and a quarter more (copying more only costs time)
        want = Math.min(
          WINDOW_BYTES,
          Math.max(16384, Math.ceil((maxRows - total) * this.rowBytes * 1.25) + 1024),
        );
        this.from = p;
        this.to = Math.min(n, p + want);
        this.bytes.set(b.subarray(p, this.to));
        this.bytes[this.to - p] = 0;
        this.powers.set(POW10);
        this.epoch = simdScratchCalls();
        fresh = true;
      }
      const start = this.windowAt + (p - this.from);
      const got = this.kernels.bvhRows(
        start,
        this.windowAt + (this.to - this.from),
        256,
        width,
        maxRows - total,
        0,
        192,
      );
      const next = this.from + (this.state[0] - this.windowAt);
      if (got > 0) {
        values.set(this.out.subarray(0, got * width), at + total * width);
        total += got;
        this.rowBytes = (next - p) / got;
      }
      p = next;
      // at the window's end with more of the chunk after it: the next window; a fresh window that held no
      // whole row was too small (four times the estimate next), and a row longer than the largest window is
      // the general path's
      if (this.state[1] !== 1 || this.to >= n) break;
      if (got === 0 && fresh) {
        if (want >= WINDOW_BYTES) break;
        this.rowBytes *= 4;
      }
      this.from = 1;
      this.to = 0;
    }
    this.pos = p;
    return total;
  }
}

const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of bytes `start..end` (a token: short). */
function textOf(b: Uint8Array, start: number, end: number): string {
  return DECODER.decode(b.subarray(start, end));
}

/** Where complete rows go: `rowCount` rows of `values`, `width` numbers each, from index 0. */
export interface RowSink {
  add(values: Float64Array, rowCount: number): void;
}

/** What the scanner knows about each column of a row, for messages. */
export interface ScanChannel {
  joint: number;
  name: ChannelName;
}

/** Options of a {@link FrameScanner}. */
export interface FrameScannerSetup {
  /** Numbers per frame (the hierarchy's channel count). */
  width: number;
  /** Frames `Frames:` declares. */
  declared: number;
  /** An upper bound of the rows the data can hold (from its size), or Infinity when the size is unknown. */
  boundRows: number;
  /** Keep every value (and the indices of non-finite ones) instead of handing rows to `sink`. */
  repair: boolean;
  channels: ScanChannel[];
  names: string[];
  sink: RowSink;
  /** Line and column (1-based, UTF-16 units) of the first byte of the data. */
  line: number;
  column: number;
}

/** What the scan found, after {@link FrameScanner.finish}. */
export interface FrameData {
  /** All values, `rows x width`, only with `repair` (otherwise they went to the sink chunk by chunk). */
  values: Float64Array;
  rows: number;
  /** Flat indices of non-finite values (only collected with `repair`). */
  bad: number[];
  /** With `repair`: the incomplete last row that was dropped (its frame, line and how many numbers it had). */
  dropped: { frame: number; line: number; found: number } | null;
}

/**
 * Raw channel values buffered before they are converted (whole rows of them, at least one): 64 KiB, which
 * stays in cache and, being small, comes from memory the allocator reuses rather than from fresh pages that
 * each fault on first touch (a 1,024-row buffer of a 180-channel file was 1.5 MB, a few hundred page faults
 * per file read).
 */
const CHUNK_VALUES = 8192;
const EMPTY = new Uint8Array(0);

/**
 * Reads frame data as one stream of numbers, `width` per frame, from UTF-8 chunks ({@link push}, then
 * {@link finish}). If the first data line holds exactly `width` numbers the file is taken to be one frame
 * per line and every line must hold `width`; otherwise rows may wrap and only the total must divide.
 * Complete rows go to the sink in chunks of 64 KiB of values (all at the end with `repair`, which the caller applies
 * before handing them on itself).
 */
export class FrameScanner {
  private readonly width: number;
  private readonly declared: number;
  private readonly repair: boolean;
  private readonly channels: ScanChannel[];
  private readonly names: string[];
  private readonly sink: RowSink;
  private values: Float64Array;
  private capacity: number;
  /** Values handed to the sink already; `base + count` is the index of the next value in the file. */
  private base = 0;
  private count = 0;
  /** Bytes scanned before the current chunk (its first byte's offset from the start of the data). */
  private offset = 0;
  private line: number;
  /** Offset of the current line's first byte, less the extra bytes of its multi-byte characters. */
  private lineStart: number;
  private inLine = 0;
  /** 0 unknown, 1 one frame per line, 2 wrapped. */
  private lineMode = 0;
  private inRow = 0;
  private rowLine = 0;
  private rowColumn = 1;
  private readonly bad: number[] = [];
  /** With repair: a short line in one-frame-per-line data, an error unless it is the data's last. */
  private short: BvhParseError | null = null;
  private dropped: FrameData['dropped'] = null;
  /** The unfinished token at the end of the last chunk, scanned again with the next. */
  private carry: Uint8Array = EMPTY;
  /** Where a carried token is joined to the next chunk. */
  private work: Uint8Array = EMPTY;
  private finished = false;

  constructor(setup: FrameScannerSetup) {
    const { width, declared, boundRows, repair } = setup;
    this.width = width;
    this.declared = declared;
    this.repair = repair;
    this.channels = setup.channels;
    this.names = setup.names;
    this.sink = setup.sink;
    this.line = setup.line;
    this.lineStart = 1 - setup.column;
    // without repair, rows go to the sink in chunks that stay in cache; repair needs every row at the end
    const chunkRows = Math.max(
      1,
      Math.min(repair ? declared : Math.floor(CHUNK_VALUES / Math.max(1, width)), declared, boundRows),
    );
    this.capacity = chunkRows * width;
    this.values = new Float64Array(this.capacity);
  }

  /** Scans the next chunk of bytes. The scanner keeps no reference to `chunk`: its buffer may be reused. */
  push(chunk: Uint8Array): void {
    this.scanChunk(chunk, false);
  }

  /** Scans what is left at the end of the data, checks the last row and hands the last rows on. */
  finish(): FrameData {
    if (!this.finished) {
      this.scanChunk(EMPTY, true);
      this.finished = true;
    }
    const rows = this.width === 0 ? this.declared : (this.base + this.count) / this.width;
    return {
      values: this.repair ? this.values : new Float64Array(0),
      rows,
      bad: this.bad,
      dropped: this.dropped,
    };
  }

  private scanChunk(chunk: Uint8Array, final: boolean): void {
    let b = chunk;
    let offset = this.offset;
    const carried = this.carry.length;
    if (carried > 0) {
      // the carried token and the chunk in one buffer, kept for the next chunk of the same size
      if (this.work.length < carried + chunk.length) this.work = new Uint8Array(carried + chunk.length + 64);
      b = this.work.subarray(0, carried + chunk.length);
      b.set(this.carry);
      b.set(chunk, carried);
      offset -= carried;
    }
    const end = this.scan(b, offset, final);
    this.carry = end < b.length ? b.slice(end) : EMPTY;
    this.offset = offset + b.length;
  }

  /**
   * Scans `b` (whose first byte is at `offset` in the data) and returns where it stopped: its length, or
   * the start of a token that the chunk may cut (only when not `final`).
   */
  private scan(b: Uint8Array, offset: number, final: boolean): number {
    const n = b.length;
    const width = this.width;
    const repair = this.repair;
    const capacity0 = this.capacity;
    let values = this.values;
    let capacity = capacity0;
    let count = this.count;
    let line = this.line;
    // column of byte i = i - lineStart + 1
    let lineStart = this.lineStart - offset;
    let inLine = this.inLine;
    let lineMode = this.lineMode;
    let inRow = this.inRow;
    let rowLine = this.rowLine;
    let rowColumn = this.rowColumn;
    let i = 0;
    let base = this.base;
    let stop = n;
    // the next LF at or after i (n: none in this chunk), found once per line by the fast path
    let nextLf = -1;
    // the WebAssembly row scanner, made when the fast path is first taken in this call (null: none here)
    let kernel: RowKernel | null | undefined;
    // One pass of the outer loop per chunk of rows. Every file, however small, passes through the same
    // hand-over to the sink and the same end-of-data checks, so the engine has seen them run before it
    // compiles this loop for a large file (code first reached inside optimised code costs a deoptimisation
    // and a recompile).
    for (;;) {
      let full = false;
      for (;;) {
        // separators
        let c = 0;
        let more = false;
        while (i < n) {
          c = b[i];
          const k = SCAN_CLASS[c];
          if (k === OTHER) break;
          if (k === BLANK) {
            i++;
            continue;
          }
          if (k === HIGH) {
            const blank = blankLength(b, i, n);
            if (blank === 0 || (blank === MORE && final)) break;
            if (blank === MORE) {
              more = true;
              break;
            }
            // one UTF-16 unit of several bytes
            lineStart += blank - 1;
            i += blank;
            continue;
          }
          // LF, or a CR not followed by LF, ends a line; a CR at the end of a chunk waits for the next byte
          if (k === CR) {
            if (i + 1 >= n && !final) {
              more = true;
              break;
            }
            if (i + 1 < n && b[i + 1] === 10) {
              i++;
              continue;
            }
          }
          if (inLine !== 0) {
            if (repair) {
              const check = checkLineRepairing(inLine, lineMode, width, base + count, line);
              if (check instanceof BvhParseError) this.short = check;
              else lineMode = check;
            } else lineMode = checkLine(inLine, lineMode, width, base + count, line);
            inLine = 0;
          }
          line++;
          lineStart = i + 1;
          i++;
          // whole lines of one frame each, of plain decimals: the fast path, line by line while it holds
          if (lineMode === 1 && inLine === 0 && inRow === 0 && !repair) {
            // the WebAssembly scanner first, as many rows as the buffer takes; it stops where a row is not
            // plain, and the loop below (then the general path) reads that row
            if (kernel === undefined) kernel = RowKernel.create(capacity);
            if (kernel !== null && count + width <= capacity) {
              const got = kernel.rows(b, i, n, values, count, width, Math.floor((capacity - count) / width));
              if (got > 0) {
                count += got * width;
                line += got;
                i = kernel.pos;
                lineStart = i;
              }
            }
            while (count + width <= capacity) {
              if (nextLf < i) {
                nextLf = b.indexOf(10, i);
                if (nextLf < 0) nextLf = n;
              }
              if (nextLf >= n || !plainRow(b, i, nextLf, values, count, width)) break;
              count += width;
              line++;
              i = nextLf + 1;
              lineStart = i;
            }
            if (count === capacity) {
              full = true;
              break;
            }
          }
        }
        if (full) break;
        if (more) {
          stop = i;
          break;
        }
        if (i >= n) break;
        // a short line is forgiven only as the data's last (a file cut off mid-row)
        if (this.short !== null) throw this.short;
        const start = i;
        if (width === 0) {
          throw new BvhParseError(
            'found frame data but the hierarchy declares no channels',
            line,
            start - lineStart + 1,
          );
        }
        // hand-parsed decimal: sign, digits, fraction, exponent. Up to 15 significant digits accumulate
        // exactly in a double (below 2^53), so `mantissa / 10^fraction` is Clinger's correctly rounded fast
        // path; longer mantissas and exponents are read again by `decimalAt`
        let negative = false;
        if (c === 45) {
          negative = true;
          i++;
        } else if (c === 43) {
          i++;
        }
        let mantissa = 0;
        const intStart = i;
        while (i < n) {
          const d = (b[i] - 48) >>> 0;
          if (d > 9) break;
          mantissa = mantissa * 10 + d;
          i++;
        }
        let digits = i - intStart;
        let fraction = 0;
        if (i < n && b[i] === 46) {
          i++;
          const at = i;
          // six decimals (what most exporters and this library's writer print) in one step: six digits
          // and a byte after them that is not one, read without a loop
          if (i + 6 < n) {
            const six = sixDigits(b, i);
            if (six >= 0 && (b[i + 6] - 48) >>> 0 > 9) {
              mantissa = mantissa * 1000000 + six;
              i += 6;
            }
          }
          while (i < n) {
            const d = (b[i] - 48) >>> 0;
            if (d > 9) break;
            mantissa = mantissa * 10 + d;
            i++;
          }
          fraction = i - at;
          digits += fraction;
        }
        let ok = digits > 0;
        let general = digits > 15;
        if (ok && i < n && (b[i] | 0x20) === 101) {
          general = true;
          i++;
          const s = i < n ? b[i] : 0;
          if (s === 45 || s === 43) i++;
          const at = i;
          while (i < n) {
            const d = b[i] - 48;
            if (d < 0 || d > 9) break;
            i++;
          }
          if (i === at) ok = false;
        }
        // the token ends at a blank or at the end of the data; at the end of a chunk it may go on
        let ends: boolean;
        if (i >= n) {
          if (!final) {
            stop = start;
            break;
          }
          ends = true;
        } else {
          const k = SCAN_CLASS[b[i]];
          if (k === HIGH) {
            const blank = blankLength(b, i, n);
            if (blank === MORE && !final) {
              stop = start;
              break;
            }
            ends = blank > 0;
          } else ends = k !== OTHER;
        }
        let value: number;
        if (ok && ends) {
          if (general) value = decimalAt(b, start, i);
          // a product rather than a negation, which a file of positive numbers would first meet late
          else value = (negative ? -1 : 1) * (mantissa / POW10[fraction]);
        } else {
          // not a plain decimal: a non-finite spelling or garbage, up to the next blank
          let end = start;
          while (end < n) {
            const k = SCAN_CLASS[b[end]];
            if (k === BLANK || k === LF || k === CR) break;
            if (k === HIGH) {
              const blank = blankLength(b, end, n);
              if (blank > 0 || (blank === MORE && !final)) break;
            }
            end++;
          }
          if (!final && (end >= n || blankLength(b, end, n) === MORE)) {
            stop = start;
            break;
          }
          const word = textOf(b, start, end);
          if (!NON_FINITE_WORD.test(word)) {
            throw new BvhParseError(`${quoteToken(word)} is not a number`, line, start - lineStart + 1);
          }
          value = Number.NaN;
          i = end;
          // a multi-byte character in an accepted word shifts the columns after it
          lineStart += end - start - word.length;
        }
        if (!Number.isFinite(value)) {
          if (!repair) {
            const next = base + count;
            const frame = Math.floor(next / width);
            const ch = this.channels[next % width];
            throw new BvhParseError(
              `non-finite value ${quoteToken(textOf(b, start, i))} for frame ${frame}, channel ${ch.name} of joint ${quoteToken(this.names[ch.joint])}`,
              line,
              start - lineStart + 1,
              'bvh-non-finite',
            );
          }
          this.bad.push(count);
          value = Number.NaN;
        }
        if (count === capacity) {
          // only with repair, which keeps every row (without, a full chunk has been handed on)
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
          full = true;
          break;
        }
      }
      const end = !full && final && stop === n;
      if (end && repair && inRow !== 0) {
        // a file cut off mid-row: keep the complete frames, drop the partial one (the caller warns)
        this.dropped = { frame: Math.floor((base + count) / width), line: rowLine, found: inRow };
        count -= inRow;
        while (this.bad.length > 0 && this.bad[this.bad.length - 1] >= count) this.bad.pop();
        inRow = 0;
        inLine = 0;
      }
      if (end) {
        if (inLine !== 0) {
          lineMode = checkLine(inLine, lineMode, width, base + count, line);
          inLine = 0;
        }
        if (inRow !== 0) {
          throw new BvhParseError(
            `expected ${width} numbers for frame ${Math.floor((base + count) / width)}, found ${inRow}`,
            rowLine,
            rowColumn,
          );
        }
      }
      // complete rows only: a full chunk holds whole rows, and at the end an incomplete row has thrown
      if ((full || end) && !repair && count > 0) {
        this.sink.add(values, count / width);
        base += count;
        count = 0;
      }
      if (!full) break;
    }
    this.base = base;
    this.values = values;
    this.capacity = capacity;
    this.count = count;
    this.line = line;
    this.lineStart = lineStart + offset;
    this.inLine = inLine;
    this.lineMode = lineMode;
    this.inRow = inRow;
    this.rowLine = rowLine;
    this.rowColumn = rowColumn;
    return stop;
  }
}

/**
 * The fast path of the scanner: reads the line `b[start..lf)` (`b[lf]` is its LF) as exactly `width` plain
 * decimals (`-`, digits, `.` and digits, 15 digits at most, an exponent of up to 3 digits that keeps the
 * power of ten within 10^±22) separated by spaces or tabs, with
 * an optional CR before the LF, into `values[at..at + width)`. Returns false, having changed nothing the
 * scanner keeps (values past its count are scratch), on anything else: the general scanner then reads the
 * line, with its rules and messages. The LF ends every inner loop, so no loop tests the chunk's end.
 * The values are those the general scanner computes: the same exact mantissa (below 10^15 < 2^53) times
 * or over the same power of ten (Clinger's fast path, correctly rounded), negated after.
 */
function plainRow(
  b: Uint8Array,
  start: number,
  lf: number,
  values: Float64Array,
  at: number,
  width: number,
): boolean {
  let i = start;
  let k = 0;
  for (;;) {
    let c = b[i];
    while (c === 32 || c === 9) c = b[++i];
    if (c === 10) break;
    if (c === 13) {
      if (i + 1 !== lf) return false;
      break;
    }
    if (k === width) return false;
    const negative = c === 45;
    if (negative) c = b[++i];
    const first = i;
    let mantissa = 0;
    let d = (c - 48) >>> 0;
    while (d <= 9) {
      mantissa = mantissa * 10 + d;
      d = (b[++i] - 48) >>> 0;
    }
    if (i === first) return false;
    let digits = i - first;
    let fraction = 0;
    if (b[i] === 46) {
      const at0 = ++i;
      // six decimals in one step (most files print six): the same exact integer as six steps of the loop
      // below, which reads any further digits (under 15 digits in all, every partial value is an integer
      // below 2^53). Only while the line has six more bytes, so no read passes its LF.
      if (i + 6 <= lf) {
        const six = sixDigits(b, i);
        if (six >= 0) {
          mantissa = mantissa * 1000000 + six;
          i += 6;
        }
      }
      d = (b[i] - 48) >>> 0;
      while (d <= 9) {
        mantissa = mantissa * 10 + d;
        d = (b[++i] - 48) >>> 0;
      }
      fraction = i - at0;
      digits += fraction;
    }
    if (digits > 15) return false;
    c = b[i];
    // an exponent (`e-06`, `E+5`): what `decimalAt` computes, within its fast path's powers of ten
    let exp10 = -fraction;
    if ((c | 0x20) === 101) {
      c = b[++i];
      const expNegative = c === 45;
      if (expNegative || c === 43) c = b[++i];
      const from = i;
      let e = 0;
      d = (c - 48) >>> 0;
      while (d <= 9 && i - from < 3) {
        e = e * 10 + d;
        d = (b[++i] - 48) >>> 0;
      }
      if (i === from || d <= 9) return false;
      exp10 += expNegative ? -e : e;
      if (exp10 > 22 || exp10 < -22) return false;
      c = b[i];
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
    const value = exp10 < 0 ? mantissa / POW10[-exp10] : mantissa * POW10[exp10];
    values[at + k] = negative ? -value : value;
    k++;
  }
  return k === width;
}

/**
 * The value of the decimal `b[start..end)` (sign, digits, optional fraction and exponent; checked by the
 * caller): Clinger's fast path while the mantissa has at most 15 significant digits and the power of ten
 * is within 10^±22, `Number()` of the text otherwise, so it is always the correctly rounded float64.
 */
function decimalAt(b: Uint8Array, start: number, end: number): number {
  let i = start;
  const negative = b[i] === 45;
  if (negative || b[i] === 43) i++;
  let mantissa = 0;
  let exp10 = 0;
  let slow = false;
  for (; i < end; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) break;
    if (mantissa < MANTISSA_LIMIT) mantissa = mantissa * 10 + d;
    else slow = true;
  }
  if (i < end && b[i] === 46) {
    for (i++; i < end; i++) {
      const d = b[i] - 48;
      if (d < 0 || d > 9) break;
      if (mantissa < MANTISSA_LIMIT) {
        mantissa = mantissa * 10 + d;
        exp10--;
      } else slow = true;
    }
  }
  if (i < end) {
    // exponent
    i++;
    const expNegative = b[i] === 45;
    if (expNegative || b[i] === 43) i++;
    let e = 0;
    for (; i < end; i++) if (e < 100000) e = e * 10 + b[i] - 48;
    exp10 += expNegative ? -e : e;
  }
  if (slow || exp10 > 22 || exp10 < -22) return Number(textOf(b, start, end));
  const value = exp10 < 0 ? mantissa / POW10[-exp10] : mantissa * POW10[exp10];
  return negative ? -value : value;
}

/** {@link checkLine} for repair: returns the error for a short line instead of throwing it. */
function checkLineRepairing(
  inLine: number,
  lineMode: number,
  width: number,
  next: number,
  line: number,
): number | BvhParseError {
  try {
    return checkLine(inLine, lineMode, width, next, line);
  } catch (error) {
    if (error instanceof BvhParseError) return error;
    throw error;
  }
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
