/**
 * Named moments of opening a file, on one clock for the page and the worker (`performance.timeOrigin` plus
 * `performance.now()`, milliseconds since the epoch): where an open's time goes, for the bench
 * (`bench/studio-open.js`) and the tests. Each thread keeps its own list; the worker's comes to the page
 * with its messages.
 */
export type OpenMark = [label: string, at: number];

/** Appends a mark at the current time to `marks`. */
export function mark(marks: OpenMark[], label: string): void {
  marks.push([label, performance.timeOrigin + performance.now()]);
}
