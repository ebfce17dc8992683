import { messageCounters } from '@openpaw/messaging';
import { sagaStoreCounters } from '@openpaw/saga';
import { Registry } from 'prom-client';
import { MESSAGE_BUDGET_METRICS, registerMessageBudgetMetrics } from './message-budget-metrics.js';

const valueOf = async (registry: Registry, name: string): Promise<number> => (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? NaN;

describe('message budget metrics', () => {
  it('counts what the process counters grew by since registration, scrape after scrape', async () => {
    const registry = new Registry();
    const recorder = registerMessageBudgetMetrics(registry);
    messageCounters.publishes += 3;
    messageCounters.deliveries += 2;
    sagaStoreCounters.commits += 1;
    messageCounters.commits += 1;
    expect(await valueOf(registry, MESSAGE_BUDGET_METRICS.published)).toBe(3);
    expect(await valueOf(registry, MESSAGE_BUDGET_METRICS.delivered)).toBe(2);
    expect(await valueOf(registry, MESSAGE_BUDGET_METRICS.commits)).toBe(2);
    messageCounters.publishes += 1;
    expect(await valueOf(registry, MESSAGE_BUDGET_METRICS.published)).toBe(4);

    recorder.recordApplied([new Date(1_000).toISOString(), 'not a time'], 1_250);
    const text = await registry.metrics();
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.inputLatency}_count 1`);
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.inputLatency}_sum 0.25`);
  });

  it('exports step latency per workflow type and step, and the messages steps consumed and wrote', async () => {
    const registry = new Registry();
    const recorder = registerMessageBudgetMetrics(registry);
    recorder.recordSteps({
      committedAt: 2_000,
      steps: [
        { workflowType: 'Alpha', step: 'done', receivedAt: 1_900, decidedAt: 1_500 },
        { workflowType: 'Alpha', step: 'timeout' },
      ],
      messagesOut: new Map([['Alpha', 3]]),
    });
    const text = await registry.metrics();
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.stepLatency}_sum{workflow_type="Alpha",step="done",since="decision"} 0.5`);
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.stepLatency}_sum{workflow_type="Alpha",step="done",since="received"} 0.1`);
    expect(text).not.toContain('step="timeout"');
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.stepMessages}{workflow_type="Alpha",direction="in"} 1`);
    expect(text).toContain(`${MESSAGE_BUDGET_METRICS.stepMessages}{workflow_type="Alpha",direction="out"} 3`);
  });
});
