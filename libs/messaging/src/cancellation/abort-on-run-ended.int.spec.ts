import { createEnvelope, RunEnded } from '@openpaw/contracts';
import { startBroker, type Broker } from '../testing/int-test-kit.js';
import { abortOnRunEnded } from './abort-on-run-ended.js';
import { InFlightAborts, RunEndedError } from './in-flight-aborts.js';

const RUN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const OTHER_WORKFLOW_RUN = '9b2f4a61-1c0e-4d9a-8f3e-2a5b6c7d8e9f';

describe('abortOnRunEnded (real nats-server)', () => {
  let broker: Broker;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    await broker.dispose();
  });

  it('aborts the in-flight work of a run whose RunEnded is published to JetStream, for the workflow types it listens to', async () => {
    const aborts = new InFlightAborts();
    const told: { runId: string; aborted: number }[] = [];
    const subscription = abortOnRunEnded(broker.nc, aborts, { workflowTypes: ['visual_degrees'], onAborted: ({ runId, aborted }) => told.push({ runId, aborted }) });
    await broker.nc.flush();
    const never = (signal: AbortSignal): Promise<string> => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    // Expectations attached before anything is published: the abort may land before a publish's PubAck.
    const visualEnded = expect(aborts.track(RUN, undefined, never)).rejects.toBeInstanceOf(RunEndedError);
    const research = aborts.track(OTHER_WORKFLOW_RUN, undefined, never);
    const researchEnded = expect(research).rejects.toBeInstanceOf(RunEndedError);

    const meta = { source: '/openpaw/test', correlationId: RUN };
    await broker.publisher.publishEnvelope(createEnvelope(RunEnded, { runId: OTHER_WORKFLOW_RUN, workflowType: 'research', state: 'FAILED', reason: 'cancelled' }, meta));
    await broker.publisher.publishEnvelope(createEnvelope(RunEnded, { runId: RUN, workflowType: 'visual_degrees', state: 'CANCELLED', reason: 'cancelled' }, meta));

    await visualEnded;
    expect(told).toEqual([{ runId: RUN, aborted: 1 }]);
    expect(aborts.inFlight(OTHER_WORKFLOW_RUN)).toBe(1);
    aborts.end(OTHER_WORKFLOW_RUN, 'test over');
    await researchEnded;
    subscription.unsubscribe();
  });
});
