import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RateLimiter } from '@openpaw/providers';
import { type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { ensureKvBucket, KV_BUCKETS, kvStreamName } from '@openpaw/messaging';
import { KvStartSlots, SCHOLARLY_START_SLOTS_BUCKET, scholarlyStartSlots } from './kv-start-slots.js';

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

  /** One replica: its own connection, bound to the provisioned bucket. */
  async function replica(): Promise<KvStartSlots> {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    // Provisioned as the Job does (idempotent); the first opens it at once, the others on their first reservation (as the service does).
    await ensureKvBucket(await jetstreamManager(nc), KV_BUCKETS.scholarlyStartSlots);
    return connections.length === 1 ? new KvStartSlots(await new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET)) : new KvStartSlots(() => new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET));
  }

  it('spaces per process while the bucket is not provisioned, never creating it, and shares starts once the provisioning Job made it', async () => {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    const jsm = await jetstreamManager(nc);
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_fields: object, message: string) => void warnings.push(message) };
    let t = 9_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const limiter = new RateLimiter(3_000, clock, { ...scholarlyStartSlots(nc, logger), key: 'crossref-provisioned' });
    await limiter.acquire();
    await limiter.acquire();
    expect(t).toBe(9_003_000);
    expect(warnings).toEqual(['scholarly request starts are spaced per process: the shared bucket cannot be used']);
    const streams: string[] = [];
    for await (const name of jsm.streams.names()) streams.push(name);
    expect(streams).not.toContain(kvStreamName(SCHOLARLY_START_SLOTS_BUCKET));

    // The provisioning Job (provisionStreams) creates it with the other buckets; the same limiter now reserves there.
    expect(await ensureKvBucket(jsm, KV_BUCKETS.scholarlyStartSlots)).toEqual({ result: 'created', drift: [] });
    await limiter.acquire();
    const shared = await new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET);
    expect(Number((await shared.get('crossref-provisioned'))?.string())).toBe(t + 3_000);
    expect((await jsm.streams.info(kvStreamName(SCHOLARLY_START_SLOTS_BUCKET))).config.max_age).toBe(KV_BUCKETS.scholarlyStartSlots.ttlMs * 1_000_000);
  });

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

  // A server's Retry-After pause goes through the same slots: every replica waits it out.
  it('holds back every replica until the pause ends, and a pause shorter than the queued starts moves nothing', async () => {
    let t = 7_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const [a, b] = await Promise.all([replica(), replica()]);
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
