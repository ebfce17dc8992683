import {
  CancelRun,
  ChildRunFinished,
  createEnvelope,
  deterministicUuid,
  InputRefused,
  type MessageData,
  RunStateChanged,
  StartRun,
  type AnyMessageDefinition,
  type Envelope,
} from '@openpaw/contracts';
import {
  type AnySagaDefinition,
  type Decision,
  type Effect,
  inputName,
  type JsonObject,
  type RunSnapshot,
  type SagaInput,
} from './definition.js';
import type { InputMeta, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from './records.js';
import { isCommandObservation } from './command-observation.js';
import { childIdempotencyKey, childRunIdFor, effectMessageId } from './engine-ids.js';
import { STEP_TIMER_PREFIX, stepTimeoutInputName } from './step-timers.js';
import { isAllowed, isTerminal, reopeningInputs } from './transition-table.js';

export const COORDINATOR_SOURCE = '/openpaw/coordinator';
const RESEND_PREFIX = STEP_TIMER_PREFIX;

/** What applying one input produced: the run's next row and the writes that commit with it. */
export interface Applied {
  readonly outcome: 'applied' | 'ignored' | 'refused';
  readonly reason?: string;
  readonly run: RunRecord | undefined;
  readonly changed: boolean;
  readonly transition?: { readonly from: string | null; readonly to: string };
  readonly logs: readonly StepLogRecord[];
  readonly outbox: readonly OutboxRecord[];
  readonly timers: readonly TimerOperation[];
}

export interface StartRequest {
  readonly workflowType: string;
  readonly idempotencyKey: string;
  readonly userId: string;
  readonly input: JsonObject;
  readonly parentRunId?: string;
}

type RefusalReason = MessageData<typeof InputRefused>['reason'];

/** Payload of the engine's own resend timers. */
interface ResendTimerPayload {
  readonly key: string;
  readonly state: string;
  readonly attemptNo: number;
  readonly count: number;
  readonly maxResends: number;
  readonly afterMs: number;
  readonly envelope: Envelope;
  /** When the command was first sent (ISO 8601); absent in timers written before flow control. */
  readonly sentAt?: string;
  /** The pickup the step timeout last counted from (ISO 8601), once a receipt was seen. */
  readonly pickedUpAt?: string;
  /** Re-sends of a command found lost (never picked up, its lane empty). */
  readonly lostResends?: number;
  /** `send`: the timeout runs from the send, queued or not (see the `send` effect). */
  readonly from?: 'pickup' | 'send';
}

class Writes {
  readonly logs: StepLogRecord[] = [];
  readonly outbox: OutboxRecord[] = [];
  readonly timers: TimerOperation[] = [];
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

function snapshot(run: RunRecord): RunSnapshot {
  return run;
}

function envelopeFor(
  message: AnyMessageDefinition,
  data: unknown,
  id: string,
  run: Pick<RunRecord, 'id' | 'userId'>,
  meta: InputMeta,
  now: Date,
): Envelope {
  return createEnvelope(message, data, {
    id,
    source: COORDINATOR_SOURCE,
    correlationId: run.id,
    causationId: meta.messageId,
    userId: run.userId,
    subject: run.id,
    time: now,
    ...(meta.traceparent === undefined ? {} : { traceparent: meta.traceparent }),
  });
}

function refusedEvent(
  runId: string,
  state: string | null,
  input: SagaInput,
  reason: RefusalReason,
  detail: string,
  meta: InputMeta,
  userId: string,
  now: Date,
): OutboxRecord {
  const envelope = envelopeFor(
    InputRefused,
    { runId, inputMessageId: meta.messageId, inputType: inputName(input), state, reason, detail },
    deterministicUuid('refused', meta.messageId),
    { id: runId, userId },
    meta,
    now,
  );
  return { msgId: envelope.id, envelope };
}

/** Turns a decision's effects into outbox rows and timer operations. */
function performEffects(
  definition: AnySagaDefinition,
  run: RunRecord,
  effects: readonly Effect[],
  writes: Writes,
  meta: InputMeta,
  now: Date,
): void {
  for (const effect of effects) {
    switch (effect.type) {
      case 'send':
      case 'publish': {
        const id = effectMessageId(run.id, run.attemptNo, effect.type, effect.key);
        const envelope = envelopeFor(effect.message, effect.data, id, run, meta, now);
        writes.outbox.push({ msgId: id, envelope });
        if (effect.type === 'send' && effect.timeout !== undefined) {
          const payload: ResendTimerPayload = {
            key: effect.key,
            state: run.state,
            attemptNo: run.attemptNo,
            count: 0,
            maxResends: effect.timeout.maxResends,
            afterMs: effect.timeout.afterMs,
            envelope,
            sentAt: now.toISOString(),
            ...(effect.timeout.from === 'send' ? { from: 'send' as const } : {}),
          };
          writes.timers.push({
            op: 'set',
            runId: run.id,
            name: `${RESEND_PREFIX}${effect.key}`,
            fireAt: new Date(now.getTime() + effect.timeout.afterMs),
            payload: payload as unknown as JsonObject,
          });
        }
        break;
      }
      case 'setTimer':
        writes.timers.push({
          op: 'set',
          runId: run.id,
          name: effect.name,
          fireAt: new Date(now.getTime() + effect.afterMs),
          payload: effect.payload ?? {},
        });
        break;
      case 'clearTimer':
        writes.timers.push({ op: 'clear', runId: run.id, name: effect.name });
        break;
      case 'startChild':
      case 'startBackground': {
        const idempotencyKey = childIdempotencyKey(run, effect.key);
        const childRunId = childRunIdFor(run, effect.workflowType, effect.key);
        const data: MessageData<typeof StartRun> = {
          runId: childRunId,
          workflowType: effect.workflowType,
          idempotencyKey,
          userId: run.userId,
          input: effect.input,
          ...(effect.type === 'startChild' ? { parentRunId: run.id } : {}),
        };
        const id = deterministicUuid(run.id, String(run.attemptNo), effect.type, effect.key);
        writes.outbox.push({ msgId: id, envelope: envelopeFor(StartRun, data, id, run, meta, now) });
        writes.log(run, effect.type === 'startChild' ? 'child_started' : 'background_started', run.state, run.state, {
          workflow_type: effect.workflowType,
          run_id: childRunId,
        });
        break;
      }
      case 'cancelChild': {
        const childRunId = childRunIdFor(run, effect.workflowType, effect.key);
        const id = deterministicUuid(run.id, String(run.attemptNo), 'cancelChild', effect.key);
        const data: MessageData<typeof CancelRun> = { runId: childRunId, userId: run.userId, reason: effect.reason };
        writes.outbox.push({ msgId: id, envelope: envelopeFor(CancelRun, data, id, run, meta, now) });
        writes.log(run, 'child_cancel_requested', run.state, run.state, { workflow_type: effect.workflowType, run_id: childRunId });
        break;
      }
    }
  }
  void definition;
}

function stateChangedEvent(definition: AnySagaDefinition, before: string | null, run: RunRecord, stepName: string, meta: InputMeta, now: Date): OutboxRecord {
  const id = deterministicUuid(run.id, 'state', String(run.version));
  const envelope = envelopeFor(
    RunStateChanged,
    {
      runId: run.id,
      workflowType: run.type,
      userId: run.userId,
      attemptNo: run.attemptNo,
      version: run.version,
      stateBefore: before,
      stateAfter: run.state,
      terminal: isTerminal(definition, run.state),
      stepName,
      parentRunId: run.parentRunId,
      view: definition.view(snapshot(run)),
      occurredAt: now.toISOString(),
    },
    id,
    run,
    meta,
    now,
  );
  return { msgId: id, envelope };
}

export /** Tells the parent run its child finished (the parent receives a `child` input). */
function childFinished(definition: AnySagaDefinition, run: RunRecord, meta: InputMeta, now: Date): OutboxRecord {
  const id = deterministicUuid(run.id, String(run.attemptNo), 'child-finished');
  const data: MessageData<typeof ChildRunFinished> = {
    parentRunId: run.parentRunId ?? '',
    childRunId: run.id,
    workflowType: run.type,
    state: run.state,
    view: definition.view(snapshot(run)),
  };
  return { msgId: id, envelope: envelopeFor(ChildRunFinished, data, id, run, meta, now) };
}

function serialisableInput(input: SagaInput): JsonObject {
  return input.kind === 'event'
    ? { kind: 'event', type: input.envelope.type, id: input.envelope.id, data: input.envelope.data }
    : { ...input };
}

function applyDecision(
  definition: AnySagaDefinition,
  before: RunRecord,
  stateBeforeInput: string | null,
  decision: Decision<string, unknown>,
  input: SagaInput,
  meta: InputMeta,
  now: Date,
  writes: Writes,
): Applied {
  switch (decision.outcome) {
    case 'ignore':
      writes.log(before, 'input_ignored', before.state, before.state, { reason: decision.reason });
      return finish('ignored', before, stateBeforeInput !== before.state || before.version === 0, writes, decision.reason);
    case 'refuse': {
      writes.log(before, 'input_refused', before.state, before.state, { reason: decision.reason });
      writes.outbox.push(refusedEvent(before.id, before.state, input, 'invalid_input', decision.reason, meta, before.userId, now));
      return finish('refused', before, false, writes, decision.reason);
    }
    case 'transition':
    case 'stay': {
      const to = decision.outcome === 'transition' ? decision.to : before.state;
      if (decision.outcome === 'transition' && !isAllowed(definition, before.state, to)) {
        const detail = `transition ${before.state} -> ${to} is not in ${definition.type}'s table`;
        writes.log(before, 'transition_refused', before.state, before.state, { attempted: to, reason: detail });
        writes.outbox.push(refusedEvent(before.id, before.state, input, 'illegal_transition', detail, meta, before.userId, now));
        return finish('refused', before, false, writes, detail);
      }
      for (const entry of decision.logs ?? []) writes.log(before, entry.step, before.state, before.state, entry.payload ?? {});
      const next: RunRecord = { ...before, state: to, data: decision.data, version: before.version + 1, updatedAt: now };
      const stepName = decision.step ?? inputName(input);
      writes.log(next, stepName, before.state, to, {});
      if (to !== before.state) writes.timers.push({ op: 'clearPrefix', runId: next.id, prefix: isTerminal(definition, to) ? '' : RESEND_PREFIX });
      performEffects(definition, next, decision.effects ?? [], writes, meta, now);
      writes.outbox.push(stateChangedEvent(definition, stateBeforeInput, next, stepName, meta, now));
      if (next.parentRunId !== null && isTerminal(definition, to)) writes.outbox.push(childFinished(definition, next, meta, now));
      return { ...finish('applied', next, true, writes), transition: { from: stateBeforeInput, to } };
    }
  }
}

function finish(outcome: Applied['outcome'], run: RunRecord, changed: boolean, writes: Writes, reason?: string): Applied {
  return {
    outcome,
    run,
    changed,
    logs: writes.logs,
    outbox: writes.outbox,
    timers: writes.timers,
    ...(reason === undefined ? {} : { reason }),
  };
}

function safeDecide(definition: AnySagaDefinition, run: RunRecord, input: SagaInput, now: Date): Decision<string, unknown> {
  try {
    return definition.decide(snapshot(run), input, { now });
  } catch (error) {
    return { outcome: 'refuse', reason: `decide failed: ${(error as Error).message}` };
  }
}

/**
 * Applies a start: creates the run, re-attempts a failed one (attempt_no + 1, same row, back to the
 * initial state) or ignores a duplicate. Pure.
 */
export function applyStart(
  definition: AnySagaDefinition,
  existing: RunRecord | undefined,
  runId: string,
  request: StartRequest,
  meta: InputMeta,
  now: Date,
): Applied {
  const input: SagaInput = { kind: 'start', input: request.input };
  const writes = new Writes(now, input);
  if (existing !== undefined && !(definition.retryableFrom ?? []).includes(existing.state)) {
    return finish('ignored', existing, false, writes, `duplicate start: run is ${existing.state}`);
  }
  const attemptNo = existing === undefined ? 1 : existing.attemptNo + 1;
  let data: unknown;
  try {
    data = definition.init(request.input, { id: runId, userId: request.userId, attemptNo });
  } catch (error) {
    const detail = `invalid start input: ${(error as Error).message}`;
    writes.outbox.push(refusedEvent(runId, existing?.state ?? null, input, 'invalid_input', detail, meta, request.userId, now));
    return finish('refused', existing as RunRecord, false, writes, detail);
  }
  const created: RunRecord = {
    id: runId,
    type: definition.type,
    state: definition.initial,
    attemptNo,
    idempotencyKey: request.idempotencyKey,
    userId: request.userId,
    parentRunId: request.parentRunId ?? existing?.parentRunId ?? null,
    data,
    version: existing === undefined ? 1 : existing.version + 1,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  writes.log(created, existing === undefined ? 'run_started' : 'attempt_started', existing?.state ?? null, created.state, {});
  const applied = applyDecision(definition, created, existing?.state ?? null, safeDecide(definition, created, input, now), input, meta, now, writes);
  // Even when the first decision refuses, the run exists (and must be persisted) in its initial state.
  return { ...applied, run: applied.run ?? created, changed: true, transition: applied.transition ?? { from: existing?.state ?? null, to: created.state } };
}

/** Applies any other input to an existing run. Pure. */
export function applyInput(
  definition: AnySagaDefinition,
  run: RunRecord,
  input: SagaInput,
  meta: InputMeta,
  now: Date,
): Applied {
  const writes = new Writes(now, input);
  const reopening = input.kind === 'human' && reopeningInputs(definition, run.state).includes(input.inputType);
  if (isTerminal(definition, run.state) && !reopening) {
    if (input.kind === 'cancel' || input.kind === 'human') {
      const detail = `run is ${run.state}`;
      writes.outbox.push(refusedEvent(run.id, run.state, input, 'terminal', detail, meta, run.userId, now));
      return finish('refused', run, false, writes, detail);
    }
    // Late events and timers for finished (e.g. cancelled) runs are recorded and change nothing.
    writes.log(run, 'input_ignored', run.state, run.state, { reason: `run is ${run.state}` });
    return finish('ignored', run, false, writes, `run is ${run.state}`);
  }
  if ((input.kind === 'cancel' || input.kind === 'human') && input.userId !== run.userId) {
    writes.outbox.push(refusedEvent(run.id, null, input, 'not_owner', 'the run belongs to another user', meta, input.userId, now));
    return finish('refused', run, false, writes, 'not_owner');
  }
  if (input.kind === 'cancel') {
    const target = definition.cancelledState;
    let decision: Decision<string, unknown>;
    if (target === undefined) decision = { outcome: 'transition', to: '<no cancelled state>', data: run.data };
    else {
      // Only a cancel the table allows reaches the definition's hook.
      const hook = isAllowed(definition, run.state, target) ? definition.onCancel?.(snapshot(run), input.reason, { now }) : undefined;
      decision = {
        outcome: 'transition',
        to: target,
        data: hook === undefined ? run.data : hook.data,
        step: 'cancelled',
        logs: [{ step: 'cancel_requested', payload: { reason: input.reason ?? null } }],
        ...(hook?.effects === undefined ? {} : { effects: hook.effects }),
      };
    }
    return applyDecision(definition, run, run.state, decision, input, meta, now, writes);
  }
  if (input.kind === 'timer' && input.name.startsWith(RESEND_PREFIX)) {
    return applyResend(definition, run, input.payload as unknown as ResendTimerPayload, input, meta, now, writes);
  }
  return applyDecision(definition, run, run.state, safeDecide(definition, run, input, now), input, meta, now, writes);
}

/**
 * A step timer fired. With an observation of the command (flow control), the step timeout runs from
 * its pickup: a command waiting in its lane waits (bounded by the run's deadline, which the
 * definition owns), a lost one is re-sent under its first id (JetStream drops the copy if the first
 * is still stored), and only a command picked up and unanswered for `afterMs` times out: re-sent
 * `maxResends` times, then the definition gets `timeout:<key>`. Without an observation (no observer
 * configured), the timeout runs from the send.
 */
function applyResend(
  definition: AnySagaDefinition,
  run: RunRecord,
  timer: ResendTimerPayload,
  input: SagaInput,
  meta: InputMeta,
  now: Date,
  writes: Writes,
): Applied {
  if (run.state !== timer.state || run.attemptNo !== timer.attemptNo) {
    return finish('ignored', run, false, writes, 'step already completed');
  }
  const observation = input.kind === 'timer' ? input.payload['observation'] : undefined;
  const rearm = (fireAt: Date, next: ResendTimerPayload): void => {
    writes.timers.push({ op: 'set', runId: run.id, name: `${RESEND_PREFIX}${timer.key}`, fireAt, payload: next as unknown as JsonObject });
  };
  if (timer.from !== 'send' && isCommandObservation(observation)) {
    const { receipt, laneBacklog } = observation;
    const base = { key: timer.key, message_id: timer.envelope.id };
    if (receipt === null) {
      const waitedMs = timer.sentAt === undefined ? null : now.getTime() - Date.parse(timer.sentAt);
      if (laneBacklog === null || laneBacklog > 0) {
        rearm(new Date(now.getTime() + timer.afterMs), timer);
        writes.log(run, 'command_queued', run.state, run.state, { ...base, lane_backlog: laneBacklog, waited_ms: waitedMs });
        return finish('applied', run, false, writes);
      }
      const lostResends = (timer.lostResends ?? 0) + 1;
      // First under the first id: if the command is in fact still stored (within the duplicate
      // window), JetStream drops this copy. Found lost again a period later, it is really gone (its
      // id may still be in the server's duplicate table, e.g. after a purge): a fresh msgId.
      const msgId = lostResends === 1 ? timer.envelope.id : `${timer.envelope.id}:lost:${lostResends}`;
      writes.outbox.push({ msgId, envelope: timer.envelope });
      rearm(new Date(now.getTime() + timer.afterMs), { ...timer, lostResends });
      writes.log(run, 'command_lost_resent', run.state, run.state, { ...base, resend: lostResends, waited_ms: waitedMs });
      return finish('applied', run, false, writes);
    }
    const dueAt = Date.parse(receipt.pickedUpAt) + timer.afterMs;
    if (dueAt > now.getTime()) {
      rearm(new Date(dueAt), { ...timer, pickedUpAt: receipt.pickedUpAt });
      if (timer.pickedUpAt !== receipt.pickedUpAt) {
        writes.log(run, 'command_picked_up', run.state, run.state, { ...base, picked_up_at: receipt.pickedUpAt, deliveries: receipt.deliveries });
      }
      return finish('applied', run, false, writes);
    }
  }
  if (timer.count < timer.maxResends) {
    const count = timer.count + 1;
    // A fresh msgId: the first copy was delivered and handled (or is stuck in a handler); this one
    // must reach the service, which answers it from its kept replies when the first did finish.
    writes.outbox.push({ msgId: `${timer.envelope.id}:resend:${count}`, envelope: timer.envelope });
    rearm(new Date(now.getTime() + timer.afterMs), { ...timer, count });
    writes.log(run, 'command_resent', run.state, run.state, { key: timer.key, resend: count, message_id: timer.envelope.id });
    return finish('applied', run, false, writes);
  }
  const timeout: SagaInput = { kind: 'timer', name: stepTimeoutInputName(timer.key), payload: { key: timer.key, resends: timer.count } };
  return applyDecision(definition, run, run.state, safeDecide(definition, run, timeout, now), timeout, meta, now, writes);
}

export function unknownRunRefusal(runId: string, input: SagaInput, meta: InputMeta, userId: string, now: Date): OutboxRecord {
  return refusedEvent(runId, null, input, 'unknown_run', 'no such run', meta, userId, now);
}
