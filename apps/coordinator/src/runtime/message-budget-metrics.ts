import { followingCounter, MESSAGE_COUNTER_METRICS, registerMessageCounters } from '@openpaw/platform';
import { sagaStoreCounters } from '@openpaw/saga';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { StepsReport } from './step-report.js';

/** Metric names of the message budget (issue 23); dashboards divide them by `openpaw_saga_transitions_total` for messages per step. */
export const MESSAGE_BUDGET_METRICS = {
  ...MESSAGE_COUNTER_METRICS,
  inputLatency: 'openpaw_saga_input_latency_seconds',
  stepLatency: 'openpaw_saga_step_latency_seconds',
  stepMessages: 'openpaw_saga_step_messages_total',
  roundTrips: 'openpaw_saga_batch_round_trips_total',
} as const;

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface InputLatencyRecorder {
  /** A batch committed: each input's message was published at `publishedAt` (its CloudEvents time). */
  recordApplied(publishedAt: readonly string[], committedAt: number): void;
  /** A batch committed: its steps' latencies, and its messages per step. */
  recordSteps(report: StepsReport): void;
}

/**
 * The coordinator's message budget on `/metrics`: publishes, deliveries, message validations and
 * message-path commits of this process (counted in libs/messaging and libs/saga), the saga batches'
 * round trips to PostgreSQL, and the latency
 * of an input from its publication to the commit that applied it (a step's reply: the step's tail).
 * Per workflow type and step: the step's latency from the decision that sent its command to the commit
 * that applied the reply (`since="decision"`), and from the reply's arrival at the coordinator to that
 * commit (`since="received"`); and the messages steps consumed (`direction="in"`: delivered inputs)
 * and wrote (`direction="out"`: outbox commands and events), which divided by
 * `openpaw_saga_transitions_total` are the messages per step.
 */
export function registerMessageBudgetMetrics(registry: Registry): InputLatencyRecorder {
  registerMessageCounters(registry, { moreCommits: () => sagaStoreCounters.commits });
  followingCounter(
    registry,
    MESSAGE_BUDGET_METRICS.roundTrips,
    'Round trips to PostgreSQL of saga batches: one per batch decided from memory, more for each read the locking path waits for.',
    () => sagaStoreCounters.roundTrips,
  );
  const latency = new Histogram({
    name: MESSAGE_BUDGET_METRICS.inputLatency,
    help: 'Time from an input message being published to the coordinator transaction that applied it.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stepLatency = new Histogram({
    name: MESSAGE_BUDGET_METRICS.stepLatency,
    help: 'Time to the commit that applied a step: since the decision that sent its command (since="decision", when this replica made it), or since its input reached the coordinator (since="received").',
    labelNames: ['workflow_type', 'step', 'since'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stepMessages = new Counter({
    name: MESSAGE_BUDGET_METRICS.stepMessages,
    help: 'Messages of applied steps: delivered inputs they consumed (direction="in") and outbox messages they wrote (direction="out").',
    labelNames: ['workflow_type', 'direction'],
    registers: [registry],
  });
  return {
    recordSteps({ committedAt, steps, messagesOut }) {
      for (const { workflowType, step, receivedAt, decidedAt } of steps) {
        if (decidedAt !== undefined) stepLatency.observe({ workflow_type: workflowType, step, since: 'decision' }, Math.max(0, committedAt - decidedAt) / 1000);
        if (receivedAt === undefined) continue;
        stepLatency.observe({ workflow_type: workflowType, step, since: 'received' }, Math.max(0, committedAt - receivedAt) / 1000);
        stepMessages.inc({ workflow_type: workflowType, direction: 'in' });
      }
      for (const [workflowType, count] of messagesOut) stepMessages.inc({ workflow_type: workflowType, direction: 'out' }, count);
    },
    recordApplied(publishedAt, committedAt) {
      for (const at of publishedAt) {
        const sent = Date.parse(at);
        if (Number.isFinite(sent)) latency.observe(Math.max(0, committedAt - sent) / 1000);
      }
    },
  };
}
