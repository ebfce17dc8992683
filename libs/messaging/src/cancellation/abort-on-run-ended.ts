import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { parseEnvelope, RunEnded } from '@openpaw/contracts';

export interface AbortOnRunEndedOptions {
  /** Only runs of these workflow types (all when absent). */
  readonly workflowTypes?: readonly string[];
  /** Told of every end that aborted work here. */
  readonly onAborted?: (ended: { readonly runId: string; readonly reason: string; readonly aborted: number }) => void;
}

/**
 * A core NATS subscription on `RunEnded` (not a durable consumer): every replica of a service hears
 * it and aborts its own in-flight work of that run through `aborts` (an `InFlightAborts`). Best effort: a replica that
 * misses it lets the work finish within its caps, and the ended run ignores the late reply.
 * Unsubscribe the answer on shutdown; flush the connection first when the subscription must be live.
 */
export function abortOnRunEnded(nc: NatsConnection, aborts: { end(runId: string, reason: string): number }, options: AbortOnRunEndedOptions = {}): Subscription {
  return nc.subscribe(RunEnded.subject, {
    callback: (error, message) => {
      if (error !== null) return;
      const parsed = parseEnvelope(RunEnded, message.data);
      if (!parsed.ok) return;
      const { runId, workflowType, state, reason } = parsed.envelope.data;
      if (options.workflowTypes !== undefined && !options.workflowTypes.includes(workflowType)) return;
      const aborted = aborts.end(runId, `${state}: ${reason}`);
      if (aborted > 0) options.onAborted?.({ runId, reason, aborted });
    },
  });
}
