import {
  accumulateRelevant,
  CHECKPOINT_DECISION_INPUT,
  type Checkpoint,
  checkpointDecisionInput,
  deterministicUuid,
  interpretDecision,
  mergeAccumulated,
  withPapers,
  PAPER_SEARCH,
  RunEnded,
  paperIdentityOf,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PaperSourcesSearched,
  PapersOrganised,
  PapersScored,
  type PaperCollection,
  type PaperSetRef,
  paperSearchStart,
  SearchStrategyBuilt,
  type SearchStrategy,
  strategyOriginOf,
  type UserFeedback,
  USER_EDITED_STRATEGY,
} from '@openpaw/contracts';
import {
  clearPendingRetry,
  clearStepTimeout,
  type Decision,
  decideByTable,
  type Effect,
  firstTry,
  type HumanInput,
  isReplyTo,
  isReplyToLatest,
  isRetryDue,
  isStepTimeout,
  nextTry,
  onEvent,
  onHuman,
  onStart,
  onTimer,
  retriesUsed,
  retryTimerName,
  RUN_DEADLINE_TIMER,
  type RunSnapshot,
  type Row,
  type SagaDefinition,
  scheduleRetry,
  stepTimeoutInputName,
  type StepLogEntry,
  transitionsOf,
  type WorkflowTable,
} from '@openpaw/saga';
import { commandFor } from './paper-search.commands.js';
import {
  countOf,
  EMPTY_PIPELINE,
  type IterationRecord,
  PAPER_SEARCH_STATES,
  type PaperSearchData,
  type PaperSearchState,
  type Skill,
  skillOf,
  stepNameOf,
} from './paper-search.data.js';
import { DEFAULT_PAPER_SEARCH_SETTINGS, type PaperSearchSettings } from './paper-search.settings.js';
import { paperSearchViewOf } from './paper-search.view.js';

type S = PaperSearchState;
type D = PaperSearchData;
type Run = RunSnapshot<S, D>;
type PaperSearchDecision = Decision<S, D>;

/** An iteration record's `strategyOrigin`, when the run knows it (runs paused before it do not). */
const originOf = (data: D): Pick<IterationRecord, 'strategyOrigin'> => (data.strategyOrigin == null ? {} : { strategyOrigin: data.strategyOrigin });

const ignore = (reason: string): PaperSearchDecision => ({ outcome: 'ignore', reason });
const refuse = (reason: string): PaperSearchDecision => ({ outcome: 'refuse', reason });

/** A checkpoint's id: one per (run attempt, kind, iteration), so a decision for an earlier one is recognisably stale. */
export function checkpointIdOf(run: Pick<Run, 'id' | 'attemptNo'>, kind: Checkpoint['kind'], iteration: number): string {
  return deterministicUuid(run.id, String(run.attemptNo), 'checkpoint', kind, String(iteration));
}

/**
 * paper_search (spec 04) as a durable saga. Each skill is a command to the research service (its
 * `papersearch` lane); each checkpoint is a state that waits, for as long as it takes and across
 * restarts, for a `checkpoint_decision` human input naming the open checkpoint. Decisions follow the
 * spec's decision-semantics table (`interpretDecision`); an iteration ends with feedback that the
 * next strategy is built from; papers marked relevant accumulate, papers marked irrelevant are never
 * shown again; after `maxIterations` the run completes with the last collection and the papers kept
 * (ADR 0026: spec 04 returns the last collection alone, which drops what the person kept).
 */
export function paperSearchDefinition(settings: PaperSearchSettings = DEFAULT_PAPER_SEARCH_SETTINGS): SagaDefinition<S, D> {
  const stretchDeadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: settings.stretchDeadlineMs };
  const clearDeadline: Effect = { type: 'clearTimer', name: RUN_DEADLINE_TIMER };

  /** Moves to `to` and sends the first try of `skill` (in the data's iteration). */
  const enterStep = (run: Run, data: D, to: S, skill: Skill, stepName: string, extra: { logs?: readonly StepLogEntry[]; effects?: readonly Effect[] } = {}): PaperSearchDecision => {
    const step = firstTry(stepNameOf(skill, skill === 'parse_intent' ? 1 : data.iteration));
    const next: D = { ...data, step };
    return {
      outcome: 'transition',
      to,
      data: next,
      step: stepName,
      logs: extra.logs ?? [],
      effects: [...clearPendingRetry(run.data.step), ...(extra.effects ?? []), commandFor(run, next, step, settings)],
    };
  };

  /**
   * `RunEnded` on every terminal state: services stop work in flight for the run, and the research
   * service records the end, from which its stored paper lists are swept after their retention.
   */
  const runEnded = (run: Run, state: 'COMPLETED' | 'FAILED' | 'CANCELLED', reason: string): Effect => ({
    type: 'publish',
    message: RunEnded,
    data: { runId: run.id, workflowType: PAPER_SEARCH, state, reason: reason.slice(0, 200) },
    key: 'run-ended',
  });

  const fail = (run: Run, skill: string, code: string, detail: string, stepName: string): PaperSearchDecision => ({
    outcome: 'transition',
    to: 'FAILED',
    data: { ...run.data, step: null, checkpoint: null, error: { step: skill, code, detail } },
    step: stepName,
    effects: [runEnded(run, 'FAILED', code)],
    logs: [{ step: 'error_recorded', payload: { step: skill, error_code: code, detail } }],
  });

  /** The next iteration's strategy, built from the intent, every earlier strategy and the feedback. */
  const buildStrategy = (run: Run, data: D, stepName: string, effects: readonly Effect[] = []): PaperSearchDecision =>
    enterStep(run, { ...data, iteration: data.iteration + 1, strategy: null, diff: null, strategyOrigin: null, pipeline: EMPTY_PIPELINE, checkpoint: null }, 'BUILDING_STRATEGY', 'build_strategy', stepName, { effects });

  const search = (run: Run, data: D, strategy: SearchStrategy, stepName: string, effects: readonly Effect[] = []): PaperSearchDecision =>
    enterStep(run, { ...data, strategy, checkpoint: null }, 'SEARCHING', 'search_sources', stepName, { effects });

  const complete = (run: Run, data: D, result: PaperCollection | null, completion: NonNullable<D['completion']>, stepName: string): PaperSearchDecision => ({
    outcome: 'transition',
    to: 'COMPLETED',
    data: { ...data, step: null, checkpoint: null, result, completion },
    step: stepName,
    effects: [...clearPendingRetry(run.data.step), clearDeadline, runEnded(run, 'COMPLETED', completion)],
    logs: [{ step: 'search_completed', payload: { completion, iterations: data.iterations.length, papers: result?.papers.length ?? 0 } }],
  });

  /**
   * An iteration ends with feedback (checkpoint 1 REJECT, checkpoint 2 EDIT / REJECT): recorded, and
   * the next one starts, unless `maxIterations` are used: then the run completes with the last
   * collection and every paper kept so far (ADR 0026), the rejected ones left out.
   */
  const endIteration = (run: Run, data: D, record: IterationRecord, stepName: string): PaperSearchDecision => {
    const feedback = record.feedback;
    const newlyRejected = new Set((feedback?.markedIrrelevant ?? []).filter((id) => !data.rejectedIds.includes(id)));
    const ended: D = {
      ...data,
      iterations: [...data.iterations, record],
      rejectedIds: [...new Set([...data.rejectedIds, ...(feedback?.markedIrrelevant ?? [])])],
      rejectedPapers: [...(data.rejectedPapers ?? []), ...(data.collection?.papers ?? []).filter((p) => newlyRejected.has(p.id)).map(paperIdentityOf)],
    };
    // The papers the person kept are never dropped, at max iterations either (ADR 0026: spec 04 says "the last collection").
    if (ended.iterations.length >= data.request.options.maxIterations) return complete(run, ended, keptCollection(ended), 'max_iterations', stepName);
    return buildStrategy(run, ended, stepName, [stretchDeadline]);
  };

  /** The open checkpoint's decision, validated: the payload, the checkpoint id (stale → refused), then the decision itself. */
  const readDecision = (run: Run, human: HumanInput) => {
    const parsed = checkpointDecisionInput.safeParse(human.payload);
    if (!parsed.success) return { refusal: refuse(`invalid decision: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`) };
    const open = run.data.checkpoint;
    if (open === null) return { refusal: refuse('no checkpoint is open') };
    if (parsed.data.checkpointId !== open.checkpointId) {
      return { refusal: refuse(`stale checkpoint ${parsed.data.checkpointId}: the open checkpoint is ${open.checkpointId} (${open.kind}, iteration ${open.iteration})`) };
    }
    const meaning = interpretDecision(open.kind, parsed.data.decision);
    if (meaning.kind === 'invalid') return { refusal: refuse(meaning.reason) };
    return { decision: parsed.data.decision, meaning };
  };

  const openCheckpoint = (run: Run, data: D, to: 'AWAITING_STRATEGY_CONFIRMATION' | 'AWAITING_RESULT_REVIEW', now: Date, stepName: string): PaperSearchDecision => {
    const common = { runId: run.id, iteration: data.iteration, createdAt: now.toISOString() };
    const checkpoint: Checkpoint =
      to === 'AWAITING_STRATEGY_CONFIRMATION'
        ? {
            kind: 'strategy_confirmation',
            checkpointId: checkpointIdOf(run, 'strategy_confirmation', data.iteration),
            ...common,
            payload: { intent: required(data.intent), strategy: required(data.strategy), iteration: data.iteration, diff: data.diff, ...(data.strategyOrigin == null ? {} : { origin: data.strategyOrigin }) },
          }
        : {
            kind: 'result_review',
            checkpointId: checkpointIdOf(run, 'result_review', data.iteration),
            ...common,
            payload: { collection: required(data.collection), accumulatedPapers: [...data.accumulated], iteration: data.iteration },
          };
    return {
      outcome: 'transition',
      to,
      data: { ...data, step: null, checkpoint },
      step: stepName,
      // The machine's part is done: the run waits for the person, with no deadline.
      effects: [...clearPendingRetry(run.data.step), clearDeadline],
      logs: [{ step: 'checkpoint_opened', payload: { checkpoint_id: checkpoint.checkpointId, kind: checkpoint.kind, iteration: data.iteration } }],
    };
  };

  // ---- the rows every working state shares: failure replies, timeouts, backoff, deadline, decisions ----

  /** A failed or timed-out try: retried with backoff while retries remain (stays), else FAILED with the reason. */
  const onStepFailure = (run: Run, retryable: boolean, code: string, detail: string, stepName: string, answered: boolean): PaperSearchDecision => {
    const step = run.data.step;
    if (step === null) return ignore('no step in progress');
    if (retryable && retriesUsed(step) < settings.retries) {
      const retry = scheduleRetry(run, step, settings.backoff, code);
      return { outcome: 'stay', data: { ...run.data, step: retry.step }, step: stepName, logs: [retry.log], effects: answered ? [clearStepTimeout(step), ...retry.effects] : retry.effects };
    }
    const why = retryable ? `${detail} (retries exhausted: ${step.tries} tries)` : detail;
    return fail(run, skillOf(step), code, why, stepName);
  };

  const failureRows = (skill: Skill): Row<S, D>[] => [
    onEvent(PaperSearchStepFailed, ['FAILED'], (run, { data: e }) => {
      const step = run.data.step;
      if (step === null || skillOf(step) !== skill || !isReplyToLatest(run, step, step.name, e.commandId)) return ignore('stale PaperSearchStepFailed');
      return onStepFailure(run, e.retryable, e.errorCode, `${e.step}: ${e.detail}`, `${skill}_failed`, true);
    }),
    onTimer(stepTimeoutInputName(skill), ['FAILED'], (run, timer) => {
      const step = run.data.step;
      if (step === null || skillOf(step) !== skill || !isStepTimeout({ kind: 'timer', ...timer }, step)) return ignore('stale step timeout');
      return onStepFailure(run, true, 'timeout', `${skill}: no reply within ${settings.timeoutsMs[skill]} ms of pickup`, `${skill}_timed_out`, false);
    }),
    onTimer(retryTimerName(skill), [], (run, timer) => {
      const step = run.data.step;
      if (step === null || skillOf(step) !== skill || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
      const next = nextTry(step);
      const data: D = { ...run.data, step: next };
      return { outcome: 'stay', data, step: `${skill}_retried`, effects: [commandFor(run, data, next, settings)] };
    }),
    onTimer(RUN_DEADLINE_TIMER, ['FAILED'], (run) =>
      fail(run, skill, 'deadline_exceeded', `the search did not reach a checkpoint or its end within ${settings.stretchDeadlineMs} ms (in ${run.state})`, 'deadline_exceeded'),
    ),
    // A decision while the machine works answers no open checkpoint: refused (the person hears why), never ignored.
    onHuman(CHECKPOINT_DECISION_INPUT, [], (run) => refuse(`no checkpoint is open: the run is ${run.state}`)),
  ];

  const replyTo = (run: Run, skill: Skill, commandId: string): boolean => run.data.step !== null && skillOf(run.data.step) === skill && isReplyTo(run, run.data.step, run.data.step.name, commandId);

  /** Spec 04's rows: state → input → the states it may move to → decision. */
  const table: WorkflowTable<S, D> = {
    INITIATED: [
      onStart(['PARSING_INTENT'], (run, _input, { now }) =>
        enterStep(run, { ...run.data, startedAt: now.toISOString() }, 'PARSING_INTENT', 'parse_intent', 'intent_requested', { effects: [stretchDeadline] }),
      ),
    ],
    PARSING_INTENT: [
      onEvent(PaperSearchIntentParsed, ['BUILDING_STRATEGY'], (run, { data: e }) =>
        replyTo(run, 'parse_intent', e.commandId) ? buildStrategy(run, { ...run.data, intent: e.intent }, 'intent_parsed') : ignore('stale PaperSearchIntentParsed'),
      ),
      // Edge case: the parser fails → the run fails with the reason (a retryable failure is retried first).
      ...failureRows('parse_intent'),
    ],
    BUILDING_STRATEGY: [
      onEvent(SearchStrategyBuilt, ['AWAITING_STRATEGY_CONFIRMATION', 'SEARCHING'], (run, { data: e }, { now }) => {
        if (!replyTo(run, 'build_strategy', e.commandId) || e.iteration !== run.data.iteration) return ignore('stale SearchStrategyBuilt');
        const data: D = { ...run.data, strategy: e.strategy, diff: e.diff, strategyOrigin: strategyOriginOf(e.provenance) };
        const { strategyCheckpoint, autoApprove } = data.request.options;
        // Checkpoint 1 is optional: disabled, or no person in the loop (auto_approve) → searched as built.
        if (!strategyCheckpoint || autoApprove) return search(run, data, e.strategy, 'strategy_built');
        return openCheckpoint(run, data, 'AWAITING_STRATEGY_CONFIRMATION', now, 'strategy_built');
      }),
      ...failureRows('build_strategy'),
    ],
    AWAITING_STRATEGY_CONFIRMATION: [
      onHuman(CHECKPOINT_DECISION_INPUT, ['SEARCHING', 'BUILDING_STRATEGY', 'COMPLETED'], (run, human) => {
        const read = readDecision(run, human);
        if (read.refusal !== undefined) return read.refusal;
        const data = run.data;
        const strategy = required(data.strategy);
        switch (read.meaning.kind) {
          case 'proceed':
            return search(run, data, strategy, 'strategy_approved', [stretchDeadline]);
          case 'use_strategy':
            return search(run, { ...data, strategyOrigin: USER_EDITED_STRATEGY }, read.meaning.strategy, 'strategy_edited', [stretchDeadline]);
          case 'iterate':
            // REJECT: the note is free-text feedback; nothing is searched this iteration.
            return endIteration(run, data, { iteration: data.iteration, strategy, resultCount: null, decision: 'reject', note: read.decision.note, feedback: read.meaning.feedback, ...originOf(data) }, 'strategy_rejected');
          case 'complete':
            return refuse('checkpoint 1 cannot complete the search');
        }
      }),
    ],
    SEARCHING: [
      // Edge cases: empty results and every source failing both continue (to checkpoint 2); failures are in sourceReports.
      onEvent(PaperSourcesSearched, ['DEDUPLICATING'], (run, { data: e }) => {
        if (!replyTo(run, 'search_sources', e.commandId) || e.iteration !== run.data.iteration) return ignore('stale PaperSourcesSearched');
        const found = { papers: e.papers, ...refOf(e), sourceReports: e.sourceReports, ...(e.cuts === undefined ? {} : { cuts: e.cuts }) };
        const failed = e.sourceReports.filter((r) => r.status === 'failed').map((r) => r.source);
        return enterStep(run, { ...run.data, pipeline: { ...run.data.pipeline, found } }, 'DEDUPLICATING', 'deduplicate', 'sources_searched', {
          logs: [{ step: 'sources_reported', payload: { found: countOf(found), failed_sources: failed } }],
        });
      }),
      ...failureRows('search_sources'),
    ],
    DEDUPLICATING: [
      onEvent(PapersDeduplicated, ['SCORING'], (run, { data: e }) => {
        if (!replyTo(run, 'deduplicate', e.commandId) || e.iteration !== run.data.iteration) return ignore('stale PapersDeduplicated');
        const deduplicated = { papers: e.papers, ...refOf(e), duplicatesMerged: e.duplicatesMerged, rejectedExcluded: e.rejectedExcluded };
        return enterStep(run, { ...run.data, pipeline: { ...run.data.pipeline, deduplicated } }, 'SCORING', 'score', 'papers_deduplicated');
      }),
      ...failureRows('deduplicate'),
    ],
    SCORING: [
      onEvent(PapersScored, ['ORGANISING'], (run, { data: e }) => {
        if (!replyTo(run, 'score', e.commandId) || e.iteration !== run.data.iteration) return ignore('stale PapersScored');
        const scored = { papers: e.papers, ...refOf(e), provenance: e.provenance, ...(e.cuts === undefined ? {} : { cuts: e.cuts }) };
        return enterStep(run, { ...run.data, pipeline: { ...run.data.pipeline, scored } }, 'ORGANISING', 'organise', 'papers_scored');
      }),
      ...failureRows('score'),
    ],
    ORGANISING: [
      onEvent(PapersOrganised, ['AWAITING_RESULT_REVIEW', 'COMPLETED'], (run, { data: e }, { now }) => {
        if (!replyTo(run, 'organise', e.commandId) || e.iteration !== run.data.iteration) return ignore('stale PapersOrganised');
        const data: D = { ...run.data, collection: e.collection, pipeline: EMPTY_PIPELINE };
        if (data.request.options.autoApprove) {
          // No person in the loop: one automated iteration, approved as organised.
          const record: IterationRecord = { iteration: data.iteration, strategy: required(data.strategy), resultCount: e.collection.papers.length, decision: 'auto_approve', note: null, feedback: null, ...originOf(data) };
          return complete(run, { ...data, iterations: [...data.iterations, record] }, mergeAccumulated(e.collection, data.accumulated), 'auto_approved', 'papers_organised');
        }
        return openCheckpoint(run, data, 'AWAITING_RESULT_REVIEW', now, 'papers_organised');
      }),
      ...failureRows('organise'),
    ],
    AWAITING_RESULT_REVIEW: [
      onHuman(CHECKPOINT_DECISION_INPUT, ['COMPLETED', 'BUILDING_STRATEGY'], (run, human) => {
        const read = readDecision(run, human);
        if (read.refusal !== undefined) return read.refusal;
        const data = run.data;
        const collection = required(data.collection);
        const accumulate = (feedback: UserFeedback | null): D => ({ ...data, accumulated: accumulateRelevant(data.accumulated, collection, feedback) });
        const record = (feedback: UserFeedback | null): IterationRecord => ({
          iteration: data.iteration,
          strategy: required(data.strategy),
          resultCount: collection.papers.length,
          decision: read.decision.action,
          note: read.decision.note,
          feedback,
          ...originOf(data),
        });
        switch (read.meaning.kind) {
          case 'complete': {
            const accumulated = accumulate(read.meaning.feedback);
            const ended: D = { ...accumulated, iterations: [...data.iterations, record(read.meaning.feedback)] };
            return complete(run, ended, mergeAccumulated(collection, ended.accumulated), 'approved', 'results_approved');
          }
          case 'iterate':
            return endIteration(run, accumulate(read.meaning.feedback), record(read.meaning.feedback), read.decision.action === 'edit' ? 'results_edited' : 'results_rejected');
          case 'proceed':
          case 'use_strategy':
            return refuse('checkpoint 2 answers with a collection decision, not a strategy');
        }
      }),
    ],
  };

  return {
    type: PAPER_SEARCH,
    states: PAPER_SEARCH_STATES,
    initial: 'INITIATED',
    transitions: transitionsOf(table, {
      from: PAPER_SEARCH_STATES.filter((s) => s !== 'COMPLETED' && s !== 'FAILED' && s !== 'CANCELLED'),
      to: 'CANCELLED',
    }),
    terminal: ['COMPLETED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    onCancel: (run) => ({ data: run.data, effects: [runEnded(run, 'CANCELLED', 'cancelled')] }),
    retryableFrom: ['FAILED'],
    inputs: [PaperSearchIntentParsed, SearchStrategyBuilt, PaperSourcesSearched, PapersDeduplicated, PapersScored, PapersOrganised, PaperSearchStepFailed],
    init(input) {
      const request = paperSearchStart.parse(input);
      return {
        request,
        sources: request.options.sources ?? settings.defaultSources,
        startedAt: null,
        intent: null,
        iteration: 0,
        step: null,
        strategy: null,
        diff: null,
        strategyOrigin: null,
        pipeline: EMPTY_PIPELINE,
        collection: null,
        accumulated: [],
        rejectedIds: [],
        iterations: [],
        checkpoint: null,
        result: null,
        completion: null,
        error: null,
      };
    },
    decide: decideByTable(PAPER_SEARCH, table),
    view: (run) => paperSearchViewOf(run),
  };
}

/** A reply's stored list (claim check), when it has one. */
function refOf(reply: { readonly papersRef?: PaperSetRef | undefined }): { papersRef?: PaperSetRef } {
  return reply.papersRef === undefined ? {} : { papersRef: reply.papersRef };
}

function required<T>(value: T | null): T {
  if (value === null) throw new Error('invariant: a value the state guarantees is missing');
  return value;
}

/**
 * What a run ended by max iterations returns: the last collection without the papers rejected in
 * the feedback that ended it, plus every kept paper (kept papers come from a collection, so there is
 * none before the first).
 */
function keptCollection(data: PaperSearchData): PaperCollection | null {
  if (data.collection === null) return null;
  const rejected = new Set(data.rejectedIds);
  if (!data.collection.papers.some((p) => rejected.has(p.id))) return mergeAccumulated(data.collection, data.accumulated);
  // The stored whole papers (claim check) hold the rejected ones too: this result goes without them, so exports read its own papers.
  const { wholePapers: _holdsRejected, ...collection } = data.collection;
  return mergeAccumulated(withPapers(collection, collection.papers.filter((p) => !rejected.has(p.id))), data.accumulated);
}
