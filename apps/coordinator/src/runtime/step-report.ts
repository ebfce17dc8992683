import type { BatchResult, OutboxRecord, PendingInput } from '@openpaw/saga';

/** One input a committed transaction applied as a step of its run (it changed the run). */
export interface AppliedStep {
  readonly workflowType: string;
  /** The step the decision logged (its `step`, or the input's name). */
  readonly step: string;
  /** When the coordinator received the input's message (absent for inputs of its own: timers). */
  readonly receivedAt?: number;
  /** When the decision that sent the command this input answers committed (absent when unknown here). */
  readonly decidedAt?: number;
}

/** What one committed transaction did, for step metrics: its steps, and the messages it wrote per workflow type. */
export interface StepsReport {
  readonly committedAt: number;
  readonly steps: readonly AppliedStep[];
  /** Outbox messages (commands and events) the transaction wrote, by the workflow type of their run. */
  readonly messagesOut: ReadonlyMap<string, number>;
}

/** Commands remembered at most (oldest forgotten first): a step whose reply comes later is not timed from its decision. */
export const REMEMBERED_DECISIONS = 16_384;

const COMMAND_PREFIX = 'openpaw.cmd.';

/**
 * When each command a committed decision sent was decided, so the step can be timed when its reply
 * (an event caused by that command) is applied. In memory and bounded: a reply applied by another
 * replica, after a restart, or after the command was forgotten is timed only from its arrival.
 */
export class DecisionClock {
  private readonly decidedAt = new Map<string, number>();

  /** Notes the commands of a committed outbox (a re-send reuses the first command's id and keeps its first time). */
  noteCommitted(outbox: readonly OutboxRecord[], committedAt: number): void {
    for (const { envelope } of outbox) {
      if (!envelope.type.startsWith(COMMAND_PREFIX) || this.decidedAt.has(envelope.id)) continue;
      this.decidedAt.set(envelope.id, committedAt);
      if (this.decidedAt.size > REMEMBERED_DECISIONS) {
        const oldest = this.decidedAt.keys().next();
        if (oldest.done !== true) this.decidedAt.delete(oldest.value);
      }
    }
  }

  /** When the command `causationId` names was decided (forgotten once its step is timed). */
  take(causationId: string | undefined): number | undefined {
    if (causationId === undefined) return undefined;
    const at = this.decidedAt.get(causationId);
    if (at !== undefined) this.decidedAt.delete(causationId);
    return at;
  }
}

/**
 * The steps of a committed batch: each applied input that changed its run, with its step name, its
 * arrival and, for a reply, its command's decision time; and the batch's outbox by workflow type.
 */
export function stepsReport(
  inputs: readonly PendingInput[],
  batch: Pick<BatchResult, 'results' | 'outbox'>,
  clock: DecisionClock,
  committedAt: number,
  receivedAt: number | undefined,
): StepsReport {
  const typeOfRun = new Map<string, string>();
  const steps: AppliedStep[] = [];
  batch.results.forEach((result, i) => {
    if (result.status !== 'applied' || result.applied.run === undefined) return;
    const run = result.applied.run;
    typeOfRun.set(run.id, run.type);
    if (result.applied.transition === undefined) return;
    const pending = inputs[i];
    const causation = pending?.kind === 'input' && pending.input.kind === 'event' ? pending.input.envelope.causationid : undefined;
    const decidedAt = clock.take(causation);
    steps.push({
      workflowType: run.type,
      step: result.applied.transition.step,
      ...(receivedAt === undefined || (pending?.kind === 'input' && pending.firedTimer !== undefined) ? {} : { receivedAt }),
      ...(decidedAt === undefined ? {} : { decidedAt }),
    });
  });
  clock.noteCommitted(batch.outbox, committedAt);
  const messagesOut = new Map<string, number>();
  for (const { envelope } of batch.outbox) {
    const type = typeOfRun.get(envelope.correlationid);
    if (type !== undefined) messagesOut.set(type, (messagesOut.get(type) ?? 0) + 1);
  }
  return { committedAt, steps, messagesOut };
}
