import { InFlightAborts, RunEndedError } from '@openpaw/messaging';
import { supersedeEarlierSteps } from './step-supersession.js';

const RUN = '8a0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10';
const log = { info: () => undefined };
const never = (signal: AbortSignal) => new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }));

describe('supersedeEarlierSteps (heard from the core subscription and at pickup, in any order)', () => {
  it('stops the earlier steps only, and keeps the latest cover when an older step is heard after a newer one', async () => {
    const aborts = new InFlightAborts<number>();
    const step2 = aborts.track(RUN, 2, never);
    supersedeEarlierSteps(aborts, log, RUN, 3);
    await expect(step2).rejects.toEqual(new RunEndedError(RUN, 'superseded by step 3'));

    // Step 2 heard late (a re-publish, a redelivery picked up now): step 3 still covers it.
    supersedeEarlierSteps(aborts, log, RUN, 2);
    await expect(aborts.track(RUN, 2, () => Promise.resolve('ran'))).rejects.toBeInstanceOf(RunEndedError);
    await expect(aborts.track(RUN, 3, () => Promise.resolve('ran'))).resolves.toBe('ran');
  });

  it("does not turn a run's end into a supersession (a later step of an ended run stays stopped)", async () => {
    const aborts = new InFlightAborts<number>();
    aborts.end(RUN, 'CANCELLED: cancelled');
    supersedeEarlierSteps(aborts, log, RUN, 4);
    await expect(aborts.track(RUN, 4, () => Promise.resolve('ran'))).rejects.toEqual(new RunEndedError(RUN, 'CANCELLED: cancelled'));
  });
});
