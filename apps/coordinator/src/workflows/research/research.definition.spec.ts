import {
  ExecuteResearchLegs,
  GenerateResearchTitle,
  InputRefused,
  laneOf,
  type MessageData,
  RESEARCH_LANE,
  ResearchCompleted,
  ResearchFailed,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  type ResearchProvider,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  researchView,
  SynthesizeResearch,
} from '@openpaw/contracts';
import { commandIdFor, isAllowed, type JsonObject, replayRun, RUN_DEADLINE_TIMER, type ScenarioStep, validateDefinition } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import { ALL_LLMS_FAILED, CANCELLED_BY_USER, checkLlmCompletion, MAX_RETRIES_EXCEEDED, NO_SUCCESSFUL_RESULTS, planSynthesis, UPDATE_KEY_THEN_RETRY } from './research-completion.js';
import { legCapTimer, legKey, researchDefinition, synthesisKey, TITLE_KEY } from './research.definition.js';
import { titleKey } from './research.ids.js';
import { DEFAULT_RESEARCH_TIMINGS, researchTimingsFromEnv } from './research.timings.js';
import { RESEARCH_STATES, RESEARCH_TRANSITIONS } from './research.transitions.js';

const definition = researchDefinition();
const SEALED = { openai: 'v1:b3BlbmFp:dGFn:ZGF0YQ==', anthropic: 'v1:YW50aHJv:dGFn:ZGF0YQ==', gemini: 'v1:Z2VtaW5p:dGFn:ZGF0YQ==' };
const PROMPT = 'How do heat pumps compare with gas boilers in cold climates? Cover efficiency and cost.';
const REPORT = { title: 'Field study', content: 'Cold-climate heat pumps kept a COP above 2 at -15 °C in the 2023 field study.' };

type Draft = {
  title?: string | null;
  selectedLlms?: ResearchProvider[];
  synthesisLlm?: ResearchProvider;
  externalReports?: { title?: string; content: string }[];
  keys?: Record<string, string>;
  start?: boolean;
};

function draftInput(over: Draft = {}): JsonObject {
  return {
    title: null,
    prompt: PROMPT,
    selectedLlms: ['openai', 'anthropic'],
    synthesisLlm: 'gemini',
    externalReports: [],
    keys: SEALED,
    start: true,
    subscriptionTier: 'pro',
    ...over,
  };
}

/** A run started straight into processing (POST /research without a draft). */
function processing(over: Draft = {}): SagaDriver {
  const d = new SagaDriver(definition);
  d.start(draftInput(over));
  return d;
}

const legCommandId = (d: SagaDriver, index: number, round = 1): string => commandIdFor(d.runId, 1, legKey(index, round));
const providerOf = (d: SagaDriver, index: number): ResearchProvider => (d.s.run.data as { legs: { provider: ResearchProvider }[] }).legs[index]!.provider;

function started(d: SagaDriver, index: number, round = 1): ScenarioStep {
  return d.event(ResearchLegStarted, { runId: d.runId, commandId: legCommandId(d, index, round), legIndex: index, provider: providerOf(d, index), round, startedAt: '2026-01-01T00:00:01.000Z' });
}

function completed(d: SagaDriver, index: number, round = 1, content = `Report of leg ${index}.`, truncated = false): ScenarioStep {
  const provider = providerOf(d, index);
  return d.event(ResearchLegCompleted, {
    runId: d.runId,
    commandId: legCommandId(d, index, round),
    legIndex: index,
    provider,
    round,
    model: `${provider}/model-x`,
    content,
    truncated,
    local: provider === 'local',
    usage: { inputTokens: 100, outputTokens: 200 },
    costUsd: 0.01,
    latencyMs: 1_500,
  });
}

function failed(d: SagaDriver, index: number, round = 1, reason: MessageData<typeof ResearchLegFailed>['reason'] = 'server_error'): ScenarioStep {
  return d.event(ResearchLegFailed, { runId: d.runId, commandId: legCommandId(d, index, round), legIndex: index, provider: providerOf(d, index), round, reason, detail: 'HTTP 500: upstream down', costUsd: 0 });
}

function synthesized(d: SagaDriver, round = 1, skipped = false, truncated?: boolean): ScenarioStep {
  return d.event(ResearchSynthesized, {
    runId: d.runId,
    commandId: commandIdFor(d.runId, 1, synthesisKey(round)),
    round,
    synthesis: skipped ? null : { content: 'Both sources agree [openai][anthropic].', model: 'gemini/gemini-2.5-flash', local: false, attributions: [{ source: 'openai', label: 'openai', sentences: 1 }], costUsd: 0.002, ...(truncated === undefined ? {} : { truncated }) },
    share: { url: 'http://127.0.0.1:3000/v1/shared/tok', expiresAt: '2026-01-08T00:00:00.000Z', blobKey: 'research/x/report.html', contentSha256: 'a'.repeat(64) },
    shareError: null,
  });
}

const human = (d: SagaDriver, inputType: string, payload: JsonObject = {}, userId = d.userId): ScenarioStep => d.when({ kind: 'human', userId, inputType, payload });
const retry = (d: SagaDriver): ScenarioStep => human(d, 'retry', { keys: {} });
const view = (step: ScenarioStep) => researchView.parse(step.view());

/** A run at the human gate: openai completed, anthropic failed. */
function awaitingConfirmation(over: Draft = {}): SagaDriver {
  const d = processing(over);
  completed(d, 0);
  expect(failed(d, 1).state).toBe('awaiting_confirmation');
  return d;
}

/** A run that failed because every leg failed. */
function allFailed(): SagaDriver {
  const d = processing();
  failed(d, 0);
  expect(failed(d, 1).state).toBe('failed');
  return d;
}

const sortedTable = (table: Partial<Record<string, readonly string[]>>) => Object.fromEntries(Object.entries(table).map(([k, v]) => [k, [...(v ?? [])].sort()]));

describe('research (spec 05)', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...RESEARCH_TRANSITIONS };
    it.each(RESEARCH_STATES.flatMap((from) => RESEARCH_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it("is derived from the definition's rows, equals the spec's diagram, and validates", () => {
      expect(sortedTable(definition.transitions)).toEqual(sortedTable(RESEARCH_TRANSITIONS));
      expect(definition.terminal).toEqual(['completed', 'failed']);
      expect(definition.reopenableBy).toEqual({ failed: ['retry'] });
      expect(() => validateDefinition(definition)).not.toThrow();
    });

    it('sends legs and the synthesis on the research lane, titles on the critical one', () => {
      expect(laneOf(ExecuteResearchLegs)).toBe(RESEARCH_LANE);
      expect(laneOf(SynthesizeResearch)).toBe(RESEARCH_LANE);
      expect(laneOf(GenerateResearchTitle)).toBe('critical');
    });
  });

  describe('checkLlmCompletion: the decision matrix', () => {
    const leg = (provider: ResearchProvider, status: 'pending' | 'processing' | 'completed' | 'failed') => ({ provider, status });
    it.each([
      ['0 completed, >0 failed, 0 pending: all failed', [leg('openai', 'failed'), leg('anthropic', 'failed')], { type: 'all_failed' }],
      ['>0 completed, 0 failed, 0 pending: run synthesis', [leg('openai', 'completed'), leg('anthropic', 'completed')], { type: 'all_completed' }],
      ['>0 completed, >0 failed, 0 pending: awaiting confirmation', [leg('openai', 'completed'), leg('anthropic', 'failed')], { type: 'partial_failure', failedProviders: ['anthropic'] }],
      ['any, any, >0 pending: wait', [leg('openai', 'completed'), leg('anthropic', 'failed'), leg('gemini', 'pending')], { type: 'pending' }],
      ['processing counts as pending', [leg('openai', 'processing')], { type: 'pending' }],
    ])('%s', (_, results, action) => {
      expect(checkLlmCompletion(results)).toEqual(action);
    });

    it('given two legs in flight, when one completes, then it waits (row 4): still processing, nothing sent', () => {
      const d = processing();
      const step = completed(d, 0);
      expect(step.state).toBe('processing');
      expect(step.sent(SynthesizeResearch)).toEqual([]);
      expect(step.steps()).toContain('completion_checked');
      expect(view(step).llmResults.map((r) => r.status)).toEqual(['completed', 'pending']);
    });

    it('given two legs in flight, when both fail, then failed with "All LLM calls failed" (row 1) and ResearchFailed', () => {
      const d = processing();
      failed(d, 0);
      const step = failed(d, 1);
      expect(step.state).toBe('failed');
      expect(view(step)).toMatchObject({ status: 'failed', error: ALL_LLMS_FAILED, errorKind: 'all_failed', errorReason: 'server_error' });
      expect(step.sent(ResearchFailed)).toEqual([expect.objectContaining({ researchId: d.runId, errorKind: 'all_failed', errorReason: 'server_error', failedProviders: ['openai', 'anthropic'], retryCount: 0 })]);
      expect(d.pendingTimers()).toEqual([]);
    });

    it('given two legs in flight, when a provider rejects its key and the other fails otherwise, then the run\'s reason is auth and the error says to update the key, then retry', () => {
      const d = processing();
      failed(d, 0, 1, 'rate_limited');
      const step = failed(d, 1, 1, 'auth');
      expect(view(step)).toMatchObject({ status: 'failed', errorKind: 'all_failed', errorReason: 'auth', error: `${ALL_LLMS_FAILED}: anthropic rejected the API key — ${UPDATE_KEY_THEN_RETRY}` });
      expect(step.sent(ResearchFailed)).toEqual([expect.objectContaining({ errorKind: 'all_failed', errorReason: 'auth' })]);
      // The retry carries the updated key; the reason is cleared with the error.
      const retried = human(d, 'retry', { keys: { anthropic: SEALED.openai } });
      expect(retried.sentItems(ExecuteResearchLegs).map((c) => [c.provider, c.key])).toEqual([
        ['openai', SEALED.openai],
        ['anthropic', SEALED.openai],
      ]);
      expect(view(retried)).toMatchObject({ errorKind: null, errorReason: null, error: null });
    });

    it('given failed legs with different reasons and none of them auth, then the run names no single reason', () => {
      const d = processing();
      failed(d, 0, 1, 'rate_limited');
      expect(view(failed(d, 1, 1, 'timeout'))).toMatchObject({ error: ALL_LLMS_FAILED, errorReason: null });
    });

    it('given a leg cut short, then the synthesis is told so, and a cut synthesis is shown as not whole (an older reply, without the flag, as whole)', () => {
      const d = processing();
      completed(d, 0, 1, 'Report of leg 0, cut', true);
      const step = completed(d, 1);
      expect(step.sent(SynthesizeResearch)[0]?.reports.map((r) => r.truncated)).toEqual([true, false]);
      expect(view(synthesized(d, 1, false, true))).toMatchObject({ status: 'completed', synthesisTruncated: true });
      const older = processing();
      completed(older, 0);
      completed(older, 1);
      expect(view(synthesized(older))).toMatchObject({ status: 'completed', synthesisTruncated: false });
    });

    it('given two legs in flight, when both complete, then synthesizing with both reports (row 2)', () => {
      const d = processing();
      completed(d, 0);
      const step = completed(d, 1);
      expect(step.state).toBe('synthesizing');
      expect(step.sent(SynthesizeResearch)).toEqual([
        expect.objectContaining({
          round: 1,
          skipSynthesis: false,
          synthesisLlm: 'gemini',
          key: SEALED.gemini,
          reports: [
            { provider: 'openai', model: 'openai/model-x', content: 'Report of leg 0.', truncated: false },
            { provider: 'anthropic', model: 'anthropic/model-x', content: 'Report of leg 1.', truncated: false },
          ],
        }),
      ]);
    });

    it('given two legs in flight, when one completes and one fails, then awaiting_confirmation with partialFailure (row 3)', () => {
      const d = processing();
      completed(d, 0);
      const step = failed(d, 1);
      expect(step.state).toBe('awaiting_confirmation');
      expect(view(step).partialFailure).toEqual({ failedProviders: ['anthropic'], detectedAt: expect.any(String), retryCount: 0 });
      expect(d.pendingTimers()).toEqual([]);
    });
  });

  describe('the synthesis skip table', () => {
    it.each([
      [0, 0, { kind: 'error', reason: NO_SUCCESSFUL_RESULTS }],
      [0, 2, { kind: 'synthesize', externalOnly: true }],
      [1, 0, { kind: 'skip' }],
      [1, 1, { kind: 'synthesize', externalOnly: false }],
      [2, 0, { kind: 'synthesize', externalOnly: false }],
      [3, 4, { kind: 'synthesize', externalOnly: false }],
    ])('%i successful LLMs, %i external reports', (successful, external, plan) => {
      expect(planSynthesis(successful, external)).toEqual(plan);
    });

    it('1 successful, 0 external: completed at once without synthesizedResult, waiting on no service (no command, no share page)', () => {
      const d = processing({ selectedLlms: ['openai'] });
      const step = completed(d, 0);
      expect(step.state).toBe('completed');
      expect(step.steps()).toContain('synthesis_skipped');
      expect(step.sent(SynthesizeResearch)).toEqual([]);
      expect(view(step)).toMatchObject({ status: 'completed', synthesizedResult: null, synthesisSkipped: true, shareInfo: null, llmResults: [expect.objectContaining({ result: 'Report of leg 0.' })] });
      expect(step.sent(ResearchCompleted)).toEqual([expect.objectContaining({ providers: ['openai'], synthesized: false, shareUrl: null })]);
      expect(d.pendingTimers()).toEqual([]);
    });

    it('1 successful, >0 external: synthesis runs (external reports count)', () => {
      const d = processing({ selectedLlms: ['openai'], externalReports: [REPORT] });
      const step = completed(d, 0);
      expect(step.sent(SynthesizeResearch)).toEqual([expect.objectContaining({ skipSynthesis: false, externalReports: [REPORT] })]);
    });

    it('>1 successful: synthesis runs', () => {
      const d = processing({ selectedLlms: ['openai', 'anthropic', 'local'] });
      completed(d, 0);
      completed(d, 1);
      expect(completed(d, 2).sent(SynthesizeResearch)).toEqual([expect.objectContaining({ skipSynthesis: false })]);
    });

    it('0 successful with external reports never reaches synthesis from the matrix: all failed wins (row 1)', () => {
      const d = processing({ externalReports: [REPORT] });
      failed(d, 0);
      expect(failed(d, 1).state).toBe('failed');
    });
  });

  describe('phase 1: drafts', () => {
    it('given a draft, then it stays a draft with the fallback title and asks the research service for a title (with the gemini key)', () => {
      const d = new SagaDriver(definition);
      const step = d.start(draftInput({ start: false }));
      expect(step.state).toBe('draft');
      expect(step.steps()).toEqual(['run_started', 'policy_applied', 'draft_created']);
      expect(step.sent(GenerateResearchTitle)).toEqual([{ runId: d.runId, userId: 'user-1', prompt: PROMPT, key: SEALED.gemini }]);
      expect(step.sentItems(ExecuteResearchLegs)).toEqual([]);
      expect(view(step)).toMatchObject({ status: 'draft', title: 'How do heat pumps compare with gas boilers in cold climates', titleSource: 'fallback', selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'gemini', startedAt: null });
      expect(view(step).llmResults.map((r) => r.status)).toEqual(['pending', 'pending']);
      // The view never carries the sealed keys.
      expect(JSON.stringify(step.view())).not.toContain('v1:');
    });

    it('given no key for the title model, then the run keeps the deterministic fallback title and asks no one for a title', () => {
      const d = new SagaDriver(definition);
      const draft = d.start(draftInput({ start: false, keys: { openai: SEALED.openai } }));
      expect(draft.sent(GenerateResearchTitle)).toEqual([]);
      expect(view(draft)).toMatchObject({ status: 'draft', title: 'How do heat pumps compare with gas boilers in cold climates', titleSource: 'fallback' });

      const started = new SagaDriver(definition);
      const step = started.start(draftInput({ selectedLlms: ['openai', 'local'], synthesisLlm: 'local', keys: { openai: SEALED.openai } }));
      expect(step.state).toBe('processing');
      expect(step.sent(GenerateResearchTitle)).toEqual([]);
      expect(step.sentItems(ExecuteResearchLegs)).toHaveLength(2);
      expect(view(step)).toMatchObject({ title: 'How do heat pumps compare with gas boilers in cold climates', titleSource: 'fallback' });
    });

    it('given a draft, when the title arrives, then the title is the model’s; a user title is never replaced', () => {
      const d = new SagaDriver(definition);
      d.start(draftInput({ start: false }));
      const step = d.event(ResearchTitleGenerated, { runId: d.runId, commandId: commandIdFor(d.runId, 1, TITLE_KEY), title: 'Heat pumps vs gas boilers', source: 'model', model: 'gemini/gemini-2.5-flash' });
      expect(view(step)).toMatchObject({ status: 'draft', title: 'Heat pumps vs gas boilers', titleSource: 'model' });

      const titled = new SagaDriver(definition);
      expect(titled.start(draftInput({ start: false, title: 'My title' })).sent(GenerateResearchTitle)).toEqual([]);
    });

    it('given a draft, when started with changes and keys, then processing: startedAt, one pending leg per provider, one batch with an item each', () => {
      const d = new SagaDriver(definition);
      d.start(draftInput({ start: false, keys: {} }));
      const step = human(d, 'start_research', { selectedLlms: ['anthropic', 'local'], synthesisLlm: 'local', keys: { anthropic: SEALED.anthropic } });
      expect(step.state).toBe('processing');
      expect(view(step)).toMatchObject({ status: 'processing', selectedLlms: ['anthropic', 'local'], startedAt: expect.any(String) });
      expect(step.sentItems(ExecuteResearchLegs)).toEqual([
        expect.objectContaining({ legIndex: 0, provider: 'anthropic', round: 1, key: SEALED.anthropic, capMs: DEFAULT_RESEARCH_TIMINGS.legCapMs, costCapUsd: 0.25 }),
        expect.objectContaining({ legIndex: 1, provider: 'local', round: 1, key: null }),
      ]);
      // One command for the round; each item carries the id its one-item command would have had.
      expect(step.sent(ExecuteResearchLegs)).toHaveLength(1);
      expect(step.sentItems(ExecuteResearchLegs).map((item) => item.itemId)).toEqual([legCommandId(d, 0), legCommandId(d, 1)]);
    });

    it('given a draft, when started with an edited prompt, then it gets the new prompt\'s title and a new title request; the old request\'s answer is stale', () => {
      const d = new SagaDriver(definition);
      d.start(draftInput({ start: false }));
      const edited = 'What does a ground-source heat pump cost to install in Norway?';
      const step = human(d, 'start_research', { prompt: edited, keys: SEALED });
      expect(step.state).toBe('processing');
      expect(view(step)).toMatchObject({ prompt: edited, title: 'What does a ground-source heat pump cost to install in Norway', titleSource: 'fallback' });
      expect(step.sent(GenerateResearchTitle)).toEqual([{ runId: d.runId, userId: 'user-1', prompt: edited, key: SEALED.gemini }]);
      const oldAnswer = d.event(ResearchTitleGenerated, { runId: d.runId, commandId: commandIdFor(d.runId, 1, TITLE_KEY), title: 'Heat pumps vs gas boilers', source: 'model', model: 'gemini/m' });
      expect(oldAnswer.outcome).toBe('ignored');
      const newAnswer = d.event(ResearchTitleGenerated, { runId: d.runId, commandId: commandIdFor(d.runId, 1, titleKey(2)), title: 'Ground-source heat pump costs in Norway', source: 'model', model: 'gemini/m' });
      expect(view(newAnswer)).toMatchObject({ title: 'Ground-source heat pump costs in Norway', titleSource: 'model' });
    });

    it('given a draft with a model or user title, when started with an edited prompt, then a model title is replaced and a user title kept', () => {
      const modelTitled = new SagaDriver(definition);
      modelTitled.start(draftInput({ start: false }));
      modelTitled.event(ResearchTitleGenerated, { runId: modelTitled.runId, commandId: commandIdFor(modelTitled.runId, 1, TITLE_KEY), title: 'Heat pumps vs gas boilers', source: 'model', model: 'gemini/m' });
      expect(view(human(modelTitled, 'start_research', { prompt: 'Are heat pumps loud?', keys: {} }))).toMatchObject({ title: 'Are heat pumps loud', titleSource: 'fallback' });

      const userTitled = new SagaDriver(definition);
      userTitled.start(draftInput({ start: false, title: 'My title' }));
      const step = human(userTitled, 'start_research', { prompt: 'Are heat pumps loud?', keys: {} });
      expect(view(step)).toMatchObject({ title: 'My title', titleSource: 'user' });
      expect(step.sent(GenerateResearchTitle)).toEqual([]);
      // The same prompt again is no edit.
      const same = new SagaDriver(definition);
      same.start(draftInput({ start: false }));
      expect(human(same, 'start_research', { prompt: PROMPT, keys: {} }).sent(GenerateResearchTitle)).toEqual([]);
    });

    it('needs the synthesis key only when a synthesis can come: one leg and no external report starts without it', () => {
      const one = new SagaDriver(definition);
      expect(one.start(draftInput({ selectedLlms: ['openai'], synthesisLlm: 'gemini', keys: { openai: SEALED.openai } })).state).toBe('processing');
      const draft = new SagaDriver(definition);
      draft.start(draftInput({ start: false, keys: {} }));
      expect(human(draft, 'start_research', { selectedLlms: ['anthropic'], keys: { anthropic: SEALED.anthropic } }).state).toBe('processing');
      const withReport = new SagaDriver(definition);
      expect(withReport.start(draftInput({ selectedLlms: ['openai'], externalReports: [REPORT], keys: { openai: SEALED.openai } })).sent(InputRefused)).toEqual([
        expect.objectContaining({ detail: expect.stringMatching(/no API key for gemini/) }),
      ]);
    });

    it.each([
      ['a missing key', { selectedLlms: ['openai'], keys: {} }, /no API key for openai/],
      ['a missing synthesis key with two legs', { selectedLlms: ['openai', 'anthropic'], keys: { openai: SEALED.openai, anthropic: SEALED.anthropic } }, /no API key for gemini/],
      ['no LLM', { selectedLlms: [], keys: {} }, /select at least one LLM/],
      ['an unknown provider', { selectedLlms: ['mistral'], keys: {} }, /selectedLlms/],
    ])('given a draft, when started with %s, then refused and still a draft', (_, payload, reason) => {
      const d = new SagaDriver(definition);
      d.start(draftInput({ start: false, keys: {} }));
      const step = human(d, 'start_research', payload);
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('draft');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: expect.stringMatching(reason) })]);
    });

    it.each([
      ['a missing key for a selected LLM', draftInput({ keys: { openai: SEALED.openai, gemini: SEALED.gemini } }), /no API key for anthropic/],
      ['a missing key for the synthesis LLM', draftInput({ keys: { openai: SEALED.openai, anthropic: SEALED.anthropic } }), /no API key for gemini/],
      ['an empty prompt', { ...draftInput(), prompt: '   ' }, /prompt must not be empty/],
      ['an oversized external report', draftInput({ externalReports: [{ content: 'x'.repeat(50_001) }] }), /at most 50000 characters/],
    ])('given POST /research, when started with %s, then refused', (_, input, reason) => {
      expect(new SagaDriver(definition).start(input).sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input', detail: expect.stringMatching(reason) })]);
    });
  });

  describe('phase 2: legs', () => {
    it('given POST /research, then processing at once with the policy logged, a title request, the legs and a phase deadline', () => {
      const d = new SagaDriver(definition);
      const step = d.start(draftInput());
      expect(step.state).toBe('processing');
      expect(step.steps()).toEqual(['run_started', 'policy_applied', 'legs_sent', 'research_started']);
      expect(step.sentItems(ExecuteResearchLegs).map((c) => [c.legIndex, c.provider, c.key])).toEqual([
        [0, 'openai', SEALED.openai],
        [1, 'anthropic', SEALED.anthropic],
      ]);
      expect(step.sent(GenerateResearchTitle)).toHaveLength(1);
      expect(d.delayOf(RUN_DEADLINE_TIMER)).toBe(DEFAULT_RESEARCH_TIMINGS.phaseDeadlineMs);
    });

    it('given a leg picked up, then it is processing and its hard cap runs from there', () => {
      const d = processing();
      const step = started(d, 0);
      expect(step.state).toBe('processing');
      expect(view(step).llmResults.map((r) => r.status)).toEqual(['processing', 'pending']);
      expect(d.delayOf(legCapTimer(0, 1))).toBe(DEFAULT_RESEARCH_TIMINGS.legCapMs + DEFAULT_RESEARCH_TIMINGS.replyGraceMs);
    });

    it('given a leg picked up, when its cap passes without an answer, then the leg fails with timeout and the matrix decides', () => {
      const d = processing();
      completed(d, 1);
      started(d, 0);
      const step = d.fire(legCapTimer(0, 1));
      expect(step.state).toBe('awaiting_confirmation');
      expect(view(step).llmResults[0]).toMatchObject({ provider: 'openai', status: 'failed', errorReason: 'timeout' });
    });

    it('given legs never picked up, when the phase deadline passes, then every open leg fails and the matrix decides (no leg hangs)', () => {
      const d = processing();
      completed(d, 0);
      const step = d.fire(RUN_DEADLINE_TIMER);
      expect(step.state).toBe('awaiting_confirmation');
      expect(view(step).llmResults[1]).toMatchObject({ status: 'failed', errorReason: 'timeout', error: expect.stringMatching(/run deadline/) });
    });

    it('given a completed leg, then its cap timer is cleared and a late or repeated reply changes nothing', () => {
      const d = processing();
      started(d, 0);
      completed(d, 0);
      expect(d.pendingTimers()).not.toContain(legCapTimer(0, 1));
      expect(completed(d, 0).outcome).toBe('ignored');
      expect(failed(d, 0).outcome).toBe('ignored');
      // A reply to another run's (or another round's) command is stale.
      const stale = d.event(ResearchLegCompleted, { runId: d.runId, commandId: legCommandId(d, 1, 2), legIndex: 1, provider: 'anthropic', round: 2, model: 'm', content: 'x', truncated: false, local: false, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, latencyMs: 0 });
      expect(stale.outcome).toBe('ignored');
    });

    it('records cost per leg and shares the cost cap among the legs of a round', () => {
      const d = processing();
      const step = completed(d, 0);
      expect(view(step)).toMatchObject({ costUsd: 0.01 });
      expect(view(step).llmResults[0]).toMatchObject({ costUsd: 0.01, durationMs: expect.any(Number), model: 'openai/model-x' });
    });
  });

  describe('phase 5: the human gate (POST /research/:id/confirm)', () => {
    it('given awaiting_confirmation, when proceed, then the successful results only (1 + 0 external: synthesis skipped, completed at once)', () => {
      const d = awaitingConfirmation();
      const step = human(d, 'proceed');
      expect(step.state).toBe('completed');
      expect(step.sent(SynthesizeResearch)).toEqual([]);
      expect(step.sent(ResearchCompleted)).toEqual([expect.objectContaining({ providers: ['openai'], failedProviders: ['anthropic'], synthesized: false, shareUrl: null })]);
    });

    it('given awaiting_confirmation with an external report, when proceed, then synthesis runs', () => {
      const d = awaitingConfirmation({ externalReports: [REPORT] });
      expect(human(d, 'proceed').sent(SynthesizeResearch)).toEqual([expect.objectContaining({ skipSynthesis: false })]);
    });

    it('given awaiting_confirmation, when retry, then retrying: only the failed leg is re-run (round 2), retryCount 1', () => {
      const d = awaitingConfirmation();
      const step = human(d, 'retry', { keys: { anthropic: 'v1:bmV3:dGFn:ZGF0YQ==' } });
      expect(step.state).toBe('retrying');
      expect(step.sentItems(ExecuteResearchLegs)).toEqual([expect.objectContaining({ legIndex: 1, provider: 'anthropic', round: 2, key: 'v1:bmV3:dGFn:ZGF0YQ==' })]);
      expect(view(step)).toMatchObject({ status: 'retrying', retryCount: 1, partialFailure: null });
      expect(view(step).llmResults.map((r) => r.status)).toEqual(['completed', 'pending']);
      // Back to LLM processing once the retried leg is picked up; then the matrix as before.
      expect(started(d, 1, 2).state).toBe('processing');
      const done = completed(d, 1, 2);
      expect(done.state).toBe('synthesizing');
      expect(done.sent(SynthesizeResearch)).toEqual([expect.objectContaining({ skipSynthesis: false, reports: [expect.objectContaining({ provider: 'openai' }), expect.objectContaining({ provider: 'anthropic' })] })]);
    });

    it('given retrying, when the retried leg fails before it is picked up, then the matrix decides straight from retrying', () => {
      const d = awaitingConfirmation();
      retry(d);
      const step = failed(d, 1, 2, 'auth');
      expect(step.state).toBe('awaiting_confirmation');
      expect(view(step).partialFailure).toEqual({ failedProviders: ['anthropic'], detectedAt: expect.any(String), retryCount: 1 });
    });

    it('given two retries used, when retry again, then failed with "Max retries exceeded"', () => {
      const d = awaitingConfirmation();
      retry(d);
      failed(d, 1, 2);
      retry(d);
      expect(failed(d, 1, 3).state).toBe('awaiting_confirmation');
      const step = retry(d);
      expect(step.state).toBe('failed');
      expect(view(step)).toMatchObject({ error: MAX_RETRIES_EXCEEDED, errorKind: 'max_retries', retryCount: 2 });
      expect(step.sentItems(ExecuteResearchLegs)).toEqual([]);
    });

    it('given awaiting_confirmation, when cancel, then failed with "Cancelled by user" and ResearchFailed', () => {
      const d = awaitingConfirmation();
      const step = human(d, 'cancel');
      expect(step.state).toBe('failed');
      expect(view(step)).toMatchObject({ error: CANCELLED_BY_USER, errorKind: 'cancelled' });
      expect(step.sent(ResearchFailed)).toEqual([expect.objectContaining({ errorKind: 'cancelled', error: CANCELLED_BY_USER })]);
    });

    it.each(['proceed', 'retry', 'cancel', 'start_research'])('given processing, when %s, then refused, nothing changes (confirm is for awaiting_confirmation; a draft starts once)', (action) => {
      const d = processing();
      const step = human(d, action, { keys: {} });
      expect(step.state).toBe('processing');
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: `${action} is not possible while the research is processing` })]);
    });

    it("refuses another user's decision", () => {
      const d = awaitingConfirmation();
      expect(human(d, 'proceed', {}, 'mallory').sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'not_owner' })]);
    });
  });

  describe('phase 4: synthesis', () => {
    function synthesizing(): SagaDriver {
      const d = processing();
      completed(d, 0);
      completed(d, 1);
      return d;
    }

    it('given synthesizing, when synthesized, then completed with the synthesis, its attributions and the share URL; ResearchCompleted', () => {
      const d = synthesizing();
      const step = synthesized(d);
      expect(step.state).toBe('completed');
      expect(view(step)).toMatchObject({
        status: 'completed',
        synthesizedResult: 'Both sources agree [openai][anthropic].',
        synthesisModel: 'gemini/gemini-2.5-flash',
        synthesisAttributions: [{ source: 'openai', label: 'openai', sentences: 1 }],
        completedAt: expect.any(String),
        costUsd: 0.022,
      });
      expect(step.sent(ResearchCompleted)).toEqual([expect.objectContaining({ researchId: d.runId, synthesized: true, providers: ['openai', 'anthropic'], costUsd: 0.022 })]);
      expect(d.pendingTimers()).toEqual([]);
    });

    it.each([
      ['the synthesis call fails', (d: SagaDriver) => d.event(ResearchSynthesisFailed, { runId: d.runId, commandId: commandIdFor(d.runId, 1, synthesisKey(1)), round: 1, reason: 'rate_limited', detail: 'HTTP 429', costUsd: 0 }), 'synthesis_failed'],
      ['the synthesis times out', (d: SagaDriver) => d.fire(`resend:${synthesisKey(1)}`), 'synthesis_failed'],
      ['the phase deadline passes', (d: SagaDriver) => d.fire(RUN_DEADLINE_TIMER), 'deadline'],
    ] as const)('given synthesizing, when %s, then failed with a synthesis error', (_, act, kind) => {
      const d = synthesizing();
      const step = act(d);
      expect(step.state).toBe('failed');
      expect(view(step)).toMatchObject({ errorKind: kind, synthesisError: expect.any(String) });
    });
  });

  describe('phase 4: the synthesis key', () => {
    it('given synthesizing, when the synthesis provider rejects the key, then failed with reason auth and "update your key, then retry"; the retry re-runs the synthesis with the new key', () => {
      const d = processing();
      completed(d, 0);
      completed(d, 1);
      const step = d.event(ResearchSynthesisFailed, { runId: d.runId, commandId: commandIdFor(d.runId, 1, synthesisKey(1)), round: 1, reason: 'auth', detail: 'HTTP 401: invalid key', costUsd: 0 });
      expect(view(step)).toMatchObject({ status: 'failed', errorKind: 'synthesis_failed', errorReason: 'auth', error: `Synthesis failed: HTTP 401: invalid key — gemini rejected the API key: ${UPDATE_KEY_THEN_RETRY}` });
      expect(step.sent(ResearchFailed)).toEqual([expect.objectContaining({ errorKind: 'synthesis_failed', errorReason: 'auth' })]);
      const retried = human(d, 'retry', { keys: { gemini: SEALED.anthropic } });
      expect(retried.sent(SynthesizeResearch)).toEqual([expect.objectContaining({ round: 2, key: SEALED.anthropic })]);
    });

    it('given a synthesis to run and no key for its provider, then failed with no_key naming the key to add (no command sent), and a retry with the key runs it', () => {
      // Start validation asks for the key whenever a synthesis can come, so this is the run's own guard,
      // checked on a run whose keys no longer cover the synthesis (its data edited: no input leads here).
      const d = processing();
      completed(d, 0);
      type RunOf = Parameters<typeof definition.decide>[0];
      const now = { now: new Date('2026-01-01T01:00:00Z') };
      const run = { ...d.s.run, data: { ...(d.s.run.data as object), keys: { openai: SEALED.openai, anthropic: SEALED.anthropic } } } as RunOf;
      const lastLeg = d.s.event(ResearchLegCompleted, {
        runId: d.runId, commandId: legCommandId(d, 1), legIndex: 1, provider: 'anthropic', round: 1, model: 'anthropic/m', content: 'Report of leg 1.',
        truncated: false, local: false, usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, latencyMs: 1,
      });
      const decision = definition.decide(run, lastLeg, now);
      if (decision.outcome !== 'transition') throw new Error(`expected a transition, got ${decision.outcome}`);
      expect(decision.to).toBe('failed');
      expect(decision.effects?.flatMap((e) => (e.type === 'publish' || e.type === 'send' ? [e.message.subject] : []))).toEqual([ResearchFailed.subject]);
      const failedRun = { ...run, state: 'failed', data: decision.data } as RunOf;
      expect(definition.view(failedRun)).toMatchObject({ errorKind: 'synthesis_failed', errorReason: 'no_key', synthesisError: 'no gemini API key for the synthesis', error: expect.stringContaining('add your gemini key, then retry') });
      const retried = definition.decide(failedRun, { kind: 'human', userId: 'user-1', inputType: 'retry', payload: { keys: { gemini: SEALED.gemini } } }, now);
      expect(retried).toMatchObject({ outcome: 'transition', to: 'synthesizing' });
      expect(retried.outcome === 'transition' ? retried.effects?.flatMap((e) => (e.type === 'send' && e.message === SynthesizeResearch ? [e.data] : [])) : []).toEqual([expect.objectContaining({ round: 1, key: SEALED.gemini })]);
    });
  });

  describe('phase 6: retry from failed (POST /research/:id/retry)', () => {
    it('failed + failed LLMs: retry the LLMs (retrying → processing)', () => {
      const d = allFailed();
      const step = retry(d);
      expect(step.state).toBe('retrying');
      expect(step.sentItems(ExecuteResearchLegs).map((c) => [c.provider, c.round])).toEqual([
        ['openai', 2],
        ['anthropic', 2],
      ]);
      expect(view(step)).toMatchObject({ retryCount: 1, error: null, errorKind: null });
      expect(started(d, 0, 2).state).toBe('processing');
    });

    it('failed + synthesis error: re-run synthesis (→ completed or failed)', () => {
      const d = processing();
      completed(d, 0);
      completed(d, 1);
      d.event(ResearchSynthesisFailed, { runId: d.runId, commandId: commandIdFor(d.runId, 1, synthesisKey(1)), round: 1, reason: 'server_error', detail: 'HTTP 503', costUsd: 0 });
      const step = retry(d);
      expect(step.state).toBe('synthesizing');
      expect(step.sent(SynthesizeResearch)).toEqual([expect.objectContaining({ round: 2 })]);
      expect(view(step)).toMatchObject({ synthesisError: null, error: null });
      // A late answer to the first synthesis is stale.
      expect(synthesized(d, 1).outcome).toBe('ignored');
      expect(synthesized(d, 2).state).toBe('completed');
    });

    it('failed + nothing to retry: completed (idempotent)', () => {
      // No row of this definition fails a run with every leg completed and no synthesis error, so the
      // spec's third row is checked on such a run directly (e.g. one failed by an earlier version).
      const d = processing({ selectedLlms: ['openai'] });
      expect(completed(d, 0).state).toBe('completed');
      const finished = d.s.run;
      const failedRun = { ...finished, state: 'failed' as const, data: { ...(finished.data as object), error: 'lost', errorKind: 'deadline' } } as Parameters<typeof definition.decide>[0];
      const decision = definition.decide(failedRun, { kind: 'human', userId: 'user-1', inputType: 'retry', payload: { keys: {} } }, { now: new Date('2026-01-01T01:00:00Z') });
      expect(decision).toMatchObject({ outcome: 'transition', to: 'completed', step: 'research_completed', logs: [{ step: 'nothing_to_retry' }] });
      expect(decision.outcome === 'transition' ? decision.effects?.map((e) => e.type === 'publish' && e.message.subject) : []).toEqual([ResearchCompleted.subject]);
    });

    it('refuses a retry past 2 retries (409: max retries)', () => {
      const d = allFailed();
      retry(d);
      failed(d, 0, 2);
      failed(d, 1, 2);
      retry(d);
      failed(d, 0, 3);
      expect(failed(d, 1, 3).state).toBe('failed');
      const step = retry(d);
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('failed');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: expect.stringMatching(/max retries \(2\) reached/) })]);
    });

    it('refuses a retry of a run cancelled by its user (409: create a new research)', () => {
      const d = awaitingConfirmation();
      human(d, 'cancel');
      const step = retry(d);
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: expect.stringMatching(/cancelled by user/) })]);
    });

    it('refuses every other human input in failed (terminal), and any input in completed', () => {
      const d = allFailed();
      expect(human(d, 'proceed').sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'terminal' })]);
      const done = processing({ selectedLlms: ['openai'] });
      expect(completed(done, 0).state).toBe('completed');
      expect(retry(done).sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'terminal' })]);
    });
  });

  describe('cancellation (the owner, any time before the end)', () => {
    it('given legs in flight, when the owner cancels, then failed "Cancelled by user": open legs failed as cancelled, ResearchFailed published (the service stops them)', () => {
      const d = processing();
      started(d, 0);
      completed(d, 1);
      const step = d.cancel();
      expect(step.state).toBe('failed');
      expect(view(step)).toMatchObject({ error: CANCELLED_BY_USER, errorKind: 'cancelled' });
      expect(view(step).llmResults.map((r) => [r.status, r.errorReason])).toEqual([
        ['failed', 'cancelled'],
        ['completed', null],
      ]);
      expect(step.sent(ResearchFailed)).toEqual([expect.objectContaining({ errorKind: 'cancelled', retryCount: 0 })]);
      expect(d.pendingTimers()).toEqual([]);
    });

    it('given a draft, when the owner cancels, then failed; a retry is refused', () => {
      const d = new SagaDriver(definition);
      d.start(draftInput({ start: false }));
      expect(d.cancel().state).toBe('failed');
      expect(retry(d).outcome).toBe('refused');
    });
  });

  it('replays a run with a human gate, a retry and a synthesis from its step log', () => {
    const d = awaitingConfirmation();
    retry(d);
    started(d, 1, 2);
    completed(d, 1, 2);
    synthesized(d);
    expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'completed', mismatches: [] });
  });

  describe('timings', () => {
    it('are the spec’s 60 min leg cap by default, configurable, and refuse a deadline shorter than the cap', () => {
      expect(researchTimingsFromEnv({})).toEqual(DEFAULT_RESEARCH_TIMINGS);
      expect(DEFAULT_RESEARCH_TIMINGS.legCapMs).toBe(60 * 60 * 1000);
      expect(researchTimingsFromEnv({ OPENPAW_RESEARCH_TIMINGS_JSON: '{"legCapMs":5000,"phaseDeadlineMs":20000}' })).toMatchObject({ legCapMs: 5_000, phaseDeadlineMs: 20_000 });
      expect(() => researchTimingsFromEnv({ OPENPAW_RESEARCH_TIMINGS_JSON: '{"phaseDeadlineMs":1000}' })).toThrow(/at least legCapMs/);
    });
  });
});
