// Worker entry of the batch pool: runs one file task per message with the same code as the main thread.
import { parentPort } from 'node:worker_threads';
import type { FileTask } from './task.js';
import { runAnyFileTask } from './tasks.js';

parentPort?.on('message', async (message: { id: number; job: FileTask }) => {
  const result = await runAnyFileTask(message.job);
  parentPort!.postMessage({ id: message.id, result });
});
