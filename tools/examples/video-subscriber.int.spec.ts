import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { VideoRendered } from '@openpaw/contracts';
import { JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type NatsServerHandle, privateNatsServer, waitFor } from '@openpaw/testing';
import { readVideoRendered, startVideoSubscriber, type VideoRendered as Video, VIDEO_RENDERED_SUBJECT } from './video-subscriber.js';

/** The subscriber guide's example, against a real nats-server and events published as OpenPaw publishes them. */
describe('the example event subscriber (real NATS)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;

  beforeAll(async () => {
    nats = await privateNatsServer();
    nc = await connect({ servers: nats.url });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
  });

  afterAll(async () => {
    await nc.drain();
    await nats.dispose();
  });

  const video = () => ({
    runId: randomUUID(),
    commandId: randomUUID(),
    solutionAssetVersionId: randomUUID(),
    videoAssetVersionId: randomUUID(),
    storageKey: `videos/${randomUUID()}.mp4`,
    durationMs: 42_000,
  });

  it('handles each event once, ignores fields it does not know, terminates what it cannot read, and acks everything', async () => {
    const first = await publisher.publish(VideoRendered, video(), { source: '/assets', correlationId: randomUUID() });
    // The same event again beyond the duplicate window (a producer's redelivery): same envelope id, new stream message.
    await publisher.publishEnvelope(first, { msgId: randomUUID() });
    // A later additive change: a field this subscriber has never heard of.
    const second = await publisher.publish(VideoRendered, video(), { source: '/assets', correlationId: randomUUID() });
    await publisher.publishEnvelope({ ...second, id: randomUUID(), data: { ...second.data, thumbnailKey: 'thumbs/x.png' } });
    // Garbage on the subject.
    await jetstream(nc).publish(VIDEO_RENDERED_SUBJECT, new TextEncoder().encode('{"not": "an event"'));

    const seen = new Set<string>();
    const handled: Video[] = [];
    const unreadable: string[] = [];
    const subscriber = await startVideoSubscriber({
      servers: nats.url,
      durable: 'example-videos',
      handled: { has: (id) => Promise.resolve(seen.has(id)), add: (id) => Promise.resolve(void seen.add(id)) },
      onVideo: (v) => Promise.resolve(void handled.push(v)),
      onUnreadable: (reason) => unreadable.push(reason),
    });
    try {
      const jsm = await jetstreamManager(nc);
      await waitFor(async () => {
        const info = await jsm.consumers.info('OPENPAW_EVENTS', 'example-videos');
        return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.consumer_seq === 5 ? info : undefined;
      }, 'the subscriber to ack or terminate all five messages', 20_000);
    } finally {
      await subscriber.stop();
    }
    expect(handled.map((v) => v.eventId)).toEqual([first.id, second.id, expect.any(String)]);
    expect(handled[0]).toEqual({ eventId: first.id, runId: first.data.runId, videoAssetVersionId: first.data.videoAssetVersionId, storageKey: first.data.storageKey, durationMs: 42_000 });
    expect(handled[2]?.runId).toBe(second.data.runId);
    expect(unreadable).toEqual(['not JSON']);
  });

  it('names what it cannot read', () => {
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    expect(readVideoRendered(bytes([1]))).toEqual({ unreadable: 'not a CloudEvents 1.0 envelope' });
    expect(readVideoRendered(bytes({ specversion: '1.0', id: 'x', type: 'openpaw.evt.asset.VideoRendered.v2', data: {} }))).toEqual({
      unreadable: 'unexpected type openpaw.evt.asset.VideoRendered.v2',
    });
    expect(readVideoRendered(bytes({ specversion: '1.0', id: 'x', type: VIDEO_RENDERED_SUBJECT, data: { runId: 'r' } }))).toEqual({
      unreadable: 'data lacks runId, videoAssetVersionId, storageKey or durationMs',
    });
  });
});
