import type { AnyMessageDefinition, Envelope, EnvelopeMeta, MessageData, RejectedBatchItem } from '@openpaw/contracts';

/**
 * The public face of messaging that services and the coordinator program against.
 * Implemented on nats.js v3 (JetStream) in this lib.
 */
export interface MessagePublisher {
  /** Builds the envelope (validating data) and publishes it; `Nats-Msg-Id` = envelope id. Resolves on the PubAck. */
  publish<D extends AnyMessageDefinition>(definition: D, data: MessageData<D>, meta: EnvelopeMeta): Promise<Envelope<MessageData<D>>>;
  /**
   * Publishes an already-built envelope on its `type` subject. `msgId` overrides the Nats-Msg-Id
   * (the outbox relay uses the outbox row id; a re-send uses a fresh one while the envelope id, the
   * consumer's dedup key, stays the same).
   */
  publishEnvelope(envelope: Envelope, options?: { readonly msgId?: string }): Promise<void>;
}

/** What a handler returns; thrown errors count as `retry`. */
export type HandlerOutcome =
  /**
   * Done. A batched command's items that failed for good (bad data, a PostgreSQL class 22/23 refusal)
   * are listed in `failedItems`: each is dead-lettered alone, the rest of the batch stands (ADR 0025).
   */
  | { readonly kind: 'ack'; readonly failedItems?: readonly FailedBatchItem[] }
  /** Transient failure: nak with backoff; dead-lettered after the consumer's max deliveries. */
  | { readonly kind: 'retry'; readonly reason: string; readonly delayMs?: number }
  /** Permanent failure: dead-letter now with the reason, then term. */
  | { readonly kind: 'reject'; readonly reason: string };

export interface MessageContext {
  readonly subject: string;
  /** 1 on first delivery. */
  readonly deliveryCount: number;
  readonly streamSequence: number;
  /** W3C trace context the message carried (headers first, else the envelope); the handler already runs in it. */
  readonly traceparent?: string;
  readonly tracestate?: string;
}

export type MessageHandler<D extends AnyMessageDefinition> = (
  envelope: Envelope<MessageData<D>>,
  context: MessageContext,
) => Promise<HandlerOutcome | void>;

/** An item of a batched command that failed for good, by its `itemId`, with the reason its dead letter carries. */
export interface FailedBatchItem {
  readonly itemId: string;
  readonly reason: string;
}

/** A validated message handed to a batch handler. */
export interface BatchItem {
  readonly definition: AnyMessageDefinition;
  readonly envelope: Envelope;
  readonly context: MessageContext;
  /** A batched command's items that failed validation (dead-lettered alone before the handler runs); the envelope holds the others. */
  readonly rejectedItems?: readonly RejectedBatchItem[];
}

/**
 * Batch handler (the coordinator applies many inputs in one transaction). Returns one outcome per
 * item, in order. Messages whose subject has no definition are acked and skipped only when the
 * consumer says so (`ignoreUnknownSubjects`), else dead-lettered.
 */
export type BatchHandler = (items: readonly BatchItem[], afterSettled: AfterSettled) => Promise<readonly HandlerOutcome[]>;

/**
 * Registers work the consumer runs right after it settles the batch's messages, in the same tick:
 * what the handler publishes there leaves in the same write to the server as the acks (the
 * coordinator relays its committed outbox so: one write per batch instead of two). It runs whether
 * the batch was acked, retried or rejected; the handler registers only work its commits already owe.
 */
export type AfterSettled = (work: () => void) => void;
