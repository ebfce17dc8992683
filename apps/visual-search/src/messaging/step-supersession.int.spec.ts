import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { deterministicUuid, DiscoverCandidates, type Envelope, laneDurableOf, STREAMS, VerifyEdge } from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { demoPairs, generateVisualWorld } from '@openpaw/providers';
import { privateNatsServer, waitFor } from '@openpaw/testing';
import { SERVICE_NAME, VisualSearchModule } from '../app.module.js';
import { visualSearchSettingsFromEnv } from '../config.js';
import type { WireServer } from '../testing/wire-server.js';
import { startWireWorldServer } from '../testing/wire-world-server.js';

process.env['LOG_LEVEL'] ??= 'warn';

const WORLD_SEED = 7;
const stamp = String(Date.now());
const RUN = deterministicUuid('visual-search-step-supersession-int-spec', stamp);
const OTHER_RUN = deterministicUuid('visual-search-step-supersession-int-spec-other', stamp);
const QUEUED_RUN = deterministicUuid('visual-search-step-supersession-int-spec-queued', stamp);
const metaOf = (runId: string) => ({ source: '/openpaw/coordinator', correlationId: runId, userId: 'user-7', subject: runId });

interface HeldSearch {
  readonly query: string;
  readonly abandoned: boolean;
}

const heldOn = async (server: WireServer): Promise<readonly HeldSearch[]> => ((await (await fetch(`${server.url}/control/held`)).json()) as { held: HeldSearch[] }).held;

/**
 * Two replicas of the service, each behind its own wire world (the real SerpApi and Rekognition adapters
 * against servers speaking their formats), on one real nats-server and one lane durable. Replica B holds
 * step 1 of a run (its world keeps the search waiting); replica A receives step 2 of the run, which B
 * never sees on its durable. B's search must be hung up promptly. Then replica C, alone, holds step 1 of
 * another run with step 2 queued behind it in its own process: it must be freed as step 2 is sent.
 */
describe('visual-search: step N of a run stops the earlier steps in every replica (two replicas, real nats-server)', () => {
  const world = generateVisualWorld({ seed: WORLD_SEED });
  const [from, to] = demoPairs(world).threeHop.map((i) => world.people[i]!);
  const [third, fourth] = world.people.filter((p) => p.name !== from!.name && p.name !== to!.name);
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let worldOfA: WireServer;
  let worldOfB: WireServer;
  let worldOfC: WireServer;
  let replicaA: RunningService | undefined;
  let replicaB: RunningService | undefined;
  let replicaC: RunningService | undefined;
  let nc: NatsConnection;
  let subscription: Subscription;
  const replies: Envelope[] = [];

  const replicaBehind = (server: WireServer, env: Readonly<Record<string, string>> = {}) => {
    const settings = visualSearchSettingsFromEnv({
      OPENPAW_NATS_URL: nats.url,
      OPENPAW_IMAGE_SEARCH: 'serpapi',
      SERPAPI_API_KEY: 'wire-test-key',
      SERPAPI_BASE_URL: server.url,
      OPENPAW_RECOGNITION: 'rekognition',
      OPENPAW_REKOGNITION_ENDPOINT: server.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDWIRETEST',
      AWS_SECRET_ACCESS_KEY: 'wire-test-secret',
      ...env,
    });
    // The wire world hosts its images on 127.0.0.1.
    return startService({ name: SERVICE_NAME, module: VisualSearchModule.forRoot({ ...settings, allowLoopbackImageHosts: true }), defaultPort: 0, port: 0 });
  };

  beforeAll(async () => {
    nats = await privateNatsServer();
    [worldOfA, worldOfB, worldOfC] = await Promise.all([startWireWorldServer(world), startWireWorldServer(world), startWireWorldServer(world)]);
    nc = await connectNats({ servers: nats.url, name: 'visual-search-step-supersession-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    subscription = nc.subscribe('openpaw.evt.visual.>', { callback: (_error, msg) => void replies.push(msg.json<Envelope>()) });
    await nc.flush();
  });

  afterAll(async () => {
    await Promise.all([worldOfA, worldOfB, worldOfC].map((server) => server?.close()));
    subscription?.unsubscribe();
    await nc?.close();
    for (const replica of [replicaA, replicaB, replicaC]) await replica?.app.close();
    await nats?.dispose();
  });

  it("hangs up replica B's search for step 1 when replica A receives step 2, and leaves another run's work alone", async () => {
    const publisher = new JetStreamPublisher(jetstream(nc));
    const jsm = await jetstreamManager(nc);
    const durable = laneDurableOf(SERVICE_NAME, 'visual');
    const base = { sessionId: 'int', imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 25 } };

    // Replica B alone, one step at a time plus one held ready: it takes step 1 of the run and a step of
    // another run, and then has no room to take anything else from the durable.
    replicaB = await replicaBehind(worldOfB, { OPENPAW_LANE_CONCURRENCY: 'visual=1' });
    await fetch(`${worldOfB.url}/control/hold`, { method: 'POST', body: JSON.stringify({ afterSearches: 0 }) });
    const stale = `${from!.name} ${to!.name}`;
    await publisher.publish(VerifyEdge, { ...base, runId: RUN, step: 1, from: { name: from!.name }, to: { name: to!.name }, queries: [stale] }, metaOf(RUN));
    await waitFor(async () => ((await heldOn(worldOfB)).some((h) => h.query === stale) ? true : undefined), "replica B's search for step 1 to be held");
    const otherQuery = `${third!.name} ${fourth!.name}`;
    await publisher.publish(VerifyEdge, { ...base, runId: OTHER_RUN, step: 1, from: { name: third!.name }, to: { name: fourth!.name }, queries: [otherQuery] }, metaOf(OTHER_RUN));
    await waitFor(async () => ((await jsm.consumers.info(STREAMS.commands.name, durable)).num_ack_pending === 2 ? true : undefined), 'replica B to hold both commands');

    // Replica A joins; the saga re-planned: step 2 of the run. Only A has room to take it.
    replicaA = await replicaBehind(worldOfA);
    const current = `${from!.name} with celebrities`;
    const sentAt = Date.now();
    const step2 = await publisher.publish(DiscoverCandidates, { ...base, runId: RUN, step: 2, frontier: { name: from!.name }, queries: [current], exclude: [] }, metaOf(RUN));

    await waitFor(async () => ((await heldOn(worldOfB)).find((h) => h.query === stale)?.abandoned === true ? true : undefined), "replica B to hang up step 1's search", 5_000);
    const hungUpAfterMs = Date.now() - sentAt;

    // A answered step 2 (searched its own world); B never searched for it, nor answered step 1.
    await waitFor(() => replies.find((r) => r.causationid === step2.id), 'the answer to step 2');
    expect(worldOfA.requests.some((r) => r.url.searchParams.get('q') === current)).toBe(true);
    expect(worldOfB.requests.some((r) => r.url.searchParams.get('q') === current)).toBe(false);
    // B went on with the other run's step (freed from step 1), and its search is still waiting.
    await waitFor(async () => ((await heldOn(worldOfB)).some((h) => h.query === otherQuery) ? true : undefined), "replica B to start the other run's step");
    expect((await heldOn(worldOfB)).find((h) => h.query === otherQuery)?.abandoned).toBe(false);
    expect(replies.filter((r) => (r.data as { runId?: string }).runId === RUN).map((r) => r.causationid)).toEqual([step2.id]);
    expect(hungUpAfterMs).toBeLessThan(5_000);
  }, 60_000);

  it('frees a replica whose next command is the later step, queued behind the earlier one it holds (heard as sent, not when picked up)', async () => {
    // Replica C alone, one step at a time: it takes step 2 of its run into its queue behind step 1, which it
    // holds. Picking step 2 up would supersede step 1 only once step 1 is done (the adapter's 15 s timeout).
    await fetch(`${worldOfB.url}/control/release`, { method: 'POST' });
    for (const replica of [replicaA, replicaB]) await replica?.app.close();
    replicaA = replicaB = undefined;
    replicaC = await replicaBehind(worldOfC, { OPENPAW_LANE_CONCURRENCY: 'visual=1' });
    await fetch(`${worldOfC.url}/control/hold`, { method: 'POST', body: JSON.stringify({ afterSearches: 0 }) });
    const publisher = new JetStreamPublisher(jetstream(nc));
    const base = { sessionId: 'int', imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 25 } };
    const stale = `${third!.name} ${from!.name}`;
    await publisher.publish(VerifyEdge, { ...base, runId: QUEUED_RUN, step: 1, from: { name: third!.name }, to: { name: from!.name }, queries: [stale] }, metaOf(QUEUED_RUN));
    await waitFor(async () => ((await heldOn(worldOfC)).some((h) => h.query === stale) ? true : undefined), "replica C's search for step 1 to be held");
    const current = `${third!.name} with celebrities`;
    await publisher.publish(DiscoverCandidates, { ...base, runId: QUEUED_RUN, step: 2, frontier: { name: third!.name }, queries: [current], exclude: [] }, metaOf(QUEUED_RUN));

    await waitFor(async () => ((await heldOn(worldOfC)).find((h) => h.query === stale)?.abandoned === true ? true : undefined), "replica C to hang up step 1's search", 5_000);
    // Freed, C runs step 2 at once (its world holds that search too).
    await waitFor(async () => ((await heldOn(worldOfC)).some((h) => h.query === current) ? true : undefined), 'replica C to start step 2', 5_000);
  }, 30_000);
});
