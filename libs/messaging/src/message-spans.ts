import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { Envelope } from '@openpaw/contracts';
import type { BatchItem, HandlerOutcome } from './ports.js';
import { contextFromTraceHeaders } from './trace-context.js';

/*
 * OpenTelemetry spans for messages (semantic conventions `messaging.*`): a PRODUCER span per publish
 * whose context goes into the message headers, and a CONSUMER span per handled message, a child of
 * the producer's, with an error status when the message is nak'd (retry) or rejected.
 */

const tracer = () => trace.getTracer('openpaw-messaging');

function messageAttributes(subject: string, envelope: Envelope): Record<string, string> {
  return {
    'messaging.system': 'nats',
    'messaging.destination.name': subject,
    'messaging.message.id': envelope.id,
    'messaging.message.conversation_id': envelope.correlationid,
  };
}

/**
 * Runs a publish in a PRODUCER span. Its parent is the active span, else the trace the envelope
 * carries (an outbox row relayed later, outside the request that wrote it).
 */
export async function inProducerSpan<T>(envelope: Envelope, fn: (span: Span, ctx: Context) => Promise<T>): Promise<T> {
  const active = context.active();
  const parent = trace.getSpan(active) !== undefined ? active : contextFromTraceHeaders(envelope.traceparent, envelope.tracestate);
  const span = tracer().startSpan(
    `send ${envelope.type}`,
    { kind: SpanKind.PRODUCER, attributes: { ...messageAttributes(envelope.type, envelope), 'messaging.operation.type': 'send' } },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  try {
    return await context.with(ctx, () => fn(span, ctx));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** Runs a handler in a CONSUMER span, child of `parent` (the producer's context from the headers). */
export async function inConsumerSpan(
  item: BatchItem,
  parent: Context,
  consumer: string,
  handle: () => Promise<HandlerOutcome>,
): Promise<HandlerOutcome> {
  const span = tracer().startSpan(
    `process ${item.context.subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...messageAttributes(item.context.subject, item.envelope),
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': consumer,
        'messaging.nats.delivery_count': item.context.deliveryCount,
        'messaging.nats.stream_sequence': item.context.streamSequence,
      },
    },
    parent,
  );
  let outcome: HandlerOutcome | undefined;
  try {
    outcome = await context.with(trace.setSpan(parent, span), handle);
    return outcome;
  } finally {
    const kind = outcome?.kind ?? 'retry';
    span.setAttribute('openpaw.outcome', kind);
    if (outcome !== undefined && outcome.kind !== 'ack') span.setStatus({ code: SpanStatusCode.ERROR, message: `${outcome.kind}: ${outcome.reason}` });
    else if (outcome === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'handler threw' });
    span.end();
  }
}

/**
 * A batch handler's CONSUMER spans: one per message, each a child of its producer, ended with that
 * message's outcome. The handler runs inside the span when the batch holds one message (the usual
 * case at low load); a larger batch runs under no span of its own, its messages' spans still recorded.
 */
export async function inBatchConsumerSpans(
  items: readonly BatchItem[],
  parentOf: (item: BatchItem) => Context,
  consumer: string,
  handle: () => Promise<readonly HandlerOutcome[]>,
): Promise<readonly HandlerOutcome[]> {
  const spans = items.map((item) =>
    tracer().startSpan(
      `process ${item.context.subject}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          ...messageAttributes(item.context.subject, item.envelope),
          'messaging.operation.type': 'process',
          'messaging.consumer.group.name': consumer,
          'messaging.batch.message_count': items.length,
          'messaging.nats.delivery_count': item.context.deliveryCount,
        },
      },
      parentOf(item),
    ),
  );
  const only = items.length === 1 ? items[0] : undefined;
  const ctx = only === undefined || spans[0] === undefined ? ROOT_CONTEXT : trace.setSpan(parentOf(only), spans[0]);
  let outcomes: readonly HandlerOutcome[] | undefined;
  try {
    outcomes = await context.with(ctx, handle);
    return outcomes;
  } finally {
    spans.forEach((span, i) => {
      const outcome = outcomes?.[i];
      span.setAttribute('openpaw.outcome', outcome?.kind ?? 'retry');
      if (outcome === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'batch handler failed' });
      else if (outcome.kind !== 'ack') span.setStatus({ code: SpanStatusCode.ERROR, message: `${outcome.kind}: ${outcome.reason}` });
      span.end();
    });
  }
}
