import { createHash } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  deterministicUuid,
  DocumentIndexed,
  type Envelope,
  IndexDocument,
  type MessageData,
  type ProblemSignature,
  RetrievalHit,
  RetrievalHitV1,
  definitionForSubject,
  RetrievalMiss,
  SearchSolutions,
  STREAMS,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { type RetrievalSettings, retrievalSettingsFromEnv } from './config.js';
import { TANK_CROPPED_JPEG, TANK_ORIGINAL, TANK_QUARTER_JPEG, TANK_SIBLING } from './testing/ingested-signatures.js';

process.env['LOG_LEVEL'] ??= 'warn';

type Hit = Envelope<MessageData<typeof RetrievalHit>>;
type Miss = Envelope<MessageData<typeof RetrievalMiss>>;
type Indexed = Envelope<MessageData<typeof DocumentIndexed>>;
type Reply = Hit | Miss | Indexed;

/** A typed problem's signature, its text already in the ingestion service's normal form. */
function textSignature(normalizedText: string, subject = 'other'): ProblemSignature {
  return { normalizedText, textSha256: createHash('sha256').update(normalizedText, 'utf8').digest('hex'), topicTags: { subject, keywords: [] } };
}

/** A typed maths problem's signature: its text, and the maths signature ingestion would compute for it. */
function mathsSignature(normalizedText: string, canonical: string, numbers: string[]): ProblemSignature {
  const hash = createHash('sha256').update(`maths-sig/v1\nsolve\n${canonical}`, 'utf8').digest('hex');
  return { ...textSignature(normalizedText, 'algebra'), maths: { version: 'maths-sig/v1', hash, canonical, intent: 'solve', numbers, confidence: 1 } };
}

const SPEED = 'a cyclist rides 45 km in 3 hours. what is her average speed?';
const CIRCLE = 'find the area of a circle with a radius of 7 cm';
const USER = 'user-7';
const POLICY_THRESHOLD = 0.85;

/** The problems indexed first, with their asset version (and problem) ids. */
const PROBLEMS = {
  tank: TANK_ORIGINAL,
  tankSibling: TANK_SIBLING,
  speed: textSignature(SPEED, 'physics'),
  circle: textSignature(CIRCLE, 'geometry'),
} as const;
type ProblemName = keyof typeof PROBLEMS;
const assetVersion = (name: string): string => deterministicUuid('retrieval-int-spec', name, 'asset-version');
const problemOf = (name: string): string => deterministicUuid('retrieval-int-spec', name, 'problem');

describe('retrieval service on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let settings: RetrievalSettings;
  let service: RunningService;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let db: pg.Client;
  const replies: Reply[] = [];

  const start = (): Promise<RunningService> => startService({ name: SERVICE_NAME, module: RetrievalModule.forRoot(settings), defaultPort: 0, port: 0 });

  beforeAll(async () => {
    nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('retrieval_service');
    // The embedder from env: none set, so the local hashed n-gram embedder (384 dimensions), as in a default deployment.
    // With the deprecated v1 replies on: they are checked below (off, the default, is retrieval-commands.consumer.spec.ts).
    settings = retrievalSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl, OPENPAW_RETRIEVAL_POOL_SIZE: '2', OPENPAW_RETRIEVAL_REPLIES_V1: 'on' });
    service = await start();
    nc = await connectNats({ servers: nats.url, name: 'retrieval-int-spec' });
    jsm = await jetstreamManager(nc);
    await provisionStreams(jsm);
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.retrieval.>', { callback: (_error, msg) => void replies.push(msg.json<Reply>()) });
    await nc.flush();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await db?.end();
    await nats?.dispose();
  });

  let runCounter = 0;
  const nextRunId = (): string => {
    runCounter += 1;
    return deterministicUuid('retrieval-int-spec', String(Date.now()), String(runCounter));
  };
  const meta = (runId: string) => ({ source: '/openpaw/coordinator', correlationId: runId, userId: USER, subject: runId });

  function replyTo(command: Envelope, count = 1): Promise<Reply> {
    return waitFor(() => {
      // The deprecated v1 copies of v2 replies are checked on their own below.
      const matching = replies.filter((r) => r.causationid === command.id && definitionForSubject(r.type)?.supersededBy === undefined);
      return matching.length >= count ? matching[count - 1] : undefined;
    }, `reply ${count} to ${command.id}`);
  }

  async function indexDocument(name: string, signature: ProblemSignature): Promise<Envelope<MessageData<typeof IndexDocument>>> {
    const runId = nextRunId();
    return publisher.publish(IndexDocument, { runId, problemId: problemOf(name), assetVersionId: assetVersion(name), signature }, meta(runId));
  }

  async function search(signature: ProblemSignature, threshold = POLICY_THRESHOLD): Promise<Envelope<MessageData<typeof SearchSolutions>>> {
    const runId = nextRunId();
    return publisher.publish(SearchSolutions, { runId, signature, threshold }, meta(runId));
  }

  async function searchReply(signature: ProblemSignature, threshold = POLICY_THRESHOLD): Promise<Hit | Miss> {
    return (await replyTo(await search(signature, threshold))) as Hit | Miss;
  }

  async function storedEventCount(subject: string): Promise<number> {
    const info = await jsm.streams.info(STREAMS.events.name, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  it('indexes problems: DocumentIndexed for each, rows in the catalogue and the embedded vector index', async () => {
    const names = Object.keys(PROBLEMS) as ProblemName[];
    const commands = await Promise.all(names.map((name) => indexDocument(name, PROBLEMS[name])));
    for (const [i, command] of commands.entries()) {
      const reply = await replyTo(command);
      expect(reply).toMatchObject({
        id: deterministicUuid(command.id, DocumentIndexed.subject),
        type: DocumentIndexed.subject,
        source: '/openpaw/retrieval',
        correlationid: command.correlationid,
        causationid: command.id,
        userid: USER,
        data: { runId: command.data.runId, commandId: command.id, assetVersionId: assetVersion(names[i] ?? ''), problemId: problemOf(names[i] ?? '') },
      });
    }
    const { rows } = await db.query<{ problems: number; vectors: number; text_dominant: number }>(
      `select (select count(*)::int from retrieval.indexed_problems) as problems,
              (select count(*)::int from retrieval.embedded_vectors) as vectors,
              (select count(*)::int from retrieval.indexed_problems where text_dominant) as text_dominant`,
    );
    expect(rows[0]).toEqual({ problems: 4, vectors: 4, text_dominant: 2 });
    const space = await db.query('select embedder_model, dimension from retrieval.vector_space');
    expect(space.rows).toEqual([{ embedder_model: 'local/hashed-ngrams-384', dimension: 384 }]);
  });

  it.each<[string, () => ProblemSignature, ProblemName, MessageData<typeof RetrievalHit>['candidate']['method'], number]>([
    ['the same normalised image', () => TANK_ORIGINAL, 'tank', 'exact_image', 1],
    ['a cropped JPEG copy with the same pHash', () => TANK_CROPPED_JPEG, 'tank', 'exact_phash', 1],
    ['the same normalised text', () => textSignature(SPEED), 'speed', 'text_exact', 0.99],
    ['a quarter-size JPEG copy with OCR noise, confirmed by its text', () => TANK_QUARTER_JPEG, 'tank', 'near_duplicate', 0.95],
  ])('hits %s at the policy threshold', async (_case, signature, expected, method, confidence) => {
    const command = await search(signature());
    const reply = await replyTo(command);
    expect(reply).toMatchObject({
      id: deterministicUuid(command.id, RetrievalHit.subject),
      type: RetrievalHit.subject,
      correlationid: command.correlationid,
      causationid: command.id,
      userid: USER,
      data: { runId: command.data.runId, commandId: command.id, candidate: { assetVersionId: assetVersion(expected), problemId: problemOf(expected), method, confidence } },
    });
  });

  it('confirms a near-duplicate pHash by the texts: the closer sibling in the same layout is refused', async () => {
    const hit = await searchReply(TANK_QUARTER_JPEG);
    const phashTrace = hit.data.trace.filter((t) => t.stage === 'phash');
    expect(phashTrace).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ candidate: assetVersion('tankSibling'), accepted: false, reason: expect.stringMatching(/distance 2: .*texts disagree.*numbers differ/) }),
        expect.objectContaining({ candidate: assetVersion('tank'), accepted: true, score: 0.95 }),
      ]),
    );
  });

  it('hits a paraphrase by vector cosine at the policy threshold', async () => {
    const reply = await searchReply(textSignature('a cyclist rides 45 km in 3 hours. find her average speed'));
    expect(reply.type).toBe(RetrievalHit.subject);
    const { candidate } = (reply as Hit).data;
    expect(candidate).toMatchObject({ assetVersionId: assetVersion('speed'), method: 'vector' });
    expect(candidate.confidence).toBeGreaterThanOrEqual(POLICY_THRESHOLD);
  });

  it('misses with the top candidate above it, and the hybrid tier accepts what the vector tier alone refuses', async () => {
    const reordered = textSignature('what is the average speed of a cyclist who rides 45 km in 3 hours?');
    // At a threshold nothing but an exact match reaches: a miss that names its best candidate (spec 01's near-miss rule).
    const miss = await searchReply(reordered, 1);
    expect(miss.type).toBe(RetrievalMiss.subject);
    const top = (miss as Miss).data.topCandidate;
    expect(top).toMatchObject({ assetVersionId: assetVersion('speed'), problemId: problemOf('speed'), method: 'vector' });
    const cosine = top?.confidence ?? 0;
    expect(cosine).toBeGreaterThan(0.7);
    expect(cosine).toBeLessThan(0.95);

    // Just above that cosine the vector tier refuses, and keyword + vector ranks fused (both first) clear threshold − 0.02.
    const threshold = Math.round((cosine + 0.01) * 1000) / 1000;
    const hit = await searchReply(reordered, threshold);
    expect(hit.type).toBe(RetrievalHit.subject);
    const { candidate, trace } = (hit as Hit).data;
    expect(candidate).toMatchObject({ assetVersionId: assetVersion('speed'), method: 'hybrid' });
    expect(candidate.confidence).toBeGreaterThanOrEqual(threshold - 0.02);
    expect(candidate.confidence).toBeLessThan(threshold);
    expect(trace.filter((t) => t.stage === 'vector')).toContainEqual(
      expect.objectContaining({ candidate: assetVersion('speed'), accepted: false, score: cosine, reason: expect.stringMatching(/< threshold/) }),
    );
  });

  it('misses an unknown problem, and never serves a sibling with other numbers', async () => {
    const unrelated = (await searchReply(textSignature('balance the redox equation for permanganate in acid solution'))) as Miss;
    expect(unrelated.type).toBe(RetrievalMiss.subject);
    expect(unrelated.data.topCandidate?.confidence ?? 0).toBeLessThan(POLICY_THRESHOLD);
    expect([...new Set(unrelated.data.trace.map((t) => t.stage))]).toEqual(['exact_image', 'phash', 'exact_text', 'maths_signature', 'vector', 'hybrid']);

    // Cosine 0.83 to the indexed cyclist problem, but 60 km in 4 hours is another problem: no candidate at all.
    const sibling = (await searchReply(textSignature('a cyclist rides 60 km in 4 hours. what is her average speed?'))) as Miss;
    expect(sibling.type).toBe(RetrievalMiss.subject);
    expect(sibling.data.topCandidate).toBeNull();
    expect(sibling.data.trace).toEqual(
      expect.arrayContaining([expect.objectContaining({ stage: 'vector', candidate: assetVersion('speed'), accepted: false, reason: expect.stringMatching(/numbers differ/) })]),
    );
  });

  it('hits the same maths reworded at the maths-signature stage, scaled by the reading, at the policy bar; never other maths', async () => {
    const indexed = await replyTo(await indexDocument('linear', mathsSignature('solve 4x-9=23', '(= (+ (* 4 v0) -9) 23)', ['23', '4', '9'])));
    expect(indexed.type).toBe(DocumentIndexed.subject);
    const { rows } = await db.query<{ maths_canonical: string; maths_confidence: number }>(
      'select maths_canonical, maths_confidence from retrieval.indexed_problems where asset_version_id = $1',
      [assetVersion('linear')],
    );
    expect(rows).toEqual([{ maths_canonical: '(= (+ (* 4 v0) -9) 23)', maths_confidence: 1 }]);

    // A paraphrase typed by another user: same canonical maths and intent.
    const paraphrase = mathsSignature('what is y when 23=-9+4y?', '(= (+ (* 4 v0) -9) 23)', ['23', '4', '9']);
    const hit = (await searchReply(paraphrase)) as Hit;
    expect(hit.type).toBe(RetrievalHit.subject);
    expect(hit.data.candidate).toMatchObject({ assetVersionId: assetVersion('linear'), problemId: problemOf('linear'), method: 'maths_signature' });
    expect(hit.data.candidate.confidence).toBeCloseTo(0.97);
    expect(hit.data.trace).toContainEqual(expect.objectContaining({ stage: 'maths_signature', accepted: true, reason: expect.stringContaining('same maths (= (+ (* 4 v0) -9) 23) (solve)') }));
    // v1 cannot name the method: no deprecated copy of this reply.
    expect(replies.filter((r) => r.causationid === hit.causationid).map((r) => r.type)).toEqual([RetrievalHit.subject]);

    // The same maths read from a photo with reading confidence 0.8: 0.776, under the command's maths bar.
    const unsure = { ...paraphrase, maths: { ...(paraphrase.maths as NonNullable<ProblemSignature['maths']>), confidence: 0.8 } };
    const runId = nextRunId();
    const strict = (await replyTo(await publisher.publish(SearchSolutions, { runId, signature: unsure, threshold: POLICY_THRESHOLD, mathsSignatureThreshold: 0.85 }, meta(runId)))) as Hit | Miss;
    expect(strict.data.trace).toContainEqual(expect.objectContaining({ stage: 'maths_signature', candidate: assetVersion('linear'), accepted: false, reason: expect.stringContaining('too unsure') }));
    expect(strict.type === RetrievalHit.subject ? (strict as Hit).data.candidate.method : 'miss').not.toBe('maths_signature');

    // Other numbers are other maths: never this problem.
    const other = await searchReply(mathsSignature('what is y when 23=-9+5y?', '(= (+ (* 5 v0) -9) 23)', ['23', '5', '9']));
    expect(other.type === RetrievalHit.subject ? (other as Hit).data.candidate.assetVersionId : null).not.toBe(assetVersion('linear'));
    expect(other.data.trace).toContainEqual(expect.objectContaining({ stage: 'maths_signature', accepted: false, reason: expect.stringContaining('no problem indexed with maths') }));
  });

  it('answers a redelivered command with the same event, even after the index changed, and indexes nothing twice', async () => {
    const newProblem = textSignature('a train leaves at 9:40 and arrives at 13:05. how long is the journey?');
    const firstSearch = await search(newProblem);
    const missed = await replyTo(firstSearch);
    expect(missed.type).toBe(RetrievalMiss.subject);

    const indexCommand = await indexDocument('train', newProblem);
    const indexed = await replyTo(indexCommand);
    const textHit = await searchReply(newProblem);
    expect(textHit.data).toMatchObject({ candidate: { assetVersionId: assetVersion('train'), method: 'text_exact' } });
    // The deprecated v1 follows v2 with the same data under its own id, for subscribers that have not moved.
    const v1Copy = await waitFor(() => replies.find((r) => r.causationid === textHit.causationid && r.type === RetrievalHitV1.subject), 'the v1 copy');
    expect(v1Copy).toMatchObject({ id: deterministicUuid(textHit.causationid ?? '', RetrievalHitV1.subject), data: textHit.data });

    const rowBefore = await db.query('select doc_id, updated_at from retrieval.indexed_problems where asset_version_id = $1', [assetVersion('train')]);
    const vectorBefore = await db.query('select updated_at from retrieval.embedded_vectors where id = $1', [assetVersion('train')]);
    const events = { misses: await storedEventCount(RetrievalMiss.subject), indexed: await storedEventCount(DocumentIndexed.subject) };

    // The same envelopes again under new Nats-Msg-Ids, as a relay's re-send is: second deliveries.
    await publisher.publishEnvelope(firstSearch, { msgId: `${firstSearch.id}:redelivered` });
    await publisher.publishEnvelope(indexCommand, { msgId: `${indexCommand.id}:redelivered` });
    const [searchAgain, indexAgain] = [await replyTo(firstSearch, 2), await replyTo(indexCommand, 2)];

    // The search is answered as it was (a miss, same id), although the problem is now indexed.
    expect({ id: searchAgain.id, type: searchAgain.type, data: searchAgain.data }).toEqual({ id: missed.id, type: missed.type, data: missed.data });
    expect({ id: indexAgain.id, data: indexAgain.data }).toEqual({ id: indexed.id, data: indexed.data });
    expect(await db.query('select doc_id, updated_at from retrieval.indexed_problems where asset_version_id = $1', [assetVersion('train')])).toMatchObject({
      rows: rowBefore.rows,
    });
    expect((await db.query('select updated_at from retrieval.embedded_vectors where id = $1', [assetVersion('train')])).rows).toEqual(vectorBefore.rows);
    // JetStream dropped the re-published events as duplicates of the first.
    expect({ misses: await storedEventCount(RetrievalMiss.subject), indexed: await storedEventCount(DocumentIndexed.subject) }).toEqual(events);
  });

  it('rebuilds its in-memory pHash and vector indexes from PostgreSQL at start', async () => {
    await service.app.close();
    service = await start();
    const nearDuplicate = await searchReply(TANK_QUARTER_JPEG);
    expect(nearDuplicate.data).toMatchObject({ candidate: { assetVersionId: assetVersion('tank'), method: 'near_duplicate' } });
    const paraphrase = await searchReply(textSignature('a cyclist rides 45 km in 3 hours. find her average speed'));
    expect(paraphrase.data).toMatchObject({ candidate: { assetVersionId: assetVersion('speed'), method: 'vector' } });
  });
});
