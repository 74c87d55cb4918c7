// Starts the export worker from TypeScript sources (development and tests): registers tsx's
// loader in this thread, then loads the worker. The built service starts dist/export-worker.js.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
