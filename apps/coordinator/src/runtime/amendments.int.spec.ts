import { jetstreamManager, jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { defineEvent, deterministicUuid, type Envelope, runIdFor, StartRun, STREAMS } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { decideByTable, loadRunWithLogs, onEvent, onStart, SagaRegistry, type SagaDefinition, transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { freshDatabase, type NatsServerHandle, privateNatsServer, waitFor } from '@openpaw/testing';
import { z } from 'zod';
import { coordinatorEventsDurable, CoordinatorRuntime } from './coordinator-runtime.js';

const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };

/** An amendment naming no run, like a takedown: it concerns every run whose data holds the person's id. */
const PersonRemoved = defineEvent('amendint', 'PersonRemoved', 1, z.object({ id: z.string() }), 'test amendment');

type S = 'WORKING' | 'STOPPED' | 'DONE';
/**
 * A person's name is redacted and their id kept (as a takedown keeps celebrity ids), so the same
 * amendment finds the run again; `amendments` counts every one applied (on purpose not idempotent:
 * an amendment applied twice would show).
 */
type D = { readonly people: readonly { readonly id: string; readonly name: string }[]; readonly amendments: number };

const names = (data: D): string[] => data.people.map((p) => p.name);
const removed = (run: { readonly data: D }, id: string): D => ({ people: run.data.people.map((p) => (p.id === id ? { id, name: '[removed]' } : p)), amendments: run.data.amendments + 1 });
const concerns = (run: { readonly data: D }, id: string): boolean => run.data.people.some((p) => p.id === id);
const amendedInData = onEvent<S, D, typeof PersonRemoved>(PersonRemoved, [], (run, { data }) => (concerns(run, data.id) ? { outcome: 'stay', data: removed(run, data.id) } : { outcome: 'ignore', reason: 'not named' }));

const table: WorkflowTable<S, D> = {
  // A run asked to be `done` at once finishes at its start; the others keep working (nothing answers them).
  WORKING: [
    onStart(['DONE'], (run, start) => (start['done'] === true ? { outcome: 'transition', to: 'DONE', data: run.data } : { outcome: 'stay', data: run.data })),
    // Running: the definition decides; the run's first person removed stops the work.
    onEvent(PersonRemoved, ['STOPPED'], (run, { data }) =>
      !concerns(run, data.id) ? { outcome: 'ignore', reason: 'not named' } : data.id === run.data.people[0]?.id ? { outcome: 'transition', to: 'STOPPED', data: removed(run, data.id) } : { outcome: 'stay', data: removed(run, data.id) },
    ),
  ],
  STOPPED: [amendedInData],
  DONE: [amendedInData],
};

const amending: SagaDefinition<S, D> = {
  type: 'amend_int',
  states: ['WORKING', 'STOPPED', 'DONE'],
  initial: 'WORKING',
  transitions: transitionsOf(table),
  terminal: ['STOPPED', 'DONE'],
  inputs: [],
  amendedBy: [PersonRemoved],
  amendmentConcerns: (envelope) => (envelope.type === PersonRemoved.subject ? JSON.stringify((envelope.data as { id: string }).id) : undefined),
  init: (input) => ({ people: (input as { people: D['people'] }).people, amendments: 0 }),
  decide: decideByTable('amend_int', table),
  view: (run) => ({ state: run.state, names: names(run.data) }),
};

const ADA = { id: 'p-ada', name: 'Ada' };
const BEA = { id: 'p-bea', name: 'Bea' };
const CY = { id: 'p-cy', name: 'Cy' };
const DEE = { id: 'p-dee', name: 'Dee' };

describe('amendments reach running and finished runs (real nats-server + PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let publisher: JetStreamPublisher;
  let runtime: CoordinatorRuntime;

  beforeAll(async () => {
    nats = await privateNatsServer();
    runtime = await CoordinatorRuntime.start({
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('coordinator_amendments'),
      registry: new SagaRegistry([amending]),
      logger: silent,
      timerIntervalMs: 25,
      relaySweepIntervalMs: 100,
    });
    nc = await connect({ servers: nats.url });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    publisher = new JetStreamPublisher(js);
  });

  afterAll(async () => {
    await runtime.stop();
    await nc.close();
    await nats.dispose();
  });

  const start = async (key: string, input: { people: D['people']; done?: boolean }): Promise<string> => {
    const runId = runIdFor(amending.type, key);
    await publisher.publish(StartRun, { runId, workflowType: amending.type, idempotencyKey: key, userId: 'u1', input }, { id: deterministicUuid('start', key), source: '/test', correlationId: runId });
    return runId;
  };
  const runOf = async (runId: string) => (await loadRunWithLogs(runtime.dataSource, runId))?.run;
  /** The coordinator's consumer of the amendment's context has taken (and acked) everything published to it. */
  const drained = async (): Promise<true | undefined> => {
    const info = await jsm.consumers.info(STREAMS.events.name, coordinatorEventsDurable('amendint'));
    return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
  };

  it('a running run is amended as the definition decides (it may stop), a finished one in its data only; a redelivered amendment is a duplicate for each', async () => {
    const running = await start('running', { people: [ADA, BEA] });
    const stopping = await start('stopping', { people: [BEA, CY] });
    const finished = await start('finished', { people: [CY, BEA], done: true });
    const unrelated = await start('unrelated', { people: [DEE] });
    await waitFor(async () => ((await runOf(finished))?.state === 'DONE' && (await runOf(unrelated)) !== undefined && (await runOf(running)) !== undefined && (await runOf(stopping)) !== undefined ? true : undefined), 'the runs to start');
    const before = (await runOf(unrelated))?.version;

    const takedown: Envelope = await publisher.publish(PersonRemoved, { id: BEA.id }, { id: deterministicUuid('amend', 'bea'), source: '/test', correlationId: 'takedown-bea' });
    await waitFor(async () => ((await runOf(finished))?.data as D | undefined)?.amendments === 1 && ((await runOf(running))?.data as D | undefined)?.amendments === 1 && ((await runOf(stopping))?.data as D | undefined)?.amendments === 1 ? true : undefined, 'every run naming Bea to be amended');
    expect(await runOf(running)).toMatchObject({ state: 'WORKING', data: { people: [ADA, { id: BEA.id, name: '[removed]' }], amendments: 1 } });
    expect(await runOf(stopping)).toMatchObject({ state: 'STOPPED', data: { people: [{ id: BEA.id, name: '[removed]' }, CY], amendments: 1 } });
    expect(await runOf(finished)).toMatchObject({ state: 'DONE', data: { people: [CY, { id: BEA.id, name: '[removed]' }], amendments: 1 } });
    expect((await runOf(unrelated))?.version).toBe(before);
    const versions = await Promise.all([running, stopping, finished].map(async (id) => (await runOf(id))?.version));

    // The same amendment delivered again (a new JetStream message, as after a publisher's retry past the
    // duplicate window): each run's inbox has it already.
    await publisher.publishEnvelope(takedown, { msgId: `${takedown.id}-again` });
    await waitFor(drained, 'the redelivered amendment to be consumed');
    expect(await Promise.all([running, stopping, finished].map(async (id) => (await runOf(id))?.version))).toEqual(versions);
    expect(((await runOf(running))?.data as D).amendments).toBe(1);
    expect(((await runOf(finished))?.data as D).amendments).toBe(1);
  });
});
