import { createHash } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { deterministicUuid, type Envelope, IndexDocument, type MessageData, type ProblemSignature, RetrievalHit, SearchSolutions } from '@openpaw/contracts';
import { connectNats, JetStreamPublisher } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import pg from 'pg';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { retrievalSettingsFromEnv } from './config.js';
import { FakeQdrant } from './testing/fake-qdrant.js';

process.env['LOG_LEVEL'] ??= 'warn';

const signature = (text: string): ProblemSignature => ({
  normalizedText: text,
  textSha256: createHash('sha256').update(text).digest('hex'),
  topicTags: { subject: 'physics', keywords: [] },
});

it('keeps vectors in Qdrant when OPENPAW_QDRANT_URL is set: collection created, points upserted, paraphrases found', async () => {
  const qdrant = new FakeQdrant();
  const nats = await privateNatsServer();
  let service: RunningService | undefined;
  let nc: NatsConnection | undefined;
  const databaseUrl = await freshDatabase('retrieval_qdrant');
  try {
    const qdrantUrl = await qdrant.start();
    const settings = retrievalSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl, OPENPAW_QDRANT_URL: qdrantUrl, OPENPAW_QDRANT_COLLECTION: 'problems_test' });
    service = await startService({ name: SERVICE_NAME, module: RetrievalModule.forRoot(settings), defaultPort: 0, port: 0 });
    expect(qdrant.collections.get('problems_test')?.size).toBe(384);

    nc = await connectNats({ servers: nats.url, name: 'retrieval-qdrant-spec' });
    const publisher = new JetStreamPublisher(jetstream(nc));
    const replies: Envelope[] = [];
    nc.subscribe('openpaw.evt.retrieval.>', { callback: (_error, msg) => void replies.push(msg.json<Envelope>()) });
    await nc.flush();
    const replyTo = async (command: Envelope): Promise<Envelope> => {
      for (let waited = 0; waited < 20_000; waited += 25) {
        const reply = replies.find((r) => r.causationid === command.id);
        if (reply !== undefined) return reply;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no reply to ${command.id}`);
    };
    const meta = (runId: string) => ({ source: '/openpaw/coordinator', correlationId: runId, subject: runId });

    const runId = deterministicUuid('retrieval-qdrant-spec', String(Date.now()));
    const assetVersionId = deterministicUuid(runId, 'asset-version');
    const problemId = deterministicUuid(runId, 'problem');
    const indexData: MessageData<typeof IndexDocument> = { runId, problemId, assetVersionId, signature: signature('a cyclist rides 45 km in 3 hours. what is her average speed?') };
    await replyTo(await publisher.publish(IndexDocument, indexData, meta(runId)));
    const [point] = [...(qdrant.collections.get('problems_test')?.points.values() ?? [])];
    expect(point?.payload).toMatchObject({ asset_version_id: assetVersionId, problem_id: problemId, openpaw_id: assetVersionId });

    const searchRun = deterministicUuid(runId, 'search');
    const search = await publisher.publish(SearchSolutions, { runId: searchRun, signature: signature('a cyclist rides 45 km in 3 hours. find her average speed'), threshold: 0.85 }, meta(searchRun));
    expect(await replyTo(search)).toMatchObject({ type: RetrievalHit.subject, data: { candidate: { assetVersionId, problemId, method: 'vector' } } });
    expect(qdrant.requests).toContain('POST /collections/problems_test/points/query');

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from retrieval.embedded_vectors');
    await db.end();
    expect(rows[0]?.n).toBe(0);
  } finally {
    await nc?.close();
    await service?.app.close();
    await nats.dispose();
    await qdrant.stop();
  }
});
