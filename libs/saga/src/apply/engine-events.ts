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
  RunStateChangedV2,
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

/**
 * `RunStateChanged` v1 of one applied transition, with the run's view. The store turns a batch's v1s
 * into one v2 per run (`coalesceRunChanges`); a v1 itself is published only while the deprecation
 * setting keeps it (ADR 0024).
 */
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

type RunChangeV1 = MessageData<typeof RunStateChanged>;
type RunChangeV2 = MessageData<typeof RunStateChangedV2>;

/** What becomes of the per-transition `RunStateChanged` v1 records of a batch. */
export interface RunChangeOptions {
  /** Publish each v1 beside the coalesced v2 (the deprecation window of ADR 0024). */
  readonly publishV1: boolean;
}

/**
 * One `RunStateChanged` v2 per run for a batch's outbox (ADR 0024): the run's v1 records (one per
 * applied transition, in apply order) become the v2's `changes`, and the v2 carries the view of the
 * last. The v2 takes the place of the run's last v1, so it still follows the commands of that
 * decision and precedes what came after (`ChildRunFinished`). Its id is derived from the run and its
 * last version, which one committed batch alone can reach. Other records keep their order; the v1s
 * stay only when `publishV1` says so.
 */
export function coalesceRunChanges(outbox: readonly OutboxRecord[], options: RunChangeOptions): OutboxRecord[] {
  const changesOf = new Map<string, Array<Envelope<RunChangeV1>>>();
  const lastIndexOf = new Map<string, number>();
  outbox.forEach((record, i) => {
    if (record.envelope.type !== RunStateChanged.subject) return;
    const envelope = record.envelope as Envelope<RunChangeV1>;
    const changes = changesOf.get(envelope.data.runId) ?? [];
    changes.push(envelope);
    changesOf.set(envelope.data.runId, changes);
    lastIndexOf.set(envelope.data.runId, i);
  });
  if (changesOf.size === 0) return [...outbox];
  const coalesced: OutboxRecord[] = [];
  outbox.forEach((record, i) => {
    if (record.envelope.type !== RunStateChanged.subject) {
      coalesced.push(record);
      return;
    }
    if (options.publishV1) coalesced.push(record);
    const runId = (record.envelope as Envelope<RunChangeV1>).data.runId;
    if (lastIndexOf.get(runId) === i) coalesced.push(runChangeOf(changesOf.get(runId) ?? []));
  });
  return coalesced;
}

/** The v2 of a run's v1 envelopes (oldest first, at least one): caused by the last one's input. */
function runChangeOf(v1s: ReadonlyArray<Envelope<RunChangeV1>>): OutboxRecord {
  const last = v1s[v1s.length - 1];
  if (last === undefined) throw new Error('a run change needs at least one transition');
  const { view, runId, workflowType, userId, parentRunId, ...lastChange } = last.data;
  const data: RunChangeV2 = {
    runId,
    workflowType,
    userId,
    parentRunId,
    ...lastChange,
    changes: v1s.map(({ data: { attemptNo, version, stateBefore, stateAfter, terminal, stepName, occurredAt, retryScheduled } }) => ({
      attemptNo,
      version,
      stateBefore,
      stateAfter,
      terminal,
      stepName,
      occurredAt,
      ...(retryScheduled === undefined ? {} : { retryScheduled }),
    })),
    view,
  };
  const id = deterministicUuid(runId, 'changes', String(last.data.version));
  // Engine-built from typed data: not parsed again on the way out (consumers validate it on the way in).
  const envelope: Envelope<RunChangeV2> = { ...last, id, type: RunStateChangedV2.subject, dataschema: RunStateChangedV2.dataschema, data };
  return { msgId: id, envelope };
}
