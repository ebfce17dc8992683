import { z } from 'zod';

/** The workflow type of spec 01 (defined once, in the contracts). */
export { RETRIEVE_OR_GENERATE } from '@openpaw/contracts';

export const TERMINAL_STATUS_BY_STATE: Readonly<Record<string, 'succeeded' | 'failed' | 'cancelled'>> = {
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/**
 * The public view of a `retrieve_or_generate` run: spec 01's WorkflowResult (snake case, as the
 * spec writes it) plus `state`. The coordinator's definition produces it; the gateway only reads
 * it, so it is lenient here (unknown fields pass, missing ones are optional) and documents it.
 */
export const workflowResult = z.looseObject({
  status: z.string().describe('`running` while the run goes on; then `succeeded` | `failed` | `cancelled`.'),
  outcome: z.enum(['hit', 'new']).nullable().optional().describe('`hit`: an existing solution was retrieved; `new`: one was generated.'),
  output: z
    .looseObject({
      asset_version_id: z.uuid().nullable().optional().describe('The solution (HTML) asset version.'),
      video_pending: z.boolean().optional().describe('A video is being rendered in the background.'),
      is_approximate: z.boolean().optional().describe('The solution is a near-miss retrieved after generation failed.'),
    })
    .nullable()
    .optional(),
  workflow_run_id: z.uuid().optional(),
  attempt_no: z.int().positive().optional(),
  cost_usd: z.number().nullable().optional(),
  duration_ms: z.number().nullable().optional(),
  error_code: z.string().nullable().optional(),
  state: z.string().optional(),
  waiting_for_run_id: z
    .uuid()
    .optional()
    .describe('An earlier run of yours with the same problem signature and intent is still going; this run waits for it and ends with its result.'),
  cached_from: z
    .uuid()
    .optional()
    .describe('This result is the one of an earlier run of yours with the same problem signature and intent (spec 01 idempotency): nothing was searched or solved again.'),
});
export type WorkflowResult = z.infer<typeof workflowResult>;

const uuid = z.uuid();

function outputOf(view: Record<string, unknown>): Record<string, unknown> | undefined {
  const output = view['output'];
  return typeof output === 'object' && output !== null && !Array.isArray(output) ? (output as Record<string, unknown>) : undefined;
}

/** The solution asset version a run's view names, if any. */
export function solutionAssetIdOf(view: Record<string, unknown>): string | undefined {
  const id = outputOf(view)?.['asset_version_id'];
  return uuid.safeParse(id).success ? (id as string) : undefined;
}

export function videoPendingOf(view: Record<string, unknown>): boolean {
  return outputOf(view)?.['video_pending'] === true;
}
