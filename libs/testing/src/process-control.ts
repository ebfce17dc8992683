import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { connect } from 'node:net';

export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Recent stdout/stderr, for error messages when the process misbehaves. */
  output(): string;
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

export function spawnManaged(command: string, args: readonly string[], options: SpawnOptions = {}): ManagedProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let buffer = '';
  const collect = (chunk: Buffer): void => {
    buffer = (buffer + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    output: () => buffer,
    async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves once host:port accepts a TCP connection; rejects if the process exits or time runs out. */
export async function waitForPort(host: string, port: number, proc: ManagedProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) {
      throw new Error(`process exited with ${proc.child.exitCode} before listening on ${port}:\n${proc.output()}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${host}:${port}:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves once the process has printed `text`; rejects if it exits first or time runs out. */
export async function waitForOutput(proc: ManagedProcess, text: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!proc.output().includes(text)) {
    if (proc.child.exitCode !== null) throw new Error(`process exited (${proc.child.exitCode}) before printing "${text}":\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${text}":\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
