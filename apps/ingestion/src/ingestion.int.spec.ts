import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import {
  deterministicUuid,
  type Envelope,
  MediaNormalized,
  MediaRejected,
  type MessageData,
  NormalizeMedia,
  STREAMS,
  type Submission,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv } from '@openpaw/providers';
import { counting, freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import sharp from 'sharp';
import { IngestionModule, SERVICE_NAME } from './app.module.js';
import { ingestionSettingsFromEnv } from './config.js';
import { degrade } from './domain/test-support/degrade.js';
import { renderPowersLine, renderTextImage } from './domain/test-support/render-text.js';

process.env['LOG_LEVEL'] ??= 'warn';

type Normalized = Envelope<MessageData<typeof MediaNormalized>>;
type Rejected = Envelope<MessageData<typeof MediaRejected>>;
type Reply = Normalized | Rejected;

const hamming = (a: string, b: string): number => (BigInt(`0x${a}`) ^ BigInt(`0x${b}`)).toString(2).replace(/0/g, '').length;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const USER = 'user-42';
const LIMIT = 1_000_000;
const PROBLEM_LINES = ['A rectangle has a length of 12 cm', 'and a width of 5 cm. Find its area.'];
const PROBLEM_TEXT = 'a rectangle has a length of 12 cm and a width of 5 cm. find its area';

describe('ingestion service on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let blobDir: string;
  let databaseUrl: string;
  let blobs: BlobStore;
  let blobCalls: Record<string, number>;
  let pages: Server;
  let pageBase: string;
  const pageRequests: string[] = [];
  let problemPng: Buffer;
  const replies: Reply[] = [];

  beforeAll(async () => {
    problemPng = await renderTextImage(PROBLEM_LINES);
    // A local web server with problem pages: reachable only because the test-only loopback switch is on.
    pages = createServer((req, res) => {
      pageRequests.push(req.url ?? '');
      switch (req.url) {
        case '/problem.png':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end(problemPng);
          return;
        case '/problem.txt':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('Find the derivative of f(x) = x³');
          return;
        case '/problem.html':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end('<html><head><title>HW</title><script>var a = 1;</script></head><body><h1>Problem 2</h1><p>Solve for x: 3x &minus; 7 = 11</p></body></html>');
          return;
        case '/data.json':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"problem": "2 + 2"}');
          return;
        case '/huge.png':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end(Buffer.alloc(LIMIT + 1, 7));
          return;
        case '/to-metadata':
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
          res.end();
          return;
        default:
          res.writeHead(404);
          res.end();
      }
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageBase = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;

    nats = await privateNatsServer();
    databaseUrl = await freshDatabase('ingestion_service');
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-ingestion-int-'));
    const store = counting<BlobStore>(await createBlobStoreFromEnv({ OPENPAW_BLOB_DIR: blobDir }), ['get', 'put']);
    blobs = store.adapter;
    blobCalls = store.calls;

    const fromEnv = ingestionSettingsFromEnv({
      OPENPAW_NATS_URL: nats.url,
      OPENPAW_DATABASE_URL: databaseUrl,
      OPENPAW_INGESTION_POOL_SIZE: '2',
      OPENPAW_INGESTION_CONCURRENCY: '2',
      OPENPAW_INGESTION_MAX_UPLOAD_BYTES: String(LIMIT),
      OPENPAW_INGESTION_FETCH_MAX_BYTES: String(LIMIT),
    });
    // Lets safe fetching reach the page server above on 127.0.0.1 (and nothing else non-public); no variable can.
    const settings = { ...fromEnv, fetch: { ...fromEnv.fetch, allowAddressClasses: ['loopback' as const] } };
    service = await startService({ name: SERVICE_NAME, module: IngestionModule.forRoot(settings, { blobs }), defaultPort: 0, port: 0 });

    nc = await connectNats({ servers: nats.url, name: 'ingestion-int-spec' });
    jsm = await jetstreamManager(nc);
    await provisionStreams(jsm);
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.ingestion.>', { callback: (_error, msg) => void replies.push(msg.json<Reply>()) });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await nats?.dispose();
    await new Promise<void>((resolve) => (pages === undefined ? resolve() : pages.close(() => resolve())));
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  let runCounter = 0;
  async function send(submission: Submission): Promise<Envelope<MessageData<typeof NormalizeMedia>>> {
    runCounter += 1;
    const runId = deterministicUuid('ingestion-int-spec', String(Date.now()), String(runCounter));
    return publisher.publish(NormalizeMedia, { runId, submission }, { source: '/openpaw/coordinator', correlationId: runId, userId: USER, subject: runId });
  }

  function replyTo(command: Envelope, count = 1): Promise<Reply> {
    return waitFor(() => {
      const matching = replies.filter((r) => r.causationid === command.id);
      return matching.length >= count ? matching[count - 1] : undefined;
    }, `reply ${count} to ${command.id}`);
  }

  async function normalized(command: Envelope): Promise<MessageData<typeof MediaNormalized>> {
    const reply = await replyTo(command);
    if (reply.type !== MediaNormalized.subject) throw new Error(`expected MediaNormalized, got ${JSON.stringify(reply.data)}`);
    return (reply as Normalized).data;
  }

  async function upload(bytes: Buffer): Promise<Submission> {
    const blobKey = `uploads/${USER}/${sha256(bytes)}`;
    await blobs.put(blobKey, bytes, { contentType: 'application/octet-stream' });
    return { kind: 'upload', blobKey, byteLength: bytes.length, contentType: 'image/png' };
  }

  async function storedEventCount(subject: string): Promise<number> {
    const info = await jsm.streams.info(STREAMS.events.name, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  it('normalises an uploaded PNG: OCR text, hashes, pHash, quality, tags, the normalised image in blob storage', async () => {
    const command = await send(await upload(problemPng));
    const reply = await replyTo(command);
    expect(reply).toMatchObject({
      id: deterministicUuid(command.id, MediaNormalized.subject),
      type: MediaNormalized.subject,
      source: '/openpaw/ingestion',
      correlationid: command.correlationid,
      causationid: command.id,
      userid: USER,
    });
    const data = (reply as Normalized).data;
    expect(data).toMatchObject({ runId: command.data.runId, commandId: command.id, mediaType: 'image' });
    const { signature } = data;
    expect(signature).toMatchObject({ normalizedText: PROBLEM_TEXT, topicTags: { subject: 'geometry' } });
    expect(signature.textSha256).toBe(sha256(Buffer.from(PROBLEM_TEXT, 'utf8')));
    expect(signature.imageSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(signature.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(signature.phashVersion).toMatch(/^dct64/);
    expect(signature.imageQuality).toBeGreaterThanOrEqual(90);
    expect(signature.ocrConfidence).toBeGreaterThan(60);

    expect(data.normalizedMediaKey).toBe(`normalized/${signature.imageSha256}.png`);
    const stored = await blobs.get(data.normalizedMediaKey ?? '');
    expect(stored.info.contentType).toBe('image/png');
    expect(await sharp(stored.body).metadata()).toMatchObject({ format: 'png', width: 900 });
  });

  it('gives a JPEG-compressed half-size copy the same text and a pHash under 8 bits away', async () => {
    const original = await normalized(await send(await upload(problemPng)));
    const copyBytes = await degrade.jpeg(await degrade.half(problemPng), 40);
    const copy = await normalized(await send(await upload(copyBytes)));
    expect(copy.signature.normalizedText).toBe(original.signature.normalizedText);
    expect(copy.signature.imageSha256).not.toBe(original.signature.imageSha256);
    expect(hamming(copy.signature.phash ?? '', original.signature.phash ?? '')).toBeLessThan(8);
  });

  it('normalises a typed text: NFKC, case and maths folding, its hash, topic and maths signature; no image fields', async () => {
    const command = await send({ kind: 'text', text: 'Find the  DERIVATIVE of f(x) = x³' });
    const data = await normalized(command);
    expect(data).toEqual({
      runId: command.data.runId,
      commandId: command.id,
      mediaType: 'text',
      signature: {
        normalizedText: 'find the derivative of f(x)=x^3',
        textSha256: sha256(Buffer.from('find the derivative of f(x)=x^3', 'utf8')),
        topicTags: { subject: 'calculus', keywords: expect.arrayContaining(['derivative']) },
        maths: {
          version: 'maths-sig/v11',
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
          canonical: '(= (^ v0 3) (f v0))',
          intent: 'differentiate',
          numbers: ['3'],
          unknowns: ['x'],
          confidence: 1,
        },
      },
    });
  });

  it('fetches URLs safely: plain text, an HTML page read as text, an image', async () => {
    const text = await normalized(await send({ kind: 'url', url: `${pageBase}/problem.txt` }));
    expect(text).toMatchObject({ mediaType: 'text', signature: { normalizedText: 'find the derivative of f(x)=x^3' } });
    const html = await normalized(await send({ kind: 'url', url: `${pageBase}/problem.html` }));
    expect(html).toMatchObject({ mediaType: 'text', signature: { normalizedText: 'problem 2 solve for x: 3x-7=11', topicTags: { subject: 'algebra' } } });
    const image = await normalized(await send({ kind: 'url', url: `${pageBase}/problem.png` }));
    const uploaded = await normalized(await send(await upload(problemPng)));
    expect(image).toMatchObject({ mediaType: 'image', signature: { normalizedText: PROBLEM_TEXT, imageSha256: uploaded.signature.imageSha256 } });
  });

  it('rejects every input it cannot ingest with its reason code', async () => {
    const blank = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } }).png().toBuffer();
    const brokenPng = Buffer.concat([problemPng.subarray(0, 8), Buffer.alloc(64, 7)]);
    const cases: readonly (readonly [string, Submission, MessageData<typeof MediaRejected>['reason']])[] = [
      ['whitespace text', { kind: 'text', text: '   \u200b ' }, 'empty'],
      ['blank image', await upload(blank), 'empty'],
      ['GIF upload', await upload(Buffer.from('GIF89a\u0001\u0000\u0001\u0000')), 'unsupported_type'],
      ['PNG header and garbage', await upload(brokenPng), 'unreadable'],
      ['upload over the limit', await upload(Buffer.alloc(LIMIT + 1, 1)), 'too_large'],
      ['upload declared over the limit', { kind: 'upload', blobKey: `uploads/${USER}/x`, byteLength: LIMIT * 10 }, 'too_large'],
      ['upload not in blob storage', { kind: 'upload', blobKey: `uploads/${USER}/${'0'.repeat(64)}`, byteLength: 10 }, 'fetch_failed'],
      ['blob outside uploads/', { kind: 'upload', blobKey: 'normalized/secret.png', byteLength: 10 }, 'fetch_failed'],
      ['cloud metadata address', { kind: 'url', url: 'http://169.254.169.254/latest/meta-data/' }, 'unsafe_url'],
      ['private address', { kind: 'url', url: 'http://10.0.0.1/problem.png' }, 'unsafe_url'],
      ['redirect to metadata', { kind: 'url', url: `${pageBase}/to-metadata` }, 'unsafe_url'],
      ['JSON page', { kind: 'url', url: `${pageBase}/data.json` }, 'unsupported_type'],
      ['page over the limit', { kind: 'url', url: `${pageBase}/huge.png` }, 'too_large'],
      ['page not found', { kind: 'url', url: `${pageBase}/missing.png` }, 'fetch_failed'],
    ];
    const commands = await Promise.all(cases.map(([, submission]) => send(submission)));
    const got = await Promise.all(commands.map((command) => replyTo(command)));
    const outcomes = got.map((reply, i) => ({ case: cases[i]?.[0], type: reply.type, reason: (reply.data as { reason?: string }).reason }));
    expect(outcomes).toEqual(cases.map(([name, , reason]) => ({ case: name, type: MediaRejected.subject, reason })));
    for (const [i, reply] of got.entries()) {
      const command = commands[i];
      expect(reply.id).toBe(deterministicUuid(command?.id ?? '', MediaRejected.subject));
      expect(reply.data).toMatchObject({ runId: command?.data.runId, commandId: command?.id, detail: expect.any(String) });
    }
  });

  it('reads printed maths into its signature with per-token confidence (exponents too), and refuses a low-confidence reading', async () => {
    const clean = await normalized(await send(await upload(await renderTextImage(['Solve 5y + 2 = 17.']))));
    expect(clean.signature.maths).toMatchObject({ canonical: '(= (+ (* 5 v0) 2) 17)', intent: 'solve', numbers: ['17', '2', '5'] });
    expect(clean.signature.maths?.tokens?.map((t) => t.text)).toEqual(expect.arrayContaining(['+', '2', '=']));
    expect(clean.signature.maths?.confidence).toBeGreaterThanOrEqual(0.9);

    // Printed exponents (raised and smaller) are placed by their ink: 2^10 + 3^5, not 210 + 35.
    const powers = await normalized(await send(await upload(await renderPowersLine('Evaluate 2^10 + 3^5 and show your working.', { fontSize: 44 }))));
    expect(powers.signature.maths).toMatchObject({ canonical: '(+ (^ 2 10) (^ 3 5))', intent: 'evaluate' });
    // At 32 px the exponent's "0" (21 px) is read at 0.71 with "o" beside it at 0.07, so the first
    // reading is refused; the page read again at twice the scale reads the same maths sure, and stands.
    const smallPowers = await normalized(await send(await upload(await renderPowersLine('Evaluate 2^10 + 3^5 and show your working.'))));
    expect(smallPowers.signature.maths).toMatchObject({ canonical: '(+ (^ 2 10) (^ 3 5))', intent: 'evaluate' });

    // The same equation at a quarter size in a JPEG at quality 30: its operator and numbers are read
    // unsure (under 0.9), so the run is refused with the reason instead of solving a guess.
    const { width = 0 } = await sharp(await renderTextImage(['Solve 5y + 2 = 17.'])).metadata();
    const blurred = await sharp(await renderTextImage(['Solve 5y + 2 = 17.'])).resize({ width: Math.round(width * 0.25) }).jpeg({ quality: 30 }).toBuffer();
    const command = await send(await upload(blurred));
    const reply = await replyTo(command);
    expect(reply).toMatchObject({
      type: MediaRejected.subject,
      id: deterministicUuid(command.id, MediaRejected.subject),
      data: { reason: 'unreadable', detail: expect.stringMatching(/maths in the image cannot be read reliably .*read unsure: /) },
    });
  });

  it('answers a redelivered command with the same event, without reading, fetching or writing again', async () => {
    const uploadCommand = await send(await upload(problemPng));
    const urlCommand = await send({ kind: 'url', url: `${pageBase}/problem.txt` });
    const first = [await replyTo(uploadCommand), await replyTo(urlCommand)];
    const before = { gets: blobCalls['get'], puts: blobCalls['put'], pages: pageRequests.length, events: await storedEventCount(MediaNormalized.subject) };

    // The same envelopes again under new Nats-Msg-Ids, as a relay's re-send is: second deliveries.
    await publisher.publishEnvelope(uploadCommand, { msgId: `${uploadCommand.id}:redelivered` });
    await publisher.publishEnvelope(urlCommand, { msgId: `${urlCommand.id}:redelivered` });
    const second = [await replyTo(uploadCommand, 2), await replyTo(urlCommand, 2)];

    expect(second.map((r) => r.id)).toEqual(first.map((r) => r.id));
    expect(second.map((r) => r.data)).toEqual(first.map((r) => r.data));
    const after = { gets: blobCalls['get'], puts: blobCalls['put'], pages: pageRequests.length, events: await storedEventCount(MediaNormalized.subject) };
    // No second read of the upload, no second fetch, and JetStream dropped the re-published events.
    expect(after).toEqual(before);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = await db.query<{ command_id: string; subject: string }>(
        "select command_id, replies->0->>'subject' as subject from ingestion.command_replies where command_id = any($1) order by command_id",
        [[uploadCommand.id, urlCommand.id]],
      );
      expect(rows.rows).toHaveLength(2);
      expect(rows.rows.every((r) => r.subject === MediaNormalized.subject)).toBe(true);
    } finally {
      await db.end();
    }
  });
});
