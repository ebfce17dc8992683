import { type JobReply, type JobRequest, runEngineJob } from './engine-job.js';
import { warmUpEngine } from './warm-up.js';

// A worker process of the bounded engine (engine-pool.ts): it runs one engine call at a time, and the
// pool kills the process when a call outlives its deadline. The first solves warm the engine (module
// evaluation and JIT) before the pool hands the process real work.
const send = process.send?.bind(process);
if (send === undefined) throw new Error('engine-worker.js runs as a child process of the maths engine pool (with an IPC channel)');
// The pool's end is this process's end: a parent that dies (even by SIGKILL) closes the channel.
process.on('disconnect', () => process.exit(0));
warmUpEngine();
process.on('message', (request: JobRequest) => {
  let reply: JobReply;
  try {
    reply = { id: request.id, result: runEngineJob(request.job) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  send(reply);
});
send({ ready: true });
