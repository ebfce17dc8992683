import { type AnyBatchCommandDefinition, type AnyMessageDefinition, type BatchItemOf, type BatchSharedOf, createEnvelope, type MessageData } from '@openpaw/contracts';
import { type Applied, applyInput, applyStart } from './apply/index.js';
import type { AnySagaDefinition, JsonObject, SagaInput } from './definition.js';
import type { OutboxRecord, RunRecord } from './records.js';

/**
 * Given/when/then for saga definitions, on the same pure engine the coordinator runs:
 *   const s = scenario(def).givenStarted({ text: '...' });
 *   const step = s.when(s.event(MediaNormalized, {...}));
 *   expect(step.state).toBe('RETRIEVING');
 */
export class SagaScenario {
  private current: RunRecord | undefined;
  private clock: Date;
  private sequence = 0;

  constructor(
    readonly definition: AnySagaDefinition,
    readonly runId = '00000000-0000-4000-8000-000000000001',
    readonly userId = 'user-1',
    start = new Date('2026-01-01T00:00:00Z'),
  ) {
    this.clock = start;
  }

  get run(): RunRecord {
    if (this.current === undefined) throw new Error('no run yet: call givenStarted() first');
    return this.current;
  }

  /** Advances the scenario's clock (decisions see it as `now`). */
  advance(ms: number): this {
    this.clock = new Date(this.clock.getTime() + ms);
    return this;
  }

  givenStarted(input: JsonObject = {}, idempotencyKey = 'key-1', parentRunId?: string): ScenarioStep {
    const request = { workflowType: this.definition.type, idempotencyKey, userId: this.userId, input, ...(parentRunId === undefined ? {} : { parentRunId }) };
    return this.record(applyStart(this.definition, this.current, this.runId, request, this.meta(), this.clock));
  }

  when(input: SagaInput): ScenarioStep {
    return this.record(applyInput(this.definition, this.run, input, this.meta(), this.clock));
  }

  /** An event input as a service would publish it for this run. */
  event<D extends AnyMessageDefinition>(message: D, data: MessageData<D>): SagaInput {
    this.sequence += 1;
    return {
      kind: 'event',
      envelope: createEnvelope(message, data, {
        id: `evt-${this.sequence}`,
        source: '/openpaw/test',
        correlationId: this.runId,
        time: this.clock,
      }),
    };
  }

  private meta(): { messageId: string; runId: string } {
    this.sequence += 1;
    return { messageId: `msg-${this.sequence}`, runId: this.runId };
  }

  private record(applied: Applied): ScenarioStep {
    if (applied.run !== undefined) this.current = applied.run;
    return new ScenarioStep(applied);
  }
}

export function scenario(definition: AnySagaDefinition, runId?: string, userId?: string): SagaScenario {
  return new SagaScenario(definition, runId, userId);
}

/** What one input did, with readable accessors for assertions. */
export class ScenarioStep {
  constructor(readonly applied: Applied) {}

  get outcome(): Applied['outcome'] {
    return this.applied.outcome;
  }

  get state(): string | undefined {
    return this.applied.run?.state;
  }

  get data(): unknown {
    return this.applied.run?.data;
  }

  /** Commands and events written to the outbox, except the engine's own run events. */
  messages(): OutboxRecord[] {
    return this.applied.outbox.filter((o) => !o.envelope.type.startsWith('openpaw.evt.workflow.'));
  }

  sent<D extends AnyMessageDefinition>(message: D): Array<MessageData<D>> {
    return this.applied.outbox.filter((o) => o.envelope.type === message.subject).map((o) => o.envelope.data as MessageData<D>);
  }

  /** The items of the batched `message`s sent, each with the batch's shared fields (as its one-item command would carry them). */
  sentItems<D extends AnyBatchCommandDefinition>(message: D): Array<BatchSharedOf<D> & BatchItemOf<D>> {
    return this.sent(message).flatMap((batch) => {
      const { items, ...shared } = batch as { items: BatchItemOf<D>[] } & BatchSharedOf<D>;
      return items.map((item) => ({ ...shared, ...(item as object) }) as BatchSharedOf<D> & BatchItemOf<D>);
    });
  }

  steps(): string[] {
    return this.applied.logs.map((l) => l.stepName);
  }

  /** The public view published with this input's RunStateChanged, if the state changed. */
  view(): JsonObject | undefined {
    const changed = this.applied.outbox.find((o) => o.envelope.type === 'openpaw.evt.workflow.RunStateChanged.v1');
    return (changed?.envelope.data as { view?: JsonObject } | undefined)?.view;
  }
}
