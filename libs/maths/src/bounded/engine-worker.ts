import { parentPort } from 'node:worker_threads';
import { type JobReply, type JobRequest, runEngineJob } from './engine-job.js';
import { warmUpEngine } from './warm-up.js';

// A worker thread of the bounded engine (engine-pool.ts): it runs one engine call at a time, and the
// pool ends the thread when a call outlives its deadline. The first solve warms the engine (module
// evaluation and JIT) before the pool hands the thread real work.
const port = parentPort;
if (port === null) throw new Error('engine-worker.js runs as a worker thread of the maths engine pool');
warmUpEngine();
port.on('message', (request: JobRequest) => {
  let reply: JobReply;
  try {
    reply = { id: request.id, result: runEngineJob(request.job) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
