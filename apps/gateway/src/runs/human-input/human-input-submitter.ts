import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, SubmitRunInput } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../ports.js';

export type HumanInputAnswer =
  /** The saga applied it: the run moved on. */
  | { readonly kind: 'applied'; readonly state: string }
  /** The saga refused this input (`InputRefused` naming it), in its own words. */
  | { readonly kind: 'refused'; readonly detail: string }
  /** No answer within the wait; the input is stored and will be applied or refused. */
  | { readonly kind: 'pending'; readonly state: string };

/**
 * Sends a run's owner's human input (a paper-search checkpoint decision, an answer to an uncertain
 * reading) to its saga as `SubmitRunInput`, and waits (bounded) for the answer: the run's next state,
 * or an `InputRefused` naming this input. Listens before publishing, so the answer cannot slip past;
 * without an answer in time, the projection says whether the run moved on.
 */
@Injectable()
export class HumanInputSubmitter {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async submit(run: RunProjection, userId: string, inputType: string, payload: MessageData<typeof SubmitRunInput>['payload']): Promise<HumanInputAnswer> {
    const inputId = randomUUID();
    const answer = this.bus.waitFor<HumanInputAnswer>(
      run.runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === inputId ? { kind: 'refused', detail: event.data.detail } : undefined;
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
        { runId: run.runId, userId, inputType, payload },
        { id: inputId, source: GATEWAY_SOURCE, correlationId: run.runId, subject: run.runId, userId, ...(traceparent === undefined ? {} : { traceparent }) },
      );
    } catch (error) {
      answer.cancel();
      throw error;
    }
    const result = await answer.result;
    if (result !== undefined) return result;
    const latest = (await this.runs.findForUser(run.runId, userId)) ?? run;
    return latest.version > run.version && latest.state !== run.state ? { kind: 'applied', state: latest.state } : { kind: 'pending', state: latest.state };
  }
}
