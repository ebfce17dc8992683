import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureKvBucket, KV_BUCKETS, kvStreamName, streamSettingsFromEnv } from '@openpaw/messaging';
import { createScholarlySourcesFromEnv, responseCacheKey, type ScholarlyQuery, type ScholarlySource, type SharedResponses } from '@openpaw/providers';
import { type NatsClusterHandle, type NatsServerHandle, privateNatsServer, startNatsCluster, waitFor } from '@openpaw/testing';
import { KvResponseCache, SCHOLARLY_RESPONSES_BUCKET, scholarlyResponses } from './kv-response-cache.js';

/**
 * An OpenAlex works endpoint answering one work per search, counting the searches it was asked; as
 * scripted, it answers after `delayMs`, and refuses (HTTP 400) the next `refuse` searches.
 */
async function openAlexWire(): Promise<{ server: Server; url: string; searches: string[]; script: { delayMs: number; refuse: number } }> {
  const searches: string[] = [];
  const script = { delayMs: 0, refuse: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/works') {
      res.writeHead(200).end('{}');
      return;
    }
    searches.push(url.searchParams.get('search') ?? '');
    const refused = script.refuse > 0;
    if (refused) script.refuse -= 1;
    const answer = (): void => {
      if (refused) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"scripted refusal"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          meta: { count: 1, per_page: 25, next_cursor: null },
          results: [{ id: 'https://openalex.org/W42', doi: null, display_name: `Answer ${searches.length}`, publication_year: 2020, authorships: [], ids: {} }],
        }),
      );
    };
    if (script.delayMs > 0) setTimeout(answer, script.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, searches, script };
}

const query = (text: string): ScholarlyQuery => ({ text, phrases: [text], limit: 5 });

type Clock = { now(): number; sleep(ms: number): Promise<void> };
type Logger = Parameters<typeof scholarlyResponses>[1];

/**
 * One research replica's OpenAlex source, as the service wires it: its own NATS connection (to
 * `natsUrl`, so replicas may sit on different nodes of a cluster), its own in-process cache and clock,
 * and the shared results.
 */
/**
 * How long a replica waits on the bucket before fetching without it: long enough that a loaded CI
 * machine's slow bucket call is not taken for an outage (the outage test sets its own, short wait).
 */
const SHARED_TIMEOUT_MS = 5_000;

async function researchReplica(
  natsUrl: string,
  wireUrl: string,
  { connections, clock, logger, shared = {} }: { connections: NatsConnection[]; clock: Clock; logger: Logger; shared?: Partial<SharedResponses> },
): Promise<ScholarlySource & { readonly nc: NatsConnection }> {
  const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(nc);
  const env = { OPENPAW_SCHOLARLY_SOURCES: 'openalex', OPENPAW_OPENALEX_BASE_URL: wireUrl, OPENPAW_SCHOLARLY_CACHE_TTL_MS: '60000' };
  // The claim's life as the service sets it (OPENPAW_RESEARCH_SEARCH_CLAIM_MS), the rest as a test asks.
  const { claimMs, ...rest } = shared;
  const sources = createScholarlySourcesFromEnv(env, { clock, sharedResponses: { ...scholarlyResponses(nc, logger, claimMs === undefined ? {} : { claimMs }), timeoutMs: SHARED_TIMEOUT_MS, ...rest } });
  expect(sources.map((s) => s.name)).toEqual(['openalex']);
  return Object.assign(sources[0]!, { nc });
}

/** How many times the wire was asked `text` (whitespace collapsed: a replica sends its own spelling). */
const asked = (searches: readonly string[], text: string): number => searches.filter((s) => s.replace(/\s+/g, ' ').trim() === text).length;

describe('scholarly results shared across replicas (a real JetStream KV bucket)', () => {
  let nats: NatsServerHandle;
  let wire: Awaited<ReturnType<typeof openAlexWire>>;
  const connections: NatsConnection[] = [];
  /** The provisioning Job's connection, which also reads the bucket as an operator would. */
  let admin: NatsConnection;
  let t = 1_000_000_000;
  const clock = { now: () => t, sleep: (ms: number) => Promise.resolve(void (t += ms)) };
  const warnings: string[] = [];
  const logger = { info: () => undefined, warn: (_fields: object, message: string) => void warnings.push(message) };

  beforeAll(async () => {
    nats = await privateNatsServer();
    wire = await openAlexWire();
    admin = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    connections.push(admin);
    // Provisioned as the Job does; the service only opens it.
    await ensureKvBucket(await jetstreamManager(admin), KV_BUCKETS.scholarlyResponses);
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await nats.dispose();
    await new Promise((resolve) => wire.server.close(resolve));
  });

  const replica = (shared: Partial<SharedResponses> = {}, replicaClock: Clock = clock): ReturnType<typeof researchReplica> =>
    researchReplica(nats.url, wire.url, { connections, clock: replicaClock, logger, shared });

  it('fetches a search once for two replicas, keyed by the normalised request, in a bounded gzipped value', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const first = await a.search(query('graph attention'));
    expect(first).toMatchObject({ requests: 1, works: [{ title: 'Answer 1' }] });
    // The other replica's identical search (spacing aside) is answered from the bucket: the source is not asked again.
    await expect(b.search(query('  graph   attention '))).resolves.toMatchObject({ requests: 0, works: [{ title: 'Answer 1' }] });
    expect(wire.searches).toEqual(['graph attention']);
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    const stored = await kv.get(responseCacheKey('openalex', query('graph attention')));
    expect(stored?.operation).toBe('PUT');
    expect(stored!.length).toBeLessThan(KV_BUCKETS.scholarlyResponses.maxValueBytes);
    const info = await (await jetstreamManager(admin)).streams.info(kvStreamName(SCHOLARLY_RESPONSES_BUCKET));
    expect([info.config.max_msg_size, info.config.max_bytes]).toEqual([KV_BUCKETS.scholarlyResponses.maxValueBytes, KV_BUCKETS.scholarlyResponses.maxBytes]);
    // A different request is another key.
    await b.search(query('graph transformers'));
    expect(wire.searches).toEqual(['graph attention', 'graph transformers']);
  });

  it('fetches again once the TTL has passed, on either replica, and shares the new answer', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    await a.search(query('message passing'));
    expect(wire.searches.filter((s) => s === 'message passing')).toHaveLength(1);
    t += 60_001;
    await expect(b.search(query('message passing'))).resolves.toMatchObject({ requests: 1 });
    expect(wire.searches.filter((s) => s === 'message passing')).toHaveLength(2);
    await expect(a.search(query('message passing'))).resolves.toMatchObject({ requests: 0 });
    expect(wire.searches.filter((s) => s === 'message passing')).toHaveLength(2);
  });

  it('does not store a value past the bound (each replica keeps it in process)', async () => {
    const tooLarge: number[] = [];
    const cache = new KvResponseCache(await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET), { maxValueBytes: 64, onTooLarge: (_key, bytes) => tooLarge.push(bytes) });
    const works = Array.from({ length: 20 }, (_, i) => ({ title: `Work ${i} ${'x'.repeat(i * 7)}`, authors: [], year: 2020, source: 'openalex' as const }));
    // Typed loosely on purpose: the cache stores whatever a source answered.
    await cache.set('openalex.big', { expiresAtMs: t + 1_000, result: { works: works as never, totalAvailable: 20, requests: 1 } });
    expect(tooLarge).toHaveLength(1);
    expect(tooLarge[0]).toBeGreaterThan(64);
    await expect(cache.get('openalex.big')).resolves.toBeUndefined();
  });

  it('two replicas searching the same thing at once fetch it once: one claims the fetch, the other waits for its answer', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    wire.script.delayMs = 300;
    try {
      const answers = await Promise.all([a.search(query('graph neural networks')), b.search(query('graph  neural networks'))]);
      // Whichever replica won sent its own spelling.
      expect(wire.searches.filter((s) => s.replace(/\s+/g, ' ') === 'graph neural networks')).toHaveLength(1);
      expect(answers.map((answer) => answer.requests).sort()).toEqual([0, 1]);
      expect(new Set(answers.map((answer) => answer.works[0]?.title)).size).toBe(1);
    } finally {
      wire.script.delayMs = 0;
    }
    // The claim is gone once the answer is shared: its message removed, no delete marker left.
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    expect(await kv.get(`claim.${responseCacheKey('openalex', query('graph neural networks'))}`)).toBeNull();
  });

  it('a claim holds, and its answer is taken, whatever the claimant\'s clock says: a replica an hour behind and one on time fetch once', async () => {
    // The claimant's clock is an hour behind the waiter's: its claim and the expiry it stamps on its result are an hour old to the waiter.
    const behind: Clock = { now: () => t - 3_600_000, sleep: (ms) => Promise.resolve(void (t += ms)) };
    const [a, b] = await Promise.all([replica({ claimMs: 3_000, claimPollMs: 20 }, behind), replica({ claimMs: 3_000, claimPollMs: 20 })]);
    wire.script.delayMs = 300;
    let waited: number;
    try {
      const claimed = a.search(query('skewed clocks'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      const answers = await Promise.all([claimed, b.search(query('skewed clocks'))]);
      waited = Date.now() - started;
      expect(answers.map((answer) => answer.requests)).toEqual([1, 0]);
    } finally {
      wire.script.delayMs = 0;
    }
    expect(asked(wire.searches, 'skewed clocks')).toBe(1);
    // The waiter took the answer when it came, not after waiting the claim out.
    expect(waited).toBeLessThan(2_000);
    // And keeps it for its own TTL: its repeat is answered from memory.
    await expect(b.search(query('skewed clocks'))).resolves.toMatchObject({ requests: 0 });
    expect(asked(wire.searches, 'skewed clocks')).toBe(1);
  });

  it('a waiting replica fetches itself when the claimant fails, when a claim has lapsed, and after a bounded wait for a claimant that never answers', async () => {
    const [a, b] = await Promise.all([replica({ claimMs: 3_000, claimPollMs: 20 }), replica({ claimMs: 3_000, claimPollMs: 20 })]);
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    // The claimant's request is refused: it releases its claim, and the waiter (claiming next) fetches, not waiting out the claim.
    wire.script.delayMs = 150;
    wire.script.refuse = 1;
    let started = Date.now();
    try {
      const settled = await Promise.allSettled([a.search(query('graph sampling')), new Promise((resolve) => setTimeout(resolve, 30)).then(() => b.search(query('graph sampling')))]);
      expect(settled.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
      expect(settled[1]).toMatchObject({ value: { requests: 1 } });
    } finally {
      wire.script.delayMs = 0;
      wire.script.refuse = 0;
    }
    expect(wire.searches.filter((s) => s === 'graph sampling')).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3_000);

    // A claim whose replica died (a life of 300 ms) is taken over once seen unchanged that long, and released: the next search does not wait.
    const coarsening = `claim.${responseCacheKey('openalex', query('graph coarsening'))}`;
    await kv.put(coarsening, JSON.stringify({ lifeMs: 300 }));
    started = Date.now();
    await expect(a.search(query('graph coarsening'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(await kv.get(coarsening)).toBeNull();

    // A live claim whose replica never answers: the search waits out the claim's life (400 ms here), not much longer, then fetches.
    const c = await replica({ claimMs: 400, claimPollMs: 20 });
    await kv.put(`claim.${responseCacheKey('openalex', query('graph rewiring'))}`, JSON.stringify({ lifeMs: 3_600_000 }));
    started = Date.now();
    await expect(c.search(query('graph rewiring'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(wire.searches.filter((s) => s === 'graph rewiring')).toHaveLength(1);
  });

  it('degrades to fetching while NATS is down: searches still answer, the log says so once, and sharing resumes', async () => {
    // A short wait on the bucket: each search of the outage pays it once.
    const [a, b] = await Promise.all([replica({ timeoutMs: 500 }), replica({ timeoutMs: 500 })]);
    warnings.length = 0;
    await nats.stop();
    try {
      await expect(a.search(query('graph pooling'))).resolves.toMatchObject({ requests: 1 });
      await expect(b.search(query('graph pooling'))).resolves.toMatchObject({ requests: 1 });
      expect(wire.searches.filter((s) => s === 'graph pooling')).toHaveLength(2);
      // Each replica still answers its own repeat from memory, and says once that it cannot share.
      await expect(a.search(query('graph pooling'))).resolves.toMatchObject({ requests: 0 });
      await expect(b.search(query('graph dropout'))).resolves.toMatchObject({ requests: 1 });
      expect(warnings).toEqual(Array(2).fill('scholarly results are cached per process: the shared bucket cannot be used'));
    } finally {
      await nats.restart();
    }
    const c = await replica();
    // Replica a reconnects by itself; its next search uses the bucket again.
    await waitFor(() => a.nc.flush().then(() => true, () => undefined), 'replica a reconnected', 15_000);
    await c.search(query('graph unpooling'));
    await expect(a.search(query('graph unpooling'))).resolves.toMatchObject({ requests: 0 });
    expect(wire.searches.filter((s) => s === 'graph unpooling')).toHaveLength(1);
  }, 30_000);
});

describe('a full scholarly results bucket (a real JetStream KV bucket at its byte bound)', () => {
  let nats: NatsServerHandle;
  let wire: Awaited<ReturnType<typeof openAlexWire>>;
  let admin: NatsConnection;
  const connections: NatsConnection[] = [];
  const clock = { now: () => 1_000_000_000, sleep: () => Promise.resolve() };
  const logged: { level: string; message: string }[] = [];
  const logger = { info: (_fields: object, message: string) => void logged.push({ level: 'info', message }), warn: (_fields: object, message: string) => void logged.push({ level: 'warn', message }) };
  const FULL = 'scholarly results bucket is full: new results are cached per process until older ones expire (stored ones are still shared)';
  const FILLER = 'filler';

  beforeAll(async () => {
    nats = await privateNatsServer();
    wire = await openAlexWire();
    admin = await connect({ servers: nats.url });
    connections.push(admin);
    // The catalog's bucket with a small byte bound, so that a test can fill it.
    await ensureKvBucket(await jetstreamManager(admin), { ...KV_BUCKETS.scholarlyResponses, maxBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await nats.dispose();
    await new Promise((resolve) => wire.server.close(resolve));
  });

  const replica = (): ReturnType<typeof researchReplica> => researchReplica(nats.url, wire.url, { connections, clock, logger, shared: { claimMs: 5_000, claimPollMs: 20 } });

  /**
   * Values older than what a test stores. nats-server 2.9 checks a write against the byte bound by its
   * payload and headers but stores its subject and framing too, so the write that fills the bucket can
   * pass the bound by ~100 bytes, and JetStream then drops the oldest values (discard-new
   * notwithstanding): these are the ones dropped.
   */
  async function padOldest(): Promise<void> {
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    for (let i = 0; i < 8; i += 1) await kv.put(`oldest.${i}`, new Uint8Array(64));
  }

  /** Fills the bucket with values until it refuses one (as old results would), leaving no room for a result. */
  async function fill(): Promise<void> {
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    for (let i = 0; ; i += 1) {
      try {
        await kv.put(`${FILLER}.${i}`, new Uint8Array(8 * 1024));
      } catch (error) {
        expect(String(error)).toMatch(/maximum bytes exceeded/);
        break;
      }
    }
    // Small leftovers too, down to less than a result's size.
    for (let i = 0; ; i += 1) {
      try {
        await kv.put(`${FILLER}.small.${i}`, new Uint8Array(64));
      } catch {
        return;
      }
    }
  }

  it('still answers every search, shares what it held, logs the refusal once, and shares again once room is made', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    await padOldest();
    await a.search(query('stored before'));
    await fill();
    logged.length = 0;
    // Each search answers (fetched), without waiting on a claim the full bucket could not record.
    const started = Date.now();
    for (const text of ['full one', 'full two', 'full three']) await expect(a.search(query(text))).resolves.toMatchObject({ requests: 1 });
    await expect(b.search(query('full one'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The full bucket recorded no claim either (a search fetched without one).
    expect(await (await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET)).get(`claim.${responseCacheKey('openalex', query('full one'))}`)).toBeNull();
    // What the bucket held before it filled is still shared.
    await expect(b.search(query('stored before'))).resolves.toMatchObject({ requests: 0 });
    // Once per replica, however many searches: not once a request.
    expect(logged).toEqual([{ level: 'warn', message: FULL }, { level: 'warn', message: FULL }]);

    // Keys expire (here: purged), and results are shared again; the log says so.
    await (await jetstreamManager(admin)).streams.purge(kvStreamName(SCHOLARLY_RESPONSES_BUCKET), { filter: `$KV.${SCHOLARLY_RESPONSES_BUCKET}.${FILLER}.>` });
    logged.length = 0;
    await expect(a.search(query('room again'))).resolves.toMatchObject({ requests: 1 });
    await expect(b.search(query('room again'))).resolves.toMatchObject({ requests: 0 });
    expect(logged).toEqual([{ level: 'info', message: 'scholarly results bucket accepts new results again' }]);
    expect(wire.searches.filter((s) => s === 'room again')).toHaveLength(1);

    // Full again: said again, once.
    await fill();
    logged.length = 0;
    await a.search(query('full four'));
    await a.search(query('full five'));
    expect(logged).toEqual([{ level: 'warn', message: FULL }]);
  });

  it('a claim made just before the bucket filled is removed by its message (no delete marker, which needs room): a later search does not wait it out', async () => {
    await (await jetstreamManager(admin)).streams.purge(kvStreamName(SCHOLARLY_RESPONSES_BUCKET));
    await padOldest();
    const kv = await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET);
    const [a, b] = await Promise.all([replica(), replica()]);
    const claimKey = `claim.${responseCacheKey('openalex', query('filled meanwhile'))}`;
    wire.script.delayMs = 800;
    try {
      const claimant = a.search(query('filled meanwhile'));
      await waitFor(() => kv.get(claimKey).then((entry) => (entry?.operation === 'PUT' ? true : undefined)), 'the claim stored', 5_000);
      // Filled while the claimant fetches: its result is refused.
      await fill();
      const started = Date.now();
      const answers = await Promise.all([claimant, b.search(query('filled meanwhile'))]);
      // Nothing could be shared (a full bucket records no claim either), so the other replica fetched too, at once.
      expect(answers.map((answer) => answer.requests)).toEqual([1, 1]);
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      wire.script.delayMs = 0;
    }
    expect(await kv.get(claimKey)).toBeNull();
    // Room again: a new replica's search claims and fetches at once, with no claim left standing to wait out.
    await (await jetstreamManager(admin)).streams.purge(kvStreamName(SCHOLARLY_RESPONSES_BUCKET), { filter: `$KV.${SCHOLARLY_RESPONSES_BUCKET}.${FILLER}.>` });
    const c = await replica();
    const started = Date.now();
    await expect(c.search(query('filled meanwhile'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('scholarly results shared across replicas on different nodes of a real R3 JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let wire: Awaited<ReturnType<typeof openAlexWire>>;
  const connections: NatsConnection[] = [];
  const clock = { now: () => 1_000_000_000, sleep: () => Promise.resolve() };
  const logger = { info: () => undefined, warn: () => undefined };

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    wire = await openAlexWire();
    const admin = await connect({ servers: cluster.urls[0] });
    connections.push(admin);
    // Provisioned as the Job does with OPENPAW_STREAM_REPLICAS=3.
    await ensureKvBucket(await jetstreamManager(admin), KV_BUCKETS.scholarlyResponses, { settings: streamSettingsFromEnv({ OPENPAW_STREAM_REPLICAS: '3' }) });
    expect((await (await jetstreamManager(admin)).streams.info(kvStreamName(SCHOLARLY_RESPONSES_BUCKET))).config.num_replicas).toBe(3);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await cluster?.dispose();
    await new Promise((resolve) => wire.server.close(resolve));
  });

  it('three replicas, each on its own node, searching the same thing at once fetch it once, round after round', async () => {
    const replicas = await Promise.all(cluster.urls.map((url) => researchReplica(url, wire.url, { connections, clock, logger, shared: { claimPollMs: 20 } })));
    const kv = await new Kvm(connections[0]!).open(SCHOLARLY_RESPONSES_BUCKET);
    wire.script.delayMs = 200;
    try {
      for (let round = 0; round < 5; round += 1) {
        const text = `graph partitioning ${round}`;
        const answers = await Promise.all(replicas.map((replica) => replica.search(query(text))));
        expect([asked(wire.searches, text), answers.map((answer) => answer.requests).sort()]).toEqual([1, [0, 0, 1]]);
        // Released on the replicated stream too: the claim's message removed, no delete marker left.
        expect(await kv.get(`claim.${responseCacheKey('openalex', query(text))}`)).toBeNull();
      }
    } finally {
      wire.script.delayMs = 0;
    }
  }, 30_000);
});
