import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { privateNatsServer } from './testing/int-test-kit.js';
import { ensureKvBucket, kvStreamName, type KvBucketSpec } from './kv-buckets.js';

describe('KV bucket provisioning: value and byte limits (real nats-server)', () => {
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

  const limits = async (bucket: string): Promise<[number | undefined, number | undefined]> => {
    const { config } = await jsm.streams.info(kvStreamName(bucket));
    return [config.max_msg_size, config.max_bytes];
  };

  it('reports a drifted max value size and max bytes, and the owner puts both back', async () => {
    const spec: KvBucketSpec = { name: 'limits-drift', ttlMs: 60_000, history: 1, purpose: 'test', maxValueBytes: 4_096, maxBytes: 1_048_576 };
    expect(await ensureKvBucket(jsm, spec)).toEqual({ result: 'created', drift: [] });
    expect(await limits(spec.name)).toEqual([4_096, 1_048_576]);
    expect(await ensureKvBucket(jsm, spec)).toEqual({ result: 'unchanged', drift: [] });

    // Someone lowered both by hand (or the catalog raised them after the bucket was made).
    const stream = kvStreamName(spec.name);
    await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, max_msg_size: 1_024, max_bytes: 65_536 });
    const drift = ['max_msg_size is 1024, configured 4096', 'max_bytes is 65536, configured 1048576'];
    // A service's bootstrap reports it and changes nothing.
    expect(await ensureKvBucket(jsm, spec)).toEqual({ result: 'kept', drift });
    expect(await limits(spec.name)).toEqual([1_024, 65_536]);
    const kv = await new Kvm(nc).open(spec.name);
    await expect(kv.put('large', new Uint8Array(3_000))).rejects.toThrow(/message size exceeds maximum allowed/);

    // The owner brings the bucket to the catalog, and a value the drifted bound refused is accepted again.
    expect(await ensureKvBucket(jsm, spec, { mode: 'reconcile' })).toEqual({ result: 'updated', drift: [] });
    expect(await limits(spec.name)).toEqual([4_096, 1_048_576]);
    await expect(kv.put('large', new Uint8Array(3_000))).resolves.toBeGreaterThan(0);
    expect(await ensureKvBucket(jsm, spec, { mode: 'reconcile' })).toEqual({ result: 'unchanged', drift: [] });
  });

  it('a bucket the catalog leaves unbounded has its hand-set bounds reported and removed', async () => {
    const spec: KvBucketSpec = { name: 'limits-unbounded', ttlMs: 60_000, history: 1, purpose: 'test' };
    expect(await ensureKvBucket(jsm, spec)).toEqual({ result: 'created', drift: [] });
    expect(await limits(spec.name)).toEqual([-1, -1]);
    const stream = kvStreamName(spec.name);
    await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, max_msg_size: 512, max_bytes: 8_192 });
    expect(await ensureKvBucket(jsm, spec)).toEqual({ result: 'kept', drift: ['max_msg_size is 512, configured -1', 'max_bytes is 8192, configured -1'] });
    expect(await ensureKvBucket(jsm, spec, { mode: 'reconcile' })).toEqual({ result: 'updated', drift: [] });
    expect(await limits(spec.name)).toEqual([-1, -1]);
  });
});
