import { InputRefused, MediaNormalized, MediaRejected, NormalizeMedia, retrieveOrGenerateResult, retrieveOrGenerateView } from '@openpaw/contracts';
import { ASSET, documentIndexed, indexing, ingesting, SIG, START } from './testing/given.js';

describe('retrieve_or_generate', () => {
  describe('given a finished run', () => {
    it('when SUCCEEDED and the same submission starts again, then the cached result stands (no re-run)', () => {
      const d = indexing();
      documentIndexed(d);
      const again = d.start(START);
      expect(again.outcome).toBe('ignored');
      expect(again.applied.outbox).toEqual([]);
    });

    it('when a late event arrives, then it is ignored; a cancel is refused as terminal', () => {
      const d = indexing();
      documentIndexed(d);
      expect(documentIndexed(d).outcome).toBe('ignored');
      expect(d.cancel().sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'terminal' })]);
    });

    it('when CANCELLED and the same submission starts again, then attempt 2 on the same row (ADR 0016)', () => {
      const d = ingesting();
      expect(d.cancel().state).toBe('CANCELLED');
      const retry = d.start(START);
      expect(retry.state).toBe('INGESTING');
      expect(retry.applied.run?.attemptNo).toBe(2);
      expect(retry.applied.logs[0]).toMatchObject({ stateBefore: 'CANCELLED', stateAfter: 'INITIATED', attemptNo: 2 });
      expect(d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG }).state).toBe('RETRIEVING');
    });

    it('when FAILED and the same submission starts again, then attempt 2 on the same row, from INITIATED, policy first again', () => {
      const d = ingesting();
      d.reply(NormalizeMedia, MediaRejected, { reason: 'fetch_failed', detail: 'HTTP 503' });
      const retry = d.start(START);
      expect(retry.state).toBe('INGESTING');
      expect(retry.applied.run?.attemptNo).toBe(2);
      expect(retry.steps()).toEqual(['attempt_started', 'policy_applied', 'ingest_requested']);
      expect(retry.applied.logs[0]).toMatchObject({ stateBefore: 'FAILED', stateAfter: 'INITIATED', attemptNo: 2 });
      expect(retry.view()).toMatchObject({ attempt_no: 2, status: 'running', workflow_run_id: d.runId });
      expect(retry.view()).not.toHaveProperty('error_code');
      // Attempt 2's command is a new one; a late reply to attempt 1's is stale.
      expect(d.commandId(NormalizeMedia)).not.toBe(d.commandId(NormalizeMedia, 0));
      expect(d.reply(NormalizeMedia, MediaRejected, { reason: 'fetch_failed', detail: 'late' }, 0).outcome).toBe('ignored');
      expect(d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG }).state).toBe('RETRIEVING');
    });
  });
  describe('the view (WorkflowResult)', () => {
    it('while running: status, empty output, run id, attempt, cost, duration and state; no outcome or error', () => {
      const d = ingesting();
      d.advance(1_500);
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      expect(step.view()).toEqual({
        status: 'running',
        output: {},
        workflow_run_id: d.runId,
        attempt_no: 1,
        cost_usd: 0,
        duration_ms: 1_500,
        state: 'RETRIEVING',
        problem_signature: { text_sha256: SIG.textSha256, subject: 'algebra' },
      });
    });

    it('when succeeded with a new solution: exactly the spec fields', () => {
      const d = indexing();
      d.advance(2_000);
      expect(documentIndexed(d).view()).toEqual({
        status: 'succeeded',
        outcome: 'new',
        output: { asset_version_id: ASSET, video_pending: true, is_approximate: false },
        workflow_run_id: d.runId,
        attempt_no: 1,
        cost_usd: 0.02,
        duration_ms: 2_000,
        state: 'SUCCEEDED',
        problem_signature: { text_sha256: SIG.textSha256, subject: 'algebra' },
      });
    });

    it("is the contract's view as written, running or ended, so the gateway reads what the coordinator writes", () => {
      const d = ingesting();
      const running = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG }).view();
      const ended = documentIndexed(indexing()).view();
      for (const view of [running, ended]) {
        expect(retrieveOrGenerateView.parse(view)).toEqual(view);
        expect(retrieveOrGenerateResult.parse(view)).toEqual(view);
      }
    });
  });
});
