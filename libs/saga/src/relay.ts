import type { Envelope } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import type { OutboxRecord } from './records.js';

/** The slice of messaging the relay needs (libs/messaging's MessagePublisher satisfies it). */
export interface EnvelopePublisher {
  publishEnvelope(envelope: Envelope, options?: { readonly msgId?: string }): Promise<void>;
}

export interface RelayObserver {
  /** Age in seconds of the oldest unpublished row seen by the sweeper. */
  onOutboxLag?(seconds: number): void;
  onPublishFailed?(error: unknown): void;
}

/**
 * Where published ids go to be deleted. The SagaStore takes them into its next write, so deleting
 * costs no transaction of its own; the relay deletes leftovers itself every `flushIntervalMs`.
 */
export interface PublishedOutboxSink {
  notePublished(msgIds: readonly string[]): void;
  takePublished(): string[];
}

export interface OutboxRelayOptions {
  readonly flushIntervalMs?: number;
  /** How often the sweeper looks for rows the fast path did not publish (crash, broker outage). */
  readonly sweepIntervalMs?: number;
  /**
   * After sweeps that found nothing, the gap doubles up to this (ms); a sweep that finds rows, or a
   * fast-path publish that fails, brings it back to `sweepIntervalMs`. Default: 4 × sweepIntervalMs.
   */
  readonly sweepIdleMs?: number;
  /** Rows younger than this belong to the fast path. */
  readonly sweepMinAgeMs?: number;
  readonly sweepBatch?: number;
}

/**
 * Publishes the outbox. Fast path: right after a commit, the committed rows are published from
 * memory and deleted in coalesced batches. Sweeper: rows left behind (a crash between commit and
 * publish, a broker outage) are published on start-up and every `sweepIntervalMs`. Either may
 * publish a row twice; the outbox id as Nats-Msg-Id makes the broker drop the second copy.
 */
export class OutboxRelay {
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly flushIntervalMs: number;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  private readonly sweepIntervalMs: number;
  private readonly sweepIdleMs: number;
  /** The gap before the next sweep: grows while sweeps find nothing. */
  private sweepGapMs: number;
  private readonly sweepMinAgeMs: number;
  private readonly sweepBatch: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly publisher: EnvelopePublisher,
    private readonly sink: PublishedOutboxSink,
    options: OutboxRelayOptions = {},
    private readonly observer: RelayObserver = {},
  ) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 500;
    this.sweepIdleMs = Math.max(this.sweepIntervalMs, options.sweepIdleMs ?? 4 * this.sweepIntervalMs);
    this.sweepGapMs = this.sweepIntervalMs;
    this.sweepMinAgeMs = options.sweepMinAgeMs ?? 2000;
    this.sweepBatch = options.sweepBatch ?? 500;
    this.flushIntervalMs = options.flushIntervalMs ?? 250;
  }

  /** Publishes committed rows now; failures are left to the sweeper. */
  async publishCommitted(records: readonly OutboxRecord[]): Promise<void> {
    if (records.length === 0) return;
    const published = await Promise.allSettled(records.map((r) => this.publisher.publishEnvelope(r.envelope, { msgId: r.msgId })));
    const done: string[] = [];
    published.forEach((result, i) => {
      if (result.status === 'fulfilled') done.push(records[i]?.msgId ?? '');
      else {
        this.sweepGapMs = this.sweepIntervalMs; // rows are left behind: sweep at the base pace
        this.observer.onPublishFailed?.(result.reason);
      }
    });
    this.sink.notePublished(done);
  }

  start(): void {
    this.flushTimer = setInterval(() => this.scheduleFlush(), this.flushIntervalMs);
    const loop = (): void => {
      if (this.stopped) return;
      const gap = this.sweepGapMs;
      this.sweeping = this.sweepOnce()
        .then((found) => {
          if (found > 0 || this.sweepGapMs < gap) this.sweepGapMs = this.sweepIntervalMs;
          else this.sweepGapMs = Math.min(this.sweepIdleMs, gap * 2);
        })
        .catch((error: unknown) => {
          this.sweepGapMs = this.sweepIntervalMs;
          this.observer.onPublishFailed?.(error);
        })
        .finally(() => {
          this.sweeping = undefined;
          if (!this.stopped) this.sweepTimer = setTimeout(loop, this.sweepGapMs);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer !== undefined) clearTimeout(this.sweepTimer);
    if (this.flushTimer !== undefined) clearInterval(this.flushTimer);
    await this.sweeping;
    await this.flush();
  }

  /** Publishes rows older than the fast path's window; returns how many. */
  async sweepOnce(minAgeMs = this.sweepMinAgeMs): Promise<number> {
    const rows = await this.dataSource.query<Array<{ msg_id: string; envelope: Envelope; age: number }>>(
      `select msg_id, envelope, extract(epoch from now() - created_at)::float8 as age
       from outbox where created_at <= now() - make_interval(secs => $1::float8 / 1000)
       order by created_at limit $2`,
      [minAgeMs, this.sweepBatch],
    );
    this.observer.onOutboxLag?.(rows[0]?.age ?? 0);
    if (rows.length === 0) return 0;
    await this.publishCommitted(rows.map((r) => ({ msgId: r.msg_id, envelope: r.envelope })));
    await this.flush();
    return rows.length;
  }

  private scheduleFlush(): void {
    if (this.flushing !== undefined) return;
    this.flushing = (async () => {
      const ids = this.sink.takePublished();
      if (ids.length === 0) return;
      try {
        await this.dataSource.query(`delete from outbox where msg_id = any($1::text[])`, [ids]);
      } catch (error) {
        this.sink.notePublished(ids);
        throw error;
      }
    })()
      .catch((error: unknown) => this.observer.onPublishFailed?.(error))
      .finally(() => {
        this.flushing = undefined;
      });
  }

  private async flush(): Promise<void> {
    this.scheduleFlush();
    await this.flushing;
  }
}
