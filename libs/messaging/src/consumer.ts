import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { ClosedConnectionError, DrainingConnectionError, headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { Context } from '@opentelemetry/api';
import { deadLetterSubjectOf, isBatchCommand, parseBatchEnvelope, parseEnvelope, type AnyMessageDefinition } from '@openpaw/contracts';
import { errorMessage, stderrLogger, type MessagingLogger, type MessagingObserver } from './observability.js';
import type { AfterSettled, BatchHandler, BatchItem, FailedBatchItem, HandlerOutcome, MessageContext } from './ports.js';
import { whenJetStreamAnswers } from './jetstream-when-ready.js';
import { messageCounters } from './message-budget.js';
import { inBatchConsumerSpans, inConsumerSpan } from './message-spans.js';
import { contextFromTraceHeaders, TRACEPARENT, TRACESTATE } from './trace-context.js';
import type { ValidatedEnvelopes } from './validated-envelopes.js';

/** What `onPickup` may return: called once the picked-up message is settled. */
export type PickupEnded = () => void;

/** Headers a dead letter carries besides the original message's own. */
export const DLQ_HEADERS = {
  reason: 'Openpaw-Dlq-Reason',
  originalSubject: 'Openpaw-Dlq-Original-Subject',
  streamSeq: 'Openpaw-Dlq-Stream-Seq',
  deliveries: 'Openpaw-Dlq-Deliveries',
  stream: 'Openpaw-Dlq-Stream',
  consumer: 'Openpaw-Dlq-Consumer',
  /** The original `Nats-Msg-Id` (NATS control headers are not copied onto the dead letter). */
  originalMsgId: 'Openpaw-Dlq-Original-Msg-Id',
  /** A batched command's item dead-lettered alone (its dead letter is the one-item batch). */
  itemId: 'Openpaw-Dlq-Item-Id',
} as const;

/** The JetStream de-duplication header: every publish of ours sets it to the envelope id. */
export const NATS_MSG_ID = 'Nats-Msg-Id';

/** Nak delays by delivery count (the last repeats) when the consumer names none. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 5_000, 15_000, 60_000];
export const DEFAULT_MAX_DELIVER = 5;

interface ConsumerCommonOptions {
  readonly stream: string;
  /** The durable pull consumer (provisioned beforehand with `ensureConsumer`). */
  readonly durable: string;
  /** The messages this consumer understands; a subject is looked up here. */
  readonly definitions: readonly AnyMessageDefinition[];
  /** Handlers (or batches, for a batch consumer) in flight at once. Default 1. */
  readonly concurrency?: number;
  /**
   * Deliveries before a message that keeps failing is dead-lettered. Default 5. Give the server-side
   * consumer a larger `max_deliver` (one more): a delivery beyond this one, which happens only when
   * the last attempt never settled (a crash, an ack timeout), is dead-lettered without running the handler.
   */
  readonly maxDeliver?: number;
  /** Nak delay by delivery count (index 0 after the first delivery; the last repeats). */
  readonly backoffMs?: readonly number[];
  /** Ack and skip subjects with no definition (an events consumer reading all of `openpaw.evt.>`); else they are dead-lettered. */
  readonly ignoreUnknownSubjects?: boolean;
  /** Subjects acked without handling: another lane of the service consumes them through its own durable. */
  readonly otherLanesSubjects?: ReadonlySet<string>;
  /**
   * Called when a valid message is handed to its handler (command receipts: see `command-receipts.ts`);
   * what it returns is called once the message is settled (its handler done).
   */
  readonly onPickup?: (envelopeId: string, deliveryCount: number) => PickupEnded | void;
  readonly observer?: MessagingObserver;
  readonly logger?: MessagingLogger;
  /**
   * Messages held beyond those being handled, so the next is ready when a handler finishes.
   * Default: `concurrency` for a handler, `maxBatch * concurrency` for a batch handler. Pulls are
   * sized to free room only, so an instance never hoards messages that other instances could handle.
   */
  readonly prefetch?: number;
  /** How long one pull request waits on the server (messages arrive the moment they exist). Default 5 s, minimum 1 s. */
  readonly pullExpiresMs?: number;
  /**
   * Messages another reader in this process validated already (a live subscription to the same
   * subjects): one found here with the same id, subject and bytes is not validated again.
   */
  readonly validatedEnvelopes?: ValidatedEnvelopes;
}

export interface MessageConsumerOptions extends ConsumerCommonOptions {
  /** Handles one validated message; resolving without an outcome acks, throwing retries. */
  readonly handler: (item: BatchItem) => Promise<HandlerOutcome | void>;
  readonly batchHandler?: never;
}

export interface BatchConsumerOptions extends ConsumerCommonOptions {
  /** Handles the valid messages available now (up to `maxBatch`) in one call; one outcome per item, in order. */
  readonly batchHandler: BatchHandler;
  readonly maxBatch: number;
  readonly handler?: never;
}

export type ConsumerOptions = MessageConsumerOptions | BatchConsumerOptions;

export interface ConsumerHandle {
  /**
   * Stops pulling, naks messages held but not started (so another instance takes them at once),
   * waits for the handlers in flight to finish and settle, then resolves.
   */
  stop(): Promise<void>;
}

const ACK: HandlerOutcome = { kind: 'ack' };
const MAX_REASON_LENGTH = 2_000;

/** Header values cannot hold line breaks (zod's readable errors have them). */
function headerValue(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ').trim();
  return flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH)}...` : flat;
}

function copyHeaders(source: MsgHdrs | undefined): { headers: MsgHdrs; msgId: string | undefined } {
  const target = natsHeaders();
  let msgId: string | undefined;
  if (source !== undefined) {
    for (const [key, values] of source) {
      // NATS control headers (Nats-Msg-Id, Nats-Expected-*, ...) would steer the dead-letter publish.
      if (key.toLowerCase().startsWith('nats-')) {
        if (key.toLowerCase() === 'nats-msg-id') msgId = values[0];
        continue;
      }
      for (const value of values) target.append(key, value);
    }
  }
  return { headers: target, msgId };
}

/** The item ids of a batched command's valid items; undefined for any other message. */
function batchItemIds(item: BatchItem): string[] | undefined {
  if (item.rejectedItems === undefined) return undefined;
  return (item.envelope.data as { readonly items: readonly { readonly itemId: string }[] }).items.map((i) => i.itemId);
}

/**
 * Starts a durable pull consumer: each message is validated against its definition, handled in the
 * OpenTelemetry context its headers carry, and settled by the outcome (ack; nak with backoff;
 * dead-letter + term). Resolves once the consumer is found (waiting while JetStream is unavailable) and pulling.
 */
export async function startConsumer(js: JetStreamClient, options: ConsumerOptions): Promise<ConsumerHandle> {
  const { consumer, info } = await whenJetStreamAnswers(`consumer ${options.stream}/${options.durable}`, async () => {
    const found = await js.consumers.get(options.stream, options.durable);
    return { consumer: found, info: await found.info(true) };
  });
  const ackWaitMs = Math.min(info.config.ack_wait ?? 30e9, ...(info.config.backoff ?? [])) / 1e6;
  const runner = new PullConsumerRunner(js, consumer, options, ackWaitMs);
  runner.start();
  return runner;
}

class PullConsumerRunner implements ConsumerHandle {
  readonly #js: JetStreamClient;
  readonly #consumer: Consumer;
  readonly #stream: string;
  readonly #durable: string;
  readonly #definitions: ReadonlyMap<string, AnyMessageDefinition>;
  readonly #concurrency: number;
  readonly #maxDeliver: number;
  readonly #backoffMs: readonly number[];
  readonly #ignoreUnknown: boolean;
  readonly #otherLanesSubjects: ReadonlySet<string>;
  readonly #onPickup: ConsumerCommonOptions['onPickup'];
  readonly #observer: MessagingObserver | undefined;
  readonly #logger: MessagingLogger;
  readonly #handler: MessageConsumerOptions['handler'] | undefined;
  readonly #batchHandler: BatchHandler | undefined;
  readonly #maxBatch: number;
  /** Messages held at most: handled + waiting + requested. */
  readonly #capacity: number;
  /** Smallest pull worth a request while others are outstanding. */
  readonly #refill: number;
  readonly #pullExpiresMs: number;
  readonly #workingIntervalMs: number;
  readonly #validatedEnvelopes: ValidatedEnvelopes | undefined;

  /** Received, waiting for a handler slot. */
  readonly #queue: JsMsg[] = [];
  /** Received and being handled or settled. */
  readonly #busy = new Set<JsMsg>();
  /** Requested from the server, not yet received. */
  #outstanding = 0;
  /** Handlers (or batches) in flight. */
  #running = 0;
  readonly #pulls = new Set<ConsumerMessages>();
  readonly #pullLoops = new Set<Promise<void>>();
  #pullErrors = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #ticker: NodeJS.Timeout | undefined;
  #dispatchScheduled = false;
  #closed = false;
  #stopping: Promise<void> | undefined;
  #onIdle: (() => void) | undefined;

  constructor(js: JetStreamClient, consumer: Consumer, options: ConsumerOptions, ackWaitMs: number) {
    this.#js = js;
    this.#consumer = consumer;
    this.#stream = options.stream;
    this.#durable = options.durable;
    this.#definitions = new Map(options.definitions.map((d) => [d.subject, d]));
    this.#concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
    this.#maxDeliver = Math.max(1, options.maxDeliver ?? DEFAULT_MAX_DELIVER);
    this.#backoffMs = options.backoffMs !== undefined && options.backoffMs.length > 0 ? options.backoffMs : DEFAULT_BACKOFF_MS;
    this.#ignoreUnknown = options.ignoreUnknownSubjects ?? false;
    this.#otherLanesSubjects = options.otherLanesSubjects ?? new Set();
    this.#onPickup = options.onPickup;
    this.#observer = options.observer;
    this.#logger = options.logger ?? stderrLogger;
    if (options.batchHandler !== undefined) {
      this.#batchHandler = options.batchHandler;
      this.#maxBatch = Math.max(1, Math.floor(options.maxBatch));
      this.#capacity = this.#maxBatch * this.#concurrency + Math.max(0, options.prefetch ?? this.#maxBatch * this.#concurrency);
    } else {
      this.#handler = options.handler;
      this.#maxBatch = 1;
      this.#capacity = this.#concurrency + Math.max(0, options.prefetch ?? this.#concurrency);
    }
    // Pulling again only at half the room (half as many pulls) stalled or backed up the hit-path bench in 3
    // of 7 runs (probably credit left in a pull the server no longer served, until it expired): a quarter.
    this.#refill = Math.max(1, Math.floor(this.#capacity / 4));
    this.#pullExpiresMs = Math.max(1_000, options.pullExpiresMs ?? 5_000);
    this.#validatedEnvelopes = options.validatedEnvelopes;
    this.#workingIntervalMs = Math.max(50, Math.floor(ackWaitMs / 3));
  }

  start(): void {
    this.#ticker = setInterval(() => this.#keepAlive(), this.#workingIntervalMs);
    this.#ticker.unref();
    this.#pump();
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#retryTimer);
    // Close the pull requests first. Kept open, they would hand back every message nak'd below, once
    // per outstanding credit, each time counting a delivery. A message the server sent just before
    // the close is redelivered after ack_wait.
    for (const pull of this.#pulls) pull.stop();
    for (const msg of this.#queue.splice(0)) this.#settle(msg, 'nak', 0);
    if (this.#running > 0) await new Promise<void>((resolve) => (this.#onIdle = resolve));
    await Promise.all(this.#pullLoops);
    clearInterval(this.#ticker);
  }

  // ---- pulling ------------------------------------------------------------------------------

  #pump(): void {
    if (this.#stopping !== undefined || this.#closed || this.#retryTimer !== undefined) return;
    const free = this.#capacity - this.#queue.length - this.#busy.size - this.#outstanding;
    if (free <= 0 || (this.#outstanding > 0 && free < this.#refill)) return;
    this.#outstanding += free;
    const loop = this.#pull(free);
    this.#pullLoops.add(loop);
    void loop.finally(() => this.#pullLoops.delete(loop));
  }

  async #pull(batch: number): Promise<void> {
    let remaining = batch;
    let pull: ConsumerMessages | undefined;
    try {
      messageCounters.pulls += 1;
      pull = await this.#consumer.fetch({ max_messages: batch, expires: this.#pullExpiresMs });
      if (this.#stopping !== undefined) pull.stop();
      else this.#pulls.add(pull);
      for await (const msg of pull) {
        if (remaining > 0) {
          remaining -= 1;
          this.#outstanding -= 1;
        }
        this.#receive(msg);
      }
      this.#pullErrors = 0;
    } catch (error) {
      this.#pullFailed(error);
    } finally {
      if (pull !== undefined) this.#pulls.delete(pull);
      this.#outstanding -= remaining;
    }
    this.#pump();
  }

  #pullFailed(error: unknown): void {
    if (error instanceof ClosedConnectionError || error instanceof DrainingConnectionError || this.#stopping !== undefined) {
      if (!this.#closed && this.#stopping === undefined) {
        this.#logger.warn({ stream: this.#stream, durable: this.#durable }, 'connection closed or draining: consumer stopped pulling');
      }
      this.#closed = true;
      return;
    }
    this.#pullErrors += 1;
    const delay = Math.min(5_000, 100 * 2 ** Math.min(this.#pullErrors, 6));
    if (this.#pullErrors === 1 || this.#pullErrors % 20 === 0) {
      this.#logger.warn(
        { stream: this.#stream, durable: this.#durable, err: errorMessage(error), failures: this.#pullErrors, retryInMs: delay },
        'pull failed; retrying',
      );
    }
    if (this.#retryTimer !== undefined) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#pump();
    }, delay);
    this.#retryTimer.unref();
  }

  #receive(msg: JsMsg): void {
    messageCounters.deliveries += 1;
    if (this.#stopping !== undefined) {
      this.#settle(msg, 'nak', 0);
      return;
    }
    this.#queue.push(msg);
    if (this.#batchHandler === undefined) {
      this.#dispatch();
    } else if (!this.#dispatchScheduled) {
      // Let the rest of this network read arrive first, so a batch takes everything available now.
      this.#dispatchScheduled = true;
      setImmediate(() => {
        this.#dispatchScheduled = false;
        this.#dispatch();
      });
    }
  }

  /** Keeps the ack timer of held messages from expiring while they wait or are handled. */
  #keepAlive(): void {
    for (const msg of this.#queue) msg.working();
    for (const msg of this.#busy) msg.working();
  }

  // ---- dispatching --------------------------------------------------------------------------

  #dispatch(): void {
    while (this.#running < this.#concurrency && this.#queue.length > 0 && this.#stopping === undefined) {
      this.#running += 1;
      if (this.#batchHandler === undefined) {
        const msg = this.#queue.shift() as JsMsg;
        this.#busy.add(msg);
        void this.#runOne(msg, this.#handler as MessageConsumerOptions['handler']);
      } else {
        const msgs = this.#queue.splice(0, this.#maxBatch);
        for (const msg of msgs) this.#busy.add(msg);
        void this.#runBatch(msgs, this.#batchHandler);
      }
    }
  }

  #finished(): void {
    this.#running -= 1;
    if (this.#stopping !== undefined) {
      if (this.#running === 0) this.#onIdle?.();
      return;
    }
    this.#dispatch();
    this.#pump();
  }

  async #runOne(msg: JsMsg, handler: MessageConsumerOptions['handler']): Promise<void> {
    let pickups: readonly PickupEnded[] = [];
    try {
      const item = this.#validate(msg);
      if (typeof item === 'string') return await this.#deadLetter(msg, item);
      if (item === undefined) return this.#settle(msg, 'ack');
      // A batch's invalid items fail alone, at once; a batch left with no item is done.
      if (item.rejectedItems !== undefined && item.rejectedItems.length > 0) await this.#deadLetterItems(msg, item.rejectedItems);
      const itemIds = batchItemIds(item);
      if (itemIds?.length === 0) return this.#settle(msg, 'ack');
      pickups = this.#pickedUp(item.envelope.id, itemIds ?? [], item.context.deliveryCount);
      const started = this.#observer === undefined ? 0 : performance.now();
      let outcome: HandlerOutcome;
      try {
        outcome = await inConsumerSpan(item, this.#traceContextOf(item), this.#durable, async () => (await handler(item)) ?? ACK);
      } catch (error) {
        outcome = { kind: 'retry', reason: errorMessage(error) };
      }
      this.#observer?.onHandled(msg.subject, outcome.kind, performance.now() - started);
      await this.#apply(msg, item.context.deliveryCount, outcome);
    } catch (error) {
      this.#unexpected(msg, error);
    } finally {
      for (const ended of pickups) ended();
      this.#finished();
    }
  }

  /** Tells `onPickup` of the message and of each item of a batch (each has its own step timer in the coordinator, looked up by its item id). */
  #pickedUp(envelopeId: string, itemIds: readonly string[], deliveryCount: number): PickupEnded[] {
    const ended: PickupEnded[] = [];
    for (const id of [envelopeId, ...itemIds]) {
      const end = this.#onPickup?.(id, deliveryCount);
      if (end !== undefined) ended.push(end);
    }
    return ended;
  }

  async #runBatch(msgs: readonly JsMsg[], handler: BatchHandler): Promise<void> {
    const items: BatchItem[] = [];
    const itemMsgs: JsMsg[] = [];
    const pending: Promise<void>[] = [];
    const owed: Array<() => void> = [];
    const afterSettled: AfterSettled = (work) => void owed.push(work);
    try {
      for (const msg of msgs) {
        const item = this.#validate(msg);
        if (typeof item === 'string') pending.push(this.#deadLetter(msg, item));
        else if (item === undefined) this.#settle(msg, 'ack');
        else {
          items.push(item);
          itemMsgs.push(msg);
        }
      }
      if (items.length > 0) {
        const started = this.#observer === undefined ? 0 : performance.now();
        let outcomes: readonly HandlerOutcome[];
        try {
          outcomes = await inBatchConsumerSpans(items, (item) => this.#traceContextOf(item), this.#durable, () => handler(items, afterSettled));
        } catch (error) {
          const retry: HandlerOutcome = { kind: 'retry', reason: errorMessage(error) };
          outcomes = items.map(() => retry);
        }
        const duration = this.#observer === undefined ? 0 : performance.now() - started;
        for (let i = 0; i < itemMsgs.length; i += 1) {
          const msg = itemMsgs[i] as JsMsg;
          const outcome = outcomes[i] ?? {
            kind: 'retry',
            reason: `batch handler returned ${outcomes.length} outcomes for ${items.length} messages`,
          };
          this.#observer?.onHandled(msg.subject, outcome.kind, duration);
          const applied = this.#apply(msg, (items[i] as BatchItem).context.deliveryCount, outcome);
          if (applied !== undefined) pending.push(applied);
        }
        this.#runOwed(owed);
      }
      await Promise.all(pending);
    } catch (error) {
      for (const msg of msgs) if (this.#busy.has(msg)) this.#unexpected(msg, error);
    } finally {
      this.#runOwed(owed);
      this.#finished();
    }
  }

  /** Runs (once) what the batch handler registered for after the settle. */
  #runOwed(owed: Array<() => void>): void {
    for (const work of owed.splice(0)) {
      try {
        work();
      } catch (error) {
        this.#logger.error({ durable: this.#durable, err: errorMessage(error) }, 'work registered for after the settle failed');
      }
    }
  }

  /** A BatchItem, or the dead-letter reason, or undefined for an unknown subject to skip. */
  #validate(msg: JsMsg): BatchItem | string | undefined {
    const definition = this.#definitions.get(msg.subject);
    if (definition === undefined) {
      return this.#ignoreUnknown || this.#otherLanesSubjects.has(msg.subject) ? undefined : `no handler for subject ${msg.subject}`;
    }
    const { deliveryCount, streamSequence } = msg.info;
    if (deliveryCount > this.#maxDeliver) {
      return `delivered ${deliveryCount} times (max ${this.#maxDeliver}); the last attempt never settled (crash or ack timeout)`;
    }
    const batch = isBatchCommand(definition) ? parseBatchEnvelope(definition, msg.data) : undefined;
    const earlier = batch === undefined ? this.#validatedEnvelopes?.take(msg.subject, msg.headers?.get(NATS_MSG_ID), msg.data) : undefined;
    const parsed = batch ?? (earlier === undefined ? parseEnvelope(definition, msg.data) : { ok: true as const, envelope: earlier });
    if (!parsed.ok) return parsed.reason;
    const rejected = batch?.ok === true ? { rejectedItems: batch.rejected } : {};
    const h = msg.headers;
    const traceparent = h?.get(TRACEPARENT) || parsed.envelope.traceparent;
    const tracestate = h?.get(TRACESTATE) || parsed.envelope.tracestate;
    const ctx: MessageContext = {
      subject: msg.subject,
      deliveryCount,
      streamSequence,
      ...(traceparent === undefined ? {} : { traceparent }),
      ...(tracestate === undefined ? {} : { tracestate }),
    };
    return { definition, envelope: parsed.envelope, context: ctx, ...rejected };
  }

  #traceContextOf(item: BatchItem): Context {
    return contextFromTraceHeaders(item.context.traceparent, item.context.tracestate);
  }

  /** Settles by the outcome; returns a promise only when it dead-letters. */
  #apply(msg: JsMsg, deliveryCount: number, outcome: HandlerOutcome): Promise<void> | undefined {
    switch (outcome.kind) {
      case 'ack':
        if (outcome.failedItems !== undefined && outcome.failedItems.length > 0) {
          return this.#deadLetterItems(msg, outcome.failedItems).then(() => this.#settle(msg, 'ack'), (error: unknown) => this.#unexpected(msg, error));
        }
        this.#settle(msg, 'ack');
        return undefined;
      case 'retry':
        if (deliveryCount >= this.#maxDeliver) {
          return this.#deadLetter(msg, `${outcome.reason} (gave up after ${deliveryCount} deliveries)`);
        }
        this.#settle(msg, 'nak', outcome.delayMs ?? this.#backoffFor(deliveryCount));
        return undefined;
      case 'reject':
        return this.#deadLetter(msg, outcome.reason);
    }
  }

  #backoffFor(deliveryCount: number): number {
    const backoff = this.#backoffMs;
    return backoff[Math.min(deliveryCount, backoff.length) - 1] ?? 0;
  }

  /**
   * Publishes the original bytes and headers to the dead-letter subject, then terms the message.
   * The msgID is derived from the stream position, so a crash between the two cannot store it twice.
   * If the publish fails, the message is nak'd and tried again later: nothing is dropped.
   */
  async #deadLetter(msg: JsMsg, reason: string): Promise<void> {
    const { streamSequence, deliveryCount } = msg.info;
    const subject = msg.subject;
    try {
      const { headers: h, msgId } = copyHeaders(msg.headers);
      h.set(DLQ_HEADERS.reason, headerValue(reason));
      h.set(DLQ_HEADERS.originalSubject, subject);
      h.set(DLQ_HEADERS.streamSeq, String(streamSequence));
      h.set(DLQ_HEADERS.deliveries, String(deliveryCount));
      h.set(DLQ_HEADERS.stream, this.#stream);
      h.set(DLQ_HEADERS.consumer, this.#durable);
      if (msgId !== undefined) h.set(DLQ_HEADERS.originalMsgId, msgId);
      messageCounters.publishes += 1;
      await this.#js.publish(deadLetterSubjectOf(subject), msg.data, {
        msgID: `dlq:${this.#stream}:${this.#durable}:${streamSequence}`,
        headers: h,
      });
    } catch (error) {
      this.#logger.error(
        { subject, streamSequence, durable: this.#durable, reason, err: errorMessage(error) },
        'dead-lettering failed; the message will be redelivered',
      );
      this.#settle(msg, 'nak', this.#backoffFor(deliveryCount));
      return;
    }
    this.#settle(msg, 'term');
    this.#logger.warn({ subject, streamSequence, deliveries: deliveryCount, durable: this.#durable, reason }, 'message dead-lettered');
    this.#observer?.onDeadLettered(subject, reason);
  }

  /**
   * Dead-letters items of a batched command alone, each as the one-item batch (the same envelope with
   * that item only, so a redrive re-sends just it), under a msgID derived from the stream position and
   * the item id. The message itself is not settled here; a failed publish throws (the whole message is
   * then redelivered, and its answered items are answered again from their kept replies).
   */
  async #deadLetterItems(msg: JsMsg, items: readonly FailedBatchItem[]): Promise<void> {
    const { streamSequence, deliveryCount } = msg.info;
    const subject = msg.subject;
    const original = msg.json<{ data: { items: { itemId?: unknown }[] } & Record<string, unknown> } & Record<string, unknown>>();
    for (const failed of items) {
      const { headers: h, msgId } = copyHeaders(msg.headers);
      h.set(DLQ_HEADERS.reason, headerValue(failed.reason));
      h.set(DLQ_HEADERS.originalSubject, subject);
      h.set(DLQ_HEADERS.streamSeq, String(streamSequence));
      h.set(DLQ_HEADERS.deliveries, String(deliveryCount));
      h.set(DLQ_HEADERS.stream, this.#stream);
      h.set(DLQ_HEADERS.consumer, this.#durable);
      h.set(DLQ_HEADERS.itemId, failed.itemId);
      if (msgId !== undefined) h.set(DLQ_HEADERS.originalMsgId, msgId);
      const alone = { ...original, data: { ...original.data, items: original.data.items.filter((i) => i.itemId === failed.itemId) } };
      messageCounters.publishes += 1;
      await this.#js.publish(deadLetterSubjectOf(subject), JSON.stringify(alone), { msgID: `dlq:${this.#stream}:${this.#durable}:${streamSequence}:${failed.itemId}`, headers: h });
      this.#logger.warn({ subject, streamSequence, itemId: failed.itemId, durable: this.#durable, reason: failed.reason }, 'batch item dead-lettered');
      this.#observer?.onDeadLettered(subject, failed.reason);
    }
  }

  #settle(msg: JsMsg, how: 'ack' | 'nak' | 'term', nakDelayMs = 0): void {
    this.#busy.delete(msg);
    try {
      switch (how) {
        case 'ack':
          msg.ack();
          break;
        case 'nak':
          msg.nak(nakDelayMs);
          break;
        case 'term':
          msg.term();
          break;
      }
    } catch (error) {
      // Only a closed connection makes these throw; the server redelivers after ack_wait.
      this.#logger.error({ subject: msg.subject, durable: this.#durable, err: errorMessage(error) }, 'could not settle message');
    }
  }

  #unexpected(msg: JsMsg, error: unknown): void {
    this.#logger.error({ subject: msg.subject, durable: this.#durable, err: errorMessage(error) }, 'message handling failed unexpectedly');
    this.#settle(msg, 'nak', this.#backoffFor(msg.info.deliveryCount));
  }
}
