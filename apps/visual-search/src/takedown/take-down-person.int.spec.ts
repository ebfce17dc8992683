import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { CandidatesDiscovered, discoveryQueries, EdgeRefuted, EVIDENCE_THUMBNAIL_PREFIX } from '@openpaw/contracts';
import { ensureKvBucket, isReplyOf } from '@openpaw/messaging';
import { clearCoAppearances } from '@openpaw/providers';
import { type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { lookUp } from '../domain/evidence-cache.js';
import { DiscoverCandidatesHandler } from '../handlers/discover-candidates/discover-candidates.handler.js';
import { VerifyEdgeHandler } from '../handlers/verify-edge/verify-edge.handler.js';
import { KvEvidenceCache } from '../memory/kv-evidence-cache.js';
import { localWorldPorts } from '../local-world-ports.js';
import { takeDownPerson } from './take-down-person.js';

const RUN = '5e5e5e5e-2b1c-4c1e-9a55-3c3c9d1f8a10';

describe('a person taken down (real nats-server KV, local blob store, local world)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  beforeAll(async () => {
    nats = await privateNatsServer();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc.close();
    await nats.dispose();
  });

  it('loses every cached pair and stored photo, is never a candidate again, and is never verified again at no search', async () => {
    const jsm = await jetstreamManager(nc);
    await ensureKvBucket(jsm, { name: 'vd-takedown-cache', ttlMs: 60_000, history: 1, purpose: 'test' });
    const cache = await KvEvidenceCache.open(jsm, { bucket: 'vd-takedown-cache' });
    const ports = { ...localWorldPorts(7), cache };
    const graph = clearCoAppearances(ports.world);
    const hub = [...graph.entries()].sort((x, y) => y[1].size - x[1].size || x[0] - y[0])[0]![0];
    const frontier = ports.world.people[hub]!;
    const discover = (runId: string, commandId: string) =>
      new DiscoverCandidatesHandler(ports).execute({
        commandId,
        data: { sessionId: 's', runId, step: 2, frontier: { name: frontier.name }, queries: discoveryQueries(frontier.name).slice(0, 2), imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 40 }, exclude: [] },
      });

    const before = await discover(RUN, 'cmd-before');
    if (!isReplyOf(before, CandidatesDiscovered)) throw new Error(before.message.name);
    const [gone, kept] = before.data.candidates;
    if (gone === undefined || kept === undefined) throw new Error('the hub has two candidates at least');
    const recognizer = ports.recognizer.provider;
    expect(await lookUp(cache, recognizer, frontier.celebrityId, gone.person.celebrityId, 80)).toMatchObject({ status: 'verified' });
    const goneThumbnails = gone.evidence.flatMap((e) => (e.thumbnailKey === undefined ? [] : [e.thumbnailKey]));
    expect(goneThumbnails.length).toBeGreaterThan(0);
    const stored = async (): Promise<string[]> => (await ports.blobs.list({ prefix: EVIDENCE_THUMBNAIL_PREFIX, pageSize: 1000 })).items.map((i) => i.key);
    const storedBefore = await stored();

    const result = await takeDownPerson(ports, { recognizer, celebrityId: gone.person.celebrityId, name: gone.person.name, reason: 'subject request', requestedBy: 'ops@example.org' });

    expect(result.cacheEntriesRemoved).toBeGreaterThanOrEqual(1);
    expect(result.thumbnailsRemoved).toBeGreaterThanOrEqual(goneThumbnails.length);
    expect(await lookUp(cache, recognizer, frontier.celebrityId, gone.person.celebrityId, 80)).toBeUndefined();
    // Another person's cached pair stays.
    expect(await lookUp(cache, recognizer, frontier.celebrityId, kept.person.celebrityId, 80)).toMatchObject({ status: 'verified' });
    const storedAfter = await stored();
    for (const key of goneThumbnails) expect(storedAfter).not.toContain(key);
    expect(storedAfter.length).toBe(storedBefore.length - result.thumbnailsRemoved);

    // A new run (cold run memory) sees the same photos: the person is no candidate, and no photo of them is stored again.
    const after = await discover('6f6f6f6f-2b1c-4c1e-9a55-3c3c9d1f8a10', 'cmd-after');
    if (!isReplyOf(after, CandidatesDiscovered)) throw new Error(after.message.name);
    expect(after.data.candidates.map((c) => c.person.celebrityId)).not.toContain(gone.person.celebrityId);
    expect(after.data.candidates.map((c) => c.person.celebrityId)).toContain(kept.person.celebrityId);
    expect((await stored()).filter((key) => goneThumbnails.includes(key))).toEqual([]);

    // Asked for directly (by id, e.g. from a run already in flight), the pair is refuted without a search.
    const verify = await new VerifyEdgeHandler(ports).execute({
      commandId: 'cmd-verify',
      data: { sessionId: 's', runId: RUN, step: 3, from: { name: frontier.name, celebrityId: frontier.celebrityId }, to: gone.person, queries: [`${frontier.name} ${gone.person.name}`], imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 25 } },
    });
    if (!isReplyOf(verify, EdgeRefuted)) throw new Error(verify.message.name);
    expect(verify.data.usage).toMatchObject({ searchCalls: 0, recognitionCalls: 0 });
    expect(await ports.takedowns.records(recognizer)).toEqual([expect.objectContaining({ celebrityId: gone.person.celebrityId, reason: 'subject request', requestedBy: 'ops@example.org' })]);
  });
});
