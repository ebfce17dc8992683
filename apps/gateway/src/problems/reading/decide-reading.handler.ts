import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { READING_DECISION_INPUT, type ReadingDecisionInput, SubmitRunInput } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../../runs/ports.js';
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
    private readonly bus: RunEventBus,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute(command: DecideReadingCommand): Promise<DecideReadingResult> {
    const run = await this.runs.findForUser(command.runId, command.userId);
    if (run === undefined || run.workflowType !== RETRIEVE_OR_GENERATE) return { kind: 'notFound' };
    if (run.terminal || run.state !== AWAITING_READING_CONFIRMATION) {
      return { kind: 'notWaiting', detail: `no reading awaits confirmation: the run is ${run.state}`, state: run.state };
    }
    const inputId = randomUUID();
    const answer = this.bus.waitFor<DecideReadingResult>(
      command.runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            if (event.data.inputMessageId !== inputId) return undefined;
            return NOT_WAITING_REFUSAL.test(event.data.detail) ? { kind: 'notWaiting', detail: event.data.detail, state: run.state } : { kind: 'invalid', detail: event.data.detail };
          case 'stateChanged':
            return event.data.version > run.version && event.data.stateAfter !== run.state ? { kind: 'applied', state: event.data.stateAfter } : undefined;
        }
      },
      { timeoutMs: this.config.cancelWaitMs },
    );
    try {
      const traceparent = currentTraceparent();
      await this.publisher.publish(
        SubmitRunInput,
        { runId: command.runId, userId: command.userId, inputType: READING_DECISION_INPUT, payload: command.decision },
        { id: inputId, source: GATEWAY_SOURCE, correlationId: command.runId, subject: command.runId, userId: command.userId, ...(traceparent === undefined ? {} : { traceparent }) },
      );
    } catch (error) {
      answer.cancel();
      throw error;
    }
    const result = await answer.result;
    if (result !== undefined) return result;
    const latest = (await this.runs.findForUser(command.runId, command.userId)) ?? run;
    return latest.version > run.version && latest.state !== run.state ? { kind: 'applied', state: latest.state } : { kind: 'pending', state: latest.state };
  }
}
