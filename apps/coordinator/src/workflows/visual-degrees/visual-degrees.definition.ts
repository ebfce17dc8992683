import {
  type AnyMessageDefinition,
  CandidatesDiscovered,
  DiscoverCandidates,
  EdgeRefuted,
  EdgeVerified,
  ExpansionSelected,
  type MessageData,
  SelectNextExpansion,
  VerifyEdge,
  VISUAL_DEGREES,
  visualDegreesRequest,
  VisualStepFailed,
} from '@openpaw/contracts';
import {
  type Backoff,
  clearPendingRetry,
  clearStepTimeout,
  type Decision,
  decideByTable,
  type Effect,
  firstTry,
  isReplyTo,
  isReplyToLatest,
  isRetryDue,
  isStepTimeout,
  nextTry,
  onEvent,
  onStart,
  onTimer,
  retriesUsed,
  retryTimerName,
  type Row,
  RUN_DEADLINE_TIMER,
  type RunSnapshot,
  type SagaDefinition,
  scheduleRetry,
  sendTry,
  type StepLogEntry,
  stepTimeoutInputName,
  transitionsOf,
  type WorkflowTable,
} from '@openpaw/saga';
import { durationMs, statusOf } from '../shared/run-status.js';
import { chosenCandidate, usableCandidates } from './candidates.js';
import { chainOf, everyone, frontierOf, hopsVerified, joined, otherEndOf, otherSide, withChain } from './chains.js';
import { evidence, finalPayload, pathUpdate, status, withEvents } from './stream-events.js';
import {
  DEFAULT_VISUAL_BUDGETS,
  type FailureReason,
  type IdentifiedPerson,
  nameKey,
  type Person,
  type StepKind,
  type Usage,
  type VerifiedEdge,
  VISUAL_DEGREES_PARAMETERS,
  type VisualDegreesData,
} from './visual-degrees.model.js';

/**
 * visual_degrees (spec 03): an evidence-verified visual chain between two persons, at most 6 hops, every
 * edge shown by an image where both are recognised at ≥ 80 %. The spec's worker state machine as a saga:
 *
 *   S0 INITIALIZING  normalise, limits and budgets                       → S1
 *   S1 DIRECT_EDGE   VerifyEdge(A, B)                                    → S6 | S2
 *   S2 DISCOVERING   DiscoverCandidates(frontier)                        → S3 (no candidates: another frontier, S2)
 *   S3 SELECTING     SelectNextExpansion (LLM, strict JSON, fallback)    → S4
 *   S4 VERIFYING     VerifyEdge(frontier, X)                             → S5 | S3 (more candidates) | S2 (another frontier)
 *   S5 BRIDGING      VerifyEdge(X, B)                                    → S6 | S2 (hop depth allows) | S7
 *   S6 SUCCEEDED, S7 FAILED (hop limit, no candidates, a budget, a failed step), CANCELLED
 *
 * Budgets (search, recognition, LLM calls) are charged from every reply's usage and checked before each
 * step; the runtime budget is the run's deadline timer. A step that runs out of budget, or a budget that
 * is spent, ends the run in S7 with the reason. The saga's data is the source of truth; the service's run
 * memory in KV is a cache that may expire. Every decision is in the step log; the stream events (status,
 * evidence, path_update, final, no_path, error) are in the data and the view, numbered for SSE resumption.
 */
export const VISUAL_DEGREES_STATES = ['INITIALIZING', 'DIRECT_EDGE', 'DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type VisualDegreesState = (typeof VISUAL_DEGREES_STATES)[number];

/** Spec 03's transitions (S0–S7; the definition's, derived from its rows, must equal it: see the spec file). */
export const VISUAL_DEGREES_TRANSITIONS = {
  INITIALIZING: ['DIRECT_EDGE', 'CANCELLED'],
  DIRECT_EDGE: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
  DISCOVERING: ['SELECTING', 'FAILED', 'CANCELLED'],
  SELECTING: ['VERIFYING', 'FAILED', 'CANCELLED'],
  VERIFYING: ['BRIDGING', 'FAILED', 'SELECTING', 'DISCOVERING', 'CANCELLED'],
  BRIDGING: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
} as const satisfies Partial<Record<VisualDegreesState, readonly VisualDegreesState[]>>;

export interface VisualDegreesTimings {
  /** A step's timeout, from the command's pickup on the `visual` lane. */
  readonly stepTimeoutMs: number;
  readonly backoff: Backoff;
  /** Retries of a step that failed retryably or timed out. */
  readonly retries: number;
}

export const DEFAULT_VISUAL_DEGREES_TIMINGS: VisualDegreesTimings = { stepTimeoutMs: 60_000, backoff: { baseMs: 1_000, factor: 2, maxMs: 10_000 }, retries: 2 };

export const NO_PATH_MESSAGE = (hopLimit: number, threshold: number): string => `No verified visual connection found within ${hopLimit} degrees at ≥${threshold}% confidence.`;

type S = VisualDegreesState;
type D = VisualDegreesData;
type Run = RunSnapshot<S, D>;
type VisualDecision = Decision<S, D>;

const { threshold, imagesPerQuery } = VISUAL_DEGREES_PARAMETERS;
const ignore = (reason: string): VisualDecision => ({ outcome: 'ignore', reason });

/** The spec's query templates. */
const directQueries = (a: string, b: string): string[] => [`${a} ${b}`];
// Spec S2's examples are three; two keep a hop at 3 searches (discovery + the bridge), so the spec's budget of 20 reaches a 6th hop.
const discoveryQueries = (frontier: string): string[] => [`${frontier} with celebrities`, `${frontier} event`];
const verificationQueries = (f: string, x: string): string[] => [`${f} ${x}`, `${f} ${x} event`];

function remaining(data: D): { searchCalls: number; recognitionCalls: number; llmCalls: number } {
  return {
    searchCalls: Math.max(0, data.budgets.maxSearchCalls - data.used.searchCalls),
    recognitionCalls: Math.max(0, data.budgets.maxRecognitionCalls - data.used.recognitionCalls),
    llmCalls: Math.max(0, data.budgets.maxLlmCalls - data.used.llmCalls),
  };
}

function charge(data: D, usage: Partial<Usage>): D {
  const used = data.used;
  return {
    ...data,
    used: {
      searchCalls: used.searchCalls + (usage.searchCalls ?? 0),
      recognitionCalls: used.recognitionCalls + (usage.recognitionCalls ?? 0),
      llmCalls: used.llmCalls + (usage.llmCalls ?? 0),
      imagesSkipped: used.imagesSkipped + (usage.imagesSkipped ?? 0),
      costUsd: Math.round((used.costUsd + (usage.costUsd ?? 0)) * 1e6) / 1e6,
    },
  };
}

const identified = (person: Person): IdentifiedPerson | undefined => (person.celebrityId === undefined ? undefined : { name: person.name, celebrityId: person.celebrityId });
/** A person as a reply identified them (the reply's id wins; the name we asked with stays). */
const learn = (known: Person, seen: Person): Person => (known.celebrityId === undefined && seen.celebrityId !== undefined ? { name: known.name, celebrityId: seen.celebrityId } : known);

function budgetReason(kind: 'search' | 'recognition' | undefined): FailureReason {
  return kind === 'recognition' ? 'recognition_budget_exhausted' : 'search_budget_exhausted';
}

export function visualDegreesDefinition(timings: VisualDegreesTimings = DEFAULT_VISUAL_DEGREES_TIMINGS): SagaDefinition<S, D> {
  /** Sends the step's command (a new step number, its first try), remembering the command for retries. */
  const send = (run: Run, data: D, kind: StepKind, message: AnyMessageDefinition, build: (stepNo: number) => object): { data: D; effects: Effect[] } => {
    const stepNo = data.stepNo + 1;
    const step = firstTry(`${kind}:${stepNo}`);
    const command = build(stepNo);
    return { data: { ...data, stepNo, step, command: { subject: message.subject, data: command } }, effects: [sendTry(message, command as MessageData<typeof message>, step, timings.stepTimeoutMs)] };
  };

  /** S7: the honest failure (`no_path`, or a sanitised `error` when a step itself failed). */
  const fail = (data: D, reason: FailureReason, detail: string, now: Date, stepName: string): VisualDecision => {
    const failed = { ...data, failure: { reason, detail } };
    const body =
      reason === 'step_failed'
        ? { type: 'error' as const, data: { code: reason, message: 'A search or recognition step failed; the investigation stopped.' } }
        : {
            type: 'no_path' as const,
            data: { message: NO_PATH_MESSAGE(data.hopLimit, threshold), reason, hopDepth: hopsVerified(data), hopLimit: data.hopLimit, budgets: data.budgets, used: data.used },
          };
    return {
      outcome: 'transition',
      to: 'FAILED',
      data: withEvents(failed, now, body),
      step: stepName,
      logs: [{ step: 'decision', payload: { decision: 'finalize_failure', reason, detail, hop_depth: hopsVerified(data), used: { ...data.used } } }],
    };
  };

  /** Checks the search budgets before a search step; undefined when there is some left. */
  const searchBudgetSpent = (data: D): FailureReason | undefined => {
    const left = remaining(data);
    if (left.searchCalls <= 0) return 'search_budget_exhausted';
    if (left.recognitionCalls <= 0) return 'recognition_budget_exhausted';
    return undefined;
  };

  const verifyEdge = (run: Run, data: D, kind: 'direct' | 'verify' | 'bridge', from: Person, to: Person, queries: readonly string[]) =>
    send(run, data, kind, VerifyEdge, (step): MessageData<typeof VerifyEdge> => {
      const pathSoFar = chainOf(data).path.map(identified);
      return {
        sessionId: data.sessionId,
        runId: run.id,
        step,
        from,
        to,
        queries: [...queries],
        imagesPerQuery,
        threshold,
        budget: { searchCalls: remaining(data).searchCalls, recognitionCalls: remaining(data).recognitionCalls },
        ...(kind !== 'direct' && pathSoFar.every((p) => p !== undefined) ? { pathSoFar: pathSoFar } : {}),
      };
    });

  /** S2 from the current frontier: what it sends, or why it cannot. */
  const discover = (run: Run, data: D, now: Date): { data: D; effects: Effect[]; logs: StepLogEntry[] } | { failed: FailureReason } => {
    const spent = searchBudgetSpent(data);
    if (spent !== undefined) return { failed: spent };
    const frontier = frontierOf(data);
    const excluded = [...everyone(data).flatMap((p) => (p.celebrityId === undefined ? [] : [p.celebrityId])), ...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))];
    const sent = send(run, { ...data, candidates: [], verifying: null }, 'discover', DiscoverCandidates, (step): MessageData<typeof DiscoverCandidates> => ({
      sessionId: data.sessionId,
      runId: run.id,
      step,
      frontier,
      queries: discoveryQueries(frontier.name),
      imagesPerQuery,
      threshold,
      budget: { searchCalls: remaining(data).searchCalls, recognitionCalls: remaining(data).recognitionCalls },
      exclude: [...new Set(excluded)].slice(0, 200),
    }));
    return {
      data: withEvents(sent.data, now, status('Expanding search to find strong intermediates…')),
      effects: sent.effects,
      logs: [{ step: 'decision', payload: { decision: 'discover_from', side: data.side, frontier: frontier.name, hop_depth: hopsVerified(data), excluded: excluded.length } }],
    };
  };

  /** S3 over the frontier's remaining candidates (LLM budget permitting). */
  const select = (run: Run, data: D, now: Date, stepName: string, logs: StepLogEntry[] = []): VisualDecision => {
    const left = remaining(data);
    if (left.llmCalls <= 0) return fail(data, 'llm_budget_exhausted', `${data.budgets.maxLlmCalls} LLM calls spent`, now, stepName);
    const frontier = identified(frontierOf(data));
    if (frontier === undefined) return fail(data, 'no_candidates', 'the frontier was never recognised', now, stepName);
    const sent = send(run, data, 'select', SelectNextExpansion, (step): MessageData<typeof SelectNextExpansion> => ({
      sessionId: data.sessionId,
      runId: run.id,
      step,
      target: otherEndOf(data),
      frontier,
      candidates: data.candidates.slice(0, 50).map((c) => ({ person: c.person, count: c.count, bestConfWithFrontier: c.bestConfWithFrontier })),
      hopsRemaining: Math.max(0, data.hopLimit - hopsVerified(data)),
      budgetsRemaining: left,
      ...(data.model === null ? {} : { model: data.model }),
    }));
    return { outcome: 'transition', to: 'SELECTING', data: sent.data, step: stepName, logs, effects: sent.effects };
  };

  /**
   * The frontier has no candidate left: the spec's alternate frontier strategy. Back one node on the
   * chain (the exhausted frontier becomes a dead end, never proposed again) and discover from there;
   * from `from` itself there is nothing left to try.
   */
  const anotherFrontier = (run: Run, data: D, now: Date, stepName: string, stay: boolean): VisualDecision => {
    const frontier = frontierOf(data);
    const chain = chainOf(data);
    if (chain.path.length <= 1) return fail(data, 'no_candidates', `no verifiable intermediate from ${frontier.name}`, now, stepName);
    const deadEnds = frontier.celebrityId === undefined ? data.deadEnds : [...data.deadEnds, frontier.celebrityId];
    const shorter = { path: chain.path.slice(0, -1), edges: chain.edges.slice(0, -1) };
    const backed: D = withEvents(
      withChain({ ...data, deadEnds }, shorter),
      now,
      status(`No intermediate left from ${frontier.name}; stepping back…`),
      pathUpdate(data.side === 'from' ? shorter.path : data.path, hopsVerified(data) - 1),
    );
    const next = discover(run, backed, now);
    if ('failed' in next) return fail(backed, next.failed, 'no budget left to discover from another frontier', now, stepName);
    const logs = [{ step: 'decision', payload: { decision: 'alternate_frontier', dead_end: frontier.name, frontier: frontierOf(backed).name } }, ...next.logs];
    return stay
      ? { outcome: 'stay', data: next.data, step: stepName, logs, effects: next.effects }
      : { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: stepName, logs, effects: next.effects };
  };

  /** S6: the path, its edges and the confidence maths, from the run's own data. */
  const succeed = (data: D, bridge: VerifiedEdge, now: Date, stepName: string): VisualDecision => {
    const full = joined(data, bridge);
    const payload = finalPayload(full.path, full.edges);
    return {
      outcome: 'transition',
      to: 'SUCCEEDED',
      data: withEvents({ ...data, path: full.path, edges: full.edges, reversePath: [data.to], reverseEdges: [] }, now, evidence(bridge), pathUpdate(full.path, full.edges.length), { type: 'final', data: payload }),
      step: stepName,
      logs: [{ step: 'decision', payload: { decision: 'finalize_success', path: [...payload.path], bottleneck: payload.confidenceMap.bottleneck, cumulative: payload.confidenceMap.cumulative } }],
    };
  };

  /** A verified edge joins the chain: the evidence card and the new path are streamed. */
  const extend = (data: D, edge: VerifiedEdge, now: Date): D => {
    const chain = chainOf(data);
    const extended = withChain(data, { path: [...chain.path, { name: edge.to.name, celebrityId: edge.to.celebrityId }], edges: [...chain.edges, edge] });
    return withEvents(extended, now, evidence(edge), pathUpdate(extended.path, hopsVerified(extended), extended.strategy === 'one_sided' ? undefined : extended.reversePath));
  };

  /** The reply belongs to the step in flight (any try of it); else it is stale. */
  const isCurrent = (run: Run, commandId: string): boolean => run.data.step !== null && isReplyTo(run, run.data.step, run.data.step.name, commandId);

  /** S5 after an edge to X: X ↔ B directly. */
  const bridge = (run: Run, data: D, now: Date, stepName: string, logs: StepLogEntry[]): VisualDecision => {
    const spent = searchBudgetSpent(data);
    if (spent !== undefined) return fail(data, spent, 'no budget left to bridge toward the target', now, stepName);
    const x = frontierOf(data);
    const end = otherEndOf(data);
    const sent = verifyEdge(run, withEvents(data, now, status(`Checking whether ${x.name} connects directly to ${end.name}…`)), 'bridge', x, end, directQueries(x.name, end.name));
    return { outcome: 'transition', to: 'BRIDGING', data: sent.data, step: stepName, logs, effects: sent.effects };
  };

  // Rows every working state has: its step failing, timing out, backing off; the runtime budget.
  const stepRows = (kind: StepKind): Row<S, D>[] => {
    const retryOrFail = (run: Run, data: D, retryable: boolean, why: string, stepName: string, now: Date, clearTimeout: boolean): VisualDecision => {
      const step = data.step;
      if (step === null) return ignore('no step in flight');
      if (retryable && retriesUsed(step) < timings.retries) {
        const retry = scheduleRetry(run, step, timings.backoff, why);
        return { outcome: 'stay', data: { ...data, step: retry.step }, step: stepName, logs: [retry.log], effects: clearTimeout ? [clearStepTimeout(step), ...retry.effects] : retry.effects };
      }
      return fail(data, 'step_failed', `${step.name}: ${why} (after ${step.tries} tries)`, now, stepName);
    };
    return [
      onEvent(VisualStepFailed, ['FAILED'], (run, { data: d }, { now }) => {
        if (run.data.step === null || !isReplyToLatest(run, run.data.step, run.data.step.name, d.commandId)) return ignore('stale VisualStepFailed');
        return retryOrFail(run, charge(run.data, d.usage), d.retryable, `${d.errorCode}: ${d.detail}`, `${kind}_failed`, now, true);
      }),
      onTimer(stepTimeoutInputName(kind), ['FAILED'], (run, timer, { now }) => {
        if (run.data.step === null || !isStepTimeout({ kind: 'timer', ...timer }, run.data.step)) return ignore('stale step timeout');
        return retryOrFail(run, run.data, true, `no reply within ${timings.stepTimeoutMs} ms`, `${kind}_timed_out`, now, false);
      }),
      onTimer(retryTimerName(kind), [], (run, timer) => {
        const { step, command } = run.data;
        if (step === null || command === null || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
        const next = nextTry(step);
        const message = [VerifyEdge, DiscoverCandidates, SelectNextExpansion].find((m) => m.subject === command.subject);
        if (message === undefined) return { outcome: 'refuse', reason: `no command to retry for ${step.name}` };
        // The same command, with what the budgets allow now (a failed try's usage has been charged).
        const left = remaining(run.data);
        const data = 'budget' in command.data ? { ...command.data, budget: { searchCalls: left.searchCalls, recognitionCalls: left.recognitionCalls } } : command.data;
        return { outcome: 'stay', data: { ...run.data, step: next }, step: `${kind}_retried`, effects: [sendTry(message, data as MessageData<typeof message>, next, timings.stepTimeoutMs)] };
      }),
      onTimer(RUN_DEADLINE_TIMER, ['FAILED'], (run, _timer, { now }) => fail(run.data, 'runtime_budget_exhausted', `runtime budget of ${run.data.budgets.maxRuntimeMs} ms spent in ${run.state}`, now, 'runtime_budget_exhausted')),
    ];
  };

  /** Spec rows: state → input → targets → decision. */
  const table: WorkflowTable<S, D> = {
    // S0: the request normalised (init), limits and budgets fixed; then S1.
    INITIALIZING: [
      onStart(['DIRECT_EDGE'], (run, _start, { now }) => {
        const started = withEvents({ ...run.data, startedAt: now.toISOString() }, now, status('Starting investigation…'), status('Searching for direct visual connections…'));
        const sent = verifyEdge(run, started, 'direct', run.data.from, run.data.to, directQueries(run.data.from.name, run.data.to.name));
        const deadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: run.data.budgets.maxRuntimeMs };
        return {
          outcome: 'transition',
          to: 'DIRECT_EDGE',
          data: sent.data,
          step: 'direct_edge_requested',
          logs: [{ step: 'decision', payload: { decision: 'initialized', from: run.data.from.name, to: run.data.to.name, hop_limit: run.data.hopLimit, threshold, images_per_query: imagesPerQuery, budgets: { ...run.data.budgets } } }],
          effects: [...sent.effects, deadline],
        };
      }),
    ],
    // S1: A ↔ B directly.
    DIRECT_EDGE: [
      onEvent(EdgeVerified, ['SUCCEEDED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
        const from = learn(run.data.from, d.edge.from);
        const to = learn(run.data.to, d.edge.to);
        const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
        return succeed(data, d.edge, now, 'direct_edge_verified');
      }),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
        const from = learn(run.data.from, d.from);
        const to = learn(run.data.to, d.to);
        const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
        if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent on the direct attempt', now, 'direct_edge_refuted');
        const next = discover(run, data, now);
        if ('failed' in next) return fail(data, next.failed, 'no budget left for discovery', now, 'direct_edge_refuted');
        return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'direct_edge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
      }),
      ...stepRows('direct'),
    ],
    // S2: who co-appears with the frontier.
    DISCOVERING: [
      onEvent(CandidatesDiscovered, ['SELECTING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale CandidatesDiscovered');
        const frontier = learn(frontierOf(run.data), d.frontier);
        const chain = chainOf(run.data);
        let data = charge(withChain(run.data, { path: [...chain.path.slice(0, -1), frontier], edges: chain.edges }), d.usage);
        if (d.budgetExhausted !== undefined) return fail(data, budgetReason(d.budgetExhausted), 'budget spent on discovery', now, 'candidates_discovered');
        // The other end among them identifies it (its edge is asked for directly in S5, never as an intermediate).
        const end = otherEndOf(data);
        const seen = d.candidates.find((c) => nameKey(c.person.name) === nameKey(end.name));
        if (seen !== undefined && end.celebrityId === undefined) {
          const other = chainOf(data, otherSide(data.side));
          data = withChain(data, { path: [...other.path.slice(0, -1), learn(end, seen.person)], edges: other.edges }, otherSide(data.side));
        }
        const excluded = new Set([...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))]);
        const candidates = usableCandidates(d.candidates, { path: everyone(data), excluded, target: otherEndOf(data) });
        const log = { step: 'decision', payload: { decision: 'candidates', frontier: frontier.name, found: d.candidates.length, usable: candidates.map((c) => c.person.name) } };
        if (candidates.length === 0) {
          const next = anotherFrontier(run, data, now, 'candidates_discovered', true);
          return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
        }
        return select(run, { ...data, candidates }, now, 'candidates_discovered', [log]);
      }),
      ...stepRows('discover'),
    ],
    // S3: the LLM picks the next expansion (strict JSON; the service falls back on invalid output).
    SELECTING: [
      onEvent(ExpansionSelected, ['VERIFYING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale ExpansionSelected');
        const data = charge(run.data, { llmCalls: d.usage.llmCalls, costUsd: d.usage.costUsd });
        const chosen = chosenCandidate(d.nextCandidates, data.candidates);
        if (chosen === undefined) return fail(data, 'no_candidates', 'no candidate to verify', now, 'expansion_selected');
        // A choice outside the candidates is not followed: the spec's fallback ranking decides instead.
        const decidedBy = chosen.valid ? d.decidedBy : 'fallback';
        const fallbackReason = chosen.valid ? d.fallbackReason : 'invalid_choice';
        const frontier = frontierOf(data);
        const x = chosen.candidate.person;
        const queries = decidedBy === 'llm' && d.searchQueries.length > 0 ? d.searchQueries.slice(0, 2) : verificationQueries(frontier.name, x.name);
        const narration = decidedBy === 'llm' && d.narration.trim() !== '' ? d.narration : `Trying an expansion via ${x.name}…`;
        const spent = searchBudgetSpent(data);
        if (spent !== undefined) return fail(data, spent, 'no budget left to verify a candidate', now, 'expansion_selected');
        const sent = verifyEdge(run, withEvents({ ...data, verifying: { candidate: x, queries } }, now, status(narration)), 'verify', frontier, x, queries);
        return {
          outcome: 'transition',
          to: 'VERIFYING',
          data: sent.data,
          step: 'expansion_selected',
          logs: [{ step: 'decision', payload: { decision: 'expansion', decided_by: decidedBy, ...(fallbackReason === undefined ? {} : { fallback_reason: fallbackReason }), candidate: x.name, queries, narration: d.narration } }],
          effects: [...clearPendingRetry(run.data.step), ...sent.effects],
        };
      }),
      ...stepRows('select'),
    ],
    // S4: frontier ↔ X.
    VERIFYING: [
      onEvent(EdgeVerified, ['BRIDGING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
        const x = d.edge.to;
        const data = extend(charge({ ...run.data, candidates: run.data.candidates.filter((c) => c.person.celebrityId !== x.celebrityId), verifying: null }, d.usage), d.edge, now);
        const log = { step: 'decision', payload: { decision: 'edge_accepted', from: d.edge.from.name, to: x.name, edge_conf: d.edge.edgeConf, hop_depth: hopsVerified(data), cache_hit: d.usage.cacheHit } };
        const next = bridge(run, data, now, 'intermediate_verified', [log]);
        return next.outcome === 'transition' || next.outcome === 'stay' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
      }),
      onEvent(EdgeRefuted, ['SELECTING', 'DISCOVERING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
        let data = charge(run.data, d.usage);
        if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent verifying an intermediate', now, 'intermediate_refuted');
        const frontier = frontierOf(data);
        const x = data.verifying?.candidate;
        if (x !== undefined && frontier.celebrityId !== undefined) {
          data = { ...data, failedFrom: { ...data.failedFrom, [frontier.celebrityId]: [...(data.failedFrom[frontier.celebrityId] ?? []), x.celebrityId] } };
        }
        data = withEvents({ ...data, candidates: data.candidates.filter((c) => c.person.celebrityId !== x?.celebrityId), verifying: null }, now, status('Unable to verify this intermediate; trying another…'));
        const log = { step: 'decision', payload: { decision: 'candidate_failed', frontier: frontier.name, candidate: x?.name ?? null, candidates_left: data.candidates.length } };
        const next = data.candidates.length > 0 ? select(run, data, now, 'intermediate_refuted', [log]) : anotherFrontier(run, data, now, 'intermediate_refuted', false);
        return next.outcome === 'transition' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
      }),
      ...stepRows('verify'),
    ],
    // S5: X ↔ B, or expand again from X while the hop depth allows.
    BRIDGING: [
      onEvent(EdgeVerified, ['SUCCEEDED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
        const other = chainOf(run.data, otherSide(run.data.side));
        const end = learn(otherEndOf(run.data), d.edge.to);
        const data = charge(withChain(run.data, { path: [...other.path.slice(0, -1), end], edges: other.edges }, otherSide(run.data.side)), d.usage);
        return succeed(data, d.edge, now, 'target_reached');
      }),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data: d }, { now }) => {
        if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
        const data = withEvents(charge(run.data, d.usage), now, status('No direct edge found; expanding again…'));
        if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent bridging toward the target', now, 'bridge_refuted');
        // Another expansion adds an edge and the bridge after it one more: both must fit in the hop limit.
        const hops = hopsVerified(data);
        if (hops + 2 > data.hopLimit) return fail(data, 'hop_limit_reached', `${hops} hops verified; another expansion would pass ${data.hopLimit}`, now, 'bridge_refuted');
        // Meeting in the middle, the shorter chain grows next (from's on a tie after to's turn).
        const side = data.strategy === 'one_sided' ? 'from' : data.edges.length <= data.reverseEdges.length ? 'from' : 'to';
        const next = discover(run, { ...data, side }, now);
        if ('failed' in next) return fail(data, next.failed, 'no budget left for discovery', now, 'bridge_refuted');
        return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'bridge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
      }),
      ...stepRows('bridge'),
    ],
  };

  return {
    type: VISUAL_DEGREES,
    states: VISUAL_DEGREES_STATES,
    initial: 'INITIALIZING',
    transitions: transitionsOf(table, { from: ['INITIALIZING', 'DIRECT_EDGE', 'DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING'], to: 'CANCELLED' }),
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    inputs: [EdgeVerified, EdgeRefuted, CandidatesDiscovered, ExpansionSelected, VisualStepFailed],
    init(input, run): D {
      const start = visualDegreesRequest.parse(input);
      const options = start.options ?? {};
      const from = { name: start.from };
      return {
        sessionId: start.sessionId ?? run.userId.slice(0, 128),
        from,
        to: { name: start.to },
        hopLimit: options.maxHops ?? VISUAL_DEGREES_PARAMETERS.maxHops,
        budgets: {
          maxSearchCalls: options.maxSearchCalls ?? DEFAULT_VISUAL_BUDGETS.maxSearchCalls,
          maxRecognitionCalls: options.maxRecognitionCalls ?? DEFAULT_VISUAL_BUDGETS.maxRecognitionCalls,
          maxLlmCalls: options.maxLlmCalls ?? DEFAULT_VISUAL_BUDGETS.maxLlmCalls,
          maxRuntimeMs: options.maxRuntimeMs ?? DEFAULT_VISUAL_BUDGETS.maxRuntimeMs,
        },
        model: options.model ?? null,
        used: { searchCalls: 0, recognitionCalls: 0, llmCalls: 0, imagesSkipped: 0, costUsd: 0 },
        startedAt: null,
        stepNo: 0,
        step: null,
        command: null,
        strategy: options.strategy ?? 'one_sided',
        side: 'from',
        path: [from],
        edges: [],
        reversePath: [{ name: start.to }],
        reverseEdges: [],
        candidates: [],
        failedFrom: {},
        deadEnds: [],
        verifying: null,
        events: [],
        failure: null,
      };
    },
    decide: decideByTable(VISUAL_DEGREES, table),
    view(run) {
      const d = run.data;
      const final = d.events.find((e) => e.type === 'final');
      return {
        status: statusOf(run.state),
        state: run.state,
        from: d.from.name,
        to: d.to.name,
        hop_limit: d.hopLimit,
        hop_depth: hopsVerified(d),
        strategy: d.strategy,
        path: d.path.map((p) => p.name),
        ...(d.strategy === 'one_sided' ? {} : { reverse_path: d.reversePath.map((p) => p.name) }),
        budgets: { ...d.budgets },
        used: { ...d.used },
        duration_ms: durationMs(run, d.startedAt),
        events: d.events.map((e) => ({ ...e })),
        ...(final === undefined ? {} : { result: { ...final.data } }),
        ...(d.failure === null ? {} : { failure: { ...d.failure } }),
      };
    },
  };
}

