import { context, defaultTextMapGetter, defaultTextMapSetter, propagation, ROOT_CONTEXT, trace, type Context, type TextMapPropagator } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C trace context (`traceparent`, `tracestate`) between the OpenTelemetry context and message
 * headers / envelopes, through the global propagator (installed by the platform's tracing). A
 * process that registered none (a script, a test) still carries W3C context: the fallback below.
 */
const w3c = new W3CTraceContextPropagator();

function propagator(): TextMapPropagator {
  // The API's no-op propagator declares no fields.
  return propagation.fields().length > 0 ? propagation : w3c;
}

export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

export interface TraceHeaders {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** `ctx` (default: the active context) as W3C trace headers; empty when it has no span. */
export function activeTraceHeaders(ctx: Context = context.active()): TraceHeaders {
  if (trace.getSpanContext(ctx) === undefined) return {};
  const carrier: Record<string, string> = {};
  propagator().inject(ctx, carrier, defaultTextMapSetter);
  return carrier;
}

/** The OpenTelemetry context carried by `traceparent`/`tracestate`; ROOT when there is none. */
export function contextFromTraceHeaders(traceparent: string | undefined, tracestate: string | undefined): Context {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const carrier: Record<string, string> = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
  return propagator().extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}
