import { AssetVersionCreated, DocumentIndexed, MediaNormalized, MediaRejected, ProblemRegistered, READING_DECISION_INPUT, RetrievalHit, RetrievalMiss } from '@openpaw/contracts';
import { decideByTable, onChild, onClaim, onEvent, onHuman, onStart, onTimer, type Row, type SagaDefinition, transitionsOf, type WorkflowTable } from '@openpaw/saga';
import { DEFAULT_POLICY_CONFIG, PolicyEngine } from '../policy/index.js';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { RETRIEVE_OR_GENERATE, SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import { retrieveOrGenerateCommands, SOLVE_CHILD_KEY } from './retrieve-or-generate.commands.js';
import type { RetrieveOrGenerateData, RetrieveOrGenerateOptions } from './retrieve-or-generate.data.js';
import { initialRetrieveOrGenerateData } from './retrieve-or-generate.init.js';
import { currentData } from './retrieve-or-generate.legacy.js';
import { during, retrieveOrGenerateOutcomes } from './retrieve-or-generate.outcomes.js';
import { RETRIEVE_OR_GENERATE_CANCELLABLE, RETRIEVE_OR_GENERATE_STATES, type RetrieveOrGenerateState } from './retrieve-or-generate.states.js';
import { retrieveOrGenerateStepRows } from './retrieve-or-generate.step-rows.js';
import { retrieveOrGenerateViewOf } from './retrieve-or-generate.view.js';
import { READING_CONFIRMATION_TIMER, readingDecided, readingNotConfirmed } from './states/awaiting-reading-confirmation.js';
import { solveFinished } from './states/generating-solution.js';
import { documentIndexed } from './states/indexing.js';
import { mediaNormalized, mediaRejected } from './states/ingesting.js';
import { started } from './states/initiated.js';
import { assetVersionCreated, problemRegistered } from './states/registering.js';
import { problemKeyClaim, retrievalHit, retrievalMiss } from './states/retrieving.js';

export { acceptanceBar, methodThresholdsOf, NEAR_MISS_MIN_CONFIDENCE } from './retrieval-bars.js';
export {
  type DataAt,
  type RetrieveOrGenerateData,
  type RetrieveOrGenerateErrorCode,
  type RetrieveOrGenerateOptions,
  type RetrieveOrGenerateStart,
  type RetrieveOrGenerateStartInput,
  retrieveOrGenerateStartSchema,
} from './retrieve-or-generate.data.js';
export { RETRIEVE_OR_GENERATE_STATES, RETRIEVE_OR_GENERATE_TRANSITIONS, type RetrieveOrGenerateState, SPEC_TRANSITIONS } from './retrieve-or-generate.states.js';
export type { RetrieveOrGenerateView } from './retrieve-or-generate.view.js';
export { contentSensitivityOf, signatureComputed } from './states/ingesting.js';

type S = RetrieveOrGenerateState;
type D = RetrieveOrGenerateData;

/**
 * RetrieveOrGenerateWorkflow (spec 01): ingest a submitted problem, serve an existing solution when
 * retrieval is confident enough, else generate one (solve_workflow child run), register and index it,
 * and enqueue its video in the background. Pure: every I/O is a command to the owning service.
 */
// Over 60 lines only because it is the spec's table and the definition's fields, one line each; the logic is in states/.
export function retrieveOrGenerateDefinition(options: RetrieveOrGenerateOptions = {}): SagaDefinition<S, D> {
  const policies = new PolicyEngine(options.policy ?? DEFAULT_POLICY_CONFIG);
  const timings = options.timings ?? DEFAULT_WORKFLOW_TIMINGS;
  const commands = retrieveOrGenerateCommands(timings);
  const outcomes = retrieveOrGenerateOutcomes(commands);
  const { stepTimeoutRow, retryDueRow, deadlineRow } = retrieveOrGenerateStepRows(timings, commands, outcomes);
  // A reading decision while no reading awaits one is refused (the person hears why), never ignored.
  const noReadingAwaited: Row<S, D> = onHuman(READING_DECISION_INPUT, [], (run) => ({ outcome: 'refuse', reason: `no reading awaits confirmation: the run is ${run.state}` }));

  /** Spec 01's rows: state → input → the states it may move to → handler (one file per state, in states/). */
  const table: WorkflowTable<S, D> = {
    INITIATED: [onStart(['INGESTING'], (run, _input, { now }) => during(run, 'created', (d) => started(outcomes, run, d, now)))],
    INGESTING: [
      onEvent(MediaNormalized, ['RETRIEVING'], (run, { data }) => during(run, 'ingesting', (d) => mediaNormalized(policies, outcomes, run, d, data))),
      onEvent(MediaRejected, ['FAILED', 'AWAITING_READING_CONFIRMATION'], (run, { data }) => during(run, 'ingesting', (d) => mediaRejected(outcomes, run, d, data))),
      stepTimeoutRow('ingest', ['FAILED']),
      retryDueRow('ingest'),
      deadlineRow,
      noReadingAwaited,
    ],
    // Read → confirm → solve (issue 25): the owner confirms or corrects an uncertain reading; it is then ingested as text.
    AWAITING_READING_CONFIRMATION: [
      onHuman(READING_DECISION_INPUT, ['INGESTING'], (run, human) => during(run, 'confirming', (d) => readingDecided(outcomes, run, d, human))),
      onTimer(READING_CONFIRMATION_TIMER, ['FAILED'], (run) => during(run, 'confirming', (d) => readingNotConfirmed(outcomes, run, d))),
    ],
    RETRIEVING: [
      // SUCCEEDED: an earlier run with the same signature, user and intent succeeded; its result is this run's.
      onClaim(['SUCCEEDED'], (run, claim) => during(run, 'claiming', (d) => problemKeyClaim(commands, run, d, claim), 'the problem key is already claimed')),
      onEvent(RetrievalHit, ['SUCCEEDED', 'GENERATING_SOLUTION'], (run, { data }) => during(run, 'searching', (d) => retrievalHit(outcomes, run, d, data), 'stale RetrievalHit')),
      onEvent(RetrievalMiss, ['GENERATING_SOLUTION'], (run, { data }) => during(run, 'searching', (d) => retrievalMiss(outcomes, run, d, data), 'stale RetrievalMiss')),
      stepTimeoutRow('retrieve', ['FAILED']),
      retryDueRow('retrieve'),
      deadlineRow,
      noReadingAwaited,
    ],
    GENERATING_SOLUTION: [
      // SUCCEEDED: a near-miss served after a failed solve (the one edge beyond the spec's TRANSITIONS).
      onChild(SOLVE_WORKFLOW, ['REGISTERING', 'FAILED', 'SUCCEEDED'], (run, child) => during(run, 'generating', (d) => solveFinished(outcomes, run, d, child))),
      deadlineRow,
      noReadingAwaited,
    ],
    REGISTERING: [
      onEvent(ProblemRegistered, ['INDEXING'], (run, { data }) => during(run, 'registering', (d) => problemRegistered(outcomes, run, d, data))),
      onEvent(AssetVersionCreated, ['INDEXING'], (run, { data }) => during(run, 'registering', (d) => assetVersionCreated(outcomes, run, d, data))),
      stepTimeoutRow('register', ['FAILED']),
      retryDueRow('register'),
      deadlineRow,
    ],
    INDEXING: [
      onEvent(DocumentIndexed, ['SUCCEEDED'], (run, { data }) => during(run, 'indexing', (d) => documentIndexed(outcomes, run, d, data))),
      // Index failure is non-fatal: SUCCEEDED now, indexed by a reindex_asset background run.
      stepTimeoutRow('index', ['SUCCEEDED']),
      deadlineRow,
    ],
  };
  const decideRow = decideByTable(RETRIEVE_OR_GENERATE, table);

  return {
    type: RETRIEVE_OR_GENERATE,
    states: RETRIEVE_OR_GENERATE_STATES,
    initial: 'INITIATED',
    transitions: transitionsOf(table, { from: RETRIEVE_OR_GENERATE_CANCELLABLE, to: 'CANCELLED' }),
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    // Spec 01 re-runs a FAILED key as attempt n + 1; a CANCELLED one too (ADR 0016): the user stopped
    // that attempt, and submitting the problem again is asking for it anew.
    retryableFrom: ['FAILED', 'CANCELLED'],
    // Spec 01: a FAILED run's key is re-run, not answered from; a CANCELLED one's too (ADR 0016).
    keyClaims: { releasedIn: ['FAILED', 'CANCELLED'] },
    // Cancelled while the solve child works: that run is cancelled too, so it stops spending.
    // A CANCELLED run keeps the data of the stage it was cancelled in.
    onCancel: (run) => {
      const data = currentData(run);
      return {
        data,
        effects:
          run.state === 'GENERATING_SOLUTION' && data.stage === 'generating'
            ? [{ type: 'cancelChild', workflowType: SOLVE_WORKFLOW, key: SOLVE_CHILD_KEY, reason: 'the parent run was cancelled' }]
            : [],
      };
    },
    inputs: [MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed],
    init: (input, run): D => initialRetrieveOrGenerateData(input, run, policies),
    // Runs stored by the previous definition (flat nullable data) are read in the current shape (retrieve-or-generate.legacy.ts).
    decide: (run, input, context) => decideRow({ ...run, data: currentData(run) }, input, context),
    view: (run) => retrieveOrGenerateViewOf({ ...run, data: currentData(run) }),
  };
}
