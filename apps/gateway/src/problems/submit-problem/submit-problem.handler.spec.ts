import { RunEventBus } from '../../events/run-event-bus.js';
import type { AdmissionControl } from '../../admission/admission-control.js';
import type { RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';
import type { CommandPublisher } from '../../runs/ports.js';
import { type SubmitProblemCommand, SubmitProblemHandler } from './submit-problem.handler.js';

const USER = 'user-1';
const command: SubmitProblemCommand = { userId: USER, subscriptionTier: 'free', intent: 'solve', content: { kind: 'text', text: '2x + 3 = 7' }, waitMs: 0 };

/** The handler over a projection that answers `state` for every run, counting its reads; admission refuses (nothing is started). */
function handlerOver(state: string, terminal: boolean): { handler: SubmitProblemHandler; reads: () => number } {
  let reads = 0;
  const runs = {
    findForUser: (runId: string, userId: string): Promise<RunProjection> => {
      reads += 1;
      const at = new Date('2026-11-29T05:00:00Z');
      return Promise.resolve({ runId, workflowType: 'retrieve_or_generate', userId, state, terminal, attemptNo: 1, version: 7, parentRunId: null, view: { status: 'solved' }, createdAt: at, updatedAt: at, attemptStartedAt: at });
    },
  } as unknown as RunProjectionStore;
  const publisher: CommandPublisher = { publish: () => Promise.reject(new Error('nothing is published in these cases')) } as unknown as CommandPublisher;
  const bus = new RunEventBus();
  const admission = {
    admit: () => Promise.resolve({ admitted: false, reason: 'platform_busy', retryAfterSeconds: 2, detail: 'busy (test)' }),
  } as unknown as AdmissionControl;
  const handler = new SubmitProblemHandler(runs, new RunSubmitter(runs, bus, publisher), bus, {} as never, {} as never, admission);
  return { handler, reads: () => reads };
}

describe('SubmitProblemHandler: re-submissions of a settled run', () => {
  it('answers a SUCCEEDED run again from memory, the same answer without a second read', async () => {
    const { handler, reads } = handlerOver('SUCCEEDED', true);
    const first = await handler.execute(command);
    const again = await handler.execute(command);
    expect(first).toMatchObject({ action: 'existing', attemptNo: 1, run: { state: 'SUCCEEDED', view: { status: 'solved' } } });
    expect(again).toEqual(first);
    expect(reads()).toBe(1);
  });

  it('reads a run that can still change every time: running, or FAILED (re-attempted)', async () => {
    for (const [state, terminal] of [['RETRIEVING', false], ['FAILED', true], ['CANCELLED', true]] as const) {
      const { handler, reads } = handlerOver(state, terminal);
      await handler.execute(command);
      const again = await handler.execute(command);
      expect(reads()).toBe(2);
      expect(again.action).toBe(terminal ? 'reattempted' : 'existing');
    }
  });
});
