import { MediaNormalized, NormalizeMedia, RetrievalHit, RetrievalMiss, SearchSolutions } from '@openpaw/contracts';
import { childRunIdFor } from '@openpaw/saga';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import { SagaDriver } from '../testing/saga-driver.js';
import { AssetVersionCreated, DocumentIndexed, IndexDocument, ProblemRegistered, RegisterSolution } from '@openpaw/contracts';
import { ASSET, candidate, dataAt, PROBLEM, PROVENANCE, retrieving, SIG, solvedView, withPolicy } from './testing/given.js';
import { retrieveOrGenerateDefinition } from './retrieve-or-generate.definition.js';

describe('retrieve_or_generate', () => {
  describe('given a run in RETRIEVING', () => {
    it('when a hit has confidence exactly at the threshold (0.85), then SUCCEEDED with outcome=hit serving it', () => {
      const d = retrieving();
      const step = d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.85), trace: [] });
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['retrieval_hit']);
      expect(step.view()).toMatchObject({
        status: 'succeeded',
        outcome: 'hit',
        output: { asset_version_id: ASSET, video_pending: false, is_approximate: false },
        state: 'SUCCEEDED',
      });
      expect(SagaDriver.started(step)).toEqual([]);
    });

    it('when a hit has confidence just below the threshold (0.849999), then it is a miss: GENERATING_SOLUTION', () => {
      const d = retrieving();
      const step = d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.849999), trace: [] });
      expect(step.state).toBe('GENERATING_SOLUTION');
      expect(step.steps()).toEqual(['hit_below_threshold', 'retrieval_hit_below_threshold', 'child_started']);
      expect(dataAt(d, 'generating').topCandidate).toEqual(candidate(0.849999));
    });

    it('when a hybrid re-ranked hit clears threshold − 0.02, then it is a hit; just below, a miss', () => {
      expect(retrieving().reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.85 - 0.02, 'hybrid'), trace: [] }).state).toBe('SUCCEEDED');
      expect(retrieving().reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.8299, 'hybrid'), trace: [] }).state).toBe('GENERATING_SOLUTION');
    });

    it.each([
      ['near_duplicate', 0.95, 'near_duplicate_threshold', 0.96],
      ['text_exact', 0.99, 'text_exact_threshold', 0.995],
    ] as const)('when a %s hit has confidence %s, then it is a hit at the spec default and a miss when the policy raises %s to %s', (method, confidence, field, strict) => {
      expect(retrieving().reply(SearchSolutions, RetrievalHit, { candidate: candidate(confidence, method), trace: [] }).state).toBe('SUCCEEDED');
      const def = retrieveOrGenerateDefinition({ policy: withPolicy({ defaults: { [field]: strict } }) });
      const d = retrieving(def);
      expect(d.s.run.data).toMatchObject({ policy: { [field]: strict } });
      expect(d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(confidence, method), trace: [] }).state).toBe('GENERATING_SOLUTION');
    });

    it("when the policy's threshold is higher, then a hit must clear that one", () => {
      const def = retrieveOrGenerateDefinition({ policy: withPolicy({ defaults: { retrieval_threshold: 0.9 } }) });
      const d = retrieving(def);
      expect(d.s.run.data).toMatchObject({ policy: { retrieval_threshold: 0.9 } });
      expect(d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.89), trace: [] }).state).toBe('GENERATING_SOLUTION');
    });

    it('when retrieval misses, then GENERATING_SOLUTION with a solve_workflow child run given the signature and the policy', () => {
      const d = retrieving();
      const step = d.reply(SearchSolutions, RetrievalMiss, { topCandidate: candidate(0.6), trace: [] });
      expect(step.state).toBe('GENERATING_SOLUTION');
      expect(step.steps()).toEqual(['retrieval_miss', 'child_started']);
      const [child] = SagaDriver.started(step);
      expect(child).toMatchObject({
        workflowType: SOLVE_WORKFLOW,
        parentRunId: d.runId,
        userId: 'user-1',
        input: { signature: SIG, policy: { primary_model: 'local/deterministic', fallback_models: [], cost_cap_usd: 0.1, retry_max: 3 } },
      });
      expect(child?.runId).toBe(dataAt(d, 'generating').solveRunId);
      expect(child?.runId).toBe(childRunIdFor({ id: d.runId, attemptNo: 1 }, SOLVE_WORKFLOW, 'solve'));
      expect(d.pendingTimers()).toEqual(['deadline']);
    });

    describe('when the maths-signature hit is the problem in other names (a bijection x → k, issue 24)', () => {
      const renamed = { ...candidate(0.97, 'maths_signature'), relabel: [{ from: 'x', to: 'k' }] };
      const NEW_ASSET = '00000000-0000-4000-8000-0000000000e1';
      /** The renamed hit's run through its solve and registration, the solve's provenance as given. */
      const solvedAfterRenamedHit = (provenance: typeof solvedView.provenance) => {
        const d = retrieving();
        const step = d.reply(SearchSolutions, RetrievalHit, { candidate: renamed, trace: [] });
        const [child] = SagaDriver.started(step);
        if (child === undefined) throw new Error('no solve run');
        d.child(SOLVE_WORKFLOW, child.runId, 'SUCCEEDED', { ...solvedView, provenance });
        d.reply(RegisterSolution, ProblemRegistered, { problemId: PROBLEM, created: false });
        d.reply(RegisterSolution, AssetVersionCreated, {
          problemId: PROBLEM,
          assetVersionId: NEW_ASSET,
          assetType: 'solution_html',
          version: 2,
          storageKey: 'solutions/k.html',
          contentType: 'text/html',
        });
        return d.reply(IndexDocument, DocumentIndexed, { assetVersionId: NEW_ASSET, problemId: PROBLEM });
      };

      it('then the stored solution (written in x) is not served: the solve run renders it in the asker\'s names, and it is never a near-miss', () => {
        const d = retrieving();
        const step = d.reply(SearchSolutions, RetrievalHit, { candidate: renamed, trace: [] });
        expect(step.state).toBe('GENERATING_SOLUTION');
        expect(step.steps()).toEqual(['renamed_maths_hit', 'retrieval_hit_renamed', 'child_started']);
        expect(step.applied.logs[0]).toMatchObject({ payload: { asset_version_id: ASSET, relabel: [{ from: 'x', to: 'k' }] } });
        expect(dataAt(d, 'generating')).toMatchObject({ topCandidate: null, renamedHit: { assetVersionId: ASSET, relabel: [{ from: 'x', to: 'k' }] } });
        // The run's view names the renaming while it is solved again.
        expect(step.view()).toMatchObject({ status: 'running', relabelled_from: { asset_version_id: ASSET, relabel: [{ from: 'x', to: 'k' }] } });
      });

      it('then, rendered by the maths engine (a structured solution), the outcome is a hit with the new asset in the asker\'s names', () => {
        const step = solvedAfterRenamedHit({ ...PROVENANCE, model: 'maths-engine', costUsd: 0, mathsEngine: 'solved' });
        expect(step.state).toBe('SUCCEEDED');
        expect(step.view()).toMatchObject({
          outcome: 'hit',
          output: { asset_version_id: NEW_ASSET, is_approximate: false },
          relabelled_from: { asset_version_id: ASSET, relabel: [{ from: 'x', to: 'k' }] },
        });
      });

      it('then, solved afresh by a model (prose is never relabelled), the outcome is new', () => {
        const step = solvedAfterRenamedHit(PROVENANCE);
        expect(step.view()).toMatchObject({ outcome: 'new', output: { asset_version_id: NEW_ASSET }, relabelled_from: { asset_version_id: ASSET } });
      });

      it('when it is the top candidate of a miss, or a hit below the bar, then it is not kept for the near-miss rule', () => {
        const miss = retrieving();
        miss.reply(SearchSolutions, RetrievalMiss, { topCandidate: renamed, trace: [] });
        expect(dataAt(miss, 'generating').topCandidate).toBeNull();
        const below = retrieving(retrieveOrGenerateDefinition({ policy: withPolicy({ defaults: { maths_signature_threshold: 0.99 } }) }));
        expect(below.reply(SearchSolutions, RetrievalHit, { candidate: renamed, trace: [] }).state).toBe('GENERATING_SOLUTION');
        expect(dataAt(below, 'generating').topCandidate).toBeNull();
      });
    });

    it('when retrieval times out, then it retries 3 times with exponential backoff (1 s, 2 s, 4 s), then FAILED', () => {
      const d = retrieving();
      const delays: number[] = [];
      for (let retry = 1; retry <= 3; retry += 1) {
        expect(d.fire(`resend:retrieve:${retry}`).state).toBe('RETRIEVING');
        delays.push(d.delayOf('retry:retrieve'));
        expect(d.fire('retry:retrieve').sent(SearchSolutions)).toHaveLength(1);
      }
      expect(delays).toEqual([1_000, 2_000, 4_000]);
      const failed = d.fire('resend:retrieve:4');
      expect(failed.state).toBe('FAILED');
      expect(failed.view()).toMatchObject({ error_code: 'retrieval_timeout' });
    });

    it('when a MediaNormalized arrives again (a duplicate), then it is ignored', () => {
      const d = retrieving();
      expect(d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG }).outcome).toBe('ignored');
    });

    it('when cancelled, then CANCELLED', () => {
      expect(retrieving().cancel().state).toBe('CANCELLED');
    });
  });
});
