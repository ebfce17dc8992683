import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { RateLimiter, systemClock } from '@openpaw/providers';
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
    expect(t).toBe(9_006_000);
    const shared = await new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET);
    // Asked as durations from its write, and left as the next free start in the server's time (its stamp of the
    // write, plus the wait of 3 s and the spacing of 3 s), never as this replica's clock reading (t).
    const settled = Number((await shared.get('crossref-provisioned'))?.string());
    expect(Math.abs(settled - (Date.now() + 6_000))).toBeLessThan(1_000);
    expect((await jsm.streams.info(kvStreamName(SCHOLARLY_START_SLOTS_BUCKET))).config.max_age).toBe(KV_BUCKETS.scholarlyStartSlots.ttlMs * 1_000_000);
  });

  it('gives three replicas racing for arXiv distinct starts, 3 s apart, never the same slot', async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    // Each wait is counted from its own write; the start it grants is that write plus the wait. The writes
    // race (compare-and-set retries), and on a loaded machine the last lands seconds after the first, so
    // the starts are read where each answer arrived, and their spacing is checked, not a sum of waits.
    const granted = await Promise.all(
      replicas.flatMap((slots) => [1, 2, 3, 4].map(async () => {
        const wait = await slots.reserve('arxiv', 0, 3_000);
        return { wait, startsAt: performance.now() + wait };
      })),
    );
    expect(Math.min(...granted.map((g) => g.wait))).toBe(0);
    const starts = granted.map((g) => g.startsAt).sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i += 1) {
      // 3 s apart, give or take the difference of two answers' trips back: never the same slot.
      expect(starts[i]! - starts[i - 1]!).toBeGreaterThan(2_000);
      expect(starts[i]! - starts[i - 1]!).toBeLessThan(4_000);
    }
    // Another source has its own spacing.
    expect(await replicas[0].reserve('crossref', 0, 20)).toBe(0);
  });

  /**
   * Starts of `limiters` taken in turn, in ms after the first was asked for, on the monotonic clock
   * (real time: the slots are timed by the server's stamps). A loaded machine wakes a start late, which
   * shortens the gap after it, so the spacing is checked from the moment of the first ask: start i at
   * least i intervals after it (less 1 ms, for the server's whole-ms stamps).
   */
  async function expectSpacedInTurn(limiters: readonly RateLimiter[], intervalMs: number): Promise<void> {
    const asked = performance.now();
    for (const [i, limiter] of limiters.entries()) {
      await limiter.acquire();
      const start = performance.now() - asked;
      expect(start).toBeGreaterThanOrEqual(i * intervalMs - 1);
      expect(start).toBeLessThan(i * intervalMs + 1_500);
    }
  }

  it("spaces two replicas' rate limiters as one, and falls back to the per-process spacing when the bucket is gone", async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const limiterA = new RateLimiter(300, systemClock, { slots: a, key: 'openalex-shared' });
    const limiterB = new RateLimiter(300, systemClock, { slots: b, key: 'openalex-shared' });
    await expectSpacedInTurn([limiterA, limiterB, limiterA, limiterB], 300);
    let t = 5_000_000;
    const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
    const unavailable: unknown[] = [];
    const broken = new RateLimiter(3_000, clock, { slots: { reserve: () => Promise.reject(new Error('no JetStream')) }, key: 'x', onUnavailable: (e) => unavailable.push(e) });
    await broken.acquire();
    const first = t;
    await broken.acquire();
    expect(t - first).toBe(3_000);
    expect(unavailable).toHaveLength(2);
  });

  it("spaces replicas whose wall clocks disagree by an hour as one: no replica's clock is read", async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const anHourAhead = { ...systemClock, now: () => Date.now() + 3_600_000 };
    const anHourBehind = { ...systemClock, now: () => Date.now() - 3_600_000 };
    const limiterA = new RateLimiter(300, anHourAhead, { slots: a, key: 'arxiv-skewed' });
    const limiterB = new RateLimiter(300, anHourBehind, { slots: b, key: 'arxiv-skewed' });
    // The earlier release stored each replica's clock reading: the one behind then got no spacing after the one ahead.
    await expectSpacedInTurn([limiterB, limiterA, limiterB, limiterA], 300);
  });

  it('reads a slot written by the earlier release (the next free start as a plain number) as it meant', async () => {
    const nc = await connect({ servers: nats.url });
    connections.push(nc);
    const kv = await new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET);
    await kv.put('crossref-legacy', String(Date.now() + 1_000));
    const wait = await new KvStartSlots(kv).reserve('crossref-legacy', 0, 100);
    expect(wait).toBeGreaterThan(800);
    expect(wait).toBeLessThanOrEqual(1_000);
  });

  it('leaves each reservation as a plain next free start, which a replica of the earlier release reads as taken (a rolling deploy)', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const kv = await new Kvm(connections.at(-1)!).open(SCHOLARLY_START_SLOTS_BUCKET);
    const before = Date.now();
    expect(await a.reserve('arxiv-rolling', 0, 3_000)).toBe(0);
    // The earlier release read the key with Number(): anything but a plain number was a free slot, started at once.
    const asTheEarlierReleaseReadsIt = Number((await kv.get('arxiv-rolling'))?.string());
    expect(asTheEarlierReleaseReadsIt).toBeGreaterThanOrEqual(before + 3_000 - 50);
    expect(asTheEarlierReleaseReadsIt).toBeLessThanOrEqual(Date.now() + 3_000 + 50);
    // This release reads the settled value too: the next replica still waits its turn.
    expect(await b.reserve('arxiv-rolling', 0, 3_000)).toBeGreaterThan(2_900);
    expect(Number((await kv.get('arxiv-rolling'))?.string())).toBeGreaterThanOrEqual(asTheEarlierReleaseReadsIt + 3_000 - 50);
  });

  // A server's Retry-After pause goes through the same slots: every replica waits it out.
  it('holds back every replica until the pause ends, and a pause shorter than the queued starts moves nothing', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const limiterA = new RateLimiter(200, systemClock, { slots: a, key: 'openalex-paused' });
    const limiterB = new RateLimiter(200, systemClock, { slots: b, key: 'openalex-paused' });
    await limiterA.acquire();
    // Replica A hears Retry-After: 1 s. Replica B has not called since, yet its next start waits for the pause too.
    const pausedAt = performance.now();
    await limiterA.pauseFor(1_000);
    await limiterB.acquire();
    const resumedAt = performance.now();
    expect(resumedAt - pausedAt).toBeGreaterThanOrEqual(999);
    // Spacing resumes after the pause, across both replicas.
    await limiterA.acquire();
    expect(performance.now() - pausedAt).toBeGreaterThanOrEqual(1_199);
    // A pause ending before the next free start leaves the queue as it is.
    await limiterB.pauseFor(10);
    await limiterB.acquire();
    expect(performance.now() - pausedAt).toBeGreaterThanOrEqual(1_399);
    expect(performance.now() - pausedAt).toBeLessThan(2_900);
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
