import { Injectable } from '@nestjs/common';
import { READING_DECISION_INPUT, type ReadingDecisionInput } from '@openpaw/contracts';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { HumanInputSubmitter } from '../../runs/human-input/human-input-submitter.js';
import { RETRIEVE_OR_GENERATE } from '../workflow-result.js';

/** The state a run waits in for its owner's answer to an uncertain reading. */
export const AWAITING_READING_CONFIRMATION = 'AWAITING_READING_CONFIRMATION';

export interface DecideReadingCommand {
  readonly runId: string;
  readonly userId: string;
  readonly decision: ReadingDecisionInput;
}

export type DecideReadingResult =
  | { readonly kind: 'notFound' }
  /** No reading awaits an answer (the run is elsewhere, or answered already): 409. */
  | { readonly kind: 'notWaiting'; readonly detail: string; readonly state: string }
  /** The coordinator refused the decision for another reason: 400 naming it. */
  | { readonly kind: 'invalid'; readonly detail: string }
  /** The coordinator applied it: the run moved on. */
  | { readonly kind: 'applied'; readonly state: string }
  /** No answer within the wait; the decision is stored and will be applied or refused. */
  | { readonly kind: 'pending'; readonly state: string };

/** The saga's refusal meaning "no reading awaits confirmation" (it checks again: the projection may lag). */
const NOT_WAITING_REFUSAL = /^no reading awaits confirmation/;

/**
 * Answers a `retrieve_or_generate` run's uncertain reading on its owner's behalf (issue 25): checked
 * here first against the projection (a run not waiting → 409), then sent as `SubmitRunInput`
 * (`reading_decision`); waits (bounded) for the saga's answer: the run's next state, or an
 * `InputRefused` naming this input.
 */
@Injectable()
export class DecideReadingHandler {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly inputs: HumanInputSubmitter,
  ) {}

  async execute(command: DecideReadingCommand): Promise<DecideReadingResult> {
    const run = await this.runs.findForUser(command.runId, command.userId);
    if (run === undefined || run.workflowType !== RETRIEVE_OR_GENERATE) return { kind: 'notFound' };
    if (run.terminal || run.state !== AWAITING_READING_CONFIRMATION) {
      return { kind: 'notWaiting', detail: `no reading awaits confirmation: the run is ${run.state}`, state: run.state };
    }
    const answer = await this.inputs.submit(run, command.userId, READING_DECISION_INPUT, command.decision);
    if (answer.kind !== 'refused') return answer;
    return NOT_WAITING_REFUSAL.test(answer.detail) ? { kind: 'notWaiting', detail: answer.detail, state: run.state } : { kind: 'invalid', detail: answer.detail };
  }
}
