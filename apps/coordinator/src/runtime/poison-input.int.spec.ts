import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { deadLetterSubjectOf, deterministicUuid, runIdFor, StartRun } from '@openpaw/contracts';
import { DLQ_HEADERS, JetStreamPublisher } from '@openpaw/messaging';
import { loadRunWithLogs, SagaRegistry } from '@openpaw/saga';
import { freshDatabase, type NatsServerHandle, privateNatsServer, waitFor } from '@openpaw/testing';
import { startThreeStepWorker, threeStepSaga, type ThreeStepWorker } from '@openpaw/testkit';
import { CoordinatorRuntime, type CoordinatorConfig } from './coordinator-runtime.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('a poison input fails alone (real nats-server + PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let config: CoordinatorConfig;
  let runtime: CoordinatorRuntime | undefined;
  let worker: ThreeStepWorker | undefined;

  beforeAll(async () => {
    nats = await privateNatsServer();
    config = { natsUrl: nats.url, databaseUrl: await freshDatabase('coordinator_poison'), registry: new SagaRegistry([threeStepSaga]), logger: silent, timerIntervalMs: 25, relaySweepIntervalMs: 100 };
    nc = await connect({ servers: nats.url });
    js = jetstream(nc);
  });

  afterAll(async () => {
    await worker?.stop();
    await runtime?.stop();
    await nc.close();
    await nats.dispose();
  });

  it('dead-letters the input PostgreSQL refuses at its first delivery, with its reason, and applies the rest of its batch', async () => {
    // Streams and consumers provisioned, then the coordinator is away while the inputs queue up: they come back as one batch.
    await (await CoordinatorRuntime.start(config)).stop();
    const deadLetters: Array<{ reason: string; deliveries: string }> = [];
    const sub = nc.subscribe(deadLetterSubjectOf(StartRun.subject), {
      callback: (_err, msg) => {
        deadLetters.push({ reason: msg.headers?.get(DLQ_HEADERS.reason) ?? '', deliveries: msg.headers?.get(DLQ_HEADERS.deliveries) ?? '' });
      },
    });
    const publisher = new JetStreamPublisher(js);
    const start = async (key: string, payload: string): Promise<string> => {
      const runId = runIdFor(threeStepSaga.type, key);
      await publisher.publish(StartRun, { runId, workflowType: threeStepSaga.type, idempotencyKey: key, userId: 'u1', input: { payload } }, { id: deterministicUuid('start', key), source: '/test', correlationId: runId });
      return runId;
    };
    const good = [await start('good-1', 'a'), await start('good-2', 'b')];
    // A NUL character: valid JSON and a valid StartRun, but no PostgreSQL jsonb can hold it (SQLSTATE 22P05).
    const poison = await start('poison', 'nul\u0000here');
    good.push(await start('good-3', 'c'));

    runtime = await CoordinatorRuntime.start(config);
    worker = await startThreeStepWorker(nc, js);
    const live = runtime;
    await waitFor(async () => {
      const states = await Promise.all(good.map(async (runId) => (await loadRunWithLogs(live.dataSource, runId))?.run.state));
      return states.every((state) => state === 'SUCCEEDED') && deadLetters.length > 0 ? true : undefined;
    }, 'the good runs to succeed and the poison one to be dead-lettered');
    sub.unsubscribe();
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]?.deliveries).toBe('1');
    expect(deadLetters[0]?.reason).toContain('22P05');
    expect(await loadRunWithLogs(live.dataSource, poison)).toBeUndefined();
  });
});
