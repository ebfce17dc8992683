import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { CancelRun, createEnvelope, deterministicUuid, InputRefused, runIdFor, StartRun, STREAMS } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { loadRunWithLogs, replayRun, SagaRegistry } from '@openpaw/saga';
import { freshDatabase, type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { StepDone, startThreeStepWorker, threeStepSaga, type ThreeStepWorker } from '@openpaw/testkit';
import { CoordinatorRuntime } from './coordinator-runtime.js';

const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('coordinator on real nats-server + PostgreSQL', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let publisher: JetStreamPublisher;
  let runtime: CoordinatorRuntime;
  let worker: ThreeStepWorker | undefined;
  let outcomeFor: (payload: string) => 'ok' | 'fail' | 'jump' = () => 'ok';

  beforeAll(async () => {
    nats = await privateNatsServer();
    runtime = await CoordinatorRuntime.start({
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('coordinator'),
      registry: new SagaRegistry([threeStepSaga]),
      logger: silent,
      timerIntervalMs: 25,
      relaySweepIntervalMs: 100,
    });
    nc = await connect({ servers: nats.url });
    js = jetstream(nc);
    publisher = new JetStreamPublisher(js);
  });

  afterAll(async () => {
    await worker?.stop();
    await runtime.stop();
    await nc.close();
    await nats.dispose();
  });

  const startWorker = async (): Promise<ThreeStepWorker> => {
    worker = await startThreeStepWorker(nc, js, { outcome: (command) => outcomeFor(command.payload) });
    return worker;
  };

  async function start(key: string, input: Record<string, unknown> = { payload: key }, userId = 'u1'): Promise<string> {
    const runId = runIdFor(threeStepSaga.type, key);
    await publisher.publish(StartRun, { runId, workflowType: threeStepSaga.type, idempotencyKey: key, userId, input }, {
      id: deterministicUuid('start', key),
      source: '/test',
      correlationId: runId,
    });
    return runId;
  }

  const stateOf = async (runId: string) => (await loadRunWithLogs(runtime.dataSource, runId))?.run.state;
  const reaches = (runId: string, state: string) => until(async () => ((await stateOf(runId)) === state ? state : undefined));

  it('completes a multi-step saga with a worker, and its log replays to the same states', async () => {
    await startWorker();
    const runId = await start('happy');
    await reaches(runId, 'SUCCEEDED');
    const loaded = await loadRunWithLogs(runtime.dataSource, runId);
    expect(loaded?.run.data).toMatchObject({ results: ['happy#1', 'happy#2', 'happy#3'] });
    if (loaded === undefined) throw new Error('missing');
    expect(replayRun(threeStepSaga, loaded.run, loaded.logs)).toMatchObject({ ok: true, finalState: 'SUCCEEDED' });
  });

  it('applies the same input delivered twice once (new Nats-Msg-Id, same envelope id)', async () => {
    await worker?.stop();
    worker = undefined;
    const runId = await start('twice');
    await reaches(runId, 'STEP_1');
    const reply = createEnvelope(StepDone, { runId, step: 1, outcome: 'ok', result: 'manual' }, { id: 'reply-twice', source: '/test', correlationId: runId });
    await publisher.publishEnvelope(reply, { msgId: 'copy-1' });
    await publisher.publishEnvelope(reply, { msgId: 'copy-2' });
    await reaches(runId, 'STEP_2');
    await new Promise((r) => setTimeout(r, 300));
    const loaded = await loadRunWithLogs(runtime.dataSource, runId);
    expect(loaded?.logs.filter((l) => l.stateAfter === 'STEP_2' && l.stateBefore === 'STEP_1')).toHaveLength(1);
    const w = await startWorker();
    await reaches(runId, 'SUCCEEDED');
    expect([...w.effects.values()].every((count) => count === 1)).toBe(true);
  });

  it('re-sends a command that was published but lost, on the step timeout, and completes', async () => {
    await worker?.stop();
    worker = undefined;
    const runId = await start('lost', { payload: 'lost', stepTimeoutMs: 300 });
    await reaches(runId, 'STEP_1');
    // The command is lost: gone from the stream before any worker consumed it.
    const jsm = await jetstreamManager(nc);
    await until(async () => ((await jsm.streams.info(STREAMS.commands.name)).state.messages > 0 ? true : undefined));
    await jsm.streams.purge(STREAMS.commands.name, { filter: 'openpaw.cmd.testworker.>' });
    await startWorker();
    await reaches(runId, 'SUCCEEDED');
    const loaded = await loadRunWithLogs(runtime.dataSource, runId);
    // Never picked up and its lane empty: found lost (not merely queued), and re-sent.
    expect(loaded?.logs.some((l) => l.stepName === 'command_lost_resent')).toBe(true);
    expect(loaded?.logs.some((l) => l.stepName === 'command_resent')).toBe(false);
  });

  it('refuses and logs an illegal transition, publishing InputRefused', async () => {
    outcomeFor = (payload) => (payload === 'jump' ? 'jump' : 'ok');
    const refusals: string[] = [];
    const sub = nc.subscribe(InputRefused.subject, {
      callback: (_err, msg) => {
        refusals.push(msg.string());
      },
    });
    const runId = await start('jump', { payload: 'jump' });
    const loaded = await until(async () => {
      const l = await loadRunWithLogs(runtime.dataSource, runId);
      return l?.logs.some((x) => x.stepName === 'transition_refused') === true ? l : undefined;
    });
    expect(loaded.run.state).toBe('STEP_1');
    expect(loaded.logs.find((x) => x.stepName === 'transition_refused')?.payload).toMatchObject({ attempted: 'INITIATED' });
    await until(() => Promise.resolve(refusals.some((r) => r.includes('illegal_transition') && r.includes(runId)) ? true : undefined));
    sub.unsubscribe();
    outcomeFor = () => 'ok';
  });

  it('dead-letters a poison message with its reason and keeps consuming', async () => {
    const dlq: Array<{ subject: string; reason: string | undefined }> = [];
    const sub = nc.subscribe('openpaw.dlq.>', {
      callback: (_err, msg) => {
        dlq.push({ subject: msg.subject, reason: msg.headers?.get('Openpaw-Dlq-Reason') });
      },
    });
    await js.publish(StepDone.subject, new TextEncoder().encode('{not json'), { msgID: 'poison-1' });
    await js.publish(CancelRun.subject, new TextEncoder().encode(JSON.stringify({ specversion: '1.0' })), { msgID: 'poison-2' });
    await until(() => Promise.resolve(dlq.length >= 2 ? true : undefined));
    expect(dlq.map((d) => d.subject).sort()).toEqual(['openpaw.dlq.cmd.coordinator.CancelRun.v1', 'openpaw.dlq.evt.testworker.StepDone.v1']);
    expect(dlq.every((d) => (d.reason ?? '').length > 0)).toBe(true);
    sub.unsubscribe();
    const runId = await start('after-poison');
    await reaches(runId, 'SUCCEEDED');
  });

  it('cancels a run on its owner’s command and ignores late events for it', async () => {
    await worker?.stop();
    worker = undefined;
    const runId = await start('cancel-me');
    await reaches(runId, 'STEP_1');
    await publisher.publish(CancelRun, { runId, userId: 'someone-else' }, { source: '/test', correlationId: runId });
    await publisher.publish(CancelRun, { runId, userId: 'u1', reason: 'changed my mind' }, { source: '/test', correlationId: runId });
    await reaches(runId, 'CANCELLED');
    await startWorker(); // the pending DoStep is now handled and its reply arrives late
    const loaded = await until(async () => {
      const l = await loadRunWithLogs(runtime.dataSource, runId);
      return l?.logs.some((x) => x.stepName === 'input_ignored') === true ? l : undefined;
    });
    expect(loaded.run.state).toBe('CANCELLED');
    expect(loaded.logs.map((l) => l.stepName)).toEqual(['run_started', 'start', 'cancel_requested', 'cancelled', 'input_ignored']);
  });

  it('re-attempts a failed run on the same row with attempt_no + 1', async () => {
    outcomeFor = (payload) => (payload === 'flaky' ? 'fail' : 'ok');
    const runId = await start('flaky', { payload: 'flaky' });
    await reaches(runId, 'FAILED');
    outcomeFor = () => 'ok';
    await publisher.publish(
      StartRun,
      { runId, workflowType: threeStepSaga.type, idempotencyKey: 'flaky', userId: 'u1', input: { payload: 'flaky-again' } },
      { id: deterministicUuid('start', 'flaky', '2'), source: '/test', correlationId: runId },
    );
    await reaches(runId, 'SUCCEEDED');
    const loaded = await loadRunWithLogs(runtime.dataSource, runId);
    expect(loaded?.run.attemptNo).toBe(2);
  });
});
