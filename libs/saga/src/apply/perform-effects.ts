import { CancelRun, deterministicUuid, type Envelope, type MessageData, oneItemBatch, StartRun } from '@openpaw/contracts';
import type { Effect, JsonObject, SendTimeout } from '../definition.js';
import { batchMessageId, childIdempotencyKey, childRunIdFor, commandIdFor, effectMessageId } from '../engine-ids.js';
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
        if (effect.type === 'send' && effect.timeout !== undefined) setStepTimer(run, effect.key, effect.timeout, envelope, writes, now);
        break;
      }
      case 'sendBatch': {
        if (effect.items.length === 0) break;
        const items = effect.items.map((item) => ({ effect: item, data: { itemId: commandIdFor(run.id, run.attemptNo, item.key), ...item.data } }));
        const id = batchMessageId(run.id, run.attemptNo, effect.items.map((item) => item.key));
        const envelope = envelopeFor(effect.message, { ...effect.shared, items: items.map((item) => item.data) }, id, run, meta, now);
        writes.outbox.push({ msgId: id, envelope });
        for (const { effect: item, data } of items) {
          // A re-send is the item alone, under its own id (the receipt the service records per item is looked up by it).
          if (item.timeout !== undefined) setStepTimer(run, item.key, item.timeout, oneItemBatch(envelope as Envelope<{ readonly items: readonly unknown[] }>, data, data.itemId), writes, now);
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

/** The engine's step timer of a sent command (or batch item): re-send, then `timeout:<key>` (see `applyResend`). */
function setStepTimer(run: RunRecord, key: string, timeout: SendTimeout, envelope: Envelope, writes: InputWrites, now: Date): void {
  const payload: ResendTimerPayload = {
    key,
    state: run.state,
    attemptNo: run.attemptNo,
    count: 0,
    maxResends: timeout.maxResends,
    afterMs: timeout.afterMs,
    envelope,
    sentAt: now.toISOString(),
    ...(timeout.from === 'send' ? { from: 'send' as const } : {}),
  };
  writes.timers.push({ op: 'set', runId: run.id, name: `${RESEND_PREFIX}${key}`, fireAt: new Date(now.getTime() + timeout.afterMs), payload: payload as unknown as JsonObject });
}
