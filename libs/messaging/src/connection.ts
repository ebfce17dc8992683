import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

export interface ConnectNatsOptions {
  /** One URL or a list (`nats://host:4222`). */
  readonly servers: string | readonly string[];
  /** The connection name the server shows in monitoring: the service name. */
  readonly name: string;
  /** Anything else nats.js accepts (credentials, TLS, ...); overrides the defaults below. */
  readonly connectOptions?: Partial<ConnectionOptions>;
}

/**
 * Connects to NATS with settings fit for a long-running service: reconnect forever
 * with a jittered wait, and detect a dead server within about a minute (ping every 20 s, 3 missed).
 * The first connect waits too (flow control: a service starts while NATS is down, reports not ready,
 * and carries on when it returns); pass `waitOnFirstConnect: false` to fail fast instead.
 */
export async function connectNats(options: ConnectNatsOptions): Promise<NatsConnection> {
  return connect({
    servers: typeof options.servers === 'string' ? options.servers : [...options.servers],
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    reconnectJitter: 500,
    pingInterval: 20_000,
    maxPingOut: 3,
    timeout: 5_000,
    // Capturing a stack for every request (each JetStream publish is one) costs more CPU than the
    // publish itself at thousands per second; errors keep their messages.
    noAsyncTraces: true,
    waitOnFirstConnect: true,
    ...options.connectOptions,
  });
}

/** Tracks whether a connection is currently up (for readiness probes). */
export class ConnectionState {
  #connected: boolean;
  readonly #nc: NatsConnection;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    this.#connected = !nc.isClosed();
    void this.#watch();
  }

  /** True while connected; false while reconnecting, draining or closed. */
  isConnected(): boolean {
    return this.#connected && !this.#nc.isClosed() && !this.#nc.isDraining();
  }

  async #watch(): Promise<void> {
    try {
      for await (const status of this.#nc.status()) {
        switch (status.type) {
          case 'disconnect':
          case 'reconnecting':
          case 'staleConnection':
            this.#connected = false;
            break;
          case 'reconnect':
            this.#connected = true;
            break;
          default:
            break;
        }
      }
    } finally {
      this.#connected = false;
    }
  }
}
