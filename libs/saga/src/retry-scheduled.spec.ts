import { z } from 'zod';
import { defineEvent } from '@openpaw/contracts';
import { firstTry, isRetryDue, nextTry, retryScheduledIn, retryTimerName, scheduleRetry, sendTry, type StepProgress } from './command-steps.js';
import { eventOf, type SagaDefinition } from './definition.js';
import { scenario, type ScenarioStep } from './scenario.js';
import { Work } from './testing/two-step-definition.js';

const WorkFailed = defineEvent('unit', 'WorkFailed', 1, z.object({ reason: z.string() }), 'unit test event: a try failed');
const BACKOFF = { baseMs: 30_000, factor: 2, maxMs: 120_000 };

type S = 'WORKING' | 'DONE';
interface D {
  readonly step: StepProgress<'work'>;
}

/** One command step that retries every failure after a backoff: the step idiom, nothing else. */
const retryingDefinition: SagaDefinition<S, D> = {
  type: 'unit_retrying',
  states: ['WORKING', 'DONE'],
  initial: 'WORKING',
  transitions: { WORKING: ['DONE'] },
  terminal: ['DONE'],
  cancelledState: 'DONE',
  retryableFrom: [],
  inputs: [WorkFailed],
  init: () => ({ step: firstTry('work') }),
  decide(run, input) {
    if (input.kind === 'start') return { outcome: 'stay', data: run.data, effects: [sendTry(Work, { n: 1 }, run.data.step, 1000)] };
    const failed = eventOf(input, WorkFailed);
    if (failed !== undefined) {
      const retry = scheduleRetry(run, run.data.step, BACKOFF, failed.data.reason);
      return { outcome: 'stay', data: { step: retry.step }, logs: [retry.log], effects: retry.effects };
    }
    if (isRetryDue(run, input, run.data.step)) {
      const step = nextTry(run.data.step);
      return { outcome: 'stay', data: { step }, step: 'work_retried', effects: [sendTry(Work, { n: 1 }, step, 1000)] };
    }
    return { outcome: 'ignore', reason: 'not for me' };
  },
  view: (run) => ({ tries: run.data.step.tries }),
};

function publishedRetry(step: ScenarioStep): unknown {
  const changed = step.applied.outbox.find((o) => o.envelope.type === 'openpaw.evt.workflow.RunStateChanged.v1');
  return (changed?.envelope.data as { retryScheduled?: unknown } | undefined)?.retryScheduled;
}

describe('a scheduled retry in the run\'s public event', () => {
  it('publishes the failed try, its reason and when the next try goes with the change that scheduled it, and not after', () => {
    const s = scenario(retryingDefinition);
    expect(publishedRetry(s.givenStarted())).toBeUndefined();

    s.advance(5_000);
    const failed = s.when(s.event(WorkFailed, { reason: 'llm_unavailable' }));
    expect(publishedRetry(failed)).toEqual({ step: 'work', failedTry: 1, nextTry: 2, nextTryAt: '2026-01-01T00:00:35.000Z', reason: 'llm_unavailable' });

    s.advance(30_000);
    const retried = s.when({ kind: 'timer', name: retryTimerName('work'), payload: { step: 'work', tries: 1, attempt_no: 1 } });
    expect(retried.steps()).toContain('work_retried');
    expect(publishedRetry(retried)).toBeUndefined();

    // The second backoff is longer (factor 2).
    expect(publishedRetry(s.when(s.event(WorkFailed, { reason: 'timeout' })))).toMatchObject({ failedTry: 2, nextTry: 3, nextTryAt: '2026-01-01T00:01:35.000Z', reason: 'timeout' });
  });

  it('reads only the scheduleRetry row of a decision\'s logs', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(retryScheduledIn([{ step: 'policy_applied', payload: { backoff_ms: 5 } }], now)).toBeUndefined();
    expect(retryScheduledIn([{ step: 'retry_scheduled', payload: { step: 'work' } }], now)).toBeUndefined();
  });
});
