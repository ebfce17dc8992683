import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { deterministicUuid, type MessageData, RunStateChangedV2, runIdFor, StartRun } from '@openpaw/contracts';
import { JetStreamPublisher, messageCountsSince, readMessageCounts } from '@openpaw/messaging';
import { sagaStoreCounters, SagaRegistry } from '@openpaw/saga';
import { freshDatabase, type NatsServerHandle, privateNatsServer } from '@openpaw/testing';
import { startThreeStepWorker, threeStepSaga, type ThreeStepWorker } from '@openpaw/testkit';
import { CoordinatorRuntime } from './coordinator-runtime.js';

/**
 * The message budget of a saga step (issue 23): what one step of the synthetic 3-step saga costs in
 * JetStream publishes, deliveries, PostgreSQL commits and message validations, counted in this
 * process (the coordinator, the worker and the client all run here). Counts do not depend on the
 * machine, so this is the gate a bench cannot be: it fails when a change makes a step cost more
 * than the committed budget. Lower a budget when a change makes a step cheaper.
 *
 * A run is StartRun + 3 × (DoStep command → StepDone reply) and 4 transitions, so per run:
 *  - publishes 11: StartRun, 3 DoStep, 3 StepDone, 4 RunStateChanged v2 (one per run per coordinator
 *    transaction, ADR 0024: each input of this saga is a transaction of its own, so no fewer here);
 *  - deliveries 7: StartRun and 3 StepDone to the coordinator, 3 DoStep to the worker;
 *  - commits 4: one coordinator transaction per input (inputs of one run arrive one at a time here);
 *  - round trips to PostgreSQL 4: each transaction's write leaves with its COMMIT, decided without a
 *    read first: the StartRun of a new run as well as the steps of a run the coordinator committed;
 *  - validations 14: each message parsed once on the way in (7), and on the way out only where its
 *    data is not the engine's own typed data (StartRun, DoStep and StepDone: 7; RunStateChanged is
 *    built by the engine and not parsed again).
 */
const STEP_BUDGET = {
  publishes: 11 / 3,
  deliveries: 7 / 3,
  commits: 4 / 3,
  roundTrips: 4 / 3,
  validations: 14 / 3,
} as const;

const RUNS = 4;
const STEPS_PER_RUN = 3;

const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };

describe('message budget of a 3-step saga step (real nats-server + PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let runtime: CoordinatorRuntime;
  let worker: ThreeStepWorker;

  beforeAll(async () => {
    nats = await privateNatsServer();
    runtime = await CoordinatorRuntime.start({
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('coordinator_budget'),
      registry: new SagaRegistry([threeStepSaga]),
      logger: silent,
      timerIntervalMs: 25,
      // The sweeper is the crash path (rows the fast path left behind); on a loaded machine it would
      // re-publish rows whose fast publish is merely slow (the broker drops the copy by Nats-Msg-Id),
      // and the count would depend on the machine. After its start-up pass it stays out of the count.
      relaySweepIntervalMs: 10 * 60_000,
    });
    nc = await connect({ servers: nats.url });
    js = jetstream(nc);
    worker = await startThreeStepWorker(nc, js);
  });

  afterAll(async () => {
    await worker.stop();
    await runtime.stop();
    await nc.close();
    await nats.dispose();
  });

  async function runToTheEnd(key: string): Promise<void> {
    const runId = runIdFor(threeStepSaga.type, key);
    const ended = new Promise<void>((resolve) => {
      const sub = nc.subscribe(RunStateChangedV2.subject, {
        callback: (_err, msg) => {
          const data = msg.json<{ data: MessageData<typeof RunStateChangedV2> }>().data;
          if (data.runId === runId && data.terminal) {
            sub.unsubscribe();
            resolve();
          }
        },
      });
    });
    await new JetStreamPublisher(js).publish(StartRun, { runId, workflowType: threeStepSaga.type, idempotencyKey: key, userId: 'u1', input: { payload: key } }, {
      id: deterministicUuid('start', key),
      source: '/test',
      correlationId: runId,
    });
    await ended;
  }

  it('spends no more per step than the committed budget', async () => {
    await runToTheEnd('warm-up');
    // Let the last run's relay publishes settle before counting.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = readMessageCounts();
    const commitsBefore = sagaStoreCounters.commits;
    const roundTripsBefore = sagaStoreCounters.roundTrips;
    for (let i = 0; i < RUNS; i += 1) await runToTheEnd(`budget-${i}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const spent = messageCountsSince(before);
    const steps = RUNS * STEPS_PER_RUN;
    const perStep = {
      publishes: spent.publishes / steps,
      deliveries: spent.deliveries / steps,
      commits: (spent.commits + sagaStoreCounters.commits - commitsBefore) / steps,
      roundTrips: (sagaStoreCounters.roundTrips - roundTripsBefore) / steps,
      validations: spent.validations / steps,
    };
    console.log(`message budget per saga step: ${JSON.stringify(perStep)}`);
    const overBudget = (Object.keys(STEP_BUDGET) as Array<keyof typeof STEP_BUDGET>).filter((what) => perStep[what] > STEP_BUDGET[what] + 1e-9).map((what) => `${what}: ${perStep[what].toFixed(2)} per step > budget ${STEP_BUDGET[what].toFixed(2)}`);
    expect(overBudget).toEqual([]);
  });
});
