import { z } from 'zod';
import { defineEvent } from '../message-definition.js';

/**
 * A run ended while work for it may still be in flight in a service: cancelled by its owner, out of its
 * runtime budget, or failed. Services hear it on a core subscription (`abortOnRunEnded` in
 * @openpaw/messaging) and abort that work's provider calls; best effort, since the run ignores late
 * replies anyway. Any workflow may publish it (visual degrees does, on cancel and on failure).
 */
export const RunEnded = defineEvent(
  'workflow',
  'RunEnded',
  1,
  z.object({
    runId: z.uuid(),
    workflowType: z.string().min(1),
    /** The terminal state it ended in. */
    state: z.string().min(1),
    /** Why, e.g. `cancelled`, `runtime_budget_exhausted`. */
    reason: z.string().min(1).max(200),
  }),
  'A run ended (cancelled, out of time, failed): services stop the work in flight for it.',
);
