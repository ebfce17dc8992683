import type { DataSource } from 'typeorm';
import type { PendingInput } from './store/saga-store.js';
import { TimerPoller } from './timers.js';

/** What the poll query answers: due rows, then the one row saying when the next timer falls due. */
interface ScriptedTimers {
  due: Array<{ run_id: string; name: string; fire_at: Date; payload: Record<string, unknown> }>;
  nextDueMs: number | null;
}

/** A data source whose only query is the poller's, answered from `timers`; it records when each poll ran. */
function scriptedDataSource(timers: ScriptedTimers): { dataSource: DataSource; polls: number[] } {
  const polls: number[] = [];
  const dataSource = {
    query: (sql: string): Promise<unknown[]> => {
      if (!sql.includes('from timers')) throw new Error(`unexpected query: ${sql}`);
      polls.push(Date.now());
      const due = timers.due.splice(0).map((row) => ({ ...row, lag: 0, next_due_ms: null }));
      return Promise.resolve([...due, { run_id: null, name: null, fire_at: null, payload: null, lag: null, next_due_ms: timers.nextDueMs }]);
    },
  } as unknown as DataSource;
  return { dataSource, polls };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('TimerPoller', () => {
  const pollers: TimerPoller[] = [];
  afterEach(async () => {
    await Promise.all(pollers.splice(0).map((p) => p.stop()));
  });

  function started(timers: ScriptedTimers, options: { intervalMs: number; idleMs: number }, applied: PendingInput[][] = []): { polls: number[]; poller: TimerPoller } {
    const { dataSource, polls } = scriptedDataSource(timers);
    const poller = new TimerPoller(dataSource, (inputs) => {
      applied.push([...inputs]);
      return Promise.resolve();
    }, options);
    pollers.push(poller);
    poller.start();
    return { polls, poller };
  }

  it('sleeps up to idleMs when no timer is pending, not intervalMs', async () => {
    const { polls } = started({ due: [], nextDueMs: null }, { intervalMs: 10, idleMs: 5_000 });
    await sleep(300);
    // At intervalMs it would have polled ~30 times.
    expect(polls).toHaveLength(1);
  });

  it('polls again when the next timer PostgreSQL reports falls due', async () => {
    const timers: ScriptedTimers = { due: [], nextDueMs: 60 };
    const { polls } = started(timers, { intervalMs: 10, idleMs: 5_000 });
    await sleep(20);
    timers.nextDueMs = null;
    await sleep(400);
    expect(polls).toHaveLength(2);
    expect((polls[1] ?? 0) - (polls[0] ?? 0)).toBeGreaterThanOrEqual(55);
  });

  it('is woken by a timer this process commits, and fires it', async () => {
    const timers: ScriptedTimers = { due: [], nextDueMs: null };
    const applied: PendingInput[][] = [];
    const { polls, poller } = started(timers, { intervalMs: 10, idleMs: 5_000 }, applied);
    await sleep(30);
    const fireAt = new Date(Date.now() + 40);
    timers.due.push({ run_id: 'run-1', name: 'retry:a', fire_at: fireAt, payload: {} });
    poller.wakeBy(fireAt);
    await sleep(300);
    expect(polls).toHaveLength(2);
    expect((polls[1] ?? 0) - fireAt.getTime()).toBeGreaterThanOrEqual(-2);
    expect(applied.flat().map((input) => input.meta.messageId)).toEqual([`timer:run-1:retry:a:${fireAt.getTime()}`]);
  });

  it('never polls closer together than intervalMs, even when woken for a timer already due', async () => {
    const { polls, poller } = started({ due: [], nextDueMs: null }, { intervalMs: 100, idleMs: 5_000 });
    await sleep(5);
    poller.wakeBy(new Date(Date.now() - 1_000));
    await sleep(300);
    expect(polls).toHaveLength(2);
    expect((polls[1] ?? 0) - (polls[0] ?? 0)).toBeGreaterThanOrEqual(95);
  });
});
