import { retryScheduledIn } from '../command-steps.js';
import { type AnySagaDefinition, type Decision, inputName, type SagaInput } from '../definition.js';
import type { InputMeta, RunRecord } from '../records.js';
import { isAllowed, isTerminal } from '../transition-table.js';
import { type Applied, finish } from './applied.js';
import { childFinished, refusedEvent, stateChangedEvent } from './engine-events.js';
import type { InputWrites } from './input-writes.js';
import { performEffects } from './perform-effects.js';
import { RESEND_PREFIX } from './resend-timer.js';

/** The definition's decision, or a refusal when `decide` throws (a bug must not stop the coordinator). */
export function safeDecide(definition: AnySagaDefinition, run: RunRecord, input: SagaInput, now: Date): Decision<string, unknown> {
  try {
    return definition.decide(run, input, { now });
  } catch (error) {
    return { outcome: 'refuse', reason: `decide failed: ${(error as Error).message}` };
  }
}

/**
 * Applies a decision to the run: ignore and refuse are logged; a transition the table does not allow
 * is refused; otherwise the next row, its log rows, effects, `RunStateChanged` and, for a child run
 * that ended, `ChildRunFinished`.
 */
export function applyDecision(
  definition: AnySagaDefinition,
  before: RunRecord,
  stateBeforeInput: string | null,
  decision: Decision<string, unknown>,
  input: SagaInput,
  meta: InputMeta,
  now: Date,
  writes: InputWrites,
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
      if (definition.keyClaims === undefined && (decision.effects ?? []).some((effect) => effect.type === 'claimKey')) {
        const detail = `${definition.type} claims a key but declares no keyClaims`;
        writes.log(before, 'input_refused', before.state, before.state, { reason: detail });
        writes.outbox.push(refusedEvent(before.id, before.state, input, 'invalid_input', detail, meta, before.userId, now));
        return finish('refused', before, false, writes, detail);
      }
      for (const entry of decision.logs ?? []) writes.log(before, entry.step, before.state, before.state, entry.payload ?? {});
      const next: RunRecord = { ...before, state: to, data: decision.data, version: before.version + 1, updatedAt: now };
      const stepName = decision.step ?? inputName(input);
      writes.log(next, stepName, before.state, to, {});
      if (to !== before.state) writes.timers.push({ op: 'clearPrefix', runId: next.id, prefix: isTerminal(definition, to) ? '' : RESEND_PREFIX });
      performEffects(next, decision.effects ?? [], writes, meta, now);
      writes.outbox.push(stateChangedEvent(definition, stateBeforeInput, next, stepName, meta, now, retryScheduledIn(decision.logs ?? [], now)));
      if (next.parentRunId !== null && isTerminal(definition, to)) writes.outbox.push(childFinished(definition, next, meta, now));
      return { ...finish('applied', next, true, writes), transition: { from: stateBeforeInput, to, step: stepName } };
    }
  }
}
