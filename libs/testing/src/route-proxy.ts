import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of one nats-server node's cluster (route) port, so a test can cut that node's
 * routes while its client port stays up: a network partition between servers that leaves each
 * server's clients where they are. Every route to or from the node passes through a proxy (the node's
 * own, or the peer's): the node's explicit routes and its advertised cluster address name proxies.
 *
 * A route connection is attributed to the server that dialled it by the `CONNECT` it sends first,
 * whose `name` is that server's id (nats-server's route protocol), so a peer's proxy can refuse the
 * cut-off node's own dials as well.
 */
export interface RouteProxy {
  readonly port: number;
  /**
   * Cuts every connection through this proxy that involves any of `serverIds` (as the dialling
   * server), or every connection when `all`; new ones are closed as soon as they are attributed.
   */
  cut(rule: { readonly all: boolean; readonly serverIds: ReadonlySet<string> }): void;
  heal(): void;
  close(): Promise<void>;
}

interface Piped {
  readonly downstream: Socket;
  readonly upstream: Socket;
  dialler: string | undefined;
}

export async function startRouteProxy(targetPort: number): Promise<RouteProxy> {
  const pipes = new Set<Piped>();
  let rule: { readonly all: boolean; readonly serverIds: ReadonlySet<string> } = { all: false, serverIds: new Set() };
  const refused = (pipe: Piped): boolean => rule.all || (pipe.dialler !== undefined && rule.serverIds.has(pipe.dialler));
  const drop = (pipe: Piped): void => {
    pipe.downstream.destroy();
    pipe.upstream.destroy();
    pipes.delete(pipe);
  };
  const server: Server = createServer((downstream) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    const pipe: Piped = { downstream, upstream, dialler: undefined };
    pipes.add(pipe);
    if (refused(pipe)) {
      drop(pipe);
      return;
    }
    let head = '';
    downstream.on('data', (chunk: Buffer) => {
      if (pipe.dialler === undefined && head.length < 4096) {
        head += chunk.toString('latin1');
        pipe.dialler = /CONNECT\s+\{[^\r\n]*?"name"\s*:\s*"([^"]+)"/.exec(head)?.[1];
        if (refused(pipe)) {
          drop(pipe);
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => downstream.write(chunk));
    const end = (): void => drop(pipe);
    for (const socket of [downstream, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    cut: (next) => {
      rule = next;
      for (const pipe of [...pipes]) if (refused(pipe)) drop(pipe);
    },
    heal: () => {
      rule = { all: false, serverIds: new Set() };
    },
    close: async () => {
      for (const pipe of [...pipes]) drop(pipe);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
