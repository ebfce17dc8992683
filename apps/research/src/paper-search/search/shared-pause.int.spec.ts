import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureKvBucket, KV_BUCKETS } from '@openpaw/messaging';
import { RateLimiter } from '@openpaw/providers';
import { type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { KvStartSlots, SCHOLARLY_START_SLOTS_BUCKET } from './kv-start-slots.js';

describe("a source's Retry-After pause shared across replicas (a real JetStream KV bucket)", () => {
  let nats: NatsServerHandle;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await nats.dispose();
  });

  async function replicaSlots(): Promise<KvStartSlots> {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    // Provisioned as the platform provisions it (KV_BUCKETS), then opened as research opens it.
    await ensureKvBucket(await jetstreamManager(nc), KV_BUCKETS.scholarlyStartSlots);
    return new KvStartSlots(() => new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET));
  }

  it('holds back every replica until the pause ends, and a pause shorter than the queued starts moves nothing', async () => {
    let t = 7_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const [a, b] = await Promise.all([replicaSlots(), replicaSlots()]);
    const limiterA = new RateLimiter(1_000, clock, { slots: a, key: 'openalex-paused' });
    const limiterB = new RateLimiter(1_000, clock, { slots: b, key: 'openalex-paused' });
    await limiterA.acquire();
    // Replica A hears Retry-After: 30 s. Replica B has not called since, yet its next start waits for the pause too.
    await limiterA.pauseFor(30_000);
    const pausedAt = t;
    await limiterB.acquire();
    expect(t).toBe(pausedAt + 30_000);
    // Spacing resumes after the pause, across both replicas.
    await limiterA.acquire();
    expect(t).toBe(pausedAt + 31_000);
    // A pause ending before the next free start leaves the queue as it is.
    await limiterB.pauseFor(100);
    await limiterB.acquire();
    expect(t).toBe(pausedAt + 32_000);
  });

  it('keeps the pause in the process that heard it when the bucket cannot be reached', async () => {
    let t = 9_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const unavailable: unknown[] = [];
    const limiter = new RateLimiter(1_000, clock, { slots: { reserve: () => Promise.reject(new Error('no JetStream')) }, key: 'x', onUnavailable: (e) => unavailable.push(e) });
    await limiter.pauseFor(5_000);
    await limiter.acquire();
    expect(t).toBe(9_005_000);
    expect(unavailable).toHaveLength(2);
  });
});
