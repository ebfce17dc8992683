import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import { RunEventBus } from '../../events/run-event-bus.js';
import type { RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import type { CommandPublisher } from '../ports.js';
import { RunSubmitter } from './run-submitter.js';

const RUN_ID = '0b0c9f6e-6c8e-4c4e-9a43-6c3f6f3f2a11';

const change = (version: number, stateAfter: string, terminal: boolean): MessageData<typeof RunStateChanged> => ({
  runId: RUN_ID,
  workflowType: 'retrieve_or_generate',
  userId: 'u1',
  attemptNo: 1,
  version,
  stateBefore: null,
  stateAfter,
  terminal,
  stepName: 'step',
  parentRunId: null,
  view: { state: stateAfter },
  occurredAt: new Date(1_700_000_000_000 + version).toISOString(),
});

/** A projection store that counts its reads and holds what a test puts in it. */
class CountingRuns {
  reads = 0;
  stored: RunProjection | undefined;
  find(): Promise<RunProjection | undefined> {
    this.reads += 1;
    return Promise.resolve(this.stored);
  }
}

describe('RunSubmitter.awaitRun', () => {
  const setUp = (): { bus: RunEventBus; runs: CountingRuns; submitter: RunSubmitter } => {
    const bus = new RunEventBus();
    const runs = new CountingRuns();
    const publisher: CommandPublisher = { publish: () => Promise.reject(new Error('not used')) } as unknown as CommandPublisher;
    return { bus, runs, submitter: new RunSubmitter(runs as unknown as RunProjectionStore, bus, publisher) };
  };
  const hear = (bus: RunEventBus, data: MessageData<typeof RunStateChanged>): void => bus.publish({ kind: 'stateChanged', messageId: `m-${data.version}`, data });

  it('given a run followed since before its StartRun, waits for its end without reading the projection', async () => {
    const { bus, runs, submitter } = setUp();
    const followed = submitter.followRun(RUN_ID, { timeoutMs: 5_000 });
    hear(bus, change(1, 'INGESTING', false));
    const waiting = submitter.awaitRun(RUN_ID, { timeoutMs: 5_000, followed });
    hear(bus, change(2, 'RETRIEVING', false));
    hear(bus, change(3, 'SUCCEEDED', true));
    const outcome = await waiting;
    expect(outcome.reached).toBe(true);
    expect(outcome.run).toMatchObject({ state: 'SUCCEEDED', version: 3 });
    expect(runs.reads).toBe(0);
  });

  it('given a run not followed before, reads the projection first (a change may have passed) and answers from it', async () => {
    const { runs, submitter } = setUp();
    runs.stored = { ...{ runId: RUN_ID, workflowType: 'retrieve_or_generate', userId: 'u1', parentRunId: null, view: {}, createdAt: new Date(), updatedAt: new Date(), attemptStartedAt: null }, state: 'SUCCEEDED', terminal: true, attemptNo: 1, version: 3 };
    const outcome = await submitter.awaitRun(RUN_ID, { timeoutMs: 5_000 });
    expect(outcome).toMatchObject({ reached: true, run: { state: 'SUCCEEDED' } });
    expect(runs.reads).toBe(1);
  });

  it('given a followed run that does not end in time, reads the projection once at the end and answers its latest state', async () => {
    const { bus, runs, submitter } = setUp();
    const followed = submitter.followRun(RUN_ID, { timeoutMs: 50 });
    hear(bus, change(1, 'INGESTING', false));
    const outcome = await submitter.awaitRun(RUN_ID, { timeoutMs: 50, followed });
    expect(outcome).toMatchObject({ reached: false, run: { state: 'INGESTING', version: 1 } });
    expect(runs.reads).toBe(1);
  });
});
