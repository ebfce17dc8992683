import { freeText, publicViewOf, RunStateChanged } from '@openpaw/contracts';
import { z } from 'zod';
import type { RunCursor, RunProjection, RunSummaryProjection } from '../projection/run-projection.store.js';
import type { RunTransition } from '../projection/run-transition.store.js';

/** `/runs/:id` */
export const runIdParams = z.object({ id: z.uuid() });

export function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.runId])).toString('base64url');
}

const cursorTuple = z.tuple([z.iso.datetime({ offset: true }), z.uuid()]);

/** An opaque keyset cursor (the `nextCursor` of the previous page). */
export const runCursor = z
  .string()
  .max(200)
  .transform((value, ctx): RunCursor => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    } catch {
      decoded = undefined;
    }
    const parsed = cursorTuple.safeParse(decoded);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: 'not a cursor returned by this API' });
      return z.NEVER;
    }
    return { createdAt: new Date(parsed.data[0]), runId: parsed.data[1] };
  });

// Compared with text columns in PostgreSQL, which cannot hold NUL: refused here, by name, not a 500 there.
const name = freeText().min(1).max(100);

/** A run id or its beginning, as the runs list filters by (`q`). */
export const runIdPrefix = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[0-9a-f-]{1,36}$/, 'a run id or its beginning: hex digits and dashes');
/** An admin's user filter of the runs list: a user id, or `*` for everyone. */
export const runsOfUser = freeText().trim().min(1).max(200);

/**
 * How much of each run the list carries. Lists answer a summary by default and the full view on request,
 * as Google's AIP-157 has List methods default to a BASIC view and Get to FULL: a page of 20 paper
 * searches carried megabytes of papers its readers (the console's table, `openpaw runs`) never looked at.
 */
export const RUN_LIST_VIEWS = ['summary', 'full'] as const;
export const runListView = z.enum(RUN_LIST_VIEWS);
export type RunListView = z.infer<typeof runListView>;

/**
 * The JSON a `view=full` page of runs may carry: a 300-paper search is ~85 KB whole, so 100 of them made a page of
 * ~8.5 MB. The page ends early instead and its cursor continues — clients already follow `nextCursor`.
 */
export const RUN_LIST_FULL_PAGE_BYTES = 1_000_000;

/** `GET /runs?type=&state=&limit=&cursor=&view=` */
export const listRunsQuery = z.object({
  type: name.optional().describe('Only runs of this workflow type.'),
  state: name.optional().describe('Only runs in this state.'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe(
      `Page size (1..100). A \`view=full\` page may end sooner: before the item that would take it past ${RUN_LIST_FULL_PAGE_BYTES / 1_000_000} MB of JSON (it always holds one item); \`nextCursor\` continues it.`,
    ),
  cursor: runCursor.optional().describe('`nextCursor` of the previous page.'),
  from: z.iso.datetime({ offset: true }).optional().describe('Only runs created at or after this time (ISO 8601).'),
  to: z.iso.datetime({ offset: true }).optional().describe('Only runs created before this time (ISO 8601).'),
  q: runIdPrefix.optional().describe('Only runs whose id starts with this (a whole id or its beginning).'),
  user: runsOfUser.optional().describe('Admin role only: this user\'s runs, or `*` for every user\'s. Without it, the caller\'s own.'),
  view: runListView
    .default('summary')
    .describe(
      '`summary` (default): each run without its workflow view — id, type, state, attempt, version, timestamps; a few hundred bytes a run. ' +
        '`full`: each run as `GET /runs/{id}` answers it, view included (a paper search\'s whole collections); the page ends early at 1 MB (see `limit`).',
    ),
});

const cancelRunBodyObject = z.object({
  reason: freeText().trim().min(1).max(500).optional().describe('Why the run is cancelled (kept in its step log).'),
});

/** `POST /runs/:id/cancel` body; an empty body is an empty object. */
export const cancelRunBody = z.preprocess((value) => value ?? {}, cancelRunBodyObject);
export const cancelRunBodyDoc = cancelRunBodyObject;

/** A run as the API shows it. */
export const runResource = z.object({
  runId: z.uuid(),
  workflowType: z.string(),
  state: z.string(),
  terminal: z.boolean(),
  attemptNo: z.int().positive(),
  version: z.int().nonnegative(),
  parentRunId: z.uuid().nullable(),
  view: z.record(z.string(), z.unknown()).describe("The run's public view, as its workflow defines it."),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
});
export type RunResource = z.infer<typeof runResource>;

/** A run as the list shows it by default: everything but its workflow view (one `GET /runs/{id}` away). */
export const runSummary = runResource.omit({ view: true });
export type RunSummary = z.infer<typeof runSummary>;

/** One item of a runs page: a summary, with `view` only when `view=full` was asked for. */
export const runListItem = runSummary.extend({
  view: runResource.shape.view.optional().describe("Only with `view=full`: the run's public view, as `GET /runs/{id}` has it."),
});

export const runPage = z.object({
  items: z.array(runListItem),
  nextCursor: z.string().optional().describe('Pass as `cursor` for the next page; absent on the last page.'),
});

export const cancelAccepted = z.object({
  runId: z.uuid(),
  status: z.enum(['cancelled', 'pending']).describe('`pending`: the coordinator has not answered within the wait.'),
  state: z.string(),
  terminal: z.boolean(),
});

export const cancelRefused = z.object({
  error: z.literal('cancel_refused'),
  reason: z.string().describe('e.g. illegal_transition, terminal'),
  detail: z.string(),
  state: z.string().nullable(),
});

export const errorBody = z.object({ error: z.string(), message: z.string().optional() });

export const validationErrorBody = z.object({
  error: z.literal('validation_failed'),
  location: z.enum(['params', 'query', 'body', 'input']),
  issues: z.array(z.object({ path: z.string(), message: z.string() })),
});

/**
 * The leading runs of a `view=full` page, resolved `batch` at a time, that fit `budgetBytes` of JSON (always the
 * first), and whether any were left out: the page ends early rather than grow to megabytes, and the runs past the
 * budget are never resolved (no stored paper list read for them).
 */
export async function resolveWithinBudget<Run, Item>(
  runs: readonly Run[],
  resolve: (run: Run) => Promise<Item>,
  budgetBytes: number,
  batch = 10,
): Promise<{ kept: Item[]; cut: boolean }> {
  const kept: Item[] = [];
  let bytes = 0;
  for (let start = 0; start < runs.length; start += batch) {
    for (const item of await Promise.all(runs.slice(start, start + batch).map(resolve))) {
      bytes += Buffer.byteLength(JSON.stringify(item));
      if (kept.length > 0 && bytes > budgetBytes) return { kept, cut: true };
      kept.push(item);
    }
  }
  return { kept, cut: false };
}

/** A run's summary: what every list item carries. */
export function toRunSummary(run: RunSummaryProjection): RunSummary {
  return {
    runId: run.runId,
    workflowType: run.workflowType,
    state: run.state,
    terminal: run.terminal,
    attemptNo: run.attemptNo,
    version: run.version,
    parentRunId: run.parentRunId,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
  };
}

/** A run as clients see it: its view without the fields its workflow declares internal (storage keys). */
export function toRunResource(run: RunProjection): RunResource {
  const { createdAt, updatedAt, ...summary } = toRunSummary(run);
  return { ...summary, view: publicViewOf(run.workflowType, run.view), createdAt, updatedAt };
}

/** One state change in a run's timeline. */
export const runTransitionResource = z.object({
  version: z.int().nonnegative(),
  attemptNo: z.int().positive(),
  stateBefore: z.string().nullable().describe('null for the run\'s first state.'),
  stateAfter: z.string(),
  stepName: z.string().describe('The step (input) that caused the change, as the workflow names it.'),
  terminal: z.boolean(),
  occurredAt: z.iso.datetime({ offset: true }),
  retryScheduled: RunStateChanged.schema.shape.retryScheduled
    .unwrap()
    .nullable()
    .describe('The retry this change scheduled: the failed try of the step, why, and when the next try goes. null when it scheduled none.'),
});

export const runTimeline = z.object({
  runId: z.uuid(),
  items: z.array(runTransitionResource).describe('Oldest first.'),
});

export function toRunTransitionResource(transition: RunTransition): z.infer<typeof runTransitionResource> {
  return { ...transition, occurredAt: transition.occurredAt.toISOString() };
}
