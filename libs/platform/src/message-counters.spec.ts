import { messageCounters } from '@openpaw/messaging';
import { Registry } from 'prom-client';
import { MESSAGE_COUNTER_METRICS, registerMessageCounters } from './message-counters.js';

describe('registerMessageCounters', () => {
  it('exports what the process counters grew by since registration, on each scrape', async () => {
    messageCounters.publishes += 5;
    const registry = new Registry();
    registerMessageCounters(registry);
    const value = async (name: string): Promise<number> => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
    expect(await value(MESSAGE_COUNTER_METRICS.published)).toBe(0);
    messageCounters.publishes += 2;
    messageCounters.commits += 1;
    expect(await value(MESSAGE_COUNTER_METRICS.published)).toBe(2);
    expect(await value(MESSAGE_COUNTER_METRICS.commits)).toBe(1);
    expect(await value(MESSAGE_COUNTER_METRICS.published)).toBe(2);
  });
});
