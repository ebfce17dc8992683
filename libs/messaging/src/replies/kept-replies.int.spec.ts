import { createEnvelope, defineCommand, DocumentIndexed, type Envelope, STREAMS } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { z } from 'zod';
import { startConsumer, type ConsumerHandle } from '../consumer.js';
import type { HandlerOutcome } from '../ports.js';
import { commandsConsumer, recordingLogger, startBroker, storedMessages, waitFor, type Broker } from '../testing/int-test-kit.js';
import { answerOnce } from './kept-replies.js';
import { PgKeptReplyStore, keptRepliesTableDdl } from './pg-kept-reply-store.js';
import { publishReplies } from './publish-replies.js';
import { replyTo, type Reply } from './reply.js';

const SCHEMA = 'kept';

class CreateKeptReplies1700000000000 implements MigrationInterface {
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(keptRepliesTableDdl(SCHEMA));
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`drop table "${SCHEMA}"."command_replies"`);
  }
}

const Index = defineCommand('kept', 'Index', 1, z.object({ runId: z.uuid(), problemId: z.uuid(), assetVersionId: z.uuid() }), 'test command');
const RUN_ID = '00000000-0000-4000-8000-000000000001';
const PROBLEM_ID = '00000000-0000-4000-8000-000000000002';

function indexed(commandId: string, assetVersionId: string): Reply {
  return replyTo(commandId, DocumentIndexed, { runId: RUN_ID, commandId, assetVersionId, problemId: PROBLEM_ID });
}

describe('kept replies (real PostgreSQL and nats-server)', () => {
  let broker: Broker;
  let dataSource: DataSource;
  let store: PgKeptReplyStore;
  const handles: ConsumerHandle[] = [];

  beforeAll(async () => {
    broker = await startBroker();
    dataSource = await openDatabase({ url: await freshDatabase('messaging_kept_replies'), schema: SCHEMA, migrations: [CreateKeptReplies1700000000000] });
    store = new PgKeptReplyStore(dataSource, SCHEMA);
  });

  afterAll(async () => {
    await Promise.all(handles.map((h) => h.stop()));
    await dataSource.destroy();
    await broker.dispose();
  });

  it('answers a redelivered command with the same reply (same id, same data) without running the handler again', async () => {
    const { stream, durable } = await commandsConsumer(broker, 'kept');
    const heard: Envelope[] = [];
    const subscription = broker.nc.subscribe(DocumentIndexed.subject, { callback: (_error, msg) => {
        heard.push(msg.json<Envelope>());
      } });
    await broker.nc.flush();
    let handled = 0;
    let deliveries = 0;
    handles.push(
      await startConsumer(broker.js, {
        stream,
        durable,
        definitions: [Index],
        logger: recordingLogger(),
        handler: async ({ envelope, context }) => {
          deliveries = context.deliveryCount;
          const data = envelope.data as z.infer<typeof Index.schema>;
          const replies = await answerOnce(store, envelope.id, () => {
            handled += 1;
            // A fresh value each time the handler runs: a second run would answer differently.
            return Promise.resolve([indexed(envelope.id, crypto.randomUUID())]);
          });
          await publishReplies(broker.publisher, envelope, replies, { source: '/openpaw/kept-test', subject: data.runId });
          // The first delivery is not acknowledged (as if the process died after publishing): it is delivered again.
          const outcome: HandlerOutcome = context.deliveryCount === 1 ? { kind: 'retry', reason: 'lost ack', delayMs: 50 } : { kind: 'ack' };
          return outcome;
        },
      }),
    );
    const command = createEnvelope(Index, { runId: RUN_ID, problemId: PROBLEM_ID, assetVersionId: crypto.randomUUID() }, { source: '/openpaw/test', correlationId: RUN_ID });
    await broker.publisher.publishEnvelope(command);

    const [first, second] = await waitFor(() => (heard.length >= 2 ? heard : undefined), 'the reply published twice', 10_000);
    subscription.unsubscribe();
    expect(deliveries).toBe(2);
    expect(handled).toBe(1);
    expect(second?.id).toBe(first?.id);
    expect(second?.data).toEqual(first?.data);
    expect(first).toMatchObject({ causationid: command.id, correlationid: RUN_ID, subject: RUN_ID, source: '/openpaw/kept-test' });
    // JetStream's duplicate window keeps one copy: the same id is the same Nats-Msg-Id.
    expect(await storedMessages(broker.jsm, STREAMS.events.name, DocumentIndexed.subject)).toHaveLength(1);
  });

  it('keeps the first answer: a later keep of the same command gets the replies kept first', async () => {
    const commandId = crypto.randomUUID();
    const first = [indexed(commandId, crypto.randomUUID())];
    expect(await store.keep(commandId, first)).toEqual(first);
    expect(await store.keep(commandId, [indexed(commandId, crypto.randomUUID())])).toEqual(first);
    expect(await store.find(commandId)).toEqual(first);
  });

  it('pure work: runs without a look-up first, one store call per answer, and a redelivery is still answered with the first kept replies', async () => {
    const calls: string[] = [];
    const counting = {
      find: (commandId: string) => (calls.push('find'), store.find(commandId)),
      keep: (commandId: string, replies: readonly Reply[]) => (calls.push('keep'), store.keep(commandId, replies)),
    };
    const first = await answerOnce(counting, 'cmd-pure', () => Promise.resolve([indexed('cmd-pure', '00000000-0000-4000-8000-00000000000a')]), { pure: true });
    expect(calls).toEqual(['keep']);
    // The redelivery's work answers differently (the index changed): the first kept answer stands.
    const again = await answerOnce(counting, 'cmd-pure', () => Promise.resolve([indexed('cmd-pure', '00000000-0000-4000-8000-00000000000b')]), { pure: true });
    expect(calls).toEqual(['keep', 'keep']);
    expect(again).toEqual(first);
    expect((first[0]?.data as { assetVersionId: string }).assetVersionId).toBe('00000000-0000-4000-8000-00000000000a');
    // Work that is not pure still looks up first and does not run again.
    let ran = 0;
    const impure = await answerOnce(counting, 'cmd-pure', () => ((ran += 1), Promise.resolve([])));
    expect(ran).toBe(0);
    expect(impure).toEqual(first);
    expect(calls).toEqual(['keep', 'keep', 'find']);
  });

  it('shares one answer between deliveries of a command answered at the same time in one process', async () => {
    const commandId = crypto.randomUUID();
    let runs = 0;
    const work = async (): Promise<readonly Reply[]> => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return [indexed(commandId, crypto.randomUUID())];
    };
    const [a, b] = await Promise.all([answerOnce(store, commandId, work), answerOnce(store, commandId, work)]);
    expect(runs).toBe(1);
    expect(b).toEqual(a);
  });

  it('keeps replies inside a transaction: rolled back with it', async () => {
    const commandId = crypto.randomUUID();
    await expect(
      dataSource.transaction(async (manager) => {
        await store.within(manager).keep(commandId, [indexed(commandId, crypto.randomUUID())]);
        throw new Error('the work failed after keeping');
      }),
    ).rejects.toThrow('the work failed after keeping');
    expect(await store.find(commandId)).toBeUndefined();
  });

  it('refuses to keep a reply its schema rejects', async () => {
    const commandId = crypto.randomUUID();
    const invalid = { message: DocumentIndexed, id: 'x', data: { runId: 'not-a-uuid' } } as unknown as Reply;
    await expect(store.keep(commandId, [invalid])).rejects.toThrow();
    expect(await store.find(commandId)).toBeUndefined();
  });
});
