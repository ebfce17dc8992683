import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { startNatsCluster, type NatsClusterHandle } from '@openpaw/testing';
import { KV_BUCKETS, kvStreamName } from './kv-buckets.js';
import { provisionStreams } from './provisioning.js';
import { DEFAULT_STREAM_SETTINGS, streamSettingsFromEnv } from './stream-settings.js';

const DAY_NS = nanos(24 * 60 * 60 * 1000);

/** Replicas need a JetStream cluster: a single nats-server quietly keeps every stream at R1. */
describe('stream replicas (real 3-node nats-server cluster)', () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    nc = await connect({ servers: [...cluster.urls] });
    jsm = await jetstreamManager(nc);
  }, 60_000);

  afterAll(async () => {
    await nc.close();
    await cluster.dispose();
  });

  it('never lowers a stream ops run at R3, from a bootstrap or from the owner', async () => {
    // Ops created the commands stream at R3 with their own retention before any service started.
    await jsm.streams.add({ name: STREAMS.commands.name, subjects: [...STREAMS.commands.subjects], num_replicas: 3, max_age: 14 * DAY_NS });

    // A service's bootstrap with the development default (R1) creates the missing streams and leaves the R3 one alone.
    const boot = await provisionStreams(jsm, { settings: DEFAULT_STREAM_SETTINGS });
    expect(boot[STREAMS.commands.name]).toEqual({
      result: 'kept',
      drift: ['num_replicas is 3, configured 1', `max_age is ${14 * DAY_NS}, configured ${7 * DAY_NS}`],
    });
    expect(boot[STREAMS.events.name]?.result).toBe('created');
    expect((await jsm.streams.info(STREAMS.commands.name)).config).toMatchObject({ num_replicas: 3, max_age: 14 * DAY_NS });

    // The owner with a stale R1 configuration applies the limits but keeps the replicas.
    const owner = await provisionStreams(jsm, { mode: 'reconcile', settings: DEFAULT_STREAM_SETTINGS });
    expect(owner[STREAMS.commands.name]).toEqual({ result: 'updated', drift: ['num_replicas is 3, configured 1'] });
    expect((await jsm.streams.info(STREAMS.commands.name)).config).toMatchObject({ num_replicas: 3, max_age: 7 * DAY_NS });
  }, 60_000);

  it('the owner raises replicas from the configuration (R3 in the manifests), and lowers them only when told to', async () => {
    const r3 = streamSettingsFromEnv({ OPENPAW_STREAM_REPLICAS: '3' });
    // Before this version, visual-search created its run-memory bucket itself, at R1.
    await jsm.streams.delete(kvStreamName(KV_BUCKETS.visualRunMemory.name));
    await new Kvm(jsm.jetstream()).create(KV_BUCKETS.visualRunMemory.name, { history: 1, ttl: KV_BUCKETS.visualRunMemory.ttlMs });
    expect((await jsm.streams.info(kvStreamName(KV_BUCKETS.visualRunMemory.name))).config.num_replicas).toBe(1);
    const raised = await provisionStreams(jsm, { mode: 'reconcile', settings: r3 });
    expect(raised[STREAMS.events.name]).toEqual({ result: 'updated', drift: [] });
    for (const stream of [STREAMS.commands.name, STREAMS.events.name, STREAMS.deadLetters.name]) {
      const info = await jsm.streams.info(stream);
      expect(info.config.num_replicas).toBe(3);
    }
    // The KV buckets too: one that an older service created at R1 (beside R3 streams) is raised, so
    // losing one node no longer stalls the runs whose memory lived only there.
    for (const bucket of Object.values(KV_BUCKETS)) {
      expect((await jsm.streams.info(kvStreamName(bucket.name))).config.num_replicas).toBe(3);
    }
    expect(Object.values(await provisionStreams(jsm, { mode: 'reconcile', settings: r3 })).map((r) => r.result)).toEqual(
      Array.from({ length: 3 + Object.keys(KV_BUCKETS).length }, () => 'unchanged'),
    );

    const lowered = await provisionStreams(jsm, { mode: 'reconcile', settings: DEFAULT_STREAM_SETTINGS, allowReplicaDecrease: true });
    expect(lowered[STREAMS.deadLetters.name]).toEqual({ result: 'updated', drift: [] });
    expect((await jsm.streams.info(STREAMS.deadLetters.name)).config.num_replicas).toBe(1);
  }, 60_000);
});
