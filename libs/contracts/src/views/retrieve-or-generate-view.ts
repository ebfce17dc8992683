import { z } from 'zod';

/** WorkflowResult.status (spec 01 Output): the terminal states map one to one, everything else runs. */
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * The `view` of a `retrieve_or_generate` run (`RETRIEVE_OR_GENERATE`) as its definition writes it
 * into `RunStateChanged`: spec 01's WorkflowResult (snake case, as the spec writes it) plus the
 * run's state and, once known, a problem signature summary. Strict: the coordinator's view mapping is
 * typed by it and its spec parses every view with it, so a field it adds must be declared here first.
 */
export const retrieveOrGenerateView = z.strictObject({
  status: z.enum(RUN_STATUSES),
  outcome: z.enum(['hit', 'new']).optional(),
  output: z.strictObject({
    asset_version_id: z.uuid().optional(),
    video_pending: z.boolean().optional(),
    is_approximate: z.boolean().optional(),
  }),
  workflow_run_id: z.uuid(),
  attempt_no: z.int().positive(),
  cost_usd: z.number(),
  duration_ms: z.number(),
  error_code: z.string().optional(),
  state: z.string(),
  problem_signature: z.strictObject({ text_sha256: z.string(), subject: z.string() }).optional(),
  /** The earlier run with the same signature, user and intent this run waits for (ADR 0016). */
  waiting_for_run_id: z.uuid().optional(),
  /** The earlier run whose result this one is: nothing was retrieved or solved again (ADR 0016). */
  cached_from: z.uuid().optional(),
  /** An image whose reading was not trusted (issue 25): what was read, what was doubted and, once its owner answered, how. */
  reading: z
    .strictObject({
      text: z.string(),
      doubts: z.array(z.string()),
      answer: z.enum(['confirmed', 'corrected']).optional(),
      solved_text: z.string().optional(),
    })
    .optional(),
  /** Retrieval found the problem stored in other names (issue 24): the stored asset and the renaming, stored name → the asker's. */
  relabelled_from: z
    .strictObject({ asset_version_id: z.uuid(), relabel: z.array(z.strictObject({ from: z.string(), to: z.string() })) })
    .optional(),
});
export type RetrieveOrGenerateView = z.infer<typeof retrieveOrGenerateView>;

/**
 * The same view as its readers (the gateway's WorkflowResult, documented in its OpenAPI) take it:
 * lenient, so views written before a field existed, or after one was added, still read (unknown
 * fields pass, missing ones are optional). Every view `retrieveOrGenerateView` accepts reads here.
 */
export const retrieveOrGenerateResult = z.looseObject({
  status: z.string().describe('`running` while the run goes on; then `succeeded` | `failed` | `cancelled`.'),
  outcome: z
    .enum(['hit', 'new'])
    .nullable()
    .optional()
    .describe(
      '`hit`: an existing solution was retrieved (for maths stored in other names, e.g. in x where you wrote k, the maths engine\'s ' +
        'solution rendered again in your names); `new`: one was generated.',
    ),
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
  reading: z
    .looseObject({
      text: z.string().describe('The text as read from the image.'),
      doubts: z.array(z.string()).describe('What could not be read reliably: each doubted character with its probability, ink outside every line, ...'),
      answer: z.enum(['confirmed', 'corrected']).optional().describe('How you answered: the reading confirmed, or the text corrected.'),
      solved_text: z.string().optional().describe('The text that was solved after your answer.'),
    })
    .optional()
    .describe(
      'An image whose reading was not trusted. In state `AWAITING_READING_CONFIRMATION` (submitted with `confirm_reading`) the run waits for ' +
        '`POST /runs/{id}/reading` with `{ "confirm": true }` or `{ "text": "..." }`; otherwise the run failed `unreadable`.',
    ),
  relabelled_from: z
    .looseObject({
      asset_version_id: z.uuid().describe('The stored solution of the same problem written in other names.'),
      relabel: z.array(z.looseObject({ from: z.string(), to: z.string() })).describe('Each stored unknown and your name for it.'),
    })
    .optional()
    .describe(
      'The problem was found stored in other names (e.g. in x where you wrote k). Its solution is never served in the wrong names: ' +
        'with `outcome: hit` the maths engine rendered it again in yours; with `outcome: new` it was solved afresh.',
    ),
});
export type RetrieveOrGenerateResult = z.infer<typeof retrieveOrGenerateResult>;
