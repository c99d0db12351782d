/** A stream the progress bar can draw on (process.stderr, or a test double). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * A one-line progress bar with files/s and ETA, redrawn in place on a terminal. It draws only when the
 * stream is a TTY (silent in CI logs and pipes) and at most every 100 ms.
 *
 * @example
 * const bar = new ProgressBar(tasks.length, process.stderr);
 * for (const task of tasks) bar.tick(runFileTask(task).ok);
 * bar.clear();
 */
export class ProgressBar {
  private readonly stream: ProgressStream;
  private readonly total: number;
  private readonly start = Date.now();
  private readonly enabled: boolean;
  private done = 0;
  private failed = 0;
  private lastDraw = 0;
  private drawn = false;

  constructor(total: number, stream: ProgressStream, enabled = true) {
    this.total = total;
    this.stream = stream;
    this.enabled = enabled && stream.isTTY === true && total > 1;
  }

  /** Counts one finished file and redraws if due. */
  tick(ok: boolean): void {
    this.done += 1;
    if (!ok) this.failed += 1;
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < 100 && this.done < this.total) return;
    this.lastDraw = now;
    this.draw(now);
  }

  /** Prints a message above the bar (errors during the batch) without mangling it. */
  message(text: string): void {
    this.clear();
    this.stream.write(text.endsWith('\n') ? text : `${text}\n`);
    if (this.drawn) this.draw(Date.now());
  }

  /** Removes the bar from the terminal. */
  clear(): void {
    if (this.enabled && this.drawn) this.stream.write('\r\x1b[2K');
  }

  private draw(now: number): void {
    const seconds = Math.max((now - this.start) / 1000, 1e-3);
    const rate = this.done / seconds;
    const eta = rate > 0 ? (this.total - this.done) / rate : 0;
    const width = Math.max(10, Math.min(30, (this.stream.columns ?? 80) - 50));
    const filled = Math.round((width * this.done) / this.total);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const failed = this.failed ? `, ${this.failed} failed` : '';
    this.stream.write(
      `\r\x1b[2K[${bar}] ${this.done}/${this.total}${failed}  ${rate.toFixed(1)} files/s  ETA ${formatSeconds(eta)}`,
    );
    this.drawn = true;
  }
}

/**
 * `75.3` -> `1m15s`, `4.2` -> `4.2s`.
 *
 * @example
 * formatSeconds(75.3); // '1m15s'
 */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m${Math.round(seconds - 60 * m)
    .toString()
    .padStart(2, '0')}s`;
}
