import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RateLimiter } from '@openpaw/providers';
import { type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { KvStartSlots, SCHOLARLY_START_SLOTS_BUCKET, SCHOLARLY_START_SLOTS_TTL_MS } from './kv-start-slots.js';

describe('request starts shared across replicas (a real JetStream KV bucket)', () => {
  let nats: NatsServerHandle;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await nats.dispose();
  });

  /** One replica: its own connection, bound to the shared bucket. */
  async function replica(): Promise<KvStartSlots> {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    // The first opens the bucket at once; the others on their first reservation (as the service does).
    return connections.length === 1 ? new KvStartSlots(await new Kvm(nc).create(SCHOLARLY_START_SLOTS_BUCKET, { ttl: SCHOLARLY_START_SLOTS_TTL_MS })) : new KvStartSlots(() => new Kvm(nc).create(SCHOLARLY_START_SLOTS_BUCKET, { ttl: SCHOLARLY_START_SLOTS_TTL_MS }));
  }

  it('gives three replicas racing for arXiv distinct starts, 3 s apart, never the same slot', async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    const now = 1_000_000;
    const starts = await Promise.all(replicas.flatMap((slots) => [1, 2, 3, 4].map(() => slots.reserve('arxiv', now, 3_000))));
    expect([...starts].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => now + i * 3_000));
    // Another source has its own spacing.
    expect(await replicas[0].reserve('crossref', now, 20)).toBe(now);
  });

  it("spaces two replicas' rate limiters as one, and falls back to the per-process spacing when the bucket is gone", async () => {
    let t = 5_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const [a, b] = await Promise.all([replica(), replica()]);
    const limiterA = new RateLimiter(3_000, clock, { slots: a, key: 'openalex-shared' });
    const limiterB = new RateLimiter(3_000, clock, { slots: b, key: 'openalex-shared' });
    const started: number[] = [];
    for (const limiter of [limiterA, limiterB, limiterA, limiterB]) {
      await limiter.acquire();
      started.push(t);
    }
    expect(started).toEqual([5_000_000, 5_003_000, 5_006_000, 5_009_000]);
    const unavailable: unknown[] = [];
    const broken = new RateLimiter(3_000, clock, { slots: { reserve: () => Promise.reject(new Error('no JetStream')) }, key: 'x', onUnavailable: (e) => unavailable.push(e) });
    await broken.acquire();
    const first = t;
    await broken.acquire();
    expect(t - first).toBe(3_000);
    expect(unavailable).toHaveLength(2);
  });
});
