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
}

export function processIo(): CliIo {
  return {
    env: process.env,
    cwd: process.cwd(),
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    fetch: (input, init) => fetch(input, init),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}
