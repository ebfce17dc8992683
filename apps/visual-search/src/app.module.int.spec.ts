import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  type CandidatesDiscovered,
  deterministicUuid,
  DiscoverCandidates,
  EdgeRefuted,
  type Envelope,
  type MessageData,
  STREAMS,
  VerifyEdge,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { demoPairs, generateVisualWorld } from '@openpaw/providers';
import { privateNatsServer, waitFor } from '@openpaw/testing';
import { SERVICE_NAME, VisualSearchModule } from './app.module.js';
import { visualSearchSettingsFromEnv } from './config.js';

process.env['LOG_LEVEL'] ??= 'warn';

const WORLD_SEED = 7;
const RUN = deterministicUuid('visual-search-int-spec', String(Date.now()));
const meta = { source: '/openpaw/coordinator', correlationId: RUN, userId: 'user-7', subject: RUN };

describe('visual-search service: its commands on the `visual` lane of a real nats-server', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  const replies: Envelope[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    const settings = visualSearchSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_VISUAL_WORLD_SEED: String(WORLD_SEED) });
    service = await startService({ name: SERVICE_NAME, module: VisualSearchModule.forRoot(settings), defaultPort: 0, port: 0 });
    nc = await connectNats({ servers: nats.url, name: 'visual-search-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.visual.>', { callback: (_error, msg) => void replies.push(msg.json<Envelope>()) });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await nats?.dispose();
  });

  const replyTo = <D>(command: Envelope): Promise<Envelope<D>> =>
    waitFor(() => replies.find((r) => r.causationid === command.id) as Envelope<D> | undefined, `reply to ${command.type}`);

  it('probes and metrics are up; the commands are consumed by the lane durable, not the critical one', async () => {
    expect(await (await fetch(`${service.url}/healthz`)).json()).toEqual({ status: 'ok', service: 'visual-search' });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${service.url}/metrics`)).text()).toContain('openpaw_messages_handled_total');
    const consumers = await (await jetstreamManager(nc)).consumers.list(STREAMS.commands.name).next();
    expect(consumers.map((c) => c.name)).toContain('svc-visual-search-visual');
    expect(consumers.map((c) => c.name)).not.toContain('svc-visual-search');
  });

  it('answers VerifyEdge and DiscoverCandidates over the local world; a redelivered command gets the same reply', async () => {
    const world = generateVisualWorld({ seed: WORLD_SEED });
    const [a, b] = demoPairs(world).threeHop.map((i) => world.people[i]!);
    const base = { sessionId: 'int', runId: RUN, imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 10, recognitionCalls: 50 } };
    const verify: MessageData<typeof VerifyEdge> = { ...base, step: 1, from: { name: a!.name }, to: { name: b!.name }, queries: [`${a!.name} ${b!.name}`] };
    const command = await publisher.publish(VerifyEdge, verify, meta);
    const refuted = await replyTo<MessageData<typeof EdgeRefuted>>(command);
    expect(refuted).toMatchObject({ type: EdgeRefuted.subject, correlationid: RUN, source: '/openpaw/visual-search', data: { commandId: command.id, step: 1, reason: 'no_evidence' } });

    const discover = await publisher.publish(DiscoverCandidates, { ...base, step: 2, frontier: { name: a!.name }, queries: [`${a!.name} with celebrities`], exclude: [] }, meta);
    const discovered = await replyTo<MessageData<typeof CandidatesDiscovered>>(discover);
    expect(discovered.data.frontier.celebrityId).toBe(a!.celebrityId);
    expect(discovered.data.candidates.length).toBeGreaterThan(0);
    expect(discovered.data.usage.searchCalls).toBe(1);

    // The same envelope again (a re-send after a lost reply): the same reply id, no provider call.
    const before = replies.length;
    await publisher.publishEnvelope(discover, { msgId: deterministicUuid(discover.id, 'resend') });
    await waitFor(() => (replies.length > before ? true : undefined), 'second reply');
    expect(replies.at(-1)).toMatchObject({ id: discovered.id, data: { usage: discovered.data.usage } });
  });
});
