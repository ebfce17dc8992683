import { CancelRun, deterministicUuid, type MessageData, StartRun } from '@openpaw/contracts';
import type { Effect, JsonObject } from '../definition.js';
import { childIdempotencyKey, childRunIdFor, effectMessageId } from '../engine-ids.js';
import type { InputMeta, RunRecord } from '../records.js';
import { envelopeFor } from './engine-events.js';
import type { InputWrites } from './input-writes.js';
import { RESEND_PREFIX, type ResendTimerPayload } from './resend-timer.js';

/** Turns a decision's effects into outbox rows and timer operations. */
export function performEffects(run: RunRecord, effects: readonly Effect[], writes: InputWrites, meta: InputMeta, now: Date): void {
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
      case 'claimKey':
        writes.claims.push({ runId: run.id, workflowType: run.type, userId: run.userId, key: effect.key, meta });
        writes.log(run, 'key_claim_requested', run.state, run.state, { key: effect.key });
        break;
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
}
