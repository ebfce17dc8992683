import { DocumentIndexed, IndexDocument, InputRefused } from '@openpaw/contracts';
import { isAllowed, replayRun, validateDefinition } from '@openpaw/saga';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { SagaDriver, signature, uuid } from '../testing/saga-driver.js';
import { REINDEX_STATES, REINDEX_TRANSITIONS, reindexAssetDefinition } from './reindex-asset.definition.js';

const definition = reindexAssetDefinition();
const PROBLEM = uuid(0xb1);
const ASSET = uuid(0xa1);
const SIG = signature();
const START = { problemId: PROBLEM, assetVersionId: ASSET, signature: SIG };

function indexing(): SagaDriver {
  const d = new SagaDriver(definition);
  d.start(START);
  return d;
}
const indexed = (d: SagaDriver, index = -1, assetVersionId = ASSET) => d.reply(IndexDocument, DocumentIndexed, { assetVersionId, problemId: PROBLEM }, index);

describe('reindex_asset', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...REINDEX_TRANSITIONS };
    it.each(REINDEX_STATES.flatMap((from) => REINDEX_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it('is INITIATED -> INDEXING -> SUCCEEDED | FAILED, not cancellable, and validates', () => {
      expect(REINDEX_TRANSITIONS).toEqual({ INITIATED: ['INDEXING'], INDEXING: ['SUCCEEDED', 'FAILED'] });
      expect(definition.cancelledState).toBeUndefined();
      expect(() => validateDefinition(definition)).not.toThrow();
    });
  });

  it('when started, then INDEXING with IndexDocument and a step timeout', () => {
    const d = new SagaDriver(definition);
    const step = d.start(START);
    expect(step.state).toBe('INDEXING');
    expect(step.sent(IndexDocument)).toEqual([{ runId: d.runId, problemId: PROBLEM, assetVersionId: ASSET, signature: SIG }]);
    expect(d.delayOf('resend:index:1')).toBe(DEFAULT_WORKFLOW_TIMINGS.reindex.timeoutMs);
  });

  it('when started without an asset version, then refused', () => {
    expect(new SagaDriver(definition).start({ problemId: PROBLEM, signature: SIG }).sent(InputRefused)).toEqual([
      expect.objectContaining({ reason: 'invalid_input' }),
    ]);
  });

  it('when indexed, then SUCCEEDED', () => {
    const step = indexed(indexing());
    expect(step.state).toBe('SUCCEEDED');
    expect(step.view()).toEqual({ status: 'succeeded', state: 'SUCCEEDED', attempts: 1, asset_version_id: ASSET, problem_id: PROBLEM, duration_ms: 0 });
  });

  it('when every attempt times out, then 5 attempts with exponential backoff (5 s, 10 s, 20 s, 40 s), then FAILED', () => {
    const d = indexing();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect(d.fire(`resend:index:${attempt}`).steps()).toEqual(['retry_scheduled', 'index_timed_out']);
      delays.push(d.delayOf('retry:index'));
      expect(d.fire('retry:index').sent(IndexDocument)).toHaveLength(1);
    }
    expect(delays).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(d.commandCount(IndexDocument)).toBe(5);
    const step = d.fire('resend:index:5');
    expect(step.state).toBe('FAILED');
    expect(step.view()).toMatchObject({ status: 'failed', error_code: 'index_timeout', attempts: 5 });
  });

  it('when an earlier attempt answers during the backoff, then SUCCEEDED and the timer cleared', () => {
    const d = indexing();
    d.fire('resend:index:1');
    d.fire('retry:index');
    d.fire('resend:index:2');
    expect(indexed(d, 0).state).toBe('SUCCEEDED');
    expect(d.pendingTimers()).toEqual([]);
  });

  it('when DocumentIndexed names another asset version, then refused', () => {
    expect(indexed(indexing(), -1, uuid(0xbad)).outcome).toBe('refused');
  });

  it('when cancelled, then refused: the table has no CANCELLED', () => {
    const d = indexing();
    const step = d.cancel();
    expect(step.outcome).toBe('refused');
    expect(step.state).toBe('INDEXING');
    expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'illegal_transition' })]);
  });

  it('when FAILED and started again by an operator, then attempt 2', () => {
    const d = indexing();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      d.fire(`resend:index:${attempt}`);
      d.fire('retry:index');
    }
    d.fire('resend:index:5');
    expect(d.start(START).applied.run?.attemptNo).toBe(2);
  });

  it('replays a run with a timeout, a retry and a success', () => {
    const d = indexing();
    d.fire('resend:index:1');
    d.fire('retry:index');
    indexed(d);
    expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({
      ok: true,
      finalState: 'SUCCEEDED',
      mismatches: [],
    });
  });
});
