import { GenerateSolution, InputRefused, type MessageData, NormalizeMedia, MediaNormalized, RegisterSolution, RetrievalMiss, SearchSolutions, SolutionFailed, SolutionGenerated } from '@openpaw/contracts';
import { isAllowed, replayRun, type ScenarioStep, validateDefinition } from '@openpaw/saga';
import { retrieveOrGenerateDefinition } from '../retrieve-or-generate/retrieve-or-generate.definition.js';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import { SagaDriver, sha256Of, signature, uuid } from '../testing/saga-driver.js';
import { modelFor, SOLVE_STATES, SOLVE_TRANSITIONS, type SolveData, type SolvePolicy, solveViewSchema, solveWorkflowDefinition } from './solve-workflow.definition.js';

const definition = solveWorkflowDefinition();
const SIG = signature();
const POLICY: SolvePolicy = {
  primary_model: 'openai/gpt-4o-mini',
  fallback_models: ['anthropic/claude-haiku-4-5', 'local/deterministic'],
  cost_cap_usd: 0.5,
  retry_max: 3,
};
const START = { signature: SIG, policy: POLICY };
const provenance = (costUsd = 0.02, model = POLICY.primary_model) => ({ model, promptVersion: 'solve-v1', inputTokens: 100, outputTokens: 700, costUsd, latencyMs: 30 });

const dataOf = (d: SagaDriver): SolveData => d.s.run.data as SolveData;

function generating(policy: SolvePolicy = POLICY): SagaDriver {
  const d = new SagaDriver(definition);
  d.start({ ...START, policy });
  return d;
}
const generated = (d: SagaDriver, index = -1, costUsd = 0.02) =>
  d.reply(
    GenerateSolution,
    SolutionGenerated,
    { attempt: index === -1 ? d.commandCount(GenerateSolution) : index + 1, storageKey: 'solutions/x.html', contentSha256: sha256Of('e'), finalAnswer: 'x = 2', stepCount: 3, provenance: provenance(costUsd) },
    index,
  );
const failed = (d: SagaDriver, over: Partial<Pick<MessageData<typeof SolutionFailed>, 'errorCode' | 'retryable' | 'costUsd'>> = {}, index = -1): ScenarioStep =>
  d.reply(GenerateSolution, SolutionFailed, {
    attempt: index === -1 ? d.commandCount(GenerateSolution) : index + 1,
    errorCode: 'llm_unavailable',
    retryable: true,
    detail: 'provider down',
    costUsd: 0.01,
    ...over,
  }, index);

describe('solve_workflow', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...SOLVE_TRANSITIONS };
    it.each(SOLVE_STATES.flatMap((from) => SOLVE_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it('is INITIATED -> GENERATING -> SUCCEEDED | FAILED, cancellable, and validates', () => {
      expect(SOLVE_TRANSITIONS).toEqual({ INITIATED: ['GENERATING', 'CANCELLED'], GENERATING: ['SUCCEEDED', 'FAILED', 'CANCELLED'] });
      expect(definition.terminal).toEqual(['SUCCEEDED', 'FAILED', 'CANCELLED']);
      expect(definition.cancelledState).toBe('CANCELLED');
      expect(() => validateDefinition(definition)).not.toThrow();
    });
  });

  describe('the model chain', () => {
    it('is the primary for attempt 1, then each fallback, then the last one again', () => {
      expect([1, 2, 3, 4, 5].map((n) => modelFor(POLICY, n))).toEqual([
        'openai/gpt-4o-mini',
        'anthropic/claude-haiku-4-5',
        'local/deterministic',
        'local/deterministic',
        'local/deterministic',
      ]);
      expect(modelFor({ ...POLICY, fallback_models: [] }, 3)).toBe('openai/gpt-4o-mini');
    });
  });

  describe('given a solve request', () => {
    it('when started, then its policy is logged first and attempt 1 goes to the primary model with a step timeout', () => {
      const d = new SagaDriver(definition);
      const step = d.start(START);
      expect(step.state).toBe('GENERATING');
      expect(step.steps()).toEqual(['run_started', 'policy_applied', 'generate_requested']);
      expect(step.applied.logs[1]?.payload).toMatchObject({ policy: POLICY, model: 'openai/gpt-4o-mini' });
      expect(step.sent(GenerateSolution)).toEqual([
        {
          runId: d.runId,
          attempt: 1,
          signature: SIG,
          model: 'openai/gpt-4o-mini',
          fallbackModels: ['anthropic/claude-haiku-4-5', 'local/deterministic'],
          costCapUsd: 0.5,
          spentUsd: 0,
        },
      ]);
      expect(d.delayOf('resend:generate:1')).toBe(DEFAULT_WORKFLOW_TIMINGS.generate.timeoutMs);
    });

    it.each([
      ['no policy', { signature: SIG }],
      ['a retry_max over 10', { ...START, policy: { ...POLICY, retry_max: 11 } }],
      ['a zero cost cap', { ...START, policy: { ...POLICY, cost_cap_usd: 0 } }],
      ['a malformed signature', { ...START, signature: { normalizedText: 'x' } }],
    ])('when started with %s, then refused as invalid input', (_, input) => {
      const step = new SagaDriver(definition).start(input);
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });
  });

  describe('given a run in GENERATING', () => {
    it('when the solution is generated, then SUCCEEDED; the view carries storageKey, contentSha256, provenance and cost', () => {
      const d = generating();
      d.advance(900);
      const step = generated(d);
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['solution_generated']);
      expect(step.view()).toEqual({
        status: 'succeeded',
        state: 'SUCCEEDED',
        attempts: 1,
        model: 'openai/gpt-4o-mini',
        cost_usd: 0.02,
        duration_ms: 900,
        storageKey: 'solutions/x.html',
        contentSha256: sha256Of('e'),
        provenance: provenance(),
      });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when an attempt fails retryably, then after an exponential backoff the next attempt uses the next fallback model', () => {
      const d = generating();
      const first = failed(d, { costUsd: 0.01 });
      expect(first.state).toBe('GENERATING');
      expect(first.steps()).toEqual(['retry_scheduled', 'generate_failed']);
      expect(first.applied.logs[0]?.payload).toMatchObject({ step: 'generate', failed_try: 1, retry: 1, backoff_ms: 2_000, reason: 'llm_unavailable' });
      expect(d.pendingTimers()).toEqual(['retry:generate']);
      const retried = d.fire('retry:generate');
      expect(retried.steps()).toEqual(['model_selected', 'generate_retried']);
      expect(retried.applied.logs[0]?.payload).toMatchObject({ attempt: 2, model: 'anthropic/claude-haiku-4-5', fallback: true });
      expect(retried.sent(GenerateSolution)).toEqual([
        expect.objectContaining({ attempt: 2, model: 'anthropic/claude-haiku-4-5', fallbackModels: ['local/deterministic'], spentUsd: 0.01 }),
      ]);
      expect(generated(d).view()).toMatchObject({ status: 'succeeded', attempts: 2, model: 'anthropic/claude-haiku-4-5', cost_usd: 0.03 });
    });

    it('when every attempt fails retryably, then retry_max retries (2 s, 4 s, 8 s) through the chain, then FAILED with the error code', () => {
      const d = generating();
      const delays: number[] = [];
      for (let retry = 1; retry <= 3; retry += 1) {
        failed(d);
        delays.push(d.delayOf('retry:generate'));
        d.fire('retry:generate');
      }
      expect(delays).toEqual([2_000, 4_000, 8_000]);
      expect(d.commandCount(GenerateSolution)).toBe(4);
      const last = failed(d);
      expect(last.state).toBe('FAILED');
      expect(last.steps()).toEqual(['error_recorded', 'generate_failed']);
      expect(last.view()).toMatchObject({ status: 'failed', attempts: 4, model: 'local/deterministic', cost_usd: 0.04, error_code: 'llm_unavailable', retries_exhausted: true });
      expect(last.view()?.['error_detail']).toContain('retries exhausted');
    });

    it('when an attempt fails and is not retryable, then FAILED at once with its error code', () => {
      const d = generating();
      const step = failed(d, { errorCode: 'cannot_solve', retryable: false });
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'cannot_solve', attempts: 1, retries_exhausted: false });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when the service reports the cost cap exceeded, then FAILED cost_cap_exceeded, even if marked retryable', () => {
      const step = failed(generating(), { errorCode: 'cost_cap_exceeded', retryable: true, costUsd: 0.5 });
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'cost_cap_exceeded', cost_usd: 0.5, retries_exhausted: false });
    });

    it('when a retryable failure has spent the whole budget, then no retry: FAILED cost_cap_exceeded', () => {
      const d = generating();
      failed(d, { costUsd: 0.3 });
      d.fire('retry:generate');
      const step = failed(d, { costUsd: 0.2 });
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'cost_cap_exceeded', cost_usd: 0.5 });
    });

    it('when an attempt times out, then it is retried like a retryable failure, and FAILED timeout when they run out', () => {
      const d = generating({ ...POLICY, retry_max: 1 });
      const timedOut = d.fire('resend:generate:1');
      expect(timedOut.steps()).toEqual(['retry_scheduled', 'generate_timed_out']);
      d.fire('retry:generate');
      const step = d.fire('resend:generate:2');
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'timeout', attempts: 2 });
    });

    it('when a timed-out attempt delivers its solution during the backoff, then SUCCEEDED and the retry timer cleared', () => {
      const d = generating();
      d.fire('resend:generate:1');
      const step = generated(d, 0);
      expect(step.state).toBe('SUCCEEDED');
      expect(d.pendingTimers()).toEqual([]);
    });

    it("when a timed-out attempt's failure arrives later, then its cost is recorded and nothing else changes", () => {
      const d = generating();
      d.fire('resend:generate:1');
      d.fire('retry:generate');
      const late = failed(d, { costUsd: 0.04 }, 0);
      expect(late.outcome).toBe('applied');
      expect(late.steps()).toEqual(['late_failure_cost_recorded']);
      expect(dataOf(d)).toMatchObject({ spentUsd: 0.04, step: { tries: 2, waiting: 'reply' } });
      expect(failed(d, { costUsd: 0 }, 0).outcome).toBe('ignored');
    });

    it('when a reply names a command this run never sent, then it is ignored', () => {
      const d = generating();
      const step = d.event(SolutionFailed, { runId: d.runId, commandId: uuid(5), attempt: 1, errorCode: 'timeout', retryable: true, detail: '', costUsd: 0 });
      expect(step.outcome).toBe('ignored');
    });

    it('when cancelled, then CANCELLED; a late solution is ignored', () => {
      const d = generating();
      expect(d.cancel().state).toBe('CANCELLED');
      expect(generated(d).outcome).toBe('ignored');
    });
  });

  describe('as the child of retrieve_or_generate', () => {
    function parentWaiting(topConfidence: number | null) {
      const parent = new SagaDriver(retrieveOrGenerateDefinition(), uuid(100));
      parent.start({ submission: { kind: 'text', text: '2x + 3 = 7' }, contentDigest: sha256Of('d') });
      parent.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      const top = topConfidence === null ? null : { assetVersionId: uuid(0xc1), problemId: uuid(0xb1), confidence: topConfidence, method: 'vector' as const };
      const [child] = SagaDriver.started(parent.reply(SearchSolutions, RetrievalMiss, { topCandidate: top, trace: [] }));
      if (child === undefined) throw new Error('no child');
      return { parent, child };
    }

    it("its final view, when it succeeds, is what the parent registers", () => {
      const { parent, child } = parentWaiting(null);
      const solve = new SagaDriver(definition, child.runId);
      solve.start(child.input);
      const view = generated(solve).view();
      expect(solveViewSchema.safeParse(view).success).toBe(true);
      const step = parent.child(SOLVE_WORKFLOW, child.runId, 'SUCCEEDED', view ?? {});
      expect(step.state).toBe('REGISTERING');
      expect(step.sent(RegisterSolution)).toEqual([expect.objectContaining({ storageKey: 'solutions/x.html', provenance: provenance() })]);
    });

    it('its final view, when it fails, gives the parent the error code and cost for the near-miss rule', () => {
      const { parent, child } = parentWaiting(0.9);
      const solve = new SagaDriver(definition, child.runId);
      solve.start(child.input);
      const view = failed(solve, { errorCode: 'cost_cap_exceeded', costUsd: 0.1 }).view();
      const step = parent.child(SOLVE_WORKFLOW, child.runId, 'FAILED', view ?? {});
      expect(step.view()).toMatchObject({ status: 'failed', error_code: 'cost_cap_exceeded', cost_usd: 0.1 });
    });
  });

  describe('replay', () => {
    it('feeds a run with a failure, a backoff and a fallback success back through the definition', () => {
      const d = generating();
      failed(d);
      d.fire('retry:generate');
      d.fire('resend:generate:2');
      d.fire('retry:generate');
      generated(d);
      const report = replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs);
      expect(report).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });
  });
});
