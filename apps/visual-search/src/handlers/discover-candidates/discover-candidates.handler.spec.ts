import { isReplyOf } from '@openpaw/messaging';
import { CandidatesDiscovered, directQueries, discoveryQueries, fallbackOrder } from '@openpaw/contracts';
import { clearCoAppearances } from '@openpaw/providers';
import { lookUp } from '../../domain/evidence-cache.js';
import { localWorldPorts } from '../../local-world-ports.js';
import { VerifyEdgeHandler } from '../verify-edge/verify-edge.handler.js';
import { DiscoverCandidatesHandler } from './discover-candidates.handler.js';

const RUN = '1d2c3b4a-2b1c-4c1e-9a55-3c3c9d1f8a10';

describe('DiscoverCandidates over the local world', () => {
  const ports = localWorldPorts(7);
  const graph = clearCoAppearances(ports.world);
  const hub = [...graph.entries()].sort((x, y) => y[1].size - x[1].size || x[0] - y[0])[0]![0];
  const person = ports.world.people[hub]!;
  const command = (exclude: string[], commandId: string) => ({
    commandId,
    data: {
      sessionId: 's',
      runId: RUN,
      step: 2,
      frontier: { name: person.name },
      queries: discoveryQueries(person.name).slice(0, 2),
      imagesPerQuery: 5,
      threshold: 80,
      budget: { searchCalls: 5, recognitionCalls: 40 },
      exclude,
    },
  });

  it('finds people really photographed with the frontier (≥ 80 % both), in fallback order, and caches their edges', async () => {
    const reply = await new DiscoverCandidatesHandler(ports).execute(command([], 'cmd-1'));
    expect(reply.message).toBe(CandidatesDiscovered);
    if (!isReplyOf(reply, CandidatesDiscovered)) return;
    expect(reply.data.frontier).toEqual({ name: person.name, celebrityId: person.celebrityId });
    const { candidates } = reply.data;
    expect(candidates.length).toBeGreaterThan(0);
    const neighbours = new Set([...(graph.get(hub) ?? [])].map((i) => ports.world.people[i]!.celebrityId));
    for (const c of candidates) {
      expect(neighbours).toContain(c.person.celebrityId);
      expect(c.bestConfWithFrontier).toBeGreaterThanOrEqual(80);
      expect(c.count).toBe(c.evidence.length);
    }
    expect([...candidates].sort(fallbackOrder)).toEqual(candidates);
    expect(reply.data.usage.searchCalls).toBe(2);
    const first = candidates[0]!;
    expect(await lookUp(ports.cache, ports.recognizer.provider, first.person.celebrityId, person.celebrityId, 80)).toMatchObject({ status: 'verified' });
    // Each candidate's edge is this run's too: S4 verifies it from run memory at no cost.
    expect(await ports.memory.getEdge({ sessionId: 's', runId: RUN }, person.celebrityId, first.person.celebrityId)).toMatchObject({ edgeConf: first.bestConfWithFrontier });
  });

  it("reads a query this run already searched (a direct attempt's) from run memory: no search, no recognition for it", async () => {
    const fresh = localWorldPorts(7);
    const other = ports.world.people.find((p) => p.celebrityId !== person.celebrityId)!;
    const direct = directQueries(person.name, other.name);
    const verify = await new VerifyEdgeHandler(fresh).execute({
      commandId: 'cmd-verify',
      data: { sessionId: 's', runId: RUN, step: 1, from: { name: person.name }, to: { name: other.name }, queries: direct, imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 40 } },
    });
    expect(verify.data).toMatchObject({ usage: { searchCalls: 1 } });
    const reply = await new DiscoverCandidatesHandler(fresh).execute({ ...command([], 'cmd-discover'), data: { ...command([], 'cmd-discover').data, queries: [...direct, discoveryQueries(person.name)[0]!] } });
    if (!isReplyOf(reply, CandidatesDiscovered)) throw new Error(reply.message.name);
    // One search (the new query); the direct attempt's photos are reused, not recognised again.
    expect(reply.data.usage.searchCalls).toBe(1);
    expect(reply.data.usage.imagesSkipped).toBeGreaterThan(0);
    expect(reply.data.candidates.length).toBeGreaterThan(0);
  });

  it('leaves out excluded ids', async () => {
    const all = await new DiscoverCandidatesHandler(ports).execute(command([], 'cmd-1'));
    if (!isReplyOf(all, CandidatesDiscovered)) throw new Error(all.message.name);
    const excluded = all.data.candidates[0]!.person.celebrityId;
    const reply = await new DiscoverCandidatesHandler(ports).execute(command([excluded], 'cmd-2'));
    if (!isReplyOf(reply, CandidatesDiscovered)) throw new Error(reply.message.name);
    expect(reply.data.candidates.map((c) => c.person.celebrityId)).toEqual(all.data.candidates.slice(1).map((c) => c.person.celebrityId));
    expect(reply.data.usage.recognitionCalls).toBe(0);
  });

  it('uses no photo that also shows someone taken down, not even as evidence for the others in it', async () => {
    const fresh = localWorldPorts(7);
    const bystander = fresh.world.people.at(-1)!;
    // The recogniser also names a bystander (below the threshold: no candidate) in the first group photo it
    // reads, whenever it reads that photo.
    let grouped: { readonly bytes: string; readonly ids: string } | undefined;
    const recognizer = {
      provider: fresh.recognizer.provider,
      local: fresh.recognizer.local,
      async recognize(image: Uint8Array, options?: { readonly signal?: AbortSignal }) {
        const result = await fresh.recognizer.recognize(image, options);
        const bytes = Buffer.from(image).toString('base64');
        if (grouped === undefined && result.celebrities.length >= 2) grouped = { bytes, ids: result.celebrities.map((c) => c.celebrityId).join(' ') };
        if (grouped?.bytes !== bytes) return result;
        return { ...result, celebrities: [...result.celebrities, { celebrityId: bystander.celebrityId, name: bystander.name, matchConfidence: 61, box: { left: 0, top: 0, width: 0.1, height: 0.1 }, urls: [] }] };
      },
    };
    const handler = new DiscoverCandidatesHandler({ ...fresh, recognizer });
    const evidenceOf = (reply: Awaited<ReturnType<DiscoverCandidatesHandler['execute']>>) => (isReplyOf(reply, CandidatesDiscovered) ? reply.data.candidates.flatMap((c) => c.evidence) : []);
    const before = evidenceOf(await handler.execute(command([], 'cmd-before')));
    const groupPhoto = before.find((e) => e.shows?.includes(bystander.celebrityId));
    expect(groupPhoto?.shows?.join(' ')).toBe(`${grouped?.ids ?? ''} ${bystander.celebrityId}`);

    await fresh.takedowns.add({ recognizer: fresh.recognizer.provider, celebrityId: bystander.celebrityId, reason: 'asked to be removed', requestedBy: 'operator', at: '2026-11-28T00:00:00.000Z' });
    const after = evidenceOf(await handler.execute({ ...command([], 'cmd-after'), data: { ...command([], 'cmd-after').data, runId: '2e3d4c5b-2b1c-4c1e-9a55-3c3c9d1f8a10' } }));
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((e) => e.imageUrl)).not.toContain(groupPhoto?.imageUrl);
    expect(after.length).toBe(before.length - before.filter((e) => e.imageUrl === groupPhoto?.imageUrl).length);
  });
});
