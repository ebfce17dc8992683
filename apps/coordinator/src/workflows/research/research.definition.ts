import {
  type ExternalReport,
  ExecuteResearchLeg,
  fallbackResearchTitle,
  GenerateResearchTitle,
  KEYED_RESEARCH_PROVIDERS,
  type KeyedResearchProvider,
  type LegFailureReason,
  type LegStatus,
  type MessageData,
  RESEARCH_INPUTS,
  RESEARCH_LIMITS,
  RESEARCH_WORKFLOW,
  ResearchCompleted,
  type ResearchDraftInput,
  researchDraftInput,
  type ResearchErrorKind,
  ResearchFailed,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  type ResearchProvider,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  type ResearchView,
  retryResearchPayload,
  type SealedKeys,
  type ShareInfo,
  startResearchPayload,
  SynthesizeResearch,
  type SUBSCRIPTION_TIERS,
} from '@openpaw/contracts';
import {
  commandIdFor,
  type Decision,
  decideByTable,
  type Effect,
  type HumanInput,
  onEvent,
  onHuman,
  onStart,
  onTimer,
  type Row,
  RUN_DEADLINE_TIMER,
  type RunSnapshot,
  type SagaDefinition,
  sendTry,
  type StepLogEntry,
  stepTimeoutInputName,
  type TimerInput,
  transitionsOf,
  tryKey,
  type WorkflowTable,
} from '@openpaw/saga';
import { PolicyEngine } from '../policy/index.js';
import { roundUsd } from '../shared/run-status.js';
import {
  ALL_LLMS_FAILED,
  CANCELLED_BY_USER,
  checkLlmCompletion,
  MAX_RETRIES_EXCEEDED,
  NO_SUCCESSFUL_RESULTS,
  planSynthesis,
} from './research-completion.js';
import { DEFAULT_RESEARCH_TIMINGS, type ResearchTimings } from './research.timings.js';
import { RESEARCH_CANCELLABLE, RESEARCH_STATES, type ResearchState } from './research.transitions.js';

/** One provider's leg, with the spec's per-leg states. */
export interface Leg {
  readonly provider: ResearchProvider;
  readonly status: LegStatus;
  /** The round of the latest command sent for it (1, then +1 per retry that re-ran it); 0 before any. */
  readonly round: number;
  readonly model: string | null;
  readonly content: string | null;
  readonly truncated: boolean;
  readonly local: boolean;
  readonly error: string | null;
  readonly errorReason: LegFailureReason | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** Spent over every round. */
  readonly costUsd: number;
}

export interface ResearchData {
  readonly request: {
    readonly title: string;
    readonly titleSource: 'user' | 'model' | 'fallback';
    readonly prompt: string;
    readonly selectedLlms: readonly ResearchProvider[];
    readonly synthesisLlm: ResearchProvider;
    readonly externalReports: readonly ExternalReport[];
    readonly subscriptionTier: (typeof SUBSCRIPTION_TIERS)[number];
  };
  /** Sealed (encrypted) keys only: the research service opens them. Never in the view. */
  readonly keys: SealedKeys;
  /** The policy's cost cap for the run (`cost_cap_usd`), over every leg, retry and synthesis. */
  readonly costCapUsd: number;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly legs: readonly Leg[];
  readonly retryCount: number;
  readonly partialFailure: { readonly failedProviders: readonly ResearchProvider[]; readonly detectedAt: string; readonly retryCount: number } | null;
  /** Synthesis commands sent so far (the latest is `synthesis:<synthesisRound>`). */
  readonly synthesisRound: number;
  readonly synthesis: MessageData<typeof ResearchSynthesized>['synthesis'];
  readonly synthesisSkipped: boolean;
  readonly synthesisError: string | null;
  readonly synthesisCostUsd: number;
  readonly shareInfo: ShareInfo | null;
  readonly error: string | null;
  readonly errorKind: ResearchErrorKind | null;
  /** Times the run entered `failed` (each publishes its own ResearchFailed). */
  readonly failures: number;
}

type S = ResearchState;
type D = ResearchData;
type Run = RunSnapshot<S, D>;
type ResearchDecision = Decision<S, D>;

const ignore = (reason: string): ResearchDecision => ({ outcome: 'ignore', reason });

export const TITLE_KEY = 'title';
const legStep = (index: number) => `leg:${index}` as const;
/** The effect key (and so the command id) of a leg's command: `leg:<index>:<round>`. */
export const legKey = (index: number, round: number): string => tryKey(legStep(index), round);
export const synthesisKey = (round: number): string => tryKey('synthesis', round);
/** A leg's hard cap, from its pickup: `legcap:<index>:<round>` (the timer family is `legcap`). */
export const LEG_CAP_TIMER = 'legcap';
export const legCapTimer = (index: number, round: number): string => `${LEG_CAP_TIMER}:${index}:${round}`;

const keyFor = (keys: SealedKeys, provider: ResearchProvider): string | null =>
  provider === 'local' ? null : (keys[provider] ?? null);

/** Keyed providers of `providers` with no sealed key in `keys`. */
export function missingKeys(keys: SealedKeys, providers: readonly ResearchProvider[]): KeyedResearchProvider[] {
  return KEYED_RESEARCH_PROVIDERS.filter((p) => providers.includes(p) && keys[p] === undefined);
}

const spentUsd = (d: D): number => d.legs.reduce((sum, leg) => sum + leg.costUsd, 0) + d.synthesisCostUsd;
const remainingUsd = (d: D): number => Math.max(0, roundUsd(d.costCapUsd - spentUsd(d)));
const isOpen = (leg: Leg): boolean => leg.status === 'pending' || leg.status === 'processing';
const providersWhere = (d: D, status: LegStatus): ResearchProvider[] => d.legs.filter((l) => l.status === status).map((l) => l.provider);

function freshLeg(provider: ResearchProvider): Leg {
  return { provider, status: 'pending', round: 0, model: null, content: null, truncated: false, local: false, error: null, errorReason: null, startedAt: null, completedAt: null, costUsd: 0 };
}

function durationOf(leg: Leg): number | null {
  return leg.startedAt === null || leg.completedAt === null ? null : Math.max(0, Date.parse(leg.completedAt) - Date.parse(leg.startedAt));
}

/** The phase deadline timer's payload: a timer of an earlier phase is stale. */
interface DeadlinePayload {
  readonly phase: 'legs' | 'synthesis';
  readonly round: number;
}

/**
 * The `research` saga (spec 05): draft → processing → synthesizing | awaiting_confirmation →
 * completed | failed, and retrying. One leg per selected provider (ExecuteResearchLeg on the
 * research service's `research` lane), each with the spec's per-leg states; `checkLlmCompletion`'s
 * matrix after every leg result; the synthesis skip table; proceed / retry (at most 2) / cancel at
 * the human gate; retry from `failed` (a terminal state this input reopens). Each leg has a hard cap
 * (the service aborts at it; the coordinator's step timeout, from the leg's pickup, is the backstop)
 * and each automated phase a deadline, so a run never hangs.
 */
export function researchDefinition(timings: ResearchTimings = DEFAULT_RESEARCH_TIMINGS, policies: PolicyEngine = new PolicyEngine()): SagaDefinition<S, D> {
  const deadline = (phase: DeadlinePayload['phase'], round: number): Effect => ({
    type: 'setTimer',
    name: RUN_DEADLINE_TIMER,
    afterMs: timings.phaseDeadlineMs,
    payload: { phase, round },
  });
  const clearDeadline: Effect = { type: 'clearTimer', name: RUN_DEADLINE_TIMER };
  const policyLog = (d: D): StepLogEntry => ({ step: 'policy_applied', payload: { cost_cap_usd: d.costCapUsd, subscription_tier: d.request.subscriptionTier } });

  const titleCommand = (run: Run, d: D): Effect[] =>
    d.request.titleSource === 'user'
      ? []
      : [{ type: 'send', message: GenerateResearchTitle, key: TITLE_KEY, data: { runId: run.id, userId: run.userId, prompt: d.request.prompt, key: d.keys.gemini ?? null } satisfies MessageData<typeof GenerateResearchTitle> }];

  /** The commands of the legs at `indexes` (their rounds already set), sharing what is left of the cost cap. */
  const sendLegs = (run: Run, d: D, indexes: readonly number[]): Effect[] => {
    const share = indexes.length === 0 ? 0 : roundUsd(remainingUsd(d) / indexes.length);
    return indexes.map((index) => {
      const leg = d.legs[index] as Leg;
      const data: MessageData<typeof ExecuteResearchLeg> = {
        runId: run.id,
        userId: run.userId,
        legIndex: index,
        provider: leg.provider,
        round: leg.round,
        prompt: d.request.prompt,
        externalReports: [...d.request.externalReports],
        key: keyFor(d.keys, leg.provider),
        capMs: timings.legCapMs,
        costCapUsd: share,
      };
      // No step timeout here: the leg's cap runs from its pickup (`legcap` timer, set on ResearchLegStarted),
      // and the phase deadline bounds the wait in the lane; neither is cleared when retrying turns processing.
      return { type: 'send', message: ExecuteResearchLeg, data, key: legKey(index, leg.round) } satisfies Effect;
    });
  };

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

  const fail = (run: Run, d: D, kind: ResearchErrorKind, error: string, now: Date, logs: StepLogEntry[] = []): ResearchDecision => {
    const failures = d.failures + 1;
    const next: D = { ...d, error, errorKind: kind, failures, completedAt: now.toISOString() };
    const event: MessageData<typeof ResearchFailed> = {
      researchId: run.id,
      userId: run.userId,
      title: d.request.title,
      errorKind: kind,
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
      logs: [...logs, { step: 'error_recorded', payload: { error_kind: kind, error } }],
      effects: [{ type: 'publish', message: ResearchFailed, data: event, key: `research-failed:${failures}` }],
    };
  };

  const complete = (run: Run, d: D, now: Date, logs: StepLogEntry[] = []): ResearchDecision => {
    const next: D = { ...d, completedAt: now.toISOString(), error: null, errorKind: null };
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

  /** Phase 4: the skip table decides; the research service shares the report in either case. */
  const enterSynthesis = (run: Run, d: D, now: Date, logs: StepLogEntry[] = []): ResearchDecision => {
    const successful = d.legs.filter((l) => l.status === 'completed');
    const plan = planSynthesis(successful.length, d.request.externalReports.length);
    const planned: StepLogEntry = { step: 'synthesis_planned', payload: { plan: plan.kind, successful: successful.length, external_reports: d.request.externalReports.length } };
    if (plan.kind === 'error') return fail(run, d, 'no_results', NO_SUCCESSFUL_RESULTS, now, [...logs, planned]);
    const round = d.synthesisRound + 1;
    const next: D = { ...d, synthesisRound: round, synthesisError: null, error: null, errorKind: null };
    const command: MessageData<typeof SynthesizeResearch> = {
      runId: run.id,
      userId: run.userId,
      round,
      title: d.request.title,
      prompt: d.request.prompt,
      reports: successful.map((l) => ({ provider: l.provider, model: l.model ?? l.provider, content: l.content ?? '' })),
      externalReports: [...d.request.externalReports],
      skipSynthesis: plan.kind === 'skip',
      synthesisLlm: d.request.synthesisLlm,
      key: keyFor(d.keys, d.request.synthesisLlm),
      capMs: timings.synthesisCapMs,
      costCapUsd: remainingUsd(d),
    };
    return {
      outcome: 'transition',
      to: 'synthesizing',
      data: next,
      step: plan.kind === 'skip' ? 'synthesis_skipped' : 'synthesis_requested',
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
        return withEffects(fail(run, d, 'all_failed', ALL_LLMS_FAILED, now, all));
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

  /** The open leg a reply answers (its index, provider, round and command id all match), if any. */
  const openLeg = (run: Run, reply: { readonly legIndex: number; readonly provider: ResearchProvider; readonly round: number; readonly commandId: string }): Leg | undefined => {
    const leg = run.data.legs[reply.legIndex];
    if (leg === undefined || !isOpen(leg) || leg.provider !== reply.provider || leg.round !== reply.round) return undefined;
    return commandIdFor(run.id, run.attemptNo, legKey(reply.legIndex, reply.round)) === reply.commandId ? leg : undefined;
  };

  const withLeg = (d: D, index: number, leg: Leg): D => ({ ...d, legs: d.legs.map((l, i) => (i === index ? leg : l)) });

  const legFailed = (run: Run, index: number, leg: Leg, reason: LegFailureReason, detail: string, costUsd: number, now: Date, step: string, effects: Effect[]): ResearchDecision => {
    const failed: Leg = { ...leg, status: 'failed', error: detail, errorReason: reason, completedAt: now.toISOString(), costUsd: roundUsd(leg.costUsd + costUsd) };
    const log: StepLogEntry = { step: 'leg_failed', payload: { leg: index, provider: leg.provider, round: leg.round, reason, detail } };
    return afterLegResult(run, withLeg(run.data, index, failed), now, step, effects, [log]);
  };

  // ---- rows shared by several states ----

  const legStarted = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegStarted>(ResearchLegStarted, to, (run, { data: r }) => {
      const leg = openLeg(run, r);
      if (leg === undefined || leg.status !== 'pending') return ignore('stale ResearchLegStarted');
      const d = withLeg(run.data, r.legIndex, { ...leg, status: 'processing', startedAt: r.startedAt });
      const effects: Effect[] = [{ type: 'setTimer', name: legCapTimer(r.legIndex, r.round), afterMs: timings.legCapMs + timings.replyGraceMs }];
      // Retried legs are picked up: back to LLM processing.
      return run.state === 'retrying'
        ? { outcome: 'transition', to: 'processing', data: d, step: 'leg_started', effects }
        : { outcome: 'stay', data: d, step: 'leg_started', effects };
    });

  const settling: readonly S[] = ['synthesizing', 'awaiting_confirmation', 'failed'];

  const legCompleted = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegCompleted>(ResearchLegCompleted, to, (run, { data: r }, { now }) => {
      const leg = openLeg(run, r);
      if (leg === undefined) return ignore('stale ResearchLegCompleted');
      const done: Leg = {
        ...leg,
        status: 'completed',
        model: r.model,
        content: r.content,
        truncated: r.truncated,
        local: r.local,
        error: null,
        errorReason: null,
        startedAt: leg.startedAt ?? now.toISOString(),
        completedAt: now.toISOString(),
        costUsd: roundUsd(leg.costUsd + r.costUsd),
      };
      const log: StepLogEntry = { step: 'leg_completed', payload: { leg: r.legIndex, provider: r.provider, round: r.round, model: r.model, local: r.local, cost_usd: r.costUsd, latency_ms: r.latencyMs } };
      return afterLegResult(run, withLeg(run.data, r.legIndex, done), now, 'leg_result', [{ type: 'clearTimer', name: legCapTimer(r.legIndex, r.round) }], [log]);
    });

  const legFailedRow = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegFailed>(ResearchLegFailed, to, (run, { data: r }, { now }) => {
      const leg = openLeg(run, r);
      if (leg === undefined) return ignore('stale ResearchLegFailed');
      return legFailed(run, r.legIndex, leg, r.reason, r.detail, r.costUsd, now, 'leg_result', [{ type: 'clearTimer', name: legCapTimer(r.legIndex, r.round) }]);
    });

  /** The coordinator's backstop: no reply within the leg's cap (+ grace) from its pickup. */
  const legTimedOut = (to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(LEG_CAP_TIMER, to, (run, timer, { now }) => {
      const match = /^legcap:(\d+):(\d+)$/.exec(timer.name);
      const index = Number(match?.[1]);
      const leg = match === null ? undefined : run.data.legs[index];
      if (leg === undefined || !isOpen(leg) || leg.round !== Number(match?.[2])) return ignore('stale leg timeout');
      return legFailed(run, index, leg, 'timeout', `no answer within the leg's cap of ${timings.legCapMs} ms`, 0, now, 'leg_timed_out', []);
    });

  /** The phase deadline: every leg still open fails, then the matrix decides (no leg outlives it). */
  const legsDeadline = (to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(RUN_DEADLINE_TIMER, to, (run, timer, { now }) => {
      if (!isDeadlineOf(timer, 'legs', run.data.retryCount + 1)) return ignore('stale deadline');
      const detail = `not finished within the run deadline of ${timings.phaseDeadlineMs} ms`;
      const legs = run.data.legs.map((l) => (isOpen(l) ? { ...l, status: 'failed' as const, error: detail, errorReason: 'timeout' as const, completedAt: now.toISOString() } : l));
      const expired = run.data.legs.flatMap((l, i) => (isOpen(l) ? [i] : []));
      const log: StepLogEntry = { step: 'deadline_passed', payload: { phase: 'legs', legs: expired } };
      const caps: Effect[] = expired.map((i) => ({ type: 'clearTimer', name: legCapTimer(i, run.data.legs[i]?.round ?? 0) }));
      return afterLegResult(run, { ...run.data, legs }, now, 'deadline_passed', caps, [log]);
    });

  const titleGenerated = onEvent<S, D, typeof ResearchTitleGenerated>(ResearchTitleGenerated, [], (run, { data: r }) => {
    if (commandIdFor(run.id, run.attemptNo, TITLE_KEY) !== r.commandId) return ignore('not the title command');
    if (run.data.request.titleSource !== 'fallback') return ignore('the title is already set');
    return { outcome: 'stay', data: { ...run.data, request: { ...run.data.request, title: r.title, titleSource: r.source } }, step: 'title_generated' };
  });

  /** Retry only the failed legs (a new round each), at most RESEARCH_LIMITS.maxRetries times. */
  const retryFailedLegs = (run: Run, input: HumanInput): ResearchDecision => {
    const payload = retryResearchPayload.safeParse(input.payload);
    if (!payload.success) return { outcome: 'refuse', reason: `invalid retry: ${payload.error.issues.map((i) => i.message).join('; ')}` };
    const keys: SealedKeys = { ...run.data.keys, ...payload.data.keys };
    const failed = run.data.legs.flatMap((l, i) => (l.status === 'failed' ? [i] : []));
    const legs = run.data.legs.map((l) => (l.status === 'failed' ? { ...freshLeg(l.provider), round: l.round + 1, costUsd: l.costUsd } : l));
    const retryCount = run.data.retryCount + 1;
    const d: D = { ...run.data, keys, legs, retryCount, partialFailure: null, error: null, errorKind: null, completedAt: null };
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

  /**
   * A human input this state does not take, refused (not just ignored) so the caller hears why: the
   * gateway checks the state first, but its projection may be a moment behind.
   */
  const refuseIn = (state: S, inputTypes: readonly string[]): Row<S, D>[] =>
    inputTypes.map((inputType) =>
      onHuman<S, D>(inputType, [], () => ({ outcome: 'refuse', reason: `${inputType} is not possible while the research is ${state}` })),
    );
  const { start: START, proceed: PROCEED, retry: RETRY, cancel: CANCEL } = RESEARCH_INPUTS;

  /** Spec rows: state → input → targets → decision. */
  const table: WorkflowTable<S, D> = {
    draft: [
      onStart(['processing'], (run, input, { now }) => {
        const d = run.data;
        const title = titleCommand(run, d);
        // `init` validated the input (and the keys, when `start` is set).
        if (input['start'] !== true) return { outcome: 'stay', data: d, step: 'draft_created', logs: [policyLog(d)], effects: title };
        const started = beginProcessing(run, d, now, [policyLog(d)]);
        return started.outcome === 'transition' ? { ...started, effects: [...title, ...(started.effects ?? [])] } : started;
      }),
      onHuman(RESEARCH_INPUTS.start, ['processing'], (run, input, { now }) => {
        const payload = startResearchPayload.safeParse(input.payload);
        if (!payload.success) return { outcome: 'refuse', reason: `invalid start: ${payload.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
        const p = payload.data;
        const request = {
          ...run.data.request,
          ...(p.prompt === undefined ? {} : { prompt: p.prompt }),
          ...(p.title === undefined ? {} : { title: p.title, titleSource: 'user' as const }),
          ...(p.selectedLlms === undefined ? {} : { selectedLlms: p.selectedLlms }),
          ...(p.synthesisLlm === undefined ? {} : { synthesisLlm: p.synthesisLlm }),
          ...(p.externalReports === undefined ? {} : { externalReports: p.externalReports }),
        };
        const keys: SealedKeys = { ...run.data.keys, ...p.keys };
        const missing = missingKeys(keys, [...request.selectedLlms, request.synthesisLlm]);
        if (missing.length > 0) return { outcome: 'refuse', reason: `no API key for ${missing.join(', ')}` };
        return beginProcessing(run, { ...run.data, request, keys }, now, []);
      }),
      titleGenerated,
      ...refuseIn('draft', [PROCEED, RETRY, CANCEL]),
    ],
    processing: [
      legStarted([]),
      legCompleted(settling),
      legFailedRow(settling),
      legTimedOut(settling),
      legsDeadline(settling),
      titleGenerated,
      ...refuseIn('processing', [START, PROCEED, RETRY, CANCEL]),
    ],
    retrying: [
      legStarted(['processing']),
      legCompleted(['processing', ...settling]),
      legFailedRow(['processing', ...settling]),
      legTimedOut(['processing', ...settling]),
      legsDeadline(['processing', ...settling]),
      titleGenerated,
      ...refuseIn('retrying', [START, PROCEED, RETRY, CANCEL]),
    ],
    awaiting_confirmation: [
      onHuman(RESEARCH_INPUTS.proceed, ['synthesizing', 'failed'], (run, _input, { now }) => enterSynthesis(run, run.data, now, [{ step: 'confirmed', payload: { action: 'proceed' } }])),
      onHuman(RESEARCH_INPUTS.retry, ['retrying', 'failed'], (run, input, { now }) => {
        if (run.data.retryCount >= RESEARCH_LIMITS.maxRetries) {
          return fail(run, run.data, 'max_retries', MAX_RETRIES_EXCEEDED, now, [{ step: 'confirmed', payload: { action: 'retry', retry_count: run.data.retryCount } }]);
        }
        return retryFailedLegs(run, input);
      }),
      onHuman(RESEARCH_INPUTS.cancel, ['failed'], (run, _input, { now }) => fail(run, cancelled(run.data, now), 'cancelled', CANCELLED_BY_USER, now, [{ step: 'confirmed', payload: { action: 'cancel' } }])),
      titleGenerated,
      ...refuseIn('awaiting_confirmation', [START]),
    ],
    synthesizing: [
      onEvent(ResearchSynthesized, ['completed'], (run, { data: r }, { now }) => {
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
      }),
      onEvent(ResearchSynthesisFailed, ['failed'], (run, { data: r }, { now }) => {
        if (r.round !== run.data.synthesisRound || commandIdFor(run.id, run.attemptNo, synthesisKey(r.round)) !== r.commandId) return ignore('stale ResearchSynthesisFailed');
        const d: D = { ...run.data, synthesisError: r.detail, synthesisCostUsd: roundUsd(run.data.synthesisCostUsd + r.costUsd) };
        return fail(run, d, 'synthesis_failed', `Synthesis failed: ${r.detail}`, now);
      }),
      onTimer(stepTimeoutInputName('synthesis'), ['failed'], (run, timer, { now }) => {
        if (timer.name !== stepTimeoutInputName(synthesisKey(run.data.synthesisRound))) return ignore('stale synthesis timeout');
        const detail = `no answer within the synthesis cap of ${timings.synthesisCapMs} ms`;
        return fail(run, { ...run.data, synthesisError: detail }, 'synthesis_failed', `Synthesis failed: ${detail}`, now);
      }),
      onTimer(RUN_DEADLINE_TIMER, ['failed'], (run, timer, { now }) => {
        if (!isDeadlineOf(timer, 'synthesis', run.data.synthesisRound)) return ignore('stale deadline');
        const detail = `not finished within the run deadline of ${timings.phaseDeadlineMs} ms`;
        return fail(run, { ...run.data, synthesisError: detail }, 'deadline', `Synthesis failed: ${detail}`, now);
      }),
      titleGenerated,
      ...refuseIn('synthesizing', [START, PROCEED, RETRY, CANCEL]),
    ],
    // Phase 6: retry from `failed` (a terminal state the human input `retry` reopens).
    failed: [
      onHuman(RESEARCH_INPUTS.retry, ['retrying', 'synthesizing', 'completed'], (run, input, { now }) => {
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
      }),
    ],
  };

  return {
    type: RESEARCH_WORKFLOW,
    states: RESEARCH_STATES,
    initial: 'draft',
    transitions: transitionsOf(table, { from: RESEARCH_CANCELLABLE, to: 'failed' }),
    terminal: ['completed', 'failed'],
    cancelledState: 'failed',
    reopenableBy: { failed: [RESEARCH_INPUTS.retry] },
    inputs: [ResearchLegStarted, ResearchLegCompleted, ResearchLegFailed, ResearchSynthesized, ResearchSynthesisFailed, ResearchTitleGenerated],

    init(input, run): D {
      const request: ResearchDraftInput = researchDraftInput.parse(input);
      if (request.start) {
        const missing = missingKeys(request.keys, [...request.selectedLlms, request.synthesisLlm]);
        if (missing.length > 0) throw new Error(`no API key for ${missing.join(', ')}`);
      }
      const policy = policies.getPolicy(RESEARCH_WORKFLOW, run.userId, request.subscriptionTier, 'standard');
      return {
        request: {
          title: request.title ?? fallbackResearchTitle(request.prompt),
          titleSource: request.title === null ? 'fallback' : 'user',
          prompt: request.prompt,
          selectedLlms: request.selectedLlms,
          synthesisLlm: request.synthesisLlm,
          externalReports: request.externalReports,
          subscriptionTier: request.subscriptionTier,
        },
        keys: request.keys,
        costCapUsd: policy.cost_cap_usd,
        startedAt: null,
        completedAt: null,
        legs: request.selectedLlms.map(freshLeg),
        retryCount: 0,
        partialFailure: null,
        synthesisRound: 0,
        synthesis: null,
        synthesisSkipped: false,
        synthesisError: null,
        synthesisCostUsd: 0,
        shareInfo: null,
        error: null,
        errorKind: null,
        failures: 0,
      };
    },

    decide: decideByTable(RESEARCH_WORKFLOW, table),

    onCancel(run, _reason, { now }) {
      const decision = fail(run, cancelled(run.data, now), 'cancelled', CANCELLED_BY_USER, now);
      return decision.outcome === 'transition' ? { data: decision.data, effects: decision.effects ?? [] } : { data: run.data };
    },

    view(run) {
      return researchViewOf(run);
    },
  };
}

function isDeadlineOf(timer: TimerInput, phase: DeadlinePayload['phase'], round: number): boolean {
  return timer.payload['phase'] === phase && timer.payload['round'] === round;
}

/** The run's public view: spec 05's research document (no keys, external reports by title and size). */
export function researchViewOf(run: Run): ResearchView {
  const d = run.data;
  return {
    id: run.id,
    status: run.state,
    title: d.request.title,
    titleSource: d.request.titleSource,
    prompt: d.request.prompt,
    selectedLlms: [...d.request.selectedLlms],
    synthesisLlm: d.request.synthesisLlm,
    externalReports: d.request.externalReports.map((r) => ({ title: r.title ?? null, characters: r.content.length })),
    llmResults: d.legs.map((leg) => ({
      provider: leg.provider,
      status: leg.status,
      model: leg.model,
      result: leg.content,
      truncated: leg.truncated,
      local: leg.local,
      error: leg.error,
      errorReason: leg.errorReason,
      round: leg.round,
      startedAt: leg.startedAt,
      completedAt: leg.completedAt,
      durationMs: durationOf(leg),
      costUsd: leg.costUsd,
    })),
    synthesizedResult: d.synthesis?.content ?? null,
    synthesisModel: d.synthesis?.model ?? null,
    synthesisAttributions: d.synthesis?.attributions ?? [],
    synthesisSkipped: d.synthesisSkipped,
    synthesisError: d.synthesisError,
    partialFailure: d.partialFailure === null ? null : { ...d.partialFailure, failedProviders: [...d.partialFailure.failedProviders] },
    retryCount: d.retryCount,
    shareInfo: d.shareInfo,
    error: d.error,
    errorKind: d.errorKind,
    costUsd: roundUsd(spentUsd(d)),
    startedAt: d.startedAt,
    completedAt: d.completedAt,
  };
}
