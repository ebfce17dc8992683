import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';

/** JSON object payloads whose shape belongs to one workflow definition (validated there). */
export const jsonObject = z.record(z.string(), z.unknown());

export const StartRun = defineCommand(
  'coordinator',
  'StartRun',
  1,
  z.object({
    runId: z.uuid(),
    workflowType: z.string().min(1),
    idempotencyKey: z.string().min(1).max(200),
    userId: z.string().min(1),
    input: jsonObject,
    parentRunId: z.uuid().optional(),
  }),
  'Start (or re-attempt after failure) a workflow run. The run id is derived from the idempotency key, so a duplicate start is a no-op.',
);

export const CancelRun = defineCommand(
  'coordinator',
  'CancelRun',
  1,
  z.object({ runId: z.uuid(), userId: z.string().min(1), reason: z.string().max(500).optional() }),
  "Cancel a run on its owner's request; refused (InputRefused) where the workflow's transition table does not allow it.",
);

export const SubmitRunInput = defineCommand(
  'coordinator',
  'SubmitRunInput',
  1,
  z.object({
    runId: z.uuid(),
    userId: z.string().min(1),
    inputType: z.string().min(1),
    payload: jsonObject,
  }),
  'A human decision for a run waiting on one (checkpoint approve/edit/reject, proceed/retry/cancel).',
);

/** A retry a change scheduled (libs/saga's step idiom): which try of which step failed and why, and when the next try goes. */
const retryScheduled = z.object({
  step: z.string(),
  failedTry: z.int().positive(),
  nextTry: z.int().positive(),
  nextTryAt: z.iso.datetime({ offset: true }),
  reason: z.string(),
});

/** One state change of a run (one applied transition), as both versions of `RunStateChanged` carry it. */
const runTransition = {
  attemptNo: z.int().positive(),
  version: z.int().nonnegative(),
  stateBefore: z.string().nullable(),
  stateAfter: z.string(),
  terminal: z.boolean(),
  stepName: z.string(),
  occurredAt: z.iso.datetime({ offset: true }),
  /** A retry this change scheduled. Absent when the change scheduled none. */
  retryScheduled: retryScheduled.optional(),
};

export const RunStateChangedV2 = defineEvent(
  'workflow',
  'RunStateChanged',
  2,
  z.object({
    runId: z.uuid(),
    workflowType: z.string(),
    userId: z.string(),
    parentRunId: z.uuid().nullable(),
    ...runTransition,
    /**
     * Every state change of the run since its previous `RunStateChanged` v2, oldest first (at least
     * one); the last is the change the top-level fields describe. The coordinator applies a batch of
     * inputs in one transaction and publishes one v2 per run it changed (ADR 0024).
     */
    changes: z.array(z.object(runTransition)).min(1),
    /** The run's public view after the last change, as its workflow defines it (result, progress, outputs). */
    view: jsonObject,
  }),
  "A run's state changes of one coordinator transaction, in order, with the run's view after the last: for projections (the gateway, other teams).",
);

export const RunStateChanged = defineEvent(
  'workflow',
  'RunStateChanged',
  1,
  // The fields in v1's published order (its JSON Schema stays as it was).
  z.object({
    runId: z.uuid(),
    workflowType: z.string(),
    userId: z.string(),
    attemptNo: runTransition.attemptNo,
    version: runTransition.version,
    stateBefore: runTransition.stateBefore,
    stateAfter: runTransition.stateAfter,
    terminal: runTransition.terminal,
    stepName: runTransition.stepName,
    parentRunId: z.uuid().nullable(),
    /** The run's public view as its workflow defines it (result, progress, outputs). */
    view: jsonObject,
    occurredAt: runTransition.occurredAt,
    retryScheduled: runTransition.retryScheduled,
  }),
  'Deprecated (use v2): every state change of every run, one event each; published beside v2 only while the coordinator setting OPENPAW_RUN_STATE_CHANGED_V1 is on (ADR 0024).',
  { supersededBy: RunStateChangedV2 },
);

export const InputRefused = defineEvent(
  'workflow',
  'InputRefused',
  1,
  z.object({
    runId: z.uuid(),
    inputMessageId: z.string(),
    inputType: z.string(),
    state: z.string().nullable(),
    reason: z.enum(['illegal_transition', 'not_owner', 'unknown_run', 'terminal', 'invalid_input', 'unknown_workflow']),
    detail: z.string(),
  }),
  'An input the coordinator refused: a transition its table does not allow, a stranger, an unknown run.',
);

export const ChildRunFinished = defineCommand(
  'coordinator',
  'ChildRunFinished',
  1,
  z.object({
    parentRunId: z.uuid(),
    childRunId: z.uuid(),
    workflowType: z.string(),
    state: z.string(),
    view: jsonObject,
  }),
  "A child run reached a terminal state: an input for its parent run (the coordinator's note to itself).",
);
