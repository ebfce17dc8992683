import {
  type Envelope,
  type MessageData,
  RESEARCH_LIMITS,
  type ResearchSynthesisFailed,
  type ResearchSynthesized,
  retryResearchPayload,
  fallbackResearchTitle,
  providersNeedingKeys,
  type SealedKeys,
  startResearchPayload,
} from '@openpaw/contracts';
import { commandIdFor, type DecideContext, type HumanInput, type JsonObject, type RunSnapshot, type StepLogEntry, stepTimeoutInputName, type TimerInput } from '@openpaw/saga';
import { roundUsd } from '../shared/run-status.js';
import { MAX_RETRIES_EXCEEDED, UPDATE_KEY_THEN_RETRY } from './research-completion.js';
import type { ResearchCommands } from './research.commands.js';
import { missingKeys, type ResearchData } from './research.data.js';
import { isDeadlineOf, synthesisKey } from './research.ids.js';
import type { ResearchDecision, ResearchOutcomes } from './research.outcomes.js';
import { ignore } from './research.shared-rows.js';
import type { ResearchTimings } from './research.timings.js';
import type { ResearchState } from './research.transitions.js';

type D = ResearchData;
type Run = RunSnapshot<ResearchState, D>;

/** The handlers of the table's rows that are one state's own (the rows shared by several states are in research.leg-rows.ts and research.shared-rows.ts). */
export function researchHandlers(timings: ResearchTimings, commands: ResearchCommands, outcomes: ResearchOutcomes) {
  const { policyLog, titleCommand } = commands;
  const { beginProcessing, fail, complete, enterSynthesis, retryFailedLegs } = outcomes;

  /** draft: created; started at once when the request says so (`start`), with its title generated unless the user gave one. */
  const created = (run: Run, input: JsonObject, { now }: DecideContext): ResearchDecision => {
    const d = run.data;
    const title = titleCommand(run, d);
    // `init` validated the input (and the keys, when `start` is set).
    if (input['start'] !== true) return { outcome: 'stay', data: d, step: 'draft_created', logs: [policyLog(d)], effects: title };
    const started = beginProcessing(run, d, now, [policyLog(d)]);
    return started.outcome === 'transition' ? { ...started, effects: [...title, ...(started.effects ?? [])] } : started;
  };

  /**
   * draft → processing: the owner starts it, possibly editing the request (its keys must cover every
   * provider that can be called: `providersNeedingKeys`). An edited prompt gets a new title unless the
   * user wrote one: the fallback of the new prompt at once, and the model's when a title key is there.
   */
  const startRequested = (run: Run, input: HumanInput, { now }: DecideContext): ResearchDecision => {
    const payload = startResearchPayload.safeParse(input.payload);
    if (!payload.success) return { outcome: 'refuse', reason: `invalid start: ${payload.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
    const p = payload.data;
    const old = run.data.request;
    const retitle = p.prompt !== undefined && p.prompt !== old.prompt && p.title === undefined && old.titleSource !== 'user';
    const request = {
      ...old,
      ...(p.prompt === undefined ? {} : { prompt: p.prompt }),
      ...(retitle ? { title: fallbackResearchTitle(p.prompt ?? old.prompt), titleSource: 'fallback' as const, titleRound: (old.titleRound ?? 1) + 1 } : {}),
      ...(p.title === undefined ? {} : { title: p.title, titleSource: 'user' as const }),
      ...(p.selectedLlms === undefined ? {} : { selectedLlms: p.selectedLlms }),
      ...(p.synthesisLlm === undefined ? {} : { synthesisLlm: p.synthesisLlm }),
      ...(p.externalReports === undefined ? {} : { externalReports: p.externalReports }),
    };
    const keys: SealedKeys = { ...run.data.keys, ...p.keys };
    const missing = missingKeys(keys, providersNeedingKeys(request));
    if (missing.length > 0) return { outcome: 'refuse', reason: `no API key for ${missing.join(', ')}` };
    const d: D = { ...run.data, request, keys };
    const started = beginProcessing(run, d, now, retitle ? [{ step: 'prompt_edited', payload: { title: request.title, title_round: request.titleRound } }] : []);
    return retitle && started.outcome === 'transition' ? { ...started, effects: [...titleCommand(run, d), ...(started.effects ?? [])] } : started;
  };

  /** awaiting_confirmation → retrying the failed legs, or failed past the maximum of retries. */
  const retryConfirmed = (run: Run, input: HumanInput, { now }: DecideContext): ResearchDecision => {
    if (run.data.retryCount >= RESEARCH_LIMITS.maxRetries) {
      return fail(run, run.data, 'max_retries', MAX_RETRIES_EXCEEDED, now, [{ step: 'confirmed', payload: { action: 'retry', retry_count: run.data.retryCount } }]);
    }
    return retryFailedLegs(run, input);
  };

  /** synthesizing → completed (with the synthesis, or it was not needed). */
  const synthesized = (run: Run, { data: r }: Envelope<MessageData<typeof ResearchSynthesized>>, { now }: DecideContext): ResearchDecision => {
    if (r.round !== run.data.synthesisRound || commandIdFor(run.id, run.attemptNo, synthesisKey(r.round)) !== r.commandId) return ignore('stale ResearchSynthesized');
    const d: D = {
      ...run.data,
      synthesis: r.synthesis,
      synthesisSkipped: r.synthesis === null,
      synthesisCostUsd: roundUsd(run.data.synthesisCostUsd + (r.synthesis?.costUsd ?? 0)),
      shareInfo: r.share ?? run.data.shareInfo,
    };
    const logs: StepLogEntry[] = [{ step: r.synthesis === null ? 'synthesis_not_needed' : 'synthesis_completed', payload: { model: r.synthesis?.model ?? null, shared: r.share !== null, share_error: r.shareError } }];
    return complete(run, d, now, logs);
  };

  /** synthesizing → failed: the synthesis failed. */
  const synthesisFailed = (run: Run, { data: r }: Envelope<MessageData<typeof ResearchSynthesisFailed>>, { now }: DecideContext): ResearchDecision => {
    if (r.round !== run.data.synthesisRound || commandIdFor(run.id, run.attemptNo, synthesisKey(r.round)) !== r.commandId) return ignore('stale ResearchSynthesisFailed');
    const d: D = { ...run.data, synthesisError: r.detail, synthesisCostUsd: roundUsd(run.data.synthesisCostUsd + r.costUsd) };
    const action = r.reason === 'auth' ? ` — ${run.data.request.synthesisLlm} rejected the API key: ${UPDATE_KEY_THEN_RETRY}` : '';
    return fail(run, d, 'synthesis_failed', `Synthesis failed: ${r.detail}${action}`, now, [], r.reason);
  };

  /** synthesizing → failed: no answer within the synthesis cap. */
  const synthesisTimedOut = (run: Run, timer: TimerInput, { now }: DecideContext): ResearchDecision => {
    if (timer.name !== stepTimeoutInputName(synthesisKey(run.data.synthesisRound))) return ignore('stale synthesis timeout');
    const detail = `no answer within the synthesis cap of ${timings.synthesisCapMs} ms`;
    return fail(run, { ...run.data, synthesisError: detail }, 'synthesis_failed', `Synthesis failed: ${detail}`, now);
  };

  /** synthesizing → failed: the phase deadline passed. */
  const synthesisDeadline = (run: Run, timer: TimerInput, { now }: DecideContext): ResearchDecision => {
    if (!isDeadlineOf(timer, 'synthesis', run.data.synthesisRound)) return ignore('stale deadline');
    const detail = `not finished within the run deadline of ${timings.phaseDeadlineMs} ms`;
    return fail(run, { ...run.data, synthesisError: detail }, 'deadline', `Synthesis failed: ${detail}`, now);
  };

  /** Phase 6, failed → retrying (failed legs) | synthesizing (a synthesis error) | completed (nothing to retry). */
  const retryFromFailed = (run: Run, input: HumanInput, { now }: DecideContext): ResearchDecision => {
    const d = run.data;
    if (d.errorKind === 'cancelled') return { outcome: 'refuse', reason: 'cancelled by user: create a new research' };
    if (d.legs.some((l) => l.status === 'failed')) {
      if (d.retryCount >= RESEARCH_LIMITS.maxRetries) return { outcome: 'refuse', reason: `max retries (${RESEARCH_LIMITS.maxRetries}) reached: create a new research` };
      return retryFailedLegs(run, input);
    }
    if (d.synthesisError !== null) {
      const payload = retryResearchPayload.safeParse(input.payload);
      const keys: SealedKeys = payload.success ? { ...d.keys, ...payload.data.keys } : d.keys;
      return enterSynthesis(run, { ...d, keys, completedAt: null }, now, [{ step: 'synthesis_retried', payload: { previous_error: d.synthesisError } }]);
    }
    return complete(run, d, now, [{ step: 'nothing_to_retry' }]);
  };

  return { created, startRequested, retryConfirmed, synthesized, synthesisFailed, synthesisTimedOut, synthesisDeadline, retryFromFailed };
}
