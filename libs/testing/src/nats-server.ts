import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForOutput, waitForPort } from './process-control.js';

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

/** A real nats-server with JetStream, bound to 127.0.0.1 on a free port, with a temporary store. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const port = options.port ?? (await findFreePort());
  const ownsStore = options.storeDir === undefined;
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'openpaw-nats-'));
  const binary = options.binary ?? process.env['NATS_SERVER_BIN'] ?? 'nats-server';
  let proc: ManagedProcess | undefined;
  const launch = async (): Promise<void> => {
    proc = spawnManaged(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir]);
    proc.child.on('error', () => undefined);
    await waitForPort('127.0.0.1', port, proc);
  };
  await launch();
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
 * 127.0.0.1:`port`), started and ready. Ready means its own "Server is ready" line, not an open port:
 * another process that took the port between `findFreePort` and the bind would answer a port probe
 * too, while this server exits ("address already in use") and every client lands on the stranger.
 * A port taken that way is retried on a fresh one (twice at most).
 */
export async function startConfiguredNatsServer(
  configAt: (port: number) => string,
  binary: string = process.env['NATS_SERVER_BIN'] ?? 'nats-server',
): Promise<{ readonly proc: ManagedProcess; readonly port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    const proc = spawnManaged(binary, ['-c', configAt(port)]);
    proc.child.on('error', () => undefined);
    try {
      await waitForOutput(proc, 'Server is ready', 30_000);
      return { proc, port };
    } catch (error) {
      await proc.stop();
      if (attempt >= 3 || !/address already in use/i.test(proc.output())) throw error;
    }
  }
}
