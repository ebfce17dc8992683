import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { privateNatsServer } from './testing/int-test-kit.js';
import { KV_BUCKETS, kvStreamName, openKvBucket } from './kv-buckets.js';
import { ensureConsumer, provisionStreams, serviceCommandsDurable, serviceCommandsFilter, type ConsumerSpec } from './provisioning.js';
import { streamSettingsFromEnv } from './stream-settings.js';

const DAY_NS = nanos(24 * 60 * 60 * 1000);

describe('provisioning (real nats-server)', () => {
  let server: Awaited<ReturnType<typeof privateNatsServer>>;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await privateNatsServer();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await nc.close();
    await server.dispose();
  });

  const results = (reports: Record<string, { result: string }>): Record<string, string> =>
    Object.fromEntries(Object.entries(reports).map(([stream, report]) => [stream, report.result]));

  it('creates the three streams once; provisioning again is a no-op; only the owner puts a drifted limit back', async () => {
    const buckets = Object.values(KV_BUCKETS).map((bucket) => kvStreamName(bucket.name));
    expect(results(await provisionStreams(jsm))).toEqual({
      [STREAMS.commands.name]: 'created',
      [STREAMS.events.name]: 'created',
      [STREAMS.deadLetters.name]: 'created',
      ...Object.fromEntries(buckets.map((bucket) => [bucket, 'created'])),
    });
    const before = await jsm.streams.info(STREAMS.commands.name);

    expect(results(await provisionStreams(jsm, { mode: 'reconcile' }))).toEqual({
      [STREAMS.commands.name]: 'unchanged',
      [STREAMS.events.name]: 'unchanged',
      [STREAMS.deadLetters.name]: 'unchanged',
      ...Object.fromEntries(buckets.map((bucket) => [bucket, 'unchanged'])),
    });
    expect((await jsm.streams.info(STREAMS.commands.name)).created).toBe(before.created);

    for (const [stream, days] of [
      [STREAMS.commands.name, 7],
      [STREAMS.events.name, 7],
      [STREAMS.deadLetters.name, 30],
    ] as const) {
      const { config } = await jsm.streams.info(stream);
      expect(config).toMatchObject({
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        duplicate_window: nanos(2 * 60 * 1000),
        max_age: days * DAY_NS,
        num_replicas: 1,
      });
    }

    // Ops shorten the events stream and add a subject: a service's bootstrap reports it and leaves it.
    await jsm.streams.update(STREAMS.events.name, { max_age: DAY_NS, max_bytes: 1024 * 1024 * 1024, subjects: [...STREAMS.events.subjects, 'ops.audit.>'] });
    const bootstrap = (await provisionStreams(jsm))[STREAMS.events.name];
    expect(bootstrap).toEqual({ result: 'kept', drift: [`max_age is ${DAY_NS}, configured ${7 * DAY_NS}`, `max_bytes is ${1024 ** 3}, configured -1`] });
    expect((await jsm.streams.info(STREAMS.events.name)).config).toMatchObject({ max_age: DAY_NS, max_bytes: 1024 ** 3 });

    // The owner applies the configuration: here limits from the environment, and keeps ops' extra subject.
    const settings = streamSettingsFromEnv({ OPENPAW_STREAM_EVENTS_MAX_AGE: '3d', OPENPAW_STREAM_EVENTS_MAX_BYTES: '2GiB', OPENPAW_STREAM_EVENTS_MAX_MSG_SIZE: '1MiB' });
    expect((await provisionStreams(jsm, { mode: 'reconcile', settings }))[STREAMS.events.name]).toEqual({ result: 'updated', drift: [] });
    expect((await jsm.streams.info(STREAMS.events.name)).config).toMatchObject({
      max_age: 3 * DAY_NS,
      max_bytes: 2 * 1024 ** 3,
      max_msg_size: 1024 ** 2,
      subjects: [...STREAMS.events.subjects, 'ops.audit.>'],
    });
    expect(results(await provisionStreams(jsm, { mode: 'reconcile', settings }))[STREAMS.events.name]).toBe('unchanged');

    // Mode off touches nothing, even a stream the configuration would change.
    expect((await provisionStreams(jsm, { mode: 'off' }))[STREAMS.events.name]).toEqual({ result: 'skipped', drift: [] });
    expect((await jsm.streams.info(STREAMS.events.name)).config.max_age).toBe(3 * DAY_NS);
  });

  it('creates a durable pull consumer once, and updates it when a setting changes', async () => {
    await provisionStreams(jsm);
    const spec: ConsumerSpec = {
      stream: STREAMS.commands.name,
      durable: serviceCommandsDurable('prov'),
      filterSubject: serviceCommandsFilter('prov'),
      maxDeliver: 6,
      ackWaitMs: 30_000,
      maxAckPending: 100,
    };
    expect(await ensureConsumer(jsm, spec)).toBe('created');
    const created = await jsm.consumers.info(spec.stream, spec.durable);
    expect(created.config).toMatchObject({
      durable_name: 'svc-prov',
      filter_subject: 'openpaw.cmd.prov.>',
      ack_policy: 'explicit',
      max_deliver: 6,
      ack_wait: nanos(30_000),
      max_ack_pending: 100,
    });
    expect(created.config.deliver_subject).toBeUndefined();

    expect(await ensureConsumer(jsm, spec)).toBe('unchanged');
    expect((await jsm.consumers.info(spec.stream, spec.durable)).created).toBe(created.created);

    expect(await ensureConsumer(jsm, { ...spec, ackWaitMs: 10_000, maxDeliver: 9, maxAckPending: 50 })).toBe('updated');
    const updated = await jsm.consumers.info(spec.stream, spec.durable);
    expect(updated.config).toMatchObject({ ack_wait: nanos(10_000), max_deliver: 9, max_ack_pending: 50 });
    expect(updated.created).toBe(created.created);

    expect(await ensureConsumer(jsm, { ...spec, ackWaitMs: 10_000, maxDeliver: 9, maxAckPending: 50, backoffMs: [1_000, 2_000] })).toBe('updated');
    expect((await jsm.consumers.info(spec.stream, spec.durable)).config).toMatchObject({
      backoff: [nanos(1_000), nanos(2_000)],
      ack_wait: nanos(1_000),
    });
    expect(await ensureConsumer(jsm, { ...spec, ackWaitMs: 10_000, maxDeliver: 9, maxAckPending: 50, backoffMs: [1_000, 2_000] })).toBe(
      'unchanged',
    );

    const narrowed = { ...spec, filterSubject: 'openpaw.cmd.prov.Only.v1' };
    expect(await ensureConsumer(jsm, narrowed)).toBe('updated');
    expect((await jsm.consumers.info(spec.stream, spec.durable)).config).toMatchObject({
      filter_subject: 'openpaw.cmd.prov.Only.v1',
      ack_wait: nanos(30_000),
      max_deliver: 6,
    });
    expect((await jsm.consumers.info(spec.stream, spec.durable)).config.backoff ?? []).toEqual([]);
    expect(await ensureConsumer(jsm, narrowed)).toBe('unchanged');
  });
  it('KV buckets: a service waits for the owner to provision one, then binds to it; the owner puts a drifted TTL back', async () => {
    const receipts = KV_BUCKETS.commandReceipts;
    await jsm.streams.delete(kvStreamName(receipts.name));
    let waits = 0;
    const opening = openKvBucket(jsm, receipts.name, { onMissing: () => (waits += 1) });
    await new Promise((resolve) => setTimeout(resolve, 600));
    // A service never creates it: the bucket is still missing while the service waits.
    await expect(jsm.streams.info(kvStreamName(receipts.name))).rejects.toThrow(/stream not found/);
    expect(waits).toBeGreaterThan(0);

    expect((await provisionStreams(jsm))[kvStreamName(receipts.name)]).toEqual({ result: 'created', drift: [] });
    const kv = await opening;
    await kv.put('command-1', 'picked up');
    expect((await kv.get('command-1'))?.string()).toBe('picked up');
    expect((await jsm.streams.info(kvStreamName(receipts.name))).config).toMatchObject({ max_age: nanos(receipts.ttlMs), num_replicas: 1, max_msgs_per_subject: 1 });

    // Someone shortened the TTL by hand: a bootstrap reports it, the owner restores the catalog's.
    const stream = kvStreamName(KV_BUCKETS.visualRunMemory.name);
    await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, max_age: nanos(600_000) });
    expect((await provisionStreams(jsm))[stream]).toEqual({ result: 'kept', drift: [`max_age is ${nanos(600_000)}, configured ${nanos(KV_BUCKETS.visualRunMemory.ttlMs)}`] });
    expect((await provisionStreams(jsm, { mode: 'reconcile' }))[stream]).toEqual({ result: 'updated', drift: [] });
    expect((await jsm.streams.info(stream)).config.max_age).toBe(nanos(KV_BUCKETS.visualRunMemory.ttlMs));
    expect((await provisionStreams(jsm, { mode: 'off' }))[stream]).toEqual({ result: 'skipped', drift: [] });
  });
});
