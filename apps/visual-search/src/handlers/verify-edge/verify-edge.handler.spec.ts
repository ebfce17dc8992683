import { isReplyOf } from '@openpaw/messaging';
import { EdgeRefuted, EdgeVerified, EVIDENCE_THUMBNAIL_MAX_SIDE, evidenceThumbnailKey, verificationQueries, VisualStepFailed } from '@openpaw/contracts';
import { clearCoAppearances, type ImageSearch, ProviderError, type VisualWorld } from '@openpaw/providers';
import sharp from 'sharp';
import { countingRecognizer } from '../../testing/counting-recognizer.js';
import { localWorldPorts } from '../../local-world-ports.js';
import { VerifyEdgeHandler } from './verify-edge.handler.js';

const RUN = '8a0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10';

function setup() {
  const ports = localWorldPorts(7);
  const recognizer = countingRecognizer(ports.recognizer);
  return { ports: { ...ports, recognizer }, recognizer, handler: new VerifyEdgeHandler({ ...ports, recognizer }) };
}

function clearPair(world: VisualWorld): [number, number] {
  const graph = clearCoAppearances(world);
  for (const [a, ns] of graph) for (const b of ns) return [a, b];
  throw new Error('no clear pair');
}

/** Two people photographed together only with one face blurred: real, but not verifiable at 80 %. */
function blurredOnlyPair(world: VisualWorld): [number, number] {
  const graph = clearCoAppearances(world);
  for (const photo of world.photos) {
    const [x, y] = photo.faces.map((f) => f.personIndex);
    if (photo.faces.length === 2 && x !== null && y !== null && x !== undefined && y !== undefined && !graph.get(x)?.has(y)) return [x, y];
  }
  throw new Error('no blurred-only pair');
}

function command(world: VisualWorld, a: number, b: number, overrides: Record<string, unknown> = {}, commandId = 'cmd-1') {
  const from = world.people[a]!;
  const to = world.people[b]!;
  return {
    commandId,
    data: {
      sessionId: 'session-1',
      runId: RUN,
      step: 3,
      from: { name: from.name },
      to: { name: to.name },
      queries: verificationQueries(from.name, to.name),
      imagesPerQuery: 5,
      threshold: 80,
      budget: { searchCalls: 10, recognitionCalls: 40 },
      ...overrides,
    },
  };
}

describe('VerifyEdge over the local world', () => {
  it('verifies a pair photographed together: evidence ≥ 80 % on both sides, ids from the recogniser, edge and path in run memory', async () => {
    const { ports, handler } = setup();
    const [a, b] = clearPair(ports.world);
    const pathSoFar = [{ name: 'Someone Before', celebrityId: 'lw-x' }, { name: ports.world.people[a]!.name, celebrityId: ports.world.people[a]!.celebrityId }];
    const reply = await handler.execute(command(ports.world, a, b, { pathSoFar }));
    expect(reply.message).toBe(EdgeVerified);
    if (!isReplyOf(reply, EdgeVerified)) return;
    const { edge, usage } = reply.data;
    expect(edge.from.celebrityId).toBe(ports.world.people[a]!.celebrityId);
    expect(edge.to.celebrityId).toBe(ports.world.people[b]!.celebrityId);
    expect(edge.evidence.length).toBeGreaterThan(0);
    for (const e of edge.evidence) expect(Math.min(e.confidenceFrom, e.confidenceTo)).toBeGreaterThanOrEqual(80);
    expect(edge.edgeConf).toBe(Math.max(...edge.evidence.map((e) => Math.min(e.confidenceFrom, e.confidenceTo))));
    expect(usage).toMatchObject({ searchCalls: 2, cacheHit: false });
    expect(usage.recognitionCalls).toBeGreaterThan(0);
    expect(usage.recognitionCalls).toBeLessThanOrEqual(10);
    const run = { sessionId: 'session-1', runId: RUN };
    expect(await ports.memory.getEdge(run, edge.from.celebrityId, edge.to.celebrityId)).toMatchObject({ edgeConf: edge.edgeConf });
  });

  it('stores each evidence photo as a JPEG thumbnail of at most 512 px in the blob store, and the evidence names its key', async () => {
    const { ports, handler } = setup();
    const [a, b] = clearPair(ports.world);
    const reply = await handler.execute(command(ports.world, a, b));
    if (!isReplyOf(reply, EdgeVerified)) throw new Error('expected EdgeVerified');
    for (const e of reply.data.edge.evidence) {
      expect(e.thumbnailKey).toBe(evidenceThumbnailKey(e.phash));
      const stored = await ports.blobs.get(e.thumbnailKey ?? '');
      expect(stored.info.contentType).toBe('image/jpeg');
      const { format, width, height } = await sharp(stored.body).metadata();
      expect(format).toBe('jpeg');
      expect(Math.max(width, height)).toBeLessThanOrEqual(EVIDENCE_THUMBNAIL_MAX_SIDE);
    }
    // A later run answered from the evidence cache names the same thumbnails (no new fetch).
    const { from, to } = reply.data.edge;
    const again = await handler.execute(command(ports.world, a, b, { runId: '0c0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10', from, to }, 'cmd-2'));
    if (!isReplyOf(again, EdgeVerified)) throw new Error('expected EdgeVerified');
    expect(again.data.usage.cacheHit).toBe(true);
    expect(again.data.edge.evidence.map((e) => e.thumbnailKey)).toEqual(reply.data.edge.evidence.map((e) => e.thumbnailKey));
  });

  it('answers a redelivered command with the same reply and no provider call; another run asks the evidence cache', async () => {
    const { ports, handler, recognizer } = setup();
    const [a, b] = clearPair(ports.world);
    const first = await handler.execute(command(ports.world, a, b));
    const calls = recognizer.calls();
    expect(await handler.execute(command(ports.world, a, b))).toEqual(first);
    expect(recognizer.calls()).toBe(calls);

    const ids = { from: { name: ports.world.people[b]!.name, celebrityId: ports.world.people[b]!.celebrityId }, to: { name: ports.world.people[a]!.name, celebrityId: ports.world.people[a]!.celebrityId } };
    const cached = await handler.execute(command(ports.world, b, a, { ...ids, runId: 'f0f0f0f0-2b1c-4c1e-9a55-3c3c9d1f8a10' }, 'cmd-2'));
    expect(cached).toMatchObject({ message: EdgeVerified, data: { commandId: 'cmd-2', usage: { searchCalls: 0, recognitionCalls: 0, cacheHit: true }, edge: { from: { celebrityId: ids.from.celebrityId } } } });
    expect(cached.id).not.toBe(first.id);
    expect(recognizer.calls()).toBe(calls);
  });

  it('refutes a pair seen together only blurred (below 80 %), keeps partial evidence, and caches the refutation', async () => {
    const { ports, handler } = setup();
    const [a, b] = blurredOnlyPair(ports.world);
    const reply = await handler.execute(command(ports.world, a, b));
    expect(reply).toMatchObject({ message: EdgeRefuted, data: { reason: 'no_evidence' } });
    if (!isReplyOf(reply, EdgeRefuted)) return;
    expect(reply.data.partialEvidence.length).toBeGreaterThan(0);
    expect(reply.data.partialEvidence.some((p) => p.confidenceFrom !== null && p.confidenceTo !== null && Math.min(p.confidenceFrom, p.confidenceTo) < 80)).toBe(true);
    // Asked by name, each side a photo showed at ≥ 80 % comes back with its celebrity id (a one-sided run then knows B is a public figure); the others as asked.
    const shown = (side: 'confidenceFrom' | 'confidenceTo') => reply.data.partialEvidence.some((p) => (p[side] ?? 0) >= 80);
    expect(shown('confidenceFrom') || shown('confidenceTo')).toBe(true);
    expect(reply.data.from).toEqual(shown('confidenceFrom') ? { name: ports.world.people[a]!.name, celebrityId: ports.world.people[a]!.celebrityId } : { name: ports.world.people[a]!.name });
    expect(reply.data.to).toEqual(shown('confidenceTo') ? { name: ports.world.people[b]!.name, celebrityId: ports.world.people[b]!.celebrityId } : { name: ports.world.people[b]!.name });

    const withIds = { from: { name: 'x', celebrityId: ports.world.people[a]!.celebrityId }, to: { name: 'y', celebrityId: ports.world.people[b]!.celebrityId } };
    const again = await handler.execute(command(ports.world, a, b, withIds, 'cmd-2'));
    expect(again.message).toBe(EdgeRefuted);
    const refuted = await handler.execute(command(ports.world, a, b, withIds, 'cmd-3'));
    expect(refuted).toMatchObject({ message: EdgeRefuted, data: { usage: { cacheHit: true, recognitionCalls: 0 } } });
  });

  it('does not cache a refutation made while an image could not be fetched: the missing image might have shown both', async () => {
    const { ports } = setup();
    const [a, b] = blurredOnlyPair(ports.world);
    let refused = 0;
    const fetcher = { fetch: (url: string, options?: { readonly signal?: AbortSignal }) => (refused++ === 0 ? Promise.reject(new Error(`HTTP 502 for ${url}`)) : ports.fetcher.fetch(url, options)) };
    const handler = new VerifyEdgeHandler({ ...ports, fetcher });
    const withIds = { from: { name: 'x', celebrityId: ports.world.people[a]!.celebrityId }, to: { name: 'y', celebrityId: ports.world.people[b]!.celebrityId } };
    expect(await handler.execute(command(ports.world, a, b, withIds, 'cmd-1'))).toMatchObject({ message: EdgeRefuted, data: { reason: 'no_evidence' } });
    expect(await ports.cache.get(ports.recognizer.provider, withIds.from.celebrityId, withIds.to.celebrityId)).toBeUndefined();
  });

  it("verifies an edge this run's discovery already proved from run memory, at no cost, though the shared cache has forgotten it", async () => {
    const { ports, handler, recognizer } = setup();
    const [a, b] = clearPair(ports.world);
    const from = { name: ports.world.people[a]!.name, celebrityId: ports.world.people[a]!.celebrityId };
    const to = { name: ports.world.people[b]!.name, celebrityId: ports.world.people[b]!.celebrityId };
    const evidence = [{ imageUrl: 'https://img.example/1.jpg', query: 'q', phash: '00000000000000ff', confidenceFrom: 91, confidenceTo: 97 }];
    // Discovery from b wrote the edge b → a.
    await ports.memory.putEdge({ sessionId: 'session-1', runId: RUN }, to.celebrityId, from.celebrityId, { edgeConf: 91, evidence });
    const reply = await handler.execute(command(ports.world, a, b, { from, to }));
    expect(reply).toMatchObject({ message: EdgeVerified, data: { usage: { searchCalls: 0, recognitionCalls: 0, cacheHit: true }, edge: { from, to, edgeConf: 91, evidence: [{ confidenceFrom: 97, confidenceTo: 91 }] } } });
    expect(recognizer.calls()).toBe(0);
  });

  it('hands out no kept photo that also shows someone taken down: the edge stands on the photos left, or is searched again', async () => {
    const { ports, handler, recognizer } = setup();
    const [a, b] = clearPair(ports.world);
    const from = { name: ports.world.people[a]!.name, celebrityId: ports.world.people[a]!.celebrityId };
    const to = { name: ports.world.people[b]!.name, celebrityId: ports.world.people[b]!.celebrityId };
    const photo = (n: number, confidenceFrom: number, confidenceTo: number, shows: string[]) => ({ imageUrl: `https://img.example/${n}.jpg`, query: 'q', phash: `000000000000000${n}`, confidenceFrom, confidenceTo, shows });
    const withThird = photo(1, 97, 95, [from.celebrityId, to.celebrityId, 'lw-third']);
    const ofTwo = photo(2, 90, 88, [from.celebrityId, to.celebrityId]);
    await ports.cache.put(ports.recognizer.provider, { status: 'verified', edge: { from, to, edgeConf: 95, evidence: [withThird, ofTwo] } });
    await ports.takedowns.add({ recognizer: ports.recognizer.provider, celebrityId: 'lw-third', reason: 'asked to be removed', requestedBy: 'operator', at: '2026-11-28T00:00:00.000Z' });

    const reply = await handler.execute(command(ports.world, a, b, { from, to }));
    expect(reply).toMatchObject({ message: EdgeVerified, data: { usage: { searchCalls: 0, cacheHit: true }, edge: { edgeConf: 88, evidence: [{ imageUrl: ofTwo.imageUrl }] } } });
    expect(JSON.stringify(reply.data)).not.toContain(withThird.imageUrl);

    // Kept with that photo alone, the edge is searched for again (another run: its own memory).
    await ports.cache.put(ports.recognizer.provider, { status: 'verified', edge: { from, to, edgeConf: 95, evidence: [withThird] } });
    const searched = await handler.execute(command(ports.world, a, b, { from, to, runId: 'f0f0f0f0-2b1c-4c1e-9a55-3c3c9d1f8a10' }, 'cmd-2'));
    expect(searched).toMatchObject({ message: EdgeVerified, data: { usage: { cacheHit: false } } });
    expect(JSON.stringify(searched.data)).not.toContain(withThird.imageUrl);
    expect(recognizer.calls()).toBeGreaterThan(0);
  });

  it('stops at the step budget and says which one ran out', async () => {
    const { ports, handler } = setup();
    const [a, b] = clearPair(ports.world);
    expect(await handler.execute(command(ports.world, a, b, { budget: { searchCalls: 0, recognitionCalls: 40 } }, 'cmd-s'))).toMatchObject({
      message: EdgeRefuted,
      data: { reason: 'budget_exhausted', budgetExhausted: 'search', usage: { searchCalls: 0 } },
    });
    expect(await handler.execute(command(ports.world, a, b, { budget: { searchCalls: 5, recognitionCalls: 0 } }, 'cmd-r'))).toMatchObject({
      message: EdgeRefuted,
      data: { reason: 'budget_exhausted', budgetExhausted: 'recognition', usage: { searchCalls: 1, recognitionCalls: 0 } },
    });
  });

  it('runs a query and recognises a photo once per run (seen sets), and survives run memory expiring mid-run', async () => {
    const { ports, handler, recognizer } = setup();
    const [a, b] = clearPair(ports.world);
    await handler.execute(command(ports.world, a, b, {}, 'cmd-1'));
    const firstCalls = recognizer.calls();
    const reversed = await handler.execute(command(ports.world, b, a, { queries: verificationQueries(ports.world.people[a]!.name, ports.world.people[b]!.name) }, 'cmd-2'));
    expect(reversed).toMatchObject({ message: EdgeVerified, data: { usage: { searchCalls: 0, recognitionCalls: 0 } } });
    expect(isReplyOf(reversed, EdgeVerified) && reversed.data.usage.imagesSkipped).toBeGreaterThan(0);
    expect(recognizer.calls()).toBe(firstCalls);

    ports.memory.forget();
    const afterExpiry = await handler.execute(command(ports.world, b, a, { queries: verificationQueries(ports.world.people[a]!.name, ports.world.people[b]!.name) }, 'cmd-3'));
    expect(afterExpiry.message).toBe(EdgeVerified);
    expect(recognizer.calls()).toBeGreaterThan(firstCalls);
  });

  it('answers VisualStepFailed when image search stays unavailable', async () => {
    const { ports } = setup();
    const failing = { provider: 'serpapi/google_images', local: false, search: () => Promise.reject(new ProviderError('server_error', 'serpapi', 'HTTP 503', { status: 503 })) };
    const handler = new VerifyEdgeHandler({ ...ports, search: failing });
    const reply = await handler.execute(command(ports.world, 0, 1));
    expect(reply).toMatchObject({ message: VisualStepFailed, data: { command: 'VerifyEdge', errorCode: 'search_unavailable', retryable: true, usage: { searchCalls: 1, recognitionCalls: 0 } } });
  });

  it('names the local demo world in its replies, its size taken from the world', async () => {
    const { ports, handler } = setup();
    const [a, b] = clearPair(ports.world);
    const reply = await handler.execute(command(ports.world, a, b));
    expect(reply.data).toMatchObject({ world: { kind: 'local_demo', seed: 7, people: ports.world.people.length, description: `local demo world of ${ports.world.people.length} invented people` } });
  });

  it('refutes a name the local demo world does not know at once, with the names it knows, and searches nothing', async () => {
    const { ports, recognizer } = setup();
    const searched: string[] = [];
    const search: ImageSearch = { provider: ports.search.provider, local: true, search: (query, options) => (searched.push(query), ports.search.search(query, options)) };
    const counting = new VerifyEdgeHandler({ ...ports, recognizer, search });
    const known = ports.world.people[0]!.name;
    const reply = await counting.execute({ ...command(ports.world, 0, 1), data: { ...command(ports.world, 0, 1).data, from: { name: ` ${known.toUpperCase()} ` }, to: { name: 'Taylor Swift' } } });
    expect(reply).toMatchObject({ message: EdgeRefuted, data: { reason: 'no_evidence', usage: { searchCalls: 0, recognitionCalls: 0 }, notInWorld: { names: ['Taylor Swift'] } } });
    if (!isReplyOf(reply, EdgeRefuted)) return;
    expect(reply.data.notInWorld?.known).toEqual(ports.world.people.map((p) => p.name).sort((x, y) => x.localeCompare(y)));
    expect(searched).toEqual([]);
    expect(recognizer.calls()).toBe(0);
  });

  it('stops its provider calls when its run ends mid-step: the abort is no unusable image and no step failure', async () => {
    const { ports } = setup();
    const abort = new AbortController();
    const reason = new Error('run ended');
    const fetcher = {
      fetch: (url: string, options?: { readonly signal?: AbortSignal }) => {
        abort.abort(reason);
        return options?.signal?.aborted === true ? Promise.reject(new DOMException('aborted', 'AbortError')) : ports.fetcher.fetch(url);
      },
    };
    const handler = new VerifyEdgeHandler({ ...ports, fetcher });
    const [a, b] = clearPair(ports.world);
    await expect(handler.execute({ ...command(ports.world, a, b), signal: abort.signal })).rejects.toBe(reason);
  });
});
