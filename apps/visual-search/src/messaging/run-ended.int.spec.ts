import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { deterministicUuid, type Envelope, RunEnded, VerifyEdge, VISUAL_DEGREES } from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams, type Reply } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { privateNatsServer, waitFor } from '@openpaw/testing';
import { SERVICE_NAME, VisualSearchModule } from '../app.module.js';
import type { VisualSearchHandlers } from '../composition.js';
import { visualSearchSettingsFromEnv } from '../config.js';

process.env['LOG_LEVEL'] ??= 'warn';

const RUN = deterministicUuid('visual-search-run-ended-int-spec', String(Date.now()));
const meta = { source: '/openpaw/coordinator', correlationId: RUN, userId: 'user-7', subject: RUN };

describe('visual-search: a RunEnded aborts the step in flight for that run (real nats-server)', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let subscription: Subscription;
  const replies: Envelope[] = [];
  const started: string[] = [];
  const aborted: unknown[] = [];

  // A VerifyEdge step that runs until its signal aborts, as a slow provider call honouring it would.
  const handlers = {
    verifyEdge: {
      execute: ({ commandId, signal }: { commandId: string; signal?: AbortSignal }) =>
        new Promise<Reply>((_resolve, reject) => {
          started.push(commandId);
          signal?.addEventListener('abort', () => (aborted.push(signal.reason), reject(new DOMException('aborted', 'AbortError'))), { once: true });
        }),
    },
  } as unknown as VisualSearchHandlers;

  beforeAll(async () => {
    nats = await privateNatsServer();
    const settings = visualSearchSettingsFromEnv({ OPENPAW_NATS_URL: nats.url });
    service = await startService({ name: SERVICE_NAME, module: VisualSearchModule.forRoot(settings, handlers), defaultPort: 0, port: 0 });
    nc = await connectNats({ servers: nats.url, name: 'visual-search-run-ended-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    subscription = nc.subscribe('openpaw.evt.visual.>', { callback: (_error, msg) => void replies.push(msg.json<Envelope>()) });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await nats?.dispose();
  });

  it('aborts the running step, answers nothing, and acknowledges it (not redelivered)', async () => {
    const publisher = new JetStreamPublisher(jetstream(nc));
    const command = await publisher.publish(
      VerifyEdge,
      { sessionId: 'int', runId: RUN, step: 1, from: { name: 'Ada Stone' }, to: { name: 'Bea North' }, queries: ['Ada Stone Bea North'], imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 25 } },
      meta,
    );
    await waitFor(() => (started.includes(command.id) ? true : undefined), 'the step to start');

    await publisher.publish(RunEnded, { runId: RUN, workflowType: VISUAL_DEGREES, state: 'CANCELLED', reason: 'cancelled' }, meta);
    await waitFor(() => (aborted.length > 0 ? true : undefined), 'the step to be aborted');
    expect(aborted[0]).toMatchObject({ code: 'run_ended', runId: RUN });

    // Acknowledged: no redelivery starts it again, and no reply was published.
    await waitFor(async () => ((await (await jetstreamManager(nc)).consumers.info('OPENPAW_COMMANDS', 'svc-visual-search-visual')).num_ack_pending === 0 ? true : undefined), 'the step acknowledged');
    expect(started).toEqual([command.id]);
    expect(replies).toEqual([]);
  });
});
