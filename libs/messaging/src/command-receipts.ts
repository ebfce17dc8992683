import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { KV_BUCKETS, openKvBucket, type OpenKvBucketOptions } from './kv-buckets.js';
import { errorMessage, type MessagingLogger } from './observability.js';

/**
 * Command receipts (flow control): when a service picks up a command, it records the pickup under
 * the command's id. The coordinator reads it when a step's timer fires, so a step timeout runs from
 * pickup, never from the send: a command waiting its turn in a lane is not mistaken for a lost one.
 * Kept in a JetStream KV bucket with a TTL (FROZEN name); a missing receipt means "not picked up
 * (yet)", never an error.
 */
export const COMMAND_RECEIPTS_BUCKET = KV_BUCKETS.commandReceipts.name;

export interface CommandReceipt {
  /** When the latest delivery was handed to a handler (ISO 8601). */
  readonly pickedUpAt: string;
  /** JetStream delivery count of that delivery (1 on first pickup; more after a crash or nak). */
  readonly deliveries: number;
  readonly service: string;
  readonly lane: string;
}

export interface CommandReceiptStore {
  record(commandId: string, receipt: CommandReceipt): Promise<void>;
  lookup(commandId: string): Promise<CommandReceipt | undefined>;
}

/** KV keys allow `[-/_=.a-zA-Z0-9]`; command ids are UUIDs, anything else is made safe. */
function keyOf(commandId: string): string {
  return commandId.replace(/[^-/_=.a-zA-Z0-9]/g, '_');
}

function isReceipt(value: unknown): value is CommandReceipt {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['pickedUpAt'] === 'string' && typeof r['deliveries'] === 'number';
}

export class KvCommandReceiptStore implements CommandReceiptStore {
  private constructor(private readonly kv: KV) {}

  /** Opens the provisioned bucket (see `KV_BUCKETS`: its TTL outlasts any run deadline), waiting until it exists. */
  static async open(jsm: JetStreamManager, options: OpenKvBucketOptions = {}): Promise<KvCommandReceiptStore> {
    const kv = await openKvBucket(jsm, COMMAND_RECEIPTS_BUCKET, options);
    return new KvCommandReceiptStore(kv);
  }

  async record(commandId: string, receipt: CommandReceipt): Promise<void> {
    await this.kv.put(keyOf(commandId), JSON.stringify(receipt));
  }

  async lookup(commandId: string): Promise<CommandReceipt | undefined> {
    const entry = await this.kv.get(keyOf(commandId));
    if (entry === null || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    try {
      const value: unknown = entry.json();
      return isReceipt(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * A command answered this fast needs no receipt: the coordinator reads one only when a step timer
 * fires, and no step times out this soon (the shortest are 10 s). Until then, a timer that fires finds
 * the command in its lane's backlog (ack pending) and waits. Skipping the receipt of a quick command
 * saves a JetStream write (and its PubAck) per command: most of them, on the hit path and for research legs.
 */
export const RECEIPT_AFTER_MS = 1_000;

/**
 * Records receipts without holding up the handler: a command still being handled `afterMs` after its
 * pickup gets its receipt then (stamped with the pickup time); one settled sooner gets none. The put
 * runs beside the handler, and a failed put is only logged (the coordinator then sees "not picked up"
 * and keeps waiting; nothing is re-sent for it while the lane has a backlog).
 */
export function receiptRecorder(store: CommandReceiptStore, service: string, lane: string, logger: MessagingLogger, afterMs = RECEIPT_AFTER_MS) {
  return (commandId: string, deliveries: number): (() => void) => {
    const pickedUpAt = new Date().toISOString();
    const record = (): void => {
      store.record(commandId, { pickedUpAt, deliveries, service, lane }).catch((error: unknown) => {
        logger.warn({ commandId, service, lane, err: errorMessage(error) }, 'could not record command receipt');
      });
    };
    if (afterMs <= 0) {
      record();
      return () => undefined;
    }
    const timer = setTimeout(record, afterMs);
    timer.unref();
    return () => clearTimeout(timer);
  };
}
