import { Injectable } from '@nestjs/common';
import { CHECKPOINT_DECISION_INPUT, type CheckpointDecisionInput, type Decision, interpretDecision, PAPER_SEARCH, paperSearchView } from '@openpaw/contracts';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { HumanInputSubmitter } from '../../runs/human-input/human-input-submitter.js';
import { unkeepableMarks, unkeepableMarksReason } from './keepable-papers.js';

export interface DecideCheckpointCommand {
  readonly runId: string;
  readonly userId: string;
  readonly checkpointId: string;
  readonly decision: Decision;
}

export type DecideCheckpointResult =
  | { readonly kind: 'notFound' }
  /** The checkpoint is not the open one (answered already, or never opened): 409. */
  | { readonly kind: 'stale'; readonly detail: string; readonly openCheckpointId: string | null }
  /** The decision does not validate for this checkpoint (EDIT data of the wrong shape): 400 naming the field. */
  | { readonly kind: 'invalid'; readonly detail: string }
  /** The coordinator applied it: the run moved on. */
  | { readonly kind: 'applied'; readonly state: string }
  /** No answer within the wait; the decision is stored and will be applied or refused. */
  | { readonly kind: 'pending'; readonly state: string };

/** Refusals of the saga that mean "not the open checkpoint" (it checks again: the projection may lag). */
const STALE_REFUSAL = /^(stale checkpoint|no checkpoint is open)/;

/**
 * Decides a paper search's open checkpoint on its owner's behalf. Checked here first against the
 * projection (a stale id → 409, a decision that does not validate for the checkpoint's kind → 400),
 * then sent as `SubmitRunInput` (`checkpoint_decision`); waits (bounded) for the saga's answer: the
 * run's next state, or an `InputRefused` naming this input.
 */
@Injectable()
export class DecideCheckpointHandler {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly inputs: HumanInputSubmitter,
  ) {}

  async execute(command: DecideCheckpointCommand): Promise<DecideCheckpointResult> {
    const run = await this.runs.findForUser(command.runId, command.userId);
    if (run === undefined || run.workflowType !== PAPER_SEARCH) return { kind: 'notFound' };
    const view = paperSearchView.safeParse(run.view);
    const open = view.success ? view.data.checkpoint : null;
    if (run.terminal || open === null || open.checkpointId !== command.checkpointId) {
      const why = run.terminal ? `the search has ended (${run.state})` : open === null ? `no checkpoint is open (the search is ${run.state})` : `the open checkpoint is ${open.checkpointId}`;
      return { kind: 'stale', detail: `checkpoint ${command.checkpointId} is not open: ${why}`, openCheckpointId: open?.checkpointId ?? null };
    }
    const meaning = interpretDecision(open.kind, command.decision);
    if (meaning.kind === 'invalid') return { kind: 'invalid', detail: meaning.reason };
    const unkeepable = unkeepableMarks(open, meaning);
    if (unkeepable.length > 0) return { kind: 'invalid', detail: unkeepableMarksReason(open, unkeepable) };

    const payload: CheckpointDecisionInput = { checkpointId: command.checkpointId, decision: command.decision };
    const answer = await this.inputs.submit(run, command.userId, CHECKPOINT_DECISION_INPUT, payload);
    if (answer.kind !== 'refused') return answer;
    return STALE_REFUSAL.test(answer.detail) ? { kind: 'stale', detail: answer.detail, openCheckpointId: null } : { kind: 'invalid', detail: answer.detail };
  }
}
