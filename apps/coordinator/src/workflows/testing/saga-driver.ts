import { type AnyMessageDefinition, type MessageData, type ProblemSignature, StartRun } from '@openpaw/contracts';
import { type Applied, type AnySagaDefinition, type JsonObject, type KeyHolder, type SagaInput, SagaScenario, ScenarioStep, type StepLogRecord } from '@openpaw/saga';

/** Test ids: a valid UUID per number. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const sha256Of = (c: string): string => c.repeat(64).slice(0, 64);

export function signature(over: Partial<ProblemSignature> = {}): ProblemSignature {
  return {
    normalizedText: '2x+3=7',
    textSha256: sha256Of('a'),
    topicTags: { subject: 'algebra', keywords: ['linear equation'] },
    ...over,
  };
}

interface PendingTimer {
  readonly fireAt: Date;
  readonly setAt: Date;
  readonly payload: JsonObject;
}

/**
 * The libs/saga scenario (given/when/then on the coordinator's pure engine) with what these specs
 * repeat: replies that answer the latest command sent (by its envelope id, as a service would),
 * durable timers fired at their time, key claims answered in the same step as the store answers them
 * in the same transaction, and the complete step log for replay.
 */
export class SagaDriver {
  readonly s: SagaScenario;
  readonly logs: StepLogRecord[] = [];
  private readonly commandIds = new Map<string, string[]>();
  private readonly timers = new Map<string, PendingTimer>();
  private now = new Date('2026-01-01T00:00:00Z');
  private keyHolder: KeyHolder | undefined;

  constructor(
    readonly definition: AnySagaDefinition,
    readonly runId = uuid(1),
    readonly userId = 'user-1',
  ) {
    this.s = new SagaScenario(definition, runId, userId, this.now);
  }

  start(input: JsonObject, idempotencyKey = 'key-1'): ScenarioStep {
    return this.record(this.s.givenStarted(input, idempotencyKey));
  }

  when(input: SagaInput): ScenarioStep {
    return this.record(this.s.when(input));
  }

  event<M extends AnyMessageDefinition>(message: M, data: MessageData<M>): ScenarioStep {
    return this.when(this.s.event(message, data));
  }

  /** The id of a command sent by this run (the latest of its kind, or the `index`th from 0). */
  commandId(command: AnyMessageDefinition, index = -1): string {
    const id = this.commandIds.get(command.subject)?.at(index);
    if (id === undefined) throw new Error(`no ${command.name} sent`);
    return id;
  }

  commandCount(command: AnyMessageDefinition): number {
    return this.commandIds.get(command.subject)?.length ?? 0;
  }

  /** A service's reply to `command` (its latest, or the `index`th): runId and commandId filled in. */
  reply<M extends AnyMessageDefinition>(command: AnyMessageDefinition, event: M, data: Omit<MessageData<M>, 'runId' | 'commandId'>, index = -1): ScenarioStep {
    return this.event(event, { runId: this.runId, commandId: this.commandId(command, index), ...data } as MessageData<M>);
  }

  child(workflowType: string, childRunId: string, state: string, view: JsonObject): ScenarioStep {
    return this.when({ kind: 'child', childRunId, workflowType, state, view });
  }

  cancel(userId = this.userId): ScenarioStep {
    return this.when({ kind: 'cancel', userId });
  }

  /**
   * Every key this run claims from now on is held by `holder` (`undefined`: free, so claimed), as
   * the store would answer: a holder in one of the definition's `keyClaims.releasedIn` states gives
   * the key up.
   */
  givenKeyHeldBy(holder: KeyHolder | undefined): this {
    this.keyHolder = holder;
    return this;
  }

  advance(ms: number): this {
    this.now = new Date(this.now.getTime() + ms);
    this.s.advance(ms);
    return this;
  }

  pendingTimers(): string[] {
    return [...this.timers.keys()].sort();
  }

  /** How long after it was set a pending timer fires. */
  delayOf(name: string): number {
    const timer = this.timers.get(name);
    if (timer === undefined) throw new Error(`no pending timer ${name}; pending: ${this.pendingTimers().join(', ')}`);
    return timer.fireAt.getTime() - timer.setAt.getTime();
  }

  /** Advances the clock to a pending timer and fires it (the engine's step timeout is `resend:<key>`). */
  fire(name: string): ScenarioStep {
    const timer = this.timers.get(name);
    if (timer === undefined) throw new Error(`no pending timer ${name}; pending: ${this.pendingTimers().join(', ')}`);
    const wait = timer.fireAt.getTime() - this.now.getTime();
    if (wait > 0) this.advance(wait);
    this.timers.delete(name);
    return this.when({ kind: 'timer', name, payload: timer.payload });
  }

  /** StartRun commands of this step (child and background runs). */
  static started(step: ScenarioStep): Array<MessageData<typeof StartRun>> {
    return step.sent(StartRun);
  }

  /** Records a step, and answers the keys it claimed (and those the answers claim) into one step, like the store's transaction. */
  private record(step: ScenarioStep): ScenarioStep {
    this.track(step);
    let combined = step.applied;
    for (let claims = step.applied.claims, round = 0; claims.length > 0 && round < 4; round += 1) {
      const answers = claims.map((claim) => this.track(this.s.when(this.claimAnswer(claim.key))).applied);
      claims = answers.flatMap((answer) => answer.claims);
      combined = answers.reduce(combine, combined);
    }
    return combined === step.applied ? step : new ScenarioStep(combined);
  }

  private claimAnswer(key: string): SagaInput {
    const holder = this.keyHolder;
    const released = holder !== undefined && holder.terminal && (this.definition.keyClaims?.releasedIn ?? []).includes(holder.state);
    if (holder === undefined || holder.runId === this.runId || released) return { kind: 'claim', key, outcome: 'claimed' };
    return { kind: 'claim', key, outcome: 'held', holder };
  }

  private track(step: ScenarioStep): ScenarioStep {
    this.logs.push(...step.applied.logs);
    for (const o of step.messages()) {
      if (!o.envelope.type.startsWith('openpaw.cmd.')) continue;
      // A resend keeps the envelope id (the msgID differs); only new commands are new ids.
      const ids = this.commandIds.get(o.envelope.type) ?? [];
      if (!ids.includes(o.envelope.id)) this.commandIds.set(o.envelope.type, [...ids, o.envelope.id]);
    }
    for (const op of step.applied.timers) {
      switch (op.op) {
        case 'set':
          this.timers.set(op.name, { fireAt: op.fireAt, setAt: this.now, payload: op.payload });
          break;
        case 'clear':
          this.timers.delete(op.name);
          break;
        case 'clearPrefix':
          for (const name of [...this.timers.keys()]) if (name.startsWith(op.prefix)) this.timers.delete(name);
          break;
      }
    }
    return step;
  }
}

/** Two inputs applied in one transaction, as one `Applied`: the first's outcome and transition, the last run. */
function combine(first: Applied, next: Applied): Applied {
  return {
    ...first,
    run: next.run ?? first.run,
    changed: first.changed || next.changed,
    logs: [...first.logs, ...next.logs],
    outbox: [...first.outbox, ...next.outbox],
    timers: [...first.timers, ...next.timers],
    claims: next.claims,
  };
}
