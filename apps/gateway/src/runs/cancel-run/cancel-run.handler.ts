import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CancelRun } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../ports.js';

export interface CancelRunCommand {
  readonly runId: string;
  readonly userId: string;
  readonly reason?: string;
}

export type CancelRunResult =
  | { readonly kind: 'notFound' }
  /** The coordinator applied it (or the run reached a terminal state meanwhile). */
  | { readonly kind: 'cancelled'; readonly state: string }
  /** No answer within the wait; the command is stored and will be applied or refused. */
  | { readonly kind: 'pending'; readonly state: string }
  | { readonly kind: 'refused'; readonly reason: string; readonly detail: string; readonly state: string | null };

/**
 * Cancels a run on its owner's behalf: publishes `CancelRun` and waits (bounded) for the answer —
 * the run's terminal `RunStateChanged`, or an `InputRefused` naming this command.
 */
@Injectable()
export class CancelRunHandler {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute(command: CancelRunCommand): Promise<CancelRunResult> {
    const run = await this.runs.findForUser(command.runId, command.userId);
    if (run === undefined) return { kind: 'notFound' };
    if (run.terminal) {
      return { kind: 'refused', reason: 'terminal', detail: `the run already ended in ${run.state}`, state: run.state };
    }
    const commandId = randomUUID();
    // Listen before publishing, so the answer cannot slip past.
    const answer = this.bus.waitFor<CancelRunResult>(
      command.runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === commandId
              ? { kind: 'refused', reason: event.data.reason, detail: event.data.detail, state: event.data.state }
              : undefined;
          case 'stateChanged':
            return event.data.terminal ? { kind: 'cancelled', state: event.data.stateAfter } : undefined;
        }
      },
      { timeoutMs: this.config.cancelWaitMs },
    );
    try {
      const traceparent = currentTraceparent();
      await this.publisher.publish(
        CancelRun,
        { runId: command.runId, userId: command.userId, ...(command.reason === undefined ? {} : { reason: command.reason }) },
        {
          id: commandId,
          source: GATEWAY_SOURCE,
          correlationId: command.runId,
          subject: command.runId,
          userId: command.userId,
          ...(traceparent === undefined ? {} : { traceparent }),
        },
      );
    } catch (error) {
      answer.cancel();
      throw error;
    }
    const result = await answer.result;
    if (result !== undefined) return result;
    // No answer heard (slow coordinator, or the event went past this replica): the projection decides.
    const latest = (await this.runs.findForUser(command.runId, command.userId)) ?? run;
    return latest.terminal ? { kind: 'cancelled', state: latest.state } : { kind: 'pending', state: latest.state };
  }
}
