import { IndexDocument, InputRefused, RegisterSolution } from '@openpaw/contracts';
import { DEFAULT_POLICY_CONFIG } from '../policy/index.js';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { REINDEX_ASSET, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import { SagaDriver, uuid } from '../testing/saga-driver.js';
import { ASSET, assetVersionCreated, dataAt, definition, documentIndexed, indexing, PROBLEM, problemRegistered, registering, SIG, START } from './testing/given.js';

describe('retrieve_or_generate', () => {
  describe('given a run in REGISTERING', () => {
    it('when the run deadline passes (the registry queued too long), then FAILED deadline_exceeded, and the generated solution is kept', () => {
      const d = registering();
      expect(d.delayOf('deadline')).toBe(DEFAULT_POLICY_CONFIG.defaults.run_deadline_ms);
      const step = d.fire('deadline');
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'deadline_exceeded' });
      expect(dataAt(d, 'failed').solution).toMatchObject({ storageKey: 'solutions/abc.html' });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when ProblemRegistered then AssetVersionCreated arrive, then it waits for both, then INDEXING with IndexDocument', () => {
      const d = registering();
      const first = problemRegistered(d);
      expect(first.state).toBe('REGISTERING');
      expect(first.steps()).toEqual(['problem_registered']);
      expect(dataAt(d, 'registering').problemRegistered).toEqual({ problemId: PROBLEM, created: true });
      const second = assetVersionCreated(d);
      expect(second.state).toBe('INDEXING');
      expect(second.steps()).toEqual(['asset_version_created']);
      expect(second.sent(IndexDocument)).toEqual([{ runId: d.runId, problemId: PROBLEM, assetVersionId: ASSET, signature: SIG }]);
      expect(d.pendingTimers()).toEqual(['deadline', 'resend:index:1']);
      expect(d.delayOf('resend:index:1')).toBe(DEFAULT_WORKFLOW_TIMINGS.index.timeoutMs);
    });

    it('when AssetVersionCreated arrives before ProblemRegistered, then the same', () => {
      const d = registering();
      const first = assetVersionCreated(d);
      expect(first.state).toBe('REGISTERING');
      expect(dataAt(d, 'registering').assetVersionCreated).toEqual({ assetVersionId: ASSET, problemId: PROBLEM, version: 1 });
      const second = problemRegistered(d);
      expect(second.state).toBe('INDEXING');
      expect(second.sent(IndexDocument)).toHaveLength(1);
    });

    it('when ProblemRegistered arrives twice, then the second is ignored', () => {
      const d = registering();
      problemRegistered(d);
      expect(problemRegistered(d).outcome).toBe('ignored');
    });

    it('when the created version is not a solution_html, then the guard refuses it', () => {
      const d = registering();
      const step = assetVersionCreated(d, { assetType: 'video' });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('REGISTERING');
    });

    it('when the two events name different problems, then the second is refused', () => {
      const d = registering();
      problemRegistered(d);
      const step = assetVersionCreated(d, { problemId: uuid(0xdead) });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('REGISTERING');
    });

    it('when registration times out, then it retries 5 times with exponential backoff, then FAILED', () => {
      const d = registering();
      const delays: number[] = [];
      for (let retry = 1; retry <= 5; retry += 1) {
        expect(d.fire(`resend:register:${retry}`).state).toBe('REGISTERING');
        delays.push(d.delayOf('retry:register'));
        expect(d.fire('retry:register').sent(RegisterSolution)).toHaveLength(1);
      }
      expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
      const failed = d.fire('resend:register:6');
      expect(failed.state).toBe('FAILED');
      expect(failed.view()).toMatchObject({ error_code: 'registration_timeout' });
    });

    it('when one event came before the timeout and the retry brings the other, then INDEXING', () => {
      const d = registering();
      problemRegistered(d);
      d.fire('resend:register:1');
      d.fire('retry:register');
      expect(assetVersionCreated(d).state).toBe('INDEXING');
    });

    it('when cancelled, then refused as an illegal transition (409); the run carries on to SUCCEEDED', () => {
      const d = registering();
      const step = d.cancel();
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('REGISTERING');
      expect(step.steps()).toEqual(['transition_refused']);
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'illegal_transition', state: 'REGISTERING' })]);
      problemRegistered(d);
      assetVersionCreated(d);
      expect(documentIndexed(d).state).toBe('SUCCEEDED');
    });
  });
  describe('given a run in INDEXING', () => {
    it('when indexed, then SUCCEEDED outcome=new, and the video enqueued in the background with video_pending (async)', () => {
      const d = indexing();
      const step = documentIndexed(d);
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['document_indexed', 'background_started']);
      expect(step.view()).toMatchObject({ status: 'succeeded', outcome: 'new', output: { asset_version_id: ASSET, video_pending: true, is_approximate: false } });
      expect(SagaDriver.started(step)).toEqual([
        expect.objectContaining({ workflowType: VIDEO_WORKFLOW, input: { problemId: PROBLEM, solutionAssetVersionId: ASSET, mode: 'async' } }),
      ]);
      expect(SagaDriver.started(step)[0]?.parentRunId).toBeUndefined();
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when the policy renders video sync, then the video run is sync and video_pending is true while it renders', () => {
      const d = indexing(definition, { ...START, subscriptionTier: 'enterprise' });
      const step = documentIndexed(d);
      expect(SagaDriver.started(step)).toEqual([expect.objectContaining({ workflowType: VIDEO_WORKFLOW, input: expect.objectContaining({ mode: 'sync' }) })]);
      expect(step.view()).toMatchObject({ output: { video_pending: true } });
    });

    it('when the policy skips video, then no video run and video_pending is false', () => {
      const d = indexing(definition, { ...START, contentSensitivity: 'sensitive' });
      const step = documentIndexed(d);
      expect(step.state).toBe('SUCCEEDED');
      expect(SagaDriver.started(step)).toEqual([]);
      expect(step.view()).toMatchObject({ outcome: 'new', output: { video_pending: false } });
    });

    it('when indexing times out, then SUCCEEDED anyway: index_deferred logged, reindex_asset and video started in the background', () => {
      const d = indexing();
      const step = d.fire('resend:index:1');
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['index_deferred', 'index_timed_out', 'background_started', 'background_started']);
      expect(step.applied.logs[0]?.payload).toMatchObject({ reason: 'timeout', asset_version_id: ASSET });
      expect(SagaDriver.started(step)).toEqual([
        expect.objectContaining({ workflowType: REINDEX_ASSET, input: { problemId: PROBLEM, assetVersionId: ASSET, signature: SIG } }),
        expect.objectContaining({ workflowType: VIDEO_WORKFLOW }),
      ]);
      expect(step.view()).toMatchObject({ outcome: 'new', output: { asset_version_id: ASSET, video_pending: true } });
    });

    it('when DocumentIndexed arrives for another asset version, then it is refused', () => {
      const d = indexing();
      const step = documentIndexed(d, uuid(0xbad));
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('INDEXING');
    });

    it('when cancelled, then refused as an illegal transition', () => {
      const d = indexing();
      const step = d.cancel();
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('INDEXING');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'illegal_transition', state: 'INDEXING' })]);
    });
  });
});
