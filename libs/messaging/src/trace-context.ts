import { context, defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C trace context (`traceparent`, `tracestate`) between the OpenTelemetry context and message
 * headers / envelopes. Uses the W3C propagator directly rather than the global one, so trace
 * context travels even in a process that registered no OpenTelemetry SDK.
 */
const propagator = new W3CTraceContextPropagator();

export const TRACEPARENT = 'traceparent';
export const TRACESTATE = 'tracestate';

export interface TraceHeaders {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** The active OpenTelemetry context as W3C trace headers; empty when no span is active. */
export function activeTraceHeaders(): TraceHeaders {
  const active = context.active();
  if (trace.getSpanContext(active) === undefined) return {};
  const carrier: Record<string, string> = {};
  propagator.inject(active, carrier, defaultTextMapSetter);
  return carrier;
}

/** The OpenTelemetry context carried by `traceparent`/`tracestate`; ROOT when there is none. */
export function contextFromTraceHeaders(traceparent: string | undefined, tracestate: string | undefined): Context {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const carrier: Record<string, string> = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
  return propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}
