import {
  type LegFailureReason,
  type MessageData,
  ResearchCompleted,
  type ResearchErrorKind,
  ResearchFailed,
  retryResearchPayload,
  type SealedKeys,
  SynthesizeResearch,
} from '@openpaw/contracts';
import { type Decision, type Effect, type HumanInput, type RunSnapshot, sendTry, type StepLogEntry } from '@openpaw/saga';
import { roundUsd } from '../shared/run-status.js';
import { allFailedError, allFailedReason, CANCELLED_BY_USER, checkLlmCompletion, NO_SUCCESSFUL_RESULTS, planSynthesis } from './research-completion.js';
import type { ResearchCommands } from './research.commands.js';
import { freshLeg, isOpen, keyFor, type Leg, providersWhere, remainingUsd, type ResearchData, spentUsd, withLeg } from './research.data.js';
import type { ResearchTimings } from './research.timings.js';
import type { ResearchState } from './research.transitions.js';

type S = ResearchState;
type D = ResearchData;
type Run = RunSnapshot<S, D>;
export type ResearchDecision = Decision<S, D>;

/**
 * The decisions more than one row reaches, each named by where it goes: processing (begin), failed,
 * completed, synthesizing, the decision matrix after a leg result, retrying the failed legs.
 */
export function researchOutcomes(timings: ResearchTimings, commands: ResearchCommands) {
  const { deadline, clearDeadline, sendLegs } = commands;

  /** Phase 1 → 2: `processing`, `startedAt`, every leg `pending`, one command per leg (spec's "Start Research" actions). */
  const beginProcessing = (run: Run, d: D, now: Date, logs: StepLogEntry[]): ResearchDecision => {
    const legs = d.request.selectedLlms.map((provider) => ({ ...freshLeg(provider), round: 1 }));
    const next: D = { ...d, legs, startedAt: now.toISOString() };
    return {
      outcome: 'transition',
      to: 'processing',
      data: next,
      step: 'research_started',
      logs: [...logs, { step: 'legs_sent', payload: { providers: [...d.request.selectedLlms], round: 1, cost_cap_usd: d.costCapUsd } }],
      effects: [...sendLegs(run, next, legs.map((_, i) => i)), deadline('legs', 1)],
    };
  };

  const fail = (run: Run, d: D, kind: ResearchErrorKind, error: string, now: Date, logs: StepLogEntry[] = [], reason: LegFailureReason | null = null): ResearchDecision => {
    const failures = d.failures + 1;
    const next: D = { ...d, error, errorKind: kind, errorReason: reason, failures, completedAt: now.toISOString() };
    const event: MessageData<typeof ResearchFailed> = {
      researchId: run.id,
      userId: run.userId,
      title: d.request.title,
      errorKind: kind,
      errorReason: reason,
      error,
      failedProviders: providersWhere(d, 'failed'),
      retryCount: d.retryCount,
      legRound: Math.max(0, ...d.legs.map((l) => l.round)),
      synthesisRound: d.synthesisRound,
      failedAt: now.toISOString(),
    };
    return {
      outcome: 'transition',
      to: 'failed',
      data: next,
      step: 'research_failed',
      logs: [...logs, { step: 'error_recorded', payload: { error_kind: kind, error_reason: reason, error } }],
      effects: [{ type: 'publish', message: ResearchFailed, data: event, key: `research-failed:${failures}` }],
    };
  };

  const complete = (run: Run, d: D, now: Date, logs: StepLogEntry[] = []): ResearchDecision => {
    const next: D = { ...d, completedAt: now.toISOString(), error: null, errorKind: null, errorReason: null };
    const event: MessageData<typeof ResearchCompleted> = {
      researchId: run.id,
      userId: run.userId,
      title: d.request.title,
      prompt: d.request.prompt,
      providers: providersWhere(d, 'completed'),
      failedProviders: providersWhere(d, 'failed'),
      synthesized: d.synthesis !== null,
      shareUrl: d.shareInfo?.url ?? null,
      shareExpiresAt: d.shareInfo?.expiresAt ?? null,
      costUsd: roundUsd(spentUsd(d)),
      completedAt: now.toISOString(),
    };
    return {
      outcome: 'transition',
      to: 'completed',
      data: next,
      step: 'research_completed',
      logs,
      effects: [{ type: 'publish', message: ResearchCompleted, data: event, key: 'research-completed' }],
    };
  };

  /**
   * Phase 4: the skip table decides. A skipped synthesis completes the run at once, waiting on no
   * service: the one report is the result (in the view), and no share page is made (the research
   * service made one only on its way back from the synthesis command). A synthesis whose provider has
   * no key fails here with `no_key`, naming the key to add; the user's retry re-runs it with the key.
   */
  const enterSynthesis = (run: Run, d: D, now: Date, logs: StepLogEntry[] = []): ResearchDecision => {
    const successful = d.legs.filter((l) => l.status === 'completed');
    const plan = planSynthesis(successful.length, d.request.externalReports.length);
    const planned: StepLogEntry = { step: 'synthesis_planned', payload: { plan: plan.kind, successful: successful.length, external_reports: d.request.externalReports.length } };
    if (plan.kind === 'error') return fail(run, d, 'no_results', NO_SUCCESSFUL_RESULTS, now, [...logs, planned]);
    if (plan.kind === 'skip') {
      const skipped: StepLogEntry = { step: 'synthesis_skipped', payload: { share: 'none: a run without synthesis has no share page; its report is in the run' } };
      return complete(run, { ...d, synthesis: null, synthesisSkipped: true, synthesisError: null }, now, [...logs, planned, skipped]);
    }
    const key = keyFor(d.keys, d.request.synthesisLlm);
    if (d.request.synthesisLlm !== 'local' && key === null) {
      const detail = `no ${d.request.synthesisLlm} API key for the synthesis`;
      return fail(run, { ...d, synthesisError: detail }, 'synthesis_failed', `Synthesis failed: ${detail} — add your ${d.request.synthesisLlm} key, then retry (the reports are kept)`, now, [...logs, planned], 'no_key');
    }
    const round = d.synthesisRound + 1;
    const next: D = { ...d, synthesisRound: round, synthesisError: null, error: null, errorKind: null, errorReason: null };
    const command: MessageData<typeof SynthesizeResearch> = {
      runId: run.id,
      userId: run.userId,
      round,
      title: d.request.title,
      prompt: d.request.prompt,
      reports: successful.map((l) => ({ provider: l.provider, model: l.model ?? l.provider, content: l.content ?? '', truncated: l.truncated })),
      externalReports: [...d.request.externalReports],
      skipSynthesis: false,
      synthesisLlm: d.request.synthesisLlm,
      key,
      capMs: timings.synthesisCapMs,
      costCapUsd: remainingUsd(d),
    };
    return {
      outcome: 'transition',
      to: 'synthesizing',
      data: next,
      step: 'synthesis_requested',
      logs: [...logs, planned],
      effects: [
        sendTry(SynthesizeResearch, command, { name: 'synthesis', tries: round, waiting: 'reply' }, timings.synthesisCapMs + timings.replyGraceMs),
        deadline('synthesis', round),
      ],
    };
  };

  /** `checkLlmCompletion` after a leg result, and the matrix's action. */
  const afterLegResult = (run: Run, d: D, now: Date, step: string, effects: Effect[], logs: StepLogEntry[]): ResearchDecision => {
    const action = checkLlmCompletion(d.legs);
    const checked: StepLogEntry = {
      step: 'completion_checked',
      payload: { action: action.type, completed: providersWhere(d, 'completed'), failed: providersWhere(d, 'failed'), pending: d.legs.filter(isOpen).map((l) => l.provider) },
    };
    const all = [...logs, checked];
    const withEffects = (decision: ResearchDecision): ResearchDecision =>
      decision.outcome === 'transition' || decision.outcome === 'stay' ? { ...decision, effects: [...effects, ...(decision.effects ?? [])] } : decision;
    switch (action.type) {
      case 'pending':
        // Retried legs report back: the run is processing again.
        return run.state === 'retrying'
          ? { outcome: 'transition', to: 'processing', data: d, step, logs: all, effects }
          : { outcome: 'stay', data: d, step, logs: all, effects };
      case 'all_failed':
        return withEffects(fail(run, d, 'all_failed', allFailedError(d.legs), now, all, allFailedReason(d.legs)));
      case 'all_completed':
        return withEffects(enterSynthesis(run, d, now, all));
      case 'partial_failure':
        return {
          outcome: 'transition',
          to: 'awaiting_confirmation',
          data: { ...d, partialFailure: { failedProviders: action.failedProviders, detectedAt: now.toISOString(), retryCount: d.retryCount } },
          step: 'partial_failure_detected',
          logs: all,
          effects: [...effects, clearDeadline],
        };
    }
  };

  const legFailed = (run: Run, index: number, leg: Leg, reason: LegFailureReason, detail: string, costUsd: number, now: Date, step: string, effects: Effect[]): ResearchDecision => {
    const failed: Leg = { ...leg, status: 'failed', error: detail, errorReason: reason, completedAt: now.toISOString(), costUsd: roundUsd(leg.costUsd + costUsd) };
    const log: StepLogEntry = { step: 'leg_failed', payload: { leg: index, provider: leg.provider, round: leg.round, reason, detail } };
    return afterLegResult(run, withLeg(run.data, index, failed), now, step, effects, [log]);
  };

  /** Retry only the failed legs (a new round each), at most RESEARCH_LIMITS.maxRetries times. */
  const retryFailedLegs = (run: Run, input: HumanInput): ResearchDecision => {
    const payload = retryResearchPayload.safeParse(input.payload);
    if (!payload.success) return { outcome: 'refuse', reason: `invalid retry: ${payload.error.issues.map((i) => i.message).join('; ')}` };
    const keys: SealedKeys = { ...run.data.keys, ...payload.data.keys };
    const failed = run.data.legs.flatMap((l, i) => (l.status === 'failed' ? [i] : []));
    const legs = run.data.legs.map((l) => (l.status === 'failed' ? { ...freshLeg(l.provider), round: l.round + 1, costUsd: l.costUsd } : l));
    const retryCount = run.data.retryCount + 1;
    const d: D = { ...run.data, keys, legs, retryCount, partialFailure: null, error: null, errorKind: null, errorReason: null, completedAt: null };
    return {
      outcome: 'transition',
      to: 'retrying',
      data: d,
      step: 'retry_started',
      logs: [{ step: 'legs_sent', payload: { providers: failed.map((i) => legs[i]?.provider), round: retryCount + 1, retry: retryCount } }],
      effects: [...sendLegs(run, d, failed), deadline('legs', retryCount + 1)],
    };
  };

  const cancelled = (d: D, now: Date): D => ({
    ...d,
    legs: d.legs.map((l) => (isOpen(l) ? { ...l, status: 'failed' as const, error: CANCELLED_BY_USER, errorReason: 'cancelled' as const, completedAt: now.toISOString() } : l)),
  });

  return { beginProcessing, fail, complete, enterSynthesis, afterLegResult, legFailed, retryFailedLegs, cancelled };
}

export type ResearchOutcomes = ReturnType<typeof researchOutcomes>;
