import { CandidatesDiscovered, type MessageData, EdgeRefuted, EdgeVerified, ExpansionSelected, VISUAL_DEGREES, VisualPersonTakenDown, VisualStepFailed } from '@openpaw/contracts';
import { decideByTable, onEvent, onStart, type SagaDefinition, transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { bridgeRefuted, targetReached } from './states/bridging.js';
import { directEdgeRefuted, directEdgeVerified } from './states/direct-edge.js';
import { candidatesDiscovered } from './states/discovering.js';
import { started } from './states/initializing.js';
import { expansionSelected } from './states/selecting.js';
import { intermediateRefuted, intermediateVerified } from './states/verifying.js';
import { stepRows } from './step-rows.js';
import { cancelled, decideGuarded } from './run-end.js';
import { redacted } from './states/finished.js';
import { initialVisualDegreesData } from './visual-degrees.init.js';
import type { VisualDegreesData } from './visual-degrees.model.js';
import { DEFAULT_VISUAL_DEGREES_TIMINGS, VISUAL_DEGREES_STATES, type VisualDegreesState, type VisualDegreesTimings } from './visual-degrees.states.js';
import { visualDegreesViewOf } from './visual-degrees.view.js';

export { DEFAULT_VISUAL_DEGREES_TIMINGS, VISUAL_DEGREES_STATES, VISUAL_DEGREES_TRANSITIONS, type VisualDegreesState, type VisualDegreesTimings } from './visual-degrees.states.js';
export { NO_PATH_MESSAGE } from './outcomes.js';

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
 * resumption. FAILED and CANCELLED publish `RunEnded`: visual-search aborts the step it runs for the run (run-end.ts).
 */
export function visualDegreesDefinition(timings: VisualDegreesTimings = DEFAULT_VISUAL_DEGREES_TIMINGS): SagaDefinition<VisualDegreesState, VisualDegreesData> {
  /** Spec rows: state → input → targets → handler (one file per state, in states/). */
  const table: WorkflowTable<VisualDegreesState, VisualDegreesData> = {
    // S0: the request normalised (init), limits and budgets fixed; then S1.
    INITIALIZING: [onStart(['DIRECT_EDGE', 'FAILED'], (run, _start, { now }) => started(timings, run, now))],
    // S1: A ↔ B directly.
    DIRECT_EDGE: [
      onEvent(EdgeVerified, ['SUCCEEDED'], (run, { data }, { now }) => directEdgeVerified(run, data, now)),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => directEdgeRefuted(timings, run, data, now)),
      ...stepRows(timings, 'direct'),
    ],
    // S2: who co-appears with the frontier.
    DISCOVERING: [
      onEvent(CandidatesDiscovered, ['SELECTING', 'FAILED'], (run, { data }, { now }) => candidatesDiscovered(timings, run, data, now)),
      ...stepRows(timings, 'discover'),
    ],
    // S3: the LLM picks the next expansion (strict JSON; the service falls back on invalid output).
    SELECTING: [
      onEvent(ExpansionSelected, ['VERIFYING', 'FAILED'], (run, { data }, { now }) => expansionSelected(timings, run, data, now)),
      ...stepRows(timings, 'select'),
    ],
    // S4: frontier ↔ X.
    VERIFYING: [
      onEvent(EdgeVerified, ['BRIDGING', 'SUCCEEDED', 'FAILED'], (run, { data }, { now }) => intermediateVerified(timings, run, data, now)),
      onEvent(EdgeRefuted, ['SELECTING', 'DISCOVERING', 'FAILED'], (run, { data }, { now }) => intermediateRefuted(timings, run, data, now)),
      ...stepRows(timings, 'verify'),
    ],
    // S5: X ↔ B, or expand again from X while the hop depth allows.
    BRIDGING: [
      onEvent(EdgeVerified, ['SUCCEEDED'], (run, { data }, { now }) => targetReached(run, data, now)),
      onEvent(EdgeRefuted, ['DISCOVERING', 'FAILED'], (run, { data }, { now }) => bridgeRefuted(timings, run, data, now)),
      ...stepRows(timings, 'bridge'),
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
    // Delivered per run by whoever finds the runs naming the person (they name no run).
    amendedBy: [VisualPersonTakenDown],
    // The finished runs naming the person: their data holds the celebrity id (chains, cards, candidates).
    amendmentConcerns: (envelope) => (envelope.type === VisualPersonTakenDown.subject ? JSON.stringify((envelope.data as MessageData<typeof VisualPersonTakenDown>).celebrityId) : undefined),
    init: initialVisualDegreesData,
    decide: (run, input, context) => decideGuarded(run, input, context, decide),
    onCancel: (run, reason, { now }) => cancelled(run, reason, now),
    view: visualDegreesViewOf,
  };
}
