/**
 * An example subscriber of OpenPaw's events, written as another team would write one: nothing of
 * OpenPaw's code, only the public NATS client and the published contract
 * (`contracts/events/asset/VideoRendered.v1.schema.json`). It
 * - reads through a durable pull consumer of its own on `OPENPAW_EVENTS`, filtered to one subject
 *   (never one of OpenPaw's `svc-*` durables),
 * - acks each message explicitly after handling it (delivery is at-least-once),
 * - de-duplicates on the envelope `id` (a redelivery or a republish carries the same id),
 * - reads the fields it needs and ignores any others (additive changes keep the subject version),
 * - terminates a message it cannot read instead of letting it be redelivered forever.
 *
 * Run it: `OPENPAW_NATS_URL=nats://… node dist/tools/examples/video-subscriber.js [durable name]`.
 */
import { pathToFileURL } from 'node:url';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

export const VIDEO_RENDERED_SUBJECT = 'openpaw.evt.asset.VideoRendered.v1';
const EVENTS_STREAM = 'OPENPAW_EVENTS';

/** The fields of `VideoRendered.v1` this subscriber uses. */
export interface VideoRendered {
  readonly eventId: string;
  readonly runId: string;
  readonly videoAssetVersionId: string;
  readonly storageKey: string;
  readonly durationMs: number;
}

/** Envelope ids already handled. A real subscriber keeps them in its own database, with its writes. */
export interface HandledIds {
  has(id: string): Promise<boolean>;
  add(id: string): Promise<void>;
}

export interface VideoSubscriberOptions {
  readonly servers: string;
  readonly durable: string;
  readonly handled: HandledIds;
  readonly onVideo: (video: VideoRendered) => Promise<void>;
  /** Messages that could not be read, with why (for the subscriber's own alerting). */
  readonly onUnreadable?: (reason: string) => void;
}

export interface RunningSubscriber {
  stop(): Promise<void>;
}

/** A `VideoRendered.v1` CloudEvent read from the bytes, or why not. */
export function readVideoRendered(bytes: Uint8Array): VideoRendered | { readonly unreadable: string } {
  let envelope: unknown;
  try {
    envelope = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { unreadable: 'not JSON' };
  }
  if (typeof envelope !== 'object' || envelope === null) return { unreadable: 'not a JSON object' };
  const { specversion, id, type, data } = envelope as Record<string, unknown>;
  if (specversion !== '1.0' || typeof id !== 'string') return { unreadable: 'not a CloudEvents 1.0 envelope' };
  if (type !== VIDEO_RENDERED_SUBJECT) return { unreadable: `unexpected type ${String(type)}` };
  if (typeof data !== 'object' || data === null) return { unreadable: 'no data' };
  const { runId, videoAssetVersionId, storageKey, durationMs } = data as Record<string, unknown>;
  if (typeof runId !== 'string' || typeof videoAssetVersionId !== 'string' || typeof storageKey !== 'string' || typeof durationMs !== 'number') {
    return { unreadable: 'data lacks runId, videoAssetVersionId, storageKey or durationMs' };
  }
  return { eventId: id, runId, videoAssetVersionId, storageKey, durationMs };
}

/** Creates (or keeps) the durable, and handles its messages until `stop`. */
export async function startVideoSubscriber(options: VideoSubscriberOptions): Promise<RunningSubscriber> {
  const nc = await connect({ servers: options.servers, name: `example-${options.durable}` });
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(EVENTS_STREAM, {
    durable_name: options.durable,
    filter_subject: VIDEO_RENDERED_SUBJECT,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30_000_000_000, // nanoseconds: a handler slower than 30 s gets the message again
    max_deliver: 5,
  });
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, options.durable);
  const messages = await consumer.consume({ max_messages: 16 });
  const handle = async (msg: JsMsg): Promise<void> => {
    const video = readVideoRendered(msg.data);
    if ('unreadable' in video) {
      options.onUnreadable?.(video.unreadable);
      // A bare TERM: servers before 2.10.4 do not take a reason with it (and leave the message pending).
      msg.term();
      return;
    }
    try {
      if (!(await options.handled.has(video.eventId))) {
        await options.onVideo(video);
        await options.handled.add(video.eventId);
      }
      await msg.ackAck();
    } catch {
      msg.nak(5_000); // try again in 5 s; after max_deliver the server stops redelivering
    }
  };
  const loop = (async () => {
    for await (const msg of messages) await handle(msg);
  })();
  return {
    async stop() {
      await messages.close();
      await loop;
      await nc.drain();
    },
  };
}

async function main(): Promise<void> {
  const seen = new Set<string>();
  const subscriber = await startVideoSubscriber({
    servers: process.env['OPENPAW_NATS_URL'] ?? 'nats://127.0.0.1:4222',
    durable: process.argv[2] ?? 'example-video-subscriber',
    handled: { has: (id) => Promise.resolve(seen.has(id)), add: (id) => Promise.resolve(void seen.add(id)) },
    onVideo: (video) => Promise.resolve(console.log(JSON.stringify({ msg: 'video rendered', ...video }))),
    onUnreadable: (reason) => console.error(JSON.stringify({ msg: 'unreadable message terminated', reason })),
  });
  const stop = (): void => void subscriber.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
