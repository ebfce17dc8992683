import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureKvBucket, KV_BUCKETS, kvStreamName } from '@openpaw/messaging';
import { createScholarlySourcesFromEnv, responseCacheKey, type ScholarlyQuery, type ScholarlySource } from '@openpaw/providers';
import { type NatsServerHandle, privateNatsServer, waitFor } from '@openpaw/testing';
import { KvResponseCache, SCHOLARLY_RESPONSES_BUCKET, scholarlyResponses } from './kv-response-cache.js';

/** An OpenAlex works endpoint answering one work per search, counting the searches it was asked. */
async function openAlexWire(): Promise<{ server: Server; url: string; searches: string[] }> {
  const searches: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/works') {
      res.writeHead(200).end('{}');
      return;
    }
    searches.push(url.searchParams.get('search') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        meta: { count: 1, per_page: 25, next_cursor: null },
        results: [{ id: 'https://openalex.org/W42', doi: null, display_name: `Answer ${searches.length}`, publication_year: 2020, authorships: [], ids: {} }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, searches };
}

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

  /** One research replica's OpenAlex source: its own NATS connection, in-process cache and shared results, as the service wires them. */
  async function replica(): Promise<ScholarlySource & { readonly nc: NatsConnection }> {
    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    connections.push(nc);
    const env = { OPENPAW_SCHOLARLY_SOURCES: 'openalex', OPENPAW_OPENALEX_BASE_URL: wire.url, OPENPAW_SCHOLARLY_CACHE_TTL_MS: '60000' };
    const sources = createScholarlySourcesFromEnv(env, { clock, sharedResponses: { ...scholarlyResponses(nc, logger), timeoutMs: 500 } });
    expect(sources.map((s) => s.name)).toEqual(['openalex']);
    return Object.assign(sources[0]!, { nc });
  }

  const query = (text: string): ScholarlyQuery => ({ text, phrases: [text], limit: 5 });

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
    const cache = new KvResponseCache(await new Kvm(admin).open(SCHOLARLY_RESPONSES_BUCKET), 64, (_key, bytes) => tooLarge.push(bytes));
    const works = Array.from({ length: 20 }, (_, i) => ({ title: `Work ${i} ${'x'.repeat(i * 7)}`, authors: [], year: 2020, source: 'openalex' as const }));
    // Typed loosely on purpose: the cache stores whatever a source answered.
    await cache.set('openalex.big', { expiresAtMs: t + 1_000, result: { works: works as never, totalAvailable: 20, requests: 1 } });
    expect(tooLarge).toHaveLength(1);
    expect(tooLarge[0]).toBeGreaterThan(64);
    await expect(cache.get('openalex.big')).resolves.toBeUndefined();
  });

  it('degrades to fetching while NATS is down: searches still answer, the log says so once, and sharing resumes', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
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
