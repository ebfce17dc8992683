import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { BoundedMathsEngine } from './engine-pool.js';
import { endedOutOfMemory, SOURCE_HOOKS_IMPORT } from './engine-process.js';
import { engineWorkerPidsOf, isRunning } from './testing/child-processes.js';

const STARTUP_MILLIS = 60_000;
/** How long a worker may outlive its host (its channel's close reaches it, and it exits). */
const ORPHAN_MILLIS = 10_000;
const NESTED_40 = `Integrate ${'sin('.repeat(40)}x${')'.repeat(40)}`;

interface HostReport {
  readonly workers: readonly number[];
  readonly outcome: { readonly finalAnswer?: string };
}

/** Hosts and workers a test started, killed after it whatever its outcome. */
const started: number[] = [];

/** Starts testing/engine-host.ts under plain Node, as a service's process would run the engine. */
function startHost(mode: 'leave' | 'stay'): ChildProcess {
  const host = fileURLToPath(new URL('./testing/engine-host.ts', import.meta.url));
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', SOURCE_HOOKS_IMPORT, host, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  if (child.pid !== undefined) started.push(child.pid);
  return child;
}

async function firstLine(child: ChildProcess): Promise<HostReport> {
  if (child.stdout === null) throw new Error('the host was started without a stdout pipe');
  child.stdout.setEncoding('utf8');
  let text = '';
  for await (const chunk of child.stdout as AsyncIterable<string>) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  const report = JSON.parse(text.slice(0, text.indexOf('\n'))) as HostReport;
  started.push(...report.workers);
  return report;
}

async function waitUntilEnded(pids: readonly number[], millis: number): Promise<number[]> {
  const until = Date.now() + millis;
  let running = pids.filter(isRunning);
  while (running.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    running = running.filter(isRunning);
  }
  return running;
}

describe('the engine\'s worker processes (their life follows the service\'s)', () => {
  afterEach(() => {
    for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  });

  it(
    'given a service whose work is done with its engine left idle, then the service exits by itself and its worker with it',
    async () => {
      const host = startHost('leave');
      const exited = once(host, 'exit');
      const report = await firstLine(host);
      expect(report.outcome.finalAnswer).toBe('x = 4');
      expect(report.workers).toHaveLength(1);
      await expect(exited).resolves.toEqual([0, null]);
      await expect(waitUntilEnded(report.workers, ORPHAN_MILLIS)).resolves.toEqual([]);
    },
    STARTUP_MILLIS,
  );

  it(
    'given a service SIGKILLed with a warm worker, then the worker ends too (no engine left running without its service)',
    async () => {
      const host = startHost('stay');
      const report = await firstLine(host);
      expect(report.workers).toHaveLength(1);
      expect(report.workers.every(isRunning)).toBe(true);
      host.kill('SIGKILL');
      await once(host, 'exit');
      await expect(waitUntilEnded(report.workers, ORPHAN_MILLIS)).resolves.toEqual([]);
    },
    STARTUP_MILLIS,
  );

  it(
    'given a worker killed from outside while it solves (the kernel\'s OOM killer, an operator), then the call is refused naming the signal, and the next is answered',
    async () => {
      const engine = new BoundedMathsEngine({ workers: 1, graceMillis: 30_000 });
      try {
        await engine.warm();
        const [worker] = engineWorkerPidsOf(process.pid);
        if (worker === undefined) throw new Error('no engine worker among this process\'s children');
        const hostile = engine.solve(NESTED_40, { steps: 2_000_000, millis: 30_000 });
        await new Promise((resolve) => setTimeout(resolve, 300)); // the call is in the worker, not on its way
        process.kill(worker, 'SIGKILL');
        await expect(hostile).resolves.toMatchObject({ solved: false, inScope: true, reason: 'too much work for the maths engine: its worker exited (SIGKILL)' });
        await expect(engine.solve('Solve 3x = 12')).resolves.toMatchObject({ solved: true, finalAnswer: 'x = 4' });
      } finally {
        await engine.close();
      }
    },
    STARTUP_MILLIS,
  );

  it(
    'given an engine, then no worker process runs before its first call; one runs after it, and exits once idle for the idle time; the next call starts a fresh one',
    async () => {
      const engine = new BoundedMathsEngine({ workers: 1, idleMillis: 1_000 });
      try {
        expect(engineWorkerPidsOf(process.pid)).toEqual([]);
        await expect(engine.solve('Solve 2x + 3 = 11')).resolves.toMatchObject({ solved: true, finalAnswer: 'x = 4' });
        const workers = engineWorkerPidsOf(process.pid);
        expect(workers).toHaveLength(1);
        started.push(...workers);
        await expect(waitUntilEnded(workers, ORPHAN_MILLIS)).resolves.toEqual([]);
        expect(engine.workerCount).toBe(0);
        await expect(engine.check('Solve 3x = 12', 'x = 4')).resolves.toMatchObject({ verdict: 'agrees' });
        expect(engineWorkerPidsOf(process.pid)).toHaveLength(1);
      } finally {
        await engine.close();
      }
    },
    STARTUP_MILLIS,
  );

  it('given what V8 writes when a process runs out of its heap, then the end is read as out of memory (and an ordinary crash is not)', async () => {
    const starved = spawn(process.execPath, ['--max-old-space-size=16', '-e', 'const kept = []; for (;;) kept.push(new Array(100_000).fill(1));'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    starved.stderr.setEncoding('utf8');
    starved.stderr.on('data', (chunk: string) => (stderr += chunk));
    const [code, signal] = (await once(starved, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(code === 0).toBe(false);
    expect({ signal, outOfMemory: endedOutOfMemory(stderr) }).toMatchObject({ outOfMemory: true });
    expect(endedOutOfMemory('Error: the maths engine failed: boom\n')).toBe(false);
  });
});
