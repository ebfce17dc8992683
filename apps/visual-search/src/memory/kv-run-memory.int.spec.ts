import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { ensureKvBucket } from '@openpaw/messaging';
import { type NatsServerHandle, privateNatsServer, waitFor } from '@openpaw/testing';
import { KvEvidenceCache } from './kv-evidence-cache.js';
import { runKeys } from './kv-keys.js';
import { KvRunMemory } from './kv-run-memory.js';

const run = { sessionId: 'session one/ü', runId: 'f3d0d1f2-52a8-4d7e-9d63-2f2b1f2f0a11' };
const edge = {
  edgeConf: 91,
  evidence: [{ imageUrl: 'https://i.example/1.jpg', query: 'a b', phash: '0123456789abcdef', confidenceFrom: 99, confidenceTo: 91 }],
};

describe('run memory in JetStream KV (real nats-server)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  // Buckets are provisioned by their owner, never created by the service: each test provisions its own.
  const provisioned = async (name: string, ttlMs: number): Promise<JetStreamManager> => {
    await ensureKvBucket(jsm, { name, ttlMs, history: 1, purpose: 'test' });
    return jsm;
  };
  beforeAll(async () => {
    nats = await privateNatsServer();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc.close();
    await nats.dispose();
  });

  it('keeps seen sets, recognitions, edges and replies under the spec keys', async () => {
    const memory = await KvRunMemory.open(await provisioned('vd-roundtrip', 60_000), { bucket: 'vd-roundtrip' });
    expect(runKeys.edge(run, 'c-1', 'c 2')).toMatch(/^vd\.=[A-Za-z0-9_-]+\.f3d0d1f2-52a8-4d7e-9d63-2f2b1f2f0a11\.edge\.c-1\.=[A-Za-z0-9_-]+$/);
    await memory.addSeen(run, 'queries', new Map([['Ada Bob', '1']]));
    await memory.addSeen(run, 'images', new Map([['https://i.example/1.jpg', '0123456789abcdef']]));
    await memory.putRecognition(run, '0123456789abcdef', [{ celebrityId: 'c-1', name: 'Ada', confidence: 99 }]);
    await memory.putEdge(run, 'c-1', 'c 2', edge);
    await memory.putReply(run, 'cmd-1', { kind: 'verified', id: 'x' });

    expect(await memory.seen(run, 'queries')).toEqual(new Map([['Ada Bob', '1']]));
    expect(await memory.getRecognition(run, '0123456789abcdef')).toEqual([{ celebrityId: 'c-1', name: 'Ada', confidence: 99 }]);
    expect(await memory.getEdge(run, 'c-1', 'c 2')).toEqual(edge);
    expect(await memory.getReply(run, 'cmd-1')).toEqual({ kind: 'verified', id: 'x' });
    expect(await memory.getReply(run, 'cmd-2')).toBeUndefined();
  });

  it('merges concurrent additions to a seen set without losing any (compare-and-set)', async () => {
    const memory = await KvRunMemory.open(await provisioned('vd-concurrent', 60_000), { bucket: 'vd-concurrent' });
    await Promise.all(Array.from({ length: 12 }, (_, i) => memory.addSeen(run, 'images', new Map([[`https://i.example/${i}.jpg`, i.toString(16).padStart(16, '0')]]))));
    expect((await memory.seen(run, 'images')).size).toBe(12);
  });

  it('expires keys with the bucket TTL; a reader treats them as unknown and the run carries on writing', async () => {
    const memory = await KvRunMemory.open(await provisioned('vd-ttl', 1_000), { bucket: 'vd-ttl' });
    const cache = await KvEvidenceCache.open(await provisioned('vd-evidence-ttl', 1_000), { bucket: 'vd-evidence-ttl', refutationTtlMs: 60_000 });
    await memory.addSeen(run, 'images', new Map([['https://i.example/1.jpg', '0123456789abcdef']]));
    await memory.putEdge(run, 'c-1', 'c-2', edge);
    await cache.put('aws/rekognition', { status: 'refuted', ids: ['c-1', 'c-9'], threshold: 80, queries: ['One Nine'], imagesPerQuery: 5 });
    expect((await memory.seen(run, 'images')).size).toBe(1);
    expect(await cache.get('aws/rekognition', 'c-9', 'c-1')).toMatchObject({ status: 'refuted' });

    await waitFor(async () => ((await memory.getEdge(run, 'c-1', 'c-2')) === undefined ? true : undefined), 'the edge key to expire', 15_000);
    expect(await memory.seen(run, 'images')).toEqual(new Map());
    await waitFor(async () => ((await cache.get('aws/rekognition', 'c-1', 'c-9')) === undefined ? true : undefined), 'the cached refutation to expire', 15_000);

    // After expiry the set starts again (create, not update of a revision that no longer exists).
    await memory.addSeen(run, 'images', new Map([['https://i.example/2.jpg', 'fedcba9876543210']]));
    expect(await memory.seen(run, 'images')).toEqual(new Map([['https://i.example/2.jpg', 'fedcba9876543210']]));
  });
});
