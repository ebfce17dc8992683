import {
  CandidatesDiscovered,
  type DiscoverCandidates,
  directQueries,
  EdgeRefuted,
  EdgeVerified,
  ExpansionSelected,
  type MessageData,
  personNameKey,
  VISUAL_DEGREES,
  VisualPersonTakenDown,
  VisualStepFailed,
  verificationQueries,
} from '@openpaw/contracts';
import { clearPendingRetry, decideByTable, type Effect, onEvent, onStart, RUN_DEADLINE_TIMER, type SagaDefinition,  transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { chainOf, chosenCandidate, frontierOf, isSamePerson, meetingFirst, meetingOf, otherChainCutTo, otherEndOf, otherSide, recordSightings, usableCandidates,  withChain } from './visual-degrees.chains.js';
import { deeperDiscovery, discover, discoverWithinHops, verifyEdge } from './visual-degrees.commands.js';
import {
  budgetReason,
  charge,
  DEFAULT_VISUAL_DEGREES_TIMINGS,
  hopsVerified,
  initialVisualDegreesData,
  learn,
  searchBudgetSpent,
  VISUAL_DEGREES_PARAMETERS,
  VISUAL_DEGREES_STATES,
  type VisualDegreesData,
  type VisualDegreesState,
  type VisualDegreesTimings,
} from './visual-degrees.data.js';
import {
  anotherFrontier,
  bridge,
  extend,
  fail,
  ignore,
  isCurrent,
  nextSide,
  
  notPublicFigureMessage,
  type Run,
  select,
  succeed,
  type VisualDecision,
} from './visual-degrees.outcomes.js';
import { cancelled, decideGuarded, stepRows } from './visual-degrees.guards.js';
import { partialEvidence,   status, visualDegreesViewOf, withEvents } from './visual-degrees.view.js';
import { asTakenDownAllows, redacted, takenDownWhileRunning } from './visual-degrees.takedown.js';

export { DEFAULT_VISUAL_DEGREES_TIMINGS, VISUAL_DEGREES_STATES, type VisualDegreesState, type VisualDegreesTimings } from './visual-degrees.data.js';
export { NO_PATH_MESSAGE } from './visual-degrees.outcomes.js';

/** Spec 03's transitions (S0–S7; the definition's, derived from its rows, must equal it: see the spec file). */
export const VISUAL_DEGREES_TRANSITIONS = {
  INITIALIZING: ['DIRECT_EDGE', 'FAILED', 'CANCELLED'],
  DIRECT_EDGE: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
  DISCOVERING: ['SELECTING', 'FAILED', 'CANCELLED'],
  // SELECTING → DISCOVERING is not in spec 03's table: a takedown while S3 runs that cuts the chain (`takenDownWhileRunning`).
  SELECTING: ['VERIFYING', 'FAILED', 'DISCOVERING', 'CANCELLED'],
  VERIFYING: ['BRIDGING', 'SUCCEEDED', 'FAILED', 'SELECTING', 'DISCOVERING', 'CANCELLED'],
  BRIDGING: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
} as const satisfies Partial<Record<VisualDegreesState, readonly VisualDegreesState[]>>;

/**
 * visual_degrees (spec 03): an evidence-verified visual chain between two persons, at most 6 hops, every
 * edge shown by an image where both are recognised at ≥ 80 %. The spec's worker state machine as a saga:
 *
 *   S0 INITIALIZING  normalise, limits and budgets                       → S1
 *   S1 DIRECT_EDGE   VerifyEdge(A, B)                                    → S6 | S2
 *   S2 DISCOVERING   DiscoverCandidates(frontier)                        → S3 (no candidates: another frontier, S2)
 *   S3 SELECTING     SelectNextExpansion (LLM, strict JSON, fallback)    → S4
 *   S4 VERIFYING     VerifyEdge(frontier, X)                             → S5 | S6 (X is the target) | S3 (more candidates) | S2 (another frontier)
 *   S5 BRIDGING      VerifyEdge(X, B)                                    → S6 | S2 (hop depth allows) | S7
 *   S6 SUCCEEDED, S7 FAILED (hop limit, no candidates, a budget, a failed step, an unknown person,
 *   a fault of the workflow), CANCELLED (a `cancelled` event)
 *
 * Budgets (search, recognition, LLM calls) are charged from every reply's usage and checked before each
 * step; the runtime budget is the run's deadline timer. A step that runs out of budget, or a budget that
 * is spent, ends the run in S7 with the reason. The saga's data is the source of truth; the service's run
 * memory in KV is a cache that may expire. Every decision is in the step log; the stream events (status,
 * evidence, path_update, final, no_path, error, and cancelled) are in the data and the view, numbered for SSE
 * resumption. FAILED and CANCELLED publish `RunEnded`: visual-search aborts the step it runs for the run (`decideGuarded`, visual-degrees.guards.ts).
 */
export function visualDegreesDefinition(timings: VisualDegreesTimings = DEFAULT_VISUAL_DEGREES_TIMINGS): SagaDefinition<VisualDegreesState, VisualDegreesData> {
  /** Spec rows: state → input → targets → handler (the handlers follow the table, in its order; decisions several rows reach are in visual-degrees.outcomes.ts). */
  const table: WorkflowTable<VisualDegreesState, VisualDegreesData> = {
    // S0: the request normalised (init), limits and budgets fixed; then S1.
    INITIALIZING: [onStart(['DIRECT_EDGE', 'FAILED'], (run, _start, { now }) => started(timings, run, now))],
    // S1: A ↔ B directly.
    DIRECT_EDGE: [
      onEvent(EdgeVerified, ['SUCCEEDED', 'DISCOVERING', 'FAILED'], (run, { data }, { now }) => asTakenDownAllows(run, data, (d) => directEdgeVerified(run, d, now), (d) => directEdgeRefuted(timings, run, d, now))),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => directEdgeRefuted(timings, run, data, now)),
      ...stepRows(timings, 'direct'),
      onEvent(VisualPersonTakenDown, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => takenDownWhileRunning(timings, run, data, now)),
    ],
    // S2: who co-appears with the frontier.
    DISCOVERING: [
      onEvent(CandidatesDiscovered, ['SELECTING', 'FAILED'], (run, { data }, { now }) => candidatesDiscovered(timings, run, data, now)),
      ...stepRows(timings, 'discover'),
      onEvent(VisualPersonTakenDown, ['FAILED'], (run, { data }, { now }) => takenDownWhileRunning(timings, run, data, now)),
    ],
    // S3: the LLM picks the next expansion (strict JSON; the service falls back on invalid output).
    SELECTING: [
      onEvent(ExpansionSelected, ['VERIFYING', 'FAILED'], (run, { data }, { now }) => expansionSelected(timings, run, data, now)),
      ...stepRows(timings, 'select'),
      onEvent(VisualPersonTakenDown, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => takenDownWhileRunning(timings, run, data, now)),
    ],
    // S4: frontier ↔ X.
    VERIFYING: [
      onEvent(EdgeVerified, ['BRIDGING', 'SUCCEEDED', 'FAILED', 'SELECTING', 'DISCOVERING'], (run, { data }, { now }) =>
        asTakenDownAllows(run, data, (d) => intermediateVerified(timings, run, d, now), (d) => intermediateRefuted(timings, run, d, now)),
      ),
      onEvent(EdgeRefuted, ['SELECTING', 'DISCOVERING', 'FAILED'], (run, { data }, { now }) => intermediateRefuted(timings, run, data, now)),
      ...stepRows(timings, 'verify'),
      onEvent(VisualPersonTakenDown, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => takenDownWhileRunning(timings, run, data, now)),
    ],
    // S5: X ↔ B, or expand again from X while the hop depth allows.
    BRIDGING: [
      onEvent(EdgeVerified, ['SUCCEEDED', 'DISCOVERING', 'FAILED'], (run, { data }, { now }) => asTakenDownAllows(run, data, (d) => targetReached(run, d, now), (d) => bridgeRefuted(timings, run, d, now))),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => bridgeRefuted(timings, run, data, now)),
      ...stepRows(timings, 'bridge'),
      onEvent(VisualPersonTakenDown, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => takenDownWhileRunning(timings, run, data, now)),
    ],
    // A finished run names a person taken down: redacted, its state kept (an amendment, `amendedBy`).
    SUCCEEDED: [onEvent(VisualPersonTakenDown, [], (run, { data }, { now }) => redacted(run, data, now))],
    FAILED: [onEvent(VisualPersonTakenDown, [], (run, { data }, { now }) => redacted(run, data, now))],
    CANCELLED: [onEvent(VisualPersonTakenDown, [], (run, { data }, { now }) => redacted(run, data, now))],
  };

  const decide = decideByTable(VISUAL_DEGREES, table);
  return {
    type: VISUAL_DEGREES,
    states: VISUAL_DEGREES_STATES,
    initial: 'INITIALIZING',
    transitions: transitionsOf(table, { from: ['INITIALIZING', 'DIRECT_EDGE', 'DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING'], to: 'CANCELLED' }),
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    inputs: [EdgeVerified, EdgeRefuted, CandidatesDiscovered, ExpansionSelected, VisualStepFailed],
    // Delivered per run by whoever finds the runs naming the person (they name no run): a finished run is
    // redacted; a running one also loses them from its chains and re-plans (`takenDownWhileRunning`).
    amendedBy: [VisualPersonTakenDown],
    // The runs naming the person: their data holds the celebrity id (chains, cards, candidates).
    amendmentConcerns: (envelope) => (envelope.type === VisualPersonTakenDown.subject ? JSON.stringify((envelope.data as MessageData<typeof VisualPersonTakenDown>).celebrityId) : undefined),
    init: initialVisualDegreesData,
    decide: (run, input, context) => decideGuarded(run, input, context, decide),
    onCancel: (run, reason, { now }) => cancelled(run, reason, now),
    view: visualDegreesViewOf,
  };
}

// Each row's handler, in the table's order (S0, S1, S2, S3, S4, S5, then the finished states).

const { threshold, imagesPerQuery } = VISUAL_DEGREES_PARAMETERS;

/** S0 → S1: the request normalised (init), limits and budgets fixed; A ↔ B asked for directly, the runtime budget armed. */
function started(timings: VisualDegreesTimings, run: Run, now: Date): VisualDecision {
  const started = withEvents({ ...run.data, startedAt: now.toISOString() }, now, status('Starting investigation…'), status('Searching for direct visual connections…'));
  const sent = verifyEdge(timings, run, started, 'direct', run.data.from, run.data.to, directQueries(run.data.from.name, run.data.to.name));
  const deadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: run.data.budgets.maxRuntimeMs };
  return {
    outcome: 'transition',
    to: 'DIRECT_EDGE',
    data: sent.data,
    step: 'direct_edge_requested',
    logs: [{ step: 'decision', payload: { decision: 'initialized', from: run.data.from.name, to: run.data.to.name, hop_limit: run.data.hopLimit, threshold, images_per_query: imagesPerQuery, budgets: { ...run.data.budgets } } }],
    effects: [...sent.effects, deadline],
  };
}

/** S1 A ↔ B verified → S6. */
function directEdgeVerified(run: Run, d: MessageData<typeof EdgeVerified>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const from = learn(run.data.from, d.edge.from);
  const to = learn(run.data.to, d.edge.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  return succeed(data, d.edge, now, 'direct_edge_verified');
}

/** S1 A ↔ B refuted → S2 (discover from A), or S7 when a budget is spent or the local demo world knows nobody by a name. */
function directEdgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const from = learn(run.data.from, d.from);
  const to = learn(run.data.to, d.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  if (d.notInWorld !== undefined) {
    const unknown = { names: d.notInWorld.names, known: d.notInWorld.known };
    return fail(data, 'unknown_person', `not in the ${data.world?.description ?? 'local demo world'}: ${unknown.names.join(', ')}`, now, 'direct_edge_refuted', { unknown });
  }
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent on the direct attempt', now, 'direct_edge_refuted');
  const partial = partialEvidence(from, to, d.partialEvidence);
  const shown = partial === undefined ? data : withEvents(partial.photo === undefined ? data : { ...data, partialPhotos: [...(data.partialPhotos ?? []), partial.photo] }, now, partial.event);
  // One-sided, no chain grows from B, so nothing would ever check that B is a public figure: on the
  // real web, a B the direct attempt's photos did not show at the threshold (the reply names the id of
  // a person they showed) is discovered once first, and the rule of a side's root applies to B as to A.
  const checkB = shown.strategy === 'one_sided' && shown.world === undefined && to.celebrityId === undefined;
  const next = discover(timings, run, checkB ? { ...shown, side: 'to' } : shown, now);
  if ('failed' in next) return fail(shown, next.failed, next.detail, now, 'direct_edge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'direct_edge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}

/**
 * S2 the frontier's co-appearances → S3 over the usable ones, those that meet the other chain first
 * (the target, or a node of the other chain, closes the chain: S3 picks it and S4 verifies it from this
 * discovery's evidence; one seen beside the other chain is a bridge away); none: another frontier (S2),
 * or S7. The co-appearances are remembered as this side's sightings, for the other side to meet.
 */
function candidatesDiscovered(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof CandidatesDiscovered>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale CandidatesDiscovered');
  const frontier = learn(frontierOf(run.data), d.frontier);
  const chain = chainOf(run.data);
  let data = charge(withChain(run.data, { path: [...chain.path.slice(0, -1), frontier], edges: chain.edges }), d.usage);
  if (d.budgetExhausted !== undefined) return fail(data, budgetReason(d.budgetExhausted), 'budget spent on discovery', now, 'candidates_discovered');
  // Only public figures: on the real web, a person the run starts from whom none of the photos searched
  // for them showed at the threshold is not one the celebrity recogniser knows. No chain can start there,
  // so nothing more is searched for them (or anyone else). With no photo read at all, that is not known:
  // the search goes on. The local demo world refuses a name it does not know at S1 (`unknown_person`), so
  // there an unrecognised person is a photo missed, not a private person.
  const photosRead = d.usage.recognitionCalls + d.usage.imagesSkipped;
  if (data.world === undefined && chain.path.length === 1 && frontier.celebrityId === undefined && photosRead > 0) {
    return fail(data, 'not_a_public_figure', `${frontier.name}: not recognised in ${photosRead} photos of their discovery`, now, 'candidates_discovered', {
      message: notPublicFigureMessage(frontier.name, photosRead),
    });
  }
  // One-sided, B's side is discovered only to check B (`directEdgeRefuted`): recognised, the chain grows from A.
  if (data.strategy === 'one_sided' && data.side === 'to') {
    const fromA = discover(timings, run, { ...data, side: 'from' }, now);
    if ('failed' in fromA) return fail(data, fromA.failed, fromA.detail, now, 'candidates_discovered');
    const checked = { step: 'decision', payload: { decision: 'public_figure_checked', person: frontier.name, photos: photosRead } };
    return { outcome: 'stay', data: fromA.data, step: 'candidates_discovered', logs: [checked, ...fromA.logs], effects: fromA.effects };
  }
  // The other end among them identifies it (and is the next step: its co-appearance is the last edge).
  const end = otherEndOf(data);
  const seen = d.candidates.find((c) => personNameKey(c.person.name) === personNameKey(end.name));
  if (seen !== undefined && end.celebrityId === undefined) {
    const other = chainOf(data, otherSide(data.side));
    data = withChain(data, { path: [...other.path.slice(0, -1), learn(end, seen.person)], edges: other.edges }, otherSide(data.side));
  }
  const excluded = new Set([...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))]);
  const usable = usableCandidates(d.candidates, { path: chainOf(data).path, excluded, otherChain: chainOf(data, otherSide(data.side)).path });
  data = recordSightings(data, frontier, usable);
  const candidates = meetingFirst(data, usable);
  const meeting = candidates[0] === undefined ? undefined : meetingOf(data, candidates[0].person);
  const log = {
    step: 'decision',
    payload: {
      decision: 'candidates',
      frontier: frontier.name,
      found: d.candidates.length,
      usable: candidates.map((c) => c.person.name),
      target_seen: meeting?.kind === 'on_chain',
      ...(meeting === undefined ? {} : { meets: { kind: meeting.kind, at: meeting.at } }),
    },
  };
  if (candidates.length === 0) {
    const asked = (run.data.command?.data as Partial<MessageData<typeof DiscoverCandidates>> | undefined)?.queries ?? [];
    const deeper = searchBudgetSpent(data) === undefined ? deeperDiscovery(data, frontier, asked, photosRead) : undefined;
    const again = deeper === undefined ? undefined : discover(timings, run, data, now, deeper);
    if (again !== undefined && !('failed' in again)) return { outcome: 'stay', data: again.data, step: 'candidates_discovered', logs: [log, ...again.logs], effects: again.effects };
    const next = anotherFrontier(timings, run, data, now, 'candidates_discovered', true);
    return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
  }
  return select(timings, run, { ...data, candidates }, now, 'candidates_discovered', [log]);
}

/** S3 the LLM picked the next expansion (strict JSON; the service falls back on invalid output) → S4 frontier ↔ X, or S7. */
function expansionSelected(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof ExpansionSelected>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale ExpansionSelected');
  const data = charge(run.data, { llmCalls: d.usage.llmCalls, costUsd: d.usage.costUsd });
  const chosen = chosenCandidate(d.nextCandidates, data.candidates, (person) => meetingOf(data, person) !== undefined);
  if (chosen === undefined) return fail(data, 'no_candidates', 'no candidate to verify', now, 'expansion_selected');
  // A candidate that meets the other chain (the target, a node of that chain, or one seen beside it)
  // is the choice, whatever the reply says; a choice outside the candidates is not followed: the
  // spec's fallback ranking decides instead.
  const meeting = chosen.meets ? meetingOf(data, chosen.candidate.person) : undefined;
  const decidedBy = meeting?.kind === 'on_chain' ? 'target' : meeting !== undefined ? 'meeting' : chosen.valid ? d.decidedBy : 'fallback';
  const fallbackReason = meeting !== undefined ? undefined : chosen.valid ? d.fallbackReason : 'invalid_choice';
  const frontier = frontierOf(data);
  const x = chosen.candidate.person;
  const queries = decidedBy === 'llm' && d.searchQueries.length > 0 ? d.searchQueries.slice(0, 2) : verificationQueries(frontier.name, x.name);
  const narration =
    decidedBy === 'llm' && d.narration.trim() !== ''
      ? d.narration
      : meeting?.kind === 'on_chain'
        ? `${x.name} was seen beside ${frontier.name}; verifying that edge…`
        : meeting !== undefined
          ? `${x.name} was seen beside ${frontier.name} and on the other side's search; verifying that edge…`
          : `Trying an expansion via ${x.name}…`;
  const spent = searchBudgetSpent(data);
  if (spent !== undefined) return fail(data, spent, 'no budget left to verify a candidate', now, 'expansion_selected');
  const sent = verifyEdge(timings, run, withEvents({ ...data, verifying: { candidate: x, queries } }, now, status(narration)), 'verify', frontier, x, queries);
  return {
    outcome: 'transition',
    to: 'VERIFYING',
    data: sent.data,
    step: 'expansion_selected',
    logs: [{ step: 'decision', payload: { decision: 'expansion', decided_by: decidedBy, ...(fallbackReason === undefined ? {} : { fallback_reason: fallbackReason }), candidate: x.name, queries, narration: d.narration } }],
    effects: [...clearPendingRetry(run.data.step), ...sent.effects],
  };
}

/**
 * S4 frontier ↔ X verified: X joins the chain → S5 X ↔ B, or S7; when X is on the other chain (the
 * target, or a node nearer its root), the chain is whole there → S6. When the other side's search saw X
 * beside one of its nodes, that node becomes the other chain's end, what S5 bridges to.
 */
function intermediateVerified(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeVerified>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const x = d.edge.to;
  const meeting = meetingOf(run.data, x);
  if (meeting?.kind === 'on_chain' || isSamePerson(x, otherEndOf(run.data))) {
    const closed = meeting === undefined ? run.data : otherChainCutTo(run.data, meeting.at, now);
    const done = targetReached(run, d, now, 'target_verified', closed);
    return done.outcome === 'transition' ? { ...done, effects: [...clearPendingRetry(run.data.step), ...(done.effects ?? [])] } : done;
  }
  const verified = extend(charge({ ...run.data, candidates: run.data.candidates.filter((c) => c.person.celebrityId !== x.celebrityId), verifying: null }, d.usage), d.edge, now);
  const data = meeting === undefined ? verified : otherChainCutTo(verified, meeting.at, now);
  const log = { step: 'decision', payload: { decision: 'edge_accepted', from: d.edge.from.name, to: x.name, edge_conf: d.edge.edgeConf, hop_depth: hopsVerified(data), cache_hit: d.usage.cacheHit } };
  const next = bridge(timings, run, data, now, 'intermediate_verified', [log]);
  return next.outcome === 'transition' || next.outcome === 'stay' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
}

/** S4 frontier ↔ X refuted → S3 over the candidates left, S2 from another frontier, or S7. */
function intermediateRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
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
  const next = data.candidates.length > 0 ? select(timings, run, data, now, 'intermediate_refuted', [log]) : anotherFrontier(timings, run, data, now, 'intermediate_refuted', false);
  return next.outcome === 'transition' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
}

/**
 * S5 X ↔ B verified → S6 (also S4 when X was on the other chain, seen beside the frontier in S2: `ended`
 * is the run's data with that chain ending at X).
 */
function targetReached(run: Run, d: MessageData<typeof EdgeVerified>, now: Date, stepName = 'target_reached', ended = run.data): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const other = chainOf(ended, otherSide(ended.side));
  const end = learn(otherEndOf(ended), d.edge.to);
  const data = charge(withChain(ended, { path: [...other.path.slice(0, -1), end], edges: other.edges }, otherSide(ended.side)), d.usage);
  return succeed({ ...data, candidates: [], verifying: null }, d.edge, now, stepName);
}

/** S5 X ↔ B refuted → S2 expanding again, stepping a chain back when the hop depth does not allow it (`discoverWithinHops`), else S7. */
function bridgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const data = withEvents(charge(run.data, d.usage), now, status('No direct edge found; expanding again…'));
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent bridging toward the target', now, 'bridge_refuted');
  const next = discoverWithinHops(timings, run, { ...data, side: nextSide(data) }, now);
  if ('failed' in next) return fail(data, next.failed, next.detail, now, 'bridge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'bridge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}
