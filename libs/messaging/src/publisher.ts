import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/nats-core';
import {
  createEnvelope,
  type AnyMessageDefinition,
  type Envelope,
  type EnvelopeMeta,
  type MessageData,
} from '@openpaw/contracts';
import { messageCounters } from './message-budget.js';
import { NATS_MSG_ID } from './consumer.js';
import { PubAcks } from './pub-acks.js';
import type { MessagePublisher } from './ports.js';
import { inProducerSpan } from './message-spans.js';
import { activeTraceHeaders, TRACEPARENT, TRACESTATE } from './trace-context.js';

/** The CloudEvents structured-mode content type, sent as the `Content-Type` header. */
export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';

const encoder = new TextEncoder();

/**
 * Publishes envelopes to JetStream: the body is the JSON envelope, `Nats-Msg-Id` is the envelope id
 * (or the given msgId) so the server drops a re-publish inside the duplicate window, and the W3C
 * trace context travels in `traceparent`/`tracestate` headers. Every publish awaits the PubAck: a
 * resolved promise means the message is stored.
 */
export class JetStreamPublisher implements MessagePublisher {
  /** PubAcks on one inbox of the client's connection; undefined for a client that exposes none (a test double): then `js.publish`. */
  readonly #acks: PubAcks | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly options: { readonly timeoutMs?: number } = {},
  ) {
    // nats.js's JetStream client keeps its connection as `nc` (public in the implementation, not in its types).
    const nc = (js as unknown as { nc?: NatsConnection }).nc;
    this.#acks = nc === undefined ? undefined : new PubAcks(nc, options.timeoutMs);
  }

  /** Builds the envelope (validating `data`); the active trace context fills `traceparent` when `meta` has none. */
  async publish<D extends AnyMessageDefinition>(
    definition: D,
    data: MessageData<D>,
    meta: EnvelopeMeta,
  ): Promise<Envelope<MessageData<D>>> {
    const envelope = createEnvelope(definition, data, meta.traceparent === undefined ? { ...meta, ...activeTraceHeaders() } : meta);
    await this.send(envelope, envelope.id);
    return envelope;
  }

  async publishEnvelope(envelope: Envelope, options: { readonly msgId?: string } = {}): Promise<void> {
    await this.send(envelope, options.msgId ?? envelope.id);
  }

  /** Publishes and returns the PubAck (`duplicate` is true when the server dropped it as a re-publish). */
  async send(envelope: Envelope, msgId: string): Promise<PubAck> {
    // The headers carry the PRODUCER span's context (consumers parent on it); the envelope keeps the
    // trace it was created in (the outbox row), which parents the producer span when nothing is active.
    return inProducerSpan(envelope, async (span, ctx) => {
      const h = natsHeaders();
      h.set('Content-Type', CLOUDEVENTS_CONTENT_TYPE);
      const { traceparent, tracestate } = span.isRecording() ? activeTraceHeaders(ctx) : envelope.traceparent === undefined ? activeTraceHeaders(ctx) : envelope;
      if (traceparent !== undefined) h.set(TRACEPARENT, traceparent);
      if (tracestate !== undefined && tracestate !== '') h.set(TRACESTATE, tracestate);
      messageCounters.publishes += 1;
      const body = encoder.encode(JSON.stringify(envelope));
      let ack: PubAck;
      if (this.#acks === undefined) {
        ack = await this.js.publish(envelope.type, body, { msgID: msgId, headers: h, ...(this.options.timeoutMs === undefined ? {} : { timeout: this.options.timeoutMs }) });
      } else {
        h.set(NATS_MSG_ID, msgId);
        ack = await this.#acks.publish(envelope.type, body, h);
      }
      if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
      return ack;
    });
  }
}
