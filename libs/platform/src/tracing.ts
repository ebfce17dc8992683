import { randomBytes } from 'node:crypto';
import { context, isSpanContextValid, propagation, type SpanContext, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Trace context without an SDK: OpenPaw carries W3C trace context from the gateway through every
 * message (the envelope's `traceparent`) so logs and a collector can join a run's hops. Span
 * contexts are created here with random ids and made current with the global context manager.
 */

let installed = false;

/** Installs the AsyncLocalStorage context manager and the W3C propagator globally (idempotent). */
export function installTracing(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Parses a W3C `traceparent` header; `undefined` when absent, malformed or all-zero. */
export function parseTraceparent(traceparent: string | undefined): SpanContext | undefined {
  if (traceparent === undefined) return undefined;
  const match = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  if (version === 'ff') return undefined;
  const spanContext: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 0xff, isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** Formats a span context as a W3C `traceparent` (version 00). */
export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

function randomHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/**
 * A new span context: a child of `parent` (a span context or a `traceparent` header) when it is
 * valid, else the root of a new sampled trace.
 */
export function startSpanContext(parent?: SpanContext | string): SpanContext {
  const parentContext = typeof parent === 'string' ? parseTraceparent(parent) : parent;
  if (parentContext !== undefined && isSpanContextValid(parentContext)) {
    return { traceId: parentContext.traceId, spanId: randomHex(8), traceFlags: parentContext.traceFlags, isRemote: false };
  }
  return { traceId: randomHex(16), spanId: randomHex(8), traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

/** The active span context, if any. */
export function currentSpanContext(): SpanContext | undefined {
  const spanContext = trace.getSpanContext(context.active());
  return spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** The active trace as a `traceparent` to put on outgoing envelopes; `undefined` outside a trace. */
export function currentTraceparent(): string | undefined {
  const spanContext = currentSpanContext();
  return spanContext === undefined ? undefined : formatTraceparent(spanContext);
}

/** The active trace id, for log lines. */
export function currentTraceId(): string | undefined {
  return currentSpanContext()?.traceId;
}

/**
 * Runs `fn` in a new span that continues the trace of `traceparent` (an incoming header or an
 * envelope's extension), or starts a new trace when it is absent or malformed.
 */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  installTracing();
  const spanContext = startSpanContext(traceparent);
  return context.with(trace.setSpanContext(context.active(), spanContext), fn);
}
