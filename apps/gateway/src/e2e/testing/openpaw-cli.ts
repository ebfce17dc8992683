import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** How a finished `openpaw` process ended. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One line the CLI printed on stdout, with when this process read it (`Date.now()`). */
export interface CliLine {
  readonly text: string;
  readonly at: number;
}

/** A running `openpaw` process: its stdout lines as they come, and its end. */
export interface CliProcess {
  /** The stdout lines read so far, each stamped when it arrived. */
  readonly lines: () => readonly CliLine[];
  /** The first stdout line matching `pattern`, as soon as it is printed; rejects if the process ends or `timeoutMs` passes first. */
  readonly line: (pattern: RegExp, timeoutMs?: number) => Promise<CliLine>;
  readonly exited: Promise<CliResult>;
}

/**
 * The built CLI (`dist/apps/cli/src/main.js`) as a user runs it against a live gateway: the environment
 * names the gateway and signs a dev token for `user` with the platform's secret (no profile, no token).
 */
export function cliEnvironment(gatewayUrl: string, jwtSecret: string, user: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, OPENPAW_API_URL: gatewayUrl, OPENPAW_JWT_SECRET: jwtSecret, OPENPAW_USER: user, OPENPAW_TOKEN: '', OPENPAW_PROFILE: '', ...extra };
}

/** Starts `openpaw <args>`; `stdin`, when given, is written and closed (answers to its prompts). */
export function startCli(root: string, args: readonly string[], env: NodeJS.ProcessEnv, options: { readonly stdin?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [join(root, 'dist/apps/cli/src/main.js'), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: CliLine[] = [];
  const waiters = new Set<() => void>();
  let stdout = '';
  let stderr = '';
  let partial = '';
  let ended = false;
  const wake = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    stdout += text;
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    const at = Date.now();
    for (const part of parts) lines.push({ text: part, at });
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      if (partial !== '') lines.push({ text: partial, at: Date.now() });
      ended = true;
      wake();
      resolve({ code, stdout, stderr });
    }),
  );
  child.stdin.end(options.stdin ?? '');

  const line = (pattern: RegExp, timeoutMs = 60_000): Promise<CliLine> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle(new Error(`no line matching ${String(pattern)} within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`)), timeoutMs);
      const settle = (outcome: CliLine | Error): void => {
        clearTimeout(timer);
        waiters.delete(check);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const check = (): void => {
        const found = lines.find((l) => pattern.test(l.text));
        if (found !== undefined) settle(found);
        else if (ended) settle(new Error(`openpaw ended without a line matching ${String(pattern)}; stdout:\n${stdout}\nstderr:\n${stderr}`));
      };
      waiters.add(check);
      check();
    });
  return { lines: () => lines, line, exited };
}

/** Runs `openpaw <args>` to its end. */
export function runCli(root: string, args: readonly string[], env: NodeJS.ProcessEnv, options: { readonly stdin?: string } = {}): Promise<CliResult> {
  return startCli(root, args, env, options).exited;
}
