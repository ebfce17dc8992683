import { ConcurrencyLimiter } from './concurrency-limiter.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('ConcurrencyLimiter (keyed like concurrency keys: per provider, per user)', () => {
  it('runs at most `limit` calls per key at once, the rest first come first served', async () => {
    const limiter = new ConcurrencyLimiter();
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const calls = gates.map((gate, i) =>
      limiter.run([{ key: 'provider:openai', limit: 2 }], async () => {
        started.push(i);
        await gate.promise;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(limiter.usage('provider:openai')).toEqual({ inUse: 2, waiting: 1 });
    gates[0]?.resolve();
    await tick();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[1]?.resolve();
    gates[2]?.resolve();
    await Promise.all(calls);
    expect(limiter.usage('provider:openai')).toEqual({ inUse: 0, waiting: 0 });
  });

  it('limits a user within a provider while other users go ahead', async () => {
    const limiter = new ConcurrencyLimiter();
    const gate = deferred();
    const started: string[] = [];
    const call = (user: string) =>
      limiter.run(
        [
          { key: 'provider:openai', limit: 10 },
          { key: `provider:openai:user:${user}`, limit: 1 },
        ],
        async () => {
          started.push(user);
          await gate.promise;
        },
      );
    const calls = [call('alice'), call('alice'), call('bob')];
    await tick();
    expect(started).toEqual(['alice', 'bob']);
    gate.resolve();
    await Promise.all(calls);
    expect(started).toEqual(['alice', 'bob', 'alice']);
  });

  it('gives up waiting when the signal aborts, and releases slots when the call throws', async () => {
    const limiter = new ConcurrencyLimiter();
    const gate = deferred();
    const holder = limiter.run([{ key: 'k', limit: 1 }], () => gate.promise);
    const abort = new AbortController();
    const waiter = limiter.run([{ key: 'k', limit: 1 }], () => Promise.resolve('never'), abort.signal);
    await tick();
    abort.abort(new Error('run cancelled'));
    await expect(waiter).rejects.toThrow('run cancelled');
    expect(limiter.usage('k')).toEqual({ inUse: 1, waiting: 0 });
    gate.resolve();
    await holder;
    await expect(limiter.run([{ key: 'k', limit: 1 }], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limiter.usage('k')).toEqual({ inUse: 0, waiting: 0 });
  });
});
