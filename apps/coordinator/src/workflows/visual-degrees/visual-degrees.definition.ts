import { CandidatesDiscovered, directQueries, EdgeRefuted, EdgeVerified, ExpansionSelected, type MessageData, VISUAL_DEGREES, VisualPersonTakenDown, VisualStepFailed } from '@openpaw/contracts';
import { decideByTable, type Effect, onEvent, onStart, RUN_DEADLINE_TIMER, type SagaDefinition, transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { verifyEdge } from './visual-degrees.commands.js';
import {
  DEFAULT_VISUAL_DEGREES_TIMINGS,
  initialVisualDegreesData,
  VISUAL_DEGREES_PARAMETERS,
  VISUAL_DEGREES_STATES,
  type VisualDegreesData,
  type VisualDegreesState,
  type VisualDegreesTimings,
} from './visual-degrees.data.js';
import { bridgeRefuted, directEdgeRefuted, directEdgeVerified, targetReached } from './visual-degrees.direct.js';
import { candidatesDiscovered, expansionSelected, intermediateRefuted, intermediateVerified } from './visual-degrees.expansion.js';
import { cancelled, decideGuarded, stepRows } from './visual-degrees.guards.js';
import type { Run, VisualDecision } from './visual-degrees.outcomes.js';
import { asTakenDownAllows, redacted, takenDownWhileRunning } from './visual-degrees.takedown.js';
import { status, visualDegreesViewOf, withEvents } from './visual-degrees.view.js';

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

// Each row's handler is in the table's order: S0 here, S1 and S5 in visual-degrees.direct.ts, S2–S4 in
// visual-degrees.expansion.ts, the finished states' in visual-degrees.takedown.ts.

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

