import {
  RESEARCH_INPUTS,
  RESEARCH_WORKFLOW,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
} from '@openpaw/contracts';
import { decideByTable, onEvent, onHuman, onStart, onTimer, RUN_DEADLINE_TIMER, type SagaDefinition, stepTimeoutInputName, transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { PolicyEngine } from '../policy/index.js';
import { CANCELLED_BY_USER } from './research-completion.js';
import { researchCommands } from './research.commands.js';
import type { ResearchData } from './research.data.js';
import { researchHandlers } from './research.handlers.js';
import { initialResearchData } from './research.init.js';
import { researchLegRows } from './research.leg-rows.js';
import { researchOutcomes } from './research.outcomes.js';
import { refuseIn, titleGenerated } from './research.shared-rows.js';
import { DEFAULT_RESEARCH_TIMINGS, type ResearchTimings } from './research.timings.js';
import { RESEARCH_CANCELLABLE, RESEARCH_STATES, type ResearchState } from './research.transitions.js';
import { researchViewOf } from './research.view.js';

export { freshLeg, missingKeys, type Leg, type ResearchData } from './research.data.js';
export { LEG_CAP_TIMER, legCapTimer, legKey, synthesisKey, TITLE_KEY } from './research.ids.js';
export { researchViewOf } from './research.view.js';

type S = ResearchState;
type D = ResearchData;

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
  const commands = researchCommands(timings);
  const outcomes = researchOutcomes(timings, commands);
  const { fail, cancelled, enterSynthesis } = outcomes;
  const { legStarted, settling, legCompleted, legFailedRow, legTimedOut, legsDeadline } = researchLegRows(timings, outcomes);
  const { created, startRequested, retryConfirmed, synthesized, synthesisFailed, synthesisTimedOut, synthesisDeadline, retryFromFailed } = researchHandlers(timings, commands, outcomes);
  const { start: START, proceed: PROCEED, retry: RETRY, cancel: CANCEL } = RESEARCH_INPUTS;

  /** Spec rows: state → input → targets → decision. */
  const table: WorkflowTable<S, D> = {
    draft: [
      onStart(['processing'], created),
      onHuman(RESEARCH_INPUTS.start, ['processing'], startRequested),
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
      onHuman(RESEARCH_INPUTS.proceed, ['synthesizing', 'completed', 'failed'], (run, _input, { now }) => enterSynthesis(run, run.data, now, [{ step: 'confirmed', payload: { action: 'proceed' } }])),
      onHuman(RESEARCH_INPUTS.retry, ['retrying', 'failed'], retryConfirmed),
      onHuman(RESEARCH_INPUTS.cancel, ['failed'], (run, _input, { now }) => fail(run, cancelled(run.data, now), 'cancelled', CANCELLED_BY_USER, now, [{ step: 'confirmed', payload: { action: 'cancel' } }])),
      titleGenerated,
      ...refuseIn('awaiting_confirmation', [START]),
    ],
    synthesizing: [
      onEvent(ResearchSynthesized, ['completed'], synthesized),
      onEvent(ResearchSynthesisFailed, ['failed'], synthesisFailed),
      onTimer(stepTimeoutInputName('synthesis'), ['failed'], synthesisTimedOut),
      onTimer(RUN_DEADLINE_TIMER, ['failed'], synthesisDeadline),
      titleGenerated,
      ...refuseIn('synthesizing', [START, PROCEED, RETRY, CANCEL]),
    ],
    // Phase 6: retry from `failed` (a terminal state the human input `retry` reopens).
    failed: [
      onHuman(RESEARCH_INPUTS.retry, ['retrying', 'synthesizing', 'completed'], retryFromFailed),
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

    init: (input, run): D => initialResearchData(input, run, policies),


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
