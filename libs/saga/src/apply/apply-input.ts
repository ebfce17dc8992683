import type { AnySagaDefinition, Decision, SagaInput } from '../definition.js';
import type { InputMeta, RunRecord } from '../records.js';
import { claimInputOf } from '../key-claims.js';
import { isAllowed, isTerminal, reopeningInputs } from '../transition-table.js';
import { applyDecision, safeDecide } from './apply-decision.js';
import { applyResend } from './apply-resend.js';
import { type Applied, finish } from './applied.js';
import { refusedEvent } from './engine-events.js';
import { InputWrites } from './input-writes.js';
import { RESEND_PREFIX, type ResendTimerPayload } from './resend-timer.js';

/**
 * Applies any other input than a start to an existing run: a finished run refuses or ignores it (but
 * for an amendment, which may change its data and never its state), only
 * the owner may cancel or answer, a cancel goes to `cancelledState`, the engine's step timers are its
 * own, a key holder's end is a `claim` input; everything else is the definition's. Pure.
 */
export function applyInput(definition: AnySagaDefinition, run: RunRecord, input: SagaInput, meta: InputMeta, now: Date): Applied {
  const writes = new InputWrites(now, input);
  const reopening = input.kind === 'human' && reopeningInputs(definition, run.state).includes(input.inputType);
  const terminal = isTerminal(definition, run.state);
  if (terminal && isAmendment(definition, input)) return applyDecision(definition, run, run.state, dataOnly(run, safeDecide(definition, run, input, now)), input, meta, now, writes);
  if (terminal && !reopening) {
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
    return applyDecision(definition, run, run.state, cancelDecision(definition, run, input.reason, now), input, meta, now, writes);
  }
  if (input.kind === 'timer' && input.name.startsWith(RESEND_PREFIX)) {
    return applyResend(definition, run, input.payload as unknown as ResendTimerPayload, input, meta, now, writes);
  }
  // A claimant waiting for a key's holder hears that it ended: the definition sees the claim's news.
  const decided = claimInputOf(input) ?? input;
  return applyDecision(definition, run, run.state, safeDecide(definition, run, decided, now), decided, meta, now, writes);
}

/**
 * An event the definition declares an amendment (`amendedBy`). A finished run's is data only
 * (`dataOnly`); a running run's is the definition's like any other event (it may re-plan or fail the
 * work in flight, within its table).
 */
function isAmendment(definition: AnySagaDefinition, input: SagaInput): boolean {
  return input.kind === 'event' && (definition.amendedBy ?? []).some((message) => message.subject === input.envelope.type);
}

/** A finished run's amendment changes its data, never its state: a transition is refused. */
function dataOnly(run: RunRecord, decision: Decision<string, unknown>): Decision<string, unknown> {
  return decision.outcome === 'transition' ? { outcome: 'refuse', reason: `an amendment changes a ${run.state} run's data only, not its state (to ${decision.to})` } : decision;
}

/** An owner's cancel: to `cancelledState`, with what the definition's `onCancel` adds where the table allows it. */
function cancelDecision(definition: AnySagaDefinition, run: RunRecord, reason: string | undefined, now: Date): Decision<string, unknown> {
  const target = definition.cancelledState;
  if (target === undefined) return { outcome: 'transition', to: '<no cancelled state>', data: run.data };
  // Only a cancel the table allows reaches the definition's hook.
  const hook = isAllowed(definition, run.state, target) ? definition.onCancel?.(run, reason, { now }) : undefined;
  return {
    outcome: 'transition',
    to: target,
    data: hook === undefined ? run.data : hook.data,
    step: 'cancelled',
    logs: [{ step: 'cancel_requested', payload: { reason: reason ?? null } }],
    ...(hook?.effects === undefined ? {} : { effects: hook.effects }),
  };
}
