import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForOutput, waitForPort } from './process-control.js';
import { startRouteProxy } from './route-proxy.js';

/** One stream as one node stores it (its own replica), from that node's `/jsz`. */
export interface NodeStreamState {
  readonly messages: number;
  readonly lastSeq: number;
  /** The node that leads the stream, as this node sees it ('' while there is none). */
  readonly leader: string;
}

export interface NatsClusterHandle {
  /** Client URLs of every node, in node order (`n0`, `n1`, …). */
  readonly urls: readonly string[];
  /** The nodes' `server_name`s, in node order. */
  readonly names: readonly string[];
  /** The node's process id while it runs (undefined once killed and not restarted). */
  pidOf(node: string): number | undefined;
  /** SIGKILL the node's process (a lost machine: nothing flushed), and wait until it is gone. */
  kill(node: string): Promise<void>;
  /** Starts a killed or stopped node again with its config and store, and waits for its client port. */
  restart(node: string): Promise<void>;
  /**
   * A network partition of one node (a cluster started `partitionable`): every route to and from it is
   * cut, and stays cut, while it runs on with its clients, its store and its client port. Its clients
   * stay connected to a node that reaches no peer (it holds no quorum, so it leads nothing). `heal`
   * lets the routes form again.
   */
  isolate(node: string): Promise<void>;
  heal(): void;
  /**
   * Waits until `node` stores every stream as the stream's leader does (a restarted or healed node
   * caught up), asking the other running nodes who leads. Resolves with what still differed when
   * `timeoutMs` ran out (empty: caught up).
   */
  catchUp(node: string, timeoutMs: number): Promise<readonly string[]>;
  /** The node's recent log (its warnings and errors, e.g. about a replica's catch-up). */
  logs(node: string): string;
  /** The node's client connections, from its `/connz` (e.g. services left on an isolated node). */
  clientsOn(node: string): Promise<number>;
  /** Every stream of the default account as this node stores it, by stream name. */
  streamsOn(node: string): Promise<Readonly<Record<string, NodeStreamState>>>;
  dispose(): Promise<void>;
}

interface Jsz {
  readonly meta_cluster?: { readonly leader?: string; readonly replicas?: readonly { readonly current?: boolean }[] };
  readonly account_details?: readonly {
    readonly stream_detail?: readonly {
      readonly name: string;
      readonly cluster?: { readonly leader?: string };
      readonly state: { readonly messages: number; readonly last_seq: number };
    }[];
  }[];
}

/**
 * A real JetStream cluster of `size` nats-server processes on 127.0.0.1 (routes between every node),
 * for what a single server cannot show (stream replicas, losing a node). Resolves once JetStream has a
 * meta leader with every peer current. `extraConfig` is appended to every node's config (an accounts
 * block: the nodes' `/jsz` then lists each account's streams). `partitionable` puts a route proxy in
 * front of each node's cluster port (routes and the advertised cluster address name it), for `isolate`.
 */
export async function startNatsCluster(
  size = 3,
  binary = process.env['NATS_SERVER_BIN'] ?? 'nats-server',
  options: { readonly extraConfig?: string; readonly partitionable?: boolean } = {},
): Promise<NatsClusterHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-cluster-'));
  const names = Array.from({ length: size }, (_, i) => `n${i}`);
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  const monitorPorts: number[] = [];
  for (let i = 0; i < size; i += 1) {
    clientPorts.push(await findFreePort());
    routePorts.push(await findFreePort());
    monitorPorts.push(await findFreePort());
  }
  const proxies = options.partitionable === true ? await Promise.all(routePorts.map((port) => startRouteProxy(port))) : [];
  // A partitionable cluster's routes (and gossiped cluster addresses) go through the proxies.
  const routedPorts = options.partitionable === true ? proxies.map((proxy) => proxy.port) : routePorts;
  const routes = routedPorts.map((port) => `"nats-route://127.0.0.1:${port}"`).join(', ');
  const processes = new Map<string, ManagedProcess>();
  const indexOf = (node: string): number => {
    const i = names.indexOf(node);
    if (i < 0) throw new Error(`nats cluster: no node ${node} (nodes: ${names.join(', ')})`);
    return i;
  };
  const launch = async (node: string): Promise<ManagedProcess> => {
    const i = indexOf(node);
    const advertise = options.partitionable === true ? `, advertise: "127.0.0.1:${routedPorts[i]}"` : '';
    const config = join(dir, `${node}.conf`);
    writeFileSync(
      config,
      [
        `server_name: ${node}`,
        `listen: "127.0.0.1:${clientPorts[i]}"`,
        `http: "127.0.0.1:${monitorPorts[i]}"`,
        `jetstream { store_dir: "${join(dir, `store-${node}`)}" }`,
        `cluster { name: openpaw-test, listen: "127.0.0.1:${routePorts[i]}", routes: [${routes}]${advertise} }`,
        options.extraConfig ?? '',
      ].join('\n'),
    );
    const proc = spawnManaged(binary, ['-c', config]);
    proc.child.on('error', () => undefined);
    processes.set(node, proc);
    await waitForPort('127.0.0.1', clientPorts[i] ?? 0, proc);
    return proc;
  };
  const dispose = async (): Promise<void> => {
    await Promise.all([...processes.values()].map((p) => p.stop()));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = await Promise.all(names.map(launch));
    // Some node reports the JetStream meta leader once the cluster has formed; R<size> placement
    // needs every peer current in the meta group too (on a loaded machine that takes a while longer).
    await Promise.any(started.map((proc) => waitForOutput(proc, 'JetStream cluster new metadata leader', 30_000)));
    await waitForMetaPeers(monitorPorts, size, 30_000);
  } catch (error) {
    await dispose();
    throw error;
  }
  const running = (node: string): ManagedProcess | undefined => {
    const proc = processes.get(node);
    return proc === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null ? undefined : proc;
  };
  return {
    urls: clientPorts.map((port) => `nats://127.0.0.1:${port}`),
    names,
    pidOf: (node) => running(node)?.child.pid,
    kill: async (node) => {
      indexOf(node);
      await running(node)?.stop('SIGKILL');
    },
    restart: async (node) => {
      await running(node)?.stop();
      await launch(node);
    },
    isolate: async (node) => {
      const own = proxies[indexOf(node)];
      if (own === undefined) throw new Error('nats cluster: isolate needs a cluster started with { partitionable: true }');
      const varz = (await (await fetch(`http://127.0.0.1:${monitorPorts[indexOf(node)]}/varz`)).json()) as { server_id?: string };
      const serverIds = new Set(varz.server_id === undefined ? [] : [varz.server_id]);
      for (const proxy of proxies) proxy.cut(proxy === own ? { all: true, serverIds } : { all: false, serverIds });
    },
    heal: () => {
      for (const proxy of proxies) proxy.heal();
    },
    catchUp: async (node, timeoutMs) => {
      const streamsOn = async (of: string): Promise<Readonly<Record<string, NodeStreamState>>> => (running(of) === undefined ? {} : await readStreams(monitorPorts[indexOf(of)] ?? 0).catch(() => ({})));
      const since = Date.now();
      for (;;) {
        const mine = await streamsOn(node);
        const differences: string[] = [];
        const peer = names.find((other) => other !== node && running(other) !== undefined) ?? node;
        for (const [name, state] of Object.entries(await streamsOn(peer))) {
          const leaderState = (await streamsOn(state.leader === '' ? peer : state.leader))[name];
          const own = mine[name];
          if (own === undefined || leaderState === undefined || own.lastSeq !== leaderState.lastSeq || own.messages !== leaderState.messages) {
            differences.push(`${name}: ${node} ${own === undefined ? 'has no replica' : `${own.messages} msgs to seq ${own.lastSeq}`}, leader ${state.leader} ${leaderState?.messages} to ${leaderState?.lastSeq}`);
          }
        }
        if (differences.length === 0 || Date.now() - since > timeoutMs) return differences;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
    logs: (node) => processes.get(node)?.output() ?? '',
    clientsOn: async (node) => {
      const response = await fetch(`http://127.0.0.1:${monitorPorts[indexOf(node)]}/connz`);
      return ((await response.json()) as { num_connections?: number }).num_connections ?? 0;
    },
    streamsOn: (node) => readStreams(monitorPorts[indexOf(node)] ?? 0),
    dispose,
  };
}

/** Every stream of every account as the node with this monitor port stores it, by stream name. */
async function readStreams(monitorPort: number): Promise<Readonly<Record<string, NodeStreamState>>> {
  const response = await fetch(`http://127.0.0.1:${monitorPort}/jsz?accounts=true&streams=true`);
  const jsz = (await response.json()) as Jsz;
  const streams: Record<string, NodeStreamState> = {};
  for (const account of jsz.account_details ?? []) {
    for (const stream of account.stream_detail ?? []) {
      streams[stream.name] = { messages: stream.state.messages, lastSeq: stream.state.last_seq, leader: stream.cluster?.leader ?? '' };
    }
  }
  return streams;
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
