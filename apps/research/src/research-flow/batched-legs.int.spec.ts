import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  createEnvelope,
  deadLetterSubjectOf,
  deterministicUuid,
  type Envelope,
  ExecuteResearchLeg,
  ExecuteResearchLegs,
  type MessageData,
  ResearchLegCompleted,
  ResearchLegStarted,
} from '@openpaw/contracts';
import { connectNats, DLQ_HEADERS, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { createLlmFromEnv } from '@openpaw/providers';
import { freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import { ResearchModule, SERVICE_NAME } from '../app.module.js';
import { type ResearchSettings, researchSettingsFromEnv } from '../config.js';

const RUN = deterministicUuid('batched-legs-int', 'run');
const USER = 'user-batched-legs';
const PROMPT = 'Compare the thermal conductivity of copper and aluminium for heat sinks, with the trade-offs in weight and cost.';
const REPORT = {
  title: 'Field notes',
  content:
    'Copper conducts heat at about 400 W/mK while aluminium reaches about 235 W/mK. Aluminium weighs roughly a third of copper for the same volume. Copper costs more per kilogram than aluminium. Many heat sinks pair a copper base with aluminium fins.',
};
const meta = { source: '/openpaw/coordinator', correlationId: RUN, userId: USER, subject: RUN };

type Legs = MessageData<typeof ExecuteResearchLegs>;
type Item = Legs['items'][number];

const item = (name: string, legIndex: number, round = 1): Item => ({ itemId: deterministicUuid(RUN, name), legIndex, provider: 'local', round, key: null, costCapUsd: 0.1 });
const legs = (items: readonly unknown[]): Legs => ({ runId: RUN, userId: USER, prompt: PROMPT, externalReports: [REPORT], capMs: 30_000, items: items as Item[] });

/**
 * Batched legs (ADR 0025) on the research service, real NATS and PostgreSQL: each item is answered as
 * its one-item command would be (by item id), both command shapes are served side by side (a rolling
 * upgrade), a batch or one of its items delivered again is answered from the kept replies, and a poison
 * item is dead-lettered alone at once while its neighbours are answered.
 */
describe('research service: batched legs (ExecuteResearchLegs) on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  const subscriptions: Subscription[] = [];
  const replies: Envelope[] = [];
  const deadLetters: { subject: string; itemId: string | undefined; reason: string | undefined; envelope: Envelope<Legs> }[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    const settings: ResearchSettings = { ...researchSettingsFromEnv({ OPENPAW_NATS_URL: nats.url }), databaseUrl: await freshDatabase('research_batched_legs'), poolSize: 4 };
    service = await startService({ name: SERVICE_NAME, module: ResearchModule.forRoot(settings, { llm: createLlmFromEnv({}), sources: [] }), defaultPort: 0, port: 0 });
    nc = await connectNats({ servers: nats.url, name: 'research-batched-legs-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
    subscriptions.push(nc.subscribe('openpaw.evt.research.>', { callback: (_error, msg) => void replies.push(msg.json<Envelope>()) }));
    subscriptions.push(
      nc.subscribe(deadLetterSubjectOf(ExecuteResearchLegs.subject), {
        callback: (_error, msg) => void deadLetters.push({ subject: msg.subject, itemId: msg.headers?.get(DLQ_HEADERS.itemId), reason: msg.headers?.get(DLQ_HEADERS.reason), envelope: msg.json<Envelope<Legs>>() }),
      }),
    );
    await nc.flush();
  });

  afterAll(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await nats?.dispose();
  });

  /** What a repeated answer must keep: its id (the coordinator's inbox drops the copy) and its data (not run again); time and causation name the delivery. */
  const kept = (reply: Envelope | undefined) => ({ id: reply?.id, type: reply?.type, data: reply?.data });
  const answersOf = (commandId: string): Envelope[] => replies.filter((r) => (r.data as { commandId?: string }).commandId === commandId);
  /** The leg's answer (Completed or Failed), once `count` of them arrived. */
  const answered = (commandId: string, count = 1): Promise<Envelope[]> =>
    waitFor(() => {
      const answers = answersOf(commandId).filter((r) => r.type !== ResearchLegStarted.subject);
      return answers.length >= count ? answers : undefined;
    }, `answer ${count} to leg ${commandId}`);

  /** Publishes a batch as the coordinator's relay does (`msgId` = the outbox row id, fresh for a re-send). */
  async function sendBatch(id: string, data: Legs, msgId = id): Promise<Envelope<Legs>> {
    const envelope = createEnvelope(ExecuteResearchLegs, data, { ...meta, id });
    await publisher.publishEnvelope(envelope, { msgId });
    return envelope;
  }

  it('answers every item of a batch by its item id, as the one-item command with that id would be answered', async () => {
    const items = [item('a', 0), item('b', 1), item('c', 2)];
    await sendBatch(deterministicUuid(RUN, 'batch-1'), legs(items));
    for (const { itemId } of items) {
      const [done] = await answered(itemId);
      expect(done).toMatchObject({ type: ResearchLegCompleted.subject, id: deterministicUuid(itemId, ResearchLegCompleted.subject), data: { commandId: itemId, runId: RUN, provider: 'local' } });
      expect(answersOf(itemId).find((r) => r.type === ResearchLegStarted.subject)).toMatchObject({ id: deterministicUuid(itemId, ResearchLegStarted.subject) });
    }
  });

  it('rolling upgrade: a one-item ExecuteResearchLeg still in flight and a batch are both served, and one id is one leg across both shapes', async () => {
    const oldId = deterministicUuid(RUN, 'old-shape');
    await publisher.publishEnvelope(
      createEnvelope(ExecuteResearchLeg, { runId: RUN, userId: USER, legIndex: 0, provider: 'local', round: 2, prompt: PROMPT, externalReports: [REPORT], key: null, capMs: 30_000, costCapUsd: 0.1 }, { ...meta, id: oldId }),
    );
    const [first] = await answered(oldId);
    // A new coordinator re-sends that leg as a one-item batch carrying the old command's id: the kept reply answers.
    await sendBatch(deterministicUuid(RUN, 'upgrade-resend'), legs([{ ...item('x', 0, 2), itemId: oldId }]));
    const [, again] = await answered(oldId, 2);
    expect(kept(again)).toEqual(kept(first));
  });

  it('a batch delivered twice (a re-send outside the duplicate window: a fresh msgID) gets the same replies, from the kept ones', async () => {
    const items = [item('twice-a', 0), item('twice-b', 1)];
    const id = deterministicUuid(RUN, 'batch-twice');
    await sendBatch(id, legs(items));
    const firsts = await Promise.all(items.map(async ({ itemId }) => (await answered(itemId))[0]));
    await sendBatch(id, legs(items), `${id}:resend:1`);
    for (const [i, { itemId }] of items.entries()) {
      const [, second] = await answered(itemId, 2);
      // Same id (the coordinator's inbox drops it as a duplicate input) and same content, latency included: not run again.
      expect(kept(second)).toEqual(kept(firsts[i]));
    }
  });

  it('a batch with an item already answered (terminal) answers that item from its kept reply and runs only the other', async () => {
    const done = item('terminal-done', 0);
    await sendBatch(deterministicUuid(RUN, 'terminal-first'), legs([done]));
    const [keptAnswer] = await answered(done.itemId);
    const fresh = item('terminal-fresh', 1);
    await sendBatch(deterministicUuid(RUN, 'terminal-mixed'), legs([done, fresh]));
    const [, repeated] = await answered(done.itemId, 2);
    expect(kept(repeated)).toEqual(kept(keptAnswer));
    const [freshAnswer] = await answered(fresh.itemId);
    expect(freshAnswer).toMatchObject({ type: ResearchLegCompleted.subject, data: { commandId: fresh.itemId, legIndex: 1 } });
    // The answered item was not started again: one ResearchLegStarted (the first run's).
    expect(answersOf(done.itemId).filter((r) => r.type === ResearchLegStarted.subject)).toHaveLength(1);
  });

  it('a single item re-sent outside the duplicate window (a one-item batch, the original item id, a fresh msgID) is answered from its kept reply', async () => {
    const items = [item('single-a', 0), item('single-b', 1)];
    const id = deterministicUuid(RUN, 'single-batch');
    await sendBatch(id, legs(items));
    const [keptAnswer] = await answered((items[1] as Item).itemId);
    // The engine's re-send: the item alone, under its own id, with a msgID JetStream has not seen.
    const itemId = (items[1] as Item).itemId;
    await sendBatch(itemId, legs([items[1]]), `${itemId}:resend:1`);
    const [, again] = await answered(itemId, 2);
    expect(kept(again)).toEqual(kept(keptAnswer));
    expect(answersOf((items[0] as Item).itemId).filter((r) => r.type === ResearchLegCompleted.subject)).toHaveLength(1);
  });

  it('a poison item beside good ones fails alone: dead-lettered at once with its reason, its neighbours answered', async () => {
    const good = [item('poison-good-a', 0), item('poison-good-b', 2)];
    // A provider this service does not know (say, from a newer coordinator): no schema can accept the item.
    const poison = { ...item('poison-bad', 1), provider: 'mistral' };
    const id = deterministicUuid(RUN, 'poison-batch');
    const envelope = createEnvelope(ExecuteResearchLegs, legs(good), { ...meta, id });
    // Published as raw bytes: the contract (rightly) refuses to build a batch with such an item.
    await jetstream(nc).publish(ExecuteResearchLegs.subject, JSON.stringify({ ...envelope, data: { ...envelope.data, items: [good[0], poison, good[1]] } }), { msgID: id });
    for (const { itemId } of good) expect((await answered(itemId))[0]).toMatchObject({ type: ResearchLegCompleted.subject });
    const letter = await waitFor(() => deadLetters.find((l) => l.itemId === poison.itemId), 'the poison item dead-lettered');
    expect(letter.reason).toMatch(/invalid item .*provider/s);
    // The dead letter is the one-item batch: a redrive re-sends only it.
    expect(letter.envelope.data.items).toEqual([poison]);
    expect(letter.envelope.id).toBe(id);
    expect(deadLetters.filter((l) => l.envelope.id === id)).toHaveLength(1);
    expect(answersOf(poison.itemId)).toEqual([]);
  });
});
