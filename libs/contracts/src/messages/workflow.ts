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

export const RunStateChanged = defineEvent(
  'workflow',
  'RunStateChanged',
  1,
  z.object({
    runId: z.uuid(),
    workflowType: z.string(),
    userId: z.string(),
    attemptNo: z.int().positive(),
    version: z.int().nonnegative(),
    stateBefore: z.string().nullable(),
    stateAfter: z.string(),
    terminal: z.boolean(),
    stepName: z.string(),
    parentRunId: z.uuid().nullable(),
    /** The run's public view as its workflow defines it (result, progress, outputs). */
    view: jsonObject,
    occurredAt: z.iso.datetime({ offset: true }),
    /**
     * A retry this change scheduled (libs/saga's step idiom): which try of which step failed and why,
     * and when the next try goes. Absent when the change scheduled none.
     */
    retryScheduled: z
      .object({
        step: z.string(),
        failedTry: z.int().positive(),
        nextTry: z.int().positive(),
        nextTryAt: z.iso.datetime({ offset: true }),
        reason: z.string(),
      })
      .optional(),
  }),
  'Every state change of every run, for projections (the gateway, other teams).',
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
