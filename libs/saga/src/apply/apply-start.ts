import type { AnySagaDefinition, JsonObject, SagaInput } from '../definition.js';
import type { InputMeta, RunRecord } from '../records.js';
import { applyDecision, safeDecide } from './apply-decision.js';
import { type Applied, finish } from './applied.js';
import { refusedEvent } from './engine-events.js';
import { InputWrites } from './input-writes.js';

export interface StartRequest {
  readonly workflowType: string;
  readonly idempotencyKey: string;
  readonly userId: string;
  readonly input: JsonObject;
  readonly parentRunId?: string;
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
  const writes = new InputWrites(now, input);
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
  const startStep = existing === undefined ? 'run_started' : 'attempt_started';
  writes.log(created, startStep, existing?.state ?? null, created.state, {});
  const applied = applyDecision(definition, created, existing?.state ?? null, safeDecide(definition, created, input, now), input, meta, now, writes);
  // Even when the first decision refuses, the run exists (and must be persisted) in its initial state.
  return { ...applied, run: applied.run ?? created, changed: true, transition: applied.transition ?? { from: existing?.state ?? null, to: created.state, step: startStep } };
}
