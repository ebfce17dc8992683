import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  AssetVersionCreated,
  deterministicUuid,
  type Envelope,
  type MessageData,
  ProblemRegistered,
  type ProblemSignature,
  RegisterSolution,
  RenderVideo,
  VideoRendered,
  VideoRenderFailed,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv } from '@openpaw/providers';
import { freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { AssetsModule, SERVICE_NAME } from './app.module.js';
import { assetsSettingsFromEnv } from './config.js';

process.env['LOG_LEVEL'] ??= 'warn';

type AnyReply = Envelope<Record<string, unknown>>;

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

let counter = 0;
function uuid(label: string): string {
  counter += 1;
  return deterministicUuid('assets-int-spec', label, String(Date.now()), String(counter));
}

function signatureOf(text: string): ProblemSignature {
  return { normalizedText: text, textSha256: sha256(text), topicTags: { subject: 'algebra', keywords: ['equation'] } };
}

const provenance = { model: 'local/deterministic', promptVersion: 'solve-v1', inputTokens: 120, outputTokens: 80, costUsd: 0, latencyMs: 3 };

describe('assets service on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let blobDir: string;
  let blobs: BlobStore;
  let db: pg.Client;
  let videoWorkDir: string;
  const puts: string[] = [];
  const replies: AnyReply[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('assets_service');
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-assets-int-'));
    videoWorkDir = await mkdtemp(join(tmpdir(), 'openpaw-assets-video-'));
    const store = await createBlobStoreFromEnv({ OPENPAW_BLOB_DIR: blobDir });
    // The real local store, recording writes.
    blobs = new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (prop === 'put' && typeof value === 'function') {
          return (key: string, ...rest: unknown[]) => {
            puts.push(key);
            return (value as (...args: unknown[]) => unknown).apply(target, [key, ...rest]);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const settings = assetsSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl, OPENPAW_VIDEO_SECONDS_PER_FRAME: '2', OPENPAW_VIDEO_WORK_DIR: videoWorkDir });
    service = await startService({ name: SERVICE_NAME, module: AssetsModule.forRoot(settings, { blobs }), defaultPort: 0, port: 0 });

    nc = await connectNats({ servers: nats.url, name: 'assets-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.asset.>', {
      callback: (_error, msg) => {
        replies.push(msg.json<AnyReply>());
      },
    });
    await nc.flush();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await db?.end();
    await nc?.close();
    await service?.app.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
    await rm(videoWorkDir, { recursive: true, force: true });
  });

  /** What the solve service stores for an attempt: the HTML and its steps document beside it. */
  async function storeSolution(runId: string, problem: string): Promise<{ storageKey: string; contentSha256: string }> {
    const storageKey = `solutions/${runId}/1.html`;
    const html = `<!DOCTYPE html><html><body><p>${problem}</p></body></html>`;
    await blobs.put(`solutions/${runId}/1.steps.json`, JSON.stringify({
      format: 'openpaw.solution-steps.v1',
      problem,
      subject: 'algebra',
      steps: [
        { title: 'Subtract 3 from both sides', detail: '\\(2x = 4\\)' },
        { title: 'Divide both sides by 2', detail: 'x = 4 / 2 = 2' },
      ],
      finalAnswer: 'x = 2',
      model: 'local/deterministic',
      promptVersion: 'solve-v1',
    }), { contentType: 'application/json' });
    await blobs.put(storageKey, html, { contentType: 'text/html; charset=utf-8' });
    return { storageKey, contentSha256: sha256(html) };
  }

  async function register(runId: string, problem: string): Promise<Envelope<MessageData<typeof RegisterSolution>>> {
    const stored = await storeSolution(runId, problem);
    return publisher.publish(
      RegisterSolution,
      { runId, signature: signatureOf(problem), ...stored, provenance },
      { source: '/openpaw/coordinator', correlationId: runId, userId: 'user-7', subject: runId },
    );
  }

  function repliesTo(command: Envelope, count: number): Promise<AnyReply[]> {
    return waitFor(() => {
      const matching = replies.filter((r) => r.causationid === command.id);
      return matching.length >= count ? matching : undefined;
    }, `${count} replies to ${command.id}`);
  }

  function dataOf<T>(list: readonly AnyReply[], subject: string): T {
    const found = list.find((r) => r.type === subject);
    if (found === undefined) throw new Error(`no ${subject} in ${list.map((r) => r.type).join(', ')}`);
    return found.data as T;
  }

  async function versionsOf(problemId: string): Promise<{ asset_type: string; version: number; source_run_id: string }[]> {
    return (
      await db.query<{ asset_type: string; version: number; source_run_id: string }>(
        'select asset_type, version, source_run_id from assets.asset_versions where problem_id = $1 order by asset_type, version',
        [problemId],
      )
    ).rows;
  }

  const problem = '2x + 3 = 7';
  const runA = uuid('run-a');
  const runB = uuid('run-b');
  let commandA: Envelope<MessageData<typeof RegisterSolution>>;
  let solutionA: MessageData<typeof AssetVersionCreated>;

  it('registers two runs of one signature as one problem with solution versions 1 and 2', async () => {
    commandA = await register(runA, problem);
    const repliesA = await repliesTo(commandA, 2);
    const commandB = await register(runB, problem);
    const repliesB = await repliesTo(commandB, 2);

    expect(repliesA.map((r) => r.type)).toEqual([ProblemRegistered.subject, AssetVersionCreated.subject]);
    expect(repliesA[0]).toMatchObject({
      id: deterministicUuid(commandA.id, ProblemRegistered.subject),
      source: '/openpaw/assets',
      correlationid: runA,
      causationid: commandA.id,
      userid: 'user-7',
    });
    expect(repliesA[1]?.id).toBe(deterministicUuid(commandA.id, AssetVersionCreated.subject));

    const problemA = dataOf<MessageData<typeof ProblemRegistered>>(repliesA, ProblemRegistered.subject);
    const problemB = dataOf<MessageData<typeof ProblemRegistered>>(repliesB, ProblemRegistered.subject);
    expect(problemA).toMatchObject({ runId: runA, commandId: commandA.id, created: true });
    expect(problemB).toMatchObject({ runId: runB, problemId: problemA.problemId, created: false });

    solutionA = dataOf<MessageData<typeof AssetVersionCreated>>(repliesA, AssetVersionCreated.subject);
    const solutionB = dataOf<MessageData<typeof AssetVersionCreated>>(repliesB, AssetVersionCreated.subject);
    expect(solutionA).toMatchObject({
      problemId: problemA.problemId,
      assetType: 'solution_html',
      version: 1,
      storageKey: `solutions/${runA}/1.html`,
      contentType: 'text/html; charset=utf-8',
    });
    expect(solutionB).toMatchObject({ problemId: problemA.problemId, assetType: 'solution_html', version: 2, storageKey: `solutions/${runB}/1.html` });

    const problems = await db.query<{ id: string; signature_key: string; normalized_text: string; subject: string }>(
      'select id, signature_key, normalized_text, subject from assets.problems',
    );
    expect(problems.rows).toEqual([{ id: problemA.problemId, signature_key: `text:${sha256(problem)}`, normalized_text: problem, subject: 'algebra' }]);
    expect(await versionsOf(problemA.problemId)).toEqual([
      { asset_type: 'solution_html', version: 1, source_run_id: runA },
      { asset_type: 'solution_html', version: 2, source_run_id: runB },
    ]);
    const stored = await db.query<{ provenance: unknown; content_sha256: string }>('select provenance, content_sha256 from assets.asset_versions where id = $1', [
      solutionA.assetVersionId,
    ]);
    expect(stored.rows[0]).toEqual({ provenance, content_sha256: commandA.data.contentSha256 });
  });

  it('answers a redelivered registration with the same event ids and creates nothing', async () => {
    const before = replies.filter((r) => r.causationid === commandA.id);
    await publisher.publishEnvelope(commandA, { msgId: `${commandA.id}:redelivered` });
    const after = await repliesTo(commandA, 4);
    expect(after.slice(2).map((r) => [r.id, r.type, r.data])).toEqual(before.map((r) => [r.id, r.type, r.data]));
    expect(await versionsOf(solutionA.problemId)).toHaveLength(2);

    // Another command of the same run (say, a retry with a new command id): the run's version, nothing new.
    const retry = await publisher.publish(RegisterSolution, commandA.data, { source: '/openpaw/coordinator', correlationId: runA, subject: runA });
    const retried = await repliesTo(retry, 2);
    expect(dataOf<MessageData<typeof AssetVersionCreated>>(retried, AssetVersionCreated.subject)).toMatchObject({
      assetVersionId: solutionA.assetVersionId,
      version: 1,
      commandId: retry.id,
    });
    expect(dataOf<MessageData<typeof ProblemRegistered>>(retried, ProblemRegistered.subject)).toMatchObject({ created: true });
    expect(await versionsOf(solutionA.problemId)).toHaveLength(2);
  });

  it('numbers concurrent registrations of one problem 1..n without gaps or duplicates', async () => {
    const text = `3x - 1 = ${10 + counter}`;
    const runs = Array.from({ length: 6 }, (_, i) => uuid(`concurrent-${i}`));
    const commands = await Promise.all(runs.map((runId) => register(runId, text)));
    const all = await Promise.all(commands.map((c) => repliesTo(c, 2)));
    const versions = all.map((r) => dataOf<MessageData<typeof AssetVersionCreated>>(r, AssetVersionCreated.subject));
    expect(new Set(versions.map((v) => v.problemId)).size).toBe(1);
    expect(versions.map((v) => v.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(all.map((r) => dataOf<MessageData<typeof ProblemRegistered>>(r, ProblemRegistered.subject).created).filter(Boolean)).toHaveLength(1);
  });

  it('renders the solution video: an MP4 in blob storage and a video asset version of the solution', async () => {
    const videoRun = uuid('video-run');
    const command = await publisher.publish(
      RenderVideo,
      { runId: videoRun, problemId: solutionA.problemId, solutionAssetVersionId: solutionA.assetVersionId, mode: 'async' },
      { source: '/openpaw/coordinator', correlationId: videoRun, subject: videoRun },
    );
    const result = await repliesTo(command, 2);
    expect(result.map((r) => r.type)).toEqual([VideoRendered.subject, AssetVersionCreated.subject]);
    expect(result[0]?.id).toBe(deterministicUuid(command.id, VideoRendered.subject));

    const rendered = dataOf<MessageData<typeof VideoRendered>>(result, VideoRendered.subject);
    const created = dataOf<MessageData<typeof AssetVersionCreated>>(result, AssetVersionCreated.subject);
    const storageKey = `videos/${solutionA.assetVersionId}.mp4`;
    // Problem, two steps, final answer: 4 frames of 2 s.
    expect(rendered).toEqual({
      runId: videoRun,
      commandId: command.id,
      solutionAssetVersionId: solutionA.assetVersionId,
      videoAssetVersionId: created.assetVersionId,
      storageKey,
      durationMs: 8_000,
    });
    expect(created).toMatchObject({ problemId: solutionA.problemId, assetType: 'video', version: 1, storageKey, contentType: 'video/mp4' });

    const { info, body } = await blobs.get(storageKey);
    expect(info.contentType).toBe('video/mp4');
    expect(body.length).toBeGreaterThan(1_000);
    expect(body.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const row = await db.query<{ parent_asset_version_id: string; content_sha256: string; provenance: Record<string, unknown> }>(
      'select parent_asset_version_id, content_sha256, provenance from assets.asset_versions where id = $1',
      [created.assetVersionId],
    );
    expect(row.rows[0]).toMatchObject({
      parent_asset_version_id: solutionA.assetVersionId,
      content_sha256: sha256(body),
      provenance: { frameCount: 4, width: 1280, height: 720, durationMs: 8_000, encoder: expect.stringMatching(/^(libx264|mpeg4)$/) },
    });
    // The per-job temp directory is gone.
    expect(await readdir(videoWorkDir)).toEqual([]);

    // Redelivered: the same replies, no second render or write.
    const writes = puts.filter((k) => k === storageKey).length;
    await publisher.publishEnvelope(command, { msgId: `${command.id}:redelivered` });
    const again = await repliesTo(command, 4);
    expect(again.slice(2).map((r) => [r.id, r.data])).toEqual(result.map((r) => [r.id, r.data]));
    expect(puts.filter((k) => k === storageKey).length).toBe(writes);
    expect((await versionsOf(solutionA.problemId)).filter((v) => v.asset_type === 'video')).toEqual([
      { asset_type: 'video', version: 1, source_run_id: videoRun },
    ]);
  });

  it('answers VideoRenderFailed (not retryable) for a solution it does not know', async () => {
    const runId = uuid('video-missing');
    const missing = uuid('missing-solution');
    const command = await publisher.publish(
      RenderVideo,
      { runId, problemId: solutionA.problemId, solutionAssetVersionId: missing, mode: 'sync' },
      { source: '/openpaw/coordinator', correlationId: runId },
    );
    const [failed] = await repliesTo(command, 1);
    expect(failed).toMatchObject({
      id: deterministicUuid(command.id, VideoRenderFailed.subject),
      type: VideoRenderFailed.subject,
      data: { runId, solutionAssetVersionId: missing, retryable: false, detail: `no asset version ${missing}` },
    });
  });
});
