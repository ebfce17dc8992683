import { jetstreamManager } from '@nats-io/jetstream';
import { isReplyOf, provisionKvBuckets, replyAs } from '@openpaw/messaging';
import { CandidatesDiscovered, discoveryQueries, EdgeRefuted, EdgeVerified, ExpansionSelected, verificationQueries } from '@openpaw/contracts';
import { connect } from '@nats-io/transport-node';
import { demoPairs } from '@openpaw/providers';
import { privateNatsServer } from '@openpaw/testing';
import { createVisualSearchHandlers } from './composition.js';
import { visualSearchSettingsFromEnv } from './config.js';

it('runs the visual-search steps of a local-world chain with run memory and evidence cache in JetStream KV', async () => {
  const nats = await privateNatsServer();
  const nc = await connect({ servers: nats.url });
  try {
    // The buckets' owner (provisioning) runs first; the service only opens them.
    await provisionKvBuckets(await jetstreamManager(nc));
    const handlers = await createVisualSearchHandlers(nc, visualSearchSettingsFromEnv({}));
    const world = handlers.world!;
    const { threeHop, noPath } = demoPairs(world);
    const [a, b] = threeHop.map((i) => world.people[i]!);
    const run = { sessionId: 'demo', runId: '3c3c3c3c-2b1c-4c1e-9a55-3c3c9d1f8a10' };
    const budget = { searchCalls: 20, recognitionCalls: 120 };

    const direct = await handlers.verifyEdge.execute({
      commandId: 'c1',
      data: { ...run, step: 1, from: { name: a!.name }, to: { name: b!.name }, queries: verificationQueries(a!.name, b!.name), imagesPerQuery: 5, threshold: 80, budget },
    });
    expect(direct.message).toBe(EdgeRefuted);

    const discovered = await handlers.discoverCandidates.execute({
      commandId: 'c2',
      data: { ...run, step: 2, frontier: { name: a!.name }, queries: discoveryQueries(a!.name).slice(0, 2), imagesPerQuery: 5, threshold: 80, budget, exclude: [] },
    });
    if (!isReplyOf(discovered, CandidatesDiscovered)) throw new Error(discovered.message.name);
    expect(discovered.data.frontier.celebrityId).toBe(a!.celebrityId);
    expect(discovered.data.candidates.length).toBeGreaterThan(0);

    const selected = await handlers.selectNextExpansion.execute({
      commandId: 'c3',
      data: {
        ...run,
        step: 3,
        target: { name: b!.name },
        frontier: { name: a!.name, celebrityId: a!.celebrityId },
        candidates: discovered.data.candidates.map(({ person, count, bestConfWithFrontier }) => ({ person, count, bestConfWithFrontier })),
        hopsRemaining: 5,
        budgetsRemaining: { searchCalls: 16, recognitionCalls: 100, llmCalls: 6 },
      },
    });
    const next = replyAs(selected, ExpansionSelected).data.nextCandidates[0]!;
    expect(next).toEqual(discovered.data.candidates[0]!.person);

    // S4 for a candidate found by discovery: the evidence cache already holds the edge, no search needed.
    const verified = await handlers.verifyEdge.execute({
      commandId: 'c4',
      data: { ...run, step: 4, from: { name: a!.name, celebrityId: a!.celebrityId }, to: next, queries: verificationQueries(a!.name, next.name), imagesPerQuery: 5, threshold: 80, budget, pathSoFar: [{ name: a!.name, celebrityId: a!.celebrityId }] },
    });
    expect(verified).toMatchObject({ message: EdgeVerified, data: { usage: { cacheHit: true, searchCalls: 0 } } });

    const [x, y] = noPath.map((i) => world.people[i]!);
    const none = await handlers.verifyEdge.execute({
      commandId: 'c5',
      data: { ...run, step: 5, from: { name: x!.name }, to: { name: y!.name }, queries: verificationQueries(x!.name, y!.name), imagesPerQuery: 5, threshold: 80, budget },
    });
    expect(none.message).toBe(EdgeRefuted);
  } finally {
    await nc.close();
    await nats.dispose();
  }
});
