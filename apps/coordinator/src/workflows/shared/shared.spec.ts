import { backoffDelay, commandIdFor, firstTry, isReplyTo, isReplyToLatest, isRetryDue, isStepTimeout, nextTry, scheduleRetry } from '@openpaw/saga';
import { durationMs, roundUsd, statusOf } from './run-status.js';
import { DEFAULT_WORKFLOW_TIMINGS, workflowTimingsFromEnv } from './timings.js';

const run = { id: '00000000-0000-4000-8000-000000000001', attemptNo: 2 };

describe('command steps', () => {
  it('backs off exponentially and stops at the cap', () => {
    const ingest = DEFAULT_WORKFLOW_TIMINGS.ingest.backoff;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(ingest, n))).toEqual([1_000, 4_000, 16_000, 64_000, 256_000, 300_000]);
    expect([1, 2, 3].map((n) => backoffDelay(DEFAULT_WORKFLOW_TIMINGS.retrieve.backoff, n))).toEqual([1_000, 2_000, 4_000]);
  });

  it('matches replies by the command id of any try of the step in progress, in this attempt of the run', () => {
    const step = nextTry(nextTry(firstTry('ingest')));
    const ids = [1, 2, 3].map((n) => commandIdFor(run.id, 2, `ingest:${n}`));
    for (const id of ids) expect(isReplyTo(run, step, 'ingest', id)).toBe(true);
    expect(isReplyTo(run, step, 'ingest', commandIdFor(run.id, 2, 'ingest:4'))).toBe(false);
    expect(isReplyTo(run, step, 'ingest', commandIdFor(run.id, 1, 'ingest:1'))).toBe(false);
    expect(isReplyTo(run, step, 'retrieve', ids[0] ?? '')).toBe(false);
    expect(isReplyTo(run, null, 'ingest', ids[0] ?? '')).toBe(false);
    expect(isReplyToLatest(run, step, 'ingest', ids[2] ?? '')).toBe(true);
    expect(isReplyToLatest(run, step, 'ingest', ids[1] ?? '')).toBe(false);
  });

  it("knows its latest try's timeout and its own backoff timer, and nothing stale", () => {
    const step = firstTry('register');
    expect(isStepTimeout({ kind: 'timer', name: 'timeout:register:1', payload: {} }, step)).toBe(true);
    expect(isStepTimeout({ kind: 'timer', name: 'timeout:register:0', payload: {} }, step)).toBe(false);
    const retry = scheduleRetry(run, step, DEFAULT_WORKFLOW_TIMINGS.register.backoff, 'timeout');
    expect(retry.step).toEqual({ name: 'register', tries: 1, waiting: 'backoff' });
    expect(retry.effects).toEqual([{ type: 'setTimer', name: 'retry:register', afterMs: 1_000, payload: { step: 'register', tries: 1, attempt_no: 2 } }]);
    expect(isStepTimeout({ kind: 'timer', name: 'timeout:register:1', payload: {} }, retry.step)).toBe(false);
    const due = { kind: 'timer', name: 'retry:register', payload: { step: 'register', tries: 1, attempt_no: 2 } } as const;
    expect(isRetryDue(run, due, retry.step)).toBe(true);
    expect(isRetryDue({ ...run, attemptNo: 3 }, due, retry.step)).toBe(false);
    expect(isRetryDue(run, { ...due, payload: { ...due.payload, tries: 0 } }, retry.step)).toBe(false);
    expect(isRetryDue(run, due, step)).toBe(false);
  });
});

describe('run status', () => {
  it('maps terminal states to WorkflowResult.status and everything else to running', () => {
    expect(['SUCCEEDED', 'FAILED', 'CANCELLED', 'INGESTING', 'INITIATED'].map(statusOf)).toEqual(['succeeded', 'failed', 'cancelled', 'running', 'running']);
  });

  it('measures duration from the attempt start to the latest change', () => {
    const createdAt = new Date('2026-01-01T00:00:00Z');
    const updatedAt = new Date('2026-01-01T00:00:02.5Z');
    expect(durationMs({ createdAt, updatedAt }, '2026-01-01T00:00:01Z')).toBe(1_500);
    expect(durationMs({ createdAt, updatedAt }, null)).toBe(2_500);
    expect(roundUsd(0.1 + 0.2)).toBe(0.3);
  });
});

describe('workflowTimingsFromEnv', () => {
  it('is the defaults with nothing set', () => {
    expect(workflowTimingsFromEnv({})).toEqual(DEFAULT_WORKFLOW_TIMINGS);
  });

  it('applies OPENPAW_WORKFLOW_TIMINGS_JSON field by field', () => {
    const timings = workflowTimingsFromEnv({ OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ index: { timeoutMs: 200 }, ingest: { backoff: { baseMs: 10 } } }) });
    expect(timings.index.timeoutMs).toBe(200);
    expect(timings.ingest).toEqual({ timeoutMs: 30_000, backoff: { baseMs: 10, factor: 4, maxMs: 300_000 } });
    expect(timings.register).toEqual(DEFAULT_WORKFLOW_TIMINGS.register);
  });

  it.each([
    ['not JSON', 'nope', /not valid JSON/],
    ['a zero timeout', JSON.stringify({ index: { timeoutMs: 0 } }), /timeoutMs/],
    ['an unknown step', JSON.stringify({ indexing: { timeoutMs: 5 } }), /indexing/],
  ])('refuses %s', (_, json, reason) => {
    expect(() => workflowTimingsFromEnv({ OPENPAW_WORKFLOW_TIMINGS_JSON: json })).toThrow(reason);
  });
});
