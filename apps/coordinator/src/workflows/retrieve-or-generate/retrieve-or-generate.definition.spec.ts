import {
  AssetVersionCreated,
  CancelRun,
  DocumentIndexed,
  IndexDocument,
  InputRefused,
  MediaNormalized,
  MediaRejected,
  mediaRejectionReason,
  NormalizeMedia,
  ProblemRegistered,
  RegisterSolution,
  retrieveOrGenerateResult,
  retrieveOrGenerateView,
  RetrievalHit,
  RetrievalMiss,
  RunStateChanged,
  SearchSolutions,
  type MessageData,
} from '@openpaw/contracts';
import { childRunIdFor, commandIdFor, isAllowed, KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderEndedPayload, replayRun, SagaRegistry, validateDefinition } from '@openpaw/saga';
import { createWorkflowDefinitions } from '../index.js';
import { DEFAULT_POLICY_CONFIG, mergePolicyConfig, type PolicyConfig } from '../policy/index.js';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { REINDEX_ASSET, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import { type SolveView } from '../solve/solve-workflow.definition.js';
import { SagaDriver, sha256Of, signature, uuid } from '../testing/saga-driver.js';
import {
  type DataAt,
  RETRIEVE_OR_GENERATE_STATES,
  RETRIEVE_OR_GENERATE_TRANSITIONS,
  type RetrieveOrGenerateData,
  retrieveOrGenerateDefinition,
  SPEC_TRANSITIONS,
} from './retrieve-or-generate.definition.js';
import { problemKeyOf } from './problem-key.js';

const definition = retrieveOrGenerateDefinition();
const START = { submission: { kind: 'text', text: '2x + 3 = 7' }, contentDigest: sha256Of('d') };
const SIG = signature();
const PROBLEM = uuid(0xb1);
const ASSET = uuid(0xa1);
const NEAR_ASSET = uuid(0xc1);
const PROVENANCE = { model: 'local/deterministic', promptVersion: 'solve-v1', inputTokens: 120, outputTokens: 800, costUsd: 0.02, latencyMs: 40 };

type Candidate = MessageData<typeof RetrievalHit>['candidate'];
const candidate = (confidence: number, method: Candidate['method'] = 'vector', assetVersionId = ASSET): Candidate => ({
  assetVersionId,
  problemId: PROBLEM,
  confidence,
  method,
});

const solvedView: SolveView = {
  status: 'succeeded',
  state: 'SUCCEEDED',
  attempts: 1,
  model: 'local/deterministic',
  cost_usd: 0.02,
  duration_ms: 12,
  storageKey: 'solutions/abc.html',
  contentSha256: sha256Of('e'),
  provenance: PROVENANCE,
};
/** A failed solve run's view; by default it failed after all its retries (the spec's near-miss condition). */
const failedView = (errorCode: string, costUsd = 0.03, retriesExhausted = true): SolveView => ({
  status: 'failed',
  state: 'FAILED',
  attempts: 4,
  model: 'local/deterministic',
  cost_usd: costUsd,
  duration_ms: 12,
  error_code: errorCode,
  retries_exhausted: retriesExhausted,
});

const dataOf = (d: SagaDriver): RetrieveOrGenerateData => d.s.run.data as RetrieveOrGenerateData;
/** The run's data, which must be at `stage`. */
function dataAt<K extends RetrieveOrGenerateData['stage']>(d: SagaDriver, stage: K): DataAt<K> {
  const data = dataOf(d);
  expect(data.stage).toBe(stage);
  return data as DataAt<K>;
}
/** The run's view as it stands (after the last input, which may have been a claim's answer). */
const viewOf = (d: SagaDriver) => definition.view(d.s.run as Parameters<typeof definition.view>[0]);

function withPolicy(patch: Parameters<typeof mergePolicyConfig>[1]): PolicyConfig {
  return mergePolicyConfig(DEFAULT_POLICY_CONFIG, patch);
}

// Given helpers: a run brought to each state through the inputs that lead there.
function ingesting(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = new SagaDriver(def);
  d.start(input);
  return d;
}
function retrieving(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = ingesting(def, input);
  d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
  return d;
}
function generating(topCandidate: Candidate | null = null, def = definition, input: Record<string, unknown> = START): { d: SagaDriver; solveRunId: string } {
  const d = retrieving(def, input);
  const step = d.reply(SearchSolutions, RetrievalMiss, { topCandidate, trace: [] });
  const [child] = SagaDriver.started(step);
  if (child === undefined) throw new Error('no child run');
  return { d, solveRunId: child.runId };
}
function registering(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const { d, solveRunId } = generating(null, def, input);
  d.child(SOLVE_WORKFLOW, solveRunId, 'SUCCEEDED', solvedView);
  return d;
}
const problemRegistered = (d: SagaDriver) => d.reply(RegisterSolution, ProblemRegistered, { problemId: PROBLEM, created: true });
const assetVersionCreated = (d: SagaDriver, over: Partial<MessageData<typeof AssetVersionCreated>> = {}) =>
  d.reply(RegisterSolution, AssetVersionCreated, {
    problemId: PROBLEM,
    assetVersionId: ASSET,
    assetType: 'solution_html',
    version: 1,
    storageKey: 'solutions/abc.html',
    contentType: 'text/html',
    ...over,
  });
function indexing(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = registering(def, input);
  problemRegistered(d);
  assetVersionCreated(d);
  return d;
}
const documentIndexed = (d: SagaDriver, assetVersionId = ASSET) => d.reply(IndexDocument, DocumentIndexed, { assetVersionId, problemId: PROBLEM });

describe('retrieve_or_generate', () => {
  describe('the transition table', () => {
    it("is the spec's TRANSITIONS, verbatim", () => {
      expect(SPEC_TRANSITIONS).toEqual({
        INITIATED: ['INGESTING', 'CANCELLED'],
        INGESTING: ['RETRIEVING', 'FAILED', 'CANCELLED'],
        RETRIEVING: ['SUCCEEDED', 'GENERATING_SOLUTION', 'FAILED', 'CANCELLED'],
        GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED'],
        REGISTERING: ['INDEXING', 'FAILED'],
        INDEXING: ['SUCCEEDED', 'FAILED'],
      });
    });

    it('enforces exactly that table plus the near-miss edge GENERATING_SOLUTION -> SUCCEEDED', () => {
      // The table the engine enforces is derived from the definition's rows: it must be the spec's (+ near-miss).
      const sorted = (table: Readonly<Partial<Record<string, readonly string[]>>>) =>
        Object.fromEntries(Object.entries(table).map(([state, targets]) => [state, [...(targets ?? [])].sort()]));
      expect(sorted(definition.transitions)).toEqual(sorted(RETRIEVE_OR_GENERATE_TRANSITIONS));
      expect(RETRIEVE_OR_GENERATE_TRANSITIONS).toEqual({ ...SPEC_TRANSITIONS, GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED', 'SUCCEEDED'] });
    });

    const expected: Record<string, readonly string[]> = { ...RETRIEVE_OR_GENERATE_TRANSITIONS };
    const pairs = RETRIEVE_OR_GENERATE_STATES.flatMap((from) => RETRIEVE_OR_GENERATE_STATES.map((to) => [from, to] as const));
    it.each(pairs)('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it('has SUCCEEDED, FAILED and CANCELLED terminal, cancels to CANCELLED, re-attempts from FAILED and CANCELLED, and validates', () => {
      expect(definition.terminal).toEqual(['SUCCEEDED', 'FAILED', 'CANCELLED']);
      expect(definition.cancelledState).toBe('CANCELLED');
      expect(definition.retryableFrom).toEqual(['FAILED', 'CANCELLED']);
      expect(() => validateDefinition(definition)).not.toThrow();
    });

    it('registers with its three companions in one registry, which routes every reply it waits for', () => {
      const registry = new SagaRegistry(createWorkflowDefinitions());
      expect(registry.all().map((d) => d.type)).toEqual(['retrieve_or_generate', SOLVE_WORKFLOW, VIDEO_WORKFLOW, REINDEX_ASSET]);
      for (const event of [MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed]) {
        expect(registry.consumes('retrieve_or_generate', event.subject)).toBe(true);
      }
    });
  });

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
      expect(step.sent(NormalizeMedia)).toEqual([{ runId: d.runId, submission: START.submission }]);
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
        { runId: d.runId, signature: SIG, threshold: 0.85, methodThresholds: { exactPhash: 1, nearDuplicate: 0.95, exactText: 0.99, hybridOffset: 0.02 } },
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
        expect(retried.sent(NormalizeMedia)).toEqual([{ runId: d.runId, submission: START.submission }]);
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
      it('is the same for the same canonical text, whatever was submitted', () => {
        expect(problemKeyOf(signature({ normalizedText: '2x+3=7' }), 'user-1', 'solve')).toBe(problemKeyOf(signature({ normalizedText: '2x+3=7', imageSha256: sha256Of('c'), phash: 'f0f0f0f0f0f0f0f0' }), 'user-1', 'solve'));
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

  describe('ids shared with the engine', () => {
    it("a step's command id is the id the engine gave the command", () => {
      const d = ingesting();
      expect(d.commandId(NormalizeMedia)).toBe(commandIdFor(d.runId, 1, 'ingest:1'));
    });
  });

  describe('replay', () => {
    const identity = (d: SagaDriver) => ({ id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null });

    it('feeds a full miss path (a retry, the child, both registry events, a refused cancel, indexing) back through the definition', () => {
      const d = ingesting();
      d.fire('resend:ingest:1');
      d.fire('retry:ingest');
      d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      const [child] = SagaDriver.started(d.reply(SearchSolutions, RetrievalMiss, { topCandidate: candidate(0.5), trace: [] }));
      d.child(SOLVE_WORKFLOW, child?.runId ?? '', 'SUCCEEDED', solvedView);
      assetVersionCreated(d);
      d.cancel();
      problemRegistered(d);
      documentIndexed(d);
      documentIndexed(d);
      expect(d.s.run.state).toBe('SUCCEEDED');
      const report = replayRun(definition, identity(d), d.logs);
      expect(report).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });

    it('replays a failed attempt and its re-attempt ending in a hit', () => {
      const d = retrieving();
      for (let retry = 1; retry <= 3; retry += 1) {
        d.fire(`resend:retrieve:${retry}`);
        d.fire('retry:retrieve');
      }
      d.fire('resend:retrieve:4');
      d.start(START);
      d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.97, 'near_duplicate'), trace: [] });
      const report = replayRun(definition, identity(d), d.logs);
      expect(report).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });
  });
});
