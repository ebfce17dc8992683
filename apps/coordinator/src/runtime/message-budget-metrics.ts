import { readMessageCounts, type MessageCounts } from '@openpaw/messaging';
import { sagaStoreCounters } from '@openpaw/saga';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Metric names of the message budget (issue 23); dashboards divide them by `openpaw_saga_transitions_total` for messages per step. */
export const MESSAGE_BUDGET_METRICS = {
  published: 'openpaw_messages_published_total',
  delivered: 'openpaw_messages_delivered_total',
  validations: 'openpaw_message_validations_total',
  commits: 'openpaw_message_path_commits_total',
  inputLatency: 'openpaw_saga_input_latency_seconds',
} as const;

/** A counter that follows a process counter: each scrape adds what it grew by since the last. */
function following(registry: Registry, name: string, help: string, read: () => number): Counter {
  let seen = read();
  const counter: Counter = new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > seen) counter.inc(now - seen);
      seen = now;
    },
  });
  return counter;
}

export interface InputLatencyRecorder {
  /** A batch committed: each input's message was published at `publishedAt` (its CloudEvents time). */
  recordApplied(publishedAt: readonly string[], committedAt: number): void;
}

/**
 * The coordinator's message budget on `/metrics`: publishes, deliveries, message validations and
 * message-path commits of this process (counted in libs/messaging and libs/saga), and the latency
 * of an input from its publication to the commit that applied it (a step's reply: the step's tail).
 */
export function registerMessageBudgetMetrics(registry: Registry): InputLatencyRecorder {
  const counts = (pick: keyof MessageCounts) => () => readMessageCounts()[pick];
  following(registry, MESSAGE_BUDGET_METRICS.published, 'JetStream publishes of this process (each awaited its PubAck).', counts('publishes'));
  following(registry, MESSAGE_BUDGET_METRICS.delivered, 'Messages delivered to the consumers of this process.', counts('deliveries'));
  following(registry, MESSAGE_BUDGET_METRICS.validations, 'Messages validated against their contract (zod parses), out and in.', counts('validations'));
  following(registry, MESSAGE_BUDGET_METRICS.commits, 'PostgreSQL commits of the message path (saga batches, kept replies).', () => readMessageCounts().commits + sagaStoreCounters.commits);
  const latency = new Histogram({
    name: MESSAGE_BUDGET_METRICS.inputLatency,
    help: 'Time from an input message being published to the coordinator transaction that applied it.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    recordApplied(publishedAt, committedAt) {
      for (const at of publishedAt) {
        const sent = Date.parse(at);
        if (Number.isFinite(sent)) latency.observe(Math.max(0, committedAt - sent) / 1000);
      }
    },
  };
}
