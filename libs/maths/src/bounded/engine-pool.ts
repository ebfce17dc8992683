import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AnswerCheck } from '../check/answer-check.js';
import { DEFAULT_MATHS_BUDGET, type MathsBudget } from '../core/budget-limits.js';
import type { EngineOutcome } from '../types.js';
import type { EngineJob, JobReply } from './engine-job.js';

/**
 * How long past its budget's time a call may run before its thread is ended: the reply's trip back,
 * and the engine's own refusal at its last charge (a call that charges its steps ends itself at the
 * budget's time; only one that never charges meets this deadline).
 */
export const DEADLINE_GRACE_MILLIS = 250;

/** Heap one engine thread may use (the engine itself takes ~110 MB); past it the thread is ended and the call refused. */
const THREAD_HEAP_MB = 512;

/** The most engine threads one process may keep (each holds ~110 MB of engine and up to `THREAD_HEAP_MB`). */
export const MAX_ENGINE_THREADS = 16;

/** Engine threads when none are configured: the cores less one, 1 to 4. */
export function defaultEngineThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

function checkedThreads(threads: number): number {
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_ENGINE_THREADS) throw new RangeError(`threads must be a whole number from 1 to ${MAX_ENGINE_THREADS}, not ${threads}`);
  return threads;
}

export interface BoundedEngineOptions {
  /** Engine threads kept warm at most, 1 to `MAX_ENGINE_THREADS` (default `defaultEngineThreads()`). */
  readonly threads?: number;
  /** Milliseconds past a call's budget before its thread is ended (default `DEADLINE_GRACE_MILLIS`). */
  readonly graceMillis?: number;
}

/** The engine's two calls, as a service uses them (the bounded engine, or an in-thread stand-in in a spec). */
export type MathsEngine = Pick<BoundedMathsEngine, 'solve' | 'check'>;

interface Running {
  readonly id: number;
  readonly job: EngineJob;
  readonly settle: (result: EngineOutcome | AnswerCheck) => void;
  readonly fail: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

interface EngineThread {
  readonly worker: Worker;
  /** Resolves once the engine is loaded and warm in the thread. */
  readonly ready: Promise<void>;
  /** Set once `ready` resolved: only a thread that once worked is replaced at once when it ends. */
  started: boolean;
  running?: Running;
}

/**
 * The maths engine behind a hard deadline. A step budget bounds only the work that charges it; one
 * symbolic library call can run for minutes without charging (`Integrate sin(sin(…x…))` nested 40
 * deep). So each call runs in a worker thread, and a call still running `graceMillis` past its
 * budget's time has its thread ended: the problem is refused as too much work, never answered from
 * the part that ran, and a fresh thread takes the ended one's place. Threads are kept warm between
 * calls (loading the engine takes about a second), so the normal path pays only a message's trip.
 */
export class BoundedMathsEngine {
  private readonly size: number;
  private readonly graceMillis: number;
  private readonly threads = new Set<EngineThread>();
  private readonly idle: EngineThread[] = [];
  private readonly waiting: ((thread: EngineThread) => void)[] = [];
  private nextId = 0;
  private isClosed = false;

  constructor(options: BoundedEngineOptions = {}) {
    this.size = checkedThreads(options.threads ?? defaultEngineThreads());
    this.graceMillis = options.graceMillis ?? DEADLINE_GRACE_MILLIS;
  }

  /** The most threads this engine runs at once (calls past it wait for a free thread). */
  get threadLimit(): number {
    return this.size;
  }

  /** `solveProblem`, bounded in total time (see the class). */
  solve(text: string, budget: MathsBudget = DEFAULT_MATHS_BUDGET): Promise<EngineOutcome> {
    return this.run({ kind: 'solve', text, budget }) as Promise<EngineOutcome>;
  }

  /** `checkFinalAnswer`, bounded in total time: a check past its deadline gives no verdict. */
  check(problem: string, finalAnswer: string, budget: MathsBudget = DEFAULT_MATHS_BUDGET): Promise<AnswerCheck> {
    return this.run({ kind: 'check', problem, finalAnswer, budget }) as Promise<AnswerCheck>;
  }

  /** Starts a thread ahead of the first call (a service at boot), so that call does not wait for the engine to load. */
  async warm(): Promise<void> {
    const thread = await this.acquire();
    try {
      await thread.ready;
    } finally {
      this.release(thread);
    }
  }

  /** True once `close` was called: the engine takes no more calls. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Ends every thread; calls still running are refused. */
  async close(): Promise<void> {
    this.isClosed = true;
    const threads = [...this.threads];
    this.threads.clear();
    this.idle.length = 0;
    for (const thread of threads) this.settleRunning(thread, endedRefusal(thread.running?.job, 'the maths engine was shut down'));
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private async run(job: EngineJob): Promise<EngineOutcome | AnswerCheck> {
    if (this.isClosed) throw new Error('the maths engine was shut down');
    const thread = await this.acquire();
    try {
      await thread.ready;
    } catch (error) {
      this.discard(thread);
      throw error;
    }
    return new Promise((settle, fail) => {
      const running: Running = { id: this.nextId++, job, settle, fail };
      thread.running = running;
      thread.worker.ref();
      running.timer = setTimeout(() => this.end(thread, `the solve ran past the ${job.budget.millis} ms a solve may take (its thread was ended)`), job.budget.millis + this.graceMillis);
      thread.worker.postMessage({ id: running.id, job });
    });
  }

  private acquire(): Promise<EngineThread> {
    const thread = this.idle.pop();
    if (thread !== undefined) {
      thread.worker.ref();
      return Promise.resolve(thread);
    }
    if (this.threads.size < this.size) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(thread: EngineThread): void {
    if (!this.threads.has(thread)) return;
    const next = this.waiting.shift();
    if (next !== undefined) return next(thread);
    // An idle thread does not keep the process alive.
    thread.worker.unref();
    this.idle.push(thread);
  }

  private spawn(): EngineThread {
    const worker = startEngineWorker();
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // Awaited by the call that spawned it; a thread that never starts must not be an unhandled rejection.
    ready.catch(() => undefined);
    const thread: EngineThread = { worker, ready, started: false };
    this.threads.add(thread);
    worker.on('message', (message: JobReply | { readonly ready: true }) => {
      if ('ready' in message) {
        thread.started = true;
        return markReady();
      }
      const { running } = thread;
      if (running?.id !== message.id) return;
      clearTimeout(running.timer);
      thread.running = undefined;
      if ('error' in message) running.fail(new Error(`the maths engine failed: ${message.error}`));
      else running.settle(message.result);
      this.release(thread);
    });
    worker.on('error', (error: Error) => {
      failStart(error);
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.end(thread, outOfMemory ? `the solve needed more than the ${THREAD_HEAP_MB} MB a solve may use (its thread was ended)` : `its thread failed (${error.message})`);
    });
    worker.on('exit', () => {
      failStart(new Error('the maths engine thread exited before it was ready'));
      this.end(thread, 'its thread exited');
    });
    return thread;
  }

  /** Ends a thread (past its deadline, out of memory, failed): its call is refused, and a fresh thread serves whoever waits. */
  private end(thread: EngineThread, why: string): void {
    if (!this.threads.has(thread)) return;
    this.settleRunning(thread, endedRefusal(thread.running?.job, why));
    this.discard(thread);
  }

  private discard(thread: EngineThread): void {
    this.threads.delete(thread);
    const at = this.idle.indexOf(thread);
    if (at >= 0) this.idle.splice(at, 1);
    void thread.worker.terminate();
    // A thread ended past its deadline is replaced at once, so the next call finds the engine warm;
    // one that never started is replaced only for a waiting call (no loop of failing starts).
    if (!this.isClosed && (thread.started || this.waiting.length > 0)) this.release(this.spawn());
  }

  private settleRunning(thread: EngineThread, refusal: EngineOutcome | AnswerCheck | undefined): void {
    const { running } = thread;
    if (running === undefined || refusal === undefined) return;
    clearTimeout(running.timer);
    thread.running = undefined;
    running.settle(refusal);
  }
}

/** A call that did not finish: the same refusal the step budget gives ("too much work…"), or no verdict for a check. */
function endedRefusal(job: EngineJob | undefined, why: string): EngineOutcome | AnswerCheck | undefined {
  if (job === undefined) return undefined;
  const reason = `too much work for the maths engine: ${why}`;
  return job.kind === 'solve' ? { solved: false, inScope: true, reason } : { verdict: 'unchecked', reason };
}

function startEngineWorker(): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./engine-worker.js', import.meta.url), options);
  // From TypeScript source (the specs run it so): Node loads the worker's .ts modules with its own
  // type transform, resolving the `.js` specifiers of the source to the `.ts` files beside them.
  const entry = new URL('./engine-worker.ts', import.meta.url).href;
  return new Worker(`${SOURCE_HOOKS}\nimport(${JSON.stringify(entry)});`, { ...options, eval: true });
}

const SOURCE_HOOKS = `
const { registerHooks, stripTypeScriptTypes } = require('node:module');
const { existsSync, readFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
process.removeAllListeners('warning');
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      const source = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
      if (existsSync(fileURLToPath(source))) return { url: source.href, format: 'module', shortCircuit: true };
    }
    return next(specifier, context);
  },
  load(url, context, next) {
    if (!url.endsWith('.ts')) return next(url, context);
    const source = stripTypeScriptTypes(readFileSync(fileURLToPath(url), 'utf8'), { mode: 'transform', sourceUrl: url });
    return { format: 'module', source, shortCircuit: true };
  },
});`;

let shared: BoundedMathsEngine | undefined;
let sharedOptions: BoundedEngineOptions = {};

/** The process's bounded engine (created on first use, and again after `close`; threads start as calls need them). */
export function boundedMathsEngine(): BoundedMathsEngine {
  if (shared === undefined || shared.closed) shared = new BoundedMathsEngine(sharedOptions);
  return shared;
}

/**
 * Sets the process's engine's thread count (a service's setting), before its first use: every caller in
 * the process (the solve handler, the local model's maths) shares that engine. Refused, naming both
 * counts, when the engine already runs with another (it would silently keep the old one).
 */
export function configureBoundedMathsEngine(options: Pick<BoundedEngineOptions, 'threads'>): void {
  const threads = checkedThreads(options.threads ?? defaultEngineThreads());
  if (shared !== undefined && !shared.closed && shared.threadLimit !== threads) {
    throw new Error(`the maths engine already runs with ${shared.threadLimit} threads; it cannot be configured to ${threads} while in use`);
  }
  sharedOptions = { threads };
}
