import { createInterface, type Interface } from 'node:readline';

export type CliEnv = Readonly<Record<string, string | undefined>>;

/** Everything the CLI touches outside itself, so a test swaps it in one line. */
export interface CliIo {
  readonly env: CliEnv;
  /** Relative file paths and the local blob directory resolve against it. */
  readonly cwd: string;
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Asks the person (a checkpoint decision); `undefined` when the input has ended. */
  readonly prompt: (question: string) => Promise<string | undefined>;
  /** Releases the terminal (stdin) once the command is done. */
  readonly close: () => void;
}

/** Lines of stdin, one per prompt: a single reader, so piped answers read ahead are not lost. */
function stdinPrompter(): Pick<CliIo, 'prompt' | 'close'> {
  let reader: Interface | undefined;
  let ended = false;
  const lines: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  const open = (): Interface => {
    reader ??= createInterface({ input: process.stdin, terminal: false })
      .on('line', (line) => {
        const next = waiting.shift();
        if (next === undefined) lines.push(line);
        else next(line);
      })
      .on('close', () => {
        ended = true;
        for (const next of waiting.splice(0)) next(undefined);
      });
    return reader;
  };
  return {
    prompt: (question) => {
      process.stderr.write(question);
      open();
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => reader?.close(),
  };
}

/** The real process's io; `env` is the environment `main.ts` read at start. */
export function processIo(env: CliEnv): CliIo {
  return {
    env,
    cwd: process.cwd(),
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    fetch: (input, init) => fetch(input, init),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    ...stdinPrompter(),
  };
}
