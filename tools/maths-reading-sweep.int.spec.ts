import { createHash } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { deterministicUuid, type Envelope, IndexDocument, type MessageData, type ProblemSignature, ProblemWithdrawn, RetrievalHit, RetrievalMiss, SearchSolutions } from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { computeProblemSignature, MATHS_SIGNATURE_VERSION, normaliseText, toContractSignature } from '../apps/ingestion/src/public-api.js';
import { RetrievalModule, SERVICE_NAME as RETRIEVAL_SERVICE_NAME } from '../apps/retrieval/src/app.module.js';
import { retrievalSettingsFromEnv } from '../apps/retrieval/src/config.js';
import { PgProblemCatalog } from '../apps/retrieval/src/public-api.js';
import { RetrievalIndex } from '../apps/retrieval/src/search/retrieval-index.js';
import { TANK_ORIGINAL } from '../apps/retrieval/src/testing/ingested-signatures.js';
import { deriveFromIngestion, sweepMathsKeys, type MathsKeySweepResult } from './maths-key-sweep.js';
import { MathsWithdrawals } from './maths-withdrawals.js';

process.env['LOG_LEVEL'] ??= 'warn';

type Reply = Envelope<MessageData<typeof RetrievalHit>> | Envelope<MessageData<typeof RetrievalMiss>> | Envelope<{ assetVersionId: string }>;

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const USER = 'user-24';

/** A typed question as ingestion signs it today. */
function typed(question: string): ProblemSignature {
  return toContractSignature(computeProblemSignature(question));
}

/** Its signature as an ingestion on maths-sig/v10 sent it: another hash, and the reading given (today's unless said). */
function indexedUnderV10(signature: ProblemSignature, reading: { canonical?: string; unknowns?: string[] } = {}): ProblemSignature {
  const today = deriveFromIngestion(signature.normalizedText);
  return {
    ...signature,
    maths: {
      version: 'maths-sig/v10',
      hash: sha(`maths-sig/v10 ${signature.normalizedText}`),
      canonical: reading.canonical ?? today?.canonical ?? 'unread',
      intent: 'solve',
      numbers: [...(today?.numbers ?? [])],
      unknowns: reading.unknowns ?? [...(today?.unknowns ?? [])],
      confidence: 1,
    },
  };
}

// v10 read "x|x| < 4" as x < 4 and the engine answered it so: its stored answer is of another problem.
const ABSOLUTE = 'Solve x|x| < 4';
// Read today as v10 read it: its stored answer stands.
const LINEAR = 'Solve 3k + 7 = 22';

const assetVersion = (name: string): string => deterministicUuid('maths-reading-sweep-int-spec', name, 'asset-version');
const problemOf = (name: string): string => deterministicUuid('maths-reading-sweep-int-spec', name, 'problem');

describe('the maths reading sweep withdraws answers read otherwise today, from every retrieval replica (real NATS and PostgreSQL)', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let replicas: RunningService[] = [];
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let pool: pg.Pool;
  const replies: Reply[] = [];
  let run = 0;

  beforeAll(async () => {
    nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('maths_reading_sweep');
    // Every search first takes in what the other replica indexed (the change feed), as after a second in production.
    const settings = retrievalSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl, OPENPAW_RETRIEVAL_POOL_SIZE: '2', OPENPAW_RETRIEVAL_REFRESH_MS: '0' });
    nc = await connectNats({ servers: nats.url, name: 'maths-reading-sweep-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    // One after the other: the first runs the migrations.
    for (let i = 0; i < 2; i += 1) replicas.push(await startService({ name: RETRIEVAL_SERVICE_NAME, module: RetrievalModule.forRoot(settings), defaultPort: 0, port: 0 }));
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.retrieval.>', { callback: (_error, msg) => void replies.push(msg.json<Reply>()) });
    await nc.flush();
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    for (const replica of replicas) await replica.app.close();
    replicas = [];
    await pool?.end();
    await nats?.dispose();
  });

  const meta = (runId: string) => ({ source: '/openpaw/coordinator', correlationId: runId, userId: USER, subject: runId });
  const nextRun = (): string => deterministicUuid('maths-reading-sweep-int-spec', String(Date.now()), String((run += 1)));
  const replyTo = (command: Envelope): Promise<Reply> => waitFor(() => replies.find((r) => r.causationid === command.id), `reply to ${command.type}`);

  async function index(name: string, signature: ProblemSignature): Promise<void> {
    const runId = nextRun();
    await replyTo(await publisher.publish(IndexDocument, { runId, problemId: problemOf(name), assetVersionId: assetVersion(name), signature }, meta(runId)));
  }

  /** A search, sent until each replica has answered one (the lane's consumer hands commands to either). */
  async function searchEveryReplica(signature: ProblemSignature): Promise<Reply[]> {
    const answers: Reply[] = [];
    for (let i = 0; i < 2; i += 1) {
      const runId = nextRun();
      answers.push(await replyTo(await publisher.publish(SearchSolutions, { runId, signature, threshold: 0.85 }, meta(runId))));
    }
    return answers;
  }

  const hitOf = (reply: Reply): string | undefined => (reply.type === RetrievalHit.subject ? (reply as Envelope<MessageData<typeof RetrievalHit>>).data.candidate.assetVersionId : undefined);
  const phashesHeld = (): number[] => replicas.map((replica) => Object.values(replica.app.get(RetrievalIndex).stats().phashes).reduce((a, b) => a + b, 0));

  async function sweep(): Promise<MathsKeySweepResult> {
    const withdrawals = await MathsWithdrawals.open(nc, nextRun(), 20_000);
    try {
      return await sweepMathsKeys(new PgProblemCatalog(pool), deriveFromIngestion, MATHS_SIGNATURE_VERSION, (problem, reason) => withdrawals.withdraw(problem, reason), { pageSize: 1 });
    } finally {
      withdrawals.close();
    }
  }

  it('serves an exact copy of a changed reading nothing after the sweep (it is solved afresh), keeps an unchanged one, and a re-run changes nothing', async () => {
    await index('absolute', indexedUnderV10(typed(ABSOLUTE), { canonical: '(< x 4)', unknowns: ['x'] }));
    await index('linear', indexedUnderV10(typed(LINEAR)));
    // A photographed problem whose stored reading is not today's: its pHash sits in each replica's memory.
    await index('tank', indexedUnderV10(TANK_ORIGINAL, { canonical: '(= v0 500)', unknowns: ['x'] }));

    // Before: exact copies hit on both replicas (the key under v10 is never looked up; the text and the image are).
    for (const reply of await searchEveryReplica(typed(ABSOLUTE))) expect(hitOf(reply)).toBe(assetVersion('absolute'));
    for (const reply of await searchEveryReplica(TANK_ORIGINAL)) expect(hitOf(reply)).toBe(assetVersion('tank'));
    expect(phashesHeld()).toEqual([1, 1]);

    const withdrawnHeard: string[] = [];
    const heard = nc.subscribe(ProblemWithdrawn.subject, { callback: (_e, msg) => void withdrawnHeard.push(msg.json<Envelope<MessageData<typeof ProblemWithdrawn>>>().data.assetVersionId) });
    await nc.flush();
    expect(await sweep()).toEqual({ examined: 3, rekeyed: 1, cleared: 0, withdrawn: 2, raced: 0, stopped: false, version: MATHS_SIGNATURE_VERSION });
    expect(withdrawnHeard.sort()).toEqual([assetVersion('absolute'), assetVersion('tank')].sort());
    heard.unsubscribe();

    // Every replica drops the withdrawn pHash from memory on hearing ProblemWithdrawn, before any search of its own catches up.
    await waitFor(() => (phashesHeld().every((n) => n === 0) ? true : undefined), 'both replicas drop the withdrawn pHash');
    const { rows } = await pool.query<{ asset_version_id: string; withdrawn_reason: string }>('select asset_version_id, withdrawn_reason from retrieval.indexed_problems where withdrawn_at is not null order by asset_version_id');
    expect(new Map(rows.map((r) => [r.asset_version_id, r.withdrawn_reason])).get(assetVersion('absolute'))).toContain('maths-sig/v10 read solve (< x 4)');
    const { rows: vectors } = await pool.query<{ id: string }>('select id from retrieval.embedded_vectors order by id');
    expect(vectors.map((v) => v.id)).toEqual([assetVersion('linear')]);

    // After: the exact copies miss on both replicas, the unchanged reading still hits.
    for (const reply of await searchEveryReplica(typed(ABSOLUTE))) expect(reply.type).toBe(RetrievalMiss.subject);
    for (const reply of await searchEveryReplica(TANK_ORIGINAL)) expect(reply.type).toBe(RetrievalMiss.subject);
    for (const reply of await searchEveryReplica(typed(normaliseText(LINEAR)))) expect(hitOf(reply)).toBe(assetVersion('linear'));

    // The miss is solved afresh and the new solution indexed (as the coordinator does after a miss): copies hit it.
    await index('absolute-today', typed(ABSOLUTE));
    for (const reply of await searchEveryReplica(typed(ABSOLUTE))) expect(hitOf(reply)).toBe(assetVersion('absolute-today'));
    // Re-sending the withdrawn problem's own IndexDocument never serves it again.
    await index('absolute', indexedUnderV10(typed(ABSOLUTE), { canonical: '(< x 4)', unknowns: ['x'] }));
    for (const reply of await searchEveryReplica(typed(ABSOLUTE))) expect(hitOf(reply)).toBe(assetVersion('absolute-today'));

    // Run again: nothing to judge, nothing written.
    const before = await pool.query('select *, search_vector::text from retrieval.indexed_problems order by doc_id');
    expect(await sweep()).toEqual({ examined: 0, rekeyed: 0, cleared: 0, withdrawn: 0, raced: 0, stopped: false, version: MATHS_SIGNATURE_VERSION });
    expect((await pool.query('select *, search_vector::text from retrieval.indexed_problems order by doc_id')).rows).toEqual(before.rows);
  });
});
