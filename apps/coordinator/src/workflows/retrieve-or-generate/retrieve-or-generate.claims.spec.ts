import { CancelRun, MediaNormalized, NormalizeMedia, RetrievalHit, SearchSolutions } from '@openpaw/contracts';
import { KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderEndedPayload, replayRun } from '@openpaw/saga';
import { SagaDriver, sha256Of, signature, uuid } from '../testing/saga-driver.js';
import { ASSET, candidate, dataAt, definition, ingesting, NEAR_ASSET, SIG, START, viewOf } from './testing/given.js';
import { problemKeyOf } from './problem-key.js';

describe('retrieve_or_generate', () => {
  describe('idempotency by problem signature (spec 01; ADR 0016): the key claimed after INGESTING', () => {
    const EARLIER = uuid(0xe1);
    const key = problemKeyOf(SIG, 'user-1', undefined);
    const earlierView = (over: Record<string, unknown> = {}) => ({
      status: 'succeeded',
      outcome: 'new',
      output: { asset_version_id: ASSET, video_pending: true, is_approximate: false },
      workflow_run_id: EARLIER,
      attempt_no: 1,
      cost_usd: 0.02,
      duration_ms: 900,
      state: 'SUCCEEDED',
      ...over,
    });
    const earlier = (state: string, terminal: boolean, view: Record<string, unknown> = earlierView({ status: 'running', state, output: {} })) => ({
      runId: EARLIER,
      state,
      attemptNo: 1,
      terminal,
      view,
    });
    const holderEnded = (holder: ReturnType<typeof earlier>) => ({
      kind: 'timer' as const,
      name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}${key}`,
      payload: keyHolderEndedPayload(key, holder),
    });
    const normalised = (d: SagaDriver) => d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });

    it('given an earlier run of the same user, signature and intent SUCCEEDED, when the media is normalised, then SUCCEEDED with its result: no search, no solve, no video', () => {
      const d = ingesting().givenKeyHeldBy(earlier('SUCCEEDED', true, earlierView()));
      const step = normalised(d);
      expect(step.state).toBe('SUCCEEDED');
      expect(step.steps()).toEqual(['media_normalized', 'key_claim_requested', 'problem_key_held', 'answered_from_earlier_run']);
      expect(step.sent(SearchSolutions)).toEqual([]);
      expect(SagaDriver.started(step)).toEqual([]);
      expect(d.s.run.data).toMatchObject({ cachedFrom: EARLIER });
      expect(d.pendingTimers()).toEqual([]);
      expect(viewOf(d)).toMatchObject({
        status: 'succeeded',
        outcome: 'new',
        output: { asset_version_id: ASSET, video_pending: true, is_approximate: false },
        cached_from: EARLIER,
        cost_usd: 0,
        attempt_no: 1,
        workflow_run_id: d.runId,
      });
    });

    it('keeps the earlier outcome as it was: a hit, or an approximate near-miss', () => {
      const d = ingesting().givenKeyHeldBy(earlier('SUCCEEDED', true, earlierView({ outcome: 'hit', output: { asset_version_id: NEAR_ASSET, video_pending: false, is_approximate: true } })));
      normalised(d);
      expect(dataAt(d, 'succeeded').result).toEqual({ outcome: 'hit', assetVersionId: NEAR_ASSET, isApproximate: true, videoPending: false, indexDeferred: false });
    });

    it('given the earlier run still going, then the run waits in RETRIEVING for it; when it SUCCEEDS, then this run SUCCEEDS with its result', () => {
      const d = ingesting().givenKeyHeldBy(earlier('GENERATING_SOLUTION', false));
      const waiting = normalised(d);
      expect(waiting.state).toBe('RETRIEVING');
      expect(waiting.steps()).toEqual(['media_normalized', 'key_claim_requested', 'problem_key_held', 'waiting_for_earlier_run']);
      expect(waiting.sent(SearchSolutions)).toEqual([]);
      expect(viewOf(d)).toMatchObject({ status: 'running', state: 'RETRIEVING', waiting_for_run_id: EARLIER });
      // A stray retrieval reply while waiting answers no command of this run.
      expect(d.event(RetrievalHit, { runId: d.runId, commandId: uuid(999), candidate: candidate(0.99), trace: [] }).outcome).toBe('ignored');
      const ended = d.when(holderEnded(earlier('SUCCEEDED', true, earlierView())));
      expect(ended.state).toBe('SUCCEEDED');
      expect(ended.view()).toMatchObject({ outcome: 'new', output: { asset_version_id: ASSET }, cached_from: EARLIER });
      expect(ended.view()).not.toHaveProperty('waiting_for_run_id');
    });

    it('given the earlier run it waited for FAILED (or was CANCELLED), then it claims the key again, takes it over and searches', () => {
      for (const state of ['FAILED', 'CANCELLED']) {
        const d = ingesting().givenKeyHeldBy(earlier('INGESTING', false));
        normalised(d);
        const released = earlier(state, true, earlierView({ status: state.toLowerCase(), state, output: {} }));
        const step = d.givenKeyHeldBy(released).when(holderEnded(released));
        expect(step.state).toBe('RETRIEVING');
        expect(step.steps()).toEqual(['problem_key_held', 'earlier_run_released_key', 'key_claim_requested', 'problem_key_claimed']);
        expect(step.sent(SearchSolutions)).toHaveLength(1);
      }
    });

    it('given an earlier run that already FAILED, then the engine hands the key over and the run searches at once', () => {
      const d = ingesting().givenKeyHeldBy(earlier('FAILED', true, earlierView({ status: 'failed', state: 'FAILED', output: {} })));
      expect(normalised(d).sent(SearchSolutions)).toHaveLength(1);
    });

    it('given the earlier run SUCCEEDED with a view it cannot read, then it searches rather than answer with nothing', () => {
      const d = ingesting().givenKeyHeldBy(earlier('SUCCEEDED', true, { status: 'succeeded' }));
      const step = normalised(d);
      expect(step.state).toBe('RETRIEVING');
      expect(step.steps()).toContain('earlier_run_unreadable');
      expect(step.sent(SearchSolutions)).toHaveLength(1);
    });

    it('when cancelled while it waits, then CANCELLED; the earlier run is not touched', () => {
      const d = ingesting().givenKeyHeldBy(earlier('GENERATING_SOLUTION', false));
      normalised(d);
      const cancelled = d.cancel();
      expect(cancelled.state).toBe('CANCELLED');
      expect(cancelled.sent(CancelRun)).toEqual([]);
      expect(d.when(holderEnded(earlier('SUCCEEDED', true, earlierView()))).outcome).toBe('ignored');
    });

    it('replays a run answered from an earlier one after waiting', () => {
      const d = ingesting().givenKeyHeldBy(earlier('RETRIEVING', false));
      normalised(d);
      d.when(holderEnded(earlier('SUCCEEDED', true, earlierView())));
      expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });

    describe('the key: sha256(problem signature + user + intent)', () => {
      it('is the same for the same canonical text, typed or photographed as a page of text', () => {
        const text = 'solve 2x+3=7 for x';
        expect(problemKeyOf(signature({ normalizedText: text }), 'user-1', 'solve')).toBe(problemKeyOf(signature({ normalizedText: text, imageSha256: sha256Of('c'), phash: 'f0f0f0f0f0f0f0f0', ocrConfidence: 90 }), 'user-1', 'solve'));
      });
      it('is the image\'s for an image that carries more than its text: two figures captioned "find x." are two keys (retrieval\'s rule)', () => {
        const figure = (phash: string, image: string) => problemKeyOf(signature({ normalizedText: 'find x.', imageSha256: sha256Of(image), phash, ocrConfidence: 95 }), 'user-1', 'solve');
        expect(figure('f0f0f0f0f0f0f0f0', 'b')).not.toBe(figure('0f0f0f0f0f0f0f0f', 'c'));
        expect(figure('f0f0f0f0f0f0f0f0', 'b')).toBe(figure('f0f0f0f0f0f0f0f0', 'c'));
        // A low-confidence reading of a long text is no page of text either.
        const unsure = (phash: string) => problemKeyOf(signature({ normalizedText: 'solve 2x+3=7 for x', imageSha256: sha256Of('d'), phash, ocrConfidence: 20 }), 'user-1', 'solve');
        expect(unsure('f0f0f0f0f0f0f0f0')).not.toBe(unsure('0f0f0f0f0f0f0f0f'));
      });
      it('differs by user, by intent and by signature', () => {
        const base = problemKeyOf(SIG, 'user-1', 'solve');
        expect(problemKeyOf(SIG, 'user-2', 'solve')).not.toBe(base);
        expect(problemKeyOf(SIG, 'user-1', 'explain')).not.toBe(base);
        expect(problemKeyOf(signature({ textSha256: sha256Of('f') }), 'user-1', 'solve')).not.toBe(base);
        // Length-prefixed parts: moving a character between user and intent is another key.
        expect(problemKeyOf(SIG, 'user-1s', 'olve')).not.toBe(base);
      });
      it('falls back to the pHash, then the image bytes, for an image without text', () => {
        const image = (over: Parameters<typeof signature>[0]) => problemKeyOf(signature({ normalizedText: '', ...over }), 'user-1', undefined);
        expect(image({ phash: 'f0f0f0f0f0f0f0f0', imageSha256: sha256Of('b') })).toBe(image({ phash: 'f0f0f0f0f0f0f0f0', imageSha256: sha256Of('c') }));
        expect(image({ imageSha256: sha256Of('b') })).not.toBe(image({ imageSha256: sha256Of('c') }));
      });
      it('is claimed with the run intent', () => {
        const d = ingesting(definition, { ...START, intent: 'explain' });
        const step = normalised(d);
        expect(step.applied.logs.find((l) => l.stepName === 'key_claim_requested')?.payload).toMatchObject({ key: problemKeyOf(SIG, 'user-1', 'explain') });
      });
    });
  });
});
