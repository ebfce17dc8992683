import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RESEARCH_WORKFLOW, type ResearchDraftInput, researchDraftInput, publicResearchView, SubmitRunInput } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { type RunEvent, RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../../runs/ports.js';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';
import { type ResearchResponse, uiOf } from '../research.schemas.js';

/** How a start or a human input came out: the coordinator applied it, refused it, or did not answer in time. */
export type InputOutcome =
  | { readonly kind: 'applied'; readonly run: RunProjection }
  | { readonly kind: 'refused'; readonly reason: string; readonly detail: string }
  | { readonly kind: 'pending'; readonly run: RunProjection | undefined };

/** What a write heard: an outcome, or the run as this replica's projection already holds it after the change. */
type Heard = InputOutcome | { readonly kind: 'stored'; readonly run: RunProjection };

/** A state change heard on the live events, with the projected row when this replica wrote it through. */
function heardChange(event: Extract<RunEvent, { kind: 'stateChanged' }>): Heard {
  return event.projected === undefined ? { kind: 'applied', run: projectionOf(event.data) } : { kind: 'stored', run: event.projected };
}

/**
 * Research runs as the gateway sees them: read from its projection (the saga's view), started with
 * `StartRun`, driven with `SubmitRunInput` (start a draft, proceed / retry / cancel, retry from
 * failed). Every write waits a little for the coordinator's answer: the run's next state, or an
 * `InputRefused` naming the command.
 */
@Injectable()
export class ResearchRuns {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    private readonly submitter: RunSubmitter,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The caller's research run, if it is one. */
  async find(userId: string, runId: string): Promise<RunProjection | undefined> {
    const run = await this.runs.findForUser(runId, userId);
    return run?.workflowType === RESEARCH_WORKFLOW ? run : undefined;
  }

  /** The run id a start with this idempotency key has (whether or not it exists yet). */
  runIdOf(userId: string, idempotencyKey: string): string {
    return this.submitter.runOf(RESEARCH_WORKFLOW, userId, idempotencyKey).runId;
  }

  /** The API's research document: the saga's view, its UI mapping and the run's timestamps. */
  response(run: RunProjection): ResearchResponse {
    // Parsed with the public schema: what clients may see (the share page by its URL, not its blob key).
    const view = publicResearchView.parse(run.view);
    return { ...view, ui: uiOf(view), createdAt: run.createdAt.toISOString(), updatedAt: run.updatedAt.toISOString() };
  }

  /** Starts a research run (a draft, or straight into processing) and waits for its first state. */
  async create(userId: string, idempotencyKey: string, input: ResearchDraftInput): Promise<InputOutcome & { readonly runId: string }> {
    const { run, existing } = await this.submitter.lookup(RESEARCH_WORKFLOW, userId, idempotencyKey);
    const { runId } = run;
    if (existing !== undefined) return { kind: 'applied', run: existing, runId };
    const messageId = this.submitter.startMessageIdOf(runId);
    const answer = this.bus.waitFor<Heard>(
      runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === messageId ? { kind: 'refused', reason: event.data.reason, detail: event.data.detail } : undefined;
          case 'stateChanged':
            return heardChange(event);
        }
      },
      { timeoutMs: this.config.startWaitMs },
    );
    try {
      await this.submitter.submit({ run, input: researchDraftInput.parse(input) });
    } catch (error) {
      answer.cancel();
      throw error;
    }
    const outcome = (await answer.result) ?? { kind: 'pending', run: await this.runs.findForUser(runId, userId) };
    return { ...(await this.projected(outcome)), runId };
  }

  /**
   * Read your writes: an answer heard on the live events is returned once the projection holds it
   * too (briefly waited for), so a GET or another write right after sees at least this version.
   */
  private async projected(outcome: Heard): Promise<InputOutcome> {
    // Written through by this replica before the event was published: the projection holds it.
    if (outcome.kind === 'stored') return { kind: 'applied', run: outcome.run };
    if (outcome.kind !== 'applied') return outcome;
    const deadline = Date.now() + this.config.startWaitMs;
    for (;;) {
      const stored = await this.runs.find(outcome.run.runId);
      if (stored !== undefined && stored.version >= outcome.run.version) return { kind: 'applied', run: stored };
      if (Date.now() > deadline) return outcome;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends a human input to the run and waits for its state to change (or a refusal). */
  async input(run: RunProjection, userId: string, inputType: string, payload: Record<string, unknown>): Promise<InputOutcome> {
    const commandId = randomUUID();
    const answer = this.bus.waitFor<Heard>(
      run.runId,
      (event) => {
        switch (event.kind) {
          case 'inputRefused':
            return event.data.inputMessageId === commandId ? { kind: 'refused', reason: event.data.reason, detail: event.data.detail } : undefined;
          case 'stateChanged':
            return event.data.version > run.version && event.data.stateAfter !== run.state ? heardChange(event) : undefined;
        }
      },
      { timeoutMs: this.config.startWaitMs },
    );
    try {
      const traceparent = currentTraceparent();
      await this.publisher.publish(
        SubmitRunInput,
        { runId: run.runId, userId, inputType, payload },
        { id: commandId, source: GATEWAY_SOURCE, correlationId: run.runId, subject: run.runId, userId, ...(traceparent === undefined ? {} : { traceparent }) },
      );
    } catch (error) {
      answer.cancel();
      throw error;
    }
    return this.projected((await answer.result) ?? { kind: 'pending', run: await this.runs.findForUser(run.runId, userId) });
  }
}
