import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForOutput } from './process-control.js';

export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** Stops the server; the store survives until `dispose`. */
  stop(): Promise<void>;
  /** Starts the server again on the same port and store (for crash/restart tests). */
  restart(): Promise<void>;
  /** SIGKILL (no flush of what the store has not synced), then, after `downMs`, a start on the same port and store. */
  crashAndRestart(downMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface NatsServerOptions {
  readonly port?: number;
  readonly storeDir?: string;
  readonly binary?: string;
}

/** A real nats-server with JetStream, bound to 127.0.0.1 on a free port (or `port`), with a temporary store; started and ready (`launchReady`). */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const ownsStore = options.storeDir === undefined;
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'openpaw-nats-'));
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  const argsAt = (port: number): string[] => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
  const started = options.port === undefined ? await startOnFreePort(binary, argsAt) : { port: options.port, proc: await launchReady(binary, argsAt(options.port)) };
  const { port } = started;
  let proc: ManagedProcess | undefined = started.proc;
  const launch = async (): Promise<void> => {
    proc = await launchReady(binary, argsAt(port));
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop: async () => proc?.stop(),
    restart: async () => {
      await proc?.stop();
      await launch();
    },
    crashAndRestart: async (downMs = 1_000) => {
      await proc?.stop('SIGKILL');
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    dispose: async () => {
      await proc?.stop();
      if (ownsStore) rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/**
 * nats-server on the config file `configAt(port)` writes for a free client port (it must bind
 * 127.0.0.1:`port`; other ports it names, e.g. monitoring, are best picked inside it, per attempt),
 * started and ready (`startOnFreePort`).
 */
export async function startConfiguredNatsServer(
  configAt: (port: number) => string | Promise<string>,
  binary: string = process.env['NATS_SERVER_BIN'] ?? 'nats-server',
): Promise<{ readonly proc: ManagedProcess; readonly port: number }> {
  return startOnFreePort(binary, async (port) => ['-c', await configAt(port)]);
}

/**
 * nats-server with `argsAt(port)` on a free port, started and ready. Ready means its own "Server is
 * ready" line, not an open port: another process that took the port between `findFreePort` and the
 * bind would answer a port probe too, while this server exits ("address already in use") and every
 * client lands on the stranger. A port taken that way is retried on a fresh one (twice at most).
 */
async function startOnFreePort(binary: string, argsAt: (port: number) => readonly string[] | Promise<readonly string[]>): Promise<{ readonly proc: ManagedProcess; readonly port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    try {
      return { proc: await launchReady(binary, await argsAt(port)), port };
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !/address already in use/i.test(error.message)) throw error;
    }
  }
}

/** Spawns nats-server and waits for its own "Server is ready" line; stopped again (its output in the error) when it exits or times out first. */
async function launchReady(binary: string, args: readonly string[]): Promise<ManagedProcess> {
  const proc = spawnManaged(binary, args);
  proc.child.on('error', () => undefined);
  try {
    await waitForOutput(proc, 'Server is ready', 30_000);
    return proc;
  } catch (error) {
    await proc.stop();
    throw error;
  }
}
