import {
  type AnyMessageDefinition,
  ChildRunFinished,
  createEnvelope,
  deterministicUuid,
  type Envelope,
  type EnvelopeMeta,
  envelopeOfValidData,
  InputRefused,
  type MessageData,
  RunStateChanged,
} from '@openpaw/contracts';
import type { RetryScheduled } from '../command-steps.js';
import { type AnySagaDefinition, inputName, type SagaInput } from '../definition.js';
import type { InputMeta, OutboxRecord, RunRecord } from '../records.js';
import { isTerminal } from '../transition-table.js';

/** The engine's messages: their envelopes, and the events it publishes about runs. */

export const COORDINATOR_SOURCE = '/openpaw/coordinator';

type RefusalReason = MessageData<typeof InputRefused>['reason'];

/** An envelope from the coordinator about `run`, caused by the input `meta` names. */
export function envelopeFor(
  message: AnyMessageDefinition,
  data: unknown,
  id: string,
  run: Pick<RunRecord, 'id' | 'userId'>,
  meta: InputMeta,
  now: Date,
): Envelope {
  return createEnvelope(message, data, coordinatorMeta(id, run, meta, now));
}

function coordinatorMeta(id: string, run: Pick<RunRecord, 'id' | 'userId'>, meta: InputMeta, now: Date): EnvelopeMeta {
  return {
    id,
    source: COORDINATOR_SOURCE,
    correlationId: run.id,
    causationId: meta.messageId,
    userId: run.userId,
    subject: run.id,
    time: now,
    ...(meta.traceparent === undefined ? {} : { traceparent: meta.traceparent }),
  };
}

/**
 * An engine event built from typed data (the engine's own messages, not a workflow's): not parsed on
 * the way out (a run's view can be large, and a change goes out per transition); every consumer
 * validates it on the way in.
 */
function engineEnvelope<D extends AnyMessageDefinition>(message: D, data: MessageData<D>, id: string, run: Pick<RunRecord, 'id' | 'userId'>, meta: InputMeta, now: Date): Envelope {
  return envelopeOfValidData(message, data, coordinatorMeta(id, run, meta, now));
}

/** `InputRefused`: tells whoever sent the input why it was not applied. */
export function refusedEvent(
  runId: string,
  state: string | null,
  input: SagaInput,
  reason: RefusalReason,
  detail: string,
  meta: InputMeta,
  userId: string,
  now: Date,
): OutboxRecord {
  const envelope = engineEnvelope(
    InputRefused,
    { runId, inputMessageId: meta.messageId, inputType: inputName(input), state, reason, detail },
    deterministicUuid('refused', meta.messageId),
    { id: runId, userId },
    meta,
    now,
  );
  return { msgId: envelope.id, envelope };
}

export function unknownRunRefusal(runId: string, input: SagaInput, meta: InputMeta, userId: string, now: Date): OutboxRecord {
  return refusedEvent(runId, null, input, 'unknown_run', 'no such run', meta, userId, now);
}

/** `RunStateChanged` with the run's view: what the gateway's projection is built from. */
export function stateChangedEvent(
  definition: AnySagaDefinition,
  before: string | null,
  run: RunRecord,
  stepName: string,
  meta: InputMeta,
  now: Date,
  retryScheduled?: RetryScheduled,
): OutboxRecord {
  const id = deterministicUuid(run.id, 'state', String(run.version));
  const envelope = engineEnvelope(
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
      view: definition.view(run),
      occurredAt: now.toISOString(),
      ...(retryScheduled === undefined ? {} : { retryScheduled }),
    },
    id,
    run,
    meta,
    now,
  );
  return { msgId: id, envelope };
}

/** Tells the parent run its child finished (the parent receives a `child` input). */
export function childFinished(definition: AnySagaDefinition, run: RunRecord, meta: InputMeta, now: Date): OutboxRecord {
  const id = deterministicUuid(run.id, String(run.attemptNo), 'child-finished');
  const data: MessageData<typeof ChildRunFinished> = {
    parentRunId: run.parentRunId ?? '',
    childRunId: run.id,
    workflowType: run.type,
    state: run.state,
    view: definition.view(run),
  };
  return { msgId: id, envelope: engineEnvelope(ChildRunFinished, data, id, run, meta, now) };
}
