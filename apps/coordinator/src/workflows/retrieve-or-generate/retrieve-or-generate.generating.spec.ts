import { CancelRun, RegisterSolution, RetrievalHit, SearchSolutions } from '@openpaw/contracts';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import { SagaDriver, sha256Of, uuid } from '../testing/saga-driver.js';
import { candidate, failedView, generating, NEAR_ASSET, PROVENANCE, retrieving, SIG, solvedView } from './testing/given.js';

describe('retrieve_or_generate', () => {
  describe('given a run in GENERATING_SOLUTION', () => {
    it('when the solve child succeeds, then REGISTERING with RegisterSolution of its storage key, hash and provenance', () => {
      const { d, solveRunId } = generating();
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'SUCCEEDED', solvedView);
      expect(step.state).toBe('REGISTERING');
      expect(step.steps()).toEqual(['solution_generated']);
      expect(step.sent(RegisterSolution)).toEqual([
        { runId: d.runId, signature: SIG, storageKey: 'solutions/abc.html', contentSha256: sha256Of('e'), provenance: PROVENANCE },
      ]);
      expect(step.view()).toMatchObject({ cost_usd: 0.02, status: 'running' });
      expect(d.pendingTimers()).toEqual(['deadline', 'resend:register:1']);
    });

    it('when the solve child "succeeds" without a solution, then FAILED invalid_solve_result', () => {
      const { d, solveRunId } = generating();
      const { storageKey: _s, ...noKey } = solvedView;
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'SUCCEEDED', noKey);
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'invalid_solve_result' });
    });

    it('when the solve child fails and the top candidate has confidence > 0.70, then the near-miss is served: SUCCEEDED, outcome=hit, is_approximate', () => {
      const { d, solveRunId } = generating(candidate(0.7001, 'vector', NEAR_ASSET));
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('llm_unavailable'));
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['solve_failed', 'near_miss', 'near_miss_served']);
      expect(step.view()).toEqual({
        status: 'succeeded',
        outcome: 'hit',
        output: { asset_version_id: NEAR_ASSET, video_pending: false, is_approximate: true },
        workflow_run_id: d.runId,
        attempt_no: 1,
        cost_usd: 0.03,
        duration_ms: 0,
        state: 'SUCCEEDED',
        problem_signature: { text_sha256: SIG.textSha256, subject: 'algebra' },
      });
      expect(SagaDriver.started(step)).toEqual([]);
    });

    it('when a hit below the threshold was the top candidate and solving fails, then that candidate is the near-miss', () => {
      const d = retrieving();
      const [child] = SagaDriver.started(d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.8, 'vector', NEAR_ASSET), trace: [] }));
      const step = d.child(SOLVE_WORKFLOW, child?.runId ?? '', 'FAILED', failedView('timeout'));
      expect(step.view()).toMatchObject({ status: 'succeeded', output: { asset_version_id: NEAR_ASSET, is_approximate: true } });
    });

    it('when the solve child failed without using its retries (non-retryable cannot_solve), then no near-miss: FAILED cannot_solve', () => {
      const { d, solveRunId } = generating(candidate(0.9, 'vector', NEAR_ASSET));
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('cannot_solve', 0.03, false));
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ status: 'failed', error_code: 'cannot_solve', output: {} });
    });

    it('when the solve child was cancelled and a candidate > 0.70 exists, then no near-miss: FAILED solve_cancelled', () => {
      const { d, solveRunId } = generating(candidate(0.9, 'vector', NEAR_ASSET));
      const { error_code: _e, retries_exhausted: _r, ...cancelled } = { ...failedView('timeout'), status: 'cancelled', state: 'CANCELLED' };
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'CANCELLED', cancelled);
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'solve_cancelled', output: {} });
    });

    it('when the solve child fails and the top candidate has confidence exactly 0.70, then FAILED with the child error code', () => {
      const { d, solveRunId } = generating(candidate(0.7));
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('llm_unavailable'));
      expect(step.state).toBe('FAILED');
      expect(step.steps()).toEqual(['error_recorded', 'solve_failed']);
      expect(step.view()).toMatchObject({ status: 'failed', error_code: 'llm_unavailable', cost_usd: 0.03, output: {} });
      expect(step.view()).not.toHaveProperty('outcome');
    });

    it('when the solve child failed on the cost cap, then no near-miss: FAILED cost_cap_exceeded', () => {
      const { d, solveRunId } = generating(candidate(0.95 - 0.1));
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('cost_cap_exceeded', 0.1));
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'cost_cap_exceeded' });
    });

    it('when the solve child spent beyond the cost cap, then no near-miss either', () => {
      const { d, solveRunId } = generating(candidate(0.8));
      const step = d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('timeout', 0.11));
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'timeout', cost_usd: 0.11 });
    });

    it('when the solve child fails and retrieval had no candidate, then FAILED with its error code', () => {
      const { d, solveRunId } = generating(null);
      expect(d.child(SOLVE_WORKFLOW, solveRunId, 'FAILED', failedView('invalid_output')).view()).toMatchObject({ error_code: 'invalid_output' });
    });

    it('when the solve child was cancelled, then FAILED solve_cancelled', () => {
      const { d, solveRunId } = generating(null);
      const { error_code: _e, ...cancelled } = { ...failedView('timeout'), status: 'cancelled', state: 'CANCELLED' };
      expect(d.child(SOLVE_WORKFLOW, solveRunId, 'CANCELLED', cancelled).view()).toMatchObject({ error_code: 'solve_cancelled' });
    });

    it('when another child run reports, then it is ignored', () => {
      const { d } = generating();
      const step = d.child(SOLVE_WORKFLOW, uuid(77), 'SUCCEEDED', solvedView);
      expect(step.outcome).toBe('ignored');
      expect(step.state).toBe('GENERATING_SOLUTION');
    });

    it('when cancelled, then CANCELLED and the solve child run is cancelled too; the child finishing later is ignored', () => {
      const { d, solveRunId } = generating();
      const cancelled = d.cancel();
      expect(cancelled.state).toBe('CANCELLED');
      expect(cancelled.sent(CancelRun)).toEqual([{ runId: solveRunId, userId: d.userId, reason: 'the parent run was cancelled' }]);
      expect(cancelled.steps()).toContain('child_cancel_requested');
      const late = d.child(SOLVE_WORKFLOW, solveRunId, 'SUCCEEDED', solvedView);
      expect(late.outcome).toBe('ignored');
      expect(late.state).toBe('CANCELLED');
    });
  });
});
