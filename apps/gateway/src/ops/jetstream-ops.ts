import { Inject, Injectable, type OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import { jetstream, jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS } from '@openpaw/contracts';
import { connectNats, DLQ_HEADERS, NATS_CONNECTION, redriveDeadLetter, redriveDeadLetters, type BulkRedriveResult, type DeadLetterFilter, type RedriveOutcome } from '@openpaw/messaging';
import type { z } from 'zod';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { redactedPayloadOf } from './redact.js';
import type { deadLetterSchema, laneSchema } from './ops.schemas.js';

type Lane = z.output<typeof laneSchema>;
type DeadLetter = z.output<typeof deadLetterSchema>;

/** The streams whose consumers are lanes (commands) or projections and reactions (events). */
const CONSUMER_STREAMS = [STREAMS.commands.name, STREAMS.events.name];

/** nats.js types `last_active` as nanoseconds; the server sends an RFC 3339 time (and omits it before the first delivery). */
function lastActiveOf(raw: unknown): string | null {
  return typeof raw === 'string' && raw !== '' ? raw : null;
}

function laneOf(info: ConsumerInfo): Lane {
  return {
    stream: info.stream_name,
    consumer: info.name,
    filterSubject: info.config.filter_subject ?? info.config.filter_subjects?.join(', ') ?? null,
    pending: info.num_pending,
    ackPending: info.num_ack_pending,
    redelivered: info.num_redelivered,
    waiting: info.num_waiting,
    maxAckPending: info.config.max_ack_pending ?? null,
    lastActive: lastActiveOf(info.delivered.last_active),
  };
}

const intOrNull = (value: string | undefined): number | null => (value === undefined || value === '' || !/^\d+$/.test(value) ? null : Number(value));
const textOrNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

/**
 * Operations view of the platform's JetStream: every durable consumer's backlog and in-flight
 * count, the newest dead letters with their reason (payload redacted), and redriving them.
 */
@Injectable()
export class JetStreamOps implements OnModuleDestroy {
  #jsm: Promise<JetStreamManager> | undefined;
  #redriver: Promise<NatsConnection> | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * The connection a redrive publishes on: the redriver's own NATS user (`redriverNats`), opened at
   * the first redrive, since only it may publish every message; the gateway's when none is set.
   */
  private redriver(): Promise<NatsConnection> {
    const settings = this.config.redriverNats;
    if (settings === undefined) return Promise.resolve(this.nc);
    this.#redriver ??= connectNats({ servers: this.config.natsUrl, name: 'gateway-redriver', settings, connectOptions: { waitOnFirstConnect: false } }).catch((error: unknown) => {
      this.#redriver = undefined;
      // An operator's to mend (its Secret is mounted optionally): 503 naming the setting, not an opaque 500.
      throw new ServiceUnavailableException(
        `the dead-letter redrive cannot connect as its NATS user (OPENPAW_NATS_REDRIVER_CREDS_FILE): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return this.#redriver;
  }

  async onModuleDestroy(): Promise<void> {
    const redriver = await this.#redriver?.catch(() => undefined);
    await redriver?.close();
  }

  private manager(): Promise<JetStreamManager> {
    this.#jsm ??= jetstreamManager(this.nc);
    return this.#jsm;
  }

  async lanes(): Promise<Lane[]> {
    const jsm = await this.manager();
    const lanes: Lane[] = [];
    for (const stream of CONSUMER_STREAMS) {
      for await (const info of jsm.consumers.list(stream)) lanes.push(laneOf(info));
    }
    return lanes.sort((a, b) => a.stream.localeCompare(b.stream) || a.consumer.localeCompare(b.consumer));
  }

  /** The newest `limit` dead letters, newest first, and how many the stream holds. */
  async deadLetters(limit: number): Promise<{ deadLetters: DeadLetter[]; total: number }> {
    const jsm = await this.manager();
    const { state } = await jsm.streams.info(STREAMS.deadLetters.name);
    const deadLetters: DeadLetter[] = [];
    for (let seq = state.last_seq; seq >= state.first_seq && seq > 0 && deadLetters.length < limit; seq--) {
      const stored = await jsm.streams.getMessage(STREAMS.deadLetters.name, { seq });
      if (stored === null) continue; // deleted or purged
      const header = (name: string): string | undefined => stored.header?.get(name);
      deadLetters.push({
        seq: stored.seq,
        subject: stored.subject,
        receivedAt: stored.time.toISOString(),
        reason: textOrNull(header(DLQ_HEADERS.reason)),
        originalSubject: textOrNull(header(DLQ_HEADERS.originalSubject)),
        originalStream: textOrNull(header(DLQ_HEADERS.stream)),
        consumer: textOrNull(header(DLQ_HEADERS.consumer)),
        deliveries: intOrNull(header(DLQ_HEADERS.deliveries)),
        originalMsgId: textOrNull(header(DLQ_HEADERS.originalMsgId)),
        bytes: stored.data.length,
        payload: redactedPayloadOf(stored.data),
      });
    }
    return { deadLetters, total: state.messages };
  }

  /** Republishes one dead letter to its original subject and removes it from the dead-letter stream. */
  async redrive(seq: number): Promise<RedriveOutcome> {
    const nc = await this.redriver();
    return redriveDeadLetter(jetstream(nc), await jetstreamManager(nc), seq);
  }

  /** Redrives (or with `dryRun` counts) the dead letters `filter` matches. */
  async redriveMatching(filter: DeadLetterFilter, options: { dryRun: boolean; limit: number }): Promise<BulkRedriveResult> {
    const nc = await this.redriver();
    return redriveDeadLetters(jetstream(nc), await jetstreamManager(nc), filter, options);
  }
}
