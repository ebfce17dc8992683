import type { JsonObject, SagaInput } from '../definition.js';
import type { KeyClaim, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from '../records.js';

/** The rows one input writes (step logs, outbox, timers, key claims), committed with the run's next state. */
export class InputWrites {
  readonly logs: StepLogRecord[] = [];
  readonly outbox: OutboxRecord[] = [];
  readonly timers: TimerOperation[] = [];
  readonly claims: KeyClaim[] = [];
  private tick = 0;
  private inputRecorded = false;

  /** `input` is recorded on the first log row of the input (replay feeds it back through the definition). */
  constructor(
    private readonly now: Date,
    private readonly input: SagaInput,
  ) {}

  /** Distinct, ordered timestamps within one input so the log keeps its order even on ties. */
  at(): Date {
    this.tick += 1;
    return new Date(this.now.getTime() + this.tick / 1000);
  }

  log(run: RunRecord, stepName: string, stateBefore: string | null, stateAfter: string, payload: JsonObject): void {
    this.logs.push({
      workflowRunId: run.id,
      workflowType: run.type,
      attemptNo: run.attemptNo,
      stepName,
      stateBefore,
      stateAfter,
      payload: this.inputRecorded ? payload : { input: serialisableInput(this.input), ...payload },
      occurredAt: this.at(),
    });
    this.inputRecorded = true;
  }
}

/** An input as the step log records it (an event by its type, id and data, not its whole envelope). */
function serialisableInput(input: SagaInput): JsonObject {
  return input.kind === 'event'
    ? { kind: 'event', type: input.envelope.type, id: input.envelope.id, data: input.envelope.data }
    : { ...input };
}
