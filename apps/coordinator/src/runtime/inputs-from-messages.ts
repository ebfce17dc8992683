import { CancelRun, ChildRunFinished, definitionForSubject, type Envelope, type MessageData, runIdFor, StartRun, SubmitRunInput } from '@openpaw/contracts';
import type { PendingInput } from '@openpaw/saga';

export type Translation = { readonly ok: true; readonly input: PendingInput | undefined } | { readonly ok: false; readonly reason: string };

const meta = (envelope: Envelope, runId: string) => ({
  messageId: envelope.id,
  runId,
  ...(envelope.traceparent === undefined ? {} : { traceparent: envelope.traceparent }),
});

/**
 * Turns a validated message into a saga input. `undefined` means "not for any run" (acked and
 * skipped); a failure is a message that can never be applied (dead-lettered with the reason).
 */
export function inputFromMessage(envelope: Envelope): Translation {
  // A superseded event version is produced beside its successor for outside subscribers; runs read the successor.
  if (definitionForSubject(envelope.type)?.supersededBy !== undefined) return { ok: true, input: undefined };
  switch (envelope.type) {
    case StartRun.subject: {
      const data = envelope.data as MessageData<typeof StartRun>;
      // Run ids are derived from idempotency keys, so a duplicate submission is the same run.
      if (data.runId !== runIdFor(data.workflowType, data.idempotencyKey)) {
        return { ok: false, reason: `runId ${data.runId} is not derived from (${data.workflowType}, idempotencyKey)` };
      }
      return {
        ok: true,
        input: {
          kind: 'start',
          meta: meta(envelope, data.runId),
          request: {
            workflowType: data.workflowType,
            idempotencyKey: data.idempotencyKey,
            userId: data.userId,
            input: data.input,
            ...(data.parentRunId === undefined ? {} : { parentRunId: data.parentRunId }),
          },
        },
      };
    }
    case CancelRun.subject: {
      const data = envelope.data as MessageData<typeof CancelRun>;
      return {
        ok: true,
        input: {
          kind: 'input',
          meta: meta(envelope, data.runId),
          input: { kind: 'cancel', userId: data.userId, ...(data.reason === undefined ? {} : { reason: data.reason }) },
          requesterId: data.userId,
        },
      };
    }
    case SubmitRunInput.subject: {
      const data = envelope.data as MessageData<typeof SubmitRunInput>;
      return {
        ok: true,
        input: {
          kind: 'input',
          meta: meta(envelope, data.runId),
          input: { kind: 'human', userId: data.userId, inputType: data.inputType, payload: data.payload },
          requesterId: data.userId,
        },
      };
    }
    case ChildRunFinished.subject: {
      const data = envelope.data as MessageData<typeof ChildRunFinished>;
      return {
        ok: true,
        input: {
          kind: 'input',
          meta: meta(envelope, data.parentRunId),
          input: { kind: 'child', childRunId: data.childRunId, workflowType: data.workflowType, state: data.state, view: data.view },
        },
      };
    }
    default:
      return { ok: true, input: { kind: 'input', meta: meta(envelope, envelope.correlationid), input: { kind: 'event', envelope } } };
  }
}
