import type { Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import type { AnswerCheck } from '../check/answer-check.js';
import { DEFAULT_MATHS_BUDGET, type MathsBudget } from '../core/budget-limits.js';
import type { EngineOutcome } from '../types.js';
import type { EngineJob, JobReply } from './engine-job.js';
import { endedOutOfMemory, ENGINE_HEAP_MB, startEngineProcess, type StartedEngineProcess } from './engine-process.js';

/**
 * How long past its budget's time a call may run before its process is killed: the reply's trip back,
 * and the engine's own refusal at its last charge (a call that charges its steps ends itself at the
 * budget's time; only one that never charges meets this deadline).
 */
export const DEADLINE_GRACE_MILLIS = 250;

/** The most engine workers one service may keep (each a process holding ~110 MB of engine and up to `ENGINE_HEAP_MB` of heap). */
export const MAX_ENGINE_WORKERS = 16;

/**
 * How long a worker may sit idle before it exits: its ~110 MB come back to a service that went quiet,
 * and the next call pays the start again (about a second; see `warm`). Long enough that steady traffic,
 * even a problem every few minutes, keeps its worker.
 */
export const WORKER_IDLE_MILLIS = 10 * 60_000;

/** Engine workers when none are configured: the cores less one, 1 to 4. */
export function defaultEngineWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

function checkedWorkers(workers: number): number {
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_ENGINE_WORKERS) throw new RangeError(`workers must be a whole number from 1 to ${MAX_ENGINE_WORKERS}, not ${workers}`);
  return workers;
}

export interface BoundedEngineOptions {
  /** Engine workers kept warm at most, 1 to `MAX_ENGINE_WORKERS` (default `defaultEngineWorkers()`). */
  readonly workers?: number;
  /** Milliseconds past a call's budget before its worker is killed (default `DEADLINE_GRACE_MILLIS`). */
  readonly graceMillis?: number;
  /** Milliseconds a worker may sit idle before it exits (default `WORKER_IDLE_MILLIS`). */
  readonly idleMillis?: number;
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

interface EngineWorker {
  readonly process: StartedEngineProcess;
  /** Resolves once the engine is loaded and warm in the process. */
  readonly ready: Promise<void>;
  /** Set once `ready` resolved: only a worker that once worked is replaced at once when it ends. */
  started: boolean;
  running?: Running;
  /** While idle: ends the worker once it has sat idle for `idleMillis`. */
  idleTimer?: NodeJS.Timeout;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

/**
 * The maths engine behind a hard deadline. A step budget bounds only the work that charges it; one
 * symbolic library call can run for minutes without charging (`Integrate sin(sin(…x…))` nested 40
 * deep). So each call runs in a worker process, and a call still running `graceMillis` past its
 * budget's time has its process killed: the problem is refused as too much work, never answered from
 * the part that ran, and a fresh worker takes the killed one's place. Workers are kept warm between
 * calls (loading the engine takes about a second), so the normal path pays only a message's trip.
 * Workers start on the first call that needs one, not before (a service that solves nothing holds no
 * engine), and one idle for `idleMillis` exits (ADR 0039).
 */
export class BoundedMathsEngine {
  private readonly size: number;
  private readonly graceMillis: number;
  private readonly idleMillis: number;
  private readonly workers = new Set<EngineWorker>();
  private readonly idle: EngineWorker[] = [];
  private readonly waiting: ((worker: EngineWorker) => void)[] = [];
  private nextId = 0;
  private isClosed = false;

  constructor(options: BoundedEngineOptions = {}) {
    this.size = checkedWorkers(options.workers ?? defaultEngineWorkers());
    this.graceMillis = options.graceMillis ?? DEADLINE_GRACE_MILLIS;
    this.idleMillis = options.idleMillis ?? WORKER_IDLE_MILLIS;
  }

  /** Worker processes running now (started, starting or busy). */
  get workerCount(): number {
    return this.workers.size;
  }

  /** The most workers this engine runs at once (calls past it wait for a free worker). */
  get workerLimit(): number {
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

  /**
   * Starts a worker ahead of the first call, so that call does not wait for the engine to load (about a
   * second; the start is never charged to a call's budget, whose deadline starts when its worker is
   * ready). Services do not call it at boot (ADR 0039): a spec does, to time a call apart from the start.
   */
  async warm(): Promise<void> {
    const worker = await this.acquire();
    try {
      await worker.ready;
    } finally {
      this.release(worker);
    }
  }

  /** True once `close` was called: the engine takes no more calls. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Kills every worker and waits for their exits; calls still running are refused. */
  async close(): Promise<void> {
    this.isClosed = true;
    const workers = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    for (const worker of workers) {
      clearTimeout(worker.idleTimer);
      this.settleRunning(worker, endedRefusal(worker.running?.job, 'the maths engine was shut down'));
      holdOpen(worker, true); // the wait for its exit keeps the caller's process alive
      worker.process.child.kill('SIGKILL');
    }
    await Promise.all(workers.map((w) => w.exited));
  }

  private async run(job: EngineJob): Promise<EngineOutcome | AnswerCheck> {
    if (this.isClosed) throw new Error('the maths engine was shut down');
    const worker = await this.acquire();
    try {
      await worker.ready;
    } catch (error) {
      this.discard(worker);
      throw error;
    }
    return new Promise((settle, fail) => {
      const running: Running = { id: this.nextId++, job, settle, fail };
      worker.running = running; // held open since `acquire` (a waiter is handed a worker still held)
      running.timer = setTimeout(() => this.end(worker, `the solve ran past the ${job.budget.millis} ms a solve may take (its worker was killed)`), job.budget.millis + this.graceMillis);
      worker.process.child.send({ id: running.id, job });
    });
  }

  private acquire(): Promise<EngineWorker> {
    const worker = this.idle.pop();
    if (worker !== undefined) {
      clearTimeout(worker.idleTimer);
      holdOpen(worker, true);
      return Promise.resolve(worker);
    }
    if (this.workers.size < this.size) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: EngineWorker): void {
    if (!this.workers.has(worker)) return;
    const next = this.waiting.shift();
    if (next !== undefined) return next(worker);
    // An idle worker does not keep the service's process alive.
    holdOpen(worker, false);
    this.idle.push(worker);
    worker.idleTimer = setTimeout(() => this.retire(worker), this.idleMillis);
    worker.idleTimer.unref();
  }

  /** Ends a worker that sat idle for `idleMillis`; the next call starts a fresh one. */
  private retire(worker: EngineWorker): void {
    const at = this.idle.indexOf(worker);
    if (at < 0) return;
    this.idle.splice(at, 1);
    this.workers.delete(worker);
    worker.process.child.kill('SIGKILL');
  }

  private spawn(): EngineWorker {
    const started = startEngineProcess();
    const { child } = started;
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // Awaited by the call that spawned it; a worker that never starts must not be an unhandled rejection.
    ready.catch(() => undefined);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const worker: EngineWorker = { process: started, ready, started: false, exited };
    this.workers.add(worker);
    child.on('message', (message: JobReply | { readonly ready: true }) => {
      if ('ready' in message) {
        worker.started = true;
        return markReady();
      }
      const { running } = worker;
      if (running?.id !== message.id) return;
      clearTimeout(running.timer);
      worker.running = undefined;
      if ('error' in message) running.fail(new Error(`the maths engine failed: ${message.error}`));
      else running.settle(message.result);
      this.release(worker);
    });
    child.on('error', (error: Error) => {
      failStart(error);
      this.end(worker, `its worker failed (${error.message})`);
    });
    child.on('exit', (code, signal) => {
      failStart(new Error(`the maths engine worker exited before it was ready (${signal ?? `exit code ${code}`})`));
      const why = endedOutOfMemory(started.stderrTail())
        ? `the solve needed more than the ${ENGINE_HEAP_MB} MB a solve may use (its worker ran out of memory)`
        : `its worker exited (${signal ?? `exit code ${code}`})`;
      this.end(worker, why);
    });
    return worker;
  }

  /** Ends a worker (past its deadline, out of memory, failed): its call is refused, and a fresh worker serves whoever waits. */
  private end(worker: EngineWorker, why: string): void {
    if (!this.workers.has(worker)) return;
    this.settleRunning(worker, endedRefusal(worker.running?.job, why));
    this.discard(worker);
  }

  private discard(worker: EngineWorker): void {
    this.workers.delete(worker);
    clearTimeout(worker.idleTimer);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    worker.process.child.kill('SIGKILL');
    // A worker killed past its deadline is replaced at once, so the next call finds the engine warm;
    // one that never started is replaced only for a waiting call (no loop of failing starts).
    if (!this.isClosed && (worker.started || this.waiting.length > 0)) this.release(this.spawn());
  }

  private settleRunning(worker: EngineWorker, refusal: EngineOutcome | AnswerCheck | undefined): void {
    const { running } = worker;
    if (running === undefined || refusal === undefined) return;
    clearTimeout(running.timer);
    worker.running = undefined;
    running.settle(refusal);
  }
}

/** Whether a worker keeps the service's process alive: while it runs a call, and not while idle. */
function holdOpen(worker: EngineWorker, hold: boolean): void {
  const { child } = worker.process;
  // The process, its IPC channel and its stderr pipe each keep the event loop alive on their own.
  const stderr = child.stderr as Socket | null;
  if (hold) {
    child.ref();
    child.channel?.ref();
    stderr?.ref();
  } else {
    child.unref();
    child.channel?.unref();
    stderr?.unref();
  }
}

/** A call that did not finish: the same refusal the step budget gives ("too much work…"), or no verdict for a check. */
function endedRefusal(job: EngineJob | undefined, why: string): EngineOutcome | AnswerCheck | undefined {
  if (job === undefined) return undefined;
  const reason = `too much work for the maths engine: ${why}`;
  return job.kind === 'solve' ? { solved: false, inScope: true, reason } : { verdict: 'unchecked', reason };
}

let shared: BoundedMathsEngine | undefined;
let sharedOptions: BoundedEngineOptions = {};

/** The process's bounded engine (created on first use, and again after `close`; workers start as calls need them). */
export function boundedMathsEngine(): BoundedMathsEngine {
  if (shared === undefined || shared.closed) shared = new BoundedMathsEngine(sharedOptions);
  return shared;
}

/**
 * Sets the process's engine's worker count (a service's setting), before its first use: every caller in
 * the process (the solve handler, the local model's maths) shares that engine. Refused, naming both
 * counts, when the engine already runs with another (it would silently keep the old one).
 */
export function configureBoundedMathsEngine(options: Pick<BoundedEngineOptions, 'workers'>): void {
  const workers = checkedWorkers(options.workers ?? defaultEngineWorkers());
  if (shared !== undefined && !shared.closed && shared.workerLimit !== workers) {
    throw new Error(`the maths engine already runs with ${shared.workerLimit} workers; it cannot be configured to ${workers} while in use`);
  }
  sharedOptions = { workers };
}
