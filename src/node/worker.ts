// Worker entry of the batch pool: runs one file task per message with the same code as the main thread.
import { parentPort } from 'node:worker_threads';
import type { FileTask } from './task.js';
import { runFileTask } from './tasks.js';

parentPort?.on('message', (message: { id: number; job: FileTask }) => {
  const result = runFileTask(message.job);
  parentPort!.postMessage({ id: message.id, result });
});
