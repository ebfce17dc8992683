/*
 * Shared set-up for this lib's integration specs (not exported from index.ts): a private real
 * nats-server with the OpenPaw streams, small consumers, and readers for what landed where.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS } from '@openpaw/contracts';
import { privateNatsServer } from '@openpaw/testing';
import { connectNats } from '../connection.js';
import type { MessagingLogger } from '../observability.js';
import { ensureConsumer, provisionStreams, serviceCommandsDurable, serviceCommandsFilter, type ConsumerSpec } from '../provisioning.js';
import { JetStreamPublisher } from '../publisher.js';

export { privateNatsServer };

export interface Broker {
  readonly url: string;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly publisher: JetStreamPublisher;
  /** Stops and starts the server on the same port and store (the client reconnects). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/** A private nats-server 2.9 with the three streams provisioned, and a client connection to it. */
export async function startBroker(): Promise<Broker> {
  const server = await privateNatsServer();
  const nc = await connectNats({ servers: server.url, name: 'messaging-int-spec' });
  const jsm = await jetstreamManager(nc);
  await provisionStreams(jsm);
  const js = jetstream(nc);
  return {
    url: server.url,
    nc,
    js,
    jsm,
    publisher: new JetStreamPublisher(js),
    restart: () => server.restart(),
    dispose: async () => {
      await nc.close();
      await server.dispose();
    },
  };
}

/** The commands consumer of a test "service" (one per test, so tests do not see each other's messages). */
export async function commandsConsumer(
  broker: Broker,
  service: string,
  overrides: Partial<Omit<ConsumerSpec, 'stream' | 'durable' | 'filterSubject'>> = {},
): Promise<{ stream: string; durable: string }> {
  const durable = serviceCommandsDurable(service);
  await ensureConsumer(broker.jsm, {
    stream: STREAMS.commands.name,
    durable,
    filterSubject: serviceCommandsFilter(service),
    maxDeliver: 20,
    ackWaitMs: 2_000,
    maxAckPending: 1_000,
    ...overrides,
  });
  return { stream: STREAMS.commands.name, durable };
}

/** Every stored message of `stream` on `subject`, oldest first. */
export async function storedMessages(jsm: JetStreamManager, stream: string, subject: string): Promise<StoredMsg[]> {
  const { state } = await jsm.streams.info(stream);
  const found: StoredMsg[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq += 1) {
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (msg !== null && msg.subject === subject) found.push(msg);
  }
  return found;
}

export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string;
}

/** A logger that records instead of printing. */
export function recordingLogger(): MessagingLogger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}
