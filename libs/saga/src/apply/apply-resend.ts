import type { AnySagaDefinition, JsonObject, SagaInput } from '../definition.js';
import { isCommandObservation } from '../command-observation.js';
import type { InputMeta, RunRecord } from '../records.js';
import { stepTimeoutInputName } from '../step-timers.js';
import { applyDecision, safeDecide } from './apply-decision.js';
import { type Applied, finish } from './applied.js';
import type { InputWrites } from './input-writes.js';
import { RESEND_PREFIX, type ResendTimerPayload } from './resend-timer.js';

/**
 * A step timer fired. With an observation of the command (flow control), the step timeout runs from
 * its pickup: a command waiting in its lane waits (bounded by the run's deadline, which the
 * definition owns), a lost one is re-sent under its first id (JetStream drops the copy if the first
 * is still stored), and only a command picked up and unanswered for `afterMs` times out: re-sent
 * `maxResends` times, then the definition gets `timeout:<key>`. Without an observation (no observer
 * configured), the timeout runs from the send.
 */
export function applyResend(
  definition: AnySagaDefinition,
  run: RunRecord,
  timer: ResendTimerPayload,
  input: SagaInput,
  meta: InputMeta,
  now: Date,
  writes: InputWrites,
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
