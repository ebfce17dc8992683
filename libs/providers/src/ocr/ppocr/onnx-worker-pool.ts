import { createRequire } from 'node:module';
import { type ChildProcess, spawn } from 'node:child_process';
import { OcrReaderClosedError, OcrReaderError, OcrTimeoutError } from '../port.js';

/** A float32 tensor crossing the thread boundary. */
export interface TensorData {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

export interface OnnxWorkerPoolOptions {
  /** Model name → .onnx path; each worker opens one session per model. */
  readonly models: Readonly<Record<string, string>>;
  /** Worker processes (each one ONNX Runtime with its sessions, ~100 MB for PP-OCRv4). */
  readonly size: number;
  /** Intra-op threads per session; 1 keeps a worker to one core, so the pool size is the parallelism. */
  readonly threadsPerWorker?: number;
  /**
   * The worker's source (CommonJS, run with `node -e`). The default runs ONNX Runtime; a test passes one
   * that never answers, to see the pool kill and replace a hung worker.
   */
  readonly workerSource?: string;
}

/**
 * Runs a model in a worker process: the session is opened once per worker, then each message is one
 * `run`. An ONNX run cannot be aborted in-process, and terminating a worker *thread* inside a run
 * aborts the whole process (onnxruntime-node 1.30 throws a Napi::Error from the dying thread; measured),
 * so workers are processes and a run past its deadline gets its process SIGKILLed.
 */
export const ONNX_WORKER_SOURCE = `
const workerData = JSON.parse(process.env.OPENPAW_ONNX_WORKER);
const parentPort = { postMessage: (message) => process.send(message), on: (event, handler) => process.on(event, handler) };
process.on('disconnect', () => process.exit(0));
const ort = require(workerData.runtimePath);
const sessions = (async () => {
  const opened = {};
  for (const [name, path] of Object.entries(workerData.models)) {
    opened[name] = await ort.InferenceSession.create(path, {
      intraOpNumThreads: workerData.threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
    });
  }
  return opened;
})();
sessions.then(() => parentPort.postMessage({ ready: true }), (error) => parentPort.postMessage({ fatal: String((error && error.message) || error) }));
parentPort.on('message', async (job) => {
  try {
    const session = (await sessions)[job.model];
    if (session === undefined) throw new Error('no model ' + job.model);
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', job.data, job.dims) };
    const output = (await session.run(feeds))[session.outputNames[0]];
    const data = Float32Array.from(output.data);
    parentPort.postMessage({ id: job.id, data, dims: output.dims });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  readonly id: number;
  readonly model: string;
  readonly input: TensorData;
  readonly timeoutMs: number;
  readonly resolve: (output: TensorData) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: ChildProcess;
  /** Its sessions are open: it takes runs (opening them is not counted against a run's deadline). */
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

type WorkerReply = { readonly ready: true } | { readonly fatal: string } | { readonly id: number; readonly data: Float32Array; readonly dims: readonly number[] } | { readonly id: number; readonly error: string };

const require = createRequire(import.meta.url);

/** A fixed pool of ONNX Runtime worker processes; runs queue for the next free worker. */
export class OnnxWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Why the models could not be opened; the pool then fails every run instead of respawning forever. */
  private broken?: string;
  private readonly workerData: { readonly runtimePath: string; readonly models: Readonly<Record<string, string>>; readonly threads: number };
  private readonly source: string;

  constructor(options: OnnxWorkerPoolOptions) {
    this.workerData = { runtimePath: require.resolve('onnxruntime-node'), models: options.models, threads: Math.max(1, options.threadsPerWorker ?? 1) };
    this.source = options.workerSource ?? ONNX_WORKER_SOURCE;
    for (let i = 0; i < Math.max(1, options.size); i += 1) this.slots.push({ worker: this.spawn(), ready: false });
  }

  /** Workers alive (a terminated one is replaced at once). */
  get size(): number {
    return this.slots.length;
  }

  run(model: string, input: TensorData, timeoutMs: number): Promise<TensorData> {
    if (this.closed) return Promise.reject(new OcrReaderClosedError('OCR reader closed'));
    if (this.broken !== undefined) return Promise.reject(new OcrReaderError(`OCR models cannot be loaded: ${this.broken}`));
    return new Promise<TensorData>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, model, input, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new OcrReaderClosedError('OCR reader closed'));
    for (const slot of this.slots.splice(0)) {
      clearTimeout(slot.timer);
      slot.job?.reject(new OcrReaderClosedError('OCR reader closed'));
      slot.worker.kill('SIGKILL');
    }
    return Promise.resolve();
  }

  private spawn(): ChildProcess {
    const worker = spawn(process.execPath, ['-e', this.source], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Typed arrays cross as typed arrays (structured clone), not as JSON.
      serialization: 'advanced',
      env: { ...process.env, OPENPAW_ONNX_WORKER: JSON.stringify(this.workerData) },
    });
    this.holdOpen(worker, this.queue.length > 0);
    worker.on('message', (reply: WorkerReply) => this.settle(worker, reply));
    worker.on('error', (error: Error) => this.replace(worker, new OcrReaderError(`OCR worker failed: ${error.message}`)));
    worker.on('exit', (code, signal) => this.replace(worker, new OcrReaderError(`OCR worker exited (${signal ?? `code ${String(code)}`})`)));
    return worker;
  }

  /** Workers keep the process alive only while runs wait on them, so an idle pool never holds the process open. */
  private holdOpen(worker: ChildProcess, busy: boolean): void {
    if (busy) {
      worker.ref();
      worker.channel?.ref();
    } else {
      worker.unref();
      worker.channel?.unref();
    }
  }

  private dispatch(): void {
    const busy = this.queue.length > 0 || this.slots.some((s) => s.job !== undefined);
    for (const slot of this.slots) this.holdOpen(slot.worker, busy);
    for (const slot of this.slots) {
      if (slot.job !== undefined || !slot.ready) continue;
      const job = this.queue.shift();
      if (job === undefined) return;
      slot.job = job;
      slot.timer = setTimeout(() => this.replace(slot.worker, new OcrTimeoutError(`OCR inference (${job.model}) took longer than ${job.timeoutMs} ms; its worker was killed`)), job.timeoutMs);
      slot.worker.send({ id: job.id, model: job.model, data: job.input.data, dims: job.input.dims });
    }
  }

  private settle(worker: ChildProcess, reply: WorkerReply): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if ('ready' in reply) {
      if (slot !== undefined) slot.ready = true;
      this.dispatch();
      return;
    }
    if ('fatal' in reply) {
      this.broken = reply.fatal;
      for (const job of this.queue.splice(0)) job.reject(new OcrReaderError(`OCR models cannot be loaded: ${reply.fatal}`));
      return;
    }
    if (slot?.job?.id !== reply.id) return;
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if ('error' in reply) job.reject(new OcrReaderError(`OCR inference (${job.model}) failed: ${reply.error}`));
    else job.resolve({ data: reply.data, dims: reply.dims });
    this.dispatch();
  }

  /** Kills a worker (hung or broken), fails its run, and puts a fresh one in its place. */
  private replace(worker: ChildProcess, error: Error): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (slot === undefined) return;
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    worker.kill('SIGKILL');
    slot.ready = false;
    if (!this.closed && this.broken === undefined) slot.worker = this.spawn();
    job?.reject(error);
    this.dispatch();
  }
}
