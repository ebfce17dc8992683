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
});
