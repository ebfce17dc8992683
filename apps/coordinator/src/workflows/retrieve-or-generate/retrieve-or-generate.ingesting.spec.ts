import { InputRefused, MediaNormalized, MediaRejected, mediaRejectionReason, NormalizeMedia, RetrievalHit, RunStateChanged, SearchSolutions } from '@openpaw/contracts';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { SagaDriver, sha256Of, signature, uuid } from '../testing/saga-driver.js';
import { candidate, dataOf, definition, ingesting, SIG, START, withPolicy } from './testing/given.js';
import { problemKeyOf } from './problem-key.js';
import { retrieveOrGenerateDefinition } from './retrieve-or-generate.definition.js';

describe('retrieve_or_generate', () => {
  describe('given a submission', () => {
    it('when started, then the policy is logged first, and it moves to INGESTING sending NormalizeMedia with a step timeout', () => {
      const d = new SagaDriver(definition);
      const step = d.start(START);
      expect(step.state).toBe('INGESTING');
      expect(step.steps()).toEqual(['run_started', 'policy_applied', 'ingest_requested']);
      expect(step.applied.logs[1]?.payload).toMatchObject({
        policy: {
          retrieval_threshold: 0.85,
          video_generation: 'async',
          retry_max: 3,
          cost_cap_usd: 0.1,
          primary_model: 'local/deterministic',
          fallback_models: [],
        },
        subscription_tier: 'free',
        content_sensitivity: 'standard',
      });
      expect(step.sent(NormalizeMedia)).toEqual([{ runId: d.runId, tenant: { userId: d.userId, subscriptionTier: 'free' }, submission: START.submission }]);
      expect(d.pendingTimers()).toEqual(['deadline', 'resend:ingest:1']);
      expect(d.delayOf('resend:ingest:1')).toBe(DEFAULT_WORKFLOW_TIMINGS.ingest.timeoutMs);
      expect(step.sent(RunStateChanged)).toEqual([expect.objectContaining({ stateBefore: null, stateAfter: 'INGESTING' })]);
    });

    it('when started by a sensitive enterprise submission, then that policy governs the run', () => {
      const d = ingesting(definition, { ...START, subscriptionTier: 'enterprise', contentSensitivity: 'sensitive', intent: 'explain' });
      expect(dataOf(d).policy).toMatchObject({ retrieval_threshold: 0.95, video_generation: 'skip', retry_max: 5, cost_cap_usd: 2 });
      expect(dataOf(d).request.intent).toBe('explain');
    });

    it("when the user has a policy override, then the user's policy is applied", () => {
      const def = retrieveOrGenerateDefinition({ policy: withPolicy({ users: { 'user-1': { retrieval_threshold: 0.9, primary_model: 'openai/gpt-4o-mini' } } }) });
      const step = new SagaDriver(def).start(START);
      expect(step.applied.logs[1]?.payload['policy']).toMatchObject({ retrieval_threshold: 0.9, primary_model: 'openai/gpt-4o-mini' });
    });

    it.each([
      ['no content digest', { submission: START.submission }],
      ['no submission', { contentDigest: START.contentDigest }],
      ['an empty text', { ...START, submission: { kind: 'text', text: '' } }],
      ['a non-http URL', { ...START, submission: { kind: 'url', url: 'file:///etc/passwd' } }],
      ['an unknown tier', { ...START, subscriptionTier: 'platinum' }],
    ])('when started with %s, then the start is refused as invalid input', (_, input) => {
      const step = new SagaDriver(definition).start(input);
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });

    it('when started twice with the same key while running, then the second start is ignored', () => {
      const d = ingesting();
      expect(d.start(START).outcome).toBe('ignored');
    });
  });
  describe('given a run in INGESTING', () => {
    it('when the media is normalised, then RETRIEVING with SearchSolutions at the policy threshold', () => {
      const d = ingesting();
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      expect(step.state).toBe('RETRIEVING');
      // Spec 01's key is claimed first (free here), in the same transaction, then the search is sent.
      expect(step.steps()).toEqual(['media_normalized', 'key_claim_requested', 'problem_key_claimed']);
      expect(step.applied.logs[1]?.payload).toMatchObject({ key: problemKeyOf(SIG, d.userId, undefined) });
      expect(step.sent(SearchSolutions)).toEqual([
        { runId: d.runId, signature: SIG, threshold: 0.85, mathsSignatureThreshold: 0.85, methodThresholds: { exactPhash: 1, nearDuplicate: 0.95, exactText: 0.99, hybridOffset: 0.02 } },
      ]);
      expect(step.view()).toMatchObject({ status: 'running', state: 'RETRIEVING', problem_signature: { text_sha256: SIG.textSha256, subject: 'algebra' } });
      expect(d.pendingTimers()).toEqual(['deadline', 'resend:retrieve:1']);
    });

    it('when ingestion tags the content sensitive, then the policy is resolved again with the sensitive layer: retrieval at 0.95, no video', () => {
      const d = ingesting();
      const tagged = { ...SIG, contentSensitivity: 'sensitive' as const, sensitivityReasons: ['personal_data'] };
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: tagged });
      expect(step.state).toBe('RETRIEVING');
      expect(step.steps()).toEqual(['policy_applied', 'media_normalized', 'key_claim_requested', 'problem_key_claimed']);
      expect(step.applied.logs[0]?.payload).toMatchObject({
        content_sensitivity: 'sensitive',
        sensitivity_reasons: ['personal_data'],
        policy: { retrieval_threshold: 0.95, video_generation: 'skip' },
      });
      expect(step.sent(SearchSolutions)).toEqual([expect.objectContaining({ threshold: 0.95 })]);
      // A vector hit at 0.9 would have served a standard submission; this one must generate.
      const miss = d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.9, 'vector'), trace: [] });
      expect(miss.state).toBe('GENERATING_SOLUTION');
    });

    it('when the client already marked it sensitive, then the policy stays the one applied at the start', () => {
      const d = ingesting(definition, { ...START, contentSensitivity: 'sensitive' });
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: { ...SIG, contentSensitivity: 'standard' } });
      expect(step.steps()).toEqual(['media_normalized', 'key_claim_requested', 'problem_key_claimed']);
      expect(step.sent(SearchSolutions)).toEqual([expect.objectContaining({ threshold: 0.95 })]);
    });

    it('when an image is normalised without OCR text, then its image hash is signature enough', () => {
      const d = ingesting();
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'image', signature: signature({ normalizedText: '', phash: 'f0f0f0f0f0f0f0f0', imageSha256: sha256Of('b') }) });
      expect(step.state).toBe('RETRIEVING');
    });

    it('when the media is "normalised" without a computed signature (no text, no image hash), then the guard refuses it', () => {
      const d = ingesting();
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: signature({ normalizedText: '  ' }) });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('INGESTING');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input', detail: expect.stringContaining('signature') })]);
    });

    it.each(mediaRejectionReason.options)('when the media is rejected as %s, then FAILED with that reason as error_code', (reason) => {
      const d = ingesting();
      const step = d.reply(NormalizeMedia, MediaRejected, { reason, detail: `because ${reason}` });
      expect(step.state).toBe('FAILED');
      expect(step.steps()).toEqual(['error_recorded', 'media_rejected']);
      expect(step.applied.logs[0]?.payload).toMatchObject({ error_code: reason, detail: `because ${reason}` });
      expect(step.view()).toMatchObject({ status: 'failed', error_code: reason, state: 'FAILED', output: {} });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when ingestion times out, then it retries policy.retry_max times after 1 s, 4 s and 16 s, each a new command, then FAILED', () => {
      const d = ingesting();
      const delays: number[] = [];
      for (let retry = 1; retry <= 3; retry += 1) {
        const timedOut = d.fire(`resend:ingest:${retry}`);
        expect(timedOut.state).toBe('INGESTING');
        expect(timedOut.steps()).toEqual(['retry_scheduled', 'ingest_timed_out']);
        delays.push(d.delayOf('retry:ingest'));
        const retried = d.fire('retry:ingest');
        expect(retried.steps()).toEqual(['ingest_retried']);
        expect(retried.sent(NormalizeMedia)).toEqual([{ runId: d.runId, tenant: { userId: d.userId, subscriptionTier: 'free' }, submission: START.submission }]);
      }
      expect(delays).toEqual([1_000, 4_000, 16_000]);
      expect(d.commandCount(NormalizeMedia)).toBe(4);
      const failed = d.fire('resend:ingest:4');
      expect(failed.state).toBe('FAILED');
      expect(failed.view()).toMatchObject({ error_code: 'ingest_timeout' });
    });

    it('when the policy allows one retry, then the second timeout fails the run', () => {
      const def = retrieveOrGenerateDefinition({ policy: withPolicy({ users: { 'user-1': { retry_max: 1 } } }) });
      const d = ingesting(def);
      d.fire('resend:ingest:1');
      d.fire('retry:ingest');
      expect(d.fire('resend:ingest:2').state).toBe('FAILED');
    });

    it('when the first try answers late, during the backoff, then it is accepted and the backoff timer cleared', () => {
      const d = ingesting();
      d.fire('resend:ingest:1');
      expect(d.pendingTimers()).toEqual(['deadline', 'retry:ingest']);
      const step = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG }, 0);
      expect(step.state).toBe('RETRIEVING');
      expect(d.pendingTimers()).toEqual(['deadline', 'resend:retrieve:1']);
    });

    it('when a reply names a command this run never sent, then it is ignored', () => {
      const d = ingesting();
      const step = d.event(MediaNormalized, { runId: d.runId, commandId: uuid(999), mediaType: 'text', signature: SIG });
      expect(step.outcome).toBe('ignored');
      expect(step.state).toBe('INGESTING');
    });

    it('when cancelled by its owner, then CANCELLED and every timer cleared', () => {
      const d = ingesting();
      const step = d.cancel();
      expect(step.state).toBe('CANCELLED');
      expect(step.view()).toMatchObject({ status: 'cancelled', state: 'CANCELLED' });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when a late MediaNormalized arrives after cancellation, then it is ignored', () => {
      const d = ingesting();
      d.cancel();
      const late = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      expect(late.outcome).toBe('ignored');
      expect(late.state).toBe('CANCELLED');
    });
  });
});
