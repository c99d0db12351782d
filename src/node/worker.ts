// Worker entry of the batch pool: runs one file task per message with the same code as the main thread.
// Tasks run in the order they came, one turn of the event loop apart; while one runs, the first chunk of
// the next task's BVH input is read on the thread pool (readAheadBvhFile), so the copy out of the page
// cache is off this thread and done by the time the next task reads.
import { parentPort, workerData } from 'node:worker_threads';
import { readAheadBvhFile } from './read.js';
import type { FileTask } from './task.js';
import { readsBvhFile, runAnyFileTask } from './tasks.js';

type Message = { id: number; job: FileTask };

const waiting: Message[] = [];
/**
 * The jobs this thread has started, counted on memory the pool shares (pool.ts): a job started and not
 * answered when this thread dies may have written its output, so the pool does not send it again.
 */
const started: Int32Array | undefined = (workerData as { started?: Int32Array } | null)?.started;
let draining = false;

parentPort?.on('message', (message: Message) => {
  waiting.push(message);
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
});

async function drain(): Promise<void> {
  for (let message = waiting.shift(); message !== undefined; message = waiting.shift()) {
    const next = waiting[0]?.job;
    if (next !== undefined && readsBvhFile(next)) void readAheadBvhFile(next.input);
    const { id } = message;
    if (started !== undefined) Atomics.add(started, 0, 1);
    // the task's own work runs now; its flushes to disk finish later, and its result is posted then
    void runAnyFileTask(message.job).then((result) => parentPort!.postMessage({ id, result }));
    // a turn of the event loop: the read-ahead's callback and finished flushes are handled before the
    // next task starts
    await new Promise((resolve) => setImmediate(resolve));
  }
  draining = false;
}
