import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PAPER_SEARCH, type PaperSearchStart } from '@openpaw/contracts';
import { AdmissionControl, type AdmissionDecision } from '../../admission/admission-control.js';
import { tierOf } from '../../admission/admission-limits.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection } from '../../projection/run-projection.store.js';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';

export interface StartPaperSearchCommand {
  readonly userId: string;
  readonly subscriptionTier: string;
  readonly start: PaperSearchStart;
  /** The client's `Idempotency-Key`: the same key is the same search. Without one, every request is a new search. */
  readonly idempotencyKey?: string;
}

export type StartPaperSearchResult =
  | { readonly kind: 'started' | 'existing'; readonly runId: string; readonly run?: RunProjection }
  | { readonly kind: 'refused'; readonly runId: string; readonly reason: string; readonly detail: string }
  | { readonly kind: 'overloaded'; readonly runId: string; readonly refusal: Extract<AdmissionDecision, { admitted: false }> };

/**
 * Starts a `paper_search` run: admission (rate and platform limits; a search waiting days at a
 * checkpoint is not "in flight"), `StartRun`, then a bounded wait for the coordinator's first answer
 * so a refused start is an error now rather than a run that never appears.
 */
@Injectable()
export class StartPaperSearchHandler {
  constructor(
    private readonly submitter: RunSubmitter,
    private readonly bus: RunEventBus,
    private readonly admission: AdmissionControl,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async execute(command: StartPaperSearchCommand): Promise<StartPaperSearchResult> {
    const idempotencyKey = command.idempotencyKey ?? randomUUID();
    const { run, existing } = await this.submitter.lookup(PAPER_SEARCH, command.userId, idempotencyKey);
    const { runId } = run;
    if (existing !== undefined) return { kind: 'existing', runId, run: existing };
    const admission = await this.admission.admit(command.userId, tierOf(command.subscriptionTier));
    if (!admission.admitted) return { kind: 'overloaded', runId, refusal: admission };

    const messageId = this.submitter.startMessageIdOf(runId);
    // Listen before publishing, so the answer cannot slip past.
    const answer = this.bus.waitFor<StartPaperSearchResult>(
      runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === messageId ? { kind: 'refused', runId, reason: event.data.reason, detail: event.data.detail } : undefined;
          case 'stateChanged':
            return { kind: 'started', runId, run: projectionOf(event.data) };
        }
      },
      { timeoutMs: this.config.startWaitMs },
    );
    try {
      await this.submitter.submit({ run, input: command.start });
    } catch (error) {
      answer.cancel();
      throw error;
    }
    return (await answer.result) ?? { kind: 'started', runId };
  }
}
