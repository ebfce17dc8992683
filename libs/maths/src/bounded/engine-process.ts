import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Heap one engine process may use (the engine itself takes ~110 MB); past it V8 ends the process and the call is refused. */
export const ENGINE_HEAP_MB = 512;

/** How much of a process's last standard error is kept to say why it ended (V8's out-of-memory line is in it). */
const STDERR_TAIL_CHARS = 4_096;

/** A started engine process, with the tail of what it wrote to standard error. */
export interface StartedEngineProcess {
  readonly child: ChildProcess;
  /** The last `STDERR_TAIL_CHARS` characters the process wrote to standard error (also passed on to ours). */
  stderrTail(): string;
}

/**
 * Starts one engine worker as a child process. A process, not a worker thread: ending a thread that
 * runs (or still evaluates its modules) goes through V8's termination, and V8 fatal checks on that path
 * are known to abort the whole host process (the CI's jest worker running the thread pool once died of
 * SIGTRAP, cause not pinned down); a SIGKILLed child never touches the host's isolate.
 */
export function startEngineProcess(): StartedEngineProcess {
  const execArgv = [`--max-old-space-size=${ENGINE_HEAP_MB}`, '--disable-warning=ExperimentalWarning'];
  const fromSource = import.meta.url.endsWith('.ts');
  // From TypeScript source (the specs run it so), Node loads the worker's .ts modules with its own type
  // transform, resolving the `.js` specifiers of the source to the `.ts` files beside them.
  if (fromSource) execArgv.push('--import', SOURCE_HOOKS_IMPORT);
  const entry = fileURLToPath(new URL(fromSource ? './engine-worker.ts' : './engine-worker.js', import.meta.url));
  // The parent's own flags (jest's --experimental-vm-modules, an inspector port) are not the engine's.
  const child = fork(entry, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    process.stderr.write(text);
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
  });
  return { child, stderrTail: () => tail };
}

/** Whether a process's last words are V8's out-of-memory report (it then aborts). */
export function endedOutOfMemory(stderrTail: string): boolean {
  return /heap out of memory|Reached heap limit/i.test(stderrTail);
}

const SOURCE_HOOKS = `
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** `--import` this to run the engine's TypeScript source under plain Node (the pool's workers, and a spec's host process). */
export const SOURCE_HOOKS_IMPORT = `data:text/javascript,${encodeURIComponent(SOURCE_HOOKS)}`;
