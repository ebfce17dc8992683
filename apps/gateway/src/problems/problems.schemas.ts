import { freeText } from '@openpaw/contracts';
import { z } from 'zod';
import { workflowResult } from './workflow-result.js';

/** Longest `?wait` (seconds): an HTTP request should not hang on longer than a minute. */
export const MAX_WAIT_SECONDS = 60;

/** The name of the multipart field holding the image. */
export const UPLOAD_FIELD = 'file';

export const intentField = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'a short lower-case name such as "solve"')
  .default('solve')
  .describe('What to do with the problem (default `solve`). Part of the idempotency key.');

export const contentSensitivityField = z
  .enum(['standard', 'sensitive'])
  .default('standard')
  .describe(
    'The client may mark its submission `sensitive` (stricter retrieval threshold 0.95, no video). It can only tighten: ' +
      'ingestion also tags content sensitive by its text (personal data, exam-paper markers, explicit content), whatever this says.',
  );

const CONFIRM_READING_DESCRIPTION =
  'Read → confirm → solve: when an image cannot be read reliably, wait in `AWAITING_READING_CONFIRMATION` with the reading and its doubts in ' +
  'the run’s view, for `POST /runs/{id}/reading`, instead of failing `unreadable` (default false).';

export const confirmReadingField = z.boolean().default(false).describe(CONFIRM_READING_DESCRIPTION);
/** The same as a multipart field: `true` or `false` (also `1`/`0`, `yes`/`no`). */
export const confirmReadingFormField = z.stringbool().default(false).describe(CONFIRM_READING_DESCRIPTION);

const problemJsonBodyObject = z.object({
  text: freeText().trim().min(1, 'text is empty').max(20_000).optional().describe('The problem as text.'),
  url: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL' })
    .max(2048)
    .optional()
    .describe('The problem at a URL (a page or an image).'),
  intent: intentField,
  content_sensitivity: contentSensitivityField,
  confirm_reading: confirmReadingField,
});

/** `POST /problems` JSON body: exactly one of `text` or `url`. */
export const problemJsonBody = z.preprocess(
  (value) => value ?? {},
  problemJsonBodyObject.superRefine((body, ctx) => {
    if (body.text === undefined && body.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'give the problem as `text` or `url` (or upload an image as multipart `file`)' });
    } else if (body.text !== undefined && body.url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'give `text` or `url`, not both' });
    }
  }),
);
export const problemJsonBodyDoc = problemJsonBodyObject;

/** `POST /problems` multipart fields besides the file. */
export const problemMultipartFields = z.object({ intent: intentField, content_sensitivity: contentSensitivityField, confirm_reading: confirmReadingFormField });

export const problemMultipartDoc = z.object({
  file: z.string().describe('The image (PNG, JPEG, WebP, GIF, TIFF, AVIF or HEIC).'),
  intent: intentField,
  content_sensitivity: contentSensitivityField,
  confirm_reading: z.enum(['true', 'false']).default('false').describe(CONFIRM_READING_DESCRIPTION),
});

/** `POST /problems?wait=` */
export const submitProblemQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .optional()
    .describe(`Seconds (0..${MAX_WAIT_SECONDS}) to wait for the run to end before answering (200 if it did, 202 otherwise).`),
});

/** What `POST /problems` answers: the run, with its result once terminal or an ETA while running. */
export const problemSubmission = z.object({
  run_id: z.uuid(),
  state: z.string().describe('The run’s state (`INITIATED` for a run the coordinator has not reported yet).'),
  status: z.enum(['running', 'succeeded', 'failed', 'cancelled']),
  terminal: z.boolean(),
  attempt_no: z.int().positive(),
  eta_seconds: z
    .number()
    .nonnegative()
    .nullable()
    .optional()
    .describe('While running: estimated seconds left (median of recent successful runs minus elapsed); null without history.'),
  eta_sample_size: z.int().nonnegative().optional().describe('How many recent runs the ETA is based on.'),
  result: workflowResult.optional().describe('Once terminal: the WorkflowResult (spec 01 Output).'),
  links: z.object({ run: z.string(), events: z.string(), solution: z.string(), video: z.string() }),
});
export type ProblemSubmission = z.infer<typeof problemSubmission>;
