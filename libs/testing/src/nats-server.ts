import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForPort } from './process-control.js';

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
