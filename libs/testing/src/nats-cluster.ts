import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForOutput, waitForPort } from './process-control.js';

export interface NatsClusterHandle {
  /** Client URLs of every node. */
  readonly urls: readonly string[];
  dispose(): Promise<void>;
}

/**
 * A real JetStream cluster of `size` nats-server processes on 127.0.0.1 (routes between every node),
 * for what a single server cannot show (stream replicas). Resolves once JetStream has a meta leader.
 */
export async function startNatsCluster(size = 3, binary = process.env['NATS_SERVER_BIN'] ?? 'nats-server'): Promise<NatsClusterHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-cluster-'));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  const monitorPorts: number[] = [];
  for (let i = 0; i < size; i += 1) {
    clientPorts.push(await findFreePort());
    routePorts.push(await findFreePort());
    monitorPorts.push(await findFreePort());
  }
  const routes = routePorts.map((port) => `"nats-route://127.0.0.1:${port}"`).join(', ');
  const processes: ManagedProcess[] = [];
  const dispose = async (): Promise<void> => {
    await Promise.all(processes.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < size; i += 1) {
      const config = join(dir, `n${i}.conf`);
      writeFileSync(
        config,
        [
          `server_name: n${i}`,
          `listen: "127.0.0.1:${clientPorts[i]}"`,
          `http: "127.0.0.1:${monitorPorts[i]}"`,
          `jetstream { store_dir: "${join(dir, `store-${i}`)}" }`,
          `cluster { name: openpaw-test, listen: "127.0.0.1:${routePorts[i]}", routes: [${routes}] }`,
        ].join('\n'),
      );
      const proc = spawnManaged(binary, ['-c', config]);
      proc.child.on('error', () => undefined);
      processes.push(proc);
    }
    await Promise.all(processes.map((proc, i) => waitForPort('127.0.0.1', clientPorts[i] ?? 0, proc)));
    // Some node reports the JetStream meta leader once the cluster has formed; R<size> placement
    // needs every peer current in the meta group too (on a loaded machine that takes a while longer).
    await Promise.any(processes.map((proc) => waitForOutput(proc, 'JetStream cluster new metadata leader', 30_000)));
    await waitForMetaPeers(monitorPorts, size, 30_000);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { urls: clientPorts.map((port) => `nats://127.0.0.1:${port}`), dispose };
}

interface Jsz {
  readonly meta_cluster?: { readonly leader?: string; readonly replicas?: readonly { readonly current?: boolean }[] };
}

/** Polls the nodes' `/jsz` until one has a meta leader with `size - 1` current replicas. */
async function waitForMetaPeers(monitorPorts: readonly number[], size: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const port of monitorPorts) {
      const jsz = (await fetch(`http://127.0.0.1:${port}/jsz`).then((r) => r.json() as Promise<Jsz>, () => undefined)) ?? {};
      const meta = jsz.meta_cluster;
      const current = (meta?.replicas ?? []).filter((replica) => replica.current === true).length;
      if (meta?.leader !== undefined && meta.leader !== '' && current >= size - 1) return;
    }
    if (Date.now() > deadline) throw new Error(`nats cluster: the JetStream meta group did not get ${size} current peers in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
