import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { connectNats } from './connection.js';
import { PubAcks, PublishRefusedError, PublishTimeoutError } from './pub-acks.js';
import { type ManagedProcess, startConfiguredNatsServer } from '@openpaw/testing';
import { privateNatsServer, startBroker, type Broker } from './testing/int-test-kit.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const withMsgId = (id: string): ReturnType<typeof headers> => {
  const h = headers();
  h.set('Nats-Msg-Id', id);
  return h;
};

describe('PubAcks: JetStream publishes answered on one inbox (real nats-server)', () => {
  let broker: Broker;
  let acks: PubAcks;

  beforeAll(async () => {
    broker = await startBroker();
    await broker.jsm.streams.add({ name: 'PUBACKS', subjects: ['pubacks.>'], storage: StorageType.Memory, retention: RetentionPolicy.Limits, duplicate_window: 60_000_000_000 });
    await broker.jsm.streams.add({
      name: 'PUBACKS_FULL',
      subjects: ['full.>'],
      storage: StorageType.Memory,
      max_msgs: 1,
      discard: DiscardPolicy.New,
    });
    acks = new PubAcks(broker.nc, 1_000);
  });

  afterAll(async () => {
    acks.close();
    await broker.dispose();
  });

  it('resolves with the stream and sequence, and marks a re-publish of the same msgId inside the window as a duplicate', async () => {
    const first = await acks.publish('pubacks.a', bytes('1'), withMsgId('m-1'));
    const second = await acks.publish('pubacks.a', bytes('2'), withMsgId('m-2'));
    const again = await acks.publish('pubacks.a', bytes('1'), withMsgId('m-1'));
    expect(first).toEqual({ stream: 'PUBACKS', seq: expect.any(Number) as number, duplicate: false });
    expect(second.seq).toBe(first.seq + 1);
    expect(again).toEqual({ stream: 'PUBACKS', seq: first.seq, duplicate: true });
    expect((await broker.jsm.streams.info('PUBACKS')).state.messages).toBe(2);
  });

  it('matches each answer to its publish when many are in flight at once', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => acks.publish(`pubacks.many.${i}`, bytes(String(i)), withMsgId(`many-${i}`))));
    const bySeq = new Map<number, number>();
    for (const [i, ack] of answers.entries()) bySeq.set(ack.seq, i);
    expect(bySeq.size).toBe(200);
    for (const [i, ack] of answers.entries()) {
      const stored = await broker.jsm.streams.getMessage('PUBACKS', { seq: ack.seq });
      expect(new TextDecoder().decode(stored?.data)).toBe(String(i));
    }
  });

  it('refuses, naming the subject, a publish no stream takes (the 503 no-responders status)', async () => {
    await expect(acks.publish('nostream.here', bytes('x'), withMsgId('n-1'))).rejects.toThrow(PublishRefusedError);
    await expect(acks.publish('nostream.here', bytes('x'), withMsgId('n-2'))).rejects.toThrow(/nostream\.here: no stream takes this subject/);
  });

  it("refuses with the server's reason a publish the stream rejects (full, discard new)", async () => {
    await acks.publish('full.a', bytes('1'), withMsgId('f-1'));
    await expect(acks.publish('full.a', bytes('2'), withMsgId('f-2'))).rejects.toThrow(/full\.a: refused \(503\/10077\): maximum messages exceeded/);
  });

  it('fails with a timeout when nothing answers (a plain subscriber that never replies), and ignores a late answer', async () => {
    const silent = broker.nc.subscribe('silent.subject');
    const started = Date.now();
    await expect(acks.publish('silent.subject', bytes('x'), withMsgId('s-1'), 300)).rejects.toThrow(PublishTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
    silent.unsubscribe();
    // The publisher still works after a timeout.
    expect((await acks.publish('pubacks.after', bytes('y'), withMsgId('s-2'))).duplicate).toBe(false);
  });

  it('fails what waits at once when its connection closes, instead of waiting for the timeout', async () => {
    const server = await privateNatsServer();
    const nc = await connectNats({ servers: server.url, name: 'pub-acks-close' });
    const closing = new PubAcks(nc, 30_000);
    nc.subscribe('never.answers');
    const waiting = closing.publish('never.answers', bytes('x'), withMsgId('c-1'));
    const started = Date.now();
    await nc.close();
    await expect(waiting).rejects.toThrow(PublishTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await server.dispose();
  });
});

describe("PubAcks on a connection whose user may not publish a subject (real nats-server's permissions)", () => {
  let server: ManagedProcess;
  let dir: string;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-pubacks-perms-'));
    const conf = join(dir, 'nats.conf');
    // Ready on its own "Server is ready" line, on another port if one was taken meanwhile (libs/testing).
    const started = await startConfiguredNatsServer((port) => {
      writeFileSync(
        conf,
        [
        `listen: 127.0.0.1:${port}`,
        `jetstream { store_dir: "${join(dir, 'js')}" }`,
        'authorization { users = [',
        '  { user: owner, password: owner }',
        '  { user: sender, password: sender, permissions: { publish: { allow: ["allowed.>", "_INBOX.>", "$JS.API.>"] }, subscribe: { allow: ">" } } }',
        '] }',
        '',
      ].join('\n'),
      );
      return conf;
    });
    server = started.proc;
    url = `nats://127.0.0.1:${started.port}`;
    const owner = await connectNats({ servers: url, name: 'owner', connectOptions: { user: 'owner', pass: 'owner' } });
    await (await jetstreamManager(owner)).streams.add({ name: 'PERMS', subjects: ['allowed.>', 'forbidden.>'], storage: StorageType.Memory });
    await owner.close();
  });

  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a forbidden publish for good at once (not a timeout to retry), and still stores the allowed ones', async () => {
    const nc = await connectNats({ servers: url, name: 'sender', connectOptions: { user: 'sender', pass: 'sender' } });
    const acks = new PubAcks(nc, 20_000);
    try {
      const startedAt = Date.now();
      const forbidden = acks.publish('forbidden.x', bytes('no'), withMsgId('f-1'));
      const allowed = acks.publish('allowed.x', bytes('yes'), withMsgId('a-1'));
      const refusal = await forbidden.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(PublishRefusedError);
      expect((refusal as PublishRefusedError).unavailable).toBe(false);
      expect(String(refusal)).toMatch(/forbidden\.x: this connection's user may not publish it/);
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect((await allowed).stream).toBe('PERMS');
    } finally {
      acks.close();
      await nc.close();
    }
  });
});
