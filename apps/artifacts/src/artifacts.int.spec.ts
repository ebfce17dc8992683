import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  AddSource,
  AnswerChat,
  ArtifactGenerated,
  ArtifactJobProgress,
  ArtifactPlanned,
  ArtifactStepFailed,
  ArtifactValidated,
  type AnyMessageDefinition,
  CaptureSnapshot,
  ChatAnswered,
  deterministicUuid,
  type Envelope,
  GenerateArtifact,
  type MessageData,
  PlanArtifact,
  SnapshotCaptured,
  type SnapshotChunk,
  SourceIndexed,
  SourceRejected,
  STREAMS,
  ValidateArtifact,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, createLlmFromEnv, type LlmClient } from '@openpaw/providers';
import { counting, freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';
import { artifactsSettingsFromEnv } from './config.js';
import { minimalPdf } from './domain/test-support/minimal-pdf.js';

process.env['LOG_LEVEL'] ??= 'warn';

const USER = 'user-ada';
const PHOTOSYNTHESIS = [
  'Photosynthesis converts light energy into chemical energy stored in glucose. Chloroplasts are the organelles where photosynthesis happens in plant cells.',
  '',
  'Chlorophyll is the green pigment that absorbs red and blue light. The Calvin cycle uses carbon dioxide to build sugars in the stroma.',
].join('\n');
const CELLS = 'Mitochondria release energy from glucose through cellular respiration. Ribosomes assemble proteins from amino acids in every living cell.';

describe('artifacts service on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let blobDir: string;
  let blobs: BlobStore;
  let databaseUrl: string;
  let web: Server;
  let webUrl: string;
  let llmCalls: Record<string, number>;
  const events: Envelope[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    databaseUrl = await freshDatabase('artifacts_service');
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-artifacts-int-'));
    blobs = await createBlobStoreFromEnv({ OPENPAW_BLOB_DIR: blobDir });
    web = createServer((req, res) => {
      if (req.url === '/cells.html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<html><head><title>Cell biology</title></head><body><nav>Home</nav><p>${CELLS}</p><script>x()</script></body></html>`);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;

    const llm = counting<LlmClient>(createLlmFromEnv({}), ['structured', 'chat']);
    llmCalls = llm.calls;
    const settings = {
      ...artifactsSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl }),
      allowPrivateUrls: true,
      chunkMaxChars: 200,
    };
    service = await startService({ name: SERVICE_NAME, module: ArtifactsModule.forRoot(settings, { llm: llm.adapter, blobs }), defaultPort: 0, port: 0 });

    nc = await connectNats({ servers: nats.url, name: 'artifacts-int-spec' });
    jsm = await jetstreamManager(nc);
    await provisionStreams(jsm);
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.artifact.>', {
      callback: (_error, msg) => {
        events.push(msg.json<Envelope>());
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await new Promise((resolve) => web?.close(resolve));
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  async function send<D extends AnyMessageDefinition>(message: D, data: MessageData<D>, correlationId: string = randomUUID()): Promise<Envelope<MessageData<D>>> {
    return publisher.publish(message, data, { source: '/openpaw/test', correlationId, userId: USER });
  }

  function repliesTo(command: Envelope, count = 1): Promise<Envelope[]> {
    return waitFor(() => {
      const matching = events.filter((e) => e.causationid === command.id);
      return matching.length >= count ? matching : undefined;
    }, `${count} replies to ${command.type}`);
  }

  async function replyTo<D extends AnyMessageDefinition>(command: Envelope, message: D): Promise<Envelope<MessageData<D>>> {
    const replies = await repliesTo(command);
    const found = await waitFor(() => events.find((e) => e.causationid === command.id && e.type === message.subject), `${message.subject}`).catch(() => undefined);
    if (found === undefined) throw new Error(`expected ${message.subject}, got ${replies.map((r) => `${r.type} ${JSON.stringify(r.data)}`).join('; ')}`);
    return found as Envelope<MessageData<D>>;
  }

  async function addText(notebookId: string, text: string, sourceId: string = randomUUID()): Promise<MessageData<typeof SourceIndexed>> {
    const command = await send(AddSource, { sourceId, userId: USER, notebookId, content: { kind: 'text', text } });
    return (await replyTo(command, SourceIndexed)).data;
  }

  async function snapshotOf(notebookId: string, sourceIds: string[] = [], query = 'Create a quiz on photosynthesis'): Promise<Envelope> {
    const runId = randomUUID();
    const command = await send(CaptureSnapshot, { runId, userId: USER, notebookId, sourceIds: [...sourceIds].sort(), query, k: 5 }, runId);
    return (await repliesTo(command))[0]!;
  }

  it('indexes a text source: normalised, chunked with stable chunk ids, answered once per command', async () => {
    const sourceId = randomUUID();
    const command = await send(AddSource, { sourceId, userId: USER, notebookId: 'nb-text', content: { kind: 'text', text: `  ${PHOTOSYNTHESIS}\r\n` } });
    const indexed = await replyTo(command, SourceIndexed);
    expect(indexed).toMatchObject({ id: deterministicUuid(command.id, SourceIndexed.subject), source: '/openpaw/artifacts', causationid: command.id, userid: USER });
    expect(indexed.data).toMatchObject({ sourceId, notebookId: 'nb-text', kind: 'text', title: expect.stringMatching(/^Photosynthesis converts/), embeddingVersion: 'local/hashed-ngrams-384:chunker-v1' });
    expect(indexed.data.chunkIds.length).toBeGreaterThanOrEqual(2);

    // A redelivery republishes the stored answer: same id.
    await publisher.publishEnvelope(command, { msgId: `${command.id}:again` });
    const [, again] = await repliesTo(command, 2);
    expect(again?.id).toBe(indexed.id);

    // Indexing the same content again (a new command) keeps every chunk id.
    const reindexed = await addText('nb-text', PHOTOSYNTHESIS, sourceId);
    expect(reindexed.chunkIds).toEqual(indexed.data.chunkIds);
    expect(reindexed.contentSha256).toBe(indexed.data.contentSha256);
  });

  it('indexes a URL (HTML, title from the page) and an uploaded PDF; rejects what has no text', async () => {
    const url = await send(AddSource, { sourceId: randomUUID(), userId: USER, notebookId: 'nb-docs', content: { kind: 'url', url: `${webUrl}/cells.html` } });
    expect((await replyTo(url, SourceIndexed)).data).toMatchObject({ kind: 'url', title: 'Cell biology' });

    const pdf = minimalPdf(['Ribosomes assemble proteins from amino acids.', 'The nucleus stores genetic information as DNA.'], { compress: true });
    await blobs.put('uploads/test/cells.pdf', pdf, { contentType: 'application/pdf' });
    const file = await send(AddSource, {
      sourceId: randomUUID(),
      userId: USER,
      notebookId: 'nb-docs',
      content: { kind: 'file', blobKey: 'uploads/test/cells.pdf', contentType: 'application/pdf', filename: 'cells.pdf', byteLength: pdf.length },
    });
    expect((await replyTo(file, SourceIndexed)).data).toMatchObject({ kind: 'file', title: 'Ribosomes assemble proteins from amino acids.' });

    const missing = await send(AddSource, { sourceId: randomUUID(), userId: USER, notebookId: 'nb-docs', content: { kind: 'url', url: `${webUrl}/nope` } });
    expect((await replyTo(missing, SourceRejected)).data).toMatchObject({ reason: 'fetch_failed', detail: expect.stringContaining('HTTP 404') });
    const blank = await send(AddSource, { sourceId: randomUUID(), userId: USER, notebookId: 'nb-docs', content: { kind: 'text', text: ' \n\t ' } });
    expect((await replyTo(blank, SourceRejected)).data).toMatchObject({ reason: 'empty' });
    await blobs.put('uploads/test/photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), { contentType: 'image/png' });
    const image = await send(AddSource, {
      sourceId: randomUUID(),
      userId: USER,
      notebookId: 'nb-docs',
      content: { kind: 'file', blobKey: 'uploads/test/photo.png', contentType: 'image/png', byteLength: 8 },
    });
    expect((await replyTo(image, SourceRejected)).data).toMatchObject({ reason: 'unsupported_type' });
  });

  it("refuses to touch another notebook's source with the same id", async () => {
    const indexed = await addText('nb-owner', CELLS);
    const command = await send(AddSource, { sourceId: indexed.sourceId, userId: USER, notebookId: 'nb-other', content: { kind: 'text', text: PHOTOSYNTHESIS } });
    expect((await replyTo(command, SourceRejected)).data).toMatchObject({ reason: 'not_found' });
  });

  it('captures a snapshot: the top chunks of the notebook (or of the given sources), null without sources, a failure for unknown ones', async () => {
    const photosynthesis = await addText('nb-snap', PHOTOSYNTHESIS);
    const cells = await addText('nb-snap', CELLS);

    const all = await snapshotOf('nb-snap');
    expect(all.type).toBe(SnapshotCaptured.subject);
    const snapshot = (all.data as MessageData<typeof SnapshotCaptured>).snapshot!;
    expect(snapshot.source_ids).toEqual([photosynthesis.sourceId, cells.sourceId].sort());
    expect(snapshot.embedding_version).toBe('local/hashed-ngrams-384:chunker-v1');
    expect(snapshot.chunks.length).toBe(photosynthesis.chunkIds.length + cells.chunkIds.length);
    // Ranked for the request: a photosynthesis chunk first.
    expect(photosynthesis.chunkIds).toContain(snapshot.chunks[0]?.chunk_id);
    expect(Date.parse(snapshot.captured_at)).toBeGreaterThan(Date.now() - 60_000);

    const only = (await snapshotOf('nb-snap', [cells.sourceId])).data as MessageData<typeof SnapshotCaptured>;
    expect(only.snapshot?.chunks.map((c) => c.chunk_id)).toEqual(cells.chunkIds);
    expect(only.snapshot?.source_ids).toEqual([cells.sourceId]);

    expect(((await snapshotOf('nb-empty')).data as MessageData<typeof SnapshotCaptured>).snapshot).toBeNull();
    const unknown = await snapshotOf('nb-snap', [randomUUID()]);
    expect(unknown.type).toBe(ArtifactStepFailed.subject);
    expect(unknown.data).toMatchObject({ step: 'snapshot', errorCode: 'unknown_sources' });
  });

  it('captures a deferred snapshot as of the request (asOf): a source indexed after it is left out; a message without asOf sees it', async () => {
    const before = await addText('nb-deferred', PHOTOSYNTHESIS);
    const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
    await pause();
    const requestedAt = new Date().toISOString();
    await pause();
    const after = await addText('nb-deferred', CELLS);

    const capture = async (sourceIds: string[], asOf?: string): Promise<Envelope> => {
      const runId = randomUUID();
      const command = await send(CaptureSnapshot, { runId, userId: USER, notebookId: 'nb-deferred', sourceIds, query: 'Create a quiz on cells', k: 5, ...(asOf === undefined ? {} : { asOf }) }, runId);
      return (await repliesTo(command))[0]!;
    };
    const deferred = (await capture([], requestedAt)).data as MessageData<typeof SnapshotCaptured>;
    expect(deferred.snapshot?.source_ids).toEqual([before.sourceId]);
    expect(deferred.snapshot?.chunks.map((c) => c.chunk_id).sort()).toEqual([...before.chunkIds].sort());
    expect(deferred.snapshot?.captured_at).toBe(requestedAt);
    // A source named by the request that did not exist then is unknown, as it was at the request.
    const named = await capture([after.sourceId], requestedAt);
    expect(named.type).toBe(ArtifactStepFailed.subject);
    expect(named.data).toMatchObject({ step: 'snapshot', errorCode: 'unknown_sources' });
    // A request before the notebook had any source: no snapshot, as at creation.
    expect(((await capture([], new Date(Date.parse(requestedAt) - 3_600_000).toISOString())).data as MessageData<typeof SnapshotCaptured>).snapshot).toBeNull();

    // An older message, without asOf: the notebook as it is now (as before asOf existed).
    const now = (await capture([])).data as MessageData<typeof SnapshotCaptured>;
    expect(now.snapshot?.source_ids).toEqual([before.sourceId, after.sourceId].sort());
    expect(now.snapshot?.chunks.length).toBe(before.chunkIds.length + after.chunkIds.length);
  });

  it('compares asOf to created_at to the microsecond (both PostgreSQL’s clock): a chunk indexed in the same millisecond before the request is kept', async () => {
    const indexed = await addText('nb-microseconds', PHOTOSYNTHESIS);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    let indexedAt: string;
    try {
      // The latest chunk's created_at as the gateway reads PostgreSQL's clock (DatabaseClock): ISO, microseconds.
      const rows = await db.query<{ at: string }>(
        `select to_char(max(created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from artifacts.chunks where source_id = $1`,
        [indexed.sourceId],
      );
      indexedAt = rows.rows[0]!.at;
    } finally {
      await db.end();
    }
    const runId = randomUUID();
    const command = await send(CaptureSnapshot, { runId, userId: USER, notebookId: 'nb-microseconds', sourceIds: [], query: 'Create a quiz on photosynthesis', k: 5, asOf: indexedAt }, runId);
    const captured = (await repliesTo(command))[0]!.data as MessageData<typeof SnapshotCaptured>;
    // A request at that very microsecond holds every chunk (a millisecond Date would drop those of its last millisecond).
    expect(captured.snapshot?.chunks.map((c) => c.chunk_id).sort()).toEqual([...indexed.chunkIds].sort());
    expect(captured.snapshot?.captured_at).toBe(indexedAt);
  });

  it('replaces a source: new chunk ids, the old chunks gone from later snapshots', async () => {
    const first = await addText('nb-replace', PHOTOSYNTHESIS);
    const before = (await snapshotOf('nb-replace')).data as MessageData<typeof SnapshotCaptured>;
    const second = await addText('nb-replace', CELLS, first.sourceId);
    expect(second.chunkIds.some((id) => first.chunkIds.includes(id))).toBe(false);
    const after = (await snapshotOf('nb-replace')).data as MessageData<typeof SnapshotCaptured>;
    expect(after.snapshot?.chunks.map((c) => c.chunk_id)).toEqual(second.chunkIds);
    // The earlier snapshot is a value: it still holds the old text.
    expect(before.snapshot?.chunks.map((c) => c.text).join(' ')).toContain('Photosynthesis');

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ chunk_id: string }>('select chunk_id from artifacts.chunks where source_id = $1 order by ordinal', [first.sourceId]);
      expect(rows.rows.map((r) => r.chunk_id)).toEqual(second.chunkIds);
    } finally {
      await db.end();
    }
  });

  it('plans (one LLM call, none on redelivery), reuses a stored plan without the LLM, generates and validates a cited quiz', async () => {
    const indexed = await addText('nb-job', PHOTOSYNTHESIS);
    const snapshot = ((await snapshotOf('nb-job')).data as MessageData<typeof SnapshotCaptured>).snapshot!;
    const runId = randomUUID();
    const common = { runId, artifactType: 'quiz' as const, content: 'Create a quiz on photosynthesis', options: { num_questions: 3, difficulty: 'medium' as const }, chunks: snapshot.chunks };

    const calls = llmCalls['structured'] ?? 0;
    const plan = await send(PlanArtifact, { ...common, storedPlan: null }, runId);
    const planned = await replyTo(plan, ArtifactPlanned);
    expect(planned.data).toMatchObject({ runId, commandId: plan.id, reused: false, chunksLoaded: snapshot.chunks.length, plan: { model: 'local/deterministic' } });
    expect(llmCalls['structured']).toBe(calls + 1);
    await publisher.publishEnvelope(plan, { msgId: `${plan.id}:again` });
    await repliesTo(plan, 2);
    expect(llmCalls['structured']).toBe(calls + 1);

    const replan = await send(PlanArtifact, { ...common, storedPlan: planned.data.plan }, runId);
    expect((await replyTo(replan, ArtifactPlanned)).data).toMatchObject({ reused: true, plan: planned.data.plan });
    expect(llmCalls['structured']).toBe(calls + 1);

    const generate = await send(GenerateArtifact, { ...common, plan: planned.data.plan, generation: 1, previousError: null }, runId);
    const generated = await replyTo(generate, ArtifactGenerated);
    expect(generated.data.itemCount).toBe(3);
    const result = generated.data.result as { questions: { chunk_ids: string[]; options: string[]; correct_answer: string }[] };
    for (const question of result.questions) {
      expect(question.options).toHaveLength(4);
      expect(question.options).toContain(question.correct_answer);
      expect(question.chunk_ids.length).toBeGreaterThan(0);
      for (const id of question.chunk_ids) expect(indexed.chunkIds).toContain(id);
    }

    const validate = await send(ValidateArtifact, { runId, artifactType: 'quiz', options: common.options, generation: 1, result: generated.data.result, chunks: snapshot.chunks }, runId);
    const [progress, validated] = await repliesTo(validate, 2);
    expect(progress).toMatchObject({ type: ArtifactJobProgress.subject, data: { phase: 'validating', progress: 90, detail: 'Checking structure' } });
    expect(validated).toMatchObject({ type: ArtifactValidated.subject, data: { valid: true, error: null, errors: [] } });
  });

  it('rejects in validation an artifact that breaks the quiz rules, naming every problem', async () => {
    const chunks: SnapshotChunk[] = [{ chunk_id: 'chk_x', source_id: randomUUID(), text: 'Cells divide by mitosis.' }];
    const result = { questions: [{ question: 'Q?', options: ['a', 'a', 'c', 'd'], correct_answer: 'b', explanation: 'e', chunk_ids: ['chk_y'] }] };
    const runId = randomUUID();
    const command = await send(ValidateArtifact, { runId, artifactType: 'quiz', options: { num_questions: 1 }, generation: 1, result, chunks }, runId);
    expect((await replyTo(command, ArtifactValidated)).data).toMatchObject({
      valid: false,
      error: 'question 1: the options are not unique',
      errors: ['question 1: the options are not unique', 'question 1: correct_answer is not among the options', 'question 1: cites chunks outside the snapshot (chk_y)'],
    });
  });

  it('answers a chat message from the notebook, citing the chunks it used', async () => {
    const indexed = await addText('nb-chat', CELLS);
    const command = await send(AnswerChat, { userId: USER, notebookId: 'nb-chat', message: 'What do ribosomes do?', sourceIds: [] });
    const answered = await replyTo(command, ChatAnswered);
    expect(answered.data.model).toBe('local/deterministic');
    expect(answered.data.answer).toContain('Ribosomes assemble proteins');
    expect(answered.data.citations).toEqual(indexed.chunkIds.map((id) => ({ chunk_id: id, source_id: indexed.sourceId })));
    const stored = await jsm.streams.info(STREAMS.events.name, { subjects_filter: ChatAnswered.subject });
    expect(stored.state.subjects?.[ChatAnswered.subject]).toBe(1);
  });
});
