import type { Envelope } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { OutboxRelay, type PublishedOutboxSink } from './relay.js';

/** A data source answering the sweeper's query with `leftBehind` (taken once), recording when each sweep ran. */
function scriptedOutbox(): { dataSource: DataSource; sweeps: number[]; leftBehind: Array<{ msg_id: string; envelope: Envelope; age: number }> } {
  const sweeps: number[] = [];
  const leftBehind: Array<{ msg_id: string; envelope: Envelope; age: number }> = [];
  const dataSource = {
    query: (sql: string): Promise<unknown[]> => {
      if (sql.includes('from outbox where created_at')) {
        sweeps.push(Date.now());
        return Promise.resolve(leftBehind.splice(0));
      }
      return Promise.resolve([]); // the flush's delete
    },
  } as unknown as DataSource;
  return { dataSource, sweeps, leftBehind };
}

const sink = (): PublishedOutboxSink => {
  const ids: string[] = [];
  return { notePublished: (msgIds) => ids.push(...msgIds), takePublished: () => ids.splice(0) };
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('OutboxRelay sweeper', () => {
  it('backs off while sweeps find nothing, and returns to its pace when one finds rows', async () => {
    const { dataSource, sweeps, leftBehind } = scriptedOutbox();
    const published: string[] = [];
    const relay = new OutboxRelay(
      dataSource,
      { publishEnvelope: (_envelope, options) => Promise.resolve(void published.push(options?.msgId ?? '')) },
      sink(),
      { sweepIntervalMs: 20, sweepIdleMs: 160, flushIntervalMs: 1_000 },
    );
    relay.start();
    try {
      await sleep(650);
      // At a fixed 20 ms it would have swept ~30 times; doubling to 160 ms: 20+40+80+160+160+160.
      expect(sweeps.length).toBeLessThanOrEqual(9);
      const idleGap = (sweeps.at(-1) ?? 0) - (sweeps.at(-2) ?? 0);
      expect(idleGap).toBeGreaterThanOrEqual(150);

      leftBehind.push({ msg_id: 'm-1', envelope: { type: 'x' } as unknown as Envelope, age: 3 });
      const before = sweeps.length;
      await sleep(400);
      expect(published).toEqual(['m-1']);
      const after = sweeps.slice(before);
      // The sweep that found the row is followed by one at the base pace.
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect((after[1] ?? 0) - (after[0] ?? 0)).toBeLessThan(60);
    } finally {
      await relay.stop();
    }
  });
});
