import { randomBytes } from 'node:crypto';
import { context, isSpanContextValid, propagation, type SpanContext, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { installClientInstrumentation } from './client-instrumentation.js';

/**
 * OpenTelemetry for a service: the SDK's tracer provider (3.x) exporting over OTLP when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (or to the exporter a test passes), the AsyncLocalStorage
 * context manager and the W3C propagator as globals. Spans: SERVER per HTTP request (`http-spans.ts`),
 * PRODUCER per publish and CONSUMER per handled message (libs/messaging), CLIENT per PostgreSQL query
 * and outgoing `fetch` (`client-instrumentation.ts`). Without an exporter no span is recorded (and
 * nothing is patched), but trace context still travels (the API's non-recording spans keep the ids).
 */

let installed = false;
let provider: TracerProvider | undefined;

export interface TracingOptions {
  /** `service.name` of the spans; default `OTEL_SERVICE_NAME`, else `openpaw`. */
  readonly serviceName?: string;
  /** Where spans go; default an OTLP/protobuf exporter when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. */
  readonly exporter?: SpanExporter;
  /** `simple` exports each span as it ends (tests); default `batch`. */
  readonly processor?: 'batch' | 'simple';
}

/**
 * Installs the context manager and the W3C propagator globally (once), and a recording tracer
 * provider when there is somewhere to export to (once; a later call with an exporter is ignored).
 */
export function installTracing(options: TracingOptions = {}): void {
  if (!installed) {
    installed = true;
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  }
  if (provider !== undefined) return;
  const endpoint = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const exporter = options.exporter ?? (endpoint === undefined || endpoint === '' ? undefined : new OTLPTraceExporter());
  if (exporter === undefined) return;
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? process.env['OTEL_SERVICE_NAME'] ?? 'openpaw' }),
    spanProcessors: [options.processor === 'simple' ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  trace.setGlobalTracerProvider(provider);
  installClientInstrumentation();
}

/** Flushes and stops the exporter (on shutdown, so the last spans are not lost). */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown();
}

/** The tracer OpenPaw's own spans come from. */
export function platformTracer(): Tracer {
  return trace.getTracer('openpaw');
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

/** The active span id, for log lines. */
export function currentSpanId(): string | undefined {
  return currentSpanContext()?.spanId;
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
